"""Evaluation of compiled expressions against a Scope.

The Scope sees the world only through a Data object (the walk layer implements it, see
walk/evaluator.py). Evaluation errors travel as EvalError inside this module and leave it as
Diagnostics from `evaluate()`; nothing else escapes.
"""
from __future__ import annotations

import threading
from typing import Any, Protocol

from tfconsole.addrs import Resource
from tfconsole.diags import Diagnostic, Diagnostics, Pos, Severity, SourceRange
from tfconsole.memo import remember

from . import ast as A
from . import numbers as N
from .numbers import Num
from .strings import nfc
from .types import BOOL, DYNAMIC, NUMBER, STRING, DynamicType, ObjectType, TupleType
from .values import (
    ConversionError, Null, Sensitive, TList, TMap, TSet, Unknown, convert, equal, format_number,
    is_null, is_wholly_known, mark, note_wholly_known, type_of, unify_types, unmark, unmark_deep,
)


class EvalError(Exception):
    def __init__(self, summary: str, detail: str = "", rng: SourceRange | None = None,
                 expr: Any = None, function_call: str | None = None):
        super().__init__(summary)
        self.summary = summary
        self.detail = detail
        self._range = rng
        self._step: tuple[A.ScopeTraversal, int] | None = None  # see range
        self.expr = expr
        # "f(a, b)": the signature of the function whose call failed (Terraform prints
        # "while calling f(a, b)" under the source line)
        self.function_call = function_call
        # the scope `expr` failed in (set by ev() as the error leaves the innermost expression):
        # what the diagnostic's value annotations are looked up in
        self.scope: Any = None
        # errors found beside this one in the same expression (both operands of an operator)
        self.more: list[EvalError] = []

    @property
    def range(self) -> SourceRange | None:
        # a failing traversal step's own range is worked out when it is read: most such errors
        # are caught by try() or can() and never shown
        if self._step is not None:
            e, i = self._step
            self._step = None
            self._range = _step_range(e, i) or self._range
        return self._range

    @range.setter
    def range(self, rng: SourceRange | None) -> None:
        self._range = rng
        self._step = None

    def diagnostics(self) -> list[Diagnostic]:
        from .diagvalues import expression_values

        # Terraform names the failed call ("while calling f(...)") from the evaluation context's
        # functions, which a for expression's child context does not carry
        call = None if getattr(self.scope, "in_for", False) else self.function_call
        first = Diagnostic(Severity.ERROR, self.summary, self.detail, self.range,
                           function_call=call, values=expression_values(self.expr, self.scope))
        return [first] + [d for m in self.more for d in m.diagnostics()]


class Data(Protocol):
    """What expressions can see. Each method raises EvalError for a bad reference."""

    def get_variable(self, name: str, rng: SourceRange | None) -> Any: ...
    def get_local(self, name: str, rng: SourceRange | None) -> Any: ...
    def get_module(self, name: str, rng: SourceRange | None) -> Any: ...
    def get_resource(self, res: Resource, rng: SourceRange | None) -> Any: ...
    def get_resource_instance(self, res: Resource, key: Any, rng: SourceRange | None) -> Any: ...
    def get_path(self, name: str, rng: SourceRange | None) -> Any: ...
    def get_terraform(self, name: str, rng: SourceRange | None) -> Any: ...


NOT_FOUND = object()
_new_scope = object.__new__


class Scope:
    __slots__ = ("data", "count_index", "each", "self_value", "vars", "base_dir", "_fctx",
                 "in_check", "in_for")

    def __init__(self, data: Data | None = None, *, count_index: Any = None, each: tuple | None = None,
                 self_value: Any = NOT_FOUND, base_dir: str = ".", vars: dict | None = None):
        self.data = data
        self.count_index = count_index
        self.each = each  # (key, value)
        self.self_value = self_value
        self.vars = vars or {}
        self.base_dir = base_dir
        self._fctx = None
        self.in_for = False  # a for expression's body (HCL evaluates it in a child context)

    def child(self, extra: dict, *, for_body: bool = False) -> "Scope":
        # made field by field, not through __init__'s keywords: a for expression makes one per element
        s = _new_scope(Scope)
        s.data, s.count_index, s.each, s.self_value = self.data, self.count_index, self.each, self.self_value
        s.vars, s.base_dir, s._fctx = {**self.vars, **extra}, self.base_dir, self._fctx
        s.in_for = self.in_for or for_body
        return s

    def lookup(self, traversal: A.ScopeTraversal) -> Any:
        """The value a traversal names here (EvalError when it names nothing): what diagnostics'
        value annotations look up, without importing the evaluator."""
        return _traversal(traversal, self)

    def func_context(self) -> Any:
        if self._fctx is None:
            from .funcs import FuncContext

            self._fctx = FuncContext(base_dir=self.base_dir, render_template=render_template)
        return self._fctx


# ---------------------------------------------------------------------------
# public entry points


def evaluate(expr: A.Expr, scope: Scope) -> tuple[Any, Diagnostics]:
    diags = Diagnostics()
    outer = _budget.left
    if outer is None:
        _budget.left = MAX_ITERATIONS  # a fresh budget for each top-level evaluation
    try:
        return ev(expr, scope), diags
    except EvalError as exc:
        for d in exc.diagnostics():
            diags.append(d)
        return Unknown(DYNAMIC), diags
    except RecursionError:
        diags.error("Expression too complex", "The expression nests too deeply to evaluate.",
                    expr.range)
        return Unknown(DYNAMIC), diags
    finally:
        if outer is None:
            _budget.left = None


def render_template(text: str, variables: dict, filename: str, base_dir: str | None = None) -> Any:
    """templatefile(): the template sees only the given variables and functions. A template
    that is exactly one interpolation gives that value itself, of any type (HCL's
    TemplateWrapExpr); anything else is a string."""
    return _render(text, variables, filename, "templatefile", base_dir)


def _render(text: str, variables: dict, filename: str, mode: str, base_dir: str | None = None) -> Any:
    """Evaluate a template for templatefile/templatestring. Problems inside the template come
    back as the calling function's error, located inside the template ("t.tftpl:1,3-16:
    summary; detail"), as Terraform reports them."""
    from .funcs import FuncContext, FunctionError

    try:
        expr = A.parse_template(text, filename)
    except A.ParseError as exc:
        raise FunctionError(_inner(exc.range, "Invalid template", exc.message)) from None
    scope = Scope(_NoData(), vars=dict(variables), base_dir=base_dir or ".")
    # inside a template, the template functions (and for templatestring the filesystem
    # functions) refuse to run, as Terraform's do
    scope._fctx = FuncContext(base_dir=scope.base_dir, render_template=render_template, template_mode=mode)
    for ref in A.references(expr):
        if ref.root not in variables:
            raise FunctionError(f'vars map does not contain key "{ref.root}", referenced at {ref.range.long()}', 1)
    try:
        return ev(expr, scope)
    except EvalError as exc:
        raise FunctionError(_inner(exc.range, exc.summary, exc.detail)) from None
    except RecursionError:
        raise FunctionError(f"{filename}: the template nests too deeply to evaluate") from None


