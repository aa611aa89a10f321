"""Date and time functions: formatdate timeadd timecmp timestamp plantimestamp."""
from __future__ import annotations

import datetime as _dt
import re
from decimal import Decimal

from ..types import NUMBER, STRING
from ..values import Unknown
from . import FunctionError, Param, register
from ._util import rfc3339

_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December"]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


class _TS:
    """A parsed timestamp: aware datetime plus nanoseconds."""

    def __init__(self, t: _dt.datetime, nanos: int):
        self.t = t
        self.nanos = nanos


def _err(msg: str, arg: int | None) -> FunctionError:
    return FunctionError(f"not a valid RFC3339 timestamp: {msg}", arg)


def parse_rfc3339(s: str, arg: int | None = 0) -> _TS:
    pos = 0

    def digits(n: int, what: str) -> int:
        nonlocal pos
        seg = s[pos:pos + n]
        if len(seg) < n or not seg.isdigit():
            rest = s[pos:]
            if rest == "":
                raise _err(f"end of string before {what}", arg)
            raise _err(f'cannot use "{rest}" as {what}', arg)
        pos += n
        return int(seg)

    def sep(ch: str) -> None:
        nonlocal pos
        if pos >= len(s) and ch != "T":
            raise _err(f'end of string where "{ch}" is expected', arg)
        if pos >= len(s) or s[pos] != ch:
            if ch == "T":
                raise _err("missing required time introducer 'T'", arg)
            raise _err(f'found "{s[pos:]}" where "{ch}" is expected', arg)
        pos += 1

    year = digits(4, "year")
    sep("-")
    month = digits(2, "month")
    sep("-")
    day = digits(2, "day of month")
    sep("T")
    hour = digits(2, "hour")
    sep(":")
    minute = digits(2, "minute")
    sep(":")
    second = digits(2, "second")
    nanos = 0
    if pos < len(s) and s[pos] == ".":
        m = re.match(r"\.(\d+)", s[pos:])
        if not m:
            raise _err(f'cannot use "{s[pos:]}" as UTC offset', arg)
        frac = m.group(1)
        nanos = int((frac + "000000000")[:9])
        pos += len(m.group(0))
    rest = s[pos:]
    if rest == "Z":
        tz = _dt.timezone.utc
    elif re.fullmatch(r"[+-]\d{2}:\d{2}", rest):
        sign = 1 if rest[0] == "+" else -1
        hh, mm = int(rest[1:3]), int(rest[4:6])
        if hh > 23 or mm > 59:
            raise FunctionError(f"not a valid RFC3339 timestamp: UTC offset out of range", arg)
        tz = _dt.timezone(sign * _dt.timedelta(hours=hh, minutes=mm))
    elif rest == "":
        raise _err("end of string before UTC offset", arg)
    else:
        raise _err(f'cannot use "{rest}" as UTC offset', arg)
    if not 1 <= month <= 12:
        raise FunctionError("not a valid RFC3339 timestamp: month out of range", arg)
    if hour > 23:
        raise FunctionError("not a valid RFC3339 timestamp: hour out of range", arg)
    if minute > 59:
        raise FunctionError("not a valid RFC3339 timestamp: minute out of range", arg)
    if second > 59:
        raise FunctionError("not a valid RFC3339 timestamp: second out of range", arg)
    try:
        t = _dt.datetime(year, month, day, hour, minute, second, tzinfo=tz)
    except ValueError:
        raise FunctionError("not a valid RFC3339 timestamp: day out of range", arg) from None
    return _TS(t, nanos)


def _tokens(spec: str):
    i = 0
    n = len(spec)
    while i < n:
        c = spec[i]
        if c == "'":
            j = i + 1
            lit = []
            while True:
                if j >= n:
                    raise FunctionError("unterminated literal '", 0)
                if spec[j] == "'":
                    if j + 1 < n and spec[j + 1] == "'":
                        lit.append("'")
                        j += 2
                        continue
                    break
                lit.append(spec[j])
                j += 1
            if j == i + 1:
                yield ("lit", "'")
            else:
                yield ("lit", "".join(lit))
            i = j + 1
        elif c.isalpha():
            j = i
            while j < n and spec[j] == c:
                j += 1
            yield ("verb", spec[i:j])
            i = j
        else:
            j = i
            while j < n and not spec[j].isalpha() and spec[j] != "'":
                j += 1
            yield ("lit", spec[i:j])
            i = j


def _offset(t: _dt.datetime, colon: bool) -> str:
    off = int((t.utcoffset() or _dt.timedelta(0)).total_seconds())
    sign = "+" if off >= 0 else "-"
    off = abs(off)
    h, m = off // 3600, (off % 3600) // 60
    return f"{sign}{h:02d}:{m:02d}" if colon else f"{sign}{h:02d}{m:02d}"


