"""Terraform's numbers: go-cty's `*big.Float` semantics on Python ints and MPFR (gmpy2).

go-cty keeps every number as a binary float whose precision depends on where it came from:
a literal or any string parsed as a number has 512 bits, an integer made by a function
(`length`, `count.index`) 64, a float64 result (`pow`, `log`) 53. An operation's result takes
the larger precision of its operands (a product grows to what it needs, up to 512). Two
numbers are equal when they are the same integer, or when their shortest decimal texts
(`Text('f', -1)`) are the same. That text is what `tostring`, templates and `jsonencode`
produce, and - after the msgpack round trip every planned value takes - what reaches state.

Representation (the common case costs nothing):

    int  an integer below 2**512 in magnitude: exact at every precision go-cty uses
    Num  anything else (fractions, -0, infinities, integers beyond 512 bits or with fewer
         bits of precision than their size): an `mpfr` whose precision is go-cty's

A Python int stands for go-cty's 512-bit literal integers; an integer made by a function
(64 bits in go-cty) is an int too, so a quotient of two such integers carries 512 bits here
where go-cty carries 64 (`length(a) / length(b)`): the only place the two differ.

Nothing here raises anything but `NumberError` (a user error with Terraform's wording) or
`NumberRangeError` (a number beyond what tfconsole formats: see `MAX_DECIMAL_EXPONENT`).
"""
from __future__ import annotations

import math
import re
from typing import Any


class _Gmpy2:
    """gmpy2 until it is first needed: importing it (and the importlib.metadata it loads) costs
    every command 30 ms, and most configurations never hold a number that is not a small
    integer. The first use binds this module's `gmpy2`, `mpfr` and `mpz` to the real ones."""

    def __getattr__(self, name: str) -> Any:
        return getattr(_load_gmpy2(), name)


def _load_gmpy2() -> Any:
    import gmpy2 as real

    g = globals()
    g["gmpy2"], g["mpfr"], g["mpz"] = real, real.mpfr, real.mpz
    return real


gmpy2: Any = _Gmpy2()


def mpfr(*args: Any, **kwargs: Any) -> Any:  # replaced by gmpy2.mpfr on first use
    return _load_gmpy2().mpfr(*args, **kwargs)


def mpz(*args: Any, **kwargs: Any) -> Any:  # replaced by gmpy2.mpz on first use
    return _load_gmpy2().mpz(*args, **kwargs)


__all__ = [
    "Num", "NumberError", "NumberRangeError", "is_number", "parse", "parse_literal", "from_float64",
    "from_bigint", "add", "sub", "mul", "div", "mod", "neg", "absolute", "compare", "equal", "floor",
    "ceil", "text", "wire", "wire_text", "to_float64", "to_int", "is_integer", "is_finite", "sign", "hash_key",
    "MAX_DECIMAL_EXPONENT", "POS_INF", "NEG_INF", "NEG_ZERO",
]

PREC = 512                      # go-cty's precision for numbers parsed from text
_INT_LIMIT = 1 << PREC          # ints below this in magnitude are exact at 512 bits
_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1

# go-cty has no bound; decimal text of 1e999999999 would be a billion digits (Terraform spends
# seconds per million digits and gigabytes beyond). A number whose magnitude needs a decimal
# exponent beyond this is refused where it is made, with this limit named in the error.
MAX_DECIMAL_EXPONENT = 1_000_000
_MAX_BIN_EXP = int(MAX_DECIMAL_EXPONENT * 3.3219280948873626) + 1


class NumberError(ValueError):
    """A number operation Terraform refuses; the message is its wording."""


class NumberRangeError(NumberError):
    """A number too large or too small for tfconsole to carry (see MAX_DECIMAL_EXPONENT)."""


_CTX: dict[int, Any] = {}


def _ctx(prec: int) -> Any:
    c = _CTX.get(prec)
    if c is None:
        c = gmpy2.context(precision=prec, round=gmpy2.RoundToNearest,
                          emax=gmpy2.get_emax_max(), emin=gmpy2.get_emin_min())
        _CTX[prec] = c
    return c



