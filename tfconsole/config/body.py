"""Generic HCL bodies (attributes + nested blocks with source ranges) from python-hcl2.

This is the low level the typed configuration model (model.py) is decoded from; it knows
nothing about Terraform's block types.
"""
from __future__ import annotations

import json
import threading
from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any

from tfconsole.diags import Diagnostics, Pos, SourceRange
from tfconsole.lang import ast as A

from . import hcl_parser as H
from .hcl_parser import Bad


@dataclass
class Attribute:
    name: str
    expr: A.Expr
    range: SourceRange
    name_range: SourceRange


# re-entrant: a lazy local's expression is its lazy attribute's, made while the local's is made
_DECODE_LOCK = threading.RLock()


class LazyExpr:
    """Mixin of a holder whose `expr` is made on first read by `_make_expr()`: once, under a
    lock, so every reader sees the same tree."""

    def __getattr__(self, key: str) -> Any:  # only for what the instance does not hold yet
        if key != "expr":
            raise AttributeError(key)
        with _DECODE_LOCK:
            e = self.__dict__.get("expr")
            if e is None:
                e = self.__dict__["expr"] = self._make_expr()
        return e

    def _make_expr(self) -> Any:
        raise NotImplementedError


class LazyAttribute(LazyExpr, Attribute):
    """An Attribute read from the parse cache whose expression is decoded on first use: `init`
    (and anything else that never evaluates a `locals` block) then does not build the trees of
    a large configuration's expressions. `decode()` returns the expression; the first caller
    decodes it under a lock, so every caller sees the same tree."""

    def __init__(self, name: str, rng: SourceRange, name_range: SourceRange, decode: Any):
        self.name = name
        self.range = rng
        self.name_range = name_range
        self._decode = decode

    def _make_expr(self) -> Any:
        decode, self._decode = self._decode, None  # the decoder holds the cached data: let it go
        return decode()


@dataclass
class Block:
    type: str
    labels: list[str]
    body: "Body"
    range: SourceRange  # the block header (type and labels), as Terraform reports it

    def label_str(self) -> str:
        return " ".join(f'"{x}"' for x in self.labels)


@dataclass
class Body:
    attributes: dict[str, Attribute] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)
    range: SourceRange | None = None

    def blocks_of(self, type_: str) -> list[Block]:
        return [b for b in self.blocks if b.type == type_]


# ---------------------------------------------------------------------------
# native syntax: parsed by hcl_parser with python-hcl2's grammar, built by the Compiler plus
# the body-level handlers below