@register("formatdate", [Param("format", STRING), Param("time", STRING)], STRING)
def _formatdate(args, ctx):
    spec, ts = args
    t = parse_rfc3339(ts, 1).t
    out = []
    for kind, tok in _tokens(spec):
        if kind == "lit":
            out.append(tok)
            continue
        c, n = tok[0], len(tok)

        def bad(msg: str) -> FunctionError:
            return FunctionError(f'invalid date format verb "{tok}": {msg}', 0)

        if c == "Y":
            if n == 2:
                out.append(f"{t.year % 100:02d}")
            elif n == 4:
                out.append(f"{t.year:04d}")
            else:
                raise bad('year must either be "YY" or "YYYY"')
        elif c == "M":
            if n == 1:
                out.append(str(t.month))
            elif n == 2:
                out.append(f"{t.month:02d}")
            elif n == 3:
                out.append(_MONTHS[t.month - 1][:3])
            elif n == 4:
                out.append(_MONTHS[t.month - 1])
            else:
                raise bad('month must be "M", "MM", "MMM", or "MMMM"')
        elif c == "D":
            if n == 1:
                out.append(str(t.day))
            elif n == 2:
                out.append(f"{t.day:02d}")
            else:
                raise bad('day of month must either be "D" or "DD"')
        elif c == "E":
            if n == 3:
                out.append(_DAYS[t.weekday()][:3])
            elif n == 4:
                out.append(_DAYS[t.weekday()])
            else:
                raise bad('day of week must either be "EEE" or "EEEE"')
        elif c == "h":
            if n == 1:
                out.append(str(t.hour))
            elif n == 2:
                out.append(f"{t.hour:02d}")
            else:
                raise bad('24-hour must either be "h" or "hh"')
        elif c == "H":
            h12 = t.hour % 12 or 12
            if n == 1:
                out.append(str(h12))
            elif n == 2:
                out.append(f"{h12:02d}")
            else:
                raise bad('12-hour must either be "H" or "HH"')
        elif c in "Aa":
            if n != 2:
                raise bad('must be "AA" or "aa"')
            ap = "PM" if t.hour >= 12 else "AM"
            out.append(ap if c == "A" else ap.lower())
        elif c == "m":
            if n == 1:
                out.append(str(t.minute))
            elif n == 2:
                out.append(f"{t.minute:02d}")
            else:
                raise bad('minute must either be "m" or "mm"')
        elif c == "s":
            if n == 1:
                out.append(str(t.second))
            elif n == 2:
                out.append(f"{t.second:02d}")
            else:
                raise bad('second must either be "s" or "ss"')
        elif c == "Z":
            utc = (t.utcoffset() or _dt.timedelta(0)) == _dt.timedelta(0)
            if n == 1:
                out.append("Z" if utc else _offset(t, True))
            elif n == 3:
                out.append("UTC" if utc else _offset(t, False))
            elif n == 4:
                out.append(_offset(t, False))
            elif n == 5:
                out.append(_offset(t, True))
            else:
                raise bad('timezone must be Z, ZZZZ, or ZZZZZ')
        else:
            raise FunctionError(f'invalid date format verb "{tok}": unrecognized verb', 0)
    return "".join(out)


_UNITS = {"ns": 1, "us": 1000, "µs": 1000, "μs": 1000, "ms": 10**6, "s": 10**9, "m": 60 * 10**9,
          "h": 3600 * 10**9}


def parse_duration(s: str) -> int:
    """Go's time.ParseDuration, in nanoseconds."""
    orig = s
    bad = FunctionError(f'time: invalid duration "{orig}"')
    neg = False
    if s and s[0] in "+-":
        neg = s[0] == "-"
        s = s[1:]
    if s == "0":
        return 0
    if s == "":
        raise bad
    total = Decimal(0)
    while s:
        m = re.match(r"(\d*)(?:\.(\d*))?", s)
        if not m or (m.group(1) == "" and not m.group(2)):
            raise bad
        num = Decimal(m.group(1) or "0")
        if m.group(2):
            num += Decimal("0." + m.group(2))
        s = s[m.end():]
        um = re.match(r"[^\d.]+", s)
        if not um:
            raise FunctionError(f'time: missing unit in duration "{orig}"')
        unit = um.group(0)
        if unit not in _UNITS:
            raise FunctionError(f'time: unknown unit "{unit}" in duration "{orig}"')
        total += num * _UNITS[unit]
        s = s[um.end():]
    ns = int(total)
    if ns > (1 << 63) - (0 if neg else 1):  # Go's duration is an int64 of nanoseconds
        raise bad
    return -ns if neg else ns


@register("timeadd", [Param("timestamp", STRING), Param("duration", STRING)], STRING)
def _timeadd(args, ctx):
    ts = parse_rfc3339(args[0], 0)
    ns = parse_duration(args[1])
    total = ts.nanos + ns
    secs, rem = divmod(total, 10**9)
    try:
        t = ts.t + _dt.timedelta(seconds=secs)
    except OverflowError:
        raise FunctionError("the resulting time is outside the years 1 to 9999, the range tfconsole "
                            "represents") from None
    return rfc3339(t)


@register("timecmp", [Param("timestamp_a", STRING), Param("timestamp_b", STRING)], NUMBER)
def _timecmp(args, ctx):
    a = parse_rfc3339(args[0], 0)
    b = parse_rfc3339(args[1], 1)
    ka = (a.t.timestamp(), a.nanos)
    kb = (b.t.timestamp(), b.nanos)
    ka = (int(a.t.timestamp()), a.nanos)
    kb = (int(b.t.timestamp()), b.nanos)
    return (ka > kb) - (ka < kb)


@register("timestamp", [], STRING)
def _timestamp(args, ctx):
    return rfc3339(ctx.now().astimezone(_dt.timezone.utc))


@register("plantimestamp", [], STRING)
def _plantimestamp(args, ctx):
    if ctx.plan_time is None:
        return rfc3339(ctx.now().astimezone(_dt.timezone.utc))
    return rfc3339(ctx.plan_time.astimezone(_dt.timezone.utc))