def _inner(rng: SourceRange | None, summary: str, detail: str) -> str:
    where = f"{rng.long()}: " if rng is not None else ""
    return f"{where}{summary}; {detail}" if detail else f"{where}{summary}"


def evaluate_constant(expr: A.Expr) -> tuple[Any, Diagnostics]:
    """An expression that may refer to nothing (a type constraint's default value)."""
    return evaluate(expr, Scope(_NoData()))


class _NoData:
    def __getattr__(self, name: str) -> Any:
        def fail(*args: Any) -> Any:
            raise EvalError("Invalid reference", "Templates can refer only to their own variables.",
                            args[-1] if args else None)

        return fail


# ---------------------------------------------------------------------------
# dispatch


def ev(e: A.Expr, s: Scope) -> Any:
    try:
        return _DISPATCH[type(e)](e, s)
    except EvalError as exc:
        # the innermost expression an error leaves (unless the error named its own, an
        # operand) and its scope: Terraform's diagnostic Expression and EvalContext
        if exc.scope is None:
            exc.scope = s
            if exc.expr is None:
                exc.expr = e
        raise


def _literal(e: A.Literal, s: Scope) -> Any:
    return e.value


def _parens(e: A.Parens, s: Scope) -> Any:
    return ev(e.inner, s)


def _anon(e: A.AnonSymbol, s: Scope) -> Any:
    return s.vars["\x00splat"]


# A constructor made only of literals (and of such constructors) has the same value wherever and
# however often it is evaluated: a module called six times evaluates its large literal locals
# once. Values are never changed in place (every operation makes a new one), so the value is
# shared as any other value is. Two threads evaluating it at once both store equal values.


def _constant_item(v: A.Expr) -> bool:
    t = type(v)
    if t is A.Literal:
        return True
    return (t is A.ObjectCons or t is A.TupleCons) and v.const is not None and v.const is not A.NOT_CONSTANT


def _tuple(e: A.TupleCons, s: Scope) -> Any:
    c = e.const
    if c is not None and c is not A.NOT_CONSTANT:
        return c
    out = [ev(i, s) for i in e.items]
    if c is None:
        e.const = note_wholly_known(out) if all(_constant_item(i) for i in e.items) else A.NOT_CONSTANT
    return out


def _object(e: A.ObjectCons, s: Scope) -> Any:
    c = e.const
    if c is not None and c is not A.NOT_CONSTANT:
        return c
    out = _object_value(e, s)
    if c is None:
        e.const = note_wholly_known(out) if all(k.name is not None and _constant_item(v) for k, v in e.items) \
            else A.NOT_CONSTANT
    return out


def _object_value(e: A.ObjectCons, s: Scope) -> Any:
    out: dict[str, Any] = {}
    marked = False
    for k, v in e.items:
        assert isinstance(k, A.ObjectKey)
        if k.name is not None:
            key: Any = k.name
        else:
            key = ev(k.expr, s)  # type: ignore[arg-type]
            key, km = unmark(key)
            marked = marked | km
            if isinstance(key, Unknown):
                return Unknown(DYNAMIC)
            if is_null(key):
                raise EvalError("Invalid object key", "Key expression in object constructor must not be null.",
                                k.range)
            try:
                key = convert(key, STRING)
            except ConversionError:
                raise EvalError("Incorrect key type", "Can't use this value as a key: string required.",
                                k.range) from None
        out[key] = ev(v, s)
    return mark(out, marked)


def _template(e: A.Template, s: Scope) -> Any:
    pieces: list[str] = []
    marked = False
    unknown = False
    for p in e.parts:
        v = ev(p, s)
        if type(v) is Sensitive:
            marked |= v.marks
            v = v.value
        if type(v) is Unknown:
            unknown = True
            continue
        if type(v) is str:
            pieces.append(v)
            continue
        if is_null(v):
            raise EvalError("Invalid template interpolation value",
                            "The expression result is null. Cannot include a null value in a string "
                            "template.", p.range)
        try:
            inner, m2 = unmark_deep(v)
            marked = marked | m2
            if not is_wholly_known(inner):
                unknown = True
                continue
            pieces.append(convert(inner, STRING))
        except ConversionError:
            raise EvalError("Invalid template interpolation value",
                            f"Cannot include the given value in a string template: string required, "
                            f"but have {type_of(v).friendly()}.", p.range) from None
    if unknown:
        return mark(Unknown(STRING), marked)
    return mark(nfc("".join(pieces)), marked)


def _template_wrap(e: A.TemplateWrap, s: Scope) -> Any:
    return ev(e.inner, s)


def _template_if(e: A.TemplateIf, s: Scope) -> Any:
    c = ev(e.cond, s)
    c, marked = unmark(c)
    if type(c) is Unknown:
        return mark(Unknown(STRING), marked)
    c = _to_bool(c, e.cond, "condition")
    if c:
        return mark(ev(e.then, s), marked)
    if e.else_ is not None:
        return mark(ev(e.else_, s), marked)
    return mark("", marked)


def _template_for(e: A.TemplateFor, s: Scope) -> Any:
    coll = ev(e.coll, s)
    coll, marked = unmark(coll)
    if type(coll) is Unknown:
        return mark(Unknown(STRING), marked)
    out: list[str] = []
    for k, v in _iterate(coll, e.coll):
        inner = s.child({e.val_var: v, **({e.key_var: k} if e.key_var else {})}, for_body=True)
        r = ev(e.body, inner)
        r, m = unmark(r)
        marked = marked | m
        if type(r) is Unknown:
            return mark(Unknown(STRING), marked)
        out.append(r)
    return mark(nfc("".join(out)), marked)


# Nested for expressions multiply: three of range(1024) are a billion iterations, which
# Terraform runs until it is stopped. One evaluation may iterate at most this many elements.
MAX_ITERATIONS = 1_000_000
class _Budget(threading.local):
    # None: no evaluation under way in this thread (a class default, so reading it raises nothing)
    left: int | None = None


_budget = _Budget()


def _spend(n: int, where: A.Expr) -> None:
    left = _budget.left
    left = (MAX_ITERATIONS if left is None else left) - n
    _budget.left = left
    if left < 0:
        raise EvalError("Expression too expensive",
                        f"Evaluating this expression iterates over more than {MAX_ITERATIONS} elements (in for "
                        "expressions, splats and template loops together), the most tfconsole evaluates at once.",
                        where.range)


