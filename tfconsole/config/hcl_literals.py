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
from tfconsole.lang.strings import nfc
from tfconsole.lang.values import note_wholly_known

# a token with the blanks before it: one match per token (blanks are half of a literal's matches)
_TOKEN = re.compile(r"""[ \t\r]*(?:
    (?P<nl>\n[ \t]*|\#[^\n]*\n|//[^\n]*\n)
  | (?P<open>[{\[])
  | (?P<close>[}\]])
  | (?P<comma>,)
  | (?P<assign>=(?![=>])|:(?!:))
  | (?P<num>(?:[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|[0-9]+))
  | (?P<str>"[^"\\$%\n]*")
  | (?P<name>[a-zA-Z_][a-zA-Z0-9_-]*)
  | (?P<minus>-)
)""", re.X)
_WORDS = {"true": True, "false": False, "null": None}
# names that lex as keywords in some parser states: declined as keys or values
_KEYWORDS = frozenset({"if", "in", "for", "for_each", "else", "endif", "endfor"})
class _Decline(Exception):
    """Not a plain literal: the driver parses it."""


class LiteralReader:
    """Reads one plain literal starting at an opening bracket; see the module docstring.

    A collection made only of literals with names as keys (what evaluation and the parse cache
    treat as a constant) is returned as its value, its item nodes read again from the text only
    if something asks for them (`eager` reads them at once): the nodes and ranges of a
    deep-merge module's 15 layers of literals were most of its parse."""

    __slots__ = ("comp", "text", "pos", "line", "line_start", "first_byte", "tokens", "limit", "level",
                 "max_tokens", "eager")

    def __init__(self, comp: A.Compiler, text: str, pos: int, line: int, line_start: int, first_byte: int,
                 limit: int, max_tokens: int, eager: bool = False):
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
        self.eager = eager

    def read(self) -> tuple[Any, tuple, int] | None:
        """(tree, span, depth) of the literal at self.pos, or None (declined)."""
        try:
            kind, value, span = self.next()
            if kind != "open":
                return None
            return self.collection(value, span)
        except (_Decline, A.ParseError, ValueError, IndexError, RecursionError, OverflowError):
            return None

    def next(self) -> tuple[str, str, tuple]:
        """The next token that is not blank: (kind, text, span)."""
        m = _TOKEN.match(self.text, self.pos)
        if m is None:
            raise _Decline
        kind = m.lastgroup
        value = m.group(kind)
        start = m.start(kind)
        line, col = self.line, start - self.line_start + 1
        end = m.end()
        if kind == "nl":
            self.line += 1
            self.line_start = start + value.index("\n") + 1
        self.pos = end
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
        in a tuple commas (newlines around them), in an object a comma or newlines. Its items
        are read as records (_item) and made into nodes, or into a value, at the closing bracket."""
        at = (self.pos, self.line, self.line_start, self.tokens, self.level)
        self.level += 1
        if self.level > self.limit:
            raise _Decline
        items: list = []
        depth = 0
        kind, value, span = self.skip_newlines()
        while kind != "close":
            item, item_depth = self.element(kind, value, span) if bracket == "{" else self.value(kind, value, span)
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
        cls = A.ObjectCons if bracket == "{" else A.TupleCons
        if not self.eager:
            const = self.constant(items, bracket == "{")
            if const is not None:
                return cls.constant(const, self.reread(at, bracket, open_span), rng), whole, depth
        nodes = [(self.node(k), self.node(v)) for k, v in items] if bracket == "{" else [self.node(v) for v in items]
        return cls(nodes, rng), whole, depth

    def element(self, kind: str, value: str, span: tuple) -> tuple[tuple, int]:
        """One `key = value` of an object: ((key record, value record), depth)."""
        if kind == "name":
            if value in _KEYWORDS:
                raise _Decline
            key, key_depth = ("key", value, span), 0
        elif kind == "str":
            key, key_depth = ("skey", value, span), 1
        else:
            raise _Decline
        if self.next()[0] != "assign":
            raise _Decline
        v, depth = self.value(*self.next())
        return (key, v), max(key_depth, depth)

    def value(self, kind: str, value: str, span: tuple) -> tuple[tuple, int]:
        """A value's record: ((kind, text, span) or ("node", tree), depth)."""
        if kind == "num":
            return (kind, value, span), 0
        if kind == "str":
            return (kind, value, span), 1
        if kind == "name":
            if value not in _WORDS:
                raise _Decline
            return (kind, value, span), 0
        if kind == "open":
            tree, _, depth = self.collection(value, span)
            return ("node", tree), depth
        if kind == "minus":
            kind2, value2, span2 = self.next()
            if kind2 != "num":
                raise _Decline
            return ("neg", value2, span[:3] + span2[3:], span2), 1
        raise _Decline

    def node(self, rec: tuple) -> Any:
        """The tree of a record, exactly as the driver builds it."""
        comp = self.comp
        kind = rec[0]
        if kind == "node":
            return rec[1]
        if kind == "key":
            return A.ObjectKey(rec[1], None, comp.rng(rec[2]))
        if kind == "skey":
            return A.ObjectKey(None, A.Literal(rec[1][1:-1], comp.rng(rec[2])), comp.rng(rec[2]))
        if kind == "num":
            return comp.number(rec[1], rec[2])
        if kind == "str":
            return A.Literal(rec[1][1:-1], comp.rng(rec[2]))
        if kind == "name":
            return A.Literal(_WORDS[rec[1]], comp.rng(rec[2]))
        return comp.h_unary_op([_MinusTok, comp.number(rec[1], rec[3])], rec[2])  # neg

    def constant(self, items: list, is_object: bool) -> Any:
        """The value evaluating the collection gives (eval._object, _tuple, _literal), when every
        key is a name and every item a literal or such a collection; else None."""
        if is_object:
            out: Any = {}
            for k, v in items:
                if k[0] != "key":
                    return None
                x = self.item_value(v)
                if x is _NOT_CONSTANT:
                    return None
                out[k[1]] = x
        else:
            out = []
            for v in items:
                x = self.item_value(v)
                if x is _NOT_CONSTANT:
                    return None
                out.append(x)
        return note_wholly_known(out)

    def item_value(self, rec: tuple) -> Any:
        kind = rec[0]
        if kind == "str":
            return nfc(rec[1][1:-1])
        if kind == "name":
            return _WORDS[rec[1]]
        if kind == "node":
            const = rec[1].const
            return _NOT_CONSTANT if const is None or const is A.NOT_CONSTANT else const
        v = A.number_literal(rec[1])  # num, neg: what the driver's nodes hold
        neg = kind == "neg"
        if neg:
            v = A.numbers.neg(v)
        if type(v) is not int:  # the parse cache stores such a number by its text (parse_cache._Encoder)
            self.comp.numbers[id(v)] = (v, rec[1], neg)
        return v

    def reread(self, at: tuple, bracket: str, open_span: tuple) -> Any:
        """The item nodes of the constant collection read from `at`, made when first asked for."""
        comp, text, first_byte, limit, max_tokens = self.comp, self.text, self.first_byte, self.limit, self.max_tokens

        def items() -> list:
            r = LiteralReader(comp, text, at[0], at[1], at[2], first_byte, limit, max_tokens, eager=True)
            r.tokens, r.level = at[3], at[4]
            return r.collection(bracket, open_span)[0].items

        return items


_NOT_CONSTANT = object()


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
