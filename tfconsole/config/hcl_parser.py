"""A table-driven LALR parser for HCL that builds tfconsole's syntax tree while it parses.

The tables come from Lark's analysis of python-hcl2's grammar (hcl_tables.py), so the language
accepted and the shape of every reduction are exactly those of python-hcl2's Lark parser: the
same contextual lexer (per parser state, the first of Lark's ordered terminal alternatives that
matches; keywords carved out of NAME as Lark does), python-hcl2's post-lexer pass (a newline or
comment directly before a binary operator belongs to the operator) and Lark's position rule (a
node spans its first to its last child that has a position). What it skips is Lark's
parse-tree builder: each reduction hands its children straight to a handler (the Compiler in
lang/ast.py), so no intermediate tree is built, and nothing recurses, however deep the input.

Positions travel as spans, tuples (line, column, byte, end line, end column, end byte); a
SourceRange is made only for the nodes that keep one (make_range).

Limits (stated in the errors they cause): nesting depth and the number of tokens in one parse.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from operator import itemgetter
from typing import Any

from tfconsole.diags import Pos

# Deeper nesting than this is refused where it happens. Every consumer of the syntax tree
# (reference scans, evaluation, the cache codec) recurses once or a few times per level, so the
# limit keeps them all far from Python's recursion limit.
MAX_NESTING = 256
# Parser stack entries (roughly: open brackets not yet closed) before the input is refused.
MAX_STACK = 4 * MAX_NESTING + 64
# Tokens in one parse: each costs a few microseconds and, kept in the tree, a few hundred bytes,
# so this bounds one file at some seconds and some hundred megabytes. (About 4 MB of ordinary
# configuration; the largest generated modules in use are a few hundred KB.)
MAX_TOKENS = 1_000_000

Span = tuple  # (line, column, byte, end_line, end_column, end_byte)


class Tok(tuple):
    """A token: (terminal name, text, span), a tuple so that making one costs no Python call."""

    __slots__ = ()
    type = property(itemgetter(0))
    value = property(itemgetter(1))
    span = property(itemgetter(2))

    def __new__(cls, type_: str, value: str, span: Span) -> Tok:
        return tuple.__new__(cls, (type_, value, span))

    @property
    def start(self) -> Pos:
        sp = self[2]
        return Pos(sp[0], sp[1], sp[2])

    def __repr__(self) -> str:
        return f"Tok({self[0]}, {self[1]!r}, {self[2][0]}:{self[2][1]})"


class Splice(list):
    """The children of an inlined grammar rule (`_name`), spread into the rule that uses it."""

    __slots__ = ()


class Bad:
    """A reduction whose handler raised ParseError: carried up to the handler that reports it."""

    __slots__ = ("error", "span")

    def __init__(self, error: Exception, span: Span | None):
        self.error = error
        self.span = span


class HclSyntaxError(Exception):
    """The input is not HCL: an unexpected token (kind "token") or character (kind "chars")."""

    def __init__(self, kind: str, start: Pos, token_type: str = "", token_value: str = "",
                 expected: frozenset = frozenset()):
        self.kind = kind
        self.start = start
        self.line = start.line
        self.column = start.column
        self.token_type = token_type
        self.token_value = token_value
        self.expected = expected
        self.stack: list = []  # the parser's values when it stopped (open brackets are tokens there)
        super().__init__(self.describe())

    def describe(self) -> str:
        if self.kind == "chars":
            return f"unexpected character at line {self.line}, column {self.column}"
        if self.token_type == "$END":
            return f"unexpected end of input at line {self.line}, column {self.column}"
        return f"unexpected {self.token_type} {self.token_value[:40]!r} at line {self.line}, column {self.column}"


class TooLarge(Exception):
    """A parse went past MAX_NESTING or MAX_TOKENS; `what` says which, `limit` what it is."""

    def __init__(self, what: str, span: Span | None, limit: int):
        self.what = what
        self.start = Pos(span[0], span[1], span[2]) if span is not None else None
        self.limit = limit
        super().__init__(f"{what} beyond {limit}")


def span_start(span: Span) -> Pos:
    return Pos(span[0], span[1], span[2])


# A syntax tree has one SourceRange per node, and Pos / SourceRange are frozen dataclasses
# whose constructors cost over a microsecond each. The tree's ranges are therefore SpanRanges: a
# SourceRange holding the span tuple, making its start and end Pos when they are read (most
# never are). They compare and hash equal to the SourceRange of the same place.
def _range_maker() -> Callable[[str, Span], Any]:
    import dataclasses

    from tfconsole.diags import SourceRange

    if tuple(f.name for f in dataclasses.fields(SourceRange)) != ("filename", "start", "end") or \
            tuple(f.name for f in dataclasses.fields(Pos)) != ("line", "column", "byte"):
        return lambda filename, sp: SourceRange(filename, Pos(sp[0], sp[1], sp[2]), Pos(sp[3], sp[4], sp[5]))

    class SpanRange(SourceRange):  # type: ignore[misc]
        __slots__ = ("span",)

        @property  # type: ignore[override]
        def start(self) -> Pos:
            sp = self.span
            return Pos(sp[0], sp[1], sp[2])

        @property  # type: ignore[override]
        def end(self) -> Pos:
            sp = self.span
            return Pos(sp[3], sp[4], sp[5])

        def __eq__(self, other: object) -> bool:
            if not isinstance(other, SourceRange):
                return NotImplemented
            return (self.filename, self.start, self.end) == (other.filename, other.start, other.end)

        def __hash__(self) -> int:
            return hash((self.filename, self.start, self.end))

        def __reduce__(self) -> Any:
            return (SourceRange, (self.filename, self.start, self.end))

    set_file = SourceRange.__dict__["filename"].__set__
    set_span = SpanRange.__dict__["span"].__set__
    new = object.__new__

    def make(filename: str, sp: Span) -> Any:
        r = new(SpanRange)
        set_file(r, filename)
        set_span(r, sp)
        return r

    return make


make_range = _range_maker()


# rule kinds
_UNIT, _GENERAL = 0, 1
# rules whose handlers build one level of the syntax tree (for the nesting limit)
_NESTING_RULES = frozenset({
    "tuple", "object", "function_call", "binary_op", "unary_op", "conditional", "for_tuple_expr",
    "for_object_expr", "index_expr_term", "get_attr_expr_term", "attr_splat_expr_term",
    "full_splat_expr_term", "interpolation", "string", "block"})


class _Lexer:
    """One parser state's lexer. Lark's contextual lexer tries the state's terminals in order and
    takes the first that matches; so does this one, trying only the terminals that can start
    with the character at hand (their first characters are in the tables), each compiled once
    for all states."""

    __slots__ = ("names", "unless", "ignore", "allowed", "by_char", "_grammar")

    def __init__(self, spec: dict, grammar: "Grammar"):
        self.names = spec["terminals"]
        self.unless = spec["unless"]
        self.ignore = frozenset(spec["ignore"])
        self.allowed = frozenset(self.names) - self.ignore
        self.by_char: dict[str, tuple] = {}
        self._grammar = grammar

    def candidates(self, c: str) -> tuple:
        """(terminal, match) for each terminal that can start with `c`, in the lexer's order."""
        g = self._grammar
        out = tuple((n, g.matcher(n)) for n in self.names if g.first[n] is None or c in g.first[n])
        self.by_char[c] = out
        return out

    def match(self, text: str, pos: int) -> tuple[str, str] | None:
        """The first terminal matching at `pos`, as (name, text), or None."""
        c = text[pos]
        for name, match in self.by_char.get(c) or self.candidates(c):
            m = match(text, pos)
            if m is not None:
                return name, m.group()
        return None