def _iterate(coll: Any, where: A.Expr) -> list[tuple[Any, Any]]:
    t = type(coll)
    if t in (dict, TMap, list, TList, TSet):
        _spend(len(coll), where)
    if t is dict or t is TMap:
        return list(coll.items()) if t is TMap else sorted(coll.items())
    if t is list or t is TList:
        return list(enumerate(coll))
    if t is TSet:
        return [(v, v) for v in coll]
    if is_null(coll):
        raise EvalError("Iteration over null value", "A null value cannot be used as the collection in a "
                        "'for' expression.", where.range)
    raise EvalError("Iteration over non-iterable value",
                    f"A value of type {type_of(coll).friendly()} cannot be used as the collection in a "
                    "'for' expression.", where.range)


# --- traversals


def _traversal(e: A.ScopeTraversal, s: Scope) -> Any:
    root = e.root
    steps = e.steps
    if root in s.vars:
        return _apply_steps(s.vars[root], steps, 0, e)
    data = s.data
    rng = e.range
    if root == "var" or root == "local" or root == "module" or root == "path" or root == "terraform":
        if not steps or not isinstance(steps[0], A.AttrStep):
            raise EvalError("Invalid reference", _REF_DETAIL.get(root, f"The \"{root}\" object does not "
                            "support this operation."), rng)
        name = steps[0].name
        if root == "var":
            v = data.get_variable(name, rng)
        elif root == "local":
            v = data.get_local(name, rng)
        elif root == "module":
            v = data.get_module(name, rng)
        elif root == "path":
            v = data.get_path(name, rng)
        else:
            v = data.get_terraform(name, rng)
        return _apply_steps(v, steps, 1, e)
    if root == "count":
        if not steps or type(steps[0]) is not A.AttrStep or steps[0].name != "index":
            raise EvalError("Invalid \"count\" attribute",
                            "The \"count\" object does not have an attribute named "
                            f"{_first_attr(steps)}. The only supported attribute is count.index, which is "
                            "the index of each instance of a resource block that has the \"count\" "
                            "argument set.", rng)
        if s.count_index is None:
            raise EvalError("Reference to \"count\" in non-counted context",
                            "The \"count\" object can only be used in \"module\", \"resource\", and "
                            "\"data\" blocks, and only when the \"count\" argument is set.", rng)
        return _apply_steps(s.count_index, steps, 1, e)
    if root == "each":
        if not steps or type(steps[0]) is not A.AttrStep or steps[0].name not in ("key", "value"):
            raise EvalError("Invalid \"each\" attribute",
                            f"The \"each\" object does not have an attribute named {_first_attr(steps)}. "
                            "The supported attributes are each.key and each.value, the current key and "
                            "value pair of the \"for_each\" attribute set.", rng)
        if s.each is None:
            raise EvalError("Reference to \"each\" in context without for_each",
                            "The \"each\" object can be used only in \"module\" or \"resource\" blocks, "
                            "and only when the \"for_each\" argument is set.", rng)
        v = s.each[0] if steps[0].name == "key" else s.each[1]
        return _apply_steps(v, steps, 1, e)
    if root == "self":
        if s.self_value is NOT_FOUND:
            raise EvalError("Invalid \"self\" reference",
                            "The \"self\" object is not available in this context. This object can be used "
                            "only in resource provisioner, connection, and postcondition blocks.", rng)
        return _apply_steps(s.self_value, steps, 0, e)
    mode = "managed"
    if root == "data" or root == "ephemeral":
        mode = root
        if len(steps) < 2 or not isinstance(steps[0], A.AttrStep) or not isinstance(steps[1], A.AttrStep):
            raise EvalError("Invalid reference", _MODE_REF_DETAIL[root], rng)
        rtype, rname = steps[0].name, steps[1].name
        rest = 2
    else:
        if not steps or not isinstance(steps[0], A.AttrStep):
            if data is None or isinstance(data, _NoData):
                raise EvalError("Unknown variable", f"There is no variable named \"{root}\".", rng)
            raise EvalError("Invalid reference", "A reference to a resource type must be followed by at "
                            "least one attribute access, specifying the resource name.", rng)
        rtype, rname = root, steps[0].name
        rest = 1
    res = _resource(mode, rtype, rname)
    try:
        if rest < len(steps) and isinstance(steps[rest], A.IndexStep):
            v = data.get_resource_instance(res, steps[rest].key, rng)
            if v is not NOT_FOUND:
                return _apply_steps(v, steps, rest + 1, e)
        return _apply_steps(data.get_resource(res, rng), steps, rest, e)
    except EvalError as exc:
        _schema_attr_error(exc, steps, rest, s)
        raise


def _resource(mode: str, rtype: str, rname: str) -> Resource:
    """One Resource per name (its hash computed once): every instance's references make one."""
    key = (mode, rtype, rname)
    known = _RESOURCES.get(key)
    if known is None:
        known = remember(_RESOURCES, key, Resource(mode, rtype, rname), 16384)
    return known


_RESOURCES: dict[tuple[str, str, str], Resource] = {}


_MODE_REF_DETAIL = {
    "data": "The \"data\" object must be followed by two attribute names: the data source type and the "
            "resource name.",
    "ephemeral": "The \"ephemeral\" object must be followed by two attribute names: the ephemeral resource "
                 "type and the resource name.",
}

_NO_REFERENCES = A.Literal(None)


def _schema_attr_error(exc: EvalError, steps: tuple, rest: int, s: Scope) -> None:
    """An attribute a resource type does not have is, in Terraform, found against the schema
    before anything is evaluated: its words, and no value annotations."""
    i = rest + 1 if rest < len(steps) and isinstance(steps[rest], A.IndexStep) else rest
    if i >= len(steps) or not isinstance(steps[i], A.AttrStep) or exc.summary != "Unsupported attribute" \
            or f'named "{steps[i].name}"' not in exc.detail:
        return
    exc.detail = f'This object has no argument, nested block, or exported attribute named "{steps[i].name}".'
    exc.expr, exc.scope = _NO_REFERENCES, s


_REF_DETAIL = {
    "var": "The \"var\" object cannot be accessed directly. Instead, access one of its attributes.",
    "local": "The \"local\" object cannot be accessed directly. Instead, access one of its attributes.",
    "module": "The \"module\" object cannot be accessed directly. Instead, access one of its attributes.",
    "path": "The \"path\" object cannot be accessed directly. Instead, access one of its attributes.",
    "terraform": "The \"terraform\" object cannot be accessed directly. Instead, access one of its "
                 "attributes.",
}


def _first_attr(steps: tuple) -> str:
    if steps and isinstance(steps[0], A.AttrStep):
        return f'"{steps[0].name}"'
    return "(none)"


