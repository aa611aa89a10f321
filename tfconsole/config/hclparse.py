"""The syntax of HCL's native language, checked the way HCL's own parser checks it.

`parse_config` reads a whole file and `parse_expression` a standalone expression (the console's
input). Both return a light syntax tree (bodies, attributes and blocks with their source ranges;
expressions reduced to their kind and range) plus the syntax errors, with HCL's summaries, details,
subject and context ranges, and its recovery rules, so that a file gets the same errors from us as
from Terraform. Evaluation is not done here (see tfconsole.lang); the tree exists to locate the
tokens of each construct for the formatter.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any

from tfconsole.diags import Diagnostics, Pos, SourceRange

from .hclscan import Tok, Token, advance_pos, scan

_BINARY_LEVELS: list[frozenset[Tok]] = [
    frozenset({Tok.OR}),
    frozenset({Tok.AND}),
    frozenset({Tok.EQUAL_OP, Tok.NOT_EQUAL}),
    frozenset({Tok.GREATER_THAN, Tok.GREATER_THAN_EQ, Tok.LESS_THAN, Tok.LESS_THAN_EQ}),
    frozenset({Tok.PLUS, Tok.MINUS}),
    frozenset({Tok.STAR, Tok.SLASH, Tok.PERCENT}),
]
_OPPOSITE = {
    Tok.OBRACE: Tok.CBRACE, Tok.OBRACK: Tok.CBRACK, Tok.OPAREN: Tok.CPAREN, Tok.OQUOTE: Tok.CQUOTE,
    Tok.OHEREDOC: Tok.CHEREDOC, Tok.CBRACE: Tok.OBRACE, Tok.CBRACK: Tok.OBRACK, Tok.CPAREN: Tok.OPAREN,
    Tok.CQUOTE: Tok.OQUOTE, Tok.CHEREDOC: Tok.OHEREDOC, Tok.TEMPLATE_CONTROL: Tok.TEMPLATE_SEQ_END,
    Tok.TEMPLATE_INTERP: Tok.TEMPLATE_SEQ_END, Tok.TEMPLATE_SEQ_END: Tok.TEMPLATE_INTERP,
}
_NUMBER = re.compile(r"[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_ZERO = Pos(0, 0, 0)


def between(a: SourceRange, b: SourceRange) -> SourceRange:
    return SourceRange(a.filename, a.start, b.end)


def range_str(r: SourceRange) -> str:
    """HCL's compact form of a range, as messages quote it."""
    if r.start.line == r.end.line:
        return f"{r.filename}:{r.start.line},{r.start.column}-{r.end.column}"
    return f"{r.filename}:{r.start.line},{r.start.column}-{r.end.line},{r.end.column}"


@dataclass(frozen=True)
class HclDiag:
    """A syntax error as HCL reports it: the subject is underlined, the context widens the
    quoted source."""

    summary: str
    detail: str
    subject: SourceRange
    context: SourceRange | None = None


# ---------------------------------------------------------------------------
# the tree


@dataclass
class Expr:
    kind: str
    rng: SourceRange
    parts: list[Any] = field(default_factory=list)


@dataclass
class Attribute:
    name: str
    expr: Expr
    src_range: SourceRange
    name_range: SourceRange
    equals_range: SourceRange


@dataclass
class Block:
    type: str
    labels: list[str]
    body: Body
    type_range: SourceRange
    label_ranges: list[SourceRange]
    open_brace_range: SourceRange
    close_brace_range: SourceRange


@dataclass
class Body:
    attributes: dict[str, Attribute]
    blocks: list[Block]
    src_range: SourceRange

    def items(self) -> list[Attribute | Block]:
        """Attributes and blocks in source order."""
        out: list[Attribute | Block] = [*self.attributes.values(), *self.blocks]
        out.sort(key=lambda i: (i.src_range.start.byte if isinstance(i, Attribute) else i.type_range.start.byte))
        return out


def _tok_range(t: Token, filename: str) -> SourceRange:
    return SourceRange(filename, t.start, t.end)


# ---------------------------------------------------------------------------
# lexical checks (tokens that never belong in HCL)

_INVALID_MESSAGES = {
    Tok.BACKTICK: "The \"`\" character is not valid. To create a multi-line string, use the \"heredoc\" syntax, "
                  "like \"<<EOT\".",
    Tok.APOSTROPHE: "Single quotes are not valid. Use double quotes (\") to enclose strings.",
    Tok.SEMICOLON: "The \";\" character is not valid. Use newlines to separate arguments and blocks, and commas to "
                   "separate items in collection values.",
}
_BITWISE = {Tok.BITWISE_AND: " Did you mean boolean AND (\"&&\")?", Tok.BITWISE_OR: " Did you mean boolean OR (\"||\")?",
            Tok.BITWISE_NOT: " Did you mean boolean NOT (\"!\")?", Tok.BITWISE_XOR: ""}


_NEVER_VALID = (Tok.BITWISE_AND, Tok.BITWISE_OR, Tok.BITWISE_NOT, Tok.BITWISE_XOR, Tok.BACKTICK, Tok.APOSTROPHE,
                Tok.SEMICOLON, Tok.BAD_UTF8, Tok.QUOTED_NEWLINE, Tok.INVALID)


def check_tokens(tokens: list[Token], filename: str) -> list[HclDiag]:
    """Errors for characters HCL never accepts, at most as often as HCL repeats each one."""
    out: list[HclDiag] = []
    told = {"bitwise": 0, "backtick": 0, "apostrophe": 0, "semicolon": 0, "badutf8": 0}
    for t in tokens:
        ty = t.type
        if ty not in _NEVER_VALID:
            continue
        r = _tok_range(t, filename)
        if ty in _BITWISE:
            if told["bitwise"] < 4:
                out.append(HclDiag("Unsupported operator", f"Bitwise operators are not supported.{_BITWISE[ty]}", r))
                told["bitwise"] += 1
        elif ty in (Tok.BACKTICK, Tok.APOSTROPHE):
            key = "backtick" if ty is Tok.BACKTICK else "apostrophe"
            if told[key] % 2 == 0:
                out.append(HclDiag("Invalid character", _INVALID_MESSAGES[ty], r))
            if told[key] <= 2:
                told[key] += 1
        elif ty is Tok.SEMICOLON:
            if told["semicolon"] < 1:
                out.append(HclDiag("Invalid character", _INVALID_MESSAGES[ty], r))
                told["semicolon"] += 1
        elif ty is Tok.BAD_UTF8:
            if told["badutf8"] < 1:
                out.append(HclDiag("Invalid character encoding", "All input files must be UTF-8 encoded. Ensure "
                                   "that UTF-8 encoding is selected in your editor.", r))
                told["badutf8"] += 1
        elif ty is Tok.QUOTED_NEWLINE:
            out.append(HclDiag("Invalid multi-line string", "Quoted strings may not be split over multiple lines. "
                               "To produce a multi-line string, either use the \\n escape to represent a newline "
                               "character or use the \"heredoc\" multi-line template syntax.", r))
        elif ty is Tok.INVALID:
            if t.bytes in ("“".encode(), "”".encode()):
                out.append(HclDiag("Invalid character", "\"Curly quotes\" are not valid here. These can sometimes "
                                   "be inadvertently introduced when sharing code via documents or discussion "
                                   "forums. It might help to replace the character with a \"straight quote\".", r))
            else:
                out.append(HclDiag("Invalid character", "This character is not used within the language.", r))
    return out


