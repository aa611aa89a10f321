"""A table-driven LALR parser for HCL that builds tfconsole's syntax tree while it parses.

The tables come from Lark's analysis of python-hcl2's grammar (hcl_tables.py), so the language
accepted and the shape of every reduction are exactly those of python-hcl2's Lark parser: the
same contextual lexer (per parser state, the first of Lark's ordered terminal alternatives that
matches; keywords carved out of NAME as Lark does), python-hcl2's post-lexer pass (a newline or
comment directly before a binary operator belongs to the operator) and Lark's position rule (a
node spans its first to its last child that has a position). What it skips is Lark's
parse-tree builder: each reduction hands its children straight to a handler (the Compiler in
lang/ast.py), so no intermediate tree is built, and nothing recurses, however deep the input.

Limits (stated in the errors they cause): nesting depth, and the size checks the loader does.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tfconsole.diags import Pos

# Deeper nesting than this is refused where it happens. Every consumer of the syntax tree
# (reference scans, evaluation, the cache codec) recurses once or a few times per level, so the
# limit keeps them all far from Python's recursion limit.
MAX_NESTING = 256
# Parser stack entries (roughly: open brackets not yet closed) before the input is refused.
MAX_STACK = 4 * MAX_NESTING + 64


class Tok:
    """A token: its terminal name, its text and its start / end positions."""

    __slots__ = ("type", "value", "start", "end")

    def __init__(self, type_: str, value: str, start: Pos, end: Pos):
        self.type = type_
        self.value = value
        self.start = start
        self.end = end

    def __repr__(self) -> str:
        return f"Tok({self.type}, {self.value!r}, {self.start.line}:{self.start.column})"


class Splice(list):
    """The children of an inlined grammar rule (`_name`), spread into the rule that uses it."""

    __slots__ = ()


class Bad:
    """A reduction whose handler raised ParseError: carried up to the handler that reports it."""

    __slots__ = ("error", "start", "end")

    def __init__(self, error: Exception, start: Pos | None, end: Pos | None):
        self.error = error
        self.start = start
        self.end = end


class HclSyntaxError(Exception):
    """The input is not HCL: an unexpected token (kind "token") or character (kind "chars")."""

    def __init__(self, kind: str, line: int, column: int, token_type: str = "", token_value: str = "",
                 expected: frozenset = frozenset(), start: Pos | None = None):
        self.kind = kind
        self.line = line
        self.column = column
        self.token_type = token_type
        self.token_value = token_value
        self.expected = expected
        self.start = start
        super().__init__(self.describe())

    def describe(self) -> str:
        if self.kind == "chars":
            return f"unexpected character at line {self.line}, column {self.column}"
        if self.token_type == "$END":
            return f"unexpected end of input at line {self.line}, column {self.column}"
        return f"unexpected {self.token_type} {self.token_value!r} at line {self.line}, column {self.column}"


class NestingTooDeep(Exception):
    def __init__(self, start: Pos | None, limit: int):
        self.start = start
        self.limit = limit
        super().__init__(f"nesting deeper than {limit} levels")


# rule kinds
_UNIT, _GENERAL = 0, 1
# rules whose handlers build one level of the syntax tree (for the nesting limit)
_NESTING_RULES = frozenset({
    "tuple", "object", "function_call", "binary_op", "unary_op", "conditional", "for_tuple_expr",
    "for_object_expr", "index_expr_term", "get_attr_expr_term", "attr_splat_expr_term",
    "full_splat_expr_term", "interpolation", "string", "block"})


class _Lexer:
    """One parser state's lexer: the alternation of its terminals, compiled on first use."""

    __slots__ = ("names", "unless", "ignore", "allowed", "_regex", "_source")

    def __init__(self, spec: dict, regex: dict[str, str]):
        self.names = spec["terminals"]
        self.unless = spec["unless"]
        self.ignore = frozenset(spec["ignore"])
        self.allowed = frozenset(self.names) - self.ignore
        self._source = regex
        self._regex: Any = None

    @property
    def match(self) -> Callable:
        if self._regex is None:
            pattern = "|".join(f"(?P<{n}>{self._source[n]})" for n in self.names)
            self._regex = re.compile(pattern)
        return self._regex.match


