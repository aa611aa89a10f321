"""Values of Terraform's language on plain Python objects.

Representation (chosen so the common case costs nothing):

    string -> str          number -> int | Num        bool -> bool
    null   -> None (dynamic) or Null(type) for a typed null
    tuple  -> list         object -> dict
    list   -> TList        set    -> TSet              map  -> TMap
    unknown ("known after apply") -> Unknown(type)
    marks -> Sensitive(inner, marks), at any depth: `marks` is a bit set of SENSITIVE and
             EPHEMERAL (the class keeps its historic name; most values marked are sensitive)

Collections carry their element type; tuples and objects derive theirs from their
members. Every helper here is total: a conversion failure raises ConversionError,
which the evaluator turns into a diagnostic.
"""
from __future__ import annotations

import json
from decimal import Decimal
from typing import Any, Iterable

from tfconsole.memo import remember

from . import numbers as _N
from .numbers import Num
from .types import (
    BOOL, DYNAMIC, NUMBER, STRING, DynamicType, ListType, MapType, ObjectType, PrimitiveType,
    SetType, TupleType, Type, type_from_json, without_optional,
)


class ConversionError(Exception):
    """A value cannot take the requested type; the message is Terraform's wording. `want` is
    the type that was required, where the message is "X required" (its wording may grow a
    ", but have Y", see funcs.conversion_message)."""

    def __init__(self, message: str, path: tuple = (), want: "Type | None" = None):
        super().__init__(message)
        self.message = message
        self.path = path
        self.want = want


class Unknown:
    """A value not known until apply. Hashable by type so Unknown(STRING) == Unknown(STRING)."""

    __slots__ = ("type",)

    def __init__(self, type_: Type = DYNAMIC):
        self.type = type_

    def __repr__(self) -> str:
        return f"Unknown({self.type!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unknown) and other.type == self.type

    def __hash__(self) -> int:
        return hash(("unknown", self.type))


UNKNOWN = Unknown(DYNAMIC)


class Null:
    """A null of a known type (plain None is a null of dynamic type)."""

    __slots__ = ("type",)

    def __init__(self, type_: Type):
        self.type = type_

    def __repr__(self) -> str:
        return f"Null({self.type!r})"

    def __eq__(self, other: object) -> bool:
        return other is None or isinstance(other, Null)

    def __hash__(self) -> int:
        return hash(None)


# The marks a value can carry, as bits so that combining two operands' marks is `a | b`
# (bool True stands for SENSITIVE: `mark(v, True)` is the sensitive mark, as it always was).
SENSITIVE = 1
EPHEMERAL = 2


class Sensitive:
    """The marks around a value (sensitive, ephemeral or both). Never nested directly in
    another Sensitive."""

    __slots__ = ("value", "marks")

    def __init__(self, value: Any, marks: int = SENSITIVE):
        self.value = value
        self.marks = marks

    def __repr__(self) -> str:
        if self.marks == SENSITIVE:
            return f"Sensitive({self.value!r})"
        return f"Sensitive({self.value!r}, marks={self.marks})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sensitive) and equal(self.value, other.value)

    def __hash__(self) -> int:
        return hash(("sensitive", freeze(self.value)))


class TList(list):
    """A list with a single element type."""

    __slots__ = ("etype",)

    def __init__(self, items: Iterable[Any] = (), etype: Type = DYNAMIC):
        super().__init__(items)
        self.etype = etype

    def __repr__(self) -> str:
        return f"TList({list.__repr__(self)}, {self.etype!r})"


class TSet(list):
    """A set, stored as a duplicate-free list in cty's iteration order."""

    __slots__ = ("etype",)

    def __init__(self, items: Iterable[Any] = (), etype: Type = DYNAMIC, *, ordered: bool = False):
        if ordered:
            super().__init__(items)
        else:
            super().__init__(set_order(items))
        self.etype = etype

    def __repr__(self) -> str:
        return f"TSet({list.__repr__(self)}, {self.etype!r})"


class TMap(dict):
    """A map with a single element type; keys kept sorted as cty iterates them."""

    __slots__ = ("etype",)

    def __init__(self, items: Any = (), etype: Type = DYNAMIC):
        super().__init__(sorted(dict(items).items()))
        self.etype = etype

    def __repr__(self) -> str:
        return f"TMap({dict.__repr__(self)}, {self.etype!r})"


# ---------------------------------------------------------------------------
# inspection


def is_null(v: Any) -> bool:
    return v is None or type(v) is Null


def is_unknown(v: Any) -> bool:
    """Shallow: the value itself is unknown (a known list may still hold unknowns)."""
    if type(v) is Sensitive:
        v = v.value
    return type(v) is Unknown


# Containers known to hold no unknown value at any depth: the values of constructors made only of
# literals (parse cache constants, eval's constant constructors). try() and can() ask about such
# values over and over (a deep merge tries every layer of large nested literals). Keyed by id,
# with the container itself kept, so an id cannot be reused while it is listed.
_KNOWN: dict[int, Any] = {}
_KNOWN_MAX = 500_000


