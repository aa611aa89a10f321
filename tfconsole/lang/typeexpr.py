"""Type constraint expressions: `string`, `list(number)`, `object({a = optional(string, "x")})`.

Used by variable `type` arguments and the `convert` function; the expression is read as
syntax, never evaluated (only an optional attribute's default value is, by the `constant`
evaluator the caller passes: this module sits below the evaluator, which uses it for `convert`).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfconsole.diags import Diagnostics

from . import ast as A
from .types import BOOL, DYNAMIC, NUMBER, STRING, ListType, MapType, ObjectType, SetType, TupleType, Type

__all__ = ["type_constraint"]


Constant = Callable[[A.Expr], tuple[Any, Diagnostics]]


def type_constraint(e: A.Expr, constant: Constant, legacy: bool = False) -> tuple[Type, Diagnostics]:
    """The type (with optional attributes and their defaults) an expression spells, or
    DYNAMIC and a diagnostic. `legacy` accepts the quoted types of Terraform 0.11 ("string",
    "list", "map"), which only a variable's type argument still may use. `constant` evaluates
    an optional attribute's default value (an expression with no references)."""
    diags = Diagnostics()
    if legacy and isinstance(e, A.Literal) and isinstance(e.value, str):
        legacy_types = {"string": STRING, "list": ListType(STRING), "map": MapType(STRING)}
        if e.value in legacy_types:
            return legacy_types[e.value], diags
        diags.error("Invalid type specification", f"Invalid legacy type specification {e.value!r}.", e.range)
        return DYNAMIC, diags
    try:
        return _tc(e, constant), diags
    except _DefaultErr as exc:
        diags.error("Invalid default value for optional attribute", exc.args[0], exc.args[1] or e.range)
        return DYNAMIC, diags
    except _TypeErr as exc:
        diags.error("Invalid type specification", exc.args[0], e.range)
        return DYNAMIC, diags


class _TypeErr(Exception):
    pass


class _DefaultErr(Exception):
    """(detail, range) of an optional attribute's default that does not fit its type."""


_PRIMS = {"string": STRING, "number": NUMBER, "bool": BOOL, "any": DYNAMIC}


def _tc(e: A.Expr, constant: Constant) -> Any:
    if isinstance(e, A.ScopeTraversal) and not e.steps:
        if e.root in _PRIMS:
            return _PRIMS[e.root]
        if e.root in ("list", "map", "set"):
            return {"list": ListType, "map": MapType, "set": SetType}[e.root](DYNAMIC)
        raise _TypeErr(f"The keyword \"{e.root}\" is not a valid type specification.")
    if isinstance(e, A.FunctionCall):
        n = e.name
        if n in ("list", "set", "map"):
            if len(e.args) != 1:
                raise _TypeErr(f"The {n} type constructor requires one argument specifying the element type.")
            inner = _tc(e.args[0], constant)
            return {"list": ListType, "map": MapType, "set": SetType}[n](inner)
        if n == "tuple":
            if len(e.args) != 1 or not isinstance(e.args[0], A.TupleCons):
                raise _TypeErr("The tuple type constructor requires one argument specifying the element types "
                               "as a list.")
            return TupleType(tuple(_tc(x, constant) for x in e.args[0].items))
        if n == "object":
            if len(e.args) != 1 or not isinstance(e.args[0], A.ObjectCons):
                raise _TypeErr("The object type constructor requires one argument specifying the attribute "
                               "types as a map.")
            attrs: dict[str, Type] = {}
            optional: set[str] = set()
            defaults: dict[str, Any] = {}
            for k, v in e.args[0].items:
                name = k.name if isinstance(k, A.ObjectKey) and k.name else None
                if name is None:
                    raise _TypeErr("Object constructor map keys must be attribute names.")
                if isinstance(v, A.FunctionCall) and v.name == "optional":
                    if not 1 <= len(v.args) <= 2:
                        raise _TypeErr("Optional attribute modifier requires the attribute type as its first "
                                       "argument and an optional default value as its second.")
                    attrs[name] = _tc(v.args[0], constant)
                    optional.add(name)
                    if len(v.args) == 2:
                        defaults[name] = _default_value(v.args[1], attrs[name], constant)
                else:
                    attrs[name] = _tc(v, constant)
            return ObjectType.of(attrs, frozenset(optional), defaults)
        if n == "optional":
            raise _TypeErr("Keyword \"optional\" is valid only as a modifier for object type attributes.")
        raise _TypeErr(f"Keyword \"{n}\" is not a valid type constructor.")
    raise _TypeErr("A type specification is either a primitive type keyword (bool, number, string) or a complex "
                   "type constructor call, like list(string).")


def _default_value(e: A.Expr, ty: Type, constant: Constant) -> Any:
    """An optional attribute's default: a constant expression converted to the attribute type."""
    from .values import ConversionError, convert

    val, diags = constant(e)
    if diags.has_errors:
        first = diags.errors()[0]
        raise _DefaultErr(f"This default value is not compatible with the attribute's type constraint: "
                          f"{first.detail or first.summary}", e.range)
    try:
        return convert(val, ty)
    except ConversionError as exc:
        from .funcs import conversion_message

        raise _DefaultErr("This default value is not compatible with the attribute's type constraint: "
                          f"{conversion_message(exc, val)}.", e.range) from None
