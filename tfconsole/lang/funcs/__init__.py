"""Terraform's built-in function library.

Each function is declared as a `Function` with typed parameters; `call_function` applies
the rules every function shares (as cty's function package and HCL's call expression
do): argument counting, `f(list...)` expansion, conversion of each argument to its
parameter type, null rejection, short-circuiting on unknown arguments and carrying the
sensitive mark from arguments to the result. A function opts out of the unknown and
mark handling per parameter (`allow_unknown`, `allow_marked`).

The category modules (numeric, string, collection, ...: the families) register their
functions when imported; `FUNCTIONS` imports a family when one of its names is first asked for
(_FAMILY_NAMES says which family defines which name), so a command that calls `merge` and
`lookup` loads the collection family only. Iterating `FUNCTIONS` loads every family.
"""
from __future__ import annotations

import importlib
import re
import threading
from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import TYPE_CHECKING, Any, Callable

from ..strings import nfc, nfc_deep
from ..types import DYNAMIC, DynamicType, Type
from tfconsole.memo import remember

from ..values import (
    ConversionError, Null, Sensitive, TList, TMap, TSet, Unknown, convert, is_null, is_wholly_known, mark,
    type_of, unmark, unmark_deep,
)

__all__ = [
    "FunctionError", "FuncContext", "Param", "Function", "FUNCTIONS", "call_function", "check_arity", "register",
]


class FunctionError(Exception):
    """A function call failed.

    `message` is the function's own text (cty's error string, e.g. "string required");
    `arg_index` names the offending argument (0-based) or is None. After `call_function`
    has seen the error, `func_name` and `param_name` are filled in, and `summary`/`detail`
    give the diagnostic exactly as Terraform prints it.
    """

    def __init__(self, message: str, arg_index: int | None = None, *, summary: str | None = None,
                 detail: str | None = None):
        super().__init__(message)
        self.message = message
        self.arg_index = arg_index
        self.func_name: str | None = None
        self.param_name: str | None = None
        self._summary = summary
        self._detail = detail

    @property
    def summary(self) -> str:
        if self._summary:
            return self._summary
        if self.arg_index is not None:
            return "Invalid function argument"
        return "Error in function call"

    @property
    def detail(self) -> str:
        if self._detail:
            return self._detail
        if self._summary:
            return self.message
        if self.arg_index is not None and self.param_name is not None:
            return f'Invalid value for "{self.param_name}" parameter: {self.message}.'
        if self.func_name is not None:
            return f'Call to function "{self.func_name}" failed: {self.message}.'
        return self.message

    def __str__(self) -> str:
        return self.detail


if TYPE_CHECKING:  # datetime is imported where a clock is read (1 ms a plan need not pay)
    import datetime as _dt


def _utc_now() -> _dt.datetime:
    import datetime as _dt

    return _dt.datetime.now(_dt.timezone.utc)


@dataclass
class FuncContext:
    base_dir: str = "."
    console: bool = False  # `terraform console`: the console-only functions (type) exist
    template_mode: str | None = None  # inside a templatefile/templatestring template: which
    render_template: Callable[..., Any] | None = None  # (text, vars, filename, base_dir=None)
    # clock for timestamp(); plan_time is what plantimestamp() returns (None: unknown)
    now: Callable[[], _dt.datetime] = _utc_now
    plan_time: _dt.datetime | None = None
    home_dir: str | None = None  # pathexpand(); defaults to $HOME


@dataclass
class Param:
    name: str
    type: Type = DYNAMIC
    allow_null: bool = False
    allow_unknown: bool = False
    # False: marks anywhere in the argument are removed and put on the result; True: the
    # function sees and handles marks itself; "shallow": only the argument's own mark moves to
    # the result, marks nested inside stay where they are (structural functions)
    allow_marked: bool | str = False