def note_wholly_known(v: Any) -> Any:
    """Record that the container `v` (dict or list, never changed afterwards) holds no unknown
    value at any depth; returns v."""
    if len(_KNOWN) >= _KNOWN_MAX:
        _KNOWN.clear()
    _KNOWN[id(v)] = v
    return v


def is_wholly_known(v: Any) -> bool:
    t = type(v)
    if t is Unknown:
        return False
    if t is Sensitive:
        return is_wholly_known(v.value)
    if t is dict or t is TMap:
        return _KNOWN.get(id(v)) is v or all(is_wholly_known(x) for x in v.values())
    if t is list or t is TList or t is TSet:
        return _KNOWN.get(id(v)) is v or all(is_wholly_known(x) for x in v)
    return True


def is_marked(v: Any) -> bool:
    return type(v) is Sensitive


# types that never hold a mark (hot paths below test these before recursing)
_PLAIN = frozenset((str, int, Num, bool, type(None), Unknown, Null))


def contains_marks(v: Any) -> bool:
    t = type(v)
    if t is Sensitive:
        return True
    if t is dict or t is TMap:
        v = v.values()
    elif not (t is list or t is TList or t is TSet):
        return False
    for x in v:
        tx = type(x)
        if tx in _PLAIN:
            continue
        if tx is Sensitive or contains_marks(x):
            return True
    return False


def unmark(v: Any) -> tuple[Any, int]:
    """Shallow unmark: (inner value, its marks). The marks are 0 (false) when unmarked;
    combine two operands' marks with `|`."""
    if type(v) is Sensitive:
        return v.value, v.marks
    return v, 0


def unmark_deep(v: Any) -> tuple[Any, int]:
    """Remove every mark at any depth: (clean value, the union of the marks found, 0 if none).
    A value without marks comes back as the same object."""
    t = type(v)
    if t in _PLAIN:
        return v, 0
    if t is Sensitive:
        return _strip(v.value), v.marks | deep_marks(v.value)
    clean = _strip(v)
    return clean, (deep_marks(v) if clean is not v else 0)


def deep_marks(v: Any) -> int:
    """The union of the marks anywhere in v."""
    t = type(v)
    if t in _PLAIN:
        return 0
    if t is Sensitive:
        return v.marks | deep_marks(v.value)
    if t is dict or t is TMap:
        v = v.values()
    elif not (t is list or t is TList or t is TSet):
        return 0
    out = 0
    for x in v:
        if type(x) not in _PLAIN:
            out |= deep_marks(x)
    return out


def is_sensitive(v: Any) -> bool:
    return type(v) is Sensitive and bool(v.marks & SENSITIVE)


def contains_sensitive(v: Any) -> bool:
    return bool(deep_marks(v) & SENSITIVE)


def contains_ephemeral(v: Any) -> bool:
    return bool(deep_marks(v) & EPHEMERAL)


def ephemeral_as_null(v: Any) -> Any:
    """v with every ephemeral part replaced by a null of its type (Terraform's ephemeralasnull);
    marks on the parts that are not ephemeral are kept."""
    t = type(v)
    if t in _PLAIN:
        return v
    if t is Sensitive:
        if v.marks & EPHEMERAL:
            # as Terraform does: the null carries none of the value's marks
            return Null(type_of(v.value))
        return mark(ephemeral_as_null(v.value), v.marks)
    if t is dict:
        return {k: ephemeral_as_null(x) for k, x in v.items()}
    if t is TMap:
        return TMap({k: ephemeral_as_null(x) for k, x in v.items()}, v.etype)
    if t is list:
        return [ephemeral_as_null(x) for x in v]
    if t is TList:
        return TList([ephemeral_as_null(x) for x in v], v.etype)
    if t is TSet:
        return TSet([ephemeral_as_null(x) for x in v], v.etype)
    return v


def _strip(v: Any) -> Any:
    """v without marks; the same object when there are none (so `is` tells whether any)."""
    t = type(v)
    if t is Sensitive:
        return _strip(v.value)
    if t is dict or t is TMap:
        out = None
        for k, x in v.items():
            if type(x) in _PLAIN:
                continue
            y = _strip(x)
            if y is not x:
                if out is None:
                    out = dict(v)
                out[k] = y
        if out is None:
            return v
        return out if t is dict else TMap(out, v.etype)
    if t is list or t is TList or t is TSet:
        items = None
        for i, x in enumerate(v):
            if type(x) in _PLAIN:
                continue
            y = _strip(x)
            if y is not x:
                if items is None:
                    items = list(v)
                items[i] = y
        if items is None:
            return v
        if t is list:
            return items
        if t is TList:
            return TList(items, v.etype)
        return TSet(items, v.etype)
    return v


