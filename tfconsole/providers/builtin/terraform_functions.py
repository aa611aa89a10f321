"""The functions of the built-in `terraform` provider: provider::terraform::encode_tfvars,
decode_tfvars and encode_expr.

encode_tfvars and encode_expr write a value in HCL's native syntax as HCL's own writer does: a
value becomes tokens (objects one attribute per line, keys that are identifiers left bare, lists
on one line, numbers in full decimal, strings with HCL's escapes) and those tokens are laid out
by the same rules `fmt` follows (config.hclfmt: indentation by bracket, one space or none
between tokens, `=` aligned over runs of lines). decode_tfvars reads a `.tfvars` text: constant
attributes only, no blocks, no references, no function calls.
"""
from __future__ import annotations

from typing import Any

from tfconsole.diags import Diagnostics
from tfconsole.lang.types import DYNAMIC, STRING
from tfconsole.lang.values import Null, TMap, Unknown, format_number, is_null, is_wholly_known

from ..interface import FunctionSignature

SIGNATURES = {
    "encode_tfvars": FunctionSignature((("value", DYNAMIC, False, True),), None, STRING,
                                       "Produce a string representation of an object using the same syntax as for "
                                       "`.tfvars` files"),
    "decode_tfvars": FunctionSignature((("src", STRING, False, False),), None, DYNAMIC,
                                       "Parse a string containing syntax like that used in a `.tfvars` file"),
    "encode_expr": FunctionSignature((("value", DYNAMIC, False, True),), None, STRING,
                                     "Produce a string representation of an arbitrary value using Terraform "
                                     "expression syntax"),
}


def call(name: str, args: list[Any]) -> tuple[Any, Diagnostics]:
    fn = {"encode_tfvars": encode_tfvars, "decode_tfvars": decode_tfvars, "encode_expr": encode_expr}.get(name)
    if fn is None:
        return None, Diagnostics().error("Call to unknown function", f"The provider has no function named \"{name}\".")
    try:
        return fn(args[0]), Diagnostics()
    except _CallError as exc:
        return None, Diagnostics().error("Error in function call", f"Call to function \"provider::terraform::{name}\" "
                                         f"failed: {exc}.")


class _CallError(ValueError):
    """What Terraform reports as "Call to function ... failed: MESSAGE." (its argument errors
    name a parameter these functions do not have, so they read the same way)."""


# ---------------------------------------------------------------------------
# writing values


def encode_expr(v: Any) -> Any:
    if not is_wholly_known(v):
        return Unknown(STRING)
    from tfconsole.config.hclfmt import layout

    toks = _value_tokens(v, [])
    layout(toks)
    return _text(toks).strip()


def encode_tfvars(v: Any) -> Any:
    if is_null(v):
        raise _CallError("cannot encode a null value in tfvars syntax")
    if not is_wholly_known(v):
        return Unknown(STRING)
    if not isinstance(v, dict):
        raise _CallError("invalid value to encode: must be an object whose attribute names will become the "
                        "encoded variable names")
    from tfconsole.config.hclfmt import WTok, layout
    from tfconsole.config.hclscan import Tok

    toks: list[Any] = []
    for key in sorted(v):
        if not _is_identifier(key):
            raise _CallError(f"invalid variable name \"{key}\": must be a valid identifier, per Terraform's "
                            "rules for input variable declarations")
        toks += [WTok(Tok.IDENT, key.encode()), WTok(Tok.EQUAL, b"=")]
        _value_tokens(v[key], toks)
        toks.append(WTok(Tok.NEWLINE, b"\n"))
    toks.append(WTok(Tok.EOF, b""))
    layout(toks)
    return _text(toks)


def _text(toks: list[Any]) -> str:
    return b"".join(b" " * t.spaces + t.bytes for t in toks).decode()


def _is_identifier(s: str) -> bool:
    """HCL's identifier rule: a letter (or _) first, then letters, digits, _ and -."""
    if not s or not (s[0].isalpha() or s[0] == "_"):
        return False
    return all(c.isalnum() or c in "_-" for c in s)