def _apply_steps(v: Any, steps: tuple, start: int, e: A.Expr) -> Any:
    i = start
    try:
        for i in range(start, len(steps)):
            st = steps[i]
            if type(st) is A.AttrStep:
                v = get_attr(v, st.name, e.range)
            else:
                v = index(v, st.key, e.range)
    except EvalError as exc:
        if exc.range is e.range and isinstance(e, A.ScopeTraversal):
            exc._step = (e, i)
        raise
    return v


def _step_range(e: A.ScopeTraversal, i: int) -> SourceRange | None:
    """Where step i of a traversal is in the source, as HCL points at a failing step (".c",
    "[5]"). Steps keep no positions, so this is worked out from the traversal's own text, and
    only when that text is exactly as wide as its source range (written without spaces)."""
    rng = e.range
    if rng is None or rng.start.line != rng.end.line:
        return None
    widths = [len("." + s.name) if isinstance(s, A.AttrStep) else len(_index_text(s.key)) for s in e.steps]
    if len(e.root) + sum(widths) != rng.end.byte - rng.start.byte:
        return None
    before = len(e.root) + sum(widths[:i])
    after = before + widths[i]
    return SourceRange(rng.filename, Pos(rng.start.line, rng.start.column + before, rng.start.byte + before),
                       Pos(rng.start.line, rng.start.column + after, rng.start.byte + after))


def _index_text(key: Any) -> str:
    import json

    return "[" + (json.dumps(key, ensure_ascii=False) if isinstance(key, str) else str(key)) + "]"


def get_attr(v: Any, name: str, rng: SourceRange | None) -> Any:
    marked = False
    if type(v) is Sensitive:
        v, marked = v.value, v.marks
    t = type(v)
    if t is dict:
        if name in v:
            return mark(v[name], marked)
        raise EvalError("Unsupported attribute", f"This object does not have an attribute named \"{name}\".",
                        rng)
    if t is TMap:
        if name in v:
            return mark(v[name], marked)
        raise EvalError("Missing map element", f"This map does not have an element with the key \"{name}\".",
                        rng)
    if t is Unknown:
        ty = v.type
        if isinstance(ty, ObjectType):
            at = dict(ty.attrs)
            if name not in at:
                raise EvalError("Unsupported attribute",
                                f"This object does not have an attribute named \"{name}\".", rng)
            return mark(Unknown(at[name]), marked)
        return mark(Unknown(getattr(ty, "elem", DYNAMIC)), marked)
    if v is None or t is Null:
        raise EvalError("Attempt to get attribute from null value",
                        "This value is null, so it does not have any attributes.", rng)
    if t in (list, TList, TSet):
        raise EvalError("Unsupported attribute",
                        "Can't access attributes on a list of objects. Did you mean to access attribute "
                        f"\"{name}\" for a specific element of the list, or across all elements of the list?",
                        rng)
    raise EvalError("Unsupported attribute",
                    f"Can't access attributes on a primitive-typed value ({type_of(v).friendly()}).", rng)


def index(v: Any, key: Any, rng: SourceRange | None) -> Any:
    marked = False
    if type(v) is Sensitive:
        v, marked = v.value, v.marks
    if type(key) is Sensitive:
        key, marked = key.value, marked | key.marks
    t = type(v)
    if type(key) is Unknown:
        if t is Unknown:
            return mark(Unknown(DYNAMIC), marked)
        return mark(Unknown(getattr(type_of(v), "elem", DYNAMIC)), marked)
    if v is None or t is Null:
        raise EvalError("Attempt to index null value", "This value is null, so it does not have any indices.",
                        rng)
    if t is list or t is TList:
        if key is None or type(key) is Null:
            raise EvalError("Invalid index", "Can't use a null value as an indexing key.", rng)
        try:
            k = convert(key, NUMBER)
        except ConversionError:
            raise EvalError("Invalid index", "The given key does not identify an element in this collection "
                            "value: a number is required.", rng) from None
        if k != int(k):
            raise EvalError("Invalid index", "The given key does not identify an element in this collection "
                            "value: a whole number is required.", rng)
        k = int(k)
        if k < 0 or k >= len(v):
            if not v:
                detail = "the collection has no elements."
            elif k < 0:
                detail = "a negative number is not a valid index for a sequence."
            else:  # past the end: HCL's plain message (go-cty's own detail is not shown)
                raise EvalError("Invalid index", "The given key does not identify an element in this collection "
                                "value.", rng)
            raise EvalError("Invalid index", "The given key does not identify an element in this collection "
                            f"value: {detail}", rng)
        return mark(v[k], marked)
    if t is dict or t is TMap:
        try:
            k = convert(key, STRING)
        except ConversionError:
            raise EvalError("Invalid index", "The given key does not identify an element in this collection "
                            "value: string required.", rng) from None
        if k in v:
            return mark(v[k], marked)
        if t is dict:
            # an attribute named by digits may be looked up by a number: only when there is none
            # does HCL add why a number did not work
            why = " An object only supports looking up attributes by name, not by numeric index." \
                if type(key) is int or type(key) is Num else ""
            raise EvalError("Invalid index", "The given key does not identify an element in this collection "
                            "value." + why, rng)
        raise EvalError("Invalid index", "The given key does not identify an element in this collection "
                        "value.", rng)
    if t is TSet:
        raise EvalError("Invalid index", "Elements of a set are identified only by their value and don't have "
                        "any separate index or key to select with, so it's only possible to perform "
                        "operations across all elements of the set.", rng)
    if t is Unknown:
        ty = v.type
        if isinstance(ty, TupleType) and isinstance(key, int) and 0 <= key < len(ty.elems):
            return mark(Unknown(ty.elems[key]), marked)
        return mark(Unknown(getattr(ty, "elem", DYNAMIC)), marked)
    raise EvalError("Invalid index", f"This value does not have any indices.", rng)


_NOT_RESOURCE_ROOTS = frozenset(("var", "local", "module", "path", "terraform", "count", "each", "self"))


def _resource_of(src: A.Expr, s: Scope) -> Resource | None:
    """The resource a traversal names exactly (`type.name`, `data.type.name`), else None."""
    if type(src) is not A.ScopeTraversal:
        return None
    root, steps = src.root, src.steps
    if root in _NOT_RESOURCE_ROOTS or root in s.vars:
        return None
    if root == "data" or root == "ephemeral":
        if len(steps) == 2 and type(steps[0]) is A.AttrStep and type(steps[1]) is A.AttrStep:
            return _resource(root, steps[0].name, steps[1].name)
        return None
    if len(steps) == 1 and type(steps[0]) is A.AttrStep:
        return _resource("managed", root, steps[0].name)
    return None


