"""Type conversion functions and the sensitive-mark functions."""
from __future__ import annotations

from ..types import (
    BOOL, DYNAMIC, NUMBER, STRING, ListType, MapType, ObjectType, PrimitiveType, SetType, TupleType,
    Type, type_string, without_optional,
)
from ..values import (
    SENSITIVE, ephemeral_as_null, mark,
    ConversionError, Sensitive, Unknown, contains_marks, convert, is_null, is_wholly_known, type_of, unify_types,
    unmark, unmark_deep,
)
from . import FunctionError, Param, register, registered, conversion_message


def _constraint_name(t: Type) -> str:
    if isinstance(t, (ListType, SetType, MapType)) and t.elem == DYNAMIC:
        kind = {ListType: "list", SetType: "set", MapType: "map"}[type(t)]
        return f"{kind} of any single type"
    return t.friendly()


def _make_to(name: str, want: Type):
    def rt(args):
        return want if not isinstance(want, (ListType, SetType, MapType)) else _coll_rt(args, want)

    def impl(args, ctx):
        v = args[0]
        inner, _ = unmark_deep(v)
        got = type_of(inner)
        if got == want:
            return v
        if isinstance(want, (ListType, SetType, MapType)) and isinstance(got, (TupleType, ObjectType)):
            elems = [t for _, t in got.attrs] if isinstance(got, ObjectType) else list(got.elems)
            concrete = [t for t in elems if t != DYNAMIC]
            if len(set(concrete)) > 1 and unify_types(concrete) == DYNAMIC:
                raise FunctionError(f"cannot convert {got.friendly()} to {_constraint_name(want)}", 0)
        try:
            return convert(v, want)
        except ConversionError as exc:
            if isinstance(want, PrimitiveType) and type(inner) is str:
                raise FunctionError(exc.message, 0) from None
            if not _conversion_possible(got, want):
                raise FunctionError(f"cannot convert {got.friendly()} to {_constraint_name(want)}", 0) \
                    from None
            raise FunctionError(conversion_message(exc, inner), 0) from None

    register(name, [Param("v", DYNAMIC, allow_null=True, allow_marked=True)], rt,
             nested_unknowns=True)(impl)


def _coll_rt(args, want):
    try:
        return type_of(convert(args[0], want))
    except Exception:  # noqa: BLE001
        return want


def _conversion_possible(got: Type, want: Type) -> bool:
    if isinstance(want, PrimitiveType):
        return isinstance(got, PrimitiveType) and (got == want or STRING in (got, want))
    if isinstance(want, (ListType, SetType)):
        return isinstance(got, (ListType, SetType, TupleType))
    if isinstance(want, MapType):
        return isinstance(got, (MapType, ObjectType))
    return True


_make_to("tobool", BOOL)
_make_to("tonumber", NUMBER)
_make_to("tostring", STRING)
_make_to("tolist", ListType(DYNAMIC))
_make_to("toset", SetType(DYNAMIC))
_make_to("tomap", MapType(DYNAMIC))


@register("type", [Param("value", DYNAMIC, allow_null=True, allow_unknown=True, allow_marked=True)],
          STRING, nested_unknowns=True)
def _type(args, ctx):
    return type_string(type_of(args[0]))


@register("sensitive", [Param("value", DYNAMIC, allow_null=True, allow_unknown=True, allow_marked=True)],
          lambda args: type_of(args[0]), nested_unknowns=True)
def _sensitive(args, ctx):
    return mark(args[0], SENSITIVE)


@register("nonsensitive",
          [Param("value", DYNAMIC, allow_null=True, allow_unknown=True, allow_marked=True)],
          lambda args: type_of(args[0]), nested_unknowns=True)
def _nonsensitive(args, ctx):
    v, m = unmark(args[0])
    return mark(v, m & ~SENSITIVE)  # an ephemeral mark stays


@register("issensitive",
          [Param("value", DYNAMIC, allow_null=True, allow_unknown=True, allow_marked=True)],
          BOOL, nested_unknowns=True)
def _issensitive(args, ctx):
    v = args[0]
    if type(v) is Sensitive and v.marks & SENSITIVE:
        return True
    if type(unmark(v)[0]) is Unknown:
        return Unknown(BOOL)
    return False


# type() exists only in `terraform console`
registered("type").extra["console_only"] = True


def _convert_rt(args):
    ty = args[1]
    return without_optional(ty) if isinstance(ty, Type) else DYNAMIC


@register("convert", [Param("value", DYNAMIC, allow_null=True), Param("type", DYNAMIC)], _convert_rt)
def _convert(args, ctx):
    """convert(value, type): the evaluator reads the type argument as a type constraint (with
    optional attributes and defaults) and passes the Type here."""
    v, ty = args
    if not isinstance(ty, Type):
        raise FunctionError("a type constraint is required", 1)
    try:
        return convert(v, ty)
    except ConversionError as exc:
        raise FunctionError(conversion_message(exc, v), 0) from None


@register("ephemeralasnull",
          [Param("value", DYNAMIC, allow_null=True, allow_unknown=True, allow_marked=True)],
          lambda args: type_of(args[0]), nested_unknowns=True)
def _ephemeralasnull(args, ctx):
    """Every ephemeral part of the value replaced by a null of its type, other marks kept."""
    return ephemeral_as_null(args[0])


# can, try and templatestring take expressions, not values: the evaluator calls them itself
# (eval.py). Registered here for their signatures and for callers holding evaluated values,
# for whom evaluation has already succeeded.


@register("can", [Param("expression", DYNAMIC, allow_null=True, allow_unknown=True, allow_marked=True)],
          BOOL, nested_unknowns=True)
def _can(args, ctx):
    return True if is_wholly_known(unmark_deep(args[0])[0]) else Unknown(BOOL)


@register("try", [], lambda args: type_of(args[0]) if args else DYNAMIC, nested_unknowns=True,
          variadic=Param("expressions", DYNAMIC, allow_null=True, allow_unknown=True, allow_marked=True))
def _try(args, ctx):
    if not args:
        raise FunctionError("at least one argument is required")
    return args[0]


@register("templatestring", [Param("template", STRING), Param("vars", DYNAMIC)], DYNAMIC)
def _templatestring(args, ctx):
    tmpl, variables = args
    if not isinstance(variables, dict):
        raise FunctionError("map or object required", 1)
    if ctx.render_template is None:
        raise FunctionError("templates are not available here")
    return ctx.render_template(tmpl, dict(variables), "<templatestring>")
