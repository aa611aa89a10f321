"""Encoding functions."""
from __future__ import annotations

import base64
import binascii
import codecs
import io
import json
import struct
import zlib
from .. import numbers as N
from ..types import DYNAMIC, STRING, ListType, ObjectType
from ..values import TList, Unknown, from_json_implied, type_of
from . import FunctionError, Param, register
from ._gofmt import go_json


def _b64decode(s: str) -> bytes:
    try:
        if len(s) % 4 != 0:
            raise ValueError
        return base64.b64decode(s.encode("ascii"), validate=True)
    except (ValueError, binascii.Error, UnicodeEncodeError):
        raise FunctionError(f'failed to decode base64 data "{s}"') from None


@register("base64decode", [Param("str", STRING, allow_marked=False)], STRING)
def _base64decode(args, ctx):
    raw = _b64decode(args[0])
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise FunctionError("the result of decoding the provided string is not valid UTF-8") from None


@register("base64encode", [Param("str", STRING)], STRING)
def _base64encode(args, ctx):
    return base64.b64encode(args[0].encode("utf-8")).decode("ascii")


def go_gzip(data: bytes) -> bytes:
    """gzip as Go's compress/gzip writes it (default level, sync-flushed final block)."""
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    body = c.compress(data) + c.flush(zlib.Z_SYNC_FLUSH) + b"\x01\x00\x00\xff\xff"
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    return header + body + struct.pack("<II", zlib.crc32(data) & 0xFFFFFFFF, len(data) & 0xFFFFFFFF)


@register("base64gzip", [Param("str", STRING)], STRING)
def _base64gzip(args, ctx):
    return base64.b64encode(go_gzip(args[0].encode("utf-8"))).decode("ascii")


def _csv_rt(args):
    s = args[0]
    if not isinstance(s, str):
        return DYNAMIC
    rows = _csv_rows(s)
    if not rows:
        raise FunctionError("missing header line")
    return ListType(ObjectType(tuple(sorted((h, STRING) for h in rows[0]))))


def _csv_rows(s: str) -> list[list[str]]:
    import csv  # here: every command loads the function library, few call csvdecode

    rows: list[list[str]] = []
    reader = csv.reader(io.StringIO(s, newline=""), strict=True)
    width = None
    try:
        for row in reader:
            if not row or row == [""] and width != 1:
                if row == []:
                    continue
            if width is None:
                width = len(row)
            elif len(row) != width:
                raise FunctionError(f"CSV parse error on line {reader.line_num}: wrong number of fields")
            rows.append(row)
    except csv.Error as exc:
        raise FunctionError(f"CSV parse error on line {reader.line_num}: {exc}") from None
    return rows


@register("csvdecode", [Param("str", STRING)], _csv_rt)
def _csvdecode(args, ctx):
    rt = _csv_rt(args)
    rows = _csv_rows(args[0])
    header = rows[0]
    out = [dict(sorted(zip(header, r))) for r in rows[1:]]
    return TList(out, rt.elem)


def _json_rt(args):
    s = args[0]
    if not isinstance(s, str):
        return DYNAMIC
    return type_of(_json_decode(s))


def _reject_const(name):
    raise ValueError(f"invalid character '{name[0]}' looking for beginning of value")


def _json_decode(s: str):
    try:
        data = json.loads(s, parse_float=_json_number, parse_int=_json_number, parse_constant=_reject_const,
                          object_pairs_hook=_pairs)
    except json.JSONDecodeError as exc:
        raise FunctionError(_go_json_error(s, exc)) from None
    except RecursionError:
        raise FunctionError("JSON nests too deeply for tfconsole (Python's recursion limit)") from None
    except ValueError as exc:
        raise FunctionError(str(exc)) from None
    return _fix_numbers(data)


def _go_json_error(s: str, exc: json.JSONDecodeError) -> str:
    """Python's complaint in the words of Go's json.Decoder, which go-cty reads tokens with:
    input that stops between tokens is "EOF", inside a token "unexpected EOF"."""
    pos, msg = exc.pos, exc.msg
    rest = s[pos:]
    at_end = not rest.strip()
    if msg.startswith("Extra data"):
        return "extraneous data after JSON object"
    if msg.startswith("Unterminated string"):
        return "unexpected EOF"
    if msg.startswith("Invalid control character"):
        return f"invalid character {_go_char(s[pos])} in string literal"
    if msg.startswith("Invalid \\escape"):
        return f"invalid character {_go_char(s[pos + 1] if pos + 1 < len(s) else '')} in string escape code"
    if at_end:
        return "EOF"
    ch = rest.lstrip()[0]
    if msg.startswith("Expecting value"):
        word = rest.rstrip()
        if any(w.startswith(word) and w != word for w in ("true", "false", "null")):
            return "unexpected EOF"
        return f"invalid character {_go_char(ch)} looking for beginning of value"
    if msg.startswith("Expecting ':'"):
        return f"invalid character {_go_char(ch)} after object key"
    if msg.startswith("Expecting ','"):
        inner = _innermost_open(s, pos)
        where = "array element" if inner == "[" else "object key:value pair"
        return f"invalid character {_go_char(ch)} after {where}"
    if msg.startswith("Expecting property name"):
        return f"invalid character {_go_char(ch)} looking for beginning of object key string"
    return msg