def _relative(e: A.RelativeTraversal, s: Scope) -> Any:
    if e.step is None:
        # `type.name[expr]`: fetch the one instance rather than building the whole resource's
        # value (a list of every instance) to index it; anything unusual takes the general path.
        res = _resource_of(e.source, s)
        if res is None:
            v = _module_instance(e, s)  # module.NAME[expr] likewise
            if v is not NOT_FOUND:
                return v
        else:
            try:
                key = ev(e.key, s)  # type: ignore[arg-type]
            except EvalError:
                key = None
            if (type(key) is int or type(key) is str) and s.data is not None:
                v = s.data.get_resource_instance(res, key, e.source.range)
                if v is not NOT_FOUND:
                    return v
    src = ev(e.source, s)
    if e.step is not None:
        return get_attr(src, e.step, e.range)
    key = ev(e.key, s)  # type: ignore[arg-type]
    try:
        return index(src, key, e.range)
    except EvalError:
        pass
    # an index error points at the brackets, as HCL's does: that range is made only for the
    # error, by indexing again (index is pure)
    rng = e.range
    if rng is not None and e.source.range is not None:
        rng = SourceRange(rng.filename, e.source.range.end, rng.end)
    return index(src, key, rng)


def _module_instance(e: A.RelativeTraversal, s: Scope) -> Any:
    src = e.source
    if type(src) is not A.ScopeTraversal or src.root != "module" or "module" in s.vars or len(src.steps) != 1 \
            or type(src.steps[0]) is not A.AttrStep:
        return NOT_FOUND
    fetch = getattr(s.data, "get_module_instance", None)
    if fetch is None:
        return NOT_FOUND
    try:
        key = ev(e.key, s)  # type: ignore[arg-type]
    except EvalError:
        return NOT_FOUND
    if type(key) is not int and type(key) is not str:
        return NOT_FOUND
    return fetch(src.steps[0].name, key, src.range)


def _splat(e: A.Splat, s: Scope) -> Any:
    src = ev(e.source, s)
    src, marked = unmark(src)
    t = type(src)
    if t is Unknown:
        return mark(Unknown(DYNAMIC), marked)
    if src is None or t is Null:
        return mark([], marked)
    if t in (list, TList, TSet):
        items = list(src)
        _spend(len(items), e)
    else:
        items = [src]
    out = []
    for item in items:
        out.append(ev(e.each, s.child({"\x00splat": item})))
    if t is TList or t is TSet:
        ety = unify_types([type_of(x) for x in out]) if out else DYNAMIC
        return mark(TList(out, ety), marked)
    return mark(out, marked)


# --- functions


def _call(e: A.FunctionCall, s: Scope) -> Any:
    called = e.name
    target = _CALL_TARGETS.get(called)
    if target is None:
        if called.startswith("provider::"):
            call = getattr(s.data, "call_provider_function", None)  # provider-defined functions live in the walk
            if call is None:
                raise EvalError("Call to unknown function", f"There is no function named \"{called}\".", e.range)
            return call(called, [ev(a, s) for a in e.args], e.range)
        target = _call_target(called)
    name, fn, special = target
    fl = _FUNCS_MODULE
    FunctionError, call_function = fl.FunctionError, fl.call_function
    fctx = s._fctx
    if fctx is None:
        fctx = s.func_context()
    if fn is None or (fn.extra and fn.extra.get("console_only") and not fctx.console):
        if "::" in called and not called.startswith("core::") or (called.startswith("core::") and fn is None):
            ns = called.split("::")[0]
            raise EvalError("Unknown provider function", f'The function namespace "{ns}" is not valid. Provider '
                            'function calls must use the "provider::" namespace prefix.', _name_range(e))
        raise EvalError("Call to unknown function", f"There is no function named \"{called}\".", _name_range(e))
    if fctx.template_mode is not None:
        _check_in_template(name, fctx.template_mode, fn, e, called)
    try:
        if special is not None:
            return special(e, s, called)
        args = [ev(a, s) for a in e.args]
        return call_function(name, args, fctx, expand_last=e.expand_final, called_as=called)
    except FunctionError as exc:
        if exc.func_name is None:  # raised by a special call rather than through call_function
            exc.func_name = called
            if exc.arg_index is not None:
                params = fn.params + ([fn.variadic] if fn.variadic else [])
                exc.param_name = params[min(exc.arg_index, len(params) - 1)].name
        # an argument's error is about that argument: its references are the ones annotated
        arg = e.args[exc.arg_index] if exc.arg_index is not None and 0 <= exc.arg_index < len(e.args) else None
        raise EvalError(exc.summary, exc.detail, _error_range(e, exc.arg_index, exc.summary), expr=arg,
                        function_call=fn.signature(called)) from None
    except EvalError as exc:
        if exc.function_call is None and (special is None or exc.summary in _CALL_SUMMARIES):
            exc.function_call = fn.signature(called)
        raise
    except N.NumberError as exc:
        raise EvalError("Error in function call", f"Call to function \"{called}\" failed: {exc}.", _name_range(e),
                        function_call=fn.signature(called)) from None
    except RecursionError:
        raise EvalError("Error in function call", f'Call to function "{called}" failed: the value nests too deeply '
                        "for tfconsole.", _name_range(e), function_call=fn.signature(called)) from None
    except MemoryError:
        raise EvalError("Error in function call", f'Call to function "{called}" failed: out of memory.',
                        _name_range(e), function_call=fn.signature(called)) from None
    except (ValueError, TypeError, ArithmeticError, KeyError, IndexError, ConversionError, OSError) as exc:
        # a function's own failure that did not become a FunctionError: still a located error
        raise EvalError("Error in function call", f'Call to function "{called}" failed: {exc}.', _name_range(e),
                        function_call=fn.signature(called)) from None


_FUNCS_MODULE: Any = None

# a called name -> (the library's name, its Function or None, its special evaluation or None):
# worked out once per name, not at every call (the library does not change once loaded)
_CALL_TARGETS: dict[str, tuple[str, Any, Any]] = {}


def _call_target(called: str) -> tuple[str, Any, Any]:
    name = called[len("core::"):] if called.startswith("core::") else called  # built-ins are core:: too
    target = (name, _funcs_module().FUNCTIONS.get(name), _SPECIAL_CALLS.get(name))
    if target[1] is not None:  # unknown names stay out: bounded by the library's size
        _CALL_TARGETS[called] = target
    return target


def _funcs_module() -> Any:
    """The function library, imported on first use (it imports this module)."""
    global _FUNCS_MODULE
    if _FUNCS_MODULE is None:
        from . import funcs

        _FUNCS_MODULE = funcs
    return _FUNCS_MODULE


def _name_range(e: A.FunctionCall) -> SourceRange | None:
    """The function's name and its opening parenthesis: where HCL puts a failed call."""
    r = e.range
    if r is None:
        return None
    width = len(e.name) + 1
    return SourceRange(r.filename, r.start, Pos(r.start.line, r.start.column + width, r.start.byte + width))


