"""Numeric functions: abs ceil floor log max min parseint pow signum.

Results follow go-cty: abs, ceil and floor keep the argument's precision; log and pow work
on float64 (Go's math package, see _gomath) and give 53-bit numbers; parseint gives an exact
integer of any size.
"""
from __future__ import annotations

import re

from .. import numbers as N
from ..numbers import gmpy2  # loaded on first use
from ..types import NUMBER, STRING
from . import FunctionError, Param, register
from ._gomath import go_log, go_pow
from ._util import num, whole


@register("abs", [Param("num", NUMBER)], NUMBER)
def _abs(args, ctx):
    return N.absolute(args[0])


@register("ceil", [Param("num", NUMBER)], NUMBER)
def _ceil(args, ctx):
    return N.ceil(args[0])


@register("floor", [Param("num", NUMBER)], NUMBER)
def _floor(args, ctx):
    return N.floor(args[0])


def _float_result(r: float):
    if r != r:
        # go-cty's NumberFloatVal panics on NaN; the function call reports the panic
        raise FunctionError("panic in function implementation: Float.SetFloat64(NaN)")
    return num(r)


@register("log", [Param("num", NUMBER), Param("base", NUMBER)], NUMBER)
def _log(args, ctx):
    n, b = N.to_float64(args[0]), N.to_float64(args[1])
    a, c = go_log(n), go_log(b)
    if c == 0:
        r = float("nan") if a == 0 or a != a else (float("inf") if a > 0 else float("-inf"))
    else:
        r = a / c
    return _float_result(r)


def _extreme(args, want):
    if not args:
        raise FunctionError("must pass at least one number")
    best = args[0]
    for v in args[1:]:
        if N.compare(v, best) == want:
            best = v
    return best


@register("max", [], NUMBER, variadic=Param("numbers", NUMBER))
def _max(args, ctx):
    return _extreme(args, 1)


@register("min", [], NUMBER, variadic=Param("numbers", NUMBER))
def _min(args, ctx):
    return _extreme(args, -1)


_GO_DIGITS_36 = re.compile(r"[0-9a-zA-Z]+\Z")


def _digit_value(ch: str, base: int) -> int:
    o = ord(ch)
    if 48 <= o <= 57:
        return o - 48
    if 97 <= o <= 122:
        return o - 87
    # upper case: the same digits as lower case up to base 36, the digits 36..61 above it
    return o - 55 if base <= 36 else o - 29


@register("parseint", [Param("number", STRING), Param("base", NUMBER)], NUMBER)
def _parseint(args, ctx):
    s, base = args
    try:
        base = whole(base)
    except FunctionError:
        raise FunctionError("value must be a whole number, between -9223372036854775808 and "
                            "9223372036854775807", 1) from None
    if not 2 <= base <= 62:
        raise FunctionError("base must be a whole number between 2 and 62 inclusive", 1)
    text = s[1:] if s[:1] in ("+", "-") else s
    if not text or not _GO_DIGITS_36.match(text) or any(_digit_value(c, base) >= base for c in text):
        raise FunctionError(f"cannot parse {_go_quote(s)} as a base {base} integer", 0)
    # GMP reads the digits (linear time for any length); above base 36 it orders the two
    # cases the other way round from Go, so swap them first
    n = int(gmpy2.mpz(text if base <= 36 else text.swapcase(), base))
    return N.from_bigint(-n if s[0] == "-" else n)


def _go_quote(s: str) -> str:
    from ._gofmt import go_quote

    return go_quote(s)


@register("pow", [Param("num", NUMBER), Param("power", NUMBER)], NUMBER)
def _pow(args, ctx):
    return _float_result(go_pow(N.to_float64(args[0]), N.to_float64(args[1])))


@register("signum", [Param("num", NUMBER)], NUMBER)
def _signum(args, ctx):
    v = whole(args[0])
    return 0 if v == 0 else (1 if v > 0 else -1)