def mark(v: Any, marked: int = SENSITIVE) -> Any:
    """v with the given marks added (True is SENSITIVE; 0 or False adds nothing)."""
    if not marked:
        return v
    bits = int(marked)
    if type(v) is Sensitive:
        if v.marks | bits == v.marks:
            return v
        return Sensitive(v.value, v.marks | bits)
    return Sensitive(v, bits)


def sensitive_paths(v: Any, path: tuple = ()) -> list[tuple]:
    """Paths (tuples of str keys and int indexes) of every sensitive value, for state files."""
    t = type(v)
    if t is Sensitive and v.marks & SENSITIVE:
        return [path]
    if t is Sensitive:
        return sensitive_paths(v.value, path)
    out: list[tuple] = []
    if t is dict or t is TMap:
        for k, x in v.items():
            if type(x) not in _PLAIN:
                out.extend(sensitive_paths(x, path + (k,)))
    elif t is list or t is TList or t is TSet:
        for i, x in enumerate(v):
            if type(x) not in _PLAIN:
                out.extend(sensitive_paths(x, path + (i,)))
    return out


def apply_sensitive_paths(v: Any, paths: Iterable[tuple]) -> Any:
    for p in paths:
        v = _mark_at(v, tuple(p))
    return v


def _mark_at(v: Any, path: tuple) -> Any:
    if not path:
        return mark(v)
    t = type(v)
    key = path[0]
    if t is dict and key in v:
        out = dict(v)
        out[key] = _mark_at(v[key], path[1:])
        return out
    if t is TMap and key in v:
        out2 = TMap(v, v.etype)
        out2[key] = _mark_at(v[key], path[1:])
        return out2
    if t in (list, TList, TSet) and isinstance(key, int) and 0 <= key < len(v):
        items = list(v)
        items[key] = _mark_at(items[key], path[1:])
        if t is list:
            return items
        if t is TList:
            return TList(items, v.etype)
        return TSet(items, v.etype, ordered=True)
    return v


# ---------------------------------------------------------------------------
# types of values


def type_of(v: Any) -> Type:
    t = type(v)
    pt = _PRIMITIVE_TYPE_OF.get(t)
    if pt is not None:
        return pt
    if v is None:
        return DYNAMIC
    if t is Unknown or t is Null:
        return v.type
    if t is Sensitive:
        return type_of(v.value)
    if t is dict:
        get = _PRIMITIVE_TYPE_OF.get
        attrs = tuple(sorted((k, get(type(x)) or type_of(x)) for k, x in v.items()))
        known = _OBJECT_TYPES.get(attrs)
        if known is None:
            known = remember(_OBJECT_TYPES, attrs, ObjectType(attrs), 8192)
        return known
    if t is list:
        get = _PRIMITIVE_TYPE_OF.get
        elems = tuple([get(type(x)) or type_of(x) for x in v])
        known = _TUPLE_TYPES.get(elems)
        if known is None:
            known = remember(_TUPLE_TYPES, elems, TupleType(elems), 8192)
        return known
    if t is TList:
        return ListType(v.etype)
    if t is TSet:
        return SetType(v.etype)
    if t is TMap:
        return MapType(v.etype)
    raise TypeError(f"not a language value: {v!r}")


# the object and tuple types of values, one object per shape: thousands of instances' values share
# a few shapes, and types compared later compare by identity first. Bounded.
_OBJECT_TYPES: dict[tuple, ObjectType] = {}
_TUPLE_TYPES: dict[tuple, TupleType] = {}


def same_type(a: Any, b: Any) -> bool:
    """type_of(a) == type_of(b), without building either type where the values' shapes
    already decide it (objects and tuples compare member by member)."""
    ta, tb = type(a), type(b)
    if ta is Sensitive:
        return same_type(a.value, b)
    if tb is Sensitive:
        return same_type(a, b.value)
    pa = _PRIMITIVE_TYPE_OF.get(ta)
    if pa is not None:
        pb = _PRIMITIVE_TYPE_OF.get(tb)
        if pb is not None:
            return pa == pb
    elif ta is dict and tb is dict:
        if a.keys() != b.keys():
            return False
        for k, x in a.items():
            if not same_type(x, b[k]):
                return False
        return True
    elif ta is list and tb is list:
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if not same_type(x, y):
                return False
        return True
    return type_of(a) == type_of(b)


# ---------------------------------------------------------------------------
# numbers and strings


def normalize_number(n: Any) -> int | Num:
    """A language number from a Python number or JSON datum: int and Num stay as they are; a
    float, Decimal or over-large int is read as go-cty reads JSON numbers (at 512 bits)."""
    t = type(n)
    if t is int:
        return n if -_INT_LIMIT < n < _INT_LIMIT else _N.parse(_N.text(n))
    if t is Num:
        return n
    if t is bool:
        raise ConversionError("a number is required", want=ty)
    if isinstance(n, float):
        if n != n or n in (float("inf"), float("-inf")):
            return _N.from_float64(n)
        return _N.parse(repr(n))
    if isinstance(n, Decimal):
        if not n.is_finite():
            raise ConversionError("a number is required", want=ty)
        return _N.parse(str(n))
    if isinstance(n, int):
        return normalize_number(int(n))
    raise ConversionError("a number is required", want=ty)


