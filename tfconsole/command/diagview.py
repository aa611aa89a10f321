"""Terraform's text layout of one diagnostic that points into source code.

Used for diagnostics whose exact byte ranges are known (syntax errors from `fmt`, the console's
errors): the quoted source is every line the subject or its context range touches, the header
names the top-level block the subject sits in, and the detail is word-wrapped the way Terraform
wraps it (77 columns without color, 75 inside the colored box).
"""
from __future__ import annotations

import os
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any

from tfconsole.diags import Pos, SourceRange


@dataclass(frozen=True)
class Located:
    """What the renderer needs of a diagnostic."""

    summary: str
    detail: str
    subject: SourceRange | None
    context: SourceRange | None = None
    error: bool = True
    function_call: str | None = None
    values: tuple[tuple[str, str], ...] = ()


def render(d: Located, sources: dict[str, bytes], color: bool) -> str:
    """The diagnostic as Terraform prints it: a box without -no-color, a blank line before it with."""
    body = [f"{'Error' if d.error else 'Warning'}: {d.summary}", ""]
    if d.subject is not None:
        body.extend(_snippet(d, sources.get(d.subject.filename)))
        body.append("")
    if d.detail:
        width = 75 if color else 77
        for line in d.detail.split("\n"):
            body.extend((line if line.startswith(" ") else wrap(line, width)).split("\n"))
    text = "\n".join(body) + "\n"
    if not color:
        return "\n" + text
    lines = text.split("\n")[:-1]
    return "╷\n" + "".join(("│ " + ln if ln else "│") + "\n" for ln in lines) + "╵\n"


def terraform_order(d: Located) -> tuple:
    """Sort key in Terraform's order: warnings first, then those without a location, then by
    file (fewer path segments first), start and end."""
    s = d.subject
    if s is None:
        return (d.error, 0, 0, "", 0, 0)
    return (d.error, 1, s.filename.count(os.sep), s.filename, s.start.byte, s.end.byte)


def _snippet(d: Located, src: bytes | None) -> list[str]:
    subj = d.subject
    assert subj is not None
    if src is None:
        return [f"  on {subj.filename} line {subj.start.line}:", "  (source code not available)"]
    snip = _range_over(d.context or subj, subj)
    if snip.start.byte == snip.end.byte:
        snip = SourceRange(snip.filename, snip.start, Pos(snip.end.line, snip.end.column + 1, snip.end.byte + 1))
    context = block_context(src, subj.filename, subj.start.byte - 1)
    out = [f"  on {subj.filename} line {subj.start.line}" + (f", in {context}" if context else "") + ":"]
    lines = [src[a:b] for a, b in _line_spans(src) if _overlaps(a, b, snip.start.byte, snip.end.byte)] or [b""]
    # invalid UTF-8 is shown as the bytes it is (surrogate escapes, encoded back on output)
    out.extend(f"{snip.start.line + i:4d}: {ln.decode('utf-8', 'surrogateescape')}" for i, ln in enumerate(lines))
    out.extend(value_annotations(d))
    return out


def value_annotations(d: Any) -> list[str]:
    """The lines under the quoted source of an expression error: the failed call's signature
    and what the expression's references were (Terraform's "├────" block)."""
    if not d.function_call and not d.values:
        return []
    out = ["    ├────────────────"]
    if d.function_call:
        out.append(f"    │ while calling {d.function_call}")
    for traversal, statement in d.values:
        first, *rest = statement.split("\n")
        out.append(f"    │ {traversal} {first}")
        out.extend(f"    │   {line}" for line in rest)
    return out


def _range_over(a: SourceRange, b: SourceRange) -> SourceRange:
    if a.start.byte == a.end.byte:
        return b
    if b.start.byte == b.end.byte:
        return a
    start = a.start if a.start.byte < b.start.byte else b.start
    end = a.end if a.end.byte > b.end.byte else b.end
    return SourceRange(a.filename, start, end)


def _line_spans(src: bytes) -> list[tuple[int, int]]:
    """Byte spans of each line's content (without its line ending), as bufio.ScanLines cuts them."""
    spans = []
    pos = 0
    n = len(src)
    while pos < n:
        nl = src.find(b"\n", pos)
        if nl < 0:
            end = n
            nxt = n
        else:
            end = nl
            nxt = nl + 1
        if end > pos and src[end - 1:end] == b"\r":
            end -= 1
        spans.append((pos, end))
        pos = nxt
    return spans


def _overlaps(a0: int, a1: int, b0: int, b1: int) -> bool:
    """hcl.Range.Overlaps on byte offsets: empty ranges never overlap; otherwise an end point of
    one lying inside the other counts."""
    if a0 == a1 or b0 == b1:
        return False

    def inside(lo: int, hi: int, x: int) -> bool:
        return lo <= x < hi

    return inside(a0, a1, b0) or inside(a0, a1, b1) or inside(b0, b1, a0) or inside(b0, b1, a1)


_CONTEXT_SCAN_LIMIT = 2 << 20  # bytes of a file scanned for block headers (memory stays bounded)
_spans_memo: dict[tuple[str, int, int], list[tuple[int, int, str]]] = {}


