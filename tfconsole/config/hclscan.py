"""A scanner for HCL's native syntax that keeps every byte: tokens, comments and newlines.

It produces the token stream HCL's own scanner produces (the same token kinds, the same
boundaries, the same source positions), because both the formatter (`hclfmt`) and the syntax
checker (`hclparse`) are defined over that stream: comments survive as tokens, heredoc bodies
as literal tokens with their newlines, and the spaces between tokens are the only thing dropped.

Positions: byte offsets are into the original input (a UTF-8 byte order mark is skipped but
still counted), lines start at 1, columns count grapheme clusters from 1.

This module parses nothing and must not import the rest of the engine beyond diagnostics types.
"""
from __future__ import annotations

import re
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from enum import Enum

from tfconsole.diags import Pos


class Tok(Enum):
    """Token kinds of HCL's native syntax (one member per kind HCL's scanner emits)."""

    OBRACE = "{"
    CBRACE = "}"
    OBRACK = "["
    CBRACK = "]"
    OPAREN = "("
    CPAREN = ")"
    OQUOTE = "«"
    CQUOTE = "»"
    OHEREDOC = "H"
    CHEREDOC = "h"
    STAR = "*"
    SLASH = "/"
    PLUS = "+"
    MINUS = "-"
    PERCENT = "%"
    EQUAL = "="
    EQUAL_OP = "≔"
    NOT_EQUAL = "≠"
    LESS_THAN = "<"
    LESS_THAN_EQ = "≤"
    GREATER_THAN = ">"
    GREATER_THAN_EQ = "≥"
    AND = "∧"
    OR = "∨"
    BANG = "!"
    DOT = "."
    COMMA = ","
    DOUBLE_COLON = "⸬"
    ELLIPSIS = "…"
    FAT_ARROW = "⇒"
    QUESTION = "?"
    COLON = ":"
    TEMPLATE_INTERP = "∫"
    TEMPLATE_CONTROL = "λ"
    TEMPLATE_SEQ_END = "∎"
    QUOTED_LIT = "Q"
    STRING_LIT = "S"
    NUMBER_LIT = "N"
    IDENT = "I"
    COMMENT = "C"
    NEWLINE = "\n"
    EOF = "␄"
    BITWISE_AND = "&"
    BITWISE_OR = "|"
    BITWISE_NOT = "~"
    BITWISE_XOR = "^"
    APOSTROPHE = "'"
    BACKTICK = "`"
    SEMICOLON = ";"
    INVALID = "�"
    BAD_UTF8 = "💩"
    QUOTED_NEWLINE = "␤"
    NIL = "\x00"


@dataclass(slots=True)
class Token:
    type: Tok
    bytes: bytes
    start: Pos
    end: Pos

    @property
    def text(self) -> str:
        return self.bytes.decode("utf-8", "replace")


_SELF = {
    ord("["): Tok.OBRACK, ord("]"): Tok.CBRACK, ord("("): Tok.OPAREN, ord(")"): Tok.CPAREN,
    ord("."): Tok.DOT, ord(","): Tok.COMMA, ord("*"): Tok.STAR, ord("/"): Tok.SLASH, ord("%"): Tok.PERCENT,
    ord("+"): Tok.PLUS, ord("-"): Tok.MINUS, ord("="): Tok.EQUAL, ord("<"): Tok.LESS_THAN,
    ord(">"): Tok.GREATER_THAN, ord("!"): Tok.BANG, ord("?"): Tok.QUESTION, ord(":"): Tok.COLON,
    ord("&"): Tok.BITWISE_AND, ord("|"): Tok.BITWISE_OR, ord("~"): Tok.BITWISE_NOT, ord("^"): Tok.BITWISE_XOR,
    ord(";"): Tok.SEMICOLON, ord("`"): Tok.BACKTICK, ord("'"): Tok.APOSTROPHE,
}
_PAIRS = {
    b"==": Tok.EQUAL_OP, b"!=": Tok.NOT_EQUAL, b">=": Tok.GREATER_THAN_EQ, b"<=": Tok.LESS_THAN_EQ,
    b"&&": Tok.AND, b"||": Tok.OR, b"::": Tok.DOUBLE_COLON, b"=>": Tok.FAT_ARROW,
}
_NUMBER = re.compile(rb"[0-9](?:(?:[0-9.]|[eE][+-]?[0-9])*(?:[0-9]|[eE][+-]?[0-9]))?")
_ASCII_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_-]*")
_ASCII_IDENT_CONT = re.compile(rb"[A-Za-z0-9_-]*")
# runs of literal characters in each template context (ASCII fast path; other bytes are
# examined one character at a time)
_QUOTED_RUN = re.compile(rb'(?:[^$%"\\\r\n\x80-\xff]|\\[^\r\n\x80-\xff])+')
_HEREDOC_RUN = re.compile(rb"[^$%\r\n\x80-\xff]+")
_BOM = b"\xef\xbb\xbf"