class Num:
    """A number that is not a small exact integer: an mpfr at go-cty's precision.
    Immutable; equality and hashing follow go-cty's rawNumberEqual."""

    __slots__ = ("f", "_text")

    def __init__(self, f: Any):
        self.f = f
        self._text: str | None = None

    @property
    def precision(self) -> int:
        return self.f.precision

    def __repr__(self) -> str:
        return f"Num({text(self)}@{self.f.precision})"

    def __str__(self) -> str:
        return text(self)

    def __eq__(self, other: object) -> bool:
        if type(other) is Num or type(other) is int:
            return equal(self, other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self) -> int:
        return hash(hash_key(self))

    # ordering compares exact values (go-cty's Cmp), for sorting and range checks
    def __lt__(self, other: Any) -> bool:
        return compare(self, _coerce(other)) < 0

    def __le__(self, other: Any) -> bool:
        return compare(self, _coerce(other)) <= 0

    def __gt__(self, other: Any) -> bool:
        return compare(self, _coerce(other)) > 0

    def __ge__(self, other: Any) -> bool:
        return compare(self, _coerce(other)) >= 0

    def __float__(self) -> float:
        return to_float64(self)

    def __int__(self) -> int:
        """Truncated toward zero (big.Float.Int); infinities have no integer."""
        if not gmpy2.is_finite(self.f):
            raise NumberError("value must be a whole number, between -9223372036854775808 and 9223372036854775807")
        return int(_ctx(self.f.precision).trunc(self.f))

    def __neg__(self) -> Any:
        return neg(self)

    def __abs__(self) -> Any:
        return absolute(self)


def _coerce(v: Any) -> Any:
    if type(v) is int or type(v) is Num:
        return v
    if isinstance(v, float):
        return from_float64(v)
    if isinstance(v, int) and not isinstance(v, bool):
        return int(v)
    raise TypeError(f"not a number: {v!r}")


_SPECIAL: dict[str, Num] = {}
_SPECIAL_TEXT = {"POS_INF": "inf", "NEG_INF": "-inf", "NEG_ZERO": "-0"}


def _special(name: str) -> Num:
    """POS_INF, NEG_INF or NEG_ZERO: made once, when first needed (they need gmpy2)."""
    n = _SPECIAL.get(name)
    if n is None:
        n = _SPECIAL[name] = Num(mpfr(_SPECIAL_TEXT[name], PREC))
    return n