_INT_LIMIT = 1 << _N.PREC


def format_number(n: Any) -> str:
    """Terraform's decimal text for a number (what tostring and templates give): no exponent,
    the shortest digits that identify it at its precision."""
    if type(n) is int or type(n) is Num:
        return _N.text(n)
    return _N.text(normalize_number(n))


def parse_number(s: str) -> int | Num:
    """A string converted to a number (go-cty's ParseNumberVal, as tonumber and conversions do)."""
    try:
        return _N.parse(s)
    except _N.NumberRangeError as exc:
        raise ConversionError(str(exc)) from None
    except _N.NumberError:
        raise ConversionError(f'cannot convert "{s}" to number; given string must be a decimal '
                              'representation of a number') from None


def number_to_json(n: Any) -> Any:
    """A number as JSON data for state and plans: an int, or a Decimal holding exactly the digits
    Terraform writes (after go-cty's msgpack round trip). Infinities cannot be written."""
    if type(n) is int and -_WIRE_INT < n < _WIRE_INT:
        return n
    text = _N.wire_text(n)
    if text.endswith("Inf"):
        raise ConversionError("cannot serialize infinity as JSON")
    return Decimal(text) if "." in text or len(text) > 4000 else int(text)


_WIRE_INT = 10 ** 4000


# ---------------------------------------------------------------------------
# set ordering and equality


def _order_key(v: Any) -> tuple:
    v, _ = unmark(v)
    t = type(v)
    if t is str:
        return (1, v)
    if t is bool:
        return (0, v)
    if t is int:
        return (2, v)
    if t is Num:
        return (2, v.f)
    if is_null(v) or t is Unknown:
        return (4, "")
    return (3, json.dumps(to_json_plain(v), sort_keys=True))


def set_order(items: Iterable[Any]) -> list[Any]:
    seen: dict[Any, Any] = {}
    for x in items:
        seen.setdefault(freeze(x), x)
    return sorted(seen.values(), key=_order_key)


def freeze(v: Any) -> Any:
    """A hashable stand-in for a value, equal exactly when the values are equal."""
    t = type(v)
    if t is dict or t is TMap:
        return (t is TMap, tuple(sorted((k, freeze(x)) for k, x in v.items())))
    if t is list or t is TList or t is TSet:
        return (t.__name__, tuple(freeze(x) for x in v))
    if t is Sensitive:
        return ("s", freeze(v.value))
    if t is Num:
        return _N.hash_key(v)
    if t is Null:
        return None
    return v


_PRIMITIVE_TYPE_OF: dict[type, Type] = {str: STRING, bool: BOOL, int: NUMBER, Num: NUMBER}


def equal(a: Any, b: Any) -> bool:
    """Terraform's `==`: same type and same value (marks ignored)."""
    if type(a) is Sensitive:
        a = a.value
    if type(b) is Sensitive:
        b = b.value
    ta = type(a)
    if ta is type(b):
        if ta is str or ta is int or ta is bool:
            return a == b
        if ta is dict or ta is TMap:
            if a.keys() != b.keys():
                return False
            for k, x in a.items():
                y = b[k]
                tx = type(x)
                if tx is type(y) and (tx is str or tx is int or tx is bool):
                    if x != y:
                        return False
                elif not equal(x, y):
                    return False
            return True
    if is_null(a) or is_null(b):
        return is_null(a) and is_null(b)
    ta, tb = type(a), type(b)
    if ta is bool or tb is bool:
        return ta is tb and a == b
    if (ta is int or ta is Num) and (tb is int or tb is Num):
        return _N.equal(a, b)
    if ta is str or tb is str:
        return ta is tb and a == b
    if ta is not tb:
        return False
    if ta in (dict, TMap):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    if ta in (list, TList, TSet):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    return a == b


def identical(a: Any, b: Any) -> bool:
    """Whether a and b are built alike, Python type by Python type, from equal strings, ints
    and bools: then they are `equal` and of the same type. False is only "not shown here"
    (numbers beyond int, nulls, unknowns and marks are left to equal and type_of): a cheap
    first test for the common case where a value did not change."""
    if a is b:
        return True
    t = type(a)
    if t is not type(b):
        return False
    if t is str or t is int or t is bool:
        return a == b
    if t is dict or t is TMap:
        if len(a) != len(b) or (t is TMap and a.etype != b.etype) or a.keys() != b.keys():
            return False
        return _all_identical(zip(a.values(), map(b.__getitem__, a)))
    if t is list or t is TList or t is TSet:
        if len(a) != len(b) or (t is not list and a.etype != b.etype):
            return False
        return _all_identical(zip(a, b))
    return False


