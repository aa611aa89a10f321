"""Helpers shared by the function modules."""
from __future__ import annotations

import math
from typing import Any

from ..types import (
    DYNAMIC, DynamicType, ListType, MapType, ObjectType, SetType, TupleType, Type,
)
from ..values import Null, Sensitive, TList, TMap, TSet, Unknown, normalize_number, type_of
from . import FunctionError


def num(v: Any) -> int | float:
    """A number value normalised (integral floats become ints)."""
    if isinstance(v, float):
        if math.isnan(v):
            raise FunctionError("the result is not a number (NaN)")
        return normalize_number(v)
    return v


def whole(v: Any, what: str, arg: int | None = None) -> int:
    """An integer from a number argument, or an error naming it."""
    if isinstance(v, float):
        if not math.isfinite(v) or v != int(v):
            raise FunctionError("value must be a whole number, between -9223372036854775808 and "
                                "9223372036854775807")
        return int(v)
    return int(v)


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


__all__ = ["num", "whole", "is_seq_type", "elem_types", "null_of", "is_seq", "kind", "DYNAMIC", "Sensitive"]
