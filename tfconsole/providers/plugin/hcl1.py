"""A reader for HCL 1, the syntax of Terraform's CLI configuration files (`.terraformrc`).

HCL 1 is not HCL 2: keys may be quoted strings (`"hashicorp/null" = "/path"`), any item may be
written `key = value` or `key "label" { ... }`, commas between items are optional, and strings
keep `${...}` unevaluated. The result is a list of Items; an object value is itself a list of
Items, a list value a Python list. Errors are ValueError("At LINE:COL: ...") like HCL 1's.
Nothing here evaluates anything.
"""
from __future__ import annotations

import json
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any


@dataclass
class Item:
    keys: list[str]
    value: Any  # str | int | float | bool | list | list[Item] (an object)
    assign: bool  # written with "="
    line: int
    col: int
    json: bool = False

    @property
    def is_object(self) -> bool:
        return isinstance(self.value, ObjectValue)

    def pos(self) -> str:
        return f"{self.line}:{self.col}"


class ObjectValue(list):  # type: ignore[type-arg]
    """An object's items (a distinct type so an empty object is not an empty list)."""


_IDENT_START = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_IDENT = _IDENT_START | set("0123456789-.:")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


class _Lexer:
    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0
        self.line = 1
        self.col = 1

    def _adv(self, n: int = 1) -> None:
        for _ in range(n):
            if self.s[self.i] == "\n":
                self.line += 1
                self.col = 1
            else:
                self.col += 1
            self.i += 1

    def error(self, msg: str) -> ValueError:
        return ValueError(f"At {self.line}:{self.col}: {msg}")

    def tokens(self) -> list[tuple[str, Any, int, int]]:
        out = []
        s = self.s
        while self.i < len(s):
            c = s[self.i]
            if c in " \t\r\n\ufeff":
                self._adv()
            elif c == "#" or s.startswith("//", self.i):
                while self.i < len(s) and s[self.i] != "\n":
                    self._adv()
            elif s.startswith("/*", self.i):
                end = s.find("*/", self.i + 2)
                if end < 0:
                    raise self.error("comment not terminated")
                self._adv(end + 2 - self.i)
            else:
                out.append(self._token())
        out.append(("EOF", None, self.line, self.col + 1))  # HCL 1 reports EOF one column on
        return out

    def _token(self) -> tuple[str, Any, int, int]:
        s, line, col = self.s, self.line, self.col
        c = s[self.i]
        if c in "{}[]=,":
            self._adv()
            return ({"{": "LBRACE", "}": "RBRACE", "[": "LBRACK", "]": "RBRACK", "=": "ASSIGN", ",": "COMMA"}[c],
                    c, line, col)
        if c == '"':
            return ("STRING", self._string(), line, col)
        if s.startswith("<<", self.i):
            return ("STRING", self._heredoc(), line, col)
        if c.isdigit() or (c in "-+" and self.i + 1 < len(s) and s[self.i + 1].isdigit()):
            j = self.i + 1
            while j < len(s) and (s[j].isalnum() or s[j] in ".+-") and not (s[j] in "+-" and s[j - 1] not in "eE"):
                j += 1
            text = s[self.i:j]
            self._adv(j - self.i)
            try:
                return ("NUMBER", int(text, 0), line, col)
            except ValueError:
                try:
                    return ("NUMBER", float(text), line, col)
                except ValueError:
                    raise ValueError(f"At {line}:{col}: illegal number {text!r}") from None
        if c in _IDENT_START:
            j = self.i
            while j < len(s) and s[j] in _IDENT:
                j += 1
            text = s[self.i:j]
            self._adv(j - self.i)
            if text in ("true", "false"):
                return ("BOOL", text == "true", line, col)
            return ("IDENT", text, line, col)
        raise self.error(f"illegal char {c!r}")

    def _string(self) -> str:
        s = self.s
        self._adv()
        out: list[str] = []
        depth = 0  # inside ${ ... } quotes do not end the string
        while True:
            if self.i >= len(s) or (s[self.i] == "\n" and depth == 0):
                raise self.error("literal not terminated")
            c = s[self.i]
            if c == "\\" and depth == 0:
                if self.i + 1 >= len(s):
                    raise self.error("literal not terminated")
                e = s[self.i + 1]
                if e in _ESCAPES:
                    out.append(_ESCAPES[e])
                    self._adv(2)
                elif e in "uU":
                    n = 4 if e == "u" else 8
                    hexs = s[self.i + 2:self.i + 2 + n]
                    try:
                        out.append(chr(int(hexs, 16)))
                    except ValueError:
                        raise self.error("illegal char escape") from None
                    self._adv(2 + n)
                else:
                    raise self.error("illegal char escape")
                continue
            if s.startswith("${", self.i):
                depth += 1
                out.append("${")
                self._adv(2)
                continue
            if c == "}" and depth:
                depth -= 1
            elif c == '"' and depth == 0:
                self._adv()
                return "".join(out)
            out.append(c)
            self._adv()

    def _heredoc(self) -> str:
        s = self.s
        start = self.i + 2
        indent = s.startswith("-", start)
        if indent:
            start += 1
        nl = s.find("\n", start)
        if nl < 0:
            raise self.error("heredoc not terminated")
        marker = s[start:nl].strip()
        if not marker:
            raise self.error("zero-length heredoc anchor")
        lines = []
        pos = nl + 1
        while True:
            end = s.find("\n", pos)
            line = s[pos:] if end < 0 else s[pos:end]
            if line.strip() == marker if indent else line.rstrip("\r") == marker:
                break
            if end < 0:
                raise self.error("heredoc not terminated")
            lines.append(line)
            pos = end + 1
        self._adv((len(s) if end < 0 else end) - self.i)
        if indent and lines:
            pad = min((len(x) - len(x.lstrip(" \t")) for x in lines if x.strip()), default=0)
            lines = [x[pad:] for x in lines]
        return "".join(x + "\n" for x in lines)