def _all_identical(pairs: Any) -> bool:
    for x, y in pairs:
        if x is y:
            continue
        tx = type(x)
        if tx is not type(y):
            return False
        if tx is str or tx is int or tx is bool:
            if x != y:
                return False
        elif not identical(x, y):
            return False
    return True




# ---------------------------------------------------------------------------
# JSON (cty's JSON encoding of values; type-directed for dynamic attributes)


def to_json_plain(v: Any) -> Any:
    """Plain JSON data of a wholly known value (marks dropped, sets as arrays)."""
    t = type(v)
    if t is str or t is bool or t is int:
        return v
    if t is Num:
        return number_to_json(v)
    if v is None or t is Null:
        return None
    if t is Sensitive:
        return to_json_plain(v.value)
    if t is dict or t is TMap:
        return {k: to_json_plain(x) for k, x in v.items()}
    if t in (list, TList, TSet):
        return [to_json_plain(x) for x in v]
    if t is Unknown:
        return None
    raise TypeError(f"not a language value: {v!r}")


def from_json_typed(j: Any, ty: Type) -> Any:
    """Decode JSON data into a value of type ty (cty's ctyjson.Unmarshal)."""
    decode = _DECODERS.get(ty)
    if decode is None:
        decode = _decoder(ty)
    return decode(j)


# type -> its decoder: a state or plan holds thousands of objects of a few types, so the walk
# over a type's structure is done once per type, not once per value. Bounded: types read from
# a provider's schemas or from dynamic values are many only in pathological input.
_DECODERS: dict[Type, Any] = {}


def _decoder(ty: Type) -> Any:
    decode = _PRIMITIVE_DECODERS.get(ty) if type(ty) is PrimitiveType else _composite_decoder(ty)
    if decode is None:
        raise TypeError(f"cannot decode into {ty!r}")
    return remember(_DECODERS, ty, decode)


def _composite_decoder(ty: Type) -> Any:
    tt = type(ty)
    if tt is DynamicType:
        return _decode_dynamic
    if tt is ObjectType:
        return _object_decoder(ty)  # type: ignore[arg-type]
    if tt is TupleType:
        return _tuple_decoder(ty)  # type: ignore[arg-type]
    if tt is ListType or tt is SetType or tt is MapType:
        return _collection_decoder(ty)  # type: ignore[arg-type]
    return None


def _object_decoder(ty: ObjectType) -> Any:
    parts = [(k, _decoder_of(at)) for k, at in ty.attrs]
    if sum(1 for _, d in parts if d is _decode_dynamic) < 2:

        def decode(j: Any) -> Any:
            if j is None:
                return Null(ty)
            get = j.get
            return {k: d(get(k)) for k, d in parts}

        return decode

    def decode_sharing(j: Any) -> Any:
        # two dynamic attributes often hold the same data (terraform_data's input and
        # output): JSON that compares equal, type notation included, decodes to equal values
        # (JSON cannot tell true from 1 only where the types differ too), so it is decoded
        # once and the immutable value shared
        if j is None:
            return Null(ty)
        get = j.get
        out = {}
        seen: list[tuple[Any, Any]] = []
        for k, d in parts:
            x = get(k)
            if d is _decode_dynamic and type(x) is dict:
                for sx, sv in seen:
                    if sx == x:
                        out[k] = sv
                        break
                else:
                    out[k] = v = d(x)
                    seen.append((x, v))
            else:
                out[k] = d(x)
        return out

    return decode_sharing


def _tuple_decoder(ty: TupleType) -> Any:
    parts = [_decoder_of(et) for et in ty.elems]

    def decode(j: Any) -> Any:
        if j is None:
            return Null(ty)
        return [d(x) for x, d in zip(j, parts)]

    return decode


def _collection_decoder(ty: ListType | SetType | MapType) -> Any:
    elem, d = ty.elem, _decoder_of(ty.elem)
    tt = type(ty)

    def decode(j: Any) -> Any:
        if j is None:
            return Null(ty)
        if tt is MapType:
            return TMap({k: d(x) for k, x in j.items()}, elem)
        return (TList if tt is ListType else TSet)([d(x) for x in j], elem)

    return decode


def _decoder_of(ty: Type) -> Any:
    decode = _DECODERS.get(ty)
    return decode if decode is not None else _decoder(ty)


def _decode_dynamic(j: Any) -> Any:
    if j is None:
        return None
    if type(j) is dict and len(j) == 2 and "value" in j and "type" in j:
        tj = j["type"]
        if type(tj) is str:
            return from_json_typed(j["value"], type_from_json(tj))
        # the instances of a resource store one type notation over and over: compared with
        # the last few seen (in C) before it is parsed (through its repr)
        for seen, ty in _RECENT_TYPES:
            if seen == tj:
                break
        else:
            ty = type_from_json(tj)
            _RECENT_TYPES.insert(0, (tj, ty))
            del _RECENT_TYPES[4:]
        return from_json_typed(j["value"], ty)
    return from_json_implied(j)