def _error_range(e: A.FunctionCall, arg_index: int | None, summary: str) -> SourceRange | None:
    if arg_index is not None and 0 <= arg_index < len(e.args):
        return e.args[arg_index].range or e.range
    if summary == "Error in function call":
        return _name_range(e)
    return e.range


_TEMPLATE_FUNCS = frozenset(("templatefile", "templatestring"))
_FS_FUNCS = frozenset(("file", "fileexists", "fileset", "filebase64", "filebase64sha256", "filebase64sha512",
                       "filemd5", "filesha1", "filesha256", "filesha512", "templatefile"))


def _check_in_template(name: str, mode: str, fn: Any, e: A.FunctionCall, called: str) -> None:
    if name in _TEMPLATE_FUNCS:
        msg = f"cannot recursively call {name} from inside another template function"
    elif mode == "templatestring" and name in _FS_FUNCS:
        msg = (f"cannot use filesystem access functions like {name} in templatestring templates; consider "
               "passing the function result as a template variable instead")
    else:
        return
    raise EvalError("Error in function call", f'Call to function "{called}" failed: {msg}.', _name_range(e),
                    function_call=fn.signature(called))


# summaries of errors that are about the call itself (Terraform annotates these with the
# function's signature: "while calling f(a, b)")
_CALL_SUMMARIES = frozenset(("Error in function call", "Invalid function argument", "Not enough function arguments",
                             "Too many function arguments", "Incorrect function argument count",
                             "Invalid expanding argument value"))


def _arity(name: str, e: A.FunctionCall, called: str) -> None:
    from .funcs import FUNCTIONS, check_arity

    check_arity(FUNCTIONS[name], len(e.args), called)


def _can(e: A.FunctionCall, s: Scope, called: str) -> Any:
    _arity("can", e, called)
    try:
        v = ev(e.args[0], s)
    except EvalError:
        return False
    if not is_wholly_known(v):  # it sees through marks at any depth
        return Unknown(BOOL)
    return True


def _try(e: A.FunctionCall, s: Scope, called: str) -> Any:
    if not e.args:
        raise _funcs_module().FunctionError("at least one argument is required")
    errors = []
    missed = False
    for a in e.args:
        try:
            v = _probe(a, s) if type(a) is A.ScopeTraversal else _GENERAL
            if v is _MISSING:  # the usual failure, found without raising it
                missed = True
                continue
            if v is _GENERAL:
                v = ev(a, s)
        except EvalError as exc:
            errors.append(exc)
            continue
        if not is_wholly_known(v):  # it sees through marks at any depth
            return Unknown(DYNAMIC)
        return v
    if missed or any(type(a) is A.ScopeTraversal for a in e.args):
        # every argument failed: their errors as evaluating them usually makes them
        errors = []
        for a in e.args:
            try:
                ev(a, s)
            except EvalError as exc:
                errors.append(exc)
    raise EvalError("Error in function call",
                    f"Call to function \"{called}\" failed: no expression succeeded:\n" +
                    "\n".join(f"- {x.summary} (at {x.range})\n  {x.detail}" for x in errors) +
                    "\n\nAt least one expression must produce a successful result.", _name_range(e))


_MISSING = object()
_GENERAL = object()


def _probe(e: A.ScopeTraversal, s: Scope) -> Any:
    """try()'s look at a reference through plain objects (`local.a.b`, `x.y` of a for): its
    value; _MISSING where an attribute is absent (an error ev would raise, which try() would
    only catch: a raise through the evaluator's frames costs several times the lookup); or
    _GENERAL for anything else, which ev evaluates."""
    root, steps = e.root, e.steps
    if root in s.vars:
        v, i = s.vars[root], 0
    elif (root == "local" or root == "var") and steps and type(steps[0]) is A.AttrStep and s.data is not None:
        v = s.data.get_local(steps[0].name, e.range) if root == "local" else \
            s.data.get_variable(steps[0].name, e.range)
        i = 1
    else:
        return _GENERAL
    for st in steps[i:]:
        if type(st) is not A.AttrStep or type(v) is not dict:
            return _GENERAL
        v = v.get(st.name, _MISSING)
        if v is _MISSING:
            return v
    return v


def _convert(e: A.FunctionCall, s: Scope, called: str) -> Any:
    """convert(value, type): the second argument is a type constraint, read as syntax."""
    from .funcs import FunctionError, call_function
    from .typeexpr import type_constraint

    _arity("convert", e, called)
    if e.expand_final:
        raise EvalError("Invalid expanding argument value",
                        "The expanding argument (indicated by ...) must be of a tuple, list, or set type.",
                        e.args[1].range)
    for ref in A.references(e.args[1]):
        # a bare type keyword is not a reference; anything else is checked as one would be
        if not (ref.root in ("string", "number", "bool", "any") and not ref.steps):
            ev(ref, s)
    ty, d = type_constraint(e.args[1], evaluate_constant)
    if d.has_errors:
        first = d.errors()[0]
        raise EvalError(first.summary, first.detail, first.subject or e.args[1].range)
    v = ev(e.args[0], s)
    try:
        return call_function("convert", [v, ty], s.func_context(), called_as=called)
    except FunctionError as exc:
        raise EvalError(exc.summary, exc.detail, e.args[0].range or e.range) from None


_SPECIAL_CALLS = {"can": _can, "try": _try, "templatestring": lambda e, s, called: _templatestring(e, s, called),
                  "convert": _convert}


# --- operators


def _to_bool(v: Any, e: A.Expr, what: str) -> bool:
    if type(v) is bool:
        return v
    if is_null(v):
        raise EvalError("Null condition" if what == "condition" else "Invalid operand",
                        "The condition value is null. Conditions must either be true or false."
                        if what == "condition" else f"Unsuitable value for {what}: a bool is required.",
                        e.range, expr=e)
    try:
        return convert(v, BOOL)
    except ConversionError:
        if what == "condition":
            raise EvalError("Incorrect condition type",
                            "The condition expression must be of type bool.", e.range, expr=e) from None
        raise EvalError("Invalid operand", f"Unsuitable value for {what}: a bool is required.",
                        e.range, expr=e) from None


def _to_number(v: Any, e: A.Expr, what: str) -> Any:
    t = type(v)
    if t is int or t is Num:
        return v
    if is_null(v):
        raise EvalError("Invalid operand", f"Unsuitable value for {what}: a number is required.", e.range, expr=e)
    try:
        return convert(v, NUMBER)
    except ConversionError:
        raise EvalError("Invalid operand", f"Unsuitable value for {what}: a number is required.",
                        e.range, expr=e) from None