class _Parser:
    def __init__(self, tokens: list[tuple[str, Any, int, int]]) -> None:
        self.t = tokens
        self.i = 0

    def peek(self) -> tuple[str, Any, int, int]:
        return self.t[self.i]

    def take(self) -> tuple[str, Any, int, int]:
        tok = self.t[self.i]
        self.i += 1
        return tok

    def error(self, tok: tuple[str, Any, int, int], expected: str, sep: str = "expected: ") -> ValueError:
        return ValueError(f"At {tok[2]}:{tok[3]}: {sep}{expected} got: {tok[0]}")

    def object_list(self, end: str) -> ObjectValue:
        items = ObjectValue()
        while self.peek()[0] != end:
            if self.peek()[0] == "EOF":
                raise self.error(self.peek(), "object expected closing RBRACE", sep="")
            items.append(self.item())
            if self.peek()[0] == "COMMA":
                self.take()
        return items

    def item(self) -> Item:
        first = self.peek()
        keys = []
        while self.peek()[0] in ("IDENT", "STRING"):
            keys.append(str(self.take()[1]))
        if not keys:
            tok = self.peek()
            raise ValueError(f"At {tok[2]}:{tok[3]}: no object keys found!")
        tok = self.peek()
        if tok[0] == "ASSIGN":
            if len(keys) > 1:
                raise ValueError(f"At {first[2]}:{first[3]}: nested object expected: LBRACE got: ASSIGN")
            self.take()
            return Item(keys, self.value(), True, first[2], first[3])
        if tok[0] == "LBRACE":
            return Item(keys, self.value(), False, first[2], first[3])
        raise self.error(tok, "ASSIGN | LBRACE")

    def value(self) -> Any:
        tok = self.take()
        if tok[0] in ("STRING", "NUMBER", "BOOL"):
            return tok[1]
        if tok[0] == "LBRACE":
            items = self.object_list("RBRACE")
            self.take()
            return items
        if tok[0] == "LBRACK":
            out = []
            while self.peek()[0] != "RBRACK":
                if self.peek()[0] == "EOF":
                    raise self.error(self.peek(), "RBRACK")
                out.append(self.value())
                if self.peek()[0] == "COMMA":
                    self.take()
                elif self.peek()[0] != "RBRACK":
                    tok = self.peek()
                    raise ValueError(f"At {tok[2]}:{tok[3]}: error parsing list, expected comma or list end, got: "
                                     f"{tok[0]}")
            self.take()
            return out
        raise self.error(tok, "STRING | NUMBER | BOOL | LBRACE | LBRACK")


def parse(text: str) -> list[Item]:
    """Parse HCL 1 text into its top-level items (ValueError on a syntax error)."""
    toks = _Lexer(text).tokens()
    p = _Parser(toks)
    items = p.object_list("EOF")
    return items


def parse_json(text: str) -> list[Item]:
    """The JSON form (`*.tfrc.json`): objects become items, an array of objects repeated items."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"At {exc.lineno}:{exc.colno}: {exc.msg}") from None
    if not isinstance(doc, dict):
        raise ValueError("At 1:1: the top-level value must be an object")
    return _json_items(doc)


def _json_items(obj: dict) -> ObjectValue:
    out = ObjectValue()
    for k, v in obj.items():
        if isinstance(v, dict):
            out.append(Item([k], _json_items(v), False, 1, 1, json=True))
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            out.extend(Item([k], _json_items(x), False, 1, 1, json=True) for x in v)
        else:
            out.append(Item([k], _json_value(v), True, 1, 1, json=True))
    return out


def _json_value(v: Any) -> Any:
    if isinstance(v, dict):
        return _json_items(v)
    if isinstance(v, list):
        return [_json_value(x) for x in v]
    return v