def __getattr__(name: str) -> Any:
    if name in _SPECIAL_TEXT:
        return _special(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def is_number(v: Any) -> bool:
    t = type(v)
    return t is int or t is Num


# ---------------------------------------------------------------------------
# making numbers


def _exact(n: int) -> Any:
    """An mpfr holding integer n exactly."""
    return mpfr(n, max(abs(n).bit_length(), 2))


def _mp(v: Any) -> Any:
    """The operand for gmpy2: the mpfr of a Num, an int as it is (gmpy2's context operations
    take ints exactly at their precision, never below 512 bits here, where every int fits)."""
    if type(v) is Num:
        return v.f
    return v


def _prec(v: Any) -> int:
    return v.f.precision if type(v) is Num else PREC


def _check_range(f: Any) -> None:
    if f and gmpy2.is_finite(f):
        top = gmpy2.get_exp(f)
        if top > _MAX_BIN_EXP or top < -_MAX_BIN_EXP:
            raise NumberRangeError(
                f"number out of range: tfconsole supports magnitudes between 1e-{MAX_DECIMAL_EXPONENT} "
                f"and 1e{MAX_DECIMAL_EXPONENT}")


def _norm(f: Any) -> Any:
    """The canonical number for an mpfr result: a plain int when that loses nothing."""
    if gmpy2.is_integer(f) and not (f == 0 and gmpy2.is_signed(f)):
        if f == 0:
            return 0
        n = int(f)
        if -_INT_LIMIT < n < _INT_LIMIT and abs(n).bit_length() <= f.precision:
            return n
    _check_range(f)
    return Num(f)


def from_float64(x: float) -> Any:
    """go-cty's NumberFloatVal: a float64 at 53 bits. NaN is refused as go-cty panics on it."""
    if x != x:
        raise NumberError("NaN is not a number")
    if x == 0 and math.copysign(1.0, x) < 0:
        return Num(mpfr("-0", 53))
    if math.isinf(x):
        return Num(mpfr(x, 53))
    if x == int(x) and abs(x) < 2 ** 53:
        return int(x)
    return _norm(mpfr(x, 53))


def from_bigint(n: int) -> Any:
    """big.Float.SetInt: an integer at max(64, its bit length) bits, exact."""
    if -_INT_LIMIT < n < _INT_LIMIT:
        return n
    f = mpfr(n, max(64, abs(n).bit_length()))
    _check_range(f)
    return Num(f)


# The accepted text of big.Float.Parse in base 10 (what ParseNumberVal accepts): an optional
# sign, a mantissa with an optional point, an optional exponent; or an infinity.
_NUMBER_RE = re.compile(r"([+-]?)(?:(\d+)\.?(\d*)|\.(\d+))(?:[eE]([+-]?\d+))?\Z")
_INF_RE = re.compile(r"[+-]?[Ii]nf\Z")


def parse(s: str) -> Any:
    """go-cty's ParseNumberVal: a decimal string to a number at 512 bits, rounded as Go's
    big.Float.Parse rounds it. Raises NumberError("a number is required")."""
    if _INF_RE.match(s):
        return _special("NEG_INF") if s[0] == "-" else _special("POS_INF")
    m = _NUMBER_RE.match(s)
    if m is None:
        raise NumberError("a number is required")
    sign, ip, fp, only_frac, exp_text = m.groups()
    if only_frac is not None:
        ip, fp = "", only_frac
    digits = (ip + fp).lstrip("0")
    if len(exp_text or "") > 12:
        # Go scans the exponent into an int64 and then refuses binary exponents beyond int32
        raise NumberError("a number is required")
    exp10 = int(exp_text or 0) - len(fp)
    if not digits:
        return _special("NEG_ZERO") if sign == "-" else 0
    if exp10 >= 0 and len(digits) + exp10 <= 150:
        n = int(digits) * 10 ** exp10
        if n < _INT_LIMIT:
            return -n if sign == "-" else n
    top = len(digits) + exp10  # decimal magnitude
    if top > MAX_DECIMAL_EXPONENT + 1 or top < -MAX_DECIMAL_EXPONENT:
        raise NumberRangeError(
            f"number out of range: tfconsole supports magnitudes between 1e-{MAX_DECIMAL_EXPONENT} "
            f"and 1e{MAX_DECIMAL_EXPONENT}")
    f = _go_parse(mpz(digits), exp10)
    if sign == "-":
        f = _ctx(f.precision).minus(f)
    return _norm(f)


def _go_parse(mant: Any, exp10: int) -> Any:
    """mant * 10**exp10 rounded to 512 bits the way big.Float.scan does it: the exact mantissa
    times (or over) 5**|exp10| computed at 576 bits, the power of two applied exactly."""
    c = _ctx(PREC)
    m = mpfr(mant, max(int(mant).bit_length(), 2))
    if exp10 == 0:
        return c.plus(m)
    m = _ctx(m.precision).mul_2exp(m, exp10)  # exact: only the exponent moves
    p5 = _go_pow5(abs(exp10), PREC + 64)
    return c.div(m, p5) if exp10 < 0 else c.mul(m, p5)


_POW5_TAB_MAX = 27  # 5**27 is the largest power of five in a uint64


def _go_pow5(n: int, prec: int) -> Any:
    """big.Float.pow5 at precision prec: exact up to 5**27, then square-and-multiply with the
    running product rounded to prec bits and the square to prec + 64 bits."""
    if n <= _POW5_TAB_MAX:
        return mpfr(5 ** n, prec)
    z = mpfr(5 ** _POW5_TAB_MAX, prec)
    n -= _POW5_TAB_MAX
    cz, cf = _ctx(prec), _ctx(prec + 64)
    f = mpfr(5, prec + 64)
    while n > 0:
        if n & 1:
            z = cz.mul(z, f)
        f = cf.mul(f, f)
        n >>= 1
    return z


def parse_literal(s: str) -> Any:
    """A number literal in configuration (HCL uses ParseNumberVal)."""
    return parse(s)


# ---------------------------------------------------------------------------
# arithmetic (go-cty's Value.Add, Subtract, Multiply, Divide, Modulo, Negate, Absolute)


def add(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        r = a + b
        if -_INT_LIMIT < r < _INT_LIMIT:
            return r
    fa, fb = _mp(a), _mp(b)
    if gmpy2.is_infinite(fa) and gmpy2.is_infinite(fb) and gmpy2.is_signed(fa) != gmpy2.is_signed(fb):
        raise NumberError("can't compute sum of opposing infinities")
    return _norm(_ctx(max(_prec(a), _prec(b))).add(fa, fb))


def sub(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        r = a - b
        if -_INT_LIMIT < r < _INT_LIMIT:
            return r
    fa, fb = _mp(a), _mp(b)
    if gmpy2.is_infinite(fa) and gmpy2.is_infinite(fb) and gmpy2.is_signed(fa) == gmpy2.is_signed(fb):
        raise NumberError("can't subtract infinity from itself")
    return _norm(_ctx(max(_prec(a), _prec(b))).sub(fa, fb))


def neg(a: Any) -> Any:
    if type(a) is int:
        return -a if a else _special("NEG_ZERO")
    return _norm(_ctx(a.f.precision).minus(a.f))


def absolute(a: Any) -> Any:
    if type(a) is int:
        return -a if a < 0 else a
    return _norm(_ctx(a.f.precision).abs(a.f))


def mul(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        r = a * b
        if r == 0:
            return _special("NEG_ZERO") if (a < 0 or b < 0) else 0
        if -_INT_LIMIT < r < _INT_LIMIT:
            return r
    fa, fb = _mp(a), _mp(b)
    if (gmpy2.is_infinite(fa) and fb == 0) or (gmpy2.is_infinite(fb) and fa == 0):
        raise NumberError("can't multiply zero by infinity")
    # go-cty: the product at 512 bits, then its precision the larger of the operands' and
    # the bits the product needs
    r = _ctx(PREC).mul(fa, fb)
    prec = max(_prec(a), _prec(b), _min_prec(r))
    if prec != r.precision:
        r = mpfr(r, prec)
    return _norm(r)


def _min_prec(f: Any) -> int:
    """big.Float.MinPrec: the bits needed to represent f exactly (0 for zero and infinities)."""
    if not f or not gmpy2.is_finite(f):
        return 0
    m, _e = f.as_mantissa_exp()
    m = abs(int(m))
    return m.bit_length() - ((m & -m).bit_length() - 1)


def div(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int and b:
        q, r = divmod(a, b)
        if not r:
            return _special("NEG_ZERO") if (q == 0 and (a < 0) != (b < 0)) else q
        # a fraction of two ints below 2**512: neither whole nor out of range
        return Num(_ctx(PREC).div(a, b))
    fa, fb = _mp(a), _mp(b)
    if (fa == 0 and fb == 0) or (gmpy2.is_infinite(fa) and gmpy2.is_infinite(fb)):
        raise NumberError("can't divide zero by zero or infinity by infinity")
    if fb == 0:
        # big.Float.Quo: x / ±0 is an infinity whose sign is the product of the signs
        negative = gmpy2.is_signed(fa) != gmpy2.is_signed(fb)
        return _special("NEG_INF") if negative else _special("POS_INF")
    return _norm(_ctx(max(_prec(a), _prec(b))).div(fa, fb))


def mod(a: Any, b: Any) -> Any:
    """go-cty's Modulo: a - trunc(a / b) * b, computed at a's precision; a % 0 is a."""
    if type(a) is int and type(b) is int:
        if b == 0:
            return a
        r = abs(a) % abs(b)
        return -r if a < 0 else r
    fa, fb = _mp(a), _mp(b)
    # go-cty's shortcut for infinite operands compares with its own PositiveInfinity object,
    # which no computed value is; so an infinity goes down the general path and fails there
    if fb == 0:
        return a
    if gmpy2.is_infinite(fa):
        if gmpy2.is_infinite(fb):
            raise NumberError("can't use modulo with zero and infinity")
        raise NumberError("panic in function implementation: runtime error: invalid memory address "
                          "or nil pointer dereference")
    if gmpy2.is_infinite(fb):
        raise NumberError("can't use modulo with zero and infinity")
    pa = _prec(a)
    rat = _ctx(max(pa, _prec(b))).div(fa, fb)
    q = int(_ctx(rat.precision).trunc(rat))
    c = _ctx(pa)
    work = c.plus(mpfr(q, max(abs(q).bit_length(), 2)))
    work = c.mul(fb, work)
    return _norm(c.sub(fa, work))


def compare(a: Any, b: Any) -> int:
    """-1, 0 or 1 as a is below, equal to or above b in exact value (-0 equals 0)."""
    if type(a) is int and type(b) is int:
        return (a > b) - (a < b)
    fa, fb = _mp(a), _mp(b)
    return (fa > fb) - (fa < fb)


def is_finite(v: Any) -> bool:
    return type(v) is int or bool(gmpy2.is_finite(v.f))


def is_integer(v: Any) -> bool:
    return type(v) is int or bool(gmpy2.is_integer(v.f))


def sign(v: Any) -> int:
    if type(v) is int:
        return (v > 0) - (v < 0)
    return (v.f > 0) - (v.f < 0)


def equal(a: Any, b: Any) -> bool:
    """go-cty's rawNumberEqual: integers compare exactly; other numbers are equal when their
    shortest decimal texts are ('-0' counting as '0')."""
    if type(a) is int and type(b) is int:
        return a == b
    ia, ib = is_integer(a), is_integer(b)
    if ia != ib:
        return False
    if sign(a) != sign(b):
        return False
    if ia:
        return compare(a, b) == 0
    return text(a) == text(b)


def hash_key(v: Any) -> Any:
    """A hashable key equal exactly when `equal` says so (an int for whole numbers)."""
    if type(v) is int:
        return v
    if gmpy2.is_integer(v.f):
        return int(v.f)
    return ("n", text(v))


def floor(v: Any) -> Any:
    if type(v) is int or not gmpy2.is_finite(v.f) or gmpy2.is_integer(v.f):
        return v
    return _set_int(v.f, int(_ctx(v.f.precision).floor(v.f)))


def ceil(v: Any) -> Any:
    if type(v) is int or not gmpy2.is_finite(v.f) or gmpy2.is_integer(v.f):
        return v
    return _set_int(v.f, int(_ctx(v.f.precision).ceil(v.f)))


def _set_int(f: Any, n: int) -> Any:
    """f.SetInt(n): n rounded to f's precision (so the result keeps f's precision)."""
    if n == 0:
        # SetInt of zero gives +0 whatever f's sign was
        return 0
    return _norm(_ctx(f.precision).plus(_exact(n)))


# ---------------------------------------------------------------------------
# conversions out


def to_float64(v: Any) -> float:
    """big.Float.Float64: nearest float64, overflowing to an infinity."""
    if type(v) is int:
        try:
            return float(v)
        except OverflowError:
            return math.inf if v > 0 else -math.inf
    return float(v.f)


def to_int(v: Any) -> int | None:
    """The exact integer value, or None for a fraction or an infinity."""
    if type(v) is int:
        return v
    if gmpy2.is_finite(v.f) and gmpy2.is_integer(v.f):
        return int(v.f)
    return None


def wire(v: Any) -> Any:
    """The number after go-cty's msgpack round trip, which every planned or applied value takes
    in Terraform: int64 stays exact, a float64 becomes 53-bit, anything else goes as its text
    and comes back parsed at 512 bits."""
    if type(v) is int:
        return v
    f = v.f
    if gmpy2.is_infinite(f):
        return _special("POS_INF") if f > 0 else _special("NEG_INF")
    if gmpy2.is_integer(f):
        n = int(f)
        if _I64_MIN <= n <= _I64_MAX:
            return n
    else:
        d = float(f)
        if mpfr(d, 53) == f:
            return from_float64(d)
    return parse(text(v))


def wire_text(v: Any) -> str:
    """The digits Terraform writes to state and plan JSON for this number."""
    if type(v) is int:
        return str(v) if -_WIRE_FAST < v < _WIRE_FAST else _int_text(v)
    return text(wire(v))


_WIRE_FAST = 10 ** 4000


def _int_text(n: int) -> str:
    return mpz(n).digits(10)


# ---------------------------------------------------------------------------
# Text('f', -1): the shortest decimal that identifies the value at its precision


def text(v: Any) -> str:
    """big.Float.Text('f', -1): no exponent, the fewest digits that parse back to the same
    value at the number's precision ("+Inf", "-Inf" and "-0" as Go writes them)."""
    if type(v) is int:
        return str(v) if -_WIRE_FAST < v < _WIRE_FAST else _int_text(v)
    t = v._text
    if t is None:
        t = _go_text(v.f)
        v._text = t
    return t


def _go_text(f: Any) -> str:
    negative = bool(gmpy2.is_signed(f))
    if gmpy2.is_infinite(f):
        return "-Inf" if negative else "+Inf"
    if f == 0:
        return "-0" if negative else "0"
    m, e = f.as_mantissa_exp()
    m, e = abs(int(m)), int(e)
    digits, dexp = _shortest(m, e, f.precision)
    body = _fmt_f(digits, dexp)
    return "-" + body if negative else body


def _decimal(m: int, shift: int) -> tuple[str, int]:
    """The exact decimal of m * 2**shift: (digits without trailing zeros, exp) meaning
    0.digits * 10**exp (Go's big.decimal)."""
    if shift < 0:
        tz = (m & -m).bit_length() - 1
        s = min(-shift, tz)
        m >>= s
        shift += s
    if shift >= 0:
        s = mpz(m << shift).digits(10)
        exp = len(s)
    else:
        k = -shift
        s = (mpz(m) * mpz(5) ** k).digits(10)
        exp = len(s) - k
    stripped = s.rstrip("0")
    return stripped, (exp if stripped else 0)


def _shortest(m: int, e: int, prec: int) -> tuple[str, int]:
    """Go's roundShortest on the exact decimal of m * 2**e at precision prec."""
    d, dexp = _decimal(m, e)
    # the mantissa with prec + 1 bits, so that its lowest bit is half an ulp
    s = m.bit_length() - (prec + 1)
    mant = m >> s if s > 0 else m << -s
    exp = e + s
    lower, _ = _decimal(mant - 1, exp)
    upper, _ = _decimal(mant + 1, exp)
    inclusive = (mant & 2) == 0
    nl, nu = len(lower), len(upper)
    for i, ch in enumerate(d):
        lo = lower[i] if i < nl else "0"
        up = upper[i] if i < nu else "0"
        okdown = lo != ch or (inclusive and i + 1 == nl)
        okup = ch != up and (inclusive or chr(ord(ch) + 1) < up or i + 1 < nu)
        if okdown and okup:
            return _round(d, dexp, i + 1)
        if okdown:
            return _round_down(d, dexp, i + 1)
        if okup:
            return _round_up(d, dexp, i + 1)
    return d, dexp


def _round(d: str, exp: int, n: int) -> tuple[str, int]:
    if n < 0 or n >= len(d):
        return d, exp
    if d[n] == "5" and n + 1 == len(d):
        up = n > 0 and (ord(d[n - 1]) - 48) & 1 != 0
    else:
        up = d[n] >= "5"
    return _round_up(d, exp, n) if up else _round_down(d, exp, n)


def _round_up(d: str, exp: int, n: int) -> tuple[str, int]:
    if n < 0 or n >= len(d):
        return d, exp
    while n > 0 and d[n - 1] >= "9":
        n -= 1
    if n == 0:
        return "1", exp + 1
    return d[:n - 1] + chr(ord(d[n - 1]) + 1), exp


def _round_down(d: str, exp: int, n: int) -> tuple[str, int]:
    if n < 0 or n >= len(d):
        return d, exp
    t = d[:n].rstrip("0")
    return t, (exp if t else 0)


def _fmt_f(d: str, exp: int) -> str:
    """Go's fmtF with the shortest precision: the digits placed around the decimal point."""
    prec = max(len(d) - exp, 0)
    if exp > 0:
        ip = d[:exp] + "0" * max(exp - len(d), 0)
    else:
        ip = "0"
    if prec <= 0:
        return ip
    # digits d[exp:exp+prec], with zeros where that reaches outside d
    frac = "0" * min(-exp, prec) + d[max(exp, 0):exp + prec] if exp < 0 else d[exp:exp + prec]
    return ip + "." + frac.ljust(prec, "0")


# ---------------------------------------------------------------------------
# big.Float.Append for the 'e', 'f' and 'g' verbs (format() and %v use these)


def go_append(v: Any, verb: str, prec: int) -> str:
    """big.Float.Text(verb, prec): verb one of e E f g G; prec < 0 means shortest."""
    f = v.f if type(v) is Num else _exact(v)
    negative = bool(gmpy2.is_signed(f))
    sign = "-" if negative else ""
    if gmpy2.is_infinite(f):
        return "-Inf" if negative else "+Inf"
    if f == 0:
        d, dexp = "", 0
    else:
        m, e = f.as_mantissa_exp()
        m, e = abs(int(m)), int(e)
        if prec < 0:
            d, dexp = _shortest(m, e, _prec(v) if type(v) is Num else max(m.bit_length(), 64))
        else:
            d, dexp = _decimal(m, e)
    shortest = prec < 0
    lower = verb.lower()
    if shortest:
        prec = len(d) - 1 if lower == "e" else max(len(d) - dexp, 0) if lower == "f" else len(d)
    elif lower == "e":
        d, dexp = _round(d, dexp, 1 + prec)
    elif lower == "f":
        d, dexp = _round(d, dexp, dexp + prec)
    else:
        if prec == 0:
            prec = 1
        d, dexp = _round(d, dexp, prec)
    if lower == "e":
        return sign + _fmt_e(d, dexp, prec, verb)
    if lower == "f":
        return sign + _fmt_f_prec(d, dexp, prec)
    eprec = prec
    if eprec > len(d) and len(d) >= dexp:
        eprec = len(d)
    if shortest:
        eprec = 6
    exp = dexp - 1
    if exp < -4 or exp >= eprec:
        if prec > len(d):
            prec = len(d)
        return sign + _fmt_e(d, dexp, prec - 1, "e" if verb == "g" else "E")
    if prec > dexp:
        prec = len(d)
    return sign + _fmt_f_prec(d, dexp, max(prec - dexp, 0))


def _fmt_e(d: str, dexp: int, prec: int, e: str) -> str:
    out = d[0] if d else "0"
    if prec > 0:
        out += "." + d[1:prec + 1].ljust(prec, "0")
    exp = dexp - 1 if d else 0
    return f"{out}{e}{'-' if exp < 0 else '+'}{abs(exp):02d}"


def _fmt_f_prec(d: str, dexp: int, prec: int) -> str:
    ip = (d[:dexp] + "0" * max(dexp - len(d), 0)) if dexp > 0 else "0"
    if prec <= 0:
        return ip
    frac = "".join(d[j] if 0 <= j < len(d) else "0" for j in range(dexp, dexp + prec)) \
        if prec < 4096 else _frac_digits(d, dexp, prec)
    return ip + "." + frac


def _frac_digits(d: str, dexp: int, prec: int) -> str:
    lead = "0" * min(max(-dexp, 0), prec)
    body = d[max(dexp, 0):max(dexp, 0) + prec - len(lead)]
    return (lead + body).ljust(prec, "0")