class Grammar:
    """Parse tables turned into the structures the driver indexes."""

    def __init__(self, tables: dict):
        self.key: str = tables["grammar_sha256"]
        self.states: list[dict[str, int]] = tables["states"]
        regex = tables["regex"]
        self.lexers = [_Lexer(spec, regex) for spec in tables["lexers"]]
        self.state_lexer = [self.lexers[i] for i in tables["state_lexer"]]
        self.root_lexer = self.lexers[tables["root_lexer"]]
        # python-hcl2's post-lexer: a newline or comment directly followed by one of these
        # belongs to the operator (which keeps its own position), so `a\n  || b` continues
        self.operators = frozenset(tables["operators"])
        self.start_states = tables["start_states"]
        self.end_states = tables["end_states"]
        self.rules = []
        for origin, name, size, expand1, splice in tables["rules"]:
            if origin.startswith("_"):
                kind = _GENERAL
            elif expand1 and size == 1 and not splice:
                kind = _UNIT  # `?rule: child` - the child passes through untouched
            else:
                kind = _GENERAL
            self.rules.append((kind, origin, name, size, expand1, tuple(splice), origin.startswith("_"),
                               name in _NESTING_RULES))
        # (state below, state on top, lookahead) -> state after the chain of unit reductions
        self.unit_chains: dict[tuple[int, int, str], int] = {}


_GRAMMAR: Grammar | None = None


def grammar() -> Grammar:
    global _GRAMMAR
    if _GRAMMAR is None:
        from .hcl_tables import load_tables

        _GRAMMAR = Grammar(load_tables())
    return _GRAMMAR


Handler = Callable[[list, "Pos | None", "Pos | None"], Any]


def parse(text: str, start: str, handlers: dict[str, Handler], default: Callable[[str], Handler],
          first_line: int = 1, bad_aware: frozenset = frozenset(), errors: tuple = (),
          first_column: int = 1, first_byte: int = 0) -> Any:
    """Parse `text` from start symbol `start`, calling handlers[name](children, start, end) at
    each reduction (default(name) for names without one); returns the start rule's value.
    Positions start at first_line, first_column and byte offset first_byte (an expression cut
    out of a larger file keeps that file's positions).

    A handler may raise one of `errors`: the value becomes a Bad, passed up unchanged until a
    rule named in `bad_aware` receives it (that handler reports it)."""
    g = grammar()
    states = g.states
    rules = g.rules
    state_lexer = g.state_lexer
    operators = g.operators
    handler_of = [handlers.get(r[2]) or default(r[2]) for r in rules]
    end_state = g.end_states[start]
    ss: list[int] = [g.start_states[start]]  # state stack
    vs: list[Any] = []  # values
    sp: list[Any] = []  # spans: (start Pos, end Pos) or None
    dp: list[int] = []  # nesting depth below each value
    nbad = 0

    def reduce(rule_index: int) -> None:
        nonlocal nbad
        _kind, origin, name, size, expand1, splice, inline, nests = rules[rule_index]
        if size == 1:
            kids = [vs.pop()]
            span = sp.pop()
            depth = dp.pop()
            ss.pop()
            s, e = span if span is not None else (None, None)
        elif size:
            kids = vs[-size:]
            spans = sp[-size:]
            depth = max(dp[-size:])
            del vs[-size:], sp[-size:], dp[-size:], ss[-size:]
            s = e = None
            for span in spans:
                if span is not None:
                    s = span[0]
                    break
            for span in reversed(spans):
                if span is not None:
                    e = span[1]
                    break
        else:
            kids, s, e, depth = [], None, None, 0
        if nests:
            depth += 1
            if depth > MAX_NESTING:
                raise NestingTooDeep(s, MAX_NESTING)
        if splice:
            kids = _spread(kids, splice)
        if inline:
            value: Any = kids if type(kids) is Splice else Splice(kids)
        elif expand1 and len(kids) == 1:
            value = kids[0]
        elif nbad and name not in bad_aware and any(type(k) is Bad for k in kids):
            bads = [k for k in kids if type(k) is Bad]
            nbad -= len(bads) - 1
            value = bads[0]
        else:
            if nbad:
                nbad -= sum(1 for k in kids if type(k) is Bad)
            try:
                value = handler_of[rule_index](kids, s, e)
            except errors as exc:
                value = Bad(exc, s, e)
            if type(value) is Bad:
                nbad += 1
        ss.append(states[ss[-1]][origin])
        vs.append(value)
        sp.append((s, e) if s is not None else None)
        dp.append(depth)

    unit_origin = [r[1] if r[0] == _UNIT else None for r in rules]
    chains = g.unit_chains

    def unit_chain(below: int, top: int, la: str) -> int:
        """The state after every consecutive `?rule: child` reduction from `top` on lookahead `la`
        (each pops one state and pushes the goto from `below`, so `below` stays)."""
        cur = top
        while cur != end_state:
            act = states[cur].get(la)
            if act is None or act >= 0 or unit_origin[-act - 1] is None:
                break
            cur = states[below][unit_origin[-act - 1]]
        chains[(below, top, la)] = cur
        return cur

    # rules of one child that only call their handler: reduced in place
    simple = [handler_of[i] if (r[0] != _UNIT and r[3] == 1 and not r[5] and not r[6] and not r[7]
                                and not r[4] and r[2] not in bad_aware) else None
              for i, r in enumerate(rules)]

    def feed(tok: Tok, is_end: bool = False) -> Any:
        nonlocal nbad
        type_ = tok.type
        while True:
            top = ss[-1]
            act = states[top].get(type_)
            if act is None:
                row = states[top]
                raise HclSyntaxError("token", tok.start.line, tok.start.column, type_, tok.value,
                                     frozenset(k for k in row if k.isupper()), tok.start)
            if act >= 0:
                ss.append(act)
                vs.append(tok)
                sp.append((tok.start, tok.end))
                dp.append(0)
                if len(ss) > MAX_STACK:
                    raise NestingTooDeep(tok.start, MAX_NESTING)
                return None
            r = -act - 1
            if unit_origin[r] is not None:
                below = ss[-2]
                new = chains.get((below, top, type_))
                ss[-1] = new if new is not None else unit_chain(below, top, type_)
                continue
            h = simple[r]
            if h is not None:
                # one child, replaced in place: the span and depth stay
                v = vs[-1]
                if type(v) is not Bad:
                    span = sp[-1]
                    try:
                        vs[-1] = h([v], *span) if span is not None else h([v], None, None)
                    except errors as exc:
                        vs[-1] = Bad(exc, *(span or (None, None)))
                        nbad += 1
                ss[-1] = states[ss[-2]][rules[r][1]]
                if is_end and ss[-1] == end_state:
                    return vs[-1]
                continue
            reduce(r)
            if is_end and ss[-1] == end_state:
                return vs[-1]

    # --- the lexer, inlined with python-hcl2's post-lexer pass
    pos = 0
    n = len(text)
    line = first_line
    line_start = 1 - first_column  # so that the first character is at column first_column
    pending: Tok | None = None
    last: Tok | None = None
    while pos < n:
        lexer = state_lexer[ss[-1]]
        m = lexer.match(text, pos)
        if m is None:
            raise _unexpected_characters(g, lexer, text, pos, line, line_start)
        value = m.group()
        type_ = m.lastgroup
        start = Pos(line, pos - line_start + 1, pos + first_byte)
        if "\n" in value:
            line += value.count("\n")
            line_start = pos + value.rindex("\n") + 1
        pos += len(value)
        if type_ in lexer.ignore:
            continue
        words = lexer.unless.get(type_)
        if words is not None:
            type_ = words.get(value, type_)
        tok = Tok(type_, value, start, Pos(line, pos - line_start + 1, pos + first_byte))
        if type_ == "NL_OR_COMMENT":
            if pending is not None:
                feed(pending)
            pending = tok
            continue
        if pending is not None:
            if type_ in operators:
                tok = Tok(type_, pending.value + value, tok.start, tok.end)
            else:
                feed(pending)
            pending = None
        feed(tok)
        last = tok
    if pending is not None:
        feed(pending)
        last = pending
    end = Tok("$END", "", last.start, last.end) if last is not None else \
        Tok("$END", "", Pos(first_line, first_column, first_byte), Pos(first_line, first_column, first_byte))
    return feed(end, True)