# (type notation JSON, its type), the most recent first; another thread's insert in the middle
# of a loop above only makes that loop see an entry twice or miss one
_RECENT_TYPES: list[tuple[Any, Type]] = []


def _decode_string(j: Any) -> Any:
    t = type(j)
    if t is str:
        return j
    if j is None:
        return Null(STRING)
    if t is bool:
        return "true" if j else "false"
    if isinstance(j, (int, float, Decimal, Num)):
        return format_number(j)
    return j


def _decode_number(j: Any) -> Any:
    if j is None:
        return Null(NUMBER)
    if isinstance(j, str):
        return parse_number(j)
    return normalize_number(j)


def _decode_bool(j: Any) -> Any:
    if j is None:
        return Null(BOOL)
    if isinstance(j, str):
        return j == "true"
    return bool(j)


_PRIMITIVE_DECODERS = {STRING: _decode_string, NUMBER: _decode_number, BOOL: _decode_bool}


def from_json_implied(j: Any) -> Any:
    """Decode JSON with types implied as jsondecode does: arrays are tuples, objects objects."""
    if isinstance(j, dict):
        return {k: from_json_implied(x) for k, x in j.items()}
    if isinstance(j, list):
        return [from_json_implied(x) for x in j]
    if type(j) is float or type(j) is Decimal or (type(j) is int and not -_INT_LIMIT < j < _INT_LIMIT):
        return normalize_number(j)
    return j


def to_json_typed(v: Any, ty: Type) -> Any:
    """Encode a value as cty JSON for type ty: dynamic positions get {"value", "type"}."""
    if type(v) is Sensitive:
        v = v.value
    if type(v) is Unknown:
        return None  # never stored: apply checks results are wholly known; this only guards recursion
    tt = type(ty)
    if tt is PrimitiveType:
        t = type(v)
        if t is str or t is bool or t is int:
            return v
        return None if v is None or t is Null else to_json_plain(v)
    if tt is ObjectType and type(v) is dict:
        out = {}
        get = v.get
        for k, at in ty.attrs:
            x = get(k)
            tx = type(x)
            if type(at) is PrimitiveType and (tx is str or tx is bool or tx is int):
                out[k] = x
            else:
                out[k] = to_json_typed(x, at)
        return out
    if isinstance(ty, DynamicType):
        if type(v) is Null and not isinstance(v.type, DynamicType):
            return {"value": None, "type": v.type.to_json()}  # a typed null keeps its type (cty JSON)
        if is_null(v):
            return None
        vt = type_of(v)
        return {"value": to_json_typed(v, vt), "type": vt.to_json()}
    if is_null(v):
        return None
    if isinstance(ty, SetType):
        # Terraform stores values after their msgpack round trip, where numbers may become
        # equal that were not (0.1 and the float64 nearest it): a set then holds one of them
        v = TSet([wire_value(x) for x in v], ty.elem)
        return [to_json_typed(x, ty.elem) for x in v]
    if isinstance(ty, ListType):
        return [to_json_typed(x, ty.elem) for x in v]
    if isinstance(ty, MapType):
        return {k: to_json_typed(x, ty.elem) for k, x in v.items()}
    if isinstance(ty, TupleType):
        return [to_json_typed(x, et) for x, et in zip(v, ty.elems)]
    if isinstance(ty, ObjectType):
        return {k: to_json_typed(v.get(k) if isinstance(v, dict) else None, at) for k, at in ty.attrs}
    return to_json_plain(v)


# ---------------------------------------------------------------------------
# conversion and unification


def _is_nullish_or_unknown(v: Any) -> bool:
    return v is None or type(v) in (Null, Unknown)