# ---------------------------------------------------------------------------
# string literals


def _escape_slices(b: bytes) -> list[bytes]:
    """Split a quoted literal into escape sequences, template escapes, newlines and plain runs."""
    out: list[bytes] = []
    i = 0
    n = len(b)
    lit = 0
    while i < n:
        c = b[i]
        if c == 0x5C:  # backslash
            j = i + 1
            if j < n and b[j] in (0x75, 0x55):
                limit = 4 if b[j] == 0x75 else 8
                k = j + 1
                while k < n and k - j - 1 < limit and chr(b[k]) in "0123456789abcdefABCDEF":
                    k += 1
            elif j < n:
                k = j + _utf8_len(b, j)
            else:
                k = j
        elif c in (0x24, 0x25):
            k = i + 1
            if k < n and b[k] == c:
                k += 1
                if k < n and b[k] == 0x7B:
                    k += 1
        elif c in (0x0A, 0x0D):
            k = i + 2 if b[i:i + 2] == b"\r\n" else i + 1
        else:
            i += 1
            continue
        if lit < i:
            out.append(b[lit:i])
        out.append(b[i:k])
        i = lit = k
    if lit < n:
        out.append(b[lit:n])
    return out


def _utf8_len(b: bytes, i: int) -> int:
    c = b[i]
    return 1 if c < 0xC0 else 2 if c < 0xE0 else 3 if c < 0xF0 else 4


def string_literal_value(t: Token, filename: str, quoted: bool = True) -> tuple[str, list[HclDiag]]:
    """The text a literal token stands for, with HCL's errors for bad escapes."""
    diags: list[HclDiag] = []
    out: list[str] = []
    pos = t.start
    for piece in _escape_slices(t.bytes):
        start = pos
        pos = advance_pos(pos, piece)
        rng = SourceRange(filename, start, pos)
        text = piece.decode("utf-8", "replace")
        if quoted and piece[:1] == b"\\":
            value, err = _escape_value(piece)
            if err:
                diags.append(HclDiag("Invalid escape sequence", err, rng))
            out.append(value)
            continue
        if piece[:1] in (b"$", b"%") and len(piece) == 3 and piece[1:2] == piece[:1]:
            out.append(text[0] + "{")
            continue
        out.append(text)
    return "".join(out), diags


_SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}


def _escape_value(piece: bytes) -> tuple[str, str]:
    text = piece.decode("utf-8", "replace")
    if len(text) < 2:
        return text, "Backslash must be followed by an escape sequence selector character."
    sel = text[1]
    if sel in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[sel], ""
    if sel == "u" and len(piece) != 6:
        return text, "The \\u escape sequence must be followed by four hexadecimal digits."
    if sel == "U" and len(piece) != 10:
        return text, "The \\U escape sequence must be followed by eight hexadecimal digits."
    if sel in "uU":
        cp = int("0x" + text[2:], 0)
        if cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
            return text, f"Cannot encode character U+{cp:04x} in UTF-8."
        return chr(cp), ""
    return text[1:], f"The symbol {_go_quote(text[1:])} is not a valid escape sequence selector."