class Grammar:
    """Parse tables turned into the structures the driver indexes."""

    def __init__(self, tables: dict):
        self.key: str = tables["grammar_sha256"]
        self.states: list[dict[str, int]] = tables["states"]
        self.regex: dict[str, str] = tables["regex"]
        self.first: dict[str, str | None] = tables["first"]
        self._matchers: dict[str, Callable] = {}
        self.lexers = [_Lexer(spec, self) for spec in tables["lexers"]]
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
        self.unit_origin = [r[1] if r[0] == _UNIT else None for r in self.rules]
        self.plans: dict[tuple, tuple] = {}
        self.closing_lexers = self._closing_lexers()

    def _closing_lexers(self) -> dict[str, tuple[str, _Lexer]]:
        """opening bracket -> (the nonterminal it starts, the lexer of the states that have just
        shifted its closing bracket), when all those states lex alike; for the literal path."""
        out = {}
        for opener, nonterm in (("LBRACE", "object"), ("LSQB", "tuple")):
            # a row's negative entries are reductions (-1 - rule): the states that reduce a rule of
            # `nonterm`, found by a set test run in C (a generator over every entry took 6 ms)
            reductions = {-i - 1 for i, r in enumerate(self.rules) if r[1] == nonterm}
            lexers = {id(self.state_lexer[st]): self.state_lexer[st] for st, row in enumerate(self.states)
                      if not reductions.isdisjoint(row.values())}
            if len(lexers) == 1:
                out[opener] = (nonterm, next(iter(lexers.values())))
        return out

    def matcher(self, name: str) -> Callable:
        m = self._matchers.get(name)
        if m is None:
            m = self._matchers[name] = re.compile(self.regex[name]).match
        return m


