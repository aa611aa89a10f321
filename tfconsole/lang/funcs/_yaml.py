"""YAML for yamlencode/yamldecode, shaped like cty's YAML codec (a go-yaml fork).

Decoding parses with PyYAML's composer and resolves scalars with the Go library's rules
(YAML 1.1 booleans, RFC 3339 timestamps as strings, ...). Encoding is a small emitter of
its own that writes exactly the block style Terraform produces.
"""
from __future__ import annotations

import datetime as _dt
import re
from typing import Any

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from ..numbers import Num
from ..values import Null, TList, TMap, TSet, format_number, is_null, parse_number, ConversionError
from . import FunctionError
from ._util import rfc3339

STR = "tag:yaml.org,2002:str"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
BOOLT = "tag:yaml.org,2002:bool"
NULLT = "tag:yaml.org,2002:null"
TS = "tag:yaml.org,2002:timestamp"
BIN = "tag:yaml.org,2002:binary"
MAP = "tag:yaml.org,2002:map"
SEQ = "tag:yaml.org,2002:seq"
MERGE = "tag:yaml.org,2002:merge"

_IMPLICIT = "?implicit"

_MAPV: dict[str, Any] = {}
for _v, _names in ((True, "y Y yes Yes YES true True TRUE on On ON"),
                   (False, "n N no No NO false False FALSE off Off OFF"),
                   (None, "~ null Null NULL"),
                   (float("inf"), ".inf .Inf .INF +.inf +.Inf +.INF"),
                   (float("-inf"), "-.inf -.Inf -.INF")):
    for _n in _names.split():
        _MAPV[_n] = _v
_MAPV[""] = None


class _Resolver(yaml.resolver.BaseResolver):
    def resolve(self, kind, value, implicit):  # noqa: D401
        if kind is ScalarNode:
            return _IMPLICIT if implicit[0] else STR
        if kind is SequenceNode:
            return SEQ
        return MAP


class _Loader(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser, yaml.composer.Composer,
              _Resolver):
    def compose_node(self, parent, index):
        ev = self.peek_event()
        if getattr(ev, "tag", None) == "!":
            raise FunctionError('unsupported tag "!"')
        return super().compose_node(parent, index)

    def __init__(self, stream):
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        _Resolver.__init__(self)


_DEC_NUM = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_TS_RE = re.compile(
    r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt]| )(\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d+)?"
    r"(Z|[-+]\d{2}:\d{2})?)?$")


def _parse_ts(s: str) -> str | None:
    m = _TS_RE.match(s)
    if not m:
        return None
    y, mo, d, hh, mi, ss, frac, tz = m.groups()
    if hh is not None and tz is None and ("T" in s or "t" in s):
        return None
    try:
        if hh is None:
            t = _dt.datetime(int(y), int(mo), int(d), tzinfo=_dt.timezone.utc)
        else:
            if tz is None or tz == "Z":
                tzi = _dt.timezone.utc
            else:
                sign = 1 if tz[0] == "+" else -1
                tzi = _dt.timezone(sign * _dt.timedelta(hours=int(tz[1:3]), minutes=int(tz[4:6])))
            t = _dt.datetime(int(y), int(mo), int(d), int(hh), int(mi), int(ss), tzinfo=tzi)
    except ValueError:
        return None
    return rfc3339(t)


def _parse_go_int(s: str) -> int | None:
    """YAML 1.2 core-schema hex and octal integers (0x.., 0o..); decimals are numbers."""
    m = re.fullmatch(r"0x([0-9a-fA-F]+)|0o([0-7]+)", s)
    if not m:
        return None
    v = int(m.group(1), 16) if m.group(1) is not None else int(m.group(2), 8)
    if v >= 2**64:
        raise FunctionError(f'cannot parse "{s}" as {INT}')
    return v


def _number(s: str):
    if _DEC_NUM.match(s):
        try:
            return parse_number(s)
        except ConversionError:
            return None
    return None


