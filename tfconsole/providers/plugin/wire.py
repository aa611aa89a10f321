"""Values on the wire: the msgpack and JSON encodings of DynamicValue, attribute paths, diagnostics.

The rules are the plugin protocol's object wire format: every attribute of an object is present
(nil when null), unknown values are msgpack extension 0 (refined unknowns, extension 12, carry a
map of refinements we keep and send back unchanged), a value whose schema type is dynamic
travels as [JSON type, value], and numbers are msgpack integers or floats when exact, else
decimal strings. Number conversion is in `number_to_wire` / `number_from_wire` only, so the
engine's number representation can change in one place.

This module only converts values; it must not know about gRPC or processes.
"""
from __future__ import annotations

import json
from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from decimal import Decimal
from typing import Any

import msgpack

from tfconsole.diags import Diagnostics
from tfconsole.lang.types import (
    BOOL,
    NUMBER,
    STRING,
    DynamicType,
    ListType,
    MapType,
    ObjectType,
    SetType,
    TupleType,
    Type,
    type_from_json,
)
from tfconsole.lang.values import (
    Null,
    Sensitive,
    TList,
    TMap,
    TSet,
    Unknown,
    format_number,
    normalize_number,
    parse_number,
    type_of,
)

UNKNOWN_EXT = 0
REFINED_EXT = 12
_INT64 = (-(1 << 63), (1 << 63) - 1)


class RefinedUnknown(Unknown):
    """An unknown value with refinements (not null, a string prefix, number or length bounds).
    Equal to a plain Unknown of the same type; the raw refinement payload is kept so the value
    goes back to the provider exactly as it came."""

    __slots__ = ("payload", "refinements")

    def __init__(self, type_: Type, refinements: dict[int, Any], payload: bytes):
        super().__init__(type_)
        self.refinements = refinements
        self.payload = payload

    @property
    def definitely_not_null(self) -> bool:
        return self.refinements.get(1) is False

    def __repr__(self) -> str:
        return f"RefinedUnknown({self.type!r}, {self.refinements!r})"


# ---------------------------------------------------------------------------
# numbers: the one place that converts between the engine's numbers and the wire


def number_to_wire(n: Any) -> int | float | str:
    """A msgpack integer when the number is an exact int64, a float when exactly a float64,
    otherwise its decimal text (which may carry more precision than a float64)."""
    if isinstance(n, bool):
        raise TypeError("a bool is not a number")
    if isinstance(n, int):
        return n if _INT64[0] <= n <= _INT64[1] else str(n)
    if isinstance(n, float):
        return n
    text = format_number(n) if not isinstance(n, Decimal) else format(n, "f")
    try:
        d = Decimal(text)
    except ArithmeticError:
        return text
    if d == d.to_integral_value() and _INT64[0] <= d <= _INT64[1]:
        return int(d)
    f = float(d)
    return f if Decimal(f) == d else text


def number_from_wire(x: Any) -> Any:
    if isinstance(x, str):
        return parse_number(x)
    return normalize_number(x)


# ---------------------------------------------------------------------------
# msgpack


def encode(value: Any, ty: Type) -> bytes:
    """The msgpack DynamicValue bytes of a value of type ty."""
    return msgpack.packb(_to_wire(value, ty), use_bin_type=True)


def decode(data: bytes, ty: Type) -> Any:
    """A value of type ty from msgpack DynamicValue bytes."""
    raw = msgpack.unpackb(data, raw=False, strict_map_key=False, ext_hook=_ExtHook(), use_list=True)
    return _from_wire(raw, ty)


class _Ext:
    __slots__ = ("code", "data")

    def __init__(self, code: int, data: bytes):
        self.code = code
        self.data = data


class _ExtHook:
    def __call__(self, code: int, data: bytes) -> _Ext:
        return _Ext(code, data)


def _unknown_ext(v: Unknown) -> msgpack.ExtType:
    if isinstance(v, RefinedUnknown) and v.payload:
        return msgpack.ExtType(REFINED_EXT, v.payload)
    return msgpack.ExtType(UNKNOWN_EXT, b"\x00")


def _to_wire(v: Any, ty: Type) -> Any:
    if type(v) is Sensitive:
        v = v.value
    if isinstance(ty, DynamicType):
        if isinstance(v, Unknown) and isinstance(v.type, DynamicType):
            return _unknown_ext(v)
        if v is None:
            return None
        vt = type_of(v)
        return [json.dumps(vt.to_json(), separators=(",", ":")).encode(), _to_wire(v, vt)]
    if isinstance(v, Unknown):
        return _unknown_ext(v)
    if v is None or type(v) is Null:
        return None
    if ty is STRING or ty == STRING:
        return v if isinstance(v, str) else str(v)
    if ty is NUMBER or ty == NUMBER:
        return number_to_wire(v)
    if ty is BOOL or ty == BOOL:
        return bool(v)
    if isinstance(ty, ObjectType):
        get = v.get
        return {k: _to_wire(get(k), at) for k, at in ty.attrs}
    if isinstance(ty, (ListType, SetType)):
        return [_to_wire(x, ty.elem) for x in v]
    if isinstance(ty, MapType):
        return {k: _to_wire(x, ty.elem) for k, x in v.items()}
    if isinstance(ty, TupleType):
        return [_to_wire(x, et) for x, et in zip(v, ty.elems)]
    raise TypeError(f"cannot encode a value as {ty!r}")