_GRAMMAR: Grammar | None = None


def grammar() -> Grammar:
    global _GRAMMAR
    if _GRAMMAR is None:
        from .hcl_tables import load_tables

        _GRAMMAR = Grammar(load_tables())
    return _GRAMMAR


Handler = Callable[[Any, list, "Span | None"], Any]


def _plan(g: Grammar, handlers: dict[str, Handler], default: Callable[[str], Handler],
          bad_aware: frozenset) -> tuple[list, list]:
    """Per rule: its handler, and the handler again if the rule is a one-child reduction the
    driver does in place (else None). Remembered per handler set: a template with many
    interpolations parses many small expressions."""
    key = (id(handlers), id(default), bad_aware)
    hit = g.plans.get(key)
    if hit is not None and hit[0] is handlers and hit[1] is default:
        return hit[2], hit[3]
    handler_of = [handlers.get(r[2]) or default(r[2]) for r in g.rules]
    simple = [handler_of[i] if (r[0] != _UNIT and r[3] == 1 and not r[5] and not r[6] and not r[7]
                                and not r[4] and r[2] not in bad_aware) else None
              for i, r in enumerate(g.rules)]
    if len(g.plans) > 64:
        g.plans.clear()
    g.plans[key] = (handlers, default, handler_of, simple)
    return handler_of, simple