def convert(v: Any, ty: Type) -> Any:
    """Convert v to type ty as cty's convert package does, keeping marks and unknowns."""
    if type(v) is Sensitive:
        return Sensitive(convert(v.value, ty), v.marks)
    if isinstance(ty, DynamicType):
        return v
    if v is None or type(v) is Null:
        return Null(ty)
    if type(v) is Unknown:
        if not isinstance(v.type, DynamicType) and not _convertible(v.type, ty):
            raise ConversionError(f"{ty.friendly()} required", want=ty)
        return Unknown(ty)
    if isinstance(ty, PrimitiveType):
        return _convert_primitive(v, ty)
    t = type(v)
    if isinstance(ty, ListType):
        if t in (list, TList, TSet):
            return TList(_convert_elems(v, ty.elem), _elem_type_after(v, ty.elem))
        raise ConversionError(f"list of {ty.elem.friendly()} required", want=ty)
    if isinstance(ty, SetType):
        if t in (list, TList, TSet):
            return TSet(_convert_elems(v, ty.elem), _elem_type_after(v, ty.elem))
        raise ConversionError(f"set of {ty.elem.friendly()} required", want=ty)
    if isinstance(ty, MapType):
        if t in (dict, TMap):
            items = {}
            for k, x in v.items():
                try:
                    items[k] = convert(x, ty.elem)
                except ConversionError as exc:
                    raise ConversionError(exc.message, (k,) + exc.path, exc.want) from None
            etype = without_optional(ty.elem) if not isinstance(ty.elem, DynamicType) else unify_types(
                [type_of(x) for x in items.values()])
            if isinstance(ty.elem, DynamicType) and not isinstance(etype, DynamicType):
                items = {k: convert(x, etype) for k, x in items.items()}
            return TMap(items, etype)
        raise ConversionError(f"map of {ty.elem.friendly()} required", want=ty)
    if isinstance(ty, TupleType):
        # only a tuple converts to a tuple type (go-cty has no list-to-tuple conversion)
        if t is list:
            if len(v) != len(ty.elems):
                raise ConversionError("tuple required", want=ty)
            return [convert(x, et) for x, et in zip(v, ty.elems)]
        raise ConversionError("tuple required", want=ty)
    if isinstance(ty, ObjectType):
        if t not in (dict, TMap):
            raise ConversionError("object required", want=ty)
        out = {}
        defaults = dict(ty.defaults)
        for name, at in ty.attrs:
            if name in v and not (is_null(v[name]) and name in defaults):
                try:
                    out[name] = convert(v[name], at)
                except ConversionError as exc:
                    raise ConversionError(exc.message, (name,) + exc.path, exc.want) from None
            elif name in ty.optional:
                if name in defaults:
                    out[name] = convert(defaults[name], at)
                else:
                    out[name] = Null(at)
            else:
                raise ConversionError(f'attribute "{name}" is required')
        return out
    raise ConversionError(f"{ty.friendly()} required", want=ty)


def _convertible(src: Type, dst: Type) -> bool:
    if isinstance(dst, DynamicType) or isinstance(src, DynamicType) or src == dst:
        return True
    if isinstance(src, PrimitiveType) and isinstance(dst, PrimitiveType):
        return dst == STRING or src == STRING
    return True


def _elem_type_after(v: Any, elem: Type) -> Type:
    if not isinstance(elem, DynamicType):
        return without_optional(elem)
    return unify_types([type_of(x) for x in v])


def _convert_elems(v: Any, elem: Type) -> list[Any]:
    out = []
    for i, x in enumerate(v):
        try:
            out.append(convert(x, elem))
        except ConversionError as exc:
            raise ConversionError(exc.message, (i,) + exc.path, exc.want) from None
    if isinstance(elem, DynamicType) and out:
        target = unify_types([type_of(x) for x in out])
        if isinstance(target, DynamicType) and len({type_of(x) for x in out if not _is_nullish_or_unknown(x)}) > 1:
            raise ConversionError("all elements must have the same type")
        if not isinstance(target, DynamicType):
            out = [convert(x, target) for x in out]
    return out


def _convert_primitive(v: Any, ty: PrimitiveType) -> Any:
    t = type(v)
    if ty is STRING or ty == STRING:
        if t is str:
            return v
        if t is bool:
            return "true" if v else "false"
        if t is int or t is Num:
            return _N.text(v)
        raise ConversionError("string required", want=ty)
    if ty == NUMBER:
        if t is int or t is Num:
            return v
        if t is str:
            return parse_number(v)
        raise ConversionError("number required", want=ty)
    if ty == BOOL:
        if t is bool:
            return v
        if t is str:
            if v == "true" or v == "1":
                return True
            if v == "false" or v == "0":
                return False
            raise ConversionError(f'cannot convert "{v}" to bool; only the strings "true" or "false" '
                                  'are allowed')
        raise ConversionError("bool required", want=ty)
    raise ConversionError(f"{ty.friendly()} required", want=ty)


def unify_types(types: list[Type]) -> Type:
    """The single type every one of `types` converts to, or DYNAMIC if there is none."""
    concrete = [t for t in types if not isinstance(t, DynamicType)]
    if not concrete:
        return DYNAMIC
    first = concrete[0]
    if all(t == first for t in concrete):
        return first
    if all(isinstance(t, PrimitiveType) for t in concrete):
        return STRING
    if all(isinstance(t, (ObjectType, MapType)) for t in concrete):
        objs = [t for t in concrete if isinstance(t, ObjectType)]
        if objs and all(isinstance(t, ObjectType) for t in concrete) and \
                all(set(dict(o.attrs)) == set(dict(objs[0].attrs)) for o in objs):
            return ObjectType(tuple((k, unify_types([dict(o.attrs)[k] for o in objs]))
                                    for k, _ in objs[0].attrs))
        elems: list[Type] = []
        for t in concrete:
            elems.extend(a for _, a in t.attrs) if isinstance(t, ObjectType) else elems.append(t.elem)
        e = unify_types(elems) if elems else DYNAMIC
        if elems and isinstance(e, DynamicType) and any(not isinstance(x, DynamicType) for x in elems):
            return DYNAMIC
        return MapType(e)
    if all(isinstance(t, (TupleType, ListType)) for t in concrete):
        tups = [t for t in concrete if isinstance(t, TupleType)]
        if tups and all(isinstance(t, TupleType) for t in concrete) and \
                all(len(t.elems) == len(tups[0].elems) for t in tups):
            return TupleType(tuple(unify_types([t.elems[i] for t in tups]) for i in range(len(tups[0].elems))))
        e = _unify_elems(concrete)
        return DYNAMIC if e is None else ListType(e)
    if all(isinstance(t, (SetType, ListType, TupleType)) for t in concrete):
        e = _unify_elems(concrete)
        return DYNAMIC if e is None else SetType(e)
    return DYNAMIC


