"""Terraform's canonical layout for HCL native syntax (what `terraform fmt` writes).

Two layers, as in Terraform:

1. Terraform's own rewrites of a parsed file (`terraform_edits`): block labels become quoted
   strings (comments inside a block header are dropped with them), an attribute whose value is a
   lone interpolation `"${x}"` becomes `x`, and legacy type constraints in `variable` blocks
   (`"string"`, `list`) become their modern spelling.
2. HCL's token layout rules (`layout`): indentation by two spaces per open bracket, one space
   or none between tokens by kind, and vertical alignment of `=` and of trailing comments over
   runs of consecutive lines.

Formatting only ever changes the whitespace between tokens (plus the rewrites above); every
comment, heredoc and newline of the input survives. Callers check the syntax first: a file with
syntax errors is never formatted.
"""
from __future__ import annotations

import bisect
import unicodedata
from tfconsole.records import dataclass  # the standard decorator without its start-up cost

from .hclparse import Attribute, Block, Body, ParsedFile, string_literal_value
from .hclscan import Tok, Token, grapheme_count


@dataclass(slots=True)
class WTok:
    """A token as the writer sees it: kind, bytes, and the spaces written before it."""

    type: Tok
    bytes: bytes
    spaces: int = 0


def format_source(parsed: ParsedFile) -> bytes:
    """The canonical form of a file that parsed without errors."""
    tokens = terraform_edits(parsed)
    layout(tokens)
    return b"".join(b" " * t.spaces + t.bytes for t in tokens)


# ---------------------------------------------------------------------------
# Terraform's rewrites


class _Edits:
    """Replacements of token index ranges [start, end) of the scanned file, applied in order."""

    def __init__(self, parsed: ParsedFile) -> None:
        self.tokens = parsed.tokens
        self.starts = [t.start.byte for t in parsed.tokens]
        self.replace: list[tuple[int, int, list[WTok]]] = []

    def span(self, start_byte: int, end_byte: int) -> tuple[int, int]:
        """Indices of the tokens that start inside [start_byte, end_byte)."""
        i = bisect.bisect_left(self.starts, start_byte)
        j = bisect.bisect_left(self.starts, end_byte, lo=i)
        return i, j

    def writer(self, i: int, j: int) -> list[WTok]:
        return [WTok(t.type, t.bytes) for t in self.tokens[i:j]]

    def apply(self) -> list[WTok]:
        toks = self.tokens
        out: list[WTok] = []
        last = 0
        prev_end = 0
        spaces = [0] * len(toks)
        for k, t in enumerate(toks):
            spaces[k] = t.start.byte - prev_end
            prev_end = t.end.byte
        for start, end, new in sorted(self.replace, key=lambda r: r[0]):
            out.extend(WTok(t.type, t.bytes, spaces[k]) for k, t in enumerate(toks[last:start], last))
            out.extend(new)
            last = end
        out.extend(WTok(t.type, t.bytes, spaces[k]) for k, t in enumerate(toks[last:], last))
        return out


def terraform_edits(parsed: ParsedFile) -> list[WTok]:
    edits = _Edits(parsed)
    _edit_body(edits, parsed.body, [], parsed.filename)
    return edits.apply()


def _edit_body(edits: _Edits, body: Body, in_blocks: list[str], filename: str) -> None:
    for item in body.items():
        if isinstance(item, Attribute):
            _edit_attribute(edits, item, in_blocks)
        else:
            _edit_labels(edits, item, filename)
            _edit_body(edits, item.body, in_blocks + [item.type], filename)


def _edit_attribute(edits: _Edits, attr: Attribute, in_blocks: list[str]) -> None:
    i, j = edits.span(attr.expr.rng.start.byte, attr.expr.rng.end.byte)
    tokens = edits.writer(i, j)
    if in_blocks == ["variable"] and attr.name == "type":
        new = _type_expr(tokens)
    else:
        new = _value_expr(tokens)
    if new is not tokens:
        edits.replace.append((i, j, new))


