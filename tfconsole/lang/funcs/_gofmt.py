"""Go-flavoured formatting and text helpers: format verbs, JSON text, graphemes, Go quoting."""
from __future__ import annotations

import json
import re
from typing import Any


from .. import numbers as N
from ..numbers import Num
from ..values import (
    Null, TList, TMap, TSet, Unknown, convert, ConversionError, is_null, to_json_plain, type_of,
)
from ..types import BOOL, NUMBER, STRING
from . import FunctionError


# ---------------------------------------------------------------------------
# JSON text as Go's encoding/json writes it


def go_json_string(s: str, escape_html: bool = True) -> str:
    if s.isascii() and "\x7f" not in s:
        # the C encoder escapes ASCII as the loop below does (but for DEL, which Go leaves as it
        # is); only HTML's characters differ
        out = _ascii_json(s)
        if escape_html and ("<" in s or ">" in s or "&" in s):
            out = out.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        return out
    return _go_json_string(s, escape_html)


_ascii_json = json.encoder.encode_basestring_ascii  # type: ignore[attr-defined]


def _go_json_string(s: str, escape_html: bool) -> str:
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
    """A number as cty's JSON marshalling writes it (its own precision's shortest digits)."""
    text = N.text(n)
    if text.endswith("Inf"):
        raise FunctionError("cannot serialize infinity as JSON")
    return text


def go_json(v: Any, escape_html: bool = True) -> str:
    """Compact JSON of a wholly known, unmarked value (cty's marshalling, keys sorted)."""
    fast = _plain_json(v, escape_html)
    return fast if fast is not None else _go_json(v, escape_html)


_LONG_DIGITS = re.compile(r"[0-9]{4000}")
_PLAIN_ENCODER = json.JSONEncoder(ensure_ascii=True, check_circular=False, allow_nan=False, sort_keys=True,
                                  separators=(",", ":"))


def _plain_json(v: Any, escape_html: bool) -> str | None:
    """The C encoder's text for a value made only of objects, tuples, lists, maps, strings, bools
    and ints, when it is the text _go_json writes: ASCII only (Go writes other characters as they
    are, the encoder as escapes) and no DEL (escaped by the encoder, not by Go). Sorted keys are in
    the same order: code point order is UTF-8's byte order. None for anything else."""
    if type(v) is not dict and type(v) is not list and not isinstance(v, (dict, list)):
        return None
    try:
        out = _PLAIN_ENCODER.encode(v)
    except (TypeError, ValueError):  # a Num, a null of a type, an unknown...
        return None
    if "\\u" in out or (len(out) >= 4000 and _LONG_DIGITS.search(out)):
        return None  # beyond 4,000 digits numbers.text writes an integer its own way
    if escape_html and ("<" in out or ">" in out or "&" in out):  # only ever inside strings
        out = out.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return out


def _go_json(v: Any, escape_html: bool = True) -> str:
    if v is None or type(v) is Null:
        return "null"
    t = type(v)
    if t is bool:
        return "true" if v else "false"
    if t is str:
        return go_json_string(v, escape_html)
    if t is int or t is Num:
        return json_number(v)
    if t is dict or t is TMap:
        return "{" + ",".join(go_json_string(k, escape_html) + ":" + _go_json(v[k], escape_html)
                              for k in sorted(v)) + "}"
    if isinstance(v, list):
        return "[" + ",".join(_go_json(x, escape_html) for x in v) + "]"
    if t is Unknown:
        raise FunctionError("value is not known")
    return json.dumps(to_json_plain(v))


# ---------------------------------------------------------------------------
# grapheme clusters (Unicode's extended grapheme clusters, as go-textseg splits text)

_GRAPHEME: Any = None


def _grapheme_rx() -> Any:
    """The cluster pattern, compiled on first use: importing `regex` costs every command
    20 ms, and only text beyond ASCII needs it."""
    global _GRAPHEME
    if _GRAPHEME is None:
        import regex

        _GRAPHEME = regex.compile(r"\X")
    return _GRAPHEME


def graphemes(s: str) -> list[str]:
    if s.isascii() and "\r\n" not in s:
        return list(s)
    return _grapheme_rx().findall(s)


