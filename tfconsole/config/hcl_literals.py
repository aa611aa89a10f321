"""A fast path for the parser: plain object and tuple literals read directly into the tree.

Generated configurations are mostly nested literals (`{ a = 1, b = ["x", true] }`), and the
LALR driver spends a few microseconds per token on them. When the driver meets `{` or `[`
where an object or tuple may start, it offers the text here; this reads the literal if it is
plain - keys that are names or plain strings, values that are numbers (optionally negated),
plain strings (no escapes, templates or newlines), true / false / null or nested plain literals,
separated by commas and newlines as the grammar allows - and builds exactly the nodes, ranges
and nesting depth the driver would. Anything else (a reference, an operator, a comment between
a key and its `=`, an escape, a keyword key...) and it declines, and the driver parses the
literal itself, token by token. Its results are checked against the driver's own on every
configuration in the repository and on random literals (tests/test_hcl_parser.py); and a parse
that meets any syntax error or limit is redone without this path, so errors are always the
driver's own.
"""
from __future__ import annotations

import re
from typing import Any

from tfconsole.lang import ast as A

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r]+)
  | (?P<nl>\n[ \t]*|\#[^\n]*\n|//[^\n]*\n)
  | (?P<open>[{\[])
  | (?P<close>[}\]])
  | (?P<comma>,)
  | (?P<assign>=(?![=>])|:(?!:))
  | (?P<num>(?:[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|[0-9]+))
  | (?P<str>"[^"\\$%\n]*")
  | (?P<name>[a-zA-Z_][a-zA-Z0-9_-]*)
  | (?P<minus>-)
""", re.X)
_WORDS = {"true": True, "false": False, "null": None}
# names that lex as keywords in some parser states: declined as keys or values
_KEYWORDS = frozenset({"if", "in", "for", "for_each", "else", "endif", "endfor"})
class _Decline(Exception):
    """Not a plain literal: the driver parses it."""


class LiteralReader:
    """Reads one plain literal starting at an opening bracket; see the module docstring."""

    __slots__ = ("comp", "text", "pos", "line", "line_start", "first_byte", "tokens", "limit", "level",
                 "max_tokens")

    def __init__(self, comp: A.Compiler, text: str, pos: int, line: int, line_start: int, first_byte: int,
                 limit: int, max_tokens: int):
        self.comp = comp
        self.text = text
        self.pos = pos
        self.line = line
        self.line_start = line_start
        self.first_byte = first_byte
        self.tokens = 0
        self.limit = limit  # nesting depth the driver allows
        self.level = 0  # brackets open: deeper than the limit is the driver's to refuse
        self.max_tokens = max_tokens  # more than the driver allows is the driver's to refuse

    def read(self) -> tuple[Any, tuple, int] | None:
        """(tree, span, depth) of the literal at self.pos, or None (declined)."""
        try:
            kind, value, span = self.next()
            if kind != "open":
                return None
            return self.collection(value, span)
        except (_Decline, A.ParseError, ValueError, IndexError, RecursionError):
            return None

    def next(self) -> tuple[str, str, tuple]:
        """The next token that is not blank: (kind, text, span)."""
        while True:
            m = _TOKEN.match(self.text, self.pos)
            if m is None:
                raise _Decline
            kind = m.lastgroup
            value = m.group()
            start = self.pos
            line, col = self.line, start - self.line_start + 1
            end = m.end()
            if kind == "nl":
                self.line += 1
                self.line_start = start + value.index("\n") + 1
            self.pos = end
            if kind == "ws":
                continue
            self.tokens += 1
            if self.tokens > self.max_tokens:
                raise _Decline
            span = (line, col, start + self.first_byte, self.line, end - self.line_start + 1, end + self.first_byte)
            return kind, value, span

    def skip_newlines(self) -> tuple[str, str, tuple]:
        kind, value, span = self.next()
        while kind == "nl":
            kind, value, span = self.next()
        return kind, value, span

    def collection(self, bracket: str, open_span: tuple) -> tuple[Any, tuple, int]:
        """An object or tuple after its opening bracket, with the separators the grammar allows:
        in a tuple commas (newlines around them), in an object a comma or newlines."""
        self.level += 1
        if self.level > self.limit:
            raise _Decline
        items: list = []
        depth = 0
        kind, value, span = self.skip_newlines()
        while kind != "close":
            if bracket == "{":
                item, item_depth = self.element(kind, value, span)
            else:
                v, _, item_depth = self.value(kind, value, span)
                item = v
            items.append(item)
            depth = max(depth, item_depth)
            kind, value, span = self.next()
            separated = kind == "nl"
            while kind == "nl":
                kind, value, span = self.next()
            if kind == "comma":
                kind, value, span = self.skip_newlines()
                separated = True
            elif bracket == "[" and kind != "close":
                raise _Decline
            if kind != "close" and not separated:
                raise _Decline  # object elements run together: left to the driver
        if value != ("}" if bracket == "{" else "]"):
            raise _Decline
        self.level -= 1
        whole = open_span[:3] + span[3:]
        depth += 1
        if depth > self.limit:
            raise _Decline
        rng = self.comp.rng(whole)
        node = A.ObjectCons(items, rng) if bracket == "{" else A.TupleCons(items, rng)
        return node, whole, depth

    def element(self, kind: str, value: str, span: tuple) -> tuple[tuple, int]:
        """One `key = value` of an object: ((key, value), depth)."""
        if kind == "name":
            if value in _KEYWORDS:
                raise _Decline
            key = A.ObjectKey(value, None, self.comp.rng(span))
            key_depth = 0
        elif kind == "str":
            key = A.ObjectKey(None, A.Literal(value[1:-1], self.comp.rng(span)), self.comp.rng(span))
            key_depth = 1
        else:
            raise _Decline
        if self.next()[0] != "assign":
            raise _Decline
        v, _, depth = self.value(*self.next())
        return (key, v), max(key_depth, depth)

    def value(self, kind: str, value: str, span: tuple) -> tuple[Any, tuple, int]:
        """A value: (tree, span, depth)."""
        comp = self.comp
        if kind == "num":
            return comp.number(value, span), span, 0
        if kind == "str":
            return A.Literal(value[1:-1], comp.rng(span)), span, 1
        if kind == "name":
            if value not in _WORDS:
                raise _Decline
            return A.Literal(_WORDS[value], comp.rng(span)), span, 0
        if kind == "open":
            return self.collection(value, span)
        if kind == "minus":
            kind2, value2, span2 = self.next()
            if kind2 != "num":
                raise _Decline
            whole = span[:3] + span2[3:]
            operand = comp.number(value2, span2)
            return comp.h_unary_op([_MinusTok, operand], whole), whole, 1
        raise _Decline


class _Minus:
    """Stands for the MINUS token in a unary minus handed to the Compiler's handler."""

    value = "-"


_MinusTok = _Minus()


def read_literal(comp: A.Compiler, text: str, pos: int, line: int, line_start: int, first_byte: int,
                 max_depth: int, max_tokens: int) -> tuple[Any, tuple, int, LiteralReader] | None:
    """The `literals` hook of hcl_parser.parse."""
    reader = LiteralReader(comp, text, pos, line, line_start, first_byte, max_depth, max_tokens)
    got = reader.read()
    if got is None:
        return None
    return got[0], got[1], got[2], reader