@dataclass
class Function:
    name: str
    params: list[Param]
    impl: Callable[..., Any]                 # impl(args: list, ctx: FuncContext) -> value
    return_type: Type | Callable[[list], Type] = DYNAMIC   # fixed, or computed from the args
    variadic: Param | None = None
    # False: an argument that is known but holds unknowns anywhere inside makes the result
    # unknown without calling impl (what most cty functions do for themselves). True: impl
    # copes with nested unknowns (conversions, structural functions).
    nested_unknowns: bool = False
    description: str = ""
    extra: dict = field(default_factory=dict)

    def result_type(self, args: list) -> Type:
        rt = self.return_type
        if isinstance(rt, Type):
            return rt
        return rt(args)

    def signature(self, shown: str | None = None) -> str:
        """"name(a, b, rest...)", as Terraform prints it under a failed call ("while calling ...");
        `shown` is the name as called (core::upper)."""
        names = [p.name for p in self.params]
        if self.variadic is not None:
            names.append(self.variadic.name + "...")
        return f"{shown or self.name}({', '.join(names)})"


# Which family defines each function (tests/test_funcs.py checks it against what the families
# register).
_FAMILY_NAMES = {
    "numeric": "abs ceil floor log max min parseint pow signum",
    "string": "chomp endswith format formatlist indent join lower regex regexall replace split startswith "
              "strcontains strrev substr title trim trimprefix trimspace trimsuffix upper",
    "collection": "alltrue anytrue chunklist coalesce coalescelist compact concat contains distinct element "
                  "flatten index keys length lookup matchkeys merge one range reverse setintersection setproduct "
                  "setsubtract setunion slice sort sum transpose values zipmap",
    "encoding": "base64decode base64encode base64gzip csvdecode jsondecode jsonencode textdecodebase64 "
                "textencodebase64 urlencode yamldecode yamlencode",
    "filesystem": "abspath basename dirname file filebase64 fileexists fileset pathexpand templatefile",
    "datetime": "formatdate plantimestamp timeadd timecmp timestamp",
    "crypto": "base64sha256 base64sha512 bcrypt filebase64sha256 filebase64sha512 filemd5 filesha1 filesha256 "
              "filesha512 md5 rsadecrypt sha1 sha256 sha512 uuid uuidv5",
    "ipnet": "cidrhost cidrnetmask cidrsubnet cidrsubnets",
    "conversion": "can convert ephemeralasnull issensitive nonsensitive sensitive templatestring tobool tolist "
                  "tomap tonumber toset tostring try type",
}
_FAMILY_OF = {n: family for family, names in _FAMILY_NAMES.items() for n in names.split()}
# what a family registered while it is still being imported: published into FUNCTIONS once the
# whole family (with its adjustments at the bottom of the module) is done, so another thread
# never sees a half-made function
_PENDING: dict[str, Function] = {}
_LOAD_LOCK = threading.RLock()


class _Library(dict):
    """FUNCTIONS: name -> Function, each family imported on the first use of one of its names.
    Lookups of loaded names cost what a dict's cost."""

    def __missing__(self, name: str) -> Function:
        if _load_family_of(name):
            return dict.__getitem__(self, name)  # type: ignore[no-any-return]
        raise KeyError(name)

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        fn = dict.get(self, name)
        if fn is None and _load_family_of(name):
            fn = dict.get(self, name)
        return default if fn is None else fn

    def __contains__(self, name: object) -> bool:
        return self.get(name) is not None  # type: ignore[arg-type]

    def __iter__(self) -> Any:
        load_all()
        return dict.__iter__(self)

    def __len__(self) -> int:
        load_all()
        return dict.__len__(self)

    def keys(self) -> Any:  # type: ignore[override]
        load_all()
        return dict.keys(self)

    def values(self) -> Any:  # type: ignore[override]
        load_all()
        return dict.values(self)

    def items(self) -> Any:  # type: ignore[override]
        load_all()
        return dict.items(self)


FUNCTIONS: dict[str, Function] = _Library()


def _load_family_of(name: str) -> bool:
    """Import the family defining `name` if it is not loaded yet; False for a name no family has."""
    family = _FAMILY_OF.get(name) if type(name) is str else None
    if family is None:
        return False
    with _LOAD_LOCK:
        if not dict.__contains__(FUNCTIONS, name):
            importlib.import_module(f"{__name__}.{family}")
            for n in _FAMILY_NAMES[family].split():
                dict.__setitem__(FUNCTIONS, n, _PENDING.pop(n))
    return True


def load_all() -> None:
    for names in _FAMILY_NAMES.values():
        _load_family_of(names.split(None, 1)[0])