def _go_quote(s: str) -> str:
    """Go's %q of a string (strconv.Quote)."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch in "\a\b\f\n\r\t\v":
            out.append({"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
                        "\v": "\\v"}[ch])
        elif ch.isprintable():
            out.append(ch)
        elif o < 0x80:
            out.append(f"\\x{o:02x}")
        elif o < 0x10000:
            out.append(f"\\u{o:04x}")
        else:
            out.append(f"\\U{o:08x}")
    out.append('"')
    return "".join(out)


# ---------------------------------------------------------------------------
# the peeker: a cursor over tokens that hides comments and, in some contexts, newlines


class _Peeker:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.next_index = 0
        self.newlines = [True]
        self._memo: tuple[int, bool, Token, int] | None = None

    def _next(self) -> tuple[Token, int]:
        include = self.newlines[-1]
        memo = self._memo
        if memo is not None and memo[0] == self.next_index and memo[1] is include:
            return memo[2], memo[3]
        t, i = self._scan(include)
        self._memo = (self.next_index, include, t, i)
        return t, i

    def _scan(self, include: bool) -> tuple[Token, int]:
        toks = self.tokens
        for i in range(self.next_index, len(toks)):
            t = toks[i]
            if t.type is Tok.COMMENT:
                if include and t.bytes.endswith(b"\n"):
                    # a line comment ends its line: it stands for the newline it swallowed
                    return Token(Tok.NEWLINE, b"\n", t.start, t.end), i + 1
                continue
            if t.type is Tok.NEWLINE and not include:
                continue
            return t, i + 1
        return toks[-1], len(toks)

    def peek(self) -> Token:
        return self._next()[0]

    def read(self) -> Token:
        t, self.next_index = self._next()
        return t

    def push_newlines(self, include: bool) -> None:
        self.newlines.append(include)

    def pop_newlines(self) -> None:
        self.newlines.pop()


def _is_kw(t: Token, kw: str) -> bool:
    return t.type is Tok.IDENT and t.bytes == kw.encode()


# ---------------------------------------------------------------------------
# the parser


class Parser:
    def __init__(self, tokens: list[Token], filename: str) -> None:
        self.p = _Peeker(tokens)
        self.filename = filename
        self.recovery = False
        self.diags: list[HclDiag] = []

    # -- helpers
    def rng(self, t: Token) -> SourceRange:
        return SourceRange(self.filename, t.start, t.end)

    def peek(self) -> Token:
        return self.p.peek()

    def read(self) -> Token:
        return self.p.read()

    def next_range(self) -> SourceRange:
        return self.rng(self.peek())

    def prev_range(self) -> SourceRange:
        if self.p.next_index == 0:
            return self.next_range()
        return self.rng(self.p.tokens[self.p.next_index - 1])

    def err(self, summary: str, detail: str, subject: SourceRange, context: SourceRange | None = None) -> None:
        self.diags.append(HclDiag(summary, detail, subject, context))

    def recover(self, end: Tok) -> Token:
        """Skip to the token that closes the current construct, counting nested openers."""
        start = _OPPOSITE.get(end, Tok.NIL)
        self.recovery = True
        nest = 0
        while True:
            t = self.read()
            ty = t.type
            if end is Tok.TEMPLATE_SEQ_END and ty is Tok.TEMPLATE_CONTROL:
                ty = Tok.TEMPLATE_INTERP
            if ty is start:
                nest += 1
            elif ty is end:
                if nest < 1:
                    return t
                nest -= 1
            elif ty is Tok.EOF:
                return t

    def recover_over(self, start: Tok) -> None:
        while True:
            t = self.read()
            if t.type in (start, Tok.EOF):
                break
        self.recover(_OPPOSITE[start])

    def recover_after_body_item(self) -> None:
        self.recovery = True
        open_: list[Tok] = []
        while True:
            t = self.read()
            ty = t.type
            if ty is Tok.NEWLINE:
                if not open_:
                    return
            elif ty is Tok.EOF:
                return
            elif ty in (Tok.OBRACE, Tok.OBRACK, Tok.OPAREN, Tok.OQUOTE, Tok.OHEREDOC, Tok.TEMPLATE_INTERP,
                        Tok.TEMPLATE_CONTROL):
                open_.append(ty)
            elif ty in (Tok.CBRACE, Tok.CBRACK, Tok.CPAREN, Tok.CQUOTE, Tok.CHEREDOC):
                opener = _OPPOSITE[ty]
                while open_ and open_[-1] is not opener:
                    open_.pop()
                if open_:
                    open_.pop()
            elif ty is Tok.TEMPLATE_SEQ_END:
                while open_ and open_[-1] not in (Tok.TEMPLATE_INTERP, Tok.TEMPLATE_CONTROL):
                    open_.pop()
                if open_:
                    open_.pop()

    # -- bodies
    def parse_body(self, end: Tok) -> Body:
        attrs: dict[str, Attribute] = {}
        blocks: list[Block] = []
        start_range = self.prev_range()
        while True:
            nxt = self.peek()
            if nxt.type is end:
                end_range = self.next_range()
                self.read()
                break
            if nxt.type is Tok.NEWLINE:
                self.read()
                continue
            if nxt.type is Tok.IDENT:
                item = self.parse_body_item()
                if isinstance(item, Block):
                    blocks.append(item)
                elif isinstance(item, Attribute):
                    if item.name in attrs:
                        self.err("Attribute redefined",
                                 f"The argument {_go_quote(item.name)} was already set at "
                                 f"{range_str(attrs[item.name].name_range)}. Each argument may be set only once.",
                                 item.name_range)
                    else:
                        attrs[item.name] = item
                continue
            bad = self.read()
            if not self.recovery:
                self._bad_body_token(bad, end, start_range)
            end_range = self.prev_range()
            self.recover(end)
            break
        return Body(attrs, blocks, between(start_range, end_range))

    def _bad_body_token(self, bad: Token, end: Tok, start_range: SourceRange) -> None:
        if bad.type is Tok.OQUOTE:
            self.err("Invalid argument name", "Argument names must not be quoted.", self.rng(bad))
        elif bad.type is Tok.EOF:
            if end is Tok.CBRACE:
                self.err("Unclosed configuration block", "There is no closing brace for this block before the "
                         "end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
                         start_range)
            else:
                self.err("Unclosed configuration body", "Found end of file before the end of this configuration "
                         "body.", start_range)
        else:
            self.err("Argument or block definition required", "An argument or block definition is required here.",
                     self.rng(bad))

    def _item_name(self) -> Token | None:
        """The identifier that starts a body item; None (after an error) if there is none."""
        ident = self.read()
        if ident.type is Tok.IDENT:
            return ident
        self.recover_after_body_item()
        self.err("Argument or block definition required", "An argument or block definition is required here.",
                 self.rng(ident))
        return None

    def parse_body_item(self) -> Attribute | Block | None:
        ident = self._item_name()
        if ident is None:
            return None
        nxt = self.peek()
        if nxt.type is Tok.EQUAL:
            return self.finish_attribute(ident, False)
        if nxt.type in (Tok.OQUOTE, Tok.OBRACE, Tok.IDENT):
            return self.finish_block(ident)
        self.recover_after_body_item()
        self.err("Argument or block definition required", "An argument or block definition is required here. To "
                 "set an argument, use the equals sign \"=\" to introduce the argument value.", self.rng(ident))
        return None

    def parse_single_attr_body(self) -> Body | None:
        ident = self._item_name()
        if ident is None:
            return None
        nxt = self.peek()
        if nxt.type is Tok.EQUAL:
            attr = self.finish_attribute(ident, True)
            return Body({attr.name: attr}, [], attr.src_range)
        self.recover_after_body_item()
        if nxt.type in (Tok.OQUOTE, Tok.OBRACE, Tok.IDENT):
            self.err("Argument definition required",
                     "A single-line block definition can contain only a single argument. If you meant to define "
                     f"argument {_go_quote(ident.text)}, use an equals sign to assign it a value. To define a nested "
                     "block, place it on a line of its own within its parent block.",
                     between(self.rng(ident), self.rng(nxt)))
        else:
            self.err("Argument or block definition required", "An argument or block definition is required here. "
                     "To set an argument, use the equals sign \"=\" to introduce the argument value.",
                     self.rng(ident))
        return None

    def finish_attribute(self, ident: Token, single_line: bool) -> Attribute:
        eq = self.read()
        before = len(self.diags)
        expr = self.parse_expression()
        failed = len(self.diags) > before
        if self.recovery and failed:
            end_range = self.prev_range()
            self.recover_after_body_item()
        else:
            end_range = self.prev_range()
            if not single_line:
                end = self.peek()
                if end.type not in (Tok.NEWLINE, Tok.EOF):
                    if not self.recovery:
                        summary, detail = "Missing newline after argument", "An argument definition must end with a newline."
                        if end.type is Tok.COMMA:
                            summary = "Unexpected comma after argument"
                            detail = "Argument definitions must be separated by newlines, not commas. " + detail
                        self.err(summary, detail, self.rng(end), between(self.rng(ident), self.rng(end)))
                    end_range = self.prev_range()
                    self.recover_after_body_item()
                else:
                    end_range = self.prev_range()
                    self.read()
        return Attribute(ident.text, expr, between(self.rng(ident), end_range), self.rng(ident), self.rng(eq))

    def finish_block(self, ident: Token) -> Block:
        labels: list[str] = []
        label_ranges: list[SourceRange] = []
        while True:
            t = self.peek()
            if t.type is Tok.OBRACE:
                obrace = self.read()
                break
            if t.type is Tok.OQUOTE:
                label, lrng = self.parse_quoted_string_literal()
                labels.append(label)
                label_ranges.append(lrng)
                continue
            if t.type is Tok.IDENT:
                t = self.read()
                labels.append(t.text)
                label_ranges.append(self.rng(t))
                continue
            ctx = between(self.rng(ident), self.rng(t))
            if t.type is Tok.EQUAL:
                self.err("Invalid block definition", "The equals sign \"=\" indicates an argument definition, and "
                         "must not be used when defining a block.", self.rng(t), ctx)
            elif t.type is Tok.NEWLINE:
                self.err("Invalid block definition", "A block definition must have block content delimited by "
                         "\"{\" and \"}\", starting on the same line as the block header.", self.rng(t), ctx)
            elif not self.recovery:
                self.err("Invalid block definition", "Either a quoted string block label or an opening brace "
                         "(\"{\") is expected here.", self.rng(t), ctx)
            self.recover_after_body_item()
            r = self.rng(ident)
            return Block(ident.text, labels, Body({}, [], r), r, label_ranges, r, r)
        body = self._block_body(ident, obrace)
        cbrace_range = self.prev_range()
        eol = self.peek()
        if eol.type in (Tok.NEWLINE, Tok.EOF):
            self.read()
        else:
            if not self.recovery:
                self.err("Missing newline after block definition", "A block definition must end with a newline.",
                         self.rng(eol), between(self.rng(ident), self.rng(eol)))
            self.recover_after_body_item()
        if body is None:
            body = Body({}, [], between(self.rng(obrace), cbrace_range))
        return Block(ident.text, labels, body, self.rng(ident), label_ranges, self.rng(obrace), cbrace_range)

    def _block_body(self, ident: Token, obrace: Token) -> Body | None:
        if self.peek().type in (Tok.NEWLINE, Tok.EOF, Tok.CBRACE):
            return self.parse_body(Tok.CBRACE)
        body = self.parse_single_attr_body()
        nxt = self.peek()
        if nxt.type is Tok.CBRACE:
            self.read()
        elif nxt.type is Tok.COMMA:
            self.err("Invalid single-argument block definition", "Single-line block syntax can include only one "
                     "argument definition. To define multiple arguments, use the multi-line block syntax with one "
                     "argument definition per line.", self.rng(nxt))
            self.recover(Tok.CBRACE)
        elif nxt.type is Tok.NEWLINE:
            self.err("Invalid single-argument block definition", "An argument definition on the same line as its "
                     "containing block creates a single-line block definition, which must also be closed on the "
                     "same line. Place the block's closing brace immediately after the argument definition.",
                     self.rng(nxt))
            self.recover(Tok.CBRACE)
        else:
            if not self.recovery:
                if nxt.type is Tok.EOF:
                    self.err("Unclosed configuration block", "There is no closing brace for this block before the "
                             "end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
                             self.rng(obrace), between(self.rng(ident), self.rng(obrace)))
                else:
                    self.err("Invalid single-argument block definition", "A single-line block definition must end "
                             "with a closing brace immediately after its single argument definition.", self.rng(nxt))
            self.recover(Tok.CBRACE)
        return body

    # -- expressions
    def parse_expression(self) -> Expr:
        return self.parse_conditional()

    def _errs_since(self, n: int) -> bool:
        return len(self.diags) > n

    def parse_conditional(self) -> Expr:
        start_range = self.next_range()
        n = len(self.diags)
        cond = self.parse_binary(0)
        if self.recovery and self._errs_since(n):
            return cond
        if self.peek().type is not Tok.QUESTION:
            return cond
        self.read()
        n = len(self.diags)
        self.parse_expression()
        if self.recovery and self._errs_since(n):
            return cond
        colon = self.peek()
        if colon.type is not Tok.COLON:
            self.err("Missing false expression in conditional", "The conditional operator (...?...:...) requires a "
                     "false expression, delimited by a colon.", self.rng(colon), between(start_range, self.rng(colon)))
            return cond
        self.read()
        n = len(self.diags)
        false_expr = self.parse_expression()
        if self.recovery and self._errs_since(n):
            return cond
        return Expr("Conditional", between(start_range, false_expr.rng))

    def parse_binary(self, level: int) -> Expr:
        if level == len(_BINARY_LEVELS):
            return self.parse_with_traversals()
        ops = _BINARY_LEVELS[level]
        n = len(self.diags)
        lhs = self.parse_binary(level + 1)
        if self.recovery and self._errs_since(n):
            return lhs
        rhs: Expr | None = None
        while self.peek().type in ops:
            if rhs is not None:
                lhs = Expr("BinaryOp", between(lhs.rng, rhs.rng))
            self.read()
            n = len(self.diags)
            rhs = self.parse_binary(level + 1)
            if self.recovery and self._errs_since(n):
                return lhs
        if rhs is None:
            return lhs
        return Expr("BinaryOp", between(lhs.rng, rhs.rng))

    def parse_with_traversals(self) -> Expr:
        return self.parse_traversals(self.parse_term())

    def parse_traversals(self, src: Expr) -> Expr:
        ret = src
        while True:
            nxt = self.peek()
            if nxt.type is Tok.DOT:
                ret = self._dot_traversal(src, ret)
            elif nxt.type is Tok.OBRACK:
                ret = self._bracket_traversal(src, ret)
            else:
                return ret

    def _extend(self, expr: Expr, rng: SourceRange) -> Expr:
        if expr.kind in ("ScopeTraversal", "RelativeTraversal"):
            expr.rng = between(expr.rng, rng)
            return expr
        return Expr("RelativeTraversal", between(expr.rng, rng))

    def _legacy_index(self, num: Token, splat: bool, subject: Token) -> bool:
        if b"." not in num.bytes:
            self._number_value(num)
            return False
        first, second = num.text.split(".", 1)
        how = "with a full splat expression [*] " if splat else ""
        self.err("Invalid legacy index syntax", "When using the legacy index syntax, chaining two indexes together "
                 f"is not permitted. Use the proper index syntax {how}instead, like [{first}][{second}].",
                 self.rng(subject))
        return True

    def _dot_traversal(self, src: Expr, ret: Expr) -> Expr:
        dot = self.read()
        attr = self.peek()
        if attr.type is Tok.IDENT:
            attr = self.read()
            return self._extend(ret, between(self.rng(dot), self.rng(attr)))
        if attr.type is Tok.NUMBER_LIT:
            num = self.read()
            self._legacy_index(num, False, num)
            return self._extend(ret, between(self.rng(dot), self.rng(num)))
        if attr.type is Tok.STAR:
            return self._attr_splat(src, ret, dot, attr)
        self.err("Invalid attribute name", "An attribute name is required after a dot.", self.rng(attr))
        self.recovery = True
        return Expr("ExprSyntaxError", between(src.rng, self.rng(dot)))

    def _attr_splat(self, src: Expr, ret: Expr, dot: Token, attr_tok: Token) -> Expr:
        marker = self.read()
        last = self.rng(marker)
        while self.peek().type is Tok.DOT:
            self.read()
            if self.peek().type is Tok.NUMBER_LIT:
                num = self.read()
                self._legacy_index(num, True, attr_tok)
                last = self.rng(num)
                continue
            if self.peek().type is not Tok.IDENT:
                if not self.recovery:
                    if self.peek().type is Tok.STAR:
                        self.err("Nested splat expression not allowed", "A splat expression (*) cannot be used "
                                 "inside another attribute-only splat expression.", self.next_range())
                    else:
                        self.err("Invalid attribute name", "An attribute name is required after a dot.",
                                 self.rng(attr_tok))
                self.recovery = True
                return ret
            last = self.rng(self.read())
        return Expr("Splat", between(src.rng, last))

    def _bracket_traversal(self, src: Expr, ret: Expr) -> Expr:
        open_ = self.read()
        if self.peek().type is Tok.STAR:
            self.read()
            close = self.read()
            if close.type is not Tok.CBRACK and not self.recovery:
                # HCL's diagnostic points at whatever token recovery stops on
                close = self.recover(Tok.CBRACK)
                self.err("Missing close bracket on splat index", "The star for a full splat operator must be "
                         "immediately followed by a closing bracket (\"]\").", self.rng(close))
            anon = Expr("AnonSymbol", between(self.rng(open_), self.rng(close)))
            each = self.parse_traversals(anon)
            return Expr("Splat", between(src.rng, each.rng))
        self.p.push_newlines(False)
        n = len(self.diags)
        key = self.parse_expression()
        if self.recovery and self._errs_since(n):
            close = self.recover(Tok.CBRACK)
        else:
            close = self.read()
            if close.type is not Tok.CBRACK and not self.recovery:
                close = self.recover(Tok.CBRACK)
                self.err("Missing close bracket on index", "The index operator must end with a closing bracket "
                         "(\"]\").", self.rng(close))
        self.p.pop_newlines()
        rng = between(self.rng(open_), self.rng(close))
        if key.kind == "Literal" or (key.kind == "Template" and key.parts == ["literal"]):
            return self._extend(ret, rng)
        return Expr("Index", between(src.rng, rng))

    def _number_value(self, t: Token) -> None:
        if not _NUMBER.fullmatch(t.text):
            self.err("Invalid number literal", "Failed to recognize the value of this number literal.", self.rng(t))

    def parse_term(self) -> Expr:
        start = self.peek()
        ty = start.type
        if ty is Tok.OPAREN:
            return self._parens()
        if ty is Tok.NUMBER_LIT:
            t = self.read()
            self._number_value(t)
            return Expr("Literal", self.rng(t))
        if ty is Tok.IDENT:
            t = self.read()
            if self.peek().type in (Tok.OPAREN, Tok.DOUBLE_COLON):
                return self.finish_call(t)
            if t.bytes in (b"true", b"false", b"null"):
                return Expr("Literal", self.rng(t))
            return Expr("ScopeTraversal", self.rng(t))
        if ty in (Tok.OQUOTE, Tok.OHEREDOC):
            open_ = self.read()
            closer = _OPPOSITE[ty]
            parts, passthru = self.parse_template_inner(closer)
            close_range = self.prev_range()
            kind = "TemplateWrap" if passthru else "Template"
            return Expr(kind, between(self.rng(open_), close_range), parts)
        if ty in (Tok.MINUS, Tok.BANG):
            t = self.read()
            operand = self.parse_with_traversals()
            return Expr("UnaryOp", between(self.rng(t), operand.rng))
        if ty is Tok.OBRACK:
            return self.parse_tuple()
        if ty is Tok.OBRACE:
            return self.parse_object()
        if not self.recovery:
            if ty is Tok.EOF:
                self.err("Missing expression", "Expected the start of an expression, but found the end of the file.",
                         self.rng(start))
            else:
                self.err("Invalid expression", "Expected the start of an expression, but found an invalid "
                         "expression token.", self.rng(start))
        self.recovery = True
        return Expr("Literal", self.rng(start))

    def _parens(self) -> Expr:
        start = self.read()
        self.p.push_newlines(False)
        n = len(self.diags)
        expr = self.parse_expression()
        if self._errs_since(n):
            self.recover(Tok.CPAREN)
            self.p.pop_newlines()
            return expr
        close = self.peek()
        if close.type is not Tok.CPAREN:
            self.err("Unbalanced parentheses", "Expected a closing parenthesis to terminate the expression.",
                     self.rng(close), between(self.rng(start), self.rng(close)))
            self.recovery = True
        cparen = self.read()
        self.p.pop_newlines()
        return Expr("Parens", between(self.rng(start), self.rng(cparen)))

    def finish_call(self, name: Token) -> Expr:
        open_ = self.read()
        name_rng = self.rng(name)
        while open_.type is Tok.DOUBLE_COLON:
            nxt = self.read()
            if nxt.type is not Tok.IDENT:
                self.err("Missing function name", "Function scope resolution symbol :: must be followed by a "
                         "function name in this scope.", self.rng(nxt), between(name_rng, self.rng(nxt)))
                self.recover_over(Tok.OPAREN)
                return Expr("ExprSyntaxError", between(name_rng, self.rng(nxt)))
            open_ = self.read()
        if open_.type is not Tok.OPAREN:
            self.err("Missing open parenthesis", "Function selector must be followed by an open parenthesis to "
                     "begin the function call.", self.rng(open_), between(name_rng, self.rng(open_)))
            self.recover_over(Tok.OPAREN)
            return Expr("ExprSyntaxError", between(name_rng, self.rng(open_)))
        self.p.push_newlines(False)
        close = self._call_args(name, open_)
        self.p.pop_newlines()
        end = self.rng(close) if close is not None else SourceRange(self.filename, _ZERO, _ZERO)
        return Expr("FunctionCall", between(name_rng, end))

    def _call_args(self, name: Token, open_: Token) -> Token | None:
        while True:
            if self.peek().type is Tok.CPAREN:
                return self.read()
            n = len(self.diags)
            self.parse_expression()
            if self.recovery and self._errs_since(n):
                t = self.recover(Tok.CPAREN)
                return t if t.type is Tok.CPAREN else None
            sep = self.read()
            if sep.type is Tok.CPAREN:
                return sep
            if sep.type is Tok.ELLIPSIS:
                if self.peek().type is not Tok.CPAREN:
                    if not self.recovery:
                        self.err("Missing closing parenthesis", "An expanded function argument (with ...) must be "
                                 "immediately followed by closing parentheses.", self.rng(sep),
                                 between(self.rng(name), self.rng(sep)))
                    return self.recover(Tok.CPAREN)
                return self.read()
            if sep.type is not Tok.COMMA:
                if sep.type is Tok.EOF:
                    self.err("Unterminated function call", "There is no closing parenthesis for this function call "
                             "before the end of the file. This may be caused by incorrect parenthesis nesting "
                             "elsewhere in this file.", between(self.rng(name), self.rng(open_)))
                else:
                    self.err("Missing argument separator", "A comma is required to separate each function argument "
                             "from the next.", self.rng(sep), between(self.rng(name), self.rng(sep)))
                return self.recover(Tok.CPAREN)
            if self.peek().type is Tok.CPAREN:
                return self.read()

    def parse_tuple(self) -> Expr:
        open_ = self.read()
        self.p.push_newlines(False)
        try:
            if _is_kw(self.peek(), "for"):
                return self.finish_for(open_)
            while True:
                if self.peek().type is Tok.CBRACK:
                    close = self.read()
                    break
                n = len(self.diags)
                self.parse_expression()
                if self.recovery and self._errs_since(n):
                    close = self.recover(Tok.CBRACK)
                    break
                nxt = self.peek()
                if nxt.type is Tok.CBRACK:
                    close = self.read()
                    break
                if nxt.type is not Tok.COMMA:
                    if not self.recovery:
                        if nxt.type is Tok.EOF:
                            self.err("Unterminated tuple constructor expression", "There is no corresponding "
                                     "closing bracket before the end of the file. This may be caused by incorrect "
                                     "bracket nesting elsewhere in this file.", self.rng(open_))
                        else:
                            self.err("Missing item separator", "Expected a comma to mark the beginning of the next "
                                     "item.", self.rng(nxt), between(self.rng(open_), self.rng(nxt)))
                    close = self.recover(Tok.CBRACK)
                    break
                self.read()
            return Expr("TupleCons", between(self.rng(open_), self.rng(close)))
        finally:
            self.p.pop_newlines()

    def parse_object(self) -> Expr:
        open_ = self.read()
        self.p.push_newlines(False)
        is_for = _is_kw(self.peek(), "for")
        self.p.pop_newlines()
        if is_for:
            return self.finish_for(open_)
        self.p.push_newlines(True)
        try:
            close = self._object_items(open_)
        finally:
            self.p.pop_newlines()
        return Expr("ObjectCons", between(self.rng(open_), self.rng(close)))

    def _object_items(self, open_: Token) -> Token:
        while True:
            nxt = self.peek()
            if nxt.type is Tok.NEWLINE:
                self.read()
                continue
            if nxt.type is Tok.CBRACE:
                return self.read()
            n = len(self.diags)
            self.parse_expression()
            if self.recovery and self._errs_since(n):
                return self.recover(Tok.CBRACE)
            nxt = self.peek()
            if nxt.type not in (Tok.EQUAL, Tok.COLON):
                if not self.recovery:
                    self._missing_value(open_, nxt)
                return self.recover(Tok.CBRACE)
            self.read()
            n = len(self.diags)
            self.parse_expression()
            if self.recovery and self._errs_since(n):
                return self.recover(Tok.CBRACE)
            nxt = self.peek()
            if nxt.type is Tok.CBRACE:
                return self.read()
            if nxt.type not in (Tok.COMMA, Tok.NEWLINE):
                if not self.recovery:
                    if nxt.type is Tok.EOF:
                        self.err("Unterminated object constructor expression", "There is no corresponding closing "
                                 "brace before the end of the file. This may be caused by incorrect brace nesting "
                                 "elsewhere in this file.", self.rng(open_))
                    else:
                        self.err("Missing attribute separator", "Expected a newline or comma to mark the beginning "
                                 "of the next attribute.", self.rng(nxt), between(self.rng(open_), self.rng(nxt)))
                return self.recover(Tok.CBRACE)
            self.read()

    def _missing_value(self, open_: Token, nxt: Token) -> None:
        ctx = between(self.rng(open_), self.rng(nxt))
        if nxt.type in (Tok.NEWLINE, Tok.COMMA):
            self.err("Missing attribute value", "Expected an attribute value, introduced by an equals sign (\"=\").",
                     self.rng(nxt), ctx)
        elif nxt.type is Tok.IDENT:
            self.err("Missing key/value separator", "Expected an equals sign (\"=\") to mark the beginning of the "
                     "attribute value. If you intended to given an attribute name containing periods or spaces, "
                     "write the name in quotes to create a string literal.", self.rng(nxt), ctx)
        elif nxt.type is Tok.EOF:
            self.err("Unterminated object constructor expression", "There is no corresponding closing brace before "
                     "the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
                     self.rng(open_))
        else:
            self.err("Missing key/value separator", "Expected an equals sign (\"=\") to mark the beginning of the "
                     "attribute value.", self.rng(nxt), ctx)

    def finish_for(self, open_: Token) -> Expr:
        self.p.push_newlines(False)
        try:
            return self._for_body(open_)
        finally:
            self.p.pop_newlines()

    def _for_fail(self, open_: Token, detail: str, close_type: Tok) -> Expr:
        if not self.recovery:
            self.err("Invalid 'for' expression", detail, self.next_range(), between(self.rng(open_), self.next_range()))
        close = self.recover(close_type)
        return Expr("Literal", between(self.rng(open_), self.rng(close)))

    def _for_body(self, open_: Token) -> Expr:
        self.read()  # "for"
        make_obj = open_.type is Tok.OBRACE
        close_type = Tok.CBRACE if make_obj else Tok.CBRACK
        if self.peek().type is not Tok.IDENT:
            return self._for_fail(open_, "For expression requires variable name after 'for'.", close_type)
        self.read()
        if self.peek().type is Tok.COMMA:
            self.read()
            if self.peek().type is not Tok.IDENT:
                return self._for_fail(open_, "For expression requires value variable name after comma.", close_type)
            self.read()
        if not _is_kw(self.peek(), "in"):
            return self._for_fail(open_, "For expression requires the 'in' keyword after its name declarations.",
                                  close_type)
        self.read()
        n = len(self.diags)
        self.parse_expression()
        if self.recovery and self._errs_since(n):
            close = self.recover(close_type)
            return Expr("Literal", between(self.rng(open_), self.rng(close)))
        if self.peek().type is not Tok.COLON:
            return self._for_fail(open_, "For expression requires a colon after the collection expression.",
                                  close_type)
        self.read()
        return self._for_results(open_, make_obj, close_type)

    def _for_results(self, open_: Token, make_obj: bool, close_type: Tok) -> Expr:
        n = len(self.diags)
        val = self.parse_expression()
        key: Expr | None = None
        if self.peek().type is Tok.FAT_ARROW:
            self.read()
            key = val
            val = self.parse_expression()
        if self.recovery and self._errs_since(n):
            close = self.recover(close_type)
            return Expr("Literal", between(self.rng(open_), self.rng(close)))
        ellipsis = self.read() if self.peek().type is Tok.ELLIPSIS else None
        if _is_kw(self.peek(), "if"):
            self.read()
            n = len(self.diags)
            self.parse_expression()
            if self.recovery and self._errs_since(n):
                close = self.recover(close_type)
                return Expr("Literal", between(self.rng(open_), self.rng(close)))
        if self.peek().type is close_type:
            close = self.read()
        else:
            if not self.recovery:
                self.err("Invalid 'for' expression", "Extra characters after the end of the 'for' expression.",
                         self.next_range(), between(self.rng(open_), self.next_range()))
            close = self.recover(close_type)
        whole = between(self.rng(open_), self.rng(close))
        if not make_obj:
            if key is not None:
                self.err("Invalid 'for' expression", "Key expression is not valid when building a tuple.", key.rng,
                         whole)
            if ellipsis is not None:
                self.err("Invalid 'for' expression", "Grouping ellipsis (...) cannot be used when building a tuple.",
                         self.rng(ellipsis), whole)
        elif key is None:
            self.err("Invalid 'for' expression", "Key expression is required when building an object.", val.rng,
                     whole)
        return Expr("For", whole)

    def parse_quoted_string_literal(self) -> tuple[str, SourceRange]:
        oquote = self.read()
        out: list[str] = []
        while True:
            t = self.read()
            if t.type is Tok.CQUOTE:
                end_range = self.rng(t)
                break
            if t.type is Tok.QUOTED_LIT:
                s, d = string_literal_value(t, self.filename)
                self.diags.extend(d)
                out.append(s)
                continue
            if t.type in (Tok.TEMPLATE_CONTROL, Tok.TEMPLATE_INTERP):
                which = "$" if t.type is Tok.TEMPLATE_INTERP else "%"
                self.err("Invalid string literal", "Template sequences are not allowed in this string. To include "
                         f"a literal {_go_quote(which)}, double it (as \"{which}{which}\") to escape it.", self.rng(t),
                         between(self.rng(oquote), self.rng(t)))
                out.append(which + "{ ... }")
                self.recover(Tok.TEMPLATE_SEQ_END)
                continue
            if t.type is Tok.EOF:
                self.err("Unterminated string literal", "Unable to find the closing quote mark before the end of "
                         "the file.", self.rng(t), between(self.rng(oquote), self.rng(t)))
            else:
                self.err("Invalid string literal", "This item is not valid in a string literal.", self.rng(t),
                         between(self.rng(oquote), self.rng(t)))
                self.recover(Tok.CQUOTE)
            end_range = self.rng(t)
            break
        return "".join(out), between(self.rng(oquote), end_range)

    # -- templates
    def parse_template_inner(self, end: Tok) -> tuple[list[str], bool]:
        parts = self.template_parts(end)
        _TemplateStructure(self, parts).parse_root()
        passthru = len(parts) == 2 and parts[0][0] == "interp"
        kinds = ["literal" if k == "literal" else "other" for k, *_ in parts[:-1]]
        return kinds, passthru

    def template_parts(self, end: Tok) -> list[tuple]:
        """The template as a flat list of (kind, ...) items: literal, interp, if, for, else,
        endif, endfor and a final end item."""
        parts: list[tuple] = []
        start_range = self.next_range()
        while True:
            nxt = self.read()
            if nxt.type is end:
                end_range = self.rng(nxt)
                break
            if nxt.type in (Tok.STRING_LIT, Tok.QUOTED_LIT):
                _, d = string_literal_value(nxt, self.filename, nxt.type is Tok.QUOTED_LIT)
                self.diags.extend(d)
                if not parts or parts[-1][0] != "literal":
                    parts.append(("literal", self.rng(nxt)))
                continue
            if nxt.type is Tok.TEMPLATE_INTERP:
                parts.append(("interp", self._interp(nxt, start_range, end)))
                continue
            if nxt.type is Tok.TEMPLATE_CONTROL:
                item = self._directive(nxt, start_range)
                if item is not None:
                    parts.append(item)
                continue
            if not self.recovery:
                self.err("Unterminated template string", "No closing marker was found for the string.",
                         self.rng(nxt), between(start_range, self.rng(nxt)))
            end_range = self.rng(self.recover(end))
            break
        if not parts:
            parts.append(("literal", SourceRange(self.filename, start_range.end, start_range.end)))
        parts.append(("end", end_range))
        return parts

    def _interp(self, opener: Token, start_range: SourceRange, end: Tok) -> SourceRange:
        self.p.push_newlines(False)
        self.parse_expression()
        close = self.peek()
        if close.type is not Tok.TEMPLATE_SEQ_END:
            if not self.recovery:
                if close.type is Tok.EOF:
                    self.err("Unclosed template interpolation sequence", "There is no closing brace for this "
                             "interpolation sequence before the end of the file. This might be caused by incorrect "
                             "nesting inside the given expression.", start_range)
                elif close.type is Tok.COLON:
                    self.err("Extra characters after interpolation expression", "Template interpolation doesn't "
                             "expect a colon at this location. Did you intend this to be a literal sequence to be "
                             "processed as part of another language? If so, you can escape it by starting with "
                             "\"$${\" instead of just \"${\".", self.rng(close), between(start_range, self.rng(close)))
                elif close.type in (Tok.CQUOTE, Tok.OQUOTE) and end is Tok.CQUOTE:
                    self.err("Unclosed template interpolation sequence", "There is no closing brace for this "
                             "interpolation sequence before the end of the quoted template. This might be caused by "
                             "incorrect nesting inside the given expression.", start_range)
                else:
                    self.err("Extra characters after interpolation expression", "Expected a closing brace to end "
                             "the interpolation expression, but found extra characters.\n\nThis can happen when you "
                             "include interpolation syntax for another language, such as shell scripting, but forget "
                             "to escape the interpolation start token. If this is an embedded sequence for another "
                             "language, escape it by starting with \"$${\" instead of just \"${\".", self.rng(close),
                             between(start_range, self.rng(close)))
            self.recover(Tok.TEMPLATE_SEQ_END)
        else:
            self.read()
        self.p.pop_newlines()
        return between(self.rng(opener), self.rng(close))

    def _directive(self, opener: Token, start_range: SourceRange) -> tuple | None:
        self.p.push_newlines(False)
        try:
            kw = self.peek()
            if kw.type is not Tok.IDENT:
                if not self.recovery:
                    self.err("Invalid template directive", "A template directive keyword (\"if\", \"for\", etc) is "
                             "expected at the beginning of a %{ sequence.", self.rng(kw),
                             between(self.rng(opener), self.rng(kw)))
                self.recover(Tok.TEMPLATE_SEQ_END)
                return None
            self.read()
            word = kw.text
            if word == "if":
                self.parse_expression()
                item: tuple = ("if", between(self.rng(opener), self.next_range()))
            elif word in ("else", "endif", "endfor"):
                item = (word, between(self.rng(opener), self.next_range()))
            elif word == "for":
                if not self._for_directive_head():
                    return None
                item = ("for", between(self.rng(opener), self.next_range()))
            else:
                if not self.recovery:
                    suggestion = next((s for s in ("if", "for", "else", "endif", "endfor")
                                       if _levenshtein(word, s) < 3), "")
                    hint = f" Did you mean {_go_quote(suggestion)}?" if suggestion else ""
                    self.err("Invalid template control keyword", f"{_go_quote(word)} is not a valid template "
                             f"control keyword.{hint}", self.rng(kw), between(self.rng(opener), self.rng(kw)))
                self.recover(Tok.TEMPLATE_SEQ_END)
                return None
            close = self.peek()
            if close.type is not Tok.TEMPLATE_SEQ_END:
                if not self.recovery:
                    self.err(f"Extra characters in {word} marker", "Expected a closing brace to end the sequence, "
                             "but found extra characters.", self.rng(close), between(start_range, self.rng(close)))
                self.recover(Tok.TEMPLATE_SEQ_END)
            else:
                self.read()
            return item
        finally:
            self.p.pop_newlines()

    def _for_directive_head(self) -> bool:
        def fail(detail: str) -> bool:
            if not self.recovery:
                self.err("Invalid 'for' directive", detail, self.next_range())
            self.recover(Tok.TEMPLATE_SEQ_END)
            return False

        if self.peek().type is not Tok.IDENT:
            return fail("For directive requires variable name after 'for'.")
        self.read()
        if self.peek().type is Tok.COMMA:
            self.read()
            if self.peek().type is not Tok.IDENT:
                return fail("For directive requires value variable name after comma.")
            self.read()
        if not _is_kw(self.peek(), "in"):
            return fail("For directive requires 'in' keyword after names.")
        self.read()
        self.parse_expression()
        return True


class _TemplateStructure:
    """Checks that template directives nest (if/else/endif, for/endfor), with HCL's errors."""

    def __init__(self, parser: Parser, parts: list[tuple]) -> None:
        self.parser = parser
        self.parts = parts
        self.pos = 0

    def peek(self) -> tuple:
        return self.parts[self.pos]

    def read(self) -> tuple:
        item = self.parts[self.pos]
        if item[0] != "end":
            self.pos += 1
        return item

    def parse_root(self) -> None:
        while self.peek()[0] != "end":
            self.parse_item()

    def parse_item(self) -> None:
        kind, rng = self.peek()
        if kind in ("literal", "interp"):
            self.read()
        elif kind in ("if", "for"):
            self.parse_block(kind)
        elif kind == "end":
            self.read()
            self.parser.err("Unexpected end of template", "The control directives within this template are "
                            "unbalanced.", rng)
        else:
            self.read()
            self.parser.err(f"Unexpected {kind} directive", "The control directives within this template are "
                            "unbalanced.", rng)

    def parse_block(self, opener: str) -> None:
        _, open_rng = self.read()
        closer = "endif" if opener == "if" else "endfor"
        in_else = False
        while True:
            kind, rng = self.peek()
            if kind == "end":
                self.parser.err("Unexpected end of template", f"The {opener} directive at {range_str(open_rng)} is "
                                f"missing its corresponding {closer} directive.", rng)
                return
            if kind in ("else", "endif", "endfor"):
                self.read()
                if kind == closer:
                    return
                if kind == "else" and opener == "if" and not in_else:
                    in_else = True
                    continue
                self._misplaced(opener, kind, open_rng, rng)
                return
            self.parse_item()

    def _misplaced(self, opener: str, kind: str, open_rng: SourceRange, rng: SourceRange) -> None:
        if kind == "else" and opener == "if":
            detail = f"Already in the else clause for the if started at {range_str(open_rng)}."
        elif kind == "else":
            detail = "An else clause is not expected for a for directive."
        elif opener == "if":
            detail = f"Expecting an endif directive for the if started at {range_str(open_rng)}."
        else:
            detail = f"Expecting an endfor directive corresponding to the for directive at {range_str(open_rng)}."
        self.parser.err(f"Unexpected {kind} directive", detail, rng)


