"""Generic HCL bodies (attributes + nested blocks with source ranges) from python-hcl2.

This is the low level the typed configuration model (model.py) is decoded from; it knows
nothing about Terraform's block types.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from lark import Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from tfconsole.diags import Diagnostics, Pos, SourceRange
from tfconsole.lang import ast as A


@dataclass
class Attribute:
    name: str
    expr: A.Expr
    range: SourceRange
    name_range: SourceRange


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
# the HCL parser, loaded fast
#
# python-hcl2 builds its Lark LALR parser from lark's own cache file, which lark deserializes
# field by field in Python: about 0.1 s of every command. A plain pickle of the built parser
# loads in a third of that. It lives in the user's cache directory, under a name that hashes
# everything it depends on (the grammar and post-lexer sources, lark, python-hcl2, Python), and
# is written atomically; any failure falls back to python-hcl2's own parser. The parser is
# shared with python-hcl2 (hcl2.parses_to_tree), so every parse in the process uses one.

_PARSER: Any = None


def _cache_path() -> str | None:
    import hashlib
    import os
    import sys

    try:
        import hcl2.parser as hp
        import lark

        h = hashlib.sha256()
        for name in ("hcl2.lark", "postlexer.py", "parser.py"):
            with open(os.path.join(os.path.dirname(hp.__file__), name), "rb") as f:
                h.update(f.read())
        h.update(_GRAMMAR_PATCH_VERSION.encode())
        h.update(f"{lark.__version__} {getattr(sys.modules.get('hcl2'), '__version__', '')} "
                 f"{sys.version_info[:3]}".encode())
    except (ImportError, OSError):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):
        return None  # no home directory: no cache, rather than one relative to the working directory
    return os.path.join(base, "tfconsole", f"hcl2-parser-{h.hexdigest()[:24]}.pickle")


# Two corrections to python-hcl2's grammar so that what Terraform accepts parses:
# - nested unary operators (!!x, - -1): the operand of a unary operator may itself be one;
# - a minus directly before a number literal is an operator, not part of the literal, so 3-0.5
#   lexes as 3, -, 0.5 (the unary minus of a literal is folded back by the compiler).
_GRAMMAR_PATCH_VERSION = "tfconsole-grammar-1"
_GRAMMAR_PATCHES = [
    ("!unary_op : (MINUS | NOT) expr_term", "!unary_op : (MINUS | NOT) (expr_term | unary_op)"),
    ("INT_LITERAL: NEGATIVE_DECIMAL? DECIMAL+", "INT_LITERAL: DECIMAL+"),
    ('FLOAT_LITERAL: (NEGATIVE_DECIMAL? DECIMAL+ | NEGATIVE_DECIMAL+) "." DECIMAL+ (EXP_MARK)?\n'
     '               | (NEGATIVE_DECIMAL? DECIMAL+ | NEGATIVE_DECIMAL+) (EXP_MARK)',
     'FLOAT_LITERAL: DECIMAL+ "." DECIMAL+ (EXP_MARK)?\n               | DECIMAL+ (EXP_MARK)'),
]


def _build_parser() -> Any:
    """python-hcl2's parser (same options and post-lexer) over its grammar with our patches; if the
    grammar no longer has the patched lines, python-hcl2's own parser."""
    import os

    import hcl2.parser
    from lark import Lark

    from hcl2.postlexer import PostLexer

    path = os.path.join(os.path.dirname(hcl2.parser.__file__), "hcl2.lark")
    try:
        with open(path, encoding="utf-8") as f:
            grammar = f.read()
    except OSError:
        return hcl2.parser.parser()
    for old, new in _GRAMMAR_PATCHES:
        if old not in grammar:
            return hcl2.parser.parser()
        grammar = grammar.replace(old, new)
    return Lark(grammar, parser="lalr", propagate_positions=True, postlex=PostLexer())


def _pickler_ids() -> tuple[dict[int, tuple], dict[tuple, Any]]:
    """Objects a pickle must not copy: modules, and lark's Shift/Reduce singletons, which the
    parser compares by identity."""
    import re

    from lark.parsers.lalr_analysis import Reduce, Shift

    known: dict[tuple, Any] = {("lark", "Shift"): Shift, ("lark", "Reduce"): Reduce, ("module", "re"): re}
    return {id(v): k for k, v in known.items()}, known