def _edit_labels(edits: _Edits, block: Block, filename: str) -> None:
    """Labels are rewritten in their quoted form; whatever sat between the block type and the
    last label (comments) goes with them. A quoted label HCL's writer cannot read back (one that
    is more than a single literal) is dropped, as Terraform drops it."""
    if not block.label_ranges:
        return
    type_i, _ = edits.span(block.type_range.start.byte, block.type_range.end.byte)
    new: list[WTok] = []
    for rng in block.label_ranges:
        i, j = edits.span(rng.start.byte, rng.end.byte)
        value = _label_value(edits.tokens[i:j], filename)
        if value is not None:
            new.extend(_quoted(value))
    _, last_j = edits.span(block.label_ranges[-1].start.byte, block.label_ranges[-1].end.byte)
    edits.replace.append((type_i + 1, last_j, new))


def _label_value(toks: list[Token], filename: str) -> str | None:
    types = [t.type for t in toks]
    if types == [Tok.IDENT]:
        return toks[0].text
    if types == [Tok.OQUOTE, Tok.QUOTED_LIT, Tok.CQUOTE]:
        value, diags = string_literal_value(toks[1], filename)
        return None if diags else value
    if types == [Tok.OQUOTE, Tok.CQUOTE]:
        return ""
    return None


def _quoted(value: str) -> list[WTok]:
    text = escape_quoted(unicodedata.normalize("NFC", value))
    out = [WTok(Tok.OQUOTE, b'"')]
    if text:
        out.append(WTok(Tok.QUOTED_LIT, text.encode()))
    out.append(WTok(Tok.CQUOTE, b'"'))
    return out


def escape_quoted(s: str) -> str:
    """A string as the body of an HCL quoted literal (HCL's writer's escaping)."""
    out: list[str] = []
    for i, ch in enumerate(s):
        if ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "$%":
            out.append(ch + ch if s[i + 1:i + 2] == "{" else ch)
        elif not ch.isprintable():
            out.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    return "".join(out)


def _value_expr(tokens: list[WTok]) -> list[WTok]:
    """`"${expr}"` becomes `expr` (parenthesized when it spans lines); anything else stays."""
    if len(tokens) < 5:
        return tokens
    if (tokens[0].type, tokens[1].type, tokens[-2].type, tokens[-1].type) != \
            (Tok.OQUOTE, Tok.TEMPLATE_INTERP, Tok.TEMPLATE_SEQ_END, Tok.CQUOTE):
        return tokens
    inside = tokens[2:-2]
    quotes = 0
    for t in inside:
        if t.type is Tok.OQUOTE:
            quotes += 1
        elif t.type is Tok.CQUOTE:
            quotes -= 1
        elif quotes > 0:
            continue
        elif t.type in (Tok.TEMPLATE_INTERP, Tok.TEMPLATE_SEQ_END, Tok.QUOTED_LIT):
            return tokens
    start, end = 0, len(inside)
    while start < end and inside[start].type is Tok.NEWLINE:
        start += 1
    while end > start and inside[end - 1].type is Tok.NEWLINE:
        end -= 1
    trimmed = inside[start:end]
    multi = any(t.type is Tok.NEWLINE for t in trimmed)
    lead = bool(trimmed) and trimmed[0].type is Tok.OPAREN
    trail = len(trimmed) > 1 and trimmed[-1].type is Tok.CPAREN
    if multi and not (lead and trail):
        return [WTok(Tok.OPAREN, b"("), *trimmed, WTok(Tok.CPAREN, b")")]
    return trimmed


_LEGACY_TYPES = {"string": [(Tok.IDENT, b"string")],
                 "list": [(Tok.IDENT, b"list"), (Tok.OPAREN, b"("), (Tok.IDENT, b"string"), (Tok.CPAREN, b")")],
                 "map": [(Tok.IDENT, b"map"), (Tok.OPAREN, b"("), (Tok.IDENT, b"string"), (Tok.CPAREN, b")")]}


