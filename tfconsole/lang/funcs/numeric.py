"""Numeric functions: abs ceil floor log max min parseint pow signum."""
from __future__ import annotations

import math

from ..types import NUMBER, STRING
from . import FunctionError, Param, register
from ._util import num

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


@register("abs", [Param("num", NUMBER)], NUMBER)
def _abs(args, ctx):
    return num(abs(args[0]))


def _round(v, fn):
    if isinstance(v, float) and math.isinf(v):
        return v
    return int(fn(v)) if isinstance(v, float) else v


@register("ceil", [Param("num", NUMBER)], NUMBER)
def _ceil(args, ctx):
    return _round(args[0], math.ceil)


@register("floor", [Param("num", NUMBER)], NUMBER)
def _floor(args, ctx):
    return _round(args[0], math.floor)


def _ln(x: float) -> float:
    if x == 0:
        return -math.inf
    if x < 0:
        return math.nan
    if math.isinf(x):
        return math.inf
    return math.log(x)


@register("log", [Param("num", NUMBER), Param("base", NUMBER)], NUMBER)
def _log(args, ctx):
    n, b = float(args[0]), float(args[1])
    a, c = _ln(n), _ln(b)
    try:
        r = a / c
    except ZeroDivisionError:
        r = math.copysign(math.inf, a) if a != 0 else math.nan
    if isinstance(r, float) and math.isnan(r):
        raise FunctionError("the result is not a number (NaN)")
    return num(r)


def _extreme(args, pick):
    if not args:
        raise FunctionError("must pass at least one number")
    best = args[0]
    for v in args[1:]:
        if pick(v, best):
            best = v
    return num(best)


@register("max", [], NUMBER, variadic=Param("numbers", NUMBER))
def _max(args, ctx):
    return _extreme(args, lambda a, b: a > b)


@register("min", [], NUMBER, variadic=Param("numbers", NUMBER))
def _min(args, ctx):
    return _extreme(args, lambda a, b: a < b)


@register("parseint", [Param("number", STRING), Param("base", NUMBER)], NUMBER)
def _parseint(args, ctx):
    s, base = args
    if isinstance(base, float) and base != int(base) or not (2 <= base <= 62):
        raise FunctionError("base must be a whole number between 2 and 62 inclusive", 1)
    base = int(base)
    text = s
    neg = False
    if text[:1] in ("+", "-"):
        neg = text[0] == "-"
        text = text[1:]
    if not text:
        raise FunctionError(f'cannot parse "{s}" as a base {base} integer', 0)
    n = 0
    for ch in text:
        if base <= 36:
            d = _DIGITS.find(ch.lower())
        else:
            d = _DIGITS.find(ch)
        if d < 0 or d >= base:
            raise FunctionError(f'cannot parse "{s}" as a base {base} integer', 0)
        n = n * base + d
    return -n if neg else n


@register("pow", [Param("num", NUMBER), Param("power", NUMBER)], NUMBER)
def _pow(args, ctx):
    a, b = float(args[0]), float(args[1])
    try:
        r = math.pow(a, b)
    except OverflowError:
        r = math.inf
    except ValueError:
        if a == 0:
            r = math.inf
        else:
            raise FunctionError("the result is not a number (NaN)") from None
    return num(r)


@register("signum", [Param("num", NUMBER)], NUMBER)
def _signum(args, ctx):
    v = args[0]
    if isinstance(v, float) and v != int(v) or not -2**63 <= v < 2**63:
        raise FunctionError("value must be a whole number, between -9223372036854775808 and "
                            "9223372036854775807")
    return 0 if v == 0 else (1 if v > 0 else -1)