def utf8_char_len(data: bytes, p: int) -> int:
    """Length of the structurally well-formed UTF-8 sequence at p, or 0 for a broken byte
    (the scanner's AnyUTF8 / BrokenUTF8 distinction: lead byte plus continuation bytes)."""
    b = data[p]
    if b < 0x80:
        return 1
    if 0xC0 <= b <= 0xDF:
        n = 2
    elif 0xE0 <= b <= 0xEF:
        n = 3
    elif 0xF0 <= b <= 0xF7:
        n = 4
    else:
        return 0
    if p + n > len(data) or any(not 0x80 <= data[p + i] <= 0xBF for i in range(1, n)):
        return 0
    return n


def _char(data: bytes, p: int, n: int) -> str | None:
    try:
        return data[p:p + n].decode("utf-8")
    except UnicodeDecodeError:
        return None


def _id_start(ch: str | None) -> bool:
    return ch is not None and (ch == "_" or ch.isidentifier())


def _id_continue(ch: str | None) -> bool:
    return ch is not None and (ch == "-" or ("a" + ch).isidentifier())


def go_is_space(ch: str) -> bool:
    """Go's unicode.IsSpace."""
    return ch in "\t\n\v\f\r \x85\xa0" or (ord(ch) > 0xff and ch.isspace())


def go_trim_space(b: bytes) -> bytes:
    s = b.decode("utf-8", "surrogateescape")
    i, j = 0, len(s)
    while i < j and go_is_space(s[i]):
        i += 1
    while j > i and go_is_space(s[j - 1]):
        j -= 1
    return s[i:j].encode("utf-8", "surrogateescape")


def grapheme_count(b: bytes) -> int:
    """Columns a byte sequence occupies: one per grapheme cluster."""
    if b.isascii():
        return len(b) - b.count(b"\r\n")
    from tfconsole.lang.funcs._gofmt import graphemes

    return len(graphemes(b.decode("utf-8", "surrogateescape")))


def advance_pos(pos: Pos, b: bytes) -> Pos:
    """The position after b, starting at pos: "\\n" and "\\r\\n" start a new line."""
    line, col = pos.line, pos.column
    if b"\n" not in b:
        if b.isascii():
            return Pos(line, col + len(b), pos.byte + len(b))
        return Pos(line, col + grapheme_count(b), pos.byte + len(b))
    parts = b.split(b"\n")
    for part in parts[:-1]:
        line += 1
    last = parts[-1]
    col = 1 + grapheme_count(last)
    # a "\r" that ends a piece before "\n" belongs to that newline, so it adds no column
    return Pos(line, col, pos.byte + len(b))


@dataclass(slots=True)
class _Heredoc:
    marker: bytes
    start_of_line: bool = True