def hcl_parser() -> Any:
    """The Lark parser python-hcl2 uses (same grammar and options), from the pickle cache."""
    global _PARSER
    if _PARSER is not None:
        return _PARSER
    import io
    import os
    import pickle

    import hcl2.api
    import hcl2.parser

    path = _cache_path()
    parser = None
    ids, known = _pickler_ids()
    if path is not None:
        try:
            with open(path, "rb") as f:
                data = f.read()

            class _Unpickler(pickle.Unpickler):
                def persistent_load(self, pid: Any) -> Any:
                    return known[tuple(pid)]

            parser = _Unpickler(io.BytesIO(data)).load()
        except FileNotFoundError:
            parser = None
        except Exception:  # noqa: BLE001 - a stale or corrupt cache is rebuilt, never fatal
            parser = None
    if parser is None:
        parser = _build_parser()
        if path is not None:
            try:
                buf = io.BytesIO()

                class _Pickler(pickle.Pickler):
                    def persistent_id(self, obj: Any) -> Any:
                        return ids.get(id(obj))

                _Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(parser)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                tmp = f"{path}.{os.getpid()}.tmp"
                with open(tmp, "wb") as f:
                    f.write(buf.getvalue())
                os.replace(tmp, path)
            except Exception:  # noqa: BLE001 - an unwritable cache only costs time
                pass
    hcl2.api._get_parser = lambda: parser  # type: ignore[attr-defined]
    _PARSER = parser
    return parser


def parse_file(text: str, filename: str) -> tuple[Body | None, Diagnostics]:
    import hcl2

    hcl_parser()
    diags = Diagnostics()
    if "\x00" in text:
        diags.error("Invalid character encoding",
                    "The file contains a NUL byte; HCL configuration files must be UTF-8 text.",
                    SourceRange(filename, Pos(1, 1), Pos(1, 1)))
        return None, diags
    try:
        tree = hcl2.parses_to_tree(text)
    except UnexpectedInput as exc:
        line = getattr(exc, "line", 1) or 1
        col = getattr(exc, "column", 1) or 1
        if isinstance(exc, UnexpectedCharacters):
            ch = text.splitlines()[line - 1][col - 1: col] if line - 1 < len(text.splitlines()) else ""
            detail = f"This character is not used within the language: {ch!r}." if ch else \
                "An unexpected character was found."
            summary = "Invalid character"
        elif isinstance(exc, UnexpectedEOF):
            summary, detail = "Unclosed configuration block", \
                "There is no closing brace for this block before the end of the file."
        elif isinstance(exc, UnexpectedToken):
            tok = exc.token
            expected = set(exc.expected or ())
            if tok.type == "$END":
                summary, detail = "Unclosed configuration block", \
                    "There is no closing brace for this block before the end of the file."
            elif expected & {"INT_LITERAL", "FLOAT_LITERAL", "LSQB", "LBRACE", "DBLQUOTE", "NAME", "LPAR"}:
                summary, detail = "Invalid expression", \
                    "Expected the start of an expression, but found an invalid expression token."
            elif tok.type in ("RBRACE", "EQ", "RPAR", "RSQB", "COMMA", "DOT", "COLON"):
                summary, detail = "Argument or block definition required", \
                    "An argument or block definition is required here."
            else:
                summary = "Unexpected token"
                detail = f"Unexpected {tok.type.lower()} {str(tok)!r} here" + \
                    (f"; expected one of: {', '.join(sorted(expected)[:6])}." if expected else ".")
        else:
            summary, detail = "Syntax error", str(exc).splitlines()[0]
        diags.error(summary, detail, SourceRange(filename, Pos(line, col), Pos(line, col + 1)))
        return None, diags
    except LarkError as exc:
        diags.error("Syntax error", str(exc).splitlines()[0] if str(exc) else "invalid syntax",
                    SourceRange(filename, Pos(1, 1), Pos(1, 1)))
        return None, diags
    comp = A.Compiler(filename)
    body_tree = tree.children[0]
    try:
        return _body(body_tree, comp, diags), diags
    except A.ParseError as exc:
        diags.error("Invalid expression", exc.message, exc.range)
        return None, diags
    except RecursionError:
        diags.error("Configuration too deeply nested", "The file nests expressions too deeply.",
                    SourceRange(filename, Pos(1, 1), Pos(1, 1)))
        return None, diags


def _name_of(t: Any) -> str:
    if isinstance(t, Token):
        return str(t)
    if t.data in ("identifier", "keyword", "literal_value"):
        return str(t.children[0])
    if t.data == "string":
        parts = []
        for c in t.children:
            if isinstance(c, Tree) and c.data == "string_part":
                inner = c.children[0]
                if isinstance(inner, Token):
                    parts.append(A._unescape(str(inner)))
                else:
                    raise A.ParseError("Invalid block label: templates are not allowed in block labels",
                                       None)
        return "".join(parts)
    raise A.ParseError(f"unexpected {t.data}", None)