def _from_wire(x: Any, ty: Type) -> Any:
    if isinstance(x, _Ext):
        return _unknown_from_ext(x, ty)
    if isinstance(ty, DynamicType):
        if x is None:
            return None
        if not (isinstance(x, list) and len(x) == 2):
            raise ValueError("a dynamic value must be a [type, value] pair")
        tj = x[0].decode() if isinstance(x[0], bytes) else x[0]
        return _from_wire(x[1], type_from_json(json.loads(tj)))
    if x is None:
        return Null(ty)
    if ty is STRING or ty == STRING:
        return x if isinstance(x, str) else _check(x, str, ty)
    if ty is NUMBER or ty == NUMBER:
        return number_from_wire(x)
    if ty is BOOL or ty == BOOL:
        return _check(x, bool, ty)
    if isinstance(ty, ObjectType):
        get = _check(x, dict, ty).get
        return {k: _from_wire(get(k), at) for k, at in ty.attrs}
    if isinstance(ty, ListType):
        return TList([_from_wire(e, ty.elem) for e in _check(x, list, ty)], ty.elem)
    if isinstance(ty, SetType):
        return TSet([_from_wire(e, ty.elem) for e in _check(x, list, ty)], ty.elem)
    if isinstance(ty, MapType):
        return TMap({k: _from_wire(e, ty.elem) for k, e in _check(x, dict, ty).items()}, ty.elem)
    if isinstance(ty, TupleType):
        items = _check(x, list, ty)
        if len(items) != len(ty.elems):
            raise ValueError(f"a tuple of {len(ty.elems)} elements has {len(items)}")
        return [_from_wire(e, et) for e, et in zip(items, ty.elems)]
    raise ValueError(f"cannot decode into {ty!r}")


def is_null_value(v: Any) -> bool:
    return v is None or type(v) is Null


def _check(x: Any, kind: type, ty: Type) -> Any:
    if not isinstance(x, kind):
        raise ValueError(f"expected {ty.friendly()}, got msgpack {type(x).__name__}")  # noqa: TRY004 - bad data
    return x


def _unknown_from_ext(ext: _Ext, ty: Type) -> Unknown:
    if ext.code != REFINED_EXT:
        return Unknown(ty)  # every other extension code is an unknown whose payload is ignored
    try:
        refinements = msgpack.unpackb(ext.data, raw=False, strict_map_key=False)
    except Exception:  # noqa: BLE001 - a malformed refinement is ignored, as the protocol allows
        return Unknown(ty)
    if not isinstance(refinements, dict) or not refinements:
        return Unknown(ty)
    return RefinedUnknown(ty, refinements, ext.data)


# ---------------------------------------------------------------------------
# JSON (RawState and DynamicValue.json)


def encode_json(attributes: dict[str, Any]) -> bytes:
    """The JSON bytes of stored attributes (already in cty's JSON form, as in a state file; a
    number may be a Decimal holding digits a float cannot)."""
    from tfconsole.lang.values import dumps_json

    return dumps_json(attributes, separators=(",", ":"), ensure_ascii=False).encode()


def dynamic_value(msg: Any, ty: Type) -> Any:
    """Decode a DynamicValue message: msgpack when present, else JSON."""
    if msg.msgpack:
        return decode(msg.msgpack, ty)
    if msg.json:
        from tfconsole.lang.values import from_json_typed

        return from_json_typed(json.loads(msg.json), ty)
    return Null(ty) if not isinstance(ty, DynamicType) else None


# ---------------------------------------------------------------------------
# attribute paths and diagnostics


def path_text(path: tuple) -> str:
    """Terraform's rendering of an attribute path: .name, ["key"], [0]."""
    attrs = path.attr_steps if isinstance(path, AttrPath) else frozenset({0})
    out = []
    for i, step in enumerate(path):
        if i in attrs:
            out.append("." + str(step))
        elif isinstance(step, str):
            out.append(f"[{json.dumps(step)}]")
        else:
            out.append(f"[{step}]")
    return "".join(out)


class AttrPath(tuple):
    """An attribute path: a tuple of steps that remembers which string steps are attribute
    names (the others are map keys)."""

    attr_steps: frozenset[int]

    def __new__(cls, steps: list[Any], attr_steps: set[int] | frozenset[int]) -> AttrPath:  # noqa: PYI034 - never subclassed
        self = super().__new__(cls, steps)
        self.attr_steps = frozenset(attr_steps)
        return self

    def __reduce__(self) -> tuple:  # copies (plans are copied) keep which steps are attributes
        return (AttrPath, (list(self), set(self.attr_steps)))


def path_from_proto(p: Any) -> AttrPath:
    steps: list[Any] = []
    attrs: set[int] = set()
    for step in p.steps:
        which = step.WhichOneof("selector")
        if which == "attribute_name":
            attrs.add(len(steps))
        steps.append(getattr(step, which) if which else None)
    return AttrPath(steps, attrs)


def path_to_proto(path: tuple, msg: Any) -> Any:
    attrs = path.attr_steps if isinstance(path, AttrPath) else frozenset(
        i for i, s in enumerate(path) if isinstance(s, str) and i == 0)
    for i, step in enumerate(path):
        st = msg.steps.add()
        if i in attrs:
            st.attribute_name = step
        elif isinstance(step, str):
            st.element_key_string = step
        else:
            st.element_key_int = int(step)
    return msg


@dataclass
class ProviderDiagnostics(Diagnostics):
    """Diagnostics from a provider, with the attribute path each one names (None if none), so
    the engine can point at the attribute in the configuration as Terraform does."""

    paths: list[AttrPath | None] = field(default_factory=list)


def diagnostics_from_proto(items: Any) -> ProviderDiagnostics:
    diags = ProviderDiagnostics()
    for d in items:
        path = path_from_proto(d.attribute) if d.attribute.steps else None
        if d.severity == 2:
            diags.warning(d.summary, d.detail)
        else:
            diags.error(d.summary, d.detail)
        diags.paths.append(path)
    return diags
