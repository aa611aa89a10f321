"""A diagnostic as Terraform's JSON diagnostic object (validate -json, the -json UI streams).

The object has the range of the subject and a snippet: the top-level block it sits in
(`context`, null on a block header), the source lines the subject and its context touch,
the highlight offsets inside them, the values the failing expression referred to and, for a
failed function call, the function's signature.
"""
from __future__ import annotations

from typing import Any

from tfconsole.diags import Diagnostic, Pos, SourceRange

from .diagview import _line_spans, _overlaps, block_context


def diagnostic_json(d: Diagnostic, files: dict[str, str] | None) -> dict:
    out: dict[str, Any] = {"severity": "error" if d.is_error else "warning", "summary": d.summary,
                           "detail": d.detail}
    if d.address:
        out["address"] = d.address
    subj = d.subject
    if subj is None:
        return out
    hl = subj
    if hl.start.byte == hl.end.byte:  # an empty highlight still covers one character
        hl = SourceRange(hl.filename, hl.start, Pos(hl.end.line, hl.end.column + 1, hl.end.byte + 1))
    out["range"] = hl.to_json()
    text = (files or {}).get(subj.filename)
    if text is None:
        return out
    out["snippet"] = snippet_json(d, text.encode("utf-8", "surrogateescape"), hl)
    return out


def snippet_json(d: Diagnostic, src: bytes, hl: SourceRange) -> dict:
    lines = [(a, b) for a, b in _line_spans(src) if _overlaps(a, b, hl.start.byte, hl.end.byte)]
    code = b"\n".join(src[a:b] for a, b in lines)
    base = lines[0][0] if lines else 0
    start = min(max(hl.start.byte - base, 0), len(code))
    end = min(max(start + (hl.end.byte - hl.start.byte), 0), len(code))
    context = block_context(src, hl.filename, hl.start.byte - 1) if src else ""
    snip: dict[str, Any] = {
        "context": context or None,
        "code": code.decode("utf-8", "surrogateescape"),
        "start_line": hl.start.line,
        # offsets count characters as Go counts bytes of the UTF-8 text
        "highlight_start_offset": start,
        "highlight_end_offset": end,
        "values": [{"traversal": t, "statement": s} for t, s in d.values],
    }
    call = function_call_json(d.function_call)
    if call is not None:
        snip["function_call"] = call
    return snip


def function_call_json(signature: str | None) -> dict | None:
    """{"called_as", "signature"} for "name(a, b)" (the failing call, as the diagnostic names it)."""
    if not signature or "(" not in signature:
        return None
    called = signature[:signature.index("(")]
    from tfconsole.lang.funcs import FUNCTIONS

    base = called.rsplit("::", 1)[-1]
    fn = FUNCTIONS.get(base)
    out: dict[str, Any] = {"called_as": called}
    if fn is not None:
        out["signature"] = describe_function(base, fn)
    return out


def describe_function(name: str, fn: Any) -> dict:
    """Terraform's function description: parameters with their types, the return type."""
    from tfconsole.lang.types import DYNAMIC, Type

    desc: dict[str, Any] = {"name": name, "params": [{"name": p.name, "type": p.type.to_json()} for p in fn.params]}
    if fn.variadic is not None:
        desc["variadic_param"] = {"name": fn.variadic.name, "type": fn.variadic.type.to_json()}
    rt = fn.return_type if isinstance(fn.return_type, Type) else DYNAMIC
    desc["return_type"] = rt.to_json()
    return desc


__all__ = ["describe_function", "diagnostic_json", "function_call_json", "snippet_json"]
