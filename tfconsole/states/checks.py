"""Shape checks for the data we read back from disk: state files and journal records.

Everything here answers "is this JSON data what the v4 state format says it is?" and returns a
short English reason when it is not (None when it is). Nothing here raises for bad data, and
nothing here converts anything: the readers in statefile.py and journal.py build the State.

The cty rules follow go-cty's JSON codec, including its leniency: a string-typed value may be
written as a number or a bool, a number may be written as a string, a missing object attribute
is null, an extra one is an error.
"""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = [
    "json_kind", "check_cty_type", "check_cty_value", "check_version_string",
    "is_int", "MAX_DEPTH",
]

# Deeper nesting than any real state holds; a hostile file cannot make the checks recurse forever.
MAX_DEPTH = 200

_PRIMITIVES = ("string", "number", "bool", "dynamic")
_VERSION = re.compile(r"^v?\d+(?:\.\d+){0,2}(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$")


def json_kind(v: Any) -> str:
    """The JSON name of a decoded value's kind, for messages ("a string", "an array"...)."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float, Decimal)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def check_version_string(v: str) -> str | None:
    if v == "" or _VERSION.match(v):
        return None
    return f"{v!r} is not a valid version string"


def check_cty_type(t: Any, depth: int = 0) -> str | None:
    """A cty type in its JSON form."""
    if depth > MAX_DEPTH:
        return "the type is nested too deeply"
    if isinstance(t, str):
        return None if t in _PRIMITIVES else f"unknown type {t!r}"
    if not isinstance(t, list) or not t or not isinstance(t[0], str):
        return f"a type must be a string or an array, not {json_kind(t)}"
    kind = t[0]
    if kind in ("list", "set", "map"):
        if len(t) != 2:
            return f"a {kind} type needs exactly one element type"
        return check_cty_type(t[1], depth + 1)
    if kind == "object":
        if len(t) not in (2, 3) or not isinstance(t[1], dict):
            return "an object type needs an object of attribute types"
        for name, at in t[1].items():
            err = check_cty_type(at, depth + 1)
            if err:
                return f"attribute {name!r}: {err}"
        if len(t) == 3 and (not isinstance(t[2], list) or not all(isinstance(x, str) for x in t[2])):
            return "the optional attributes of an object type must be an array of names"
        return None
    if kind == "tuple":
        if len(t) != 2 or not isinstance(t[1], list):
            return "a tuple type needs an array of element types"
        for i, et in enumerate(t[1]):
            err = check_cty_type(et, depth + 1)
            if err:
                return f"element {i}: {err}"
        return None
    return f"unknown type {kind!r}"


def _number_text_ok(s: str) -> bool:
    try:
        return Decimal(s.strip()).is_finite()
    except (InvalidOperation, ValueError):
        return False


def _check_primitive(kind: str, v: Any) -> str | None:
    if kind == "string":
        ok = isinstance(v, (str, bool, int, float, Decimal))
    elif kind == "number":
        ok = (isinstance(v, (int, float, Decimal)) and not isinstance(v, bool)) or (
            isinstance(v, str) and _number_text_ok(v))
    else:  # bool
        ok = isinstance(v, bool) or v in ("true", "false")
    return None if ok else f"{json_kind(v)} is not a {kind}"


def check_cty_value(v: Any, t: Any, depth: int = 0) -> str | None:
    """Does JSON data v decode as a value of cty type t (t already checked)?"""
    if depth > MAX_DEPTH:
        return "the value is nested too deeply"
    if v is None:
        return None
    if isinstance(t, str):
        if t == "dynamic":
            if not isinstance(v, dict) or set(v) != {"value", "type"}:
                return "a value of type dynamic must be an object with \"value\" and \"type\""
            err = check_cty_type(v["type"], depth + 1)
            return err or check_cty_value(v["value"], v["type"], depth + 1)
        return _check_primitive(t, v)
    kind, arg = t[0], t[1]
    if kind in ("list", "set", "tuple"):
        if not isinstance(v, list):
            return f"{json_kind(v)} is not a {kind}"
        if kind == "tuple" and len(v) != len(arg):
            return f"the tuple needs {len(arg)} elements, not {len(v)}"
        for i, x in enumerate(v):
            err = check_cty_value(x, arg[i] if kind == "tuple" else arg, depth + 1)
            if err:
                return f"[{i}]: {err}"
        return None
    if not isinstance(v, dict):
        return f"{json_kind(v)} is not a{'n' if kind == 'object' else ''} {kind}"
    for k, x in v.items():
        if kind == "object" and k not in arg:
            return f"unsupported attribute {k!r}"
        err = check_cty_value(x, arg[k] if kind == "object" else arg, depth + 1)
        if err:
            return f"[{k!r}]: {err}"
    return None