def _numeric_operands(lhs: Any, rhs: Any, e: A.Binary, s: Scope) -> tuple[Any, Any]:
    """Both operands as numbers; when both are unsuitable, HCL reports both."""
    try:
        a = _to_number(lhs, e.lhs, "left operand")
    except EvalError as left:
        left.scope = s
        try:
            _to_number(rhs, e.rhs, "right operand")
        except EvalError as right:
            right.scope = s
            left.more.append(right)
        raise
    return a, _to_number(rhs, e.rhs, "right operand")


def _binary(e: A.Binary, s: Scope) -> Any:
    op = e.op
    if op == "&&" or op == "||":
        lhs = ev(e.lhs, s)
        lhs, lm = unmark(lhs)
        if type(lhs) is not Unknown:
            lb = _to_bool(lhs, e.lhs, "left operand")
            if op == "&&" and not lb:
                return mark(False, lm)
            if op == "||" and lb:
                return mark(True, lm)
        rhs = ev(e.rhs, s)
        rhs, rm = unmark(rhs)
        if type(rhs) is Unknown or type(lhs) is Unknown:
            if type(rhs) is not Unknown:
                rb = _to_bool(rhs, e.rhs, "right operand")
                if op == "&&" and not rb:
                    return mark(False, lm | rm)
                if op == "||" and rb:
                    return mark(True, lm | rm)
            return mark(Unknown(BOOL), lm | rm)
        return mark(_to_bool(rhs, e.rhs, "right operand"), lm | rm)
    lhs = ev(e.lhs, s)
    rhs = ev(e.rhs, s)
    lhs, lm = unmark(lhs)
    rhs, rm = unmark(rhs)
    marked = lm | rm
    if op == "==" or op == "!=":
        if type(lhs) is Unknown or type(rhs) is Unknown:
            return mark(Unknown(BOOL), marked)
        l2, m1 = unmark_deep(lhs)
        r2, m2 = unmark_deep(rhs)
        if not is_wholly_known(l2) or not is_wholly_known(r2):
            return mark(Unknown(BOOL), marked | m1 | m2)
        r = equal(l2, r2)
        return mark(r if op == "==" else not r, marked | m1 | m2)
    if type(lhs) is Unknown or type(rhs) is Unknown:
        _check_operand_type(lhs, e.lhs, "left operand")
        _check_operand_type(rhs, e.rhs, "right operand")
        return mark(Unknown(BOOL if op in ("<", ">", "<=", ">=") else NUMBER), marked)
    a, b = _numeric_operands(lhs, rhs, e, s)
    if op == "<" or op == ">" or op == "<=" or op == ">=":
        c = (a > b) - (a < b) if type(a) is int and type(b) is int else N.compare(a, b)
        r = c < 0 if op == "<" else c > 0 if op == ">" else c <= 0 if op == "<=" else c >= 0
        return mark(r, marked)
    if type(a) is int and type(b) is int and (op == "+" or op == "-"):
        r = a + b if op == "+" else a - b
        if -_INT_FAST < r < _INT_FAST:  # the common case: no rounding, no sign of zero to track
            return mark(r, marked)
    fn = _ARITH.get(op)
    if fn is None:
        raise EvalError("Invalid operator", f"The operator {op} is not supported.", e.range)
    try:
        r = fn(a, b)
    except N.NumberError as exc:
        # go-cty's panics on NaN come back from HCL's operator call as this diagnostic
        raise EvalError("Operation failed", f"Error during operation: {exc}.", e.range) from None
    return mark(r, marked)


_INT_FAST = 1 << 500
_ARITH = {"+": N.add, "-": N.sub, "*": N.mul, "/": N.div, "%": N.mod}


def _templatestring(e: A.FunctionCall, s: Scope, called: str = "templatestring") -> Any:
    """templatestring(ref, vars): render a template held in a string value."""
    from .funcs import FunctionError, conversion_message

    _arity("templatestring", e, called)
    problem = _template_arg_problem(e.args[0])
    if problem:
        raise FunctionError(f"invalid template expression: {problem}", 0)
    tmpl, tm = unmark(ev(e.args[0], s))
    variables, vm = unmark(ev(e.args[1], s))
    if type(tmpl) is Unknown or type(variables) is Unknown:
        return mark(Unknown(STRING), tm | vm)
    if not isinstance(tmpl, str):
        raise FunctionError("invalid template value: a string is required", 0)
    if not isinstance(variables, (dict, TMap)):
        raise FunctionError("invalid vars value: must be a map", 1)
    val = _render(tmpl, dict(variables), "<templatestring argument>", "templatestring", s.base_dir)
    val, m = unmark(val)
    if is_null(val):
        raise FunctionError(_inner(A.parse_template(tmpl, "<templatestring argument>").range, "Template result is null",
                                   "The result of the template is null, which is not a valid result for a "
                                   "templatestring call."))
    if type(val) is not Unknown:
        try:
            val = convert(val, STRING)
        except ConversionError as exc:
            raise FunctionError(f"invalid template result: {conversion_message(exc, val)}") from None
    return mark(val, tm | vm | m)


def _template_arg_problem(arg: A.Expr) -> str | None:
    """Why templatestring refuses this argument expression (Terraform wants a reference to a
    string held elsewhere, not a template written in place), or None."""
    if isinstance(arg, A.TemplateWrap):
        return ("templatestring is only for rendering templates retrieved dynamically from elsewhere; to treat "
                "the inner expression as template syntax, write the reference expression directly without any "
                "template interpolation syntax")
    if isinstance(arg, A.Literal) and type(arg.value) is str:
        return ("templatestring is only for rendering templates retrieved dynamically from elsewhere, and so "
                "does not support providing a literal template; consider using a template string expression "
                "instead")
    if isinstance(arg, A.Template):
        return ("templatestring is only for rendering templates retrieved dynamically from elsewhere; to render "
                "an inline template, consider using a plain template string expression")
    node = arg
    while True:
        if isinstance(node, A.ScopeTraversal):
            return None
        if isinstance(node, A.RelativeTraversal):
            node = node.source
        elif isinstance(node, A.Splat):
            node = node.source
        else:
            return "must be a direct reference to a single string from elsewhere, containing valid Terraform " \
                   "template syntax"


def _check_operand_type(v: Any, e: A.Expr, what: str) -> None:
    if type(v) is Unknown:
        return
    _to_number(v, e, what) if not isinstance(v, bool) else None


def _unary(e: A.Unary, s: Scope) -> Any:
    v = ev(e.operand, s)
    v, m = unmark(v)
    if e.op == "!":
        if type(v) is Unknown:
            return mark(Unknown(BOOL), m)
        return mark(not _to_bool(v, e.operand, "operand"), m)
    if type(v) is Unknown:
        return mark(Unknown(NUMBER), m)
    return mark(N.neg(_to_number(v, e.operand, "operand")), m)