def _resolve(tag: str, src: str, plain: bool):
    if tag == _IMPLICIT:
        tag = ""
    known = ("", STR, BOOLT, INT, FLOAT, NULLT, TS, BIN)
    if tag not in known:
        raise FunctionError(f'unsupported tag "{tag}"')
    if not plain:
        return src
    if tag not in (STR, BIN) and (plain or tag):
        if src in _MAPV and (tag == "" or tag in (BOOLT, NULLT, FLOAT)):
            v = _MAPV[src]
            if tag == "" or (tag == BOOLT and isinstance(v, bool)) or (tag == NULLT and v is None) or \
                    (tag == FLOAT and isinstance(v, float)):
                if isinstance(v, float):
                    raise FunctionError("infinity is not supported")
                return v
        if src in (".nan", ".NaN", ".NAN"):
            raise FunctionError("floating point NaN is not supported")
        if tag in ("", TS):
            ts = _parse_ts(src)
            if ts is not None:
                return ts
        if tag in ("", INT, FLOAT):
            n = _number(src)
            if n is not None:
                return n
            n = _parse_go_int(src)
            if n is not None:
                return n
            if tag:
                raise FunctionError(f'cannot parse "{src}" as {tag}')
    if tag == BOOLT:
        v = _MAPV.get(src, 0)
        if not isinstance(v, bool):
            raise FunctionError(f'cannot parse "{src}" as {tag}')
        return v
    if tag == NULLT:
        return None
    if tag == TS:
        raise FunctionError(f'cannot parse "{src}" as {tag}')
    if tag == BIN:
        import base64
        import binascii
        try:
            base64.b64decode(src, validate=True)
        except (binascii.Error, ValueError):
            raise FunctionError(f'cannot parse "{src}" as {tag}: not valid base64') from None
    return src


# Aliases let a few lines of YAML stand for billions of values (Terraform expands them all, without
# bound); tfconsole stops a document that expands beyond this many values
MAX_YAML_VALUES = 1_000_000


def _construct(node, budget=None):
    if budget is None:
        budget = [MAX_YAML_VALUES]
    budget[0] -= 1
    if budget[0] < 0:
        raise FunctionError(f"the document expands (through aliases) to more than {MAX_YAML_VALUES} values, the "
                            "most tfconsole decodes")
    if isinstance(node, ScalarNode):
        return _resolve(node.tag, node.value, node.style is None)
    if isinstance(node, SequenceNode):
        return [_construct(x, budget) for x in node.value]
    out: dict[str, Any] = {}
    merged: dict[str, Any] = {}
    for k, v in node.value:
        if isinstance(k, ScalarNode) and (k.tag == MERGE or (k.tag == _IMPLICIT and k.value == "<<")):
            srcs = v.value if isinstance(v, SequenceNode) else [v]
            for s in srcs:
                mv = _construct(s, budget)
                if not isinstance(mv, dict):
                    raise FunctionError("map merge requires map or sequence of maps as the value")
                for mk, mvv in mv.items():
                    merged.setdefault(mk, mvv)
            continue
        kv = _construct(k, budget)
        if kv is None:
            raise FunctionError("mapping key cannot be null")
        if isinstance(kv, bool):
            kv = "true" if kv else "false"
        elif isinstance(kv, (int, Num)):
            kv = format_number(kv)
        elif not isinstance(kv, str):
            raise FunctionError("only string keys are supported")
        out[kv] = _construct(v, budget)
    for mk, mv in merged.items():
        out.setdefault(mk, mv)
    return out


def yaml_decode(src: str) -> Any:
    loader = _Loader(src)
    try:
        node = loader.get_single_node()
    except yaml.composer.ComposerError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"on line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        if "expected a single document" in str(exc):
            raise FunctionError("on line 1, column 1: unexpected extra content after value") from None
        raise FunctionError(where + (exc.problem or str(exc))) from None
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc)
        raise FunctionError(problem) from None
    finally:
        loader.dispose()
    if node is None:
        raise FunctionError("on line 1, column 1: missing start of document")
    return _construct(node)


# ---------------------------------------------------------------------------
# encoding

_BEST_WIDTH = 80


def _printable(ch: str) -> bool:
    o = ord(ch)
    return o == 0x0A or 0x20 <= o <= 0x7E or (0xA0 <= o <= 0xD7FF) or \
        (0xE000 <= o <= 0xFFFD and o != 0xFEFF)


def _is_break(ch: str) -> bool:
    return ch in "\r\n\x85\u2028\u2029"


def _literal_ok(s: str) -> bool:
    if "\n" not in s:
        return False
    prev = ""
    for i, ch in enumerate(s):
        if not _printable(ch) or ch == "\ufeff":
            return False
        if _is_break(ch) and prev == " ":
            return False
        prev = ch
    if s.endswith(" "):
        return False
    return True