def _unify_elems(seqs: list[Type]) -> Type | None:
    """The element type sequence types unify to, or None when their elements have no common
    type (cty's unification then fails: there is no list of it)."""
    elems: list[Type] = []
    for t in seqs:
        elems.extend(t.elems) if isinstance(t, TupleType) else elems.append(t.elem)
    if not elems:
        return DYNAMIC
    e = unify_types(elems)
    if isinstance(e, DynamicType) and len({x for x in elems if not isinstance(x, DynamicType)}) > 1:
        return None
    return e


def unify_values(values: list[Any]) -> tuple[list[Any], Type]:
    ty = unify_types([type_of(v) for v in values])
    if isinstance(ty, DynamicType):
        return values, ty
    return [convert(v, ty) for v in values], ty


def make_list(items: list[Any]) -> TList:
    """A list value from items, unifying element types (tolist semantics)."""
    conv, ty = unify_values(items)
    return TList(conv, ty)


def make_set(items: list[Any]) -> TSet:
    conv, ty = unify_values(items)
    return TSet(conv, ty)


def make_map(items: dict[str, Any]) -> TMap:
    vals = list(items.values())
    conv, ty = unify_values(vals)
    return TMap(dict(zip(items.keys(), conv)), ty)


def length_of(v: Any) -> int:
    v, _ = unmark(v)
    if type(v) is str:
        import unicodedata

        return len(unicodedata.normalize("NFC", v))
    return len(v)


def to_python(v: Any) -> Any:
    """Plain Python data (marks dropped, unknowns as Unknown)."""
    t = type(v)
    if t is Sensitive:
        return to_python(v.value)
    if t is Null:
        return None
    if t is dict or t is TMap:
        return {k: to_python(x) for k, x in v.items()}
    if t in (list, TList, TSet):
        return [to_python(x) for x in v]
    return v


def find_infinity(v: Any) -> bool:
    """Whether v holds an infinite number anywhere (such a value cannot be written to state:
    Terraform plans it but fails to save it, "cannot serialize infinity as JSON")."""
    t = type(v)
    if t is Num:
        return not _N.is_finite(v)
    if t is Sensitive:
        return find_infinity(v.value)
    if t is dict or t is TMap:
        members: Any = v.values()
    elif t is list or t is TList or t is TSet:
        members = v
    else:
        return False
    for x in members:  # a loop, not any() over a generator: this runs on every planned object
        tx = type(x)
        if tx is Num:
            if not _N.is_finite(x):
                return True
        elif tx not in _PLAIN and find_infinity(x):
            return True
    return False


def wire_value(v: Any) -> Any:
    """v after go-cty's msgpack round trip (numbers as N.wire makes them, sets re-formed)."""
    t = type(v)
    if t is Num:
        return _N.wire(v)
    if t in _PLAIN:
        return v
    if t is Sensitive:
        return Sensitive(wire_value(v.value), v.marks)
    if t is dict:
        return {k: wire_value(x) for k, x in v.items()}
    if t is TMap:
        return TMap({k: wire_value(x) for k, x in v.items()}, v.etype)
    if t is list:
        return [wire_value(x) for x in v]
    if t is TList:
        return TList([wire_value(x) for x in v], v.etype)
    if t is TSet:
        return TSet([wire_value(x) for x in v], v.etype)
    return v


def dumps_json(data: Any, **kw: Any) -> str:
    """json.dumps for JSON data whose numbers may be Decimals (as number_to_json makes them):
    those are written with exactly their digits, as Terraform writes its 512-bit numbers."""
    import re as _re
    import secrets

    nonce = secrets.token_hex(8)
    texts: list[str] = []

    def default(o: Any) -> Any:
        if isinstance(o, Decimal) and o.is_finite():
            texts.append(format(o, "f"))
            return f"\x00{nonce}:{len(texts) - 1}"
        if type(o) is Num:
            texts.append(_N.wire_text(o))
            return f"\x00{nonce}:{len(texts) - 1}"
        raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")

    text = json.dumps(data, default=default, **kw)
    if not texts:
        return text
    return _re.sub(r'"\\u0000' + nonce + r':(\d+)"', lambda m: texts[int(m.group(1))], text)