class _Scanner:
    """One pass over the input; `modes` is the scanner's call stack (main, string, heredoc)."""

    def __init__(self, data: bytes, filename: str, start: Pos) -> None:
        skip = len(_BOM) if data.startswith(_BOM) else 0
        self.data = data[skip:]
        self.base = start.byte + skip
        self.filename = filename
        self.pos = Pos(start.line, start.column, start.byte + skip)
        self.tokens: list[Token] = []
        self.braces = 0
        self.ret_braces: list[int] = []
        self.heredocs: list[_Heredoc] = []
        self.modes: list[str] = ["main"]

    # -- emitting
    def emit(self, ty: Tok, s: int, e: int) -> None:
        b = self.data[s:e]
        start = Pos(self.pos.line, self.pos.column + (s + self.base - self.pos.byte), s + self.base)
        end = advance_pos(start, b)
        self.pos = end
        self.tokens.append(Token(ty, b, start, end))

    def run(self) -> list[Token]:
        data = self.data
        p = 0
        n = len(data)
        while p < n:
            mode = self.modes[-1]
            if mode == "main":
                p = self.scan_main(p)
                continue
            q = self.template_open(p)
            if q != p:
                p = q
            elif mode == "string":
                p = self.scan_string(p)
            else:
                p = self.scan_heredoc(p)
        self.emit(Tok.EOF, n, n)
        return self.tokens

    # -- template sequence openers, shared by every template context
    def template_open(self, p: int) -> int:
        """If a "${" or "%{" (optionally with "~") starts at p, emit it, enter main mode and
        return the new position; else return p."""
        data = self.data
        two = data[p:p + 2]
        if two not in (b"${", b"%{"):
            return p
        e = p + 3 if data[p + 2:p + 3] == b"~" else p + 2
        self.emit(Tok.TEMPLATE_INTERP if two == b"${" else Tok.TEMPLATE_CONTROL, p, e)
        self.braces += 1
        self.ret_braces.append(self.braces)
        if self.heredocs:
            self.heredocs[-1].start_of_line = False
        self.modes.append("main")
        return e

    def template_escape_len(self, p: int) -> int:
        """Length of a "$" / "%" that is literal text at p: "$${" (or "$${~") is one escape,
        otherwise the sign alone; 0 when the sign ends the input (nothing decides it)."""
        data = self.data
        c = data[p:p + 1]
        if p + 1 >= len(data):
            return 0
        if data[p + 1:p + 3] == c + b"{":
            return 4 if data[p + 3:p + 4] == b"~" else 3
        return 1

    def bad_or_invalid(self, p: int) -> int:
        n = utf8_char_len(self.data, p)
        if n == 0:
            self.emit(Tok.BAD_UTF8, p, p + 1)
            return p + 1
        self.emit(Tok.INVALID, p, p + n)
        return p + n

    # -- main mode
    def scan_main(self, p: int) -> int:
        data = self.data
        c = data[p]
        if c in (0x20, 0x09):
            e = p + 1
            while e < len(data) and data[e] in (0x20, 0x09):
                e += 1
            return e
        if 0x30 <= c <= 0x39:
            m = _NUMBER.match(data, p)
            assert m is not None
            self.emit(Tok.NUMBER_LIT, p, m.end())
            return m.end()
        if c == 0x23 or (c == 0x2F and data[p + 1:p + 2] == b"/"):
            e = data.find(b"\n", p)
            e = len(data) if e < 0 else e + 1
            self.emit(Tok.COMMENT, p, e)
            return e
        if c == 0x2F and data[p + 1:p + 2] == b"*":
            e = data.find(b"*/", p + 2)
            if e >= 0:
                self.emit(Tok.COMMENT, p, e + 2)
                return e + 2
        if c == 0x0A or (c == 0x0D and data[p + 1:p + 2] == b"\n"):
            e = p + 1 if c == 0x0A else p + 2
            self.emit(Tok.NEWLINE, p, e)
            return e
        if c == 0x2E and data[p:p + 3] == b"...":
            self.emit(Tok.ELLIPSIS, p, p + 3)
            return p + 3
        pair = _PAIRS.get(data[p:p + 2])
        if c == 0x3C and data[p + 1:p + 2] == b"<":
            e = self.heredoc_intro(p)
            if e:
                return e
        if pair is not None:
            self.emit(pair, p, p + 2)
            return p + 2
        if c == 0x7B:
            self.emit(Tok.OBRACE, p, p + 1)
            self.braces += 1
            return p + 1
        if c == 0x7D or (c == 0x7E and data[p + 1:p + 2] == b"}"):
            return self.close_brace(p, 1 if c == 0x7D else 2)
        if c == 0x22:
            self.emit(Tok.OQUOTE, p, p + 1)
            self.modes.append("string")
            return p + 1
        ty = _SELF.get(c)
        if ty is not None:
            self.emit(ty, p, p + 1)
            return p + 1
        return self.ident_or_invalid(p)

    def heredoc_intro(self, p: int) -> int:
        data = self.data
        q = p + 2
        if data[q:q + 1] == b"-":
            q += 1
        e = self.ident_end(q)
        if e == q:
            return 0
        if data[e:e + 1] == b"\n":
            nl = e + 1
        elif data[e:e + 2] == b"\r\n":
            nl = e + 2
        else:
            return 0
        self.emit(Tok.OHEREDOC, p, nl)
        self.heredocs.append(_Heredoc(data[q:e]))
        self.modes.append("heredoc")
        return nl

    def ident_end(self, p: int) -> int:
        """End of the identifier starting at p (p itself when there is none)."""
        data = self.data
        if p >= len(data):
            return p
        m = _ASCII_IDENT.match(data, p)
        if m:
            e = m.end()
        else:
            n = utf8_char_len(data, p)
            if n <= 1 or not _id_start(_char(data, p, n)):
                return p
            e = p + n
        while e < len(data):
            m = _ASCII_IDENT_CONT.match(data, e)
            if m and m.end() > e:
                e = m.end()
                continue
            n = utf8_char_len(data, e)
            if n <= 1 or not _id_continue(_char(data, e, n)):
                break
            e += n
        return e

    def ident_or_invalid(self, p: int) -> int:
        e = self.ident_end(p)
        if e > p:
            self.emit(Tok.IDENT, p, e)
            return e
        return self.bad_or_invalid(p)

    def close_brace(self, p: int, width: int) -> int:
        """"}" ends a template sequence when it balances the brace that opened it; "~}" is
        always a sequence end (the parser reports a misplaced one)."""
        closes_sequence = bool(self.ret_braces) and self.ret_braces[-1] == self.braces
        if width == 1 and not closes_sequence:
            self.emit(Tok.CBRACE, p, p + 1)
            self.braces -= 1
            return p + 1
        self.emit(Tok.TEMPLATE_SEQ_END, p, p + width)
        self.braces -= 1
        if closes_sequence:
            self.ret_braces.pop()
            self.modes.pop()
        return p + width

    # -- quoted templates
    def scan_string(self, p: int) -> int:
        data = self.data
        c = data[p]
        if c == 0x22:
            self.emit(Tok.CQUOTE, p, p + 1)
            self.modes.pop()
            return p + 1
        if c in (0x0A, 0x0D):
            e = p
            while e < len(data) and data[e] in (0x0A, 0x0D):
                e += 1
            self.emit(Tok.QUOTED_NEWLINE, p, e)
            return e
        if c in (0x24, 0x25):
            n = self.template_escape_len(p)
            if n == 0:
                self.emit(Tok.INVALID, p, p + 1)
                return p + 1
            self.emit(Tok.QUOTED_LIT, p, p + n)
            return p + n
        e = self.literal_run_end(p, _QUOTED_RUN, True)
        if e > p:
            self.emit(Tok.QUOTED_LIT, p, e)
            return e
        return self.bad_or_invalid(p)

    def literal_run_end(self, p: int, ascii_run: re.Pattern[bytes], escapes: bool) -> int:
        """End of the run of literal characters at p: ASCII ones the pattern accepts, any
        well-formed non-ASCII character and, in quoted strings, a backslash escaping one."""
        data = self.data
        e = p
        while e < len(data):
            m = ascii_run.match(data, e)
            if m:
                e = m.end()
                continue
            c = data[e]
            if escapes and c == 0x5C:
                n = utf8_char_len(data, e + 1) if e + 1 < len(data) else 0
                if n < 2:
                    break
                e += 1 + n
            elif c >= 0x80 and utf8_char_len(data, e):
                e += utf8_char_len(data, e)
            else:
                break
        return e

    # -- heredoc templates
    def scan_heredoc(self, p: int) -> int:
        data = self.data
        c = data[p]
        if c in (0x24, 0x25):
            n = self.template_escape_len(p)
            if n == 0:  # a sign at the very end: nothing can match it
                self.emit(Tok.INVALID, p, len(data))
                return len(data)
            return self.heredoc_literal(p, p + n)
        e = self.literal_run_end(p, _HEREDOC_RUN, False)
        if e == p and c == 0x0D and data[p + 1:p + 2] != b"\n":
            # a carriage return that ends no line: the scanner cannot continue
            self.emit(Tok.INVALID, p, len(data))
            return len(data)
        if e == p and c >= 0x80:
            return self.bad_or_invalid(p)
        return self.heredoc_literal(p, e)

    def heredoc_literal(self, p: int, e: int) -> int:
        """Literal text from p to e, extended to the end of line when a newline follows; a
        whole line equal to the marker (spaces aside) closes the heredoc."""
        data = self.data
        top = self.heredocs[-1]
        if data[e:e + 1] == b"\n":
            eol = e + 1
        elif data[e:e + 2] == b"\r\n":
            eol = e + 2
        else:
            top.start_of_line = False
            self.emit(Tok.STRING_LIT, p, e)
            return e
        if top.start_of_line and go_trim_space(data[p:eol]) == top.marker:
            self.emit(Tok.CHEREDOC, p, e)
            self.emit(Tok.NEWLINE, e, eol)
            self.heredocs.pop()
            self.modes.pop()
            return eol
        top.start_of_line = True
        self.emit(Tok.STRING_LIT, p, eol)
        return eol


def scan(data: bytes, filename: str, start: Pos | None = None) -> list[Token]:
    """Every token of `data` (HCL native syntax) ending with an EOF token."""
    return _Scanner(data, filename, start or Pos(1, 1, 0)).run()