def grapheme_count(s: str) -> int:
    if s.isascii() and "\r\n" not in s:
        return len(s)
    return sum(1 for _ in _grapheme_rx().finditer(s))


# ---------------------------------------------------------------------------
# format()

_INT_VERBS = "dboxX"
_FLOAT_VERBS = "eEfgG"


def _pad_text(s: str, width: int | None, minus: bool, zero: bool) -> str:
    """cty's formatPadWidth: width counts grapheme clusters; pads with zeros when asked, on
    the right with the minus flag."""
    if width is None:
        return s
    n = grapheme_count(s)
    if n >= width:
        return s
    pad = ("0" if zero else " ") * (width - n)
    return s + pad if minus else pad + s


def _go_float_verb(x: Any, verb: str, prec: int | None, plus: bool, minus: bool, space: bool,
                   zero: bool, width: int | None) -> str:
    """fmt.Sprintf of a *big.Float with one of e E f g G (big.Float.Format)."""
    if prec is None:
        prec = -1 if verb in "gG" else 6
    buf = N.go_append(x, verb, prec)
    sign = ""
    if buf[0] == "-":
        sign, buf = "-", buf[1:]
    elif buf[0] == "+":  # +Inf
        sign, buf = (" " if space else "+"), buf[1:]
    elif plus:
        sign = "+"
    elif space:
        sign = " "
    pad = width - len(sign) - len(buf) if width is not None and width > len(sign) + len(buf) else 0
    if zero and not buf.endswith("Inf"):
        return sign + "0" * pad + buf
    if minus:
        return sign + buf + " " * pad
    return " " * pad + sign + buf


def _go_int_verb(n: int, verb: str, prec: int | None, plus: bool, minus: bool, sharp: bool,
                 space: bool, zero: bool, width: int | None) -> str:
    """fmt.Sprintf of a *big.Int with one of d b o x X (big.Int.Format)."""
    sign = "-" if n < 0 else "+" if plus else " " if space else ""
    prefix = ""
    if sharp:
        prefix = {"b": "0b", "o": "0", "x": "0x", "X": "0X"}.get(verb, "")
    a = abs(n)
    if a.bit_length() > 4096:
        digits = N.text(a) if verb == "d" else format(a, {"b": "b", "o": "o", "x": "x", "X": "X"}[verb])
    else:
        digits = {"d": str, "b": lambda z: format(z, "b"), "o": lambda z: format(z, "o"),
                  "x": lambda z: format(z, "x"), "X": lambda z: format(z, "X")}[verb](a)
    zeros = left = right = 0
    if prec is not None:
        if len(digits) < prec:
            zeros = prec - len(digits)
        elif digits == "0" and prec == 0:
            return ""
    length = len(sign) + len(prefix) + zeros + len(digits)
    if width is not None and length < width:
        d = width - length
        if minus:
            right = d
        elif zero and prec is None:
            zeros = d
        else:
            left = d
    return " " * left + sign + prefix + "0" * zeros + digits + " " * right


def _value_v(v: Any, sharp: bool) -> str:
    t = type(v)
    if is_null(v):
        return "null"
    if t is str and not sharp:
        return v
    if (t is int or t is Num) and not sharp:
        return N.go_append(v, "g", -1)
    return go_json(v)


# format() pads strings to any width in Terraform ("%999999999s" asks for a gigabyte): tfconsole
# refuses widths beyond this. (Numbers follow Go's own limit, see _go_too_large.)
MAX_FORMAT_WIDTH = 10_000_000
_HUGE = 10 ** 13


def _boff(s: str, i: int) -> int:
    """The byte offset of character i (go-cty reports offsets in bytes)."""
    return len(s[:i].encode("utf-8")) if not s.isascii() else i


def _go_too_large(digits: str) -> bool:
    """Go's fmt parsenum: a number that passes a million before its last digit is refused."""
    num = 0
    for ch in digits:
        if num > 1_000_000:
            return True
        num = num * 10 + ord(ch) - 48
    return False