def _conditional(e: A.Conditional, s: Scope) -> Any:
    c = ev(e.cond, s)
    c, cm = unmark(c)
    tv = fv = None
    terr = ferr = None
    try:
        tv = ev(e.true, s)
    except EvalError as exc:
        terr = exc
    try:
        fv = ev(e.false, s)
    except EvalError as exc:
        ferr = exc
    # the result carries the marks of the condition and of both results, whichever is chosen
    # (HCL's: a consumer must handle either branch's marks anyway)
    cm |= (unmark(tv)[1] if terr is None else 0) | (unmark(fv)[1] if ferr is None else 0)
    if type(c) is Unknown:
        if terr:
            raise terr
        if ferr:
            raise ferr
        ty = unify_types([type_of(tv), type_of(fv)])
        return mark(Unknown(ty), cm)
    cond = _to_bool(c, e.cond, "condition")
    chosen, err, other = (tv, terr, fv) if cond else (fv, ferr, tv)
    if err is not None:
        raise err
    other_ok = (ferr if cond else terr) is None
    if other_ok and chosen is None and not isinstance(type_of(other), DynamicType):
        return mark(Null(type_of(other)), cm)
    if other_ok:
        ct, ot = type_of(chosen), type_of(other)
        if ct != ot and not isinstance(ct, DynamicType) and not isinstance(ot, DynamicType):
            ty = unify_types([ct, ot])
            if isinstance(ty, DynamicType):
                if not (is_null(chosen) or is_null(other)):
                    raise EvalError("Inconsistent conditional result types",
                                    f"The true and false result expressions must have consistent types. The "
                                    f"'true' value is {type_of(tv).friendly()}, but the 'false' value is "
                                    f"{type_of(fv).friendly()}.", e.range)
            else:
                try:
                    chosen = convert(chosen, ty)
                except ConversionError:
                    pass
    return mark(chosen, cm)


def _for(e: A.ForExpr, s: Scope) -> Any:
    """A for expression, as HCL evaluates it: every element is visited even after an error, so
    each failing element reports its own error (raised together: the first with the rest in
    .more); an unknown `if` or key makes the whole result unknown."""
    coll = ev(e.coll, s)
    coll, marked = unmark(coll)
    if type(coll) is Unknown:
        return mark(Unknown(DYNAMIC), marked)
    run = _ForRun(e)
    for k, v in _iterate(coll, e.coll):
        inner = s.child({e.val_var: v, e.key_var: k} if e.key_var else {e.val_var: v}, for_body=True)
        if e.cond is None or run.include(inner):
            run.element(inner)
    if run.errors:
        first = run.errors[0]
        first.more.extend(run.errors[1:])
        raise first
    if not run.known:
        return mark(Unknown(DYNAMIC), marked | run.marked)
    return mark(run.out_list if e.key is None else run.out_obj, marked | run.marked)


class _ForRun:
    """One for expression's walk over its elements: results, errors, marks, and whether the
    result is still known (HCL reports a conversion problem only while it is)."""

    def __init__(self, e: A.ForExpr) -> None:
        self.e = e
        self.errors: list[EvalError] = []
        self.known = True
        self.marked = False
        self.out_list: list[Any] = []
        self.out_obj: dict[str, Any] = {}

    def _value(self, expr: A.Expr, inner: Scope) -> tuple[Any, bool]:
        """(value, ok): an error is kept and the element skipped."""
        try:
            v, m = unmark(ev(expr, inner))
        except EvalError as exc:
            self.errors.append(exc)
            self.known = False
            return None, False
        self.marked = self.marked | m
        return v, True

    def _problem(self, summary: str, detail: str, expr: A.Expr, inner: Scope) -> None:
        if self.known:
            exc = EvalError(summary, detail, expr.range, expr=expr)
            exc.scope = inner
            self.errors.append(exc)
        self.known = False

    def include(self, inner: Scope) -> bool:
        cond = self.e.cond
        c, ok = self._value(cond, inner)
        if not ok:
            return False
        if type(c) is Unknown:
            self.known = False
            return False
        if is_null(c):
            self._problem("Invalid 'for' condition", "The value of the 'if' clause must not be null.", cond, inner)
            return False
        try:
            return bool(convert(c, BOOL))
        except ConversionError:
            self._problem("Invalid 'for' condition", "The 'if' clause value is invalid: a bool is required.", cond,
                          inner)
            return False

    def element(self, inner: Scope) -> None:
        e = self.e
        if e.key is None:
            try:
                self.out_list.append(ev(e.value, inner))  # an element keeps its own marks
            except EvalError as exc:
                self.errors.append(exc)
                self.known = False
            return
        key, ok = self._value(e.key, inner)
        if not ok:
            return
        if is_null(key):
            self._problem("Invalid object key", "Key expression in 'for' expression must not produce a null value.",
                          e.key, inner)
            return
        if type(key) is Unknown:
            self.known = False
            return
        try:
            key = convert(key, STRING)
        except ConversionError:
            self._problem("Invalid object key", "The key expression produced an invalid result: string required.",
                          e.key, inner)
            return
        try:
            val = ev(e.value, inner)
        except EvalError as exc:
            self.errors.append(exc)
            self.known = False
            return
        if e.group:
            self.out_obj.setdefault(key, []).append(val)
        elif key in self.out_obj:
            self._problem("Duplicate object key", f"Two different items produced the key \"{key}\" in this 'for' "
                          "expression. If duplicates are expected, use the ellipsis (...) after the value "
                          "expression to enable grouping by key.", e.key, inner)
        else:
            self.out_obj[key] = val


def _object_key(e: A.ObjectKey, s: Scope) -> Any:
    return e.name if e.name is not None else ev(e.expr, s)  # type: ignore[arg-type]


_DISPATCH = {
    A.Literal: _literal,
    A.Parens: _parens,
    A.AnonSymbol: _anon,
    A.TupleCons: _tuple,
    A.ObjectCons: _object,
    A.ObjectKey: _object_key,
    A.Template: _template,
    A.TemplateWrap: _template_wrap,
    A.TemplateIf: _template_if,
    A.TemplateFor: _template_for,
    A.ScopeTraversal: _traversal,
    A.RelativeTraversal: _relative,
    A.Splat: _splat,
    A.FunctionCall: _call,
    A.Binary: _binary,
    A.Unary: _unary,
    A.Conditional: _conditional,
    A.ForExpr: _for,
}


def value_to_display(v: Any) -> str:
    """Short, redacting rendering of a value for diagnostics."""
    v2, m = unmark(v)
    if m:
        return "(sensitive value)"
    if type(v2) is Unknown:
        return "(known after apply)"
    if isinstance(v2, str):
        return '"' + v2 + '"'
    if isinstance(v2, bool):
        return "true" if v2 else "false"
    if type(v2) is int or type(v2) is Num:
        return format_number(v2)
    if is_null(v2):
        return "null"
    return type_of(v2).friendly()