def _spread(kids: list, splice: tuple) -> list:
    """Children with those of inlined rules spread in place. A left-recursive list rule
    (`__x: __x item`) extends its first child's list, as Lark does, so a long list costs O(n)."""
    first = kids[0]
    if splice[0] == 0 and type(first) is Splice:
        out, begin = first, 1
    else:
        out, begin = Splice(), 0
    for i in range(begin, len(kids)):
        k = kids[i]
        if type(k) is Splice and i in splice:
            out.extend(k)
        else:
            out.append(k)
    return out


def _unexpected_characters(g: Grammar, lexer: _Lexer, text: str, pos: int, line: int,
                           line_start: int) -> HclSyntaxError:
    """As Lark's contextual lexer reports it: if some terminal of the whole grammar matches here,
    the error is that token being unexpected (expecting what this state's lexer allows);
    otherwise it is an unexpected character."""
    root = g.root_lexer
    orig = Pos(line, pos - line_start + 1, pos)
    m = root.match(text, pos)
    while m is not None and m.lastgroup in root.ignore:
        value = m.group()
        if "\n" in value:
            line += value.count("\n")
            line_start = pos + value.rindex("\n") + 1
        pos += len(value)
        m = root.match(text, pos) if pos < len(text) else None
    if m is None:
        return HclSyntaxError("chars", orig.line, orig.column, expected=lexer.allowed, start=orig)
    col = pos - line_start + 1
    type_ = m.lastgroup
    words = root.unless.get(type_)
    if words is not None:
        type_ = words.get(m.group(), type_)
    return HclSyntaxError("token", line, col, type_, m.group(), lexer.allowed, Pos(line, col, pos))
