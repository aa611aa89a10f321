"""Go-flavoured formatting and text helpers: format verbs, regular expressions, graphemes."""
from __future__ import annotations

import json
import math
import re
import unicodedata
from decimal import Decimal
from typing import Any

from ..values import (
    Null, TList, TMap, TSet, Unknown, convert, ConversionError, format_number, is_null, to_json_plain,
    type_of,
)
from ..types import BOOL, NUMBER, STRING
from . import FunctionError


# ---------------------------------------------------------------------------
# JSON text as Go's encoding/json writes it


def go_json_string(s: str, escape_html: bool = True) -> str:
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\b":
            out.append("\\b")
        elif ch == "\f":
            out.append("\\f")
        elif o < 0x20:
            out.append(f"\\u{o:04x}")
        elif escape_html and ch in "<>&":
            out.append(f"\\u{o:04x}")
        elif o in (0x2028, 0x2029):
            out.append(f"\\u{o:04x}")
        elif 0xD800 <= o <= 0xDFFF:
            out.append("\\ufffd")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def json_number(n: Any) -> str:
    return format_number(n)


def go_json(v: Any, escape_html: bool = True) -> str:
    """Compact JSON of a wholly known, unmarked value (cty's marshalling, keys sorted)."""
    if v is None or type(v) is Null:
        return "null"
    t = type(v)
    if t is bool:
        return "true" if v else "false"
    if t is str:
        return go_json_string(v, escape_html)
    if t is int or t is float:
        if isinstance(v, float) and not math.isfinite(v):
            raise FunctionError("value is infinite and cannot be encoded")
        return json_number(v)
    if t is dict or t is TMap:
        return "{" + ",".join(go_json_string(k, escape_html) + ":" + go_json(v[k], escape_html)
                              for k in sorted(v)) + "}"
    if isinstance(v, list):
        return "[" + ",".join(go_json(x, escape_html) for x in v) + "]"
    if t is Unknown:
        raise FunctionError("value is not known")
    return json.dumps(to_json_plain(v))


# ---------------------------------------------------------------------------
# grapheme clusters (an approximation of Unicode's extended grapheme clusters)

_ZWJ = "\u200d"


def _extends(ch: str) -> bool:
    o = ord(ch)
    if unicodedata.combining(ch):
        return True
    cat = unicodedata.category(ch)
    if cat in ("Mn", "Me", "Mc"):
        return True
    if 0xFE00 <= o <= 0xFE0F or 0x1F3FB <= o <= 0x1F3FF or 0xE0020 <= o <= 0xE007F:
        return True
    return ch == _ZWJ


def graphemes(s: str) -> list[str]:
    out: list[str] = []
    i = 0
    n = len(s)
    while i < n:
        j = i + 1
        if s[i] == "\r" and j < n and s[j] == "\n":
            out.append("\r\n")
            i = j + 1
            continue
        ri = 0x1F1E6 <= ord(s[i]) <= 0x1F1FF
        if ri and j < n and 0x1F1E6 <= ord(s[j]) <= 0x1F1FF:
            j += 1
        while j < n and s[i] not in "\r\n" and _extends(s[j]):
            if s[j] == _ZWJ and j + 1 < n:
                j += 2
            else:
                j += 1
        out.append(s[i:j])
        i = j
    return out


# ---------------------------------------------------------------------------
# format()

_INT_VERBS = "dboxX"
_FLOAT_VERBS = "eEfgG"


def _shortest_digits(x: Any) -> tuple[str, int, bool]:
    """(digits, decimal point position, negative) of the shortest decimal form of x:
    x = 0.DIGITS * 10**dp."""
    neg = x < 0
    if isinstance(x, int):
        t = str(abs(x))
        return (t.rstrip("0") or "0"), len(t), neg
    d = Decimal(repr(abs(float(x)))).normalize()
    _, digits, exp = d.as_tuple()
    ds = "".join(map(str, digits))
    return ds, len(ds) + exp, neg


def _fmt_e_digits(ds: str, dp: int, neg: bool, upper: bool) -> str:
    exp = dp - 1
    mant = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
    e = "E" if upper else "e"
    sign = "-" if exp < 0 else "+"
    return ("-" if neg else "") + f"{mant}{e}{sign}{abs(exp):02d}"


