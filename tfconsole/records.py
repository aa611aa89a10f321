"""`dataclass` for tfconsole's own classes: the standard library's, without its start-up cost.

`dataclasses.dataclass` writes the source of `__init__`, `__repr__`, `__eq__`, `__hash__` and, for
frozen classes, `__setattr__` and `__delattr__`, and compiles each one as the class is defined:
about 0.5 ms a class, a sixth of what `tfconsole version` costs for the ~100 classes a plan
imports. This decorator records the fields as the standard machinery does (so `dataclasses.fields`,
`replace`, `asdict`, `is_dataclass` and `__match_args__` work as always) and adds the methods
itself: comparison, hashing, repr and the frozen guards as
closures over `operator.attrgetter` (nothing to compile, as fast as the generated code), and
`__init__` compiled at the class's first instantiation, so a class never instantiated by a
command costs nothing more.

The fields themselves are recorded by this module too, as the standard decorator records them
(`_record_fields`), except for classes with slots, ClassVar fields or a metaclass, which the
standard machinery records.

The behaviour is the standard one for the options tfconsole uses (init, repr, eq, order,
unsafe_hash, frozen, slots, field defaults and default factories, fields with init, repr,
compare or hash off, __post_init__); a class using anything else (InitVar, keyword-only fields)
is handed to `dataclasses.dataclass` unchanged. tests/test_records.py compares both on the same
class definitions. Differences left on purpose: `__dataclass_params__` reports the options this
module passed to the standard decorator, and a class without a docstring gets "Name(a, b)"
rather than its full signature.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import MISSING, FrozenInstanceError
from operator import attrgetter
from typing import Any

__all__ = ["HashCached", "dataclass"]

_standard = dataclasses.dataclass

_ORDER = ("__lt__", "__le__", "__gt__", "__ge__")


def dataclass(cls: Any = None, /, *, init: bool = True, repr: bool = True, eq: bool = True,
              order: bool = False, unsafe_hash: bool = False, frozen: bool = False, slots: bool = False) -> Any:
    """Drop-in for `dataclasses.dataclass` with the options listed."""
    def wrap(c: type) -> type:
        return _process(c, init, repr, eq, order, unsafe_hash, frozen, slots)

    return wrap if cls is None else wrap(cls)


def _process(cls: type, init: bool, repr_: bool, eq: bool, order: bool, unsafe_hash: bool, frozen: bool,
             slots: bool) -> type:
    body = dict(cls.__dict__)  # what the class defines itself, before anything is added
    if _unusual(cls):
        return _standard(cls, init=init, repr=repr_, eq=eq, order=order, unsafe_hash=unsafe_hash,
                                     frozen=frozen, slots=slots)
    if order and not eq:
        raise ValueError("eq must be true if order is true")
    if issubclass(cls, HashCached) and not (frozen and slots and init and "__init__" not in body):
        # a __dict__ copy or pickle would carry the cached hash, which differs between processes;
        # the generated __init__ is what marks the hash as not yet computed
        raise TypeError(f"{cls.__name__}: a HashCached record must be frozen, have slots and the generated __init__")
    if cls.__doc__ is None:  # the standard decorator would work one out with inspect.signature
        cls.__doc__ = f"{cls.__name__}({', '.join(_own_annotations(cls))})"
    if slots or not _record_fields(cls):
        cls = _standard(cls, init=False, repr=False, eq=False, slots=slots)
    fields = dataclasses.fields(cls)
    if init and "__init__" not in body:
        _check_defaults_order(cls, fields)
        cls.__init__ = _lazy_init(cls, fields, frozen)  # type: ignore[misc]
    if repr_ and "__repr__" not in body:
        cls.__repr__ = _repr_fn([f.name for f in fields if f.repr])  # type: ignore[method-assign]
    compared = _tuple_getter([f.name for f in fields if f.compare])
    if eq and "__eq__" not in body:
        names = [f.name for f in fields if f.compare]
        # one field: compare the values themselves, without a tuple around each
        cls.__eq__ = _eq_one_fn(attrgetter(names[0])) if len(names) == 1 else _eq_fn(compared)  # type: ignore[method-assign]
    if order:
        _add_order(cls, body, compared)
    if frozen:
        _add_frozen_guards(cls, body, {f.name for f in fields}, slots)
    _set_hash(cls, body, fields, unsafe_hash, eq, frozen)
    return cls


# what the standard decorator records on a class, by the names it gives them (checked at import:
# if a Python version names them otherwise, every class takes the standard path)
_FIELD = getattr(dataclasses, "_FIELD", None)
_FIELDS = getattr(dataclasses, "_FIELDS", None)
_PARAMS = getattr(dataclasses, "_PARAMS", None)
_Params = getattr(dataclasses, "_DataclassParams", None)


def _params_for_record() -> Any:
    """The __dataclass_params__ the standard decorator records for init, repr and eq off."""
    if _Params is None:
        return None
    try:
        return _Params(False, False, False, False, False, False)  # 3.10, 3.11
    except TypeError:
        pass
    try:  # 3.12 on: match_args, kw_only, slots, weakref_slot too
        return _Params(False, False, False, False, False, False, True, False, False, False)
    except TypeError:
        return None


_RECORD_PARAMS = _params_for_record() if _FIELD is not None and _FIELDS and _PARAMS else None


def _record_fields(cls: type) -> bool:
    """Record the fields as `dataclasses.dataclass(init=False, repr=False, eq=False)` does, for
    the plain classes tfconsole writes (string annotations, no ClassVar, InitVar or keyword-only
    field, no slots): its own pass matches each annotation against regular expressions and
    costs ~60 us a class, ~6 ms of every command. False (nothing done) when the class needs the
    standard pass."""
    if _RECORD_PARAMS is None or type(cls) is not type:  # an ABC or other metaclass: the standard pass
        return False
    own = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 - the class's own, unevaluated
    if any(type(a) is not str or "ClassVar" in a for a in own.values()):
        return False
    fields: dict[str, dataclasses.Field] = {}
    for base in cls.__mro__[-1:0:-1]:
        inherited = base.__dict__.get(_FIELDS)
        if inherited is not None:
            fields.update(inherited)
    for name, ann in own.items():
        default = getattr(cls, name, MISSING)
        if isinstance(default, dataclasses.Field):
            f = default
        else:
            if type(default).__name__ == "member_descriptor":  # a slot of a base class, not a default
                default = MISSING
            f = dataclasses.field(default=default)
        f.name, f.type, f._field_type = name, ann, _FIELD  # type: ignore[attr-defined]
        if f.kw_only is MISSING:
            f.kw_only = False  # type: ignore[assignment]
        if f.default is not MISSING and f.default.__class__.__hash__ is None:
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: use default_factory")
        fields[name] = f
        if isinstance(cls.__dict__.get(name), dataclasses.Field):
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
    for name, value in cls.__dict__.items():
        if isinstance(value, dataclasses.Field) and name not in own:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    setattr(cls, _PARAMS, _RECORD_PARAMS)
    setattr(cls, _FIELDS, fields)
    if "__match_args__" not in cls.__dict__:
        cls.__match_args__ = tuple(f.name for f in fields.values() if f.init)  # type: ignore[attr-defined]
    return True


def _unusual(cls: type) -> bool:
    """Anything this module does not reproduce: then the standard decorator does it all."""
    for name, ann in cls.__dict__.get("__annotations__", {}).items():  # noqa: RUF063 - the class's own
        text = ann if isinstance(ann, str) else getattr(ann, "__name__", "")
        if "InitVar" in str(text) or "KW_ONLY" in str(text) or ann is dataclasses.InitVar:
            return True
        f = cls.__dict__.get(name)
        if isinstance(f, dataclasses.Field) and f.kw_only is True:
            return True
    return False


def _own_annotations(cls: type) -> list[str]:
    return list(cls.__dict__.get("__annotations__", {}))  # noqa: RUF063 - the class's own, unevaluated


def _check_defaults_order(cls: type, fields: tuple) -> None:
    seen_default = False
    for f in fields:
        if not f.init:
            continue
        has = f.default is not MISSING or f.default_factory is not MISSING
        if seen_default and not has:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
        seen_default = seen_default or has


# ---------------------------------------------------------------------------
# __init__, compiled at the first instantiation


# instantiations a class's __init__ runs generically before it is compiled: most classes a
# command defines are made a few times (Options once, a Module per module call), and compiling
# each one's __init__ cost a plan 5-10 ms; the hot ones (addresses, values) compile early on
_COMPILE_AFTER = 24


def _lazy_init(cls: type, fields: tuple, frozen: bool) -> Callable[..., None]:
    params = [f for f in fields if f.init]
    names = {f.name for f in params}
    # (name, init, default, factory) in field order; MISSING where there is none
    plan = [(f.name, f.init, f.default, f.default_factory) for f in fields]
    post_init = hasattr(cls, "__post_init__")
    hash_cached = issubclass(cls, HashCached)
    setter = object.__setattr__
    runs = [0]

    def compiled() -> Callable[..., None]:
        real = _compile_init(cls, fields, frozen)
        if cls.__dict__.get("__init__") is __init__:
            cls.__init__ = real  # type: ignore[misc]
        return real

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        runs[0] += 1
        if runs[0] > _COMPILE_AFTER or len(args) > len(params) or not names.issuperset(kwargs):
            compiled()(self, *args, **kwargs)  # (a call the signature refuses raises Python's own error)
            return
        given = dict(zip([f.name for f in params[:len(args)]], args))
        for k in kwargs:
            if k in given:
                compiled()(self, *args, **kwargs)
                return
        given.update(kwargs)
        for name, init, default, factory in plan:
            if init and name in given:
                value = given[name]
            elif default is not MISSING:
                value = default
            elif factory is not MISSING:
                value = factory()
            elif init:  # a required argument missing
                compiled()(self, *args, **kwargs)
                return
            else:
                continue  # neither given nor defaulted: left unset, as the standard __init__ does
            if frozen:
                setter(self, name, value)
            else:
                setattr(self, name, value)
        if hash_cached:
            setter(self, "_hash_value", None)
        if post_init:
            self.__post_init__()

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _compile_init(cls: type, fields: tuple, frozen: bool) -> Callable[..., None]:
    ns: dict[str, Any] = {"__set": object.__setattr__, "__MISSING": _FACTORY}
    params, lines = ["self"], []
    for i, f in enumerate(fields):
        if f.default_factory is not MISSING:
            ns[f"__f{i}"] = f.default_factory
            value = f"__f{i}() if {f.name} is __MISSING else {f.name}" if f.init else f"__f{i}()"
            default = "=__MISSING"
        elif f.default is not MISSING:
            ns[f"__d{i}"] = f.default
            value = f.name if f.init else f"__d{i}"
            default = f"=__d{i}"
        else:
            value, default = f.name, ""
        if f.init:
            params.append(f.name + default)
        elif f.default is MISSING and f.default_factory is MISSING:
            continue  # neither given nor defaulted: left unset, as the standard __init__ does
        lines.append(f"  __set(self, {f.name!r}, {value})" if frozen else f"  self.{f.name} = {value}")
    if issubclass(cls, HashCached):
        lines.append("  __set(self, '_hash_value', None)")
    if hasattr(cls, "__post_init__"):
        lines.append("  self.__post_init__()")
    src = f"def __init__({', '.join(params)}):\n" + ("\n".join(lines) or "  pass") + "\n"
    # exec of the text, not of compile()'s result: the builtin compile() makes the _ast module's
    # ~120 node types on its first call (about 1 ms of every command); the file name is the same
    exec(src, ns)  # noqa: S102 - our own source
    fn = ns["__init__"]
    fn.__code__ = fn.__code__.replace(co_filename=f"<{cls.__qualname__}.__init__>")
    fn.__qualname__ = f"{cls.__qualname__}.__init__"
    return fn


class _Factory:
    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


# ---------------------------------------------------------------------------
# the other methods, as closures


def _tuple_getter(names: list[str]) -> Callable[[Any], tuple]:
    if not names:
        return lambda self: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda self: (one(self),)
    return attrgetter(*names)


def _repr_fn(names: list[str]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in names)
        return f"{self.__class__.__qualname__}({inner})"

    return __repr__


def _eq_fn(get: Callable[[Any], tuple]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:
        if self is other:  # as Python 3.13's generated __eq__ does
            return True
        if other.__class__ is self.__class__:
            return get(self) == get(other)
        return NotImplemented

    return __eq__


def _eq_one_fn(get: Callable[[Any], Any]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:
        if self is other:
            return True
        if other.__class__ is self.__class__:
            a, b = get(self), get(other)
            return a is b or bool(a == b)  # as the tuple comparison does: identity first
        return NotImplemented

    return __eq__


def _add_order(cls: type, body: dict, get: Callable[[Any], tuple]) -> None:
    import operator

    for name in _ORDER:
        if name in body:
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}. Consider using "
                            "functools.total_ordering")
        op = getattr(operator, name.strip("_"))

        def method(self: Any, other: Any, op: Callable = op) -> Any:
            if other.__class__ is self.__class__:
                return op(get(self), get(other))
            return NotImplemented

        method.__name__ = name
        setattr(cls, name, method)


def _add_frozen_guards(cls: type, body: dict, names: set[str], slots: bool) -> None:
    for name in ("__setattr__", "__delattr__"):
        if name in body:
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    cls.__setattr__ = __setattr__  # type: ignore[method-assign,assignment]
    cls.__delattr__ = __delattr__  # type: ignore[method-assign,assignment]
    if slots:  # copy and pickle restore slots through __setstate__, which must get past the guard
        order = [f.name for f in dataclasses.fields(cls)]
        cached_hash = issubclass(cls, HashCached)

        def __getstate__(self: Any) -> list:
            return [getattr(self, n) for n in order]

        def __setstate__(self: Any, state: list) -> None:
            for n, v in zip(order, state):
                object.__setattr__(self, n, v)
            if cached_hash:
                object.__setattr__(self, "_hash_value", None)

        cls.__getstate__ = __getstate__  # type: ignore[attr-defined]
        cls.__setstate__ = __setstate__  # type: ignore[attr-defined]


def _set_hash(cls: type, body: dict, fields: tuple, unsafe_hash: bool, eq: bool, frozen: bool) -> None:
    """The standard decorator's table: whether __hash__ is added, set to None or left alone."""
    own = body.get("__hash__", MISSING)
    explicit = not (own is MISSING or (own is None and "__eq__" in body))
    if unsafe_hash and explicit:
        raise TypeError(f"Cannot overwrite attribute __hash__ in class {cls.__name__}")
    if unsafe_hash or (eq and frozen and not explicit):
        get = _tuple_getter([f.name for f in fields if (f.compare if f.hash is None else f.hash)])
        if frozen and issubclass(cls, HashCached):
            cls.__hash__ = _cached_hash(get)  # type: ignore[method-assign,assignment]
            return

        def __hash__(self: Any) -> int:
            return hash(get(self))

        cls.__hash__ = __hash__  # type: ignore[method-assign,assignment]
    elif eq and not frozen and not explicit:
        cls.__hash__ = None  # type: ignore[assignment]


class HashCached:
    """Base of a frozen record whose hash is computed once and kept in a slot: addresses and
    types are dict keys looked up many times per instance in a walk, and the generated hash of a
    nested record hashes every field again at each lookup. Only frozen records with slots and the
    generated __init__ take the cache (their fields never change; __init__ and __setstate__ mark
    it empty, so copies and unpickled records compute it afresh)."""

    __slots__ = ("_hash_value",)


def _cached_hash(get: Callable[[Any], tuple]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        h = self._hash_value  # None until the first hash (set so by __init__ and __setstate__)
        if h is None:
            h = hash(get(self))
            object.__setattr__(self, "_hash_value", h)
        return h  # type: ignore[no-any-return]

    return __hash__