def registered(name: str) -> Function:
    """A function as registered, for its family's own adjustments while the family loads."""
    return _PENDING.get(name) or FUNCTIONS[name]


def register(name: str, params: list[Param], return_type: Type | Callable[[list], Type] = DYNAMIC,
             variadic: Param | None = None, nested_unknowns: bool = False) -> Callable:
    """Decorator: register impl(args, ctx) as function `name`."""

    def deco(impl: Callable) -> Callable:
        fn = Function(name, params, impl, return_type, variadic, nested_unknowns)
        if name in _FAMILY_OF:
            _PENDING[name] = fn
        else:  # not one of the families' (a test's own function): usable at once
            dict.__setitem__(FUNCTIONS, name, fn)
        return impl

    return deco


def _plural(n: int) -> str:
    return f"{n} argument(s)"


def _expand_last(args: list) -> list:
    if not args:
        return args
    last = args[-1]
    inner, marked = unmark(last)
    if is_null(inner):
        raise FunctionError(
            "The expanding argument (indicated by ...) must not be null.", None,
            summary="Invalid expanding argument value",
            detail="The expanding argument (indicated by ...) must not be null.")
    if type(inner) is Unknown:
        raise _UnknownExpansion()
    if not isinstance(inner, list):  # tuple (list), TList, TSet
        raise FunctionError(
            "The expanding argument (indicated by ...) must be of a tuple, list, or set type.", None,
            summary="Invalid expanding argument value",
            detail="The expanding argument (indicated by ...) must be of a tuple, list, or set type.")
    return list(args[:-1]) + [mark(x, marked) for x in inner]


class _UnknownExpansion(Exception):
    pass


def call_function(name: str, args: list, ctx: FuncContext | None = None,
                  expand_last: bool = False, called_as: str | None = None) -> Any:
    """Call built-in function `name`; raises KeyError for an unknown name. `called_as` is the
    name as written (core::upper), which the error messages quote."""
    fn = FUNCTIONS[name]
    shown = called_as or fn.name
    if ctx is None:
        ctx = FuncContext()
    args = list(args)
    if expand_last:
        try:
            args = _expand_last(args)
        except _UnknownExpansion:
            return Unknown(DYNAMIC)
    try:
        return _call(fn, args, ctx, shown)
    except FunctionError as exc:
        exc.func_name = shown
        if exc.arg_index is not None:
            if exc.arg_index < len(fn.params):
                exc.param_name = fn.params[exc.arg_index].name
            elif fn.variadic is not None:
                exc.param_name = fn.variadic.name
        raise


def check_arity(fn: Function, nargs: int, shown: str | None = None) -> None:
    """HCL's argument-count errors for a call with nargs arguments."""
    nparams = len(fn.params)
    shown = shown or fn.name
    if nargs < nparams:
        missing = fn.params[nargs].name
        qual = "at least " if fn.variadic is not None else ""
        raise FunctionError(
            f'Function "{shown}" expects {qual}{_plural(nparams)}. Missing value for "{missing}".',
            None, summary="Not enough function arguments")
    if nargs > nparams and fn.variadic is None:
        det = f'Function "{shown}" expects only {_plural(nparams)}.'
        raise FunctionError(det, None, summary="Too many function arguments")


# serialisers of a whole value, whose cost grows with it (jsonencode of a deep-merged object walks
# it for unknowns and marks, then encodes it): a call given the very object an earlier call was
# given (values never change once made) takes that call's result
_BY_IDENTITY = frozenset(("jsonencode", "yamlencode"))
_RESULTS: dict[tuple[str, int], tuple[Any, Any]] = {}
_CONTAINERS = (dict, list, TMap, TList, TSet, Sensitive)


def _call(fn: Function, args: list, ctx: FuncContext, shown: str) -> Any:
    if fn.name in _BY_IDENTITY and len(args) == 1 and type(args[0]) in _CONTAINERS:
        arg = args[0]
        key = (fn.name, id(arg))
        hit = _RESULTS.get(key)
        if hit is not None and hit[0] is arg:
            return hit[1]
        result = _call_each(fn, args, ctx, shown)
        remember(_RESULTS, key, (arg, result), 64)  # the argument is kept: its id is not reused
        return result
    return _call_each(fn, args, ctx, shown)