def _body(t: Tree, comp: A.Compiler, diags: Diagnostics) -> Body:
    body = Body(range=comp.rng(t))
    for c in t.children:
        if not isinstance(c, Tree):
            continue
        if c.data == "attribute":
            name_tree = c.children[0]
            name = _name_of(name_tree)
            expr_tree = [x for x in c.children[1:] if isinstance(x, Tree) and x.data != "new_line_or_comment"][0]
            rng = comp.rng(c)
            if name in body.attributes:
                prev = body.attributes[name]
                diags.error("Attribute redefined",
                            f"The argument \"{name}\" was already set at {prev.range}. Each argument may "
                            "be set only once.", rng)
                continue
            try:
                expr = comp.expr(expr_tree)
            except A.ParseError as exc:
                diags.error("Invalid expression", exc.message, exc.range or rng)
                continue
            body.attributes[name] = Attribute(name, expr, rng, comp.rng(name_tree) or rng)  # type: ignore[arg-type]
        elif c.data == "block":
            kids = [x for x in c.children if isinstance(x, Tree) and x.data != "new_line_or_comment"]
            inner = [x for x in kids if x.data == "body"]
            heads = [x for x in kids if x.data != "body"]
            type_ = _name_of(heads[0])
            labels = [_name_of(h) for h in heads[1:]]
            hr = comp.rng(heads[-1])
            r0 = comp.rng(heads[0])
            rng = SourceRange(r0.filename, r0.start, hr.end) if r0 and hr else comp.rng(c)
            sub = _body(inner[0], comp, diags) if inner else Body()
            body.blocks.append(Block(type_, labels, sub, rng))  # type: ignore[arg-type]
    return body


def parse_json_file(text: str, filename: str) -> tuple[Body | None, Diagnostics]:
    """Terraform's JSON syntax (*.tf.json) for the common shapes: blocks as nested objects."""
    diags = Diagnostics()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        diags.error("Invalid JSON", exc.msg, SourceRange(filename, Pos(exc.lineno, exc.colno),
                                                           Pos(exc.lineno, exc.colno)))
        return None, diags
    rng = SourceRange(filename, Pos(1, 1), Pos(1, 1))
    labels_by_type = {"resource": 2, "data": 2, "module": 1, "variable": 1, "output": 1, "provider": 1,
                      "locals": 0, "terraform": 0, "moved": 0, "removed": 0, "check": 1}
    body = Body(range=rng)
    if not isinstance(data, dict):
        diags.error("Invalid JSON configuration", "The root of a .tf.json file must be an object.", rng)
        return None, diags
    for btype, content in data.items():
        n = labels_by_type.get(btype, 0)
        for labels, inner in _json_blocks(content, n):
            body.blocks.append(Block(btype, labels, _json_body(inner, filename, rng), rng))
    return body, diags


def _json_blocks(content: Any, n: int, labels: tuple = ()) -> list[tuple[list[str], Any]]:
    if n == 0:
        items = content if isinstance(content, list) else [content]
        return [(list(labels), i) for i in items]
    out = []
    for k, v in (content or {}).items():
        out.extend(_json_blocks(v, n - 1, labels + (k,)))
    return out


def _json_body(obj: Any, filename: str, rng: SourceRange) -> Body:
    b = Body(range=rng)
    nested = {"lifecycle", "provisioner", "validation", "precondition", "postcondition", "connection"}
    for k, v in (obj or {}).items():
        if k in nested:
            items = v if isinstance(v, list) else [v]
            for it in items:
                if k == "provisioner":
                    for ptype, pbody in it.items():
                        b.blocks.append(Block(k, [ptype], _json_body(pbody, filename, rng), rng))
                else:
                    b.blocks.append(Block(k, [], _json_body(it, filename, rng), rng))
            continue
        b.attributes[k] = Attribute(k, _json_expr(v, filename, rng, k), rng, rng)
    return b


def _json_expr(v: Any, filename: str, rng: SourceRange, key: str = "") -> A.Expr:
    if isinstance(v, str):
        if key in ("depends_on", "provider") or "${" not in v and "%{" not in v:
            if key in ("provider",):
                return A.parse_expression(v, filename)
            return A.Literal(v, rng) if "${" not in v else A.parse_template(v, filename)
        return A.parse_template(v, filename)
    if isinstance(v, list):
        if key == "depends_on":
            return A.TupleCons([A.parse_expression(x, filename) for x in v], rng)
        return A.TupleCons([_json_expr(x, filename, rng) for x in v], rng)
    if isinstance(v, dict):
        return A.ObjectCons([(A.ObjectKey(k, None, rng), _json_expr(x, filename, rng)) for k, x in v.items()],
                            rng)
    return A.Literal(v, rng)