_ESC = {"\0": "0", "\a": "a", "\b": "b", "\t": "t", "\n": "n", "\v": "v", "\f": "f", "\r": "r",
        "\x1b": "e", '"': '"', "\\": "\\", "\x85": "N", "\xa0": "_", "\u2028": "L", "\u2029": "P"}


class _Out:
    def __init__(self):
        self.parts: list[str] = []
        self.column = 0

    def write(self, s: str):
        self.parts.append(s)
        nl = s.rfind("\n")
        if nl >= 0:
            self.column = len(s) - nl - 1
        else:
            self.column += len(s)

    def newline_indent(self, indent: int):
        self.write("\n" + " " * indent)


def _double_quoted(out: _Out, s: str, indent: int, allow_breaks: bool = True):
    out.write('"')
    spaces = False
    n = len(s)
    for i, ch in enumerate(s):
        o = ord(ch)
        if not _printable(ch) or ch == "\ufeff" or _is_break(ch) or ch in '"\\' or o >= 0x10000:
            if ch in _ESC:
                out.write("\\" + _ESC[ch])
            elif o <= 0xFF:
                out.write(f"\\x{o:02X}")
            elif o <= 0xFFFF:
                out.write(f"\\u{o:04X}")
            else:
                out.write(f"\\U{o:08X}")
            spaces = False
        elif ch == " ":
            if allow_breaks and not spaces and out.column > _BEST_WIDTH and i != 0 and i != n - 1:
                out.newline_indent(indent)
                if i + 1 < n and s[i + 1] == " ":
                    out.write("\\")
            else:
                out.write(" ")
            spaces = True
        else:
            out.write(ch)
            spaces = False
    out.write('"')


def _literal(out: _Out, s: str, indent: int):
    hint = "|"
    if s[0] == " " or _is_break(s[0]):
        hint += "2"
    if not _is_break(s[-1]):
        hint += "-"
    elif len(s) == 1 or _is_break(s[-2]):
        hint += "+"
    out.write(hint)
    # body: every line indented; empty lines have no indentation
    lines = s.split("\n")
    if s.endswith("\n"):
        lines = lines[:-1]
    for line in lines:
        if line:
            out.write("\n" + " " * indent + line)
        else:
            out.write("\n")


def _is_block_collection(v: Any) -> bool:
    if isinstance(v, dict):
        return len(v) > 0
    if isinstance(v, list):
        return len(v) > 0
    return False


def _scalar(out: _Out, v: Any, indent: int, block_ok: bool = True):
    if v is None or type(v) is Null:
        out.write("null")
    elif isinstance(v, bool):
        out.write("true" if v else "false")
    elif isinstance(v, (int, Num)):
        out.write(format_number(v))
    elif isinstance(v, str):
        if block_ok and _literal_ok(v):
            _literal(out, v, indent)
        else:
            _double_quoted(out, v, indent)
    elif isinstance(v, dict):
        out.write("{}")
    elif isinstance(v, list):
        out.write("[]")
    else:
        raise FunctionError(f"cannot encode {v!r}")


def _node(out: _Out, v: Any, indent: int):
    """Write v whose first line starts at the current position; block content at `indent`."""
    if isinstance(v, dict) and v:
        first = True
        for k in sorted(v, key=lambda s: s.encode("utf-8")):
            if not first:
                out.newline_indent(indent)
            first = False
            _double_quoted(out, k, indent, allow_breaks=False)
            out.write(":")
            item = v[k]
            if isinstance(item, dict) and item:
                out.newline_indent(indent + 2)
                _node(out, item, indent + 2)
            elif isinstance(item, list) and item:
                out.newline_indent(indent)
                _node(out, item, indent)
            else:
                out.write(" ")
                _scalar(out, item, indent + 2)
        return
    if isinstance(v, list) and v:
        first = True
        for item in v:
            if not first:
                out.newline_indent(indent)
            first = False
            out.write("- ")
            if _is_block_collection(item):
                _node(out, item, indent + 2)
            else:
                _scalar(out, item, indent + 2)
        return
    _scalar(out, v, indent)


def yaml_encode(v: Any) -> str:
    out = _Out()
    if isinstance(v, str):
        _scalar(out, v, 2)
    else:
        _node(out, v, 0)
    text = "".join(out.parts) + "\n"
    if v is None or type(v) is Null or isinstance(v, (bool, int, Num)):
        text += "...\n"
    return text