def _type_expr(tokens: list[WTok]) -> list[WTok]:
    """`list` alone means `list(any)`; a quoted type from Terraform 0.11 becomes a type."""
    if len(tokens) == 1 and tokens[0].type is Tok.IDENT and tokens[0].bytes in (b"list", b"map", b"set"):
        return [tokens[0], WTok(Tok.OPAREN, b"("), WTok(Tok.IDENT, b"any"), WTok(Tok.CPAREN, b")")]
    if len(tokens) == 3 and [t.type for t in tokens] == [Tok.OQUOTE, Tok.QUOTED_LIT, Tok.CQUOTE]:
        new = _LEGACY_TYPES.get(tokens[1].bytes.decode("utf-8", "replace"))
        if new is not None:
            return [WTok(ty, b) for ty, b in new]
    return tokens


# ---------------------------------------------------------------------------
# HCL's layout rules

_CHANGE = {Tok.OBRACE: 1, Tok.OBRACK: 1, Tok.OPAREN: 1, Tok.TEMPLATE_CONTROL: 1, Tok.TEMPLATE_INTERP: 1,
           Tok.CBRACE: -1, Tok.CBRACK: -1, Tok.CPAREN: -1, Tok.TEMPLATE_SEQ_END: -1}


def _bracket_change(t: WTok) -> int:
    return _CHANGE.get(t.type, 0)


def _is_newline(t: WTok) -> bool:
    return t.type is Tok.NEWLINE or (t.type is Tok.COMMENT and t.bytes.endswith(b"\n"))


@dataclass(slots=True)
class _Line:
    """One line split into cells: everything up to `=` (lead), the assignment (assign) and a
    trailing comment (comment); the first token of each cell is aligned with its neighbours."""

    lead: list[WTok]
    assign: list[WTok] | None = None
    comment: list[WTok] | None = None


def _columns(toks: list[WTok] | None) -> int:
    return sum(t.spaces + grapheme_count(t.bytes) for t in toks or ())


def layout(tokens: list[WTok]) -> None:
    """Set the spaces before every token (except the final EOF) to the canonical layout."""
    lines = _lines(tokens)
    _indent(lines)
    _spaces(lines)
    _align(lines)


def _lines(tokens: list[WTok]) -> list[_Line]:
    lines: list[_Line] = []
    start = 0
    for i, t in enumerate(tokens):
        if t.type is Tok.EOF:
            lines.append(_Line(tokens[start:i]))
            start = -1
            break
        if _is_newline(t):
            lines.append(_Line(tokens[start:i + 1]))
            start = i + 1
    if start >= 0:
        lines.append(_Line(tokens[start:]))
    for line in lines:
        lead = line.lead
        if not lead:
            continue
        if len(lead) > 1 and lead[-1].type is Tok.COMMENT:
            line.comment = lead[-1:]
            lead = line.lead = lead[:-1]
        for i, t in enumerate(lead):
            if i > 0 and t.type is Tok.EQUAL:
                if sum(_bracket_change(x) for x in lead[i:]) == 0:
                    line.assign = lead[i:]
                    line.lead = lead[:i]
                break
    return lines


def _indent(lines: list[_Line]) -> None:
    indents: list[int] = []
    for line in lines:
        if not line.lead:
            continue
        if line.lead[0].type is Tok.NEWLINE:
            line.lead[0].spaces = 0
            continue
        net = 0
        for t in line.lead:
            net += _bracket_change(t)
            if t.type is Tok.OHEREDOC:
                break
        for t in line.assign or ():
            net += _bracket_change(t)
        if net > 0:
            line.lead[0].spaces = 2 * len(indents)
            indents.append(net)
            continue
        closed = -net
        while closed > 0 and indents:
            if closed > indents[-1]:
                closed -= indents.pop()
            elif closed < indents[-1]:
                indents[-1] -= closed
                closed = 0
            else:
                indents.pop()
                closed = 0
        line.lead[0].spaces = 2 * len(indents)


_NIL = WTok(Tok.NIL, b"")


def _spaces(lines: list[_Line]) -> None:
    for line in lines:
        _space_cell(line.lead)
        if line.assign:
            line.assign[0].spaces = 1
            _space_cell(line.assign)