def _fmt_f_digits(ds: str, dp: int, neg: bool) -> str:
    if dp <= 0:
        s = "0." + "0" * (-dp) + ds
    elif dp >= len(ds):
        s = ds + "0" * (dp - len(ds))
    else:
        s = ds[:dp] + "." + ds[dp:]
    return ("-" if neg else "") + s


def go_float(x: Any, verb: str, prec: int | None, sharp: bool = False) -> str:
    if isinstance(x, float) and math.isinf(x):
        return "+Inf" if x > 0 else "-Inf"
    if verb in "gG":
        if prec is None:
            ds, dp, neg = _shortest_digits(x)
            if ds == "0":
                return "0"
            exp = dp - 1
            if exp < -4 or exp >= 6:
                return _fmt_e_digits(ds, dp, neg, verb == "G")
            return _fmt_f_digits(ds, dp, neg)
        p = prec if prec > 0 else 1
        s = ("%." + str(p) + ("G" if verb == "G" else "g")) % float(x)
        return s
    if verb in "eE":
        p = 6 if prec is None else prec
        if isinstance(x, int) and abs(x) > 2**53:
            s = f"{Decimal(x):.{p}e}"
        else:
            s = f"{float(x):.{p}e}"
        return s.upper() if verb == "E" else s
    # f
    p = 6 if prec is None else prec
    if isinstance(x, int):
        return f"{Decimal(x):.{p}f}"
    return f"{float(x):.{p}f}"


def _pad(s: str, width: int | None, minus: bool, zero: bool, numeric: bool) -> str:
    if width is None or len(s) >= width:
        return s
    if minus:
        return s + " " * (width - len(s))
    if zero and numeric:
        sign = ""
        if s[:1] in "+- ":
            sign, s = s[0], s[1:]
        return sign + "0" * (width - len(sign) - len(s)) + s
    if zero:
        return "0" * (width - len(s)) + s
    return " " * (width - len(s)) + s


def _value_v(v: Any, sharp: bool) -> str:
    t = type(v)
    if is_null(v):
        return "null"
    if t is str:
        return go_json_string(v) if sharp else v
    if t is bool:
        return "true" if v else "false"
    if t is int or t is float:
        return format_number(v)
    return go_json(v)