def block_context(src: bytes, filename: str, offset: int) -> str:
    """`resource "a" "b"`: the top-level block containing a byte offset, as Terraform names it.

    From HCL's parse of the file (with its recovery, as Terraform's context is); a file that
    nests too deeply to parse (the hostile one the diagnostic may be about) is read over its
    token stream instead. The spans of a file are kept for its other diagnostics; past the
    first 2 MB of a file no context is given."""
    if offset < 0 or offset >= _CONTEXT_SCAN_LIMIT:
        return ""
    key = (filename, len(src), hash(src))
    spans = _spans_memo.get(key)
    if spans is None:
        spans = _parsed_spans(src, filename) if len(src) <= _CONTEXT_SCAN_LIMIT else None
        if spans is None:
            spans = _top_level_spans(src[:_CONTEXT_SCAN_LIMIT], filename)
        _spans_memo.clear()
        _spans_memo[key] = spans
    return next((name for start, end, name in spans if start <= offset < end), "")


def _parsed_spans(src: bytes, filename: str) -> list[tuple[int, int, str]] | None:
    """The spans of the top-level blocks HCL's parser recovers from the file, as Terraform's
    context comes from the parsed body (a broken file's blocks are where recovery put them);
    None when the file nests too deeply to parse."""
    from tfconsole.config.hclparse import _go_quote, parse_config

    try:
        parsed = parse_config(src, filename)
    except RecursionError:
        return None
    return [(b.type_range.start.byte, b.close_brace_range.end.byte,
             " ".join([b.type, *(_go_quote(label) for label in b.labels)])) for b in parsed.body.blocks]


def _top_level_spans(src: bytes, filename: str) -> list[tuple[int, int, str]]:
    """(start byte, end byte, name) of every top-level block, its header to its closing brace,
    over the tokens (no recursion)."""
    from tfconsole.config.hclparse import _go_quote
    from tfconsole.config.hclscan import Tok, scan

    toks = [t for t in scan(src, filename) if t.type is not Tok.EOF]
    opens = {Tok.OBRACE, Tok.OBRACK, Tok.OPAREN, Tok.TEMPLATE_INTERP, Tok.TEMPLATE_CONTROL}
    closes = {Tok.CBRACE, Tok.CBRACK, Tok.CPAREN, Tok.TEMPLATE_SEQ_END}
    spans: list[tuple[int, int, str]] = []
    i, n, line_start = 0, len(toks), True
    while i < n:
        t = toks[i]
        if line_start and t.type is Tok.IDENT:
            labels, j = _header_labels(toks, i + 1)
            if j < n and toks[j].type is Tok.OBRACE:
                depth, k = 0, j
                while k < n:
                    depth += (toks[k].type in opens) - (toks[k].type in closes)
                    if depth == 0:
                        break
                    k += 1
                end = toks[k].end.byte if k < n else len(src) + 1
                name = " ".join([t.text, *(x if x.startswith('"') else _go_quote(x) for x in labels)])
                spans.append((t.start.byte, end, name))
                i = k + 1
                line_start = False
                continue
        line_start = t.type in (Tok.NEWLINE, Tok.COMMENT)
        i += 1
    return spans


def _header_labels(toks: list, j: int) -> tuple[list[str], int]:
    """The labels of a block header from token j on (identifiers, or quoted labels kept quoted
    when they hold escapes) and the index of the token after them."""
    from tfconsole.config.hclscan import Tok

    labels: list[str] = []
    n = len(toks)
    while j < n:
        if toks[j].type is Tok.IDENT:
            labels.append(toks[j].text)
            j += 1
        elif toks[j].type is Tok.OQUOTE:
            k = j + 1
            while k < n and toks[k].type is Tok.QUOTED_LIT:
                k += 1
            if k >= n or toks[k].type is not Tok.CQUOTE:
                break
            raw = "".join(t.text for t in toks[j + 1:k])
            labels.append(f'"{raw}"' if "\\" in raw else raw)
            j = k + 1
        else:
            break
    return labels, j


def wrap(text: str, limit: int) -> str:
    """Word wrapping as Terraform's go-wordwrap does it: break at spaces only, never inside a
    word, dropping the spaces at a break."""
    out: list[str] = []
    current = 0
    word: list[str] = []
    space: list[str] = []
    for ch in text:
        if ch == "\n":
            if not word:
                if current + len(space) > limit:
                    current = 0
                else:
                    out.extend(space)
                space = []
            else:
                out.extend(space)
                out.extend(word)
                space, word = [], []
            out.append("\n")
            current = 0
        elif ch.isspace() and ch != "\xa0":
            if not space or word:
                current += len(space) + len(word)
                out.extend(space)
                out.extend(word)
                space, word = [], []
            space.append(ch)
        else:
            word.append(ch)
            if current + len(space) + len(word) > limit and len(word) < limit:
                out.append("\n")
                current = 0
                space = []
    if not word:
        if current + len(space) <= limit:
            out.extend(space)
    else:
        out.extend(space)
        out.extend(word)
    return "".join(out)