def _call_each(fn: Function, args: list, ctx: FuncContext, shown: str) -> Any:
    params = fn.params
    nparams, nargs = len(params), len(args)
    if nargs < nparams or (nargs > nparams and fn.variadic is None):
        check_arity(fn, nargs, shown)
    specs = params if nargs == nparams else [params[i] if i < nparams else fn.variadic for i in range(nargs)]

    # 1. conversion to parameter types (HCL does this before calling cty), every argument's
    # before any null check: the first conversion error is the one reported
    conv: list[Any] = []
    for i, (a, spec) in enumerate(zip(args, specs)):
        if type(spec.type) is not DynamicType:
            try:
                a = convert(a, spec.type)
            except ConversionError as exc:
                raise FunctionError(conversion_message(exc, a), i) from None
        conv.append(a)

    # 2. nulls, unknowns and marks, argument by argument
    known = True
    marked = 0
    call_args: list[Any] = []
    nested = fn.nested_unknowns
    for i, (a, spec) in enumerate(zip(conv, specs)):
        inner = a.value if type(a) is Sensitive else a
        if not spec.allow_null and (inner is None or type(inner) is Null):
            raise FunctionError("argument must not be null", i)
        if not spec.allow_unknown and known:
            if type(inner) is Unknown or (not nested and not is_wholly_known(inner)):
                known = False
        how = spec.allow_marked
        if how == "shallow":
            if type(a) is Sensitive:
                marked |= a.marks
                a = inner
        elif not how:
            a, m = unmark_deep(a)
            marked |= m
        call_args.append(a)
    if not known:
        try:
            rt = fn.result_type(call_args)
        except FunctionError:
            raise
        except Exception:  # noqa: BLE001 - type unknowable from unknown arguments
            rt = DYNAMIC
        return mark(Unknown(rt), marked)

    result = fn.impl(call_args, ctx)
    # cty makes every string it is given NFC: a function's new strings are normalised here
    if type(result) is str:
        result = nfc(result)
    elif fn.name in _NEW_STRINGS_INSIDE:
        result = nfc_deep(result)
    return mark(result, marked)


# functions whose collection results hold strings they made themselves (other functions
# return strings that were already values, hence already NFC)
_NEW_STRINGS_INSIDE = frozenset(("jsondecode", "yamldecode", "csvdecode", "split", "regex", "regexall",
                                 "formatlist", "fileset"))


def conversion_message(exc: ConversionError, value: Any) -> str:
    """cty's wording for a failed argument conversion: the path to the offending element
    and, for a type mismatch, what was given ("element 0: string required, but have tuple")."""
    msg = exc.message
    prefix = ""
    sub = unmark(value)[0]
    for step in exc.path:
        if isinstance(step, int):
            prefix += f"element {step}: "
        elif type(sub) is dict:
            prefix += f'attribute "{step}": '
        else:
            prefix += f'element "{step}": '
        try:
            sub = unmark(sub[step])[0]
        except (KeyError, IndexError, TypeError):
            sub = None
    m = re.match(r'cannot convert ".*" to (number|bool);', msg, re.S)
    if m:  # cty's convert says just this; the longer text is the to* functions' own
        return prefix + f"a {m.group(1)} is required"
    if msg.endswith(" required") and exc.want is not None and sub is not None and not is_null(sub):
        try:
            got = type_of(sub)
        except TypeError:
            got = None
        if got is not None and not _likely_to_confuse(got, exc.want):
            msg += f", but have {got.friendly()}"
    return prefix + msg


def _likely_to_confuse(got: Type, want: Type) -> bool:
    """go-cty's typesAreLikelyToCauseConfusion: whether naming both types in a mismatch
    message would mislead (then it says only what was required)."""
    from ..types import BOOL, NUMBER, STRING, ListType, MapType, ObjectType, PrimitiveType, SetType, TupleType

    if isinstance(got, PrimitiveType) != isinstance(want, PrimitiveType):
        return False
    if want == STRING:
        return False
    if {got, want} == {BOOL, NUMBER}:
        return False
    colls = (ListType, SetType, MapType)
    if isinstance(got, colls) and isinstance(want, colls) and not got.elem.has_dynamic() and want.elem.has_dynamic():
        return False
    if isinstance(got, TupleType) and isinstance(want, ObjectType):
        return False
    return True