def parse(text: str, start: str, handlers: dict[str, Handler], default: Callable[[str], Handler],
          ctx: Any = None, first_line: int = 1, bad_aware: frozenset = frozenset(), errors: tuple = (),
          first_column: int = 1, first_byte: int = 0, literals: Callable | None = None) -> Any:
    """Parse `text` from start symbol `start`, calling handlers[name](ctx, children, span) at
    each reduction (default(name) for names without one); returns the start rule's value.
    Positions start at first_line, first_column and byte offset first_byte (an expression cut
    out of a larger file keeps that file's positions).

    A handler may raise one of `errors`: the value becomes a Bad, passed up unchanged until a
    rule named in `bad_aware` receives it (that handler reports it).

    `literals(ctx, text, pos, line, line_start, first_byte, max_depth, max_tokens)`, if given, is offered
    each `{` / `[` where an object / tuple may start, and returns (tree, span, depth, reader)
    for a literal it read itself (reader: its end pos, line, line_start and token count), or
    None. A caller that gets a syntax error or a limit from a parse with `literals` must parse
    again without (hcl_literals.py says why)."""
    g = grammar()
    states = g.states
    rules = g.rules
    state_lexer = g.state_lexer
    operators = g.operators
    handler_of, simple = _plan(g, handlers, default, bad_aware)
    end_state = g.end_states[start]
    ss: list[int] = [g.start_states[start]]  # state stack
    vs: list[Any] = []  # values
    sp: list[Any] = []  # spans (None: no position, e.g. an empty body)
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
        elif size:
            kids = vs[-size:]
            spans = sp[-size:]
            depth = max(dp[-size:])
            del vs[-size:], sp[-size:], dp[-size:], ss[-size:]
            first = last = None
            for first in spans:
                if first is not None:
                    break
            for last in reversed(spans):
                if last is not None:
                    break
            if first is None:
                span = None
            elif first is last:
                span = first
            else:
                span = (first[0], first[1], first[2], last[3], last[4], last[5])
        else:
            kids, span, depth = [], None, 0
        if nests:
            depth += 1
            if depth > MAX_NESTING:
                raise TooLarge("nesting", span, MAX_NESTING)
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
                value = handler_of[rule_index](ctx, kids, span)
            except errors as exc:
                value = Bad(exc, span)
            if type(value) is Bad:
                nbad += 1
        ss.append(states[ss[-1]][origin])
        vs.append(value)
        sp.append(span)
        dp.append(depth)

    unit_origin = g.unit_origin
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

    def feed(tok: Tok, is_end: bool = False) -> Any:
        nonlocal nbad
        type_ = tok[0]
        while True:
            top = ss[-1]
            act = states[top].get(type_)
            if act is None:
                err = HclSyntaxError("token", tok.start, type_, tok.value,
                                     frozenset(k for k in states[top] if k.isupper()))
                err.stack = list(vs)
                raise err
            if act >= 0:
                ss.append(act)
                vs.append(tok)
                sp.append(tok[2])
                dp.append(0)
                if len(ss) > MAX_STACK:
                    raise TooLarge("nesting", tok[2], MAX_NESTING)
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
                    try:
                        vs[-1] = h(ctx, [v], sp[-1])
                    except errors as exc:
                        vs[-1] = Bad(exc, sp[-1])
                        nbad += 1
                ss[-1] = states[ss[-2]][rules[r][1]]
            else:
                reduce(r)
            if is_end and ss[-1] == end_state:
                return vs[-1]

    # --- the lexer, inlined with python-hcl2's post-lexer pass
    new_tok = tuple.__new__
    pos = 0
    n = len(text)
    line = first_line
    line_start = 1 - first_column  # so that the first character is at column first_column
    pending: Tok | None = None
    last: Tok | None = None
    count = 0
    # after a literal read by `literals`, the next tokens are lexed as after its closing
    # bracket (until the driver moves on): that state's lexer, not the one of the goto state
    after_value: Any = None
    after_lexer: Any = None
    after_depth = 0
    closers = g.closing_lexers if literals is not None else {}
    while pos < n:
        if after_value is not None and len(vs) == after_depth and vs[-1] is after_value:
            lexer = after_lexer
        else:
            after_value = None
            lexer = state_lexer[ss[-1]]
        c = text[pos]
        for type_, match in lexer.by_char.get(c) or lexer.candidates(c):
            m = match(text, pos)
            if m is not None:
                break
        else:
            raise _unexpected_characters(g, lexer, text, pos, line, line_start, first_byte)
        value = m.group()
        s_line, s_col = line, pos - line_start + 1
        if "\n" in value:
            line += value.count("\n")
            line_start = pos + value.rindex("\n") + 1
        end = pos + len(value)
        if type_ in lexer.ignore:
            pos = end
            continue
        words = lexer.unless.get(type_)
        if words is not None:
            type_ = words.get(value, type_)
        span = (s_line, s_col, pos + first_byte, line, end - line_start + 1, end + first_byte)
        tok = new_tok(Tok, (type_, value, span))
        pos = end
        count += 1
        if count > MAX_TOKENS:
            raise TooLarge("tokens", span, MAX_TOKENS)
        if type_ == "NL_OR_COMMENT":
            if pending is not None:
                feed(pending)
            pending = tok
            continue
        if pending is not None:
            if type_ in operators:
                tok = new_tok(Tok, (type_, pending[1] + value, span))
            else:
                feed(pending)
            pending = None
        if type_ in closers:
            top = ss[-1]
            act = states[top].get(type_)
            goto = states[top].get(closers[type_][0])
            if act is not None and act >= 0 and goto is not None:
                got = literals(ctx, text, span[2] - first_byte, s_line, line_start, first_byte, MAX_NESTING,
                               MAX_TOKENS - count + 1)
                if got is not None:
                    tree, tspan, depth, reader = got
                    ss.append(goto)
                    vs.append(tree)
                    sp.append(tspan)
                    dp.append(depth)
                    pos, line, line_start = reader.pos, reader.line, reader.line_start
                    count += reader.tokens - 1
                    if count > MAX_TOKENS:
                        raise TooLarge("tokens", tspan, MAX_TOKENS)
                    after_value, after_lexer, after_depth = tree, closers[type_][1], len(vs)
                    last = new_tok(Tok, ("RBRACE" if type_ == "LBRACE" else "RSQB", "", tspan[3:] * 2))
                    continue
        act = states[ss[-1]].get(type_)
        if act is not None and act >= 0:  # a plain shift, the commonest step, without a call
            ss.append(act)
            vs.append(tok)
            sp.append(span)
            dp.append(0)
            if len(ss) > MAX_STACK:
                raise TooLarge("nesting", span, MAX_NESTING)
        else:
            feed(tok)
        last = tok
    if pending is not None:
        feed(pending)
        last = pending
    if last is not None:
        end_tok = Tok("$END", "", last[2])
    else:
        end_tok = Tok("$END", "", (first_line, first_column, first_byte) * 2)
    return feed(end_tok, True)


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
                           line_start: int, first_byte: int) -> HclSyntaxError:
    """As Lark's contextual lexer reports it: if some terminal of the whole grammar matches here,
    the error is that token being unexpected (expecting what this state's lexer allows);
    otherwise it is an unexpected character."""
    root = g.root_lexer
    orig = Pos(line, pos - line_start + 1, pos + first_byte)
    m = root.match(text, pos)
    while m is not None and m[0] in root.ignore:
        value = m[1]
        if "\n" in value:
            line += value.count("\n")
            line_start = pos + value.rindex("\n") + 1
        pos += len(value)
        m = root.match(text, pos) if pos < len(text) else None
    if m is None:
        return HclSyntaxError("chars", orig, expected=lexer.allowed)
    type_, value = m
    words = root.unless.get(type_)
    if words is not None:
        type_ = words.get(value, type_)
    return HclSyntaxError("token", Pos(line, pos - line_start + 1, pos + first_byte), type_, value,
                          lexer.allowed)