class _BodyCompiler(A.Compiler):
    """The Compiler's expression handlers plus attributes, blocks and bodies. Diagnostics are
    collected with the position of the item they belong to and sorted at the end, so they come
    out in source order although the tree is built bottom-up."""

    def __init__(self, filename: str):
        super().__init__(filename)
        self.found: list[tuple[int, str, str, SourceRange | None]] = []

    def report(self, at: int, summary: str, detail: str, rng: SourceRange | None) -> None:
        self.found.append((at, summary, detail, rng))

    def h_attribute(self, kids: list, span: tuple) -> Attribute:
        name = kids[0]
        rng = self.rng(span)
        return Attribute(name.word(), kids[2], rng, self.rng(name.span) or rng)  # type: ignore[arg-type]

    def h_block(self, kids: list, span: tuple) -> Block:
        heads = [k for k in kids if type(k) is A.PNode]
        body = [k for k in kids if type(k) is Body]
        first, last = heads[0].span, heads[-1].span
        rng = self.rng(first[:3] + last[3:])
        if body:
            braces = [k.span for k in kids if type(k) is H.Tok]
            if len(braces) == 2:
                self._check_single_line(body[0], braces[0], braces[1])
        return Block(_label(heads[0], self), [_label(h, self) for h in heads[1:]], body[0] if body else Body(),
                     rng)

    def _check_single_line(self, body: Body, obrace: tuple, cbrace: tuple) -> None:
        """HCL's single-line block rule, which python-hcl2's grammar does not enforce: content
        that starts on the opening brace's line is exactly one argument, closed on its line."""
        items: list[tuple[Pos, Attribute | Block]] = [(a.range.start, a) for a in body.attributes.values()]
        items += [(b.range.start, b) for b in body.blocks]
        if not items:
            return
        start, item = min(items, key=lambda it: (it[0].line, it[0].column))
        if start.line != obrace[0]:
            return
        if type(item) is Block:
            self.report(start.byte, "Argument definition required",
                        "A single-line block definition can contain only a single argument. If you meant to "
                        f"define argument \"{item.type}\", use an equals sign to assign it a value. To define a "
                        "nested block, place it on a line of its own within its parent block.", item.range)
        elif len(items) > 1 or cbrace[0] != item.range.end.line:
            end = item.range.end
            self.report(end.byte, "Invalid single-argument block definition",
                        "An argument definition on the same line as its containing block creates a single-line "
                        "block definition, which must also be closed on the same line. Place the block's "
                        "closing brace immediately after the argument definition.",
                        SourceRange(self.filename, end, Pos(end.line + 1, 1, end.byte + 1)))

    def h_body(self, kids: list, span: tuple) -> Body:
        body = Body(range=self.rng(span))
        for k in kids:
            if type(k) is Attribute:
                prev = body.attributes.get(k.name)
                if prev is not None:
                    self.report(k.range.start.byte, "Attribute redefined",
                                f"The argument \"{k.name}\" was already set at {prev.range}. Each argument may "
                                "be set only once.", k.range)
                elif type(k.expr) is Bad:
                    err = k.expr.error
                    self.report(k.range.start.byte, "Invalid expression", err.message, err.range or k.range)
                else:
                    body.attributes[k.name] = k
            elif type(k) is Block:
                body.blocks.append(k)
            elif type(k) is Bad:
                err = k.error
                self.report(k.span[2] if k.span else 0, "Invalid expression", err.message,
                            err.range or self.rng(k.span))
        return body

    def h_start(self, kids: list, span: tuple) -> Body:
        return kids[0]


def _label(node: A.PNode, comp: A.Compiler) -> str:
    """A block type or label: a bare word, or a quoted string without templates."""
    if node.data != "string":
        return node.word()
    parts = []
    for p in node.kids:
        if p[0] != "lit":
            raise A.ParseError("Invalid block label: templates are not allowed in block labels",
                               comp.rng(node.span))
        parts.append(A._unescape(p[2].value))
    return "".join(parts)


_BAD_AWARE = frozenset({"attribute", "body", "start"})


def parse_file(text: str, filename: str) -> tuple[Body | None, Diagnostics]:
    """Parse one file of HCL native syntax: its body, or None and the syntax error."""
    body, diags, _ = _parse(text, filename)
    return body, diags


def _parse(text: str, filename: str, literals: bool = True) -> tuple[Body | None, Diagnostics, dict]:
    from .hcl_literals import read_literal

    diags = Diagnostics()
    comp = _BodyCompiler(filename)
    try:
        # a final newline, as python-hcl2 adds: the grammar ends attributes and blocks at one
        body = H.parse(text + "\n", "start", comp.handlers(), A.pnode_handler, comp, bad_aware=_BAD_AWARE,
                       errors=(A.ParseError,), literals=read_literal if literals else None)
    except H.HclSyntaxError as exc:
        if literals:  # errors are always the token-by-token parser's own
            return _parse(text, filename, literals=False)
        if exc.token_type == "$END":
            summary, detail, at = _end_of_file(exc, text)
        else:
            summary, detail = _syntax_error(exc, text)
            at = exc.start
        diags.error(summary, detail, SourceRange(filename, at, Pos(at.line, at.column + 1, at.byte + 1)))
        return None, diags, {}
    except H.TooLarge as exc:
        if literals:
            return _parse(text, filename, literals=False)
        at = exc.start or Pos(1, 1)
        diags.error("Configuration too deeply nested" if exc.what == "nesting" else "Configuration file too large",
                    A.too_large_message(exc), SourceRange(filename, at, Pos(at.line, at.column + 1, at.byte + 1)))
        return None, diags, {}
    comp.found.sort(key=lambda f: f[0])
    for _, summary, detail, rng in comp.found:
        diags.error(summary, detail, rng)
    return body, diags, comp.numbers