def _value_tokens(v: Any, out: list[Any]) -> list[Any]:
    from tfconsole.config.hclfmt import WTok, escape_quoted
    from tfconsole.config.hclscan import Tok

    if v is None or type(v) is Null:
        out.append(WTok(Tok.IDENT, b"null"))
    elif v is True or v is False:
        out.append(WTok(Tok.IDENT, b"true" if v else b"false"))
    elif isinstance(v, str):
        out.append(WTok(Tok.OQUOTE, b'"'))
        if v:
            out.append(WTok(Tok.QUOTED_LIT, escape_quoted(v).encode()))
        out.append(WTok(Tok.CQUOTE, b'"'))
    elif isinstance(v, dict):  # objects and maps: one attribute per line, in key order
        out.append(WTok(Tok.OBRACE, b"{"))
        if v:
            out.append(WTok(Tok.NEWLINE, b"\n"))
        for key in (v if isinstance(v, TMap) else sorted(v)):
            if _is_identifier(key):
                out.append(WTok(Tok.IDENT, key.encode()))
            else:
                _value_tokens(key, out)
            out.append(WTok(Tok.EQUAL, b"="))
            _value_tokens(v[key], out)
            out.append(WTok(Tok.NEWLINE, b"\n"))
        out.append(WTok(Tok.CBRACE, b"}"))
    elif isinstance(v, list):  # lists, sets (in cty's order) and tuples
        out.append(WTok(Tok.OBRACK, b"["))
        for i, item in enumerate(v):
            if i:
                out.append(WTok(Tok.COMMA, b","))
            _value_tokens(item, out)
        out.append(WTok(Tok.CBRACK, b"]"))
    else:
        out.append(WTok(Tok.NUMBER_LIT, format_number(v).encode()))
    return out


# ---------------------------------------------------------------------------
# reading .tfvars text

_SOURCE = "<decode_tfvars argument>"


def decode_tfvars(src: Any) -> Any:
    if is_null(src):
        raise _CallError("cannot decode tfvars from a null value")
    if not isinstance(src, str):
        raise _CallError("argument must be a string")
    from tfconsole.config.body import parse_file
    from tfconsole.config.model import static_value

    body, d = parse_file(src, _SOURCE)
    if body is None or d.has_errors:
        raise _CallError(f"invalid tfvars syntax: {_hcl_error(d)}")
    if body.blocks:
        b = body.blocks[0]
        raise _CallError(f"invalid tfvars content: {_where(b.range)}: Unexpected \"{b.type}\" block; Blocks are "
                         "not allowed here.")
    out: dict[str, Any] = {}
    for name, attr in body.attributes.items():
        problem = _not_constant(attr.expr)
        if problem is None:
            try:
                out[name] = static_value(attr.expr)
                continue
            except ValueError:
                problem = f"{_where(attr.expr.range)}: Variables not allowed; Variables may not be used here."
        raise _CallError(f"invalid expression for variable \"{name}\": {problem}")
    return out


def _not_constant(expr: Any) -> str | None:
    """HCL's words for the first thing that keeps an expression from being a constant: a
    function call (the whole call) or a variable (its root name); None for a constant."""
    from tfconsole.diags import Pos, SourceRange
    from tfconsole.lang import ast as A

    stack = [expr]
    while stack:
        e = stack.pop()
        if type(e) is A.FunctionCall:
            return f"{_where(e.range)}: Function calls not allowed; Functions may not be called here."
        stack.extend(reversed(list(e.children())))
    refs = A.references(expr)
    if refs and refs[0].range is not None:
        r, n = refs[0].range, len(refs[0].root)
        root = SourceRange(r.filename, r.start, Pos(r.start.line, r.start.column + n, r.start.byte + n))
        return f"{_where(root)}: Variables not allowed; Variables may not be used here."
    return None


def _where(r: Any) -> str:
    """An HCL range as its diagnostics print it: FILE:LINE,COL-ENDCOL (or -ENDLINE,ENDCOL)."""
    if r is None:
        return _SOURCE
    end = f"{r.end.column}" if r.start.line == r.end.line else f"{r.end.line},{r.end.column}"
    return f"{r.filename}:{r.start.line},{r.start.column}-{end}"


def _hcl_error(d: Diagnostics) -> str:
    errs = d.errors()
    parts = [f"{_where(x.subject)}: {x.summary}; {x.detail}" for x in errs]
    return parts[0] if len(parts) == 1 else f"{len(parts)} problems:\n\n" + "\n".join(f"- {p}" for p in parts)