def go_format(fmt: str, args: list) -> str:
    out: list[str] = []
    i = 0
    n = len(fmt)
    argi = 0
    maxused = 0
    verbs = 0
    while i < n:
        c = fmt[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        start = i
        i += 1
        if i >= n:
            raise FunctionError(f"invalid format string starting at offset {i}")
        if fmt[i] == "%":
            out.append("%")
            i += 1
            continue
        plus = minus = sharp = space = zero = False
        while i < n and fmt[i] in "+-# 0":
            f = fmt[i]
            plus |= f == "+"
            minus |= f == "-"
            sharp |= f == "#"
            space |= f == " "
            zero |= f == "0"
            i += 1
        if i < n and fmt[i] == "[":
            j = fmt.find("]", i)
            if j < 0 or not fmt[i + 1:j].isdigit():
                raise FunctionError(f"invalid format string starting at offset {i}")
            argi = int(fmt[i + 1:j]) - 1
            i = j + 1
        width = None
        ws = i
        while i < n and fmt[i].isdigit():
            i += 1
        if i > ws:
            width = int(fmt[ws:i])
        prec = None
        if i < n and fmt[i] == ".":
            i += 1
            ps = i
            while i < n and fmt[i].isdigit():
                i += 1
            prec = int(fmt[ps:i]) if i > ps else 0
        if i >= n:
            raise FunctionError(f"invalid format string starting at offset {i}")
        verb = fmt[i]
        i += 1
        spec = fmt[start:i]
        verbs += 1
        if verb not in "vstqdboxXeEfgG":
            raise FunctionError(f"unsupported format verb '{verb}' in \"{spec}\" at offset {start}")
        if argi >= len(args) or argi < 0:
            raise FunctionError(f'not enough arguments for "{spec}" at {start}: need index {argi + 1} '
                                f"but have {len(args)} total")
        arg = args[argi]
        argi += 1
        maxused = max(maxused, argi)
        out.append(_format_one(verb, spec, start, arg, plus, minus, sharp, space, zero, width, prec))
    if maxused < len(args):
        if verbs == 0:
            raise FunctionError("too many arguments; no verbs in format string", 1)
        raise FunctionError(f"too many arguments; only {maxused} used by format string", 1)
    return "".join(out)


def _format_one(verb, spec, start, arg, plus, minus, sharp, space, zero, width, prec) -> str:
    def bad(msg: str) -> FunctionError:
        return FunctionError(f'unsupported value for "{spec}" at {start}: {msg}')

    if verb == "v":
        s = _value_v(arg, sharp)
        return _pad(s, width, minus, zero, False)
    if is_null(arg):
        raise bad("null value cannot be formatted")
    if verb in "sq":
        try:
            s = convert(arg, STRING)
        except ConversionError:
            raise bad(f"string required, but have {type_of(arg).friendly()}") from None
        if prec is not None:
            s = s[:prec]
        if verb == "q":
            s = go_json_string(s, False)
        return _pad(s, width, minus, zero, False)
    if verb == "t":
        try:
            b = convert(arg, BOOL)
        except ConversionError:
            raise bad("a bool is required") from None
        return "true" if b else "false"
    try:
        x = convert(arg, NUMBER)
    except ConversionError:
        raise bad("a number is required") from None
    if verb in _INT_VERBS:
        if isinstance(x, float):
            if not math.isfinite(x) or x != int(x):
                raise bad("an integer is required")
            x = int(x)
        neg = x < 0
        a = abs(x)
        body = {"d": str, "b": lambda z: format(z, "b"), "o": lambda z: format(z, "o"),
                "x": lambda z: format(z, "x"), "X": lambda z: format(z, "X")}[verb](a)
        if sharp and verb == "o":
            body = "0" + body
        elif sharp and verb in "xX":
            body = "0" + verb + body
        if prec is not None and len(body) < prec:
            body = "0" * (prec - len(body)) + body
        sign = "-" if neg else ("+" if plus else (" " if space else ""))
        return _pad(sign + body, width, minus, zero and prec is None, True)
    s = go_float(x, verb, prec, sharp)
    if not s.startswith("-"):
        if plus:
            s = "+" + s
        elif space:
            s = " " + s
    return _pad(s, width, minus, zero, True)


# ---------------------------------------------------------------------------
# Go RE2 syntax -> Python re

_POSIX = {
    "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ",
    "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9", "graph": "!-~", "lower": "a-z",
    "print": " -~", "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\v\\f\\r ", "upper": "A-Z",
    "word": "0-9A-Za-z_", "xdigit": "0-9A-Fa-f",
}

_UNI = {
    "L": "^\\W\\d_", "Lu": "A-Z\\u00c0-\\u00d6\\u00d8-\\u00de", "Ll": "a-z\\u00df-\\u00f6\\u00f8-\\u00ff",
    "N": "\\d", "Nd": "\\d", "Greek": "\\u0370-\\u03ff", "Han": "\\u4e00-\\u9fff",
    "Latin": "A-Za-z\\u00aa\\u00ba\\u00c0-\\u00d6\\u00d8-\\u00f6\\u00f8-\\u024f",
    "P": "!-/:-@\\[-`{-~\\u00a1-\\u00bf", "S": "$+<->^`|~", "Z": "\\s", "Zs": " \\u00a0",
}


def go_regex(pattern: str) -> re.Pattern:
    """Compile an RE2 pattern as Python's re, translating the syntax that differs."""
    out: list[str] = []
    i = 0
    n = len(pattern)
    in_class = False
    multiline = False
    m = re.match(r"\(\?([imsU]+)\)", pattern)
    if m and "m" in m.group(1):
        multiline = True
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            d = pattern[i + 1]
            if d == "z":
                out.append("\\Z")
                i += 2
                continue
            if d == "Q":
                j = pattern.find("\\E", i + 2)
                lit = pattern[i + 2:] if j < 0 else pattern[i + 2:j]
                out.append(re.escape(lit))
                i = n if j < 0 else j + 2
                continue
            if d in "pP":
                if i + 2 < n and pattern[i + 2] == "{":
                    j = pattern.find("}", i + 3)
                    name = pattern[i + 3:j]
                    nxt = j + 1
                else:
                    name = pattern[i + 2:i + 3]
                    nxt = i + 3
                rng = _UNI.get(name)
                if rng is None:
                    raise FunctionError(f"invalid regexp pattern: invalid character class range in \\{d}{{{name}}}")
                neg = d == "P"
                if name == "L":
                    neg = not neg
                    rng = "\\W\\d_"
                if in_class:
                    if neg:
                        raise FunctionError(f"invalid regexp pattern: unsupported negated class in {pattern}")
                    out.append(rng)
                else:
                    out.append(("[^" if neg else "[") + rng + "]")
                i = nxt
                continue
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            if c == "[" and pattern.startswith("[:", i):
                j = pattern.find(":]", i + 2)
                if j > 0:
                    name = pattern[i + 2:j]
                    neg = name.startswith("^")
                    rng = _POSIX.get(name.lstrip("^"))
                    if rng is not None and not neg:
                        out.append(rng)
                        i = j + 2
                        continue
            if c == "[":
                out.append("\\[")
                i += 1
                continue
            if c == "]":
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            i += 1
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            if i < n and pattern[i] == "]":
                out.append("\\]")
                i += 1
            continue
        if c == "(" and pattern.startswith("(?<", i) and not pattern.startswith("(?<=", i) \
                and not pattern.startswith("(?<!", i):
            out.append("(?P<")
            i += 3
            continue
        if c == "$" and not multiline:
            out.append("(?!(?s:.))")
            i += 1
            continue
        out.append(c)
        i += 1
    text = "".join(out)
    # RE2 flag U (ungreedy) is not in Python; drop it (rare)
    text = re.sub(r"^\(\?([imsU]+)\)", lambda mm: "(?" + mm.group(1).replace("U", "") + ")"
                  if mm.group(1).replace("U", "") else "", text)
    try:
        return re.compile(text)
    except re.error as exc:
        raise FunctionError(f"invalid regexp pattern: {_go_regex_error(exc, pattern, text)}") from None


def _go_regex_error(exc: re.error, pattern: str, text: str) -> str:
    """Python's complaint in the words of Go's regexp/syntax ("CODE in EXPR")."""
    msg = exc.msg
    pos = exc.pos if exc.pos is not None and text == pattern else None
    if msg.startswith("missing ), unterminated subpattern"):
        return f"missing closing ) in {pattern}"
    if msg.startswith("unbalanced parenthesis"):
        return f"unexpected ) in {pattern}"
    if msg.startswith("unterminated character set"):
        return f"missing closing ] in {pattern[pos:] if pos is not None else pattern}"
    if msg.startswith("nothing to repeat"):
        return f"missing argument to repetition operator in {pattern[pos:pos + 1] if pos is not None else pattern}"
    if msg.startswith("multiple repeat"):
        return f"invalid nested repetition operator in {pattern[pos - 1:pos + 1] if pos else pattern}"
    if msg.startswith("bad escape"):
        return f"invalid escape sequence in {pattern[pos:pos + 2] if pos is not None else pattern}"
    return f"{msg} in {pattern}"


def go_expand(template: str, m: re.Match) -> str:
    """Expand Go's regexp replacement template ($1, ${1}, $name, ${name}, $$)."""
    out: list[str] = []
    i = 0
    n = len(template)
    groups = m.re.groupindex
    while i < n:
        c = template[i]
        if c != "$" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        d = template[i + 1]
        if d == "$":
            out.append("$")
            i += 2
            continue
        if d == "{":
            j = template.find("}", i + 2)
            name = template[i + 2:j] if j > 0 else ""
            if j < 0 or not name or not re.fullmatch(r"\w+", name):
                out.append(c)
                i += 1
                continue
            i = j + 1
        else:
            mm = re.match(r"\w+", template[i + 1:])
            if not mm:
                out.append(c)
                i += 1
                continue
            name = mm.group(0)
            i += 1 + len(name)
        if name.isdigit():
            k = int(name)
            if k <= m.re.groups:
                out.append(m.group(k) or "")
        elif name in groups:
            out.append(m.group(name) or "")
    return "".join(out)