def _go_noverb(verb: str, arg: Any) -> str:
    """What Go's Sprintf writes for a spec it cannot parse, with the number left over."""
    try:
        x = convert(arg, NUMBER) if arg is not None else None
    except ConversionError:
        x = None
    if x is None:
        return "%!(NOVERB)"
    if verb in _INT_VERBS:
        n = N.to_int(x)
        return f"%!(NOVERB)%!(EXTRA *big.Int={n})" if n is not None else "%!(NOVERB)"
    return f"%!(NOVERB)%!(EXTRA *big.Float={N.go_append(x, 'g', 10)})"


def go_quote_rune(ch: str) -> str:
    """Go's %q of a rune: 'x'."""
    return "'" + go_quote(ch)[1:-1].replace("\\\"", '"').replace("'", "\\'") + "'"
_ASCII_DIGITS = re.compile(r"[0-9]+")


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
            if j < 0 or not _ASCII_DIGITS.fullmatch(fmt[i + 1:j]) or j - i > 10:
                raise FunctionError(f"invalid format string starting at offset {i}")
            argi = int(fmt[i + 1:j]) - 1
            i = j + 1
        width = None
        ws = i
        while i < n and fmt[i] in "0123456789":
            i += 1
        width_text = fmt[ws:i]
        if i > ws:
            width = int(width_text) if i - ws <= 12 else _HUGE
        prec = None
        prec_text = ""
        if i < n and fmt[i] == ".":
            i += 1
            ps = i
            while i < n and fmt[i] in "0123456789":
                i += 1
            prec_text = fmt[ps:i]
            prec = (int(prec_text) if i - ps <= 12 else _HUGE) if i > ps else 0
        if i >= n:
            raise FunctionError(f"invalid format string starting at offset {_boff(fmt, i)}")
        verb = fmt[i]
        i += 1
        spec = fmt[start:i]
        verbs += 1
        if not ("a" <= verb <= "z" or "A" <= verb <= "Z"):
            # go-cty's format scanner takes only ASCII letters as verbs
            raise FunctionError(f"unrecognized format character {go_quote_rune(verb)} at offset {_boff(fmt, i - 1)}")
        if verb not in "vstqdboxXeEfgG":
            raise FunctionError(f"unsupported format verb '{verb}' in \"{spec}\" at offset {_boff(fmt, start)}")
        if verb in "dboxXeEfgG" and (_go_too_large(width_text) or _go_too_large(prec_text)):
            # Go's fmt gives up on a width or precision beyond a million: "%!(NOVERB)"
            out.append(_go_noverb(verb, args[argi] if 0 <= argi < len(args) else None))
            argi += 1
            maxused = max(maxused, argi)
            continue
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

    if width is not None and width > MAX_FORMAT_WIDTH and verb in "vsq":
        raise FunctionError(f'width {width if width < _HUGE else "of more than 12 digits"} in "{spec}" at '
                            f"{start} is larger than tfconsole pads to ({MAX_FORMAT_WIDTH})")
    if verb == "v":
        try:
            s = _value_v(arg, sharp)
        except FunctionError as exc:
            raise bad(exc.message) from None
        return _pad_text(s, width, minus, zero)
    if is_null(arg):
        raise bad("null value cannot be formatted")
    if verb in "sq":
        try:
            s = convert(arg, STRING)
        except ConversionError:
            raise bad(f"string required, but have {type_of(arg).friendly()}") from None
        if prec is not None and prec > 0:
            s = "".join(graphemes(s)[:prec])
        if verb == "q":
            s = go_json_string(s, False)
        return _pad_text(s, width, minus, zero)
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
        n = N.to_int(x)
        if n is None:
            raise bad("an integer is required")
        return _go_int_verb(n, verb, prec, plus, minus, sharp, space, zero, width)
    return _go_float_verb(x, verb, prec, plus, minus, space, zero, width)


_GO_ESC = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
           "\\": "\\\\", '"': '\\"'}


def go_quote(s: str) -> str:
    """Go's strconv.Quote (the %q of Go's fmt, used in cty's own error messages)."""
    out = ['"']
    for ch in s:
        e = _GO_ESC.get(ch)
        if e is not None:
            out.append(e)
        elif ch == " " or ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)