def _go_char(ch: str) -> str:
    """Go's quoteChar: 'x', with the quote and backslash escaped."""
    if ch == "'":
        return "'\\''"
    if ch == '"':
        return "'\"'"
    from ._gofmt import go_quote

    return "'" + go_quote(ch)[1:-1] + "'"


def _innermost_open(s: str, pos: int) -> str:
    """The innermost bracket still open at pos ("[" or "{"), strings skipped."""
    stack: list[str] = []
    in_str = esc = False
    for ch in s[:pos]:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            stack.append(ch)
        elif ch in "]}" and stack:
            stack.pop()
    return stack[-1] if stack else ""


def _json_number(text: str):
    """A JSON number as go-cty reads one (ParseNumberVal: 512 bits)."""
    try:
        return N.parse(text)
    except N.NumberError as exc:
        raise ValueError(str(exc)) from None


def _pairs(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f'duplicate "{k}" property in JSON object')
        out[k] = v
    return out


def _fix_numbers(v):
    if isinstance(v, dict):
        return {k: _fix_numbers(x) for k, x in sorted(v.items())}
    if isinstance(v, list):
        return [_fix_numbers(x) for x in v]
    return v


@register("jsondecode", [Param("str", STRING)], _json_rt)
def _jsondecode(args, ctx):
    return _json_decode(args[0])


@register("jsonencode", [Param("val", DYNAMIC, allow_null=True)], STRING)
def _jsonencode(args, ctx):
    return go_json(args[0])


_ENC_ALIASES = {
    "utf8": "utf-8", "utf-8": "utf-8", "csutf8": "utf-8",
    "utf-16": "utf-16", "utf16": "utf-16", "utf-16le": "utf-16-le", "utf-16be": "utf-16-be",
    "iso-8859-1": "latin-1", "latin1": "latin-1", "l1": "latin-1", "iso_8859-1": "latin-1",
    "windows-1252": "cp1252", "cp1252": "cp1252", "us-ascii": "ascii", "ascii": "ascii",
    "shift_jis": "shift_jis", "sjis": "shift_jis", "euc-jp": "euc_jp", "euc-kr": "euc_kr",
    "gbk": "gbk", "gb18030": "gb18030", "big5": "big5", "koi8-r": "koi8_r", "koi8-u": "koi8_u",
    "windows-1251": "cp1251", "cp1251": "cp1251", "iso-8859-2": "iso8859_2",
    "iso-8859-15": "iso8859_15", "ibm437": "cp437", "cp437": "cp437", "ibm850": "cp850",
    "windows-1250": "cp1250", "windows-1253": "cp1253", "windows-1254": "cp1254",
    "windows-1255": "cp1255", "windows-1256": "cp1256", "windows-1257": "cp1257",
    "windows-1258": "cp1258", "iso-2022-jp": "iso2022_jp", "utf-32": "utf-32",
}


def _encoding(name: str, arg: int) -> str:
    codec = _ENC_ALIASES.get(name.lower())
    if codec is None:
        try:
            codec = codecs.lookup(name).name
        except LookupError:
            codec = None
    if codec is None:
        raise FunctionError(f'"{name}" is not a supported IANA encoding name or alias in this '
                            "Terraform version", arg)
    return codec


@register("textencodebase64", [Param("string", STRING), Param("encoding", STRING)], STRING)
def _textencodebase64(args, ctx):
    codec = _encoding(args[1], 1)
    try:
        raw = args[0].encode(codec if codec != "utf-16" else "utf-16-le")
    except UnicodeEncodeError:
        raise FunctionError(f"the given string contains characters that cannot be represented in "
                            f"{args[1]}", 0) from None
    return base64.b64encode(raw).decode("ascii")


@register("textdecodebase64", [Param("source", STRING), Param("encoding", STRING)], STRING)
def _textdecodebase64(args, ctx):
    codec = _encoding(args[1], 1)
    try:
        raw = base64.b64decode(args[0].encode("ascii"), validate=True)
    except (binascii.Error, ValueError, UnicodeEncodeError):
        raise FunctionError("the given value is has an invalid base64 symbol at offset 0", 0) from None
    try:
        return raw.decode(codec, errors="strict")
    except UnicodeDecodeError:
        raise FunctionError(f"the given value is not valid {args[1]}", 0) from None


@register("urlencode", [Param("str", STRING)], STRING)
def _urlencode(args, ctx):
    import urllib.parse  # here: with ipaddress, 2 ms that jsonencode's family need not load

    return urllib.parse.quote_plus(args[0], safe="-_.~")


def yaml_decode(src: str) -> Any:
    # PyYAML loads only for the configurations that call these (20 ms of every command otherwise)
    from ._yaml import yaml_decode as decode

    return decode(src)


@register("yamldecode", [Param("src", STRING)], lambda args: type_of(yaml_decode(args[0]))
          if isinstance(args[0], str) else DYNAMIC)
def _yamldecode(args, ctx):
    return yaml_decode(args[0])


@register("yamlencode", [Param("value", DYNAMIC, allow_null=True)], STRING)
def _yamlencode(args, ctx):
    from ._yaml import yaml_encode

    return yaml_encode(args[0])