def _space_cell(cell: list[WTok]) -> None:
    for i in range(len(cell) - 1):
        before = cell[i - 1] if i > 0 else _NIL
        cell[i + 1].spaces = 1 if space_after(cell[i], before, cell[i + 1]) else 0


def _align(lines: list[_Line]) -> None:
    def runs(cell: str) -> list[list[_Line]]:
        out: list[list[_Line]] = []
        cur: list[_Line] = []
        for line in lines:
            if getattr(line, cell) is None:
                if cur:
                    out.append(cur)
                cur = []
            else:
                cur.append(line)
        if cur:
            out.append(cur)
        return out

    for run in runs("assign"):
        widest = max(_columns(line.lead) for line in run)
        for line in run:
            line.assign[0].spaces = widest - _columns(line.lead) + 1  # type: ignore[index]
    for run in runs("comment"):
        widest = max(_columns(line.lead) + _columns(line.assign) for line in run)
        for line in run:
            line.comment[0].spaces = widest - _columns(line.lead) - _columns(line.assign) + 1  # type: ignore[index]


_TEMPLATE_TEXT = frozenset({Tok.QUOTED_LIT, Tok.STRING_LIT, Tok.OQUOTE, Tok.OHEREDOC})
_TEMPLATE_END = frozenset({Tok.QUOTED_LIT, Tok.STRING_LIT, Tok.CQUOTE, Tok.CHEREDOC})
_NEGATION_CONTEXT = frozenset({
    Tok.NIL, Tok.OPAREN, Tok.OBRACE, Tok.OBRACK, Tok.EQUAL, Tok.COLON, Tok.COMMA, Tok.QUESTION, Tok.PLUS, Tok.STAR,
    Tok.SLASH, Tok.PERCENT, Tok.MINUS, Tok.EQUAL_OP, Tok.NOT_EQUAL, Tok.GREATER_THAN, Tok.GREATER_THAN_EQ,
    Tok.LESS_THAN, Tok.LESS_THAN_EQ, Tok.AND, Tok.OR, Tok.BANG,
})


def space_after(subject: WTok, before: WTok, after: WTok) -> bool:
    """Whether one space separates `subject` from `after` (HCL's spacing rules, in order)."""
    s, a = subject.type, after.type
    if a in (Tok.NEWLINE, Tok.NIL):
        return False
    if s is Tok.IDENT and a is Tok.OPAREN:
        return False
    if (s is Tok.IDENT and a is Tok.DOUBLE_COLON) or (s is Tok.DOUBLE_COLON and a is Tok.IDENT):
        return False
    if s is Tok.DOT or a is Tok.DOT:
        return False
    if a in (Tok.COMMA, Tok.ELLIPSIS):
        return False
    if s is Tok.COMMA:
        return True
    if s in _TEMPLATE_TEXT or a in _TEMPLATE_END:
        return False
    if s is Tok.IDENT and subject.bytes == b"in" and before.type is Tok.IDENT:
        return True
    if a is Tok.OBRACK and (s in (Tok.IDENT, Tok.NUMBER_LIT) or _bracket_change(subject) < 0):
        return False
    if s is Tok.BANG:
        return False
    if s is Tok.MINUS:
        return before.type not in _NEGATION_CONTEXT
    if s is Tok.OBRACE or a is Tok.CBRACE:
        return not (s is Tok.OBRACE and a is Tok.CBRACE)
    if s in (Tok.TEMPLATE_INTERP, Tok.TEMPLATE_CONTROL) and a is Tok.OBRACE:
        return True
    if s is Tok.CBRACE and a is Tok.TEMPLATE_SEQ_END:
        return True
    if s is Tok.TEMPLATE_SEQ_END and a in (Tok.TEMPLATE_INTERP, Tok.TEMPLATE_CONTROL):
        return False
    # no space after an opening bracket or before a closing one; between anything else, one
    return _bracket_change(subject) <= 0 and _bracket_change(after) >= 0
