"""Helpers shared by the function modules."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..types import (
    DYNAMIC, DynamicType, ListType, MapType, ObjectType, SetType, TupleType, Type,
)
from .. import numbers as N
from ..numbers import Num
from ..values import Null, Sensitive, TList, TMap, TSet, Unknown, type_of
from . import FunctionError


def num(v: Any) -> Any:
    """A number value: a float64 result (go-cty's NumberFloatVal) becomes a 53-bit number;
    language numbers pass through. NaN is refused as go-cty refuses it."""
    if type(v) is float:
        if v != v:
            raise FunctionError("the result is not a number (NaN)")
        return N.from_float64(v)
    return v


_WHOLE_MSG = "value must be a whole number, between -9223372036854775808 and 9223372036854775807"


def whole(v: Any, what: str = "", arg: int | None = None) -> int:
    """An integer from a number argument (gocty's conversion to a Go int), or its error."""
    if type(v) is int:
        if not -2 ** 63 <= v < 2 ** 63:
            raise FunctionError(_WHOLE_MSG)
        return v
    n = N.to_int(v) if type(v) is Num else None
    if n is None or not -2 ** 63 <= n < 2 ** 63:
        raise FunctionError(_WHOLE_MSG)
    return n


# A function that multiplies text (indent, replace) can be nested to build strings of any
# size; Terraform builds them until memory runs out. tfconsole refuses a result this long.
MAX_STRING_CHARS = 64 << 20


def check_size(n: int) -> None:
    if n > MAX_STRING_CHARS:
        raise FunctionError(f"the result would be {n} characters long; tfconsole builds strings of at most "
                            f"{MAX_STRING_CHARS} characters")


def is_seq_type(t: Type) -> bool:
    return isinstance(t, (ListType, TupleType))


def elem_types(v: Any) -> list[Type]:
    return [type_of(x) for x in v]


def null_of(t: Type) -> Any:
    return None if isinstance(t, DynamicType) else Null(t)


def is_seq(v: Any) -> bool:
    return isinstance(v, list)  # tuple, TList, TSet


def kind(v: Any) -> str:
    t = type(v)
    if t is list:
        return "tuple"
    if t is TList:
        return "list"
    if t is TSet:
        return "set"
    if t is TMap:
        return "map"
    if t is dict:
        return "object"
    if t is Unknown or t is Null:
        ty = v.type
        for cls, name in ((ListType, "list"), (SetType, "set"), (MapType, "map"),
                          (TupleType, "tuple"), (ObjectType, "object")):
            if isinstance(ty, cls):
                return name
        return "other"
    return "other"


if TYPE_CHECKING:  # datetime itself is loaded by what makes timestamps (1 ms a plan need not pay)
    import datetime as _dt

__all__ = ["num", "whole", "check_size", "MAX_STRING_CHARS", "is_seq_type", "elem_types", "null_of", "is_seq", "kind", "DYNAMIC", "Sensitive",
           "rfc3339"]


def rfc3339(t: _dt.datetime) -> str:
    """A timestamp as Go's time.RFC3339 formats it (timestamp functions and YAML alike)."""
    base = t.strftime("%Y-%m-%dT%H:%M:%S")
    off = t.utcoffset()
    if not off:  # None or a zero timedelta
        return base + "Z"
    secs = int(off.total_seconds())
    sign = "+" if secs >= 0 else "-"
    secs = abs(secs)
    return f"{base}{sign}{secs // 3600:02d}:{(secs % 3600) // 60:02d}"