_BRACKETS = frozenset({"LBRACE", "LSQB", "LPAR", "INTERP_START", "DIRECTIVE_START"})


def _end_of_file(exc: H.HclSyntaxError, text: str) -> tuple[str, str, Pos]:
    """The file ended inside something: Terraform's diagnostic for the innermost open bracket,
    at that bracket (a block or a tuple) or at the end of the file."""
    stack = exc.stack
    eof = Pos(text.count("\n") + 1, len(text) - (text.rfind("\n") + 1) + 1, len(text))
    for i in range(len(stack) - 1, -1, -1):
        tok = stack[i]
        if isinstance(tok, H.Tok) and tok.type == "DBLQUOTE" and not any(type(v) is A.PNode and v.data == "string"
                                                                          for v in stack[i + 1:]):
            return "Unterminated template string", "No closing marker was found for the string.", tok.start
        if not isinstance(tok, H.Tok) or tok.type not in _BRACKETS:
            continue
        before = next((v for v in reversed(stack[:i]) if v is not None), None)
        while type(before) is H.Splice and before:  # block labels are an inlined rule's children
            before = before[-1]
        after = stack[i + 1] if i + 1 < len(stack) else None
        if tok.type == "LBRACE" and type(before) is A.PNode:  # a block's brace
            return ("Unclosed configuration block",
                    "There is no closing brace for this block before the end of the file. This may be caused "
                    "by incorrect brace nesting elsewhere in this file.", tok.start)
        if tok.type == "LSQB" and not (isinstance(after, H.Tok) and after.type == "FOR") and type(after) is not tuple:
            return ("Unterminated tuple constructor expression",
                    "There is no corresponding closing bracket before the end of the file. This may be caused "
                    "by incorrect bracket nesting elsewhere in this file.", tok.start)
        if tok.type == "LPAR" and type(before) is not A.PNode:  # parentheses, not a call
            return "Unbalanced parentheses", "Expected a closing parenthesis to terminate the expression.", eof
        break
    return "Missing expression", "Expected the start of an expression, but found the end of the file.", eof


def _syntax_error(exc: H.HclSyntaxError, text: str) -> tuple[str, str]:
    """Terraform's summary and detail for a token or character the grammar does not allow."""
    if exc.kind == "chars":
        lines = text.splitlines()
        ch = lines[exc.line - 1][exc.column - 1: exc.column] if exc.line - 1 < len(lines) else ""
        if ch:
            return "Invalid character", f"This character is not used within the language: {ch!r}."
        return "Invalid character", "An unexpected character was found."
    expected = exc.expected
    if expected & {"INT_LITERAL", "FLOAT_LITERAL", "LSQB", "LBRACE", "DBLQUOTE", "NAME", "LPAR"}:
        return "Invalid expression", "Expected the start of an expression, but found an invalid expression token."
    if exc.token_type in ("RBRACE", "EQ", "RPAR", "RSQB", "COMMA", "DOT", "COLON"):
        return "Argument or block definition required", "An argument or block definition is required here."
    return "Unexpected token", f"Unexpected {exc.token_type.lower()} {exc.token_value!r} here" + \
        (f"; expected one of: {', '.join(sorted(expected)[:6])}." if expected else ".")


class _JsonShapeError(Exception):
    """A .tf.json document whose shape is not a configuration's."""

    summary = "Invalid JSON configuration"


class _JsonTooDeep(_JsonShapeError):
    summary = "Configuration too deeply nested"