def _levenshtein(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


# ---------------------------------------------------------------------------
# entry points


@dataclass
class ParsedFile:
    filename: str
    src: bytes
    tokens: list[Token]
    body: Body
    diags: list[HclDiag]


def parse_config(src: bytes, filename: str) -> ParsedFile:
    """A whole configuration file: its tokens, its tree and its syntax errors (lexical first)."""
    tokens = scan(src, filename)
    diags = check_tokens(tokens, filename)
    parser = Parser(tokens, filename)
    body = parser.parse_body(Tok.EOF)
    return ParsedFile(filename, src, tokens, body, diags + parser.diags)


def parse_expression(src: bytes, filename: str) -> tuple[Expr, list[HclDiag]]:
    """A standalone expression (newlines are insignificant, as inside parentheses)."""
    tokens = scan(src, filename)
    diags = check_tokens(tokens, filename)
    parser = Parser(tokens, filename)
    parser.p.push_newlines(False)
    expr = parser.parse_expression()
    nxt = parser.peek()
    if nxt.type is not Tok.EOF and not parser.recovery:
        parser.err("Extra characters after expression", "An expression was successfully parsed, but extra "
                   "characters were found after it.", parser.rng(nxt))
    parser.p.pop_newlines()
    return expr, diags + parser.diags


def to_diagnostics(diags: list[HclDiag]) -> Diagnostics:
    out = Diagnostics()
    for d in diags:
        out.error(d.summary, d.detail, d.subject)
    return out


def nfc(s: str) -> str:
    return unicodedata.normalize("NFC", s)


__all__ = ["Attribute", "Block", "Body", "Expr", "HclDiag", "ParsedFile", "nfc", "parse_config", "parse_expression",
           "range_str", "string_literal_value", "to_diagnostics"]
