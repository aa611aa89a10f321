"""Go's float64 `math.Log` and `math.Pow` as Terraform (Go on amd64) computes them.

`pow` and `log` convert their arguments to float64 and call Go's math package, whose results
differ from the C library's in the last bit now and then. These are step-for-step versions of
Go's algorithms on Python floats (IEEE double arithmetic, the same rounding): `Pow` from
math/pow.go, `Log` and `Exp` from the amd64 assembly that Terraform's release binaries run
(Exp takes its fused multiply-add path on CPUs with AVX and FMA, as Go does).
"""
from __future__ import annotations

import math
import struct
from typing import Any

from ..numbers import gmpy2  # loaded on first use


__all__ = ["go_log", "go_pow", "go_exp"]

_NAN = float("nan")
_INF = float("inf")


def _bits(x: float) -> int:
    return struct.unpack("<q", struct.pack("<d", x))[0]


def _from_bits(b: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", b & 0xFFFFFFFFFFFFFFFF))[0]


# --- Log (log_amd64.s: FreeBSD's algorithm in SSE2 double arithmetic)

_HSQRT2 = 7.07106781186547524401e-01
_LN2HI = 6.93147180369123816490e-01
_LN2LO = 1.90821492927058770002e-10
_L1, _L2, _L3 = 6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01
_L4, _L5, _L6 = 2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01
_L7 = 1.479819860511658591e-01


def go_log(x: float) -> float:
    b = _bits(x)
    if b & 0x7FFFFFFFFFFFFFFF == 0:
        return -_INF
    if b < 0:
        return _NAN
    if b >= 0x7FF0000000000000:
        return x
    f1 = _from_bits((b & 0x000FFFFFFFFFFFFF) | 0x3FE0000000000000)
    k = float(((b >> 52) & 0x7FF) - 0x3FE)
    if f1 <= _HSQRT2:  # the assembly's "not less than" compare, equality included
        k -= 1.0
        f1 *= 2.0
    f = f1 - 1.0
    s = f / (2.0 + f)
    s2 = s * s
    s4 = s2 * s2
    t1 = s2 * (((_L7 * s4 + _L5) * s4 + _L3) * s4 + _L1)
    t2 = s4 * ((_L6 * s4 + _L4) * s4 + _L2)
    r = t1 + t2
    hfsq = 0.5 * f * f
    return k * _LN2HI - ((hfsq - (s * (hfsq + r) + k * _LN2LO)) - f)


# --- Exp (exp_amd64.s: Shibata's method)

_LOG2E = 1.4426950408889634073599246810018920
_LN2U = 0.69314718055966295651160180568695068359375
_LN2L = 0.28235290563031577122588448175013436025525412068e-12
_OVERFLOW = 7.09782712893384e+02
_C = (2.4801587301587301587e-5, 1.9841269841269841270e-4, 1.3888888888888888889e-3,
      8.3333333333333333333e-3, 4.1666666666666666667e-2, 1.6666666666666666667e-1, 0.5)
_FMA_CTX: Any = None


def _fma(a: float, b: float, c: float) -> float:
    """a * b + c with one rounding, as the FMA instruction computes it."""
    global _FMA_CTX
    if _FMA_CTX is None:  # gmpy2 loads on first use (see lang/numbers.py)
        _FMA_CTX = gmpy2.context(precision=53, emax=1024, emin=-1073, subnormalize=True,
                                 round=gmpy2.RoundToNearest)
    return float(_FMA_CTX.fma(a, b, c))


def _has_fma() -> bool:
    """Go takes Exp's FMA path when the CPU has AVX and FMA (cpu.X86.HasAVX && HasFMA)."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return "avx" in flags and "fma" in flags
    except OSError:
        pass
    return False


_USE_FMA = _has_fma()


def _cvtsd2si(x: float) -> int:
    """CVTSD2SL: round to nearest even into an int32; out of range gives the 'indefinite' value."""
    if x != x or not -2147483648.5 < x < 2147483647.5:
        return -2147483648
    return int(round(x))


def go_exp(x: float) -> float:
    b = _bits(x)
    if b & 0x7FFFFFFFFFFFFFFF >= 0x7FF0000000000000:
        return 0.0 if x == -_INF else x
    if x > _OVERFLOW:
        return _INF
    e = _cvtsd2si(_LOG2E * x)
    k = float(e)
    if _USE_FMA:
        x = _fma(-k, _LN2U, x)
        x = _fma(-k, _LN2L, x)
        x *= 0.0625
        p = _C[0]
        for c in _C[1:]:
            p = _fma(p, x, c)
        p = _fma(p, x, 1.0)
        x *= p
        for _ in range(3):
            x *= x + 2.0
        x = _fma(x, x + 2.0, 1.0)
    else:
        x -= k * _LN2U
        x -= k * _LN2L
        x *= 0.0625
        p = _C[0]
        for c in _C[1:]:
            p = p * x + c
        p = p * x + 1.0
        x *= p
        for _ in range(4):
            x *= x + 2.0
        x += 1.0
    return _ldexp_asm(x, e)


def _ldexp_asm(fr: float, e: int) -> float:
    e += 0x3FF
    if e <= 0:
        if e < -52:
            return 0.0
        fr *= _from_bits((e + 0x3FE) << 52)
        e = 1
    elif e >= 0x7FF:
        return _INF
    return fr * _from_bits(e << 52)


# --- Pow (math/pow.go)


def _is_odd_int(x: float) -> bool:
    xf, xi = math.modf(x)
    if xf != 0:
        return False
    try:
        n = int(xi)
    except (OverflowError, ValueError):
        return False
    # Go converts to int64 (values beyond it wrap to the minimum, which is even)
    if not -2 ** 63 <= n < 2 ** 63:
        return False
    return n & 1 == 1


def _ldexp(frac: float, exp: int) -> float:
    if frac == 0 or math.isinf(frac) or frac != frac:
        return frac
    m, e = math.frexp(frac)
    exp += e
    if exp < -1074:
        return math.copysign(0.0, frac)
    try:
        return math.ldexp(m, exp)
    except OverflowError:
        return math.copysign(_INF, frac)


def go_pow(x: float, y: float) -> float:
    if y == 0 or x == 1:
        return 1.0
    if y == 1:
        return x
    if x != x or y != y:
        return _NAN
    if x == 0:
        if y < 0:
            return math.copysign(_INF, x) if _is_odd_int(y) else _INF
        return x if _is_odd_int(y) else 0.0
    if math.isinf(y):
        if x == -1:
            return 1.0
        return 0.0 if (abs(x) < 1) == (y > 0) else _INF
    if math.isinf(x):
        if x < 0:
            return go_pow(1 / x, -y)
        return 0.0 if y < 0 else _INF
    if y == 0.5:
        return math.sqrt(x)
    if y == -0.5:
        return 1 / math.sqrt(x)
    yf, yi = math.modf(abs(y))
    if yf != 0 and x < 0:
        return _NAN
    if yi >= 2.0 ** 63:
        if x == -1:
            return 1.0
        return 0.0 if (abs(x) < 1) == (y > 0) else _INF
    a1 = 1.0
    ae = 0
    if yf != 0:
        if yf > 0.5:
            yf -= 1
            yi += 1
        a1 = go_exp(yf * go_log(x))
    x1, xe = math.frexp(x)
    i = int(yi)
    while i != 0:
        if xe < -(1 << 12) or (1 << 12) < xe:
            ae += xe
            break
        if i & 1 == 1:
            a1 *= x1
            ae += xe
        x1 *= x1
        xe <<= 1
        if x1 < 0.5:
            x1 += x1
            xe -= 1
        i >>= 1
    if y < 0:
        a1 = 1 / a1
        ae = -ae
    return _ldexp(a1, ae)