def parse_json_file(text: str, filename: str) -> tuple[Body | None, Diagnostics]:
    """Terraform's JSON syntax (*.tf.json) for the common shapes: blocks as nested objects.
    Numbers go through the same conversion as number literals in native syntax."""
    diags = Diagnostics()
    rng = SourceRange(filename, Pos(1, 1), Pos(1, 1))
    try:
        data = json.loads(text, parse_float=A.number_literal, parse_int=A.number_literal)
    except json.JSONDecodeError as exc:
        diags.error("Invalid JSON", exc.msg, SourceRange(filename, Pos(exc.lineno, exc.colno),
                                                           Pos(exc.lineno, exc.colno)))
        return None, diags
    except RecursionError:
        diags.error("Configuration too deeply nested",
                    f"This JSON nests arrays or objects more than {H.MAX_NESTING} levels deep, tfconsole's limit.",
                    rng)
        return None, diags
    except Exception:  # noqa: BLE001 - a number the number type refuses (the only other failure)
        diags.error("Invalid JSON", "The file holds a number that cannot be represented.", rng)
        return None, diags
    labels_by_type = {"resource": 2, "data": 2, "module": 1, "variable": 1, "output": 1, "provider": 1,
                      "locals": 0, "terraform": 0, "moved": 0, "removed": 0, "check": 1}
    body = Body(range=rng)
    if not isinstance(data, dict):
        diags.error("Invalid JSON configuration", "The root of a .tf.json file must be an object.", rng)
        return None, diags
    try:
        for btype, content in data.items():
            n = labels_by_type.get(btype, 0)
            for labels, inner in _json_blocks(content, n, btype):
                body.blocks.append(Block(btype, labels, _json_body(inner, filename, rng, btype), rng))
    except _JsonShapeError as exc:
        diags.error(exc.summary, str(exc), rng)
        return None, diags
    except A.ParseError as exc:
        diags.error("Invalid expression", exc.message, exc.range or rng)
        return None, diags
    return body, diags


def _json_blocks(content: Any, n: int, what: str, labels: tuple = ()) -> list[tuple[list[str], Any]]:
    if n == 0:
        items = content if isinstance(content, list) else [content]
        return [(list(labels), i) for i in items]
    if not isinstance(content, dict):
        raise _JsonShapeError(f"The value of \"{what}\" must be an object with one property per "
                              f"{'name' if n == 1 else 'label'}.")
    out = []
    for k, v in content.items():
        out.extend(_json_blocks(v, n - 1, what, labels + (k,)))
    return out


def _json_body(obj: Any, filename: str, rng: SourceRange, what: str) -> Body:
    if obj is None:
        obj = {}
    if not isinstance(obj, dict):
        raise _JsonShapeError(f"The content of a \"{what}\" block must be a JSON object.")
    b = Body(range=rng)
    nested = {"lifecycle", "provisioner", "validation", "precondition", "postcondition", "connection"}
    for k, v in obj.items():
        if k in nested:
            items = v if isinstance(v, list) else [v]
            for it in items:
                if k == "provisioner":
                    if not isinstance(it, dict):
                        raise _JsonShapeError("A \"provisioner\" block must be a JSON object keyed by type.")
                    for ptype, pbody in it.items():
                        b.blocks.append(Block(k, [ptype], _json_body(pbody, filename, rng, k), rng))
                else:
                    b.blocks.append(Block(k, [], _json_body(it, filename, rng, k), rng))
            continue
        b.attributes[k] = Attribute(k, _json_expr(v, filename, rng, k), rng, rng)
    return b


def _json_expr(v: Any, filename: str, rng: SourceRange, key: str = "", depth: int = 0) -> A.Expr:
    if depth > H.MAX_NESTING:
        raise _JsonTooDeep(f"This JSON nests arrays or objects more than {H.MAX_NESTING} levels deep, "
                              "tfconsole's limit.")
    if isinstance(v, str):
        if key in ("depends_on", "provider") or "${" not in v and "%{" not in v:
            if key in ("provider",):
                return A.parse_expression(v, filename)
            return A.Literal(v, rng) if "${" not in v else A.parse_template(v, filename)
        return A.parse_template(v, filename)
    if isinstance(v, list):
        if key == "depends_on":
            if not all(isinstance(x, str) for x in v):
                raise _JsonShapeError("\"depends_on\" must be a list of reference strings.")
            return A.TupleCons([A.parse_expression(x, filename) for x in v], rng)
        return A.TupleCons([_json_expr(x, filename, rng, "", depth + 1) for x in v], rng)
    if isinstance(v, dict):
        return A.ObjectCons([(A.ObjectKey(k, None, rng), _json_expr(x, filename, rng, "", depth + 1))
                             for k, x in v.items()], rng)
    return A.Literal(v, rng)
