"""Expression syntax tree, compiled from python-hcl2's parse tree.

The compiled nodes are small classes with `evaluate(scope)` and `walk()`; references are
found by walking for ScopeTraversal nodes. Compilation keeps a SourceRange on every node so
diagnostics can name file:line. This module does no evaluation itself (see eval.py).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterator

from lark import Token, Tree

from tfconsole.diags import Pos, SourceRange

from . import numbers
from .strings import nfc


class ParseError(Exception):
    def __init__(self, message: str, rng: SourceRange | None):
        super().__init__(message)
        self.message = message
        self.range = rng


# ---------------------------------------------------------------------------
# nodes


class Expr:
    __slots__ = ("range",)
    range: SourceRange | None

    def children(self) -> Iterator["Expr"]:
        return iter(())

    def walk(self) -> Iterator["Expr"]:
        yield self
        for c in self.children():
            yield from c.walk()


class Literal(Expr):
    __slots__ = ("value",)

    def __init__(self, value: Any, rng: SourceRange | None = None):
        # cty normalises every string value to NFC as it is made (the HCL spec requires it)
        self.value = nfc(value) if type(value) is str else value
        self.range = rng


# Traversal steps
@dataclass(frozen=True, slots=True)
class AttrStep:
    name: str


@dataclass(frozen=True, slots=True)
class IndexStep:
    key: Any  # a literal key (int or str) for a static traversal


class ScopeTraversal(Expr):
    """A reference rooted in a scope name: var.x, aws_instance.a[0].id, count.index ..."""

    __slots__ = ("root", "steps")

    def __init__(self, root: str, steps: tuple, rng: SourceRange | None):
        self.root = root
        self.steps = steps  # AttrStep | IndexStep (static keys)
        self.range = rng

    def __repr__(self) -> str:
        return f"ScopeTraversal({self.text()})"

    def text(self) -> str:
        out = self.root
        for s in self.steps:
            if isinstance(s, AttrStep):
                out += "." + s.name
            else:
                out += "[" + (json.dumps(s.key) if isinstance(s.key, str) else str(s.key)) + "]"
        return out


class RelativeTraversal(Expr):
    """expr.attr / expr[key] where the index key is itself an expression."""

    __slots__ = ("source", "step", "key")

    def __init__(self, source: Expr, step: str | None, key: Expr | None, rng: SourceRange | None):
        self.source = source
        self.step = step  # attribute name, or None for an index
        self.key = key
        self.range = rng

    def children(self) -> Iterator[Expr]:
        yield self.source
        if self.key is not None:
            yield self.key


class Splat(Expr):
    """source[*].rest  (full) or source.*.rest (attribute-only). `each` is applied per element
    to an AnonSymbol standing for the element."""

    __slots__ = ("source", "each")

    def __init__(self, source: Expr, each: Expr, rng: SourceRange | None):
        self.source = source
        self.each = each
        self.range = rng

    def children(self) -> Iterator[Expr]:
        yield self.source
        yield self.each


class AnonSymbol(Expr):
    __slots__ = ()

    def __init__(self, rng: SourceRange | None = None):
        self.range = rng


class TupleCons(Expr):
    __slots__ = ("items",)

    def __init__(self, items: list[Expr], rng: SourceRange | None):
        self.items = items
        self.range = rng

    def children(self) -> Iterator[Expr]:
        return iter(self.items)


class ObjectCons(Expr):
    __slots__ = ("items",)

    def __init__(self, items: list[tuple[Expr, Expr]], rng: SourceRange | None):
        self.items = items  # (key expr, value expr); a bare identifier key is a Literal string
        self.range = rng

    def children(self) -> Iterator[Expr]:
        for k, v in self.items:
            yield k
            yield v


class ObjectKey(Expr):
    """An object key written as a bare identifier or traversal-looking word: `a = 1` is the
    string "a" even though it parses like a reference."""

    __slots__ = ("name", "expr")

    def __init__(self, name: str | None, expr: Expr | None, rng: SourceRange | None):
        self.name = name
        self.expr = expr
        self.range = rng

    def children(self) -> Iterator[Expr]:
        if self.expr is not None:
            yield self.expr


class FunctionCall(Expr):
    __slots__ = ("name", "args", "expand_final", "name_range")

    def __init__(self, name: str, args: list[Expr], expand_final: bool, rng: SourceRange | None):
        self.name = name
        self.args = args
        self.expand_final = expand_final
        self.range = rng

    def children(self) -> Iterator[Expr]:
        return iter(self.args)


class Binary(Expr):
    __slots__ = ("op", "lhs", "rhs")

    def __init__(self, op: str, lhs: Expr, rhs: Expr, rng: SourceRange | None):
        self.op = op
        self.lhs = lhs
        self.rhs = rhs
        self.range = rng

    def children(self) -> Iterator[Expr]:
        yield self.lhs
        yield self.rhs


class Unary(Expr):
    __slots__ = ("op", "operand")

    def __init__(self, op: str, operand: Expr, rng: SourceRange | None):
        self.op = op
        self.operand = operand
        self.range = rng

    def children(self) -> Iterator[Expr]:
        yield self.operand


class Conditional(Expr):
    __slots__ = ("cond", "true", "false")

    def __init__(self, cond: Expr, true: Expr, false: Expr, rng: SourceRange | None):
        self.cond = cond
        self.true = true
        self.false = false
        self.range = rng

    def children(self) -> Iterator[Expr]:
        yield self.cond
        yield self.true
        yield self.false


class ForExpr(Expr):
    __slots__ = ("key_var", "val_var", "coll", "key", "value", "cond", "group")

    def __init__(self, key_var: str | None, val_var: str, coll: Expr, key: Expr | None, value: Expr,
                 cond: Expr | None, group: bool, rng: SourceRange | None):
        self.key_var = key_var
        self.val_var = val_var
        self.coll = coll
        self.key = key  # None for a tuple-producing for
        self.value = value
        self.cond = cond
        self.group = group
        self.range = rng

    def children(self) -> Iterator[Expr]:
        yield self.coll
        if self.key is not None:
            yield self.key
        yield self.value
        if self.cond is not None:
            yield self.cond


class Parens(Expr):
    __slots__ = ("inner",)

    def __init__(self, inner: Expr, rng: SourceRange | None):
        self.inner = inner
        self.range = rng

    def children(self) -> Iterator[Expr]:
        yield self.inner


# Templates
class Template(Expr):
    """Concatenation of literal strings and interpolations/directives."""

    __slots__ = ("parts",)

    def __init__(self, parts: list[Expr], rng: SourceRange | None):
        self.parts = parts
        self.range = rng

    def children(self) -> Iterator[Expr]:
        return iter(self.parts)


class TemplateWrap(Expr):
    """A template that is exactly one interpolation: yields the value unconverted."""

    __slots__ = ("inner",)

    def __init__(self, inner: Expr, rng: SourceRange | None):
        self.inner = inner
        self.range = rng

    def children(self) -> Iterator[Expr]:
        yield self.inner


class TemplateIf(Expr):
    __slots__ = ("cond", "then", "else_")

    def __init__(self, cond: Expr, then: Template, else_: Template | None, rng: SourceRange | None):
        self.cond = cond
        self.then = then
        self.else_ = else_
        self.range = rng

    def children(self) -> Iterator[Expr]:
        yield self.cond
        yield self.then
        if self.else_ is not None:
            yield self.else_


class TemplateFor(Expr):
    __slots__ = ("key_var", "val_var", "coll", "body")

    def __init__(self, key_var: str | None, val_var: str, coll: Expr, body: Template, rng: SourceRange | None):
        self.key_var = key_var
        self.val_var = val_var
        self.coll = coll
        self.body = body
        self.range = rng

    def children(self) -> Iterator[Expr]:
        yield self.coll
        yield self.body


# ---------------------------------------------------------------------------
# compiling python-hcl2's parse tree


class Compiler:
    def __init__(self, filename: str, line_offset: int = 0, col_offset: int = 0):
        self.filename = filename
        self.line_offset = line_offset
        self.col_offset = col_offset

    def rng(self, node: Any) -> SourceRange | None:
        try:
            if isinstance(node, Token):
                return SourceRange(self.filename,
                                   Pos(node.line + self.line_offset, node.column, node.start_pos or 0),
                                   Pos(node.end_line + self.line_offset, node.end_column, node.end_pos or 0))
            m = node.meta
            if getattr(m, "empty", True):
                return None
            return SourceRange(self.filename, Pos(m.line + self.line_offset, m.column, m.start_pos),
                               Pos(m.end_line + self.line_offset, m.end_column, m.end_pos))
        except AttributeError:
            return None

    def expr(self, t: Any) -> Expr:
        if isinstance(t, Token):
            raise ParseError(f"unexpected token {t!r}", self.rng(t))
        kind = t.data
        meth = getattr(self, "c_" + kind, None)
        if meth is None:
            raise ParseError(f"unsupported expression syntax: {kind}", self.rng(t))
        return meth(t)

    @staticmethod
    def trees(t: Tree) -> list[Tree]:
        return [c for c in t.children if isinstance(c, Tree) and c.data != "new_line_or_comment"]

    # --- terms
    def c_expr_term(self, t: Tree) -> Expr:
        kids = self.trees(t)
        toks = [c for c in t.children if isinstance(c, Token)]
        if toks and toks[0].type == "LPAR":
            return Parens(self.expr(kids[0]), self.rng(t))
        if len(kids) != 1:
            raise ParseError("malformed expression", self.rng(t))
        return self.expr(kids[0])

    def c_int_lit(self, t: Tree) -> Expr:
        return self.number_literal(t)

    def c_float_lit(self, t: Tree) -> Expr:
        return self.number_literal(t)

    def number_literal(self, t: Tree) -> Expr:
        try:
            return Literal(numbers.parse_literal(str(t.children[0])), self.rng(t))
        except numbers.NumberRangeError as exc:
            raise ParseError(f"Invalid number literal: {exc}.", self.rng(t)) from None
        except numbers.NumberError:
            raise ParseError("Invalid number literal: Failed to recognize the value of this number literal.",
                             self.rng(t)) from None

    def c_literal_value(self, t: Tree) -> Expr:
        text = str(t.children[0])
        return Literal({"true": True, "false": False, "null": None}[text], self.rng(t))

    def c_identifier(self, t: Tree) -> Expr:
        return ScopeTraversal(str(t.children[0]), (), self.rng(t))

    def c_keyword(self, t: Tree) -> Expr:
        return ScopeTraversal(str(t.children[0]), (), self.rng(t))

    def c_tuple(self, t: Tree) -> Expr:
        return TupleCons([self.expr(k) for k in self.trees(t)], self.rng(t))

    def c_object(self, t: Tree) -> Expr:
        items = []
        for elem in self.trees(t):
            kids = self.trees(elem)
            key_tree, val_tree = kids[0], kids[1]
            items.append((self.object_key(key_tree), self.expr(val_tree)))
        return ObjectCons(items, self.rng(t))

    def object_key(self, t: Tree) -> Expr:
        kids = self.trees(t)
        if not kids:
            tok = t.children[0]
            return ObjectKey(str(tok), None, self.rng(t))
        inner = kids[0]
        expr = self.expr(inner)
        # A bare word is a literal key; parentheses force evaluation.
        if isinstance(expr, ScopeTraversal) and not expr.steps:
            return ObjectKey(expr.root, None, self.rng(t))
        if isinstance(expr, Literal) and isinstance(expr.value, (bool, type(None))):
            return ObjectKey({True: "true", False: "false", None: "null"}[expr.value], None, self.rng(t))
        return ObjectKey(None, expr, self.rng(t))

    def c_function_call(self, t: Tree) -> Expr:
        idents = [c for c in t.children if isinstance(c, Tree) and c.data == "identifier"]
        name = "::".join(str(i.children[0]) for i in idents)
        args: list[Expr] = []
        expand = False
        for c in t.children:
            if isinstance(c, Tree) and c.data == "arguments":
                for a in c.children:
                    if isinstance(a, Token):
                        if a.type == "ELLIPSIS":
                            expand = True
                        continue
                    if a.data == "new_line_or_comment":
                        continue
                    args.append(self.expr(a))
        return FunctionCall(name, args, expand, self.rng(t))

    def c_string(self, t: Tree) -> Expr:
        parts = []
        for c in t.children:
            if isinstance(c, Tree) and c.data == "string_part":
                parts.append(self.string_part(c))
        return build_template(parts, self.rng(t))

    def c_template_string(self, t: Tree) -> Expr:
        text = str(t.children[0])
        return Literal(_unescape(text[2:-2]), self.rng(t))

    def string_part(self, c: Tree) -> tuple:
        inner = c.children[0]
        if isinstance(inner, Token):
            text = str(inner)
            if inner.type == "ESCAPED_INTERPOLATION" or inner.type == "ESCAPED_DIRECTIVE":
                return ("lit", text[1:])
            return ("lit", _unescape(text))
        kind = inner.data
        toks = [x for x in inner.children if isinstance(x, Token)]
        strip_l = len(toks) > 1 and toks[1].type == "STRIP_MARKER"
        strip_r = len(toks) > 1 and toks[-2].type == "STRIP_MARKER"
        exprs = self.trees(inner)
        if kind == "interpolation":
            return ("interp", self.expr(exprs[0]), False, False, self.rng(inner))
        if kind == "template_if_start":
            return ("if", self.expr(exprs[0]), strip_l, strip_r, self.rng(inner))
        if kind == "template_else":
            return ("else", None, strip_l, strip_r, self.rng(inner))
        if kind == "template_endif":
            return ("endif", None, strip_l, strip_r, self.rng(inner))
        if kind == "template_for_start":
            names = [str(x.children[0]) for x in exprs if x.data == "identifier"]
            coll = self.expr([x for x in exprs if x.data != "identifier"][0])
            kv = (names[0], names[1]) if len(names) == 2 else (None, names[0])
            return ("for", (kv, coll), strip_l, strip_r, self.rng(inner))
        if kind == "template_endfor":
            return ("endfor", None, strip_l, strip_r, self.rng(inner))
        raise ParseError(f"unsupported template syntax {kind}", self.rng(inner))

    def c_heredoc_template(self, t: Tree) -> Expr:
        return self.heredoc(t, trim=False)

    def c_heredoc_template_trim(self, t: Tree) -> Expr:
        return self.heredoc(t, trim=True)

    def heredoc(self, t: Tree, trim: bool) -> Expr:
        tok = t.children[0]
        text = str(tok)
        first_nl = text.index("\n")
        body = text[first_nl + 1:]
        # drop the closing marker line
        body = body.rstrip("\n")
        last_nl = body.rfind("\n")
        body = body[: last_nl + 1] if last_nl >= 0 else ""
        start_line = (tok.line or 1) + self.line_offset + 1
        return parse_template(body, self.filename, start_line, heredoc=True, flush=trim)

    # --- traversals
    def c_get_attr_expr_term(self, t: Tree) -> Expr:
        kids = self.trees(t)
        src = self.expr(kids[0])
        name = self._attr_name(kids[1])
        if isinstance(src, ScopeTraversal):
            return ScopeTraversal(src.root, src.steps + (AttrStep(name),), self.rng(t))
        return RelativeTraversal(src, name, None, self.rng(t))

    @staticmethod
    def _attr_name(get_attr: Tree) -> str:
        for c in get_attr.children:
            if isinstance(c, Tree):
                return str(c.children[0])
        raise ParseError("malformed attribute access", None)

    def c_index_expr_term(self, t: Tree) -> Expr:
        kids = self.trees(t)
        src = self.expr(kids[0])
        key = self.index_key(kids[1])
        if isinstance(src, ScopeTraversal) and isinstance(key, Literal) and isinstance(key.value, (int, str)) \
                and not isinstance(key.value, bool):
            return ScopeTraversal(src.root, src.steps + (IndexStep(key.value),), self.rng(t))
        return RelativeTraversal(src, None, key, self.rng(t))

    def index_key(self, idx: Tree) -> Expr:
        if idx.data == "short_index":
            tok = [c for c in idx.children if isinstance(c, Token) and c.type == "INT_LITERAL"][0]
            return Literal(numbers.parse_literal(str(tok)), self.rng(idx))
        return self.expr(self.trees(idx)[0])

    def _apply_steps(self, base: Expr, steps: list[Tree], attr_only: bool) -> Expr:
        cur = base
        for s in steps:
            if s.data == "get_attr":
                name = self._attr_name(s)
                if isinstance(cur, ScopeTraversal):
                    cur = ScopeTraversal(cur.root, cur.steps + (AttrStep(name),), cur.range)
                else:
                    cur = RelativeTraversal(cur, name, None, cur.range)
            else:
                cur = RelativeTraversal(cur, None, self.index_key(s), cur.range)
        return cur

    def c_full_splat_expr_term(self, t: Tree) -> Expr:
        kids = self.trees(t)
        src = self.expr(kids[0])
        steps = self.trees(kids[1])
        anon = AnonSymbol(self.rng(t))
        return Splat(src, self._apply_steps_rel(anon, steps), self.rng(t))

    def c_attr_splat_expr_term(self, t: Tree) -> Expr:
        return self.c_full_splat_expr_term(t)

    def _apply_steps_rel(self, base: Expr, steps: list[Tree]) -> Expr:
        cur = base
        for s in steps:
            if s.data == "get_attr":
                cur = RelativeTraversal(cur, self._attr_name(s), None, cur.range)
            else:
                cur = RelativeTraversal(cur, None, self.index_key(s), cur.range)
        return cur

    # --- operators
    def c_binary_op(self, t: Tree) -> Expr:
        kids = self.trees(t)
        lhs = self.expr(kids[0])
        term = kids[1]
        tkids = self.trees(term)
        op = str(tkids[0].children[0])
        rhs = self.expr(tkids[1])
        return Binary(op, lhs, rhs, self.rng(t))

    def c_unary_op(self, t: Tree) -> Expr:
        op = str(t.children[0])
        operand = self.expr(self.trees(t)[0])
        if op == "-" and isinstance(operand, Literal) and numbers.is_number(operand.value):
            return Literal(numbers.neg(operand.value), self.rng(t))
        return Unary(op, operand, self.rng(t))

    def c_conditional(self, t: Tree) -> Expr:
        kids = self.trees(t)
        return Conditional(self.expr(kids[0]), self.expr(kids[1]), self.expr(kids[2]), self.rng(t))

    # --- for expressions
    def _for_intro(self, intro: Tree) -> tuple[str | None, str, Expr]:
        kids = self.trees(intro)
        names = [str(k.children[0]) for k in kids if k.data == "identifier"]
        rest = [k for k in kids if k.data != "identifier"]
        if len(kids) >= 3 and kids[1].data == "identifier":
            key_var, val_var = str(kids[0].children[0]), str(kids[1].children[0])
            coll = self.expr(kids[2])
        else:
            key_var, val_var = None, names[0]
            coll = self.expr(kids[1]) if len(kids) > 1 else self.expr(rest[0])
        return key_var, val_var, coll

    def c_for_tuple_expr(self, t: Tree) -> Expr:
        kids = self.trees(t)
        key_var, val_var, coll = self._for_intro(kids[0])
        value = self.expr(kids[1])
        cond = self.expr(self.trees(kids[2])[0]) if len(kids) > 2 else None
        return ForExpr(key_var, val_var, coll, None, value, cond, False, self.rng(t))

    def c_for_object_expr(self, t: Tree) -> Expr:
        kids = self.trees(t)
        key_var, val_var, coll = self._for_intro(kids[0])
        key = self.expr(kids[1])
        value = self.expr(kids[2])
        group = any(isinstance(c, Token) and c.type == "ELLIPSIS" for c in t.children)
        cond = self.expr(self.trees(kids[3])[0]) if len(kids) > 3 else None
        return ForExpr(key_var, val_var, coll, key, value, cond, group, self.rng(t))


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}
_ESC_RE = re.compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.S)


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text

    def sub(m: re.Match) -> str:
        e = m.group(1)
        if e[0] in "uU" and len(e) > 1:
            return chr(int(e[1:], 16))
        if e in _ESCAPES:
            return _ESCAPES[e]
        raise ParseError(f"Invalid escape sequence: the symbol \"{e}\" is not a valid escape sequence "
                         "selector.", None)

    return _ESC_RE.sub(sub, text)


# ---------------------------------------------------------------------------
# templates: flat parts -> structured template


def build_template(parts: list[tuple], rng: SourceRange | None, stripped: bool = False) -> Expr:
    """parts: ("lit", text) | (kind, payload, strip_left, strip_right, range)."""
    if not stripped:
        parts = _apply_strip(parts)
    pos = 0

    def parse_seq(stop: set[str]) -> tuple[list[Expr], tuple | None]:
        nonlocal pos
        out: list[Expr] = []
        while pos < len(parts):
            p = parts[pos]
            kind = p[0]
            if kind in stop:
                return out, p
            pos += 1
            if kind == "lit":
                if p[1]:
                    out.append(Literal(p[1], rng))
            elif kind == "interp":
                out.append(p[1])
            elif kind == "if":
                then, end = parse_seq({"else", "endif"})
                if end is None:
                    raise ParseError("Unterminated template if directive: missing %{ endif }", p[4])
                pos += 1
                else_body = None
                if end[0] == "else":
                    else_body, end2 = parse_seq({"endif"})
                    if end2 is None:
                        raise ParseError("Unterminated template if directive: missing %{ endif }", p[4])
                    pos += 1
                out.append(TemplateIf(p[1], Template(then, p[4]),
                                      Template(else_body, p[4]) if else_body is not None else None, p[4]))
            elif kind == "for":
                (kv, coll) = p[1]
                body, end = parse_seq({"endfor"})
                if end is None:
                    raise ParseError("Unterminated template for directive: missing %{ endfor }", p[4])
                pos += 1
                out.append(TemplateFor(kv[0], kv[1], coll, Template(body, p[4]), p[4]))
            else:
                raise ParseError(f"Unexpected %{{ {kind} }} directive", p[4])
        return out, None

    items, end = parse_seq(set())
    if len(parts) == 1 and parts[0][0] == "interp":
        return TemplateWrap(parts[0][1], rng)
    if all(isinstance(i, Literal) and isinstance(i.value, str) for i in items):
        return Literal("".join(i.value for i in items), rng)  # type: ignore[attr-defined]
    return Template(items, rng)


def _apply_strip(parts: list[tuple]) -> list[tuple]:
    out = [list(p) for p in parts]
    for i, p in enumerate(out):
        if p[0] == "lit":
            continue
        if p[2] and i > 0 and out[i - 1][0] == "lit":
            out[i - 1][1] = out[i - 1][1].rstrip(" \t\r\n")
        if p[3] and i + 1 < len(out) and out[i + 1][0] == "lit":
            out[i + 1][1] = out[i + 1][1].lstrip(" \t\r\n")
    return [tuple(p) for p in out]


def parse_template(text: str, filename: str, start_line: int = 1, heredoc: bool = True,
                   flush: bool = False) -> Expr:
    """Parse template text (heredoc body or template file): literal text with ${...}, %{...}.

    As HCL's scanner does, literal text is split into one token per line; strip markers (~)
    trim only the adjacent token, and then a flush heredoc (<<-) removes the smallest
    indentation from the literal tokens that start a line."""
    parts: list[tuple] = []
    i = 0
    buf: list[str] = []
    n = len(text)
    line = start_line

    def rng_at(ln: int) -> SourceRange:
        return SourceRange(filename, Pos(ln, 1), Pos(ln, 1))

    while i < n:
        c = text[i]
        if c in "$%" and text.startswith(c + c + "{", i):
            buf.append(c + "{")
            i += 3
            continue
        if c in "$%" and text.startswith(c + "{", i):
            if buf:
                parts.append(("lit", "".join(buf)))
                buf = []
            j = i + 2
            strip_l = j < n and text[j] == "~"
            if strip_l:
                j += 1
            end = _find_close(text, j)
            if end < 0:
                raise ParseError("Unterminated template string", rng_at(line))
            inner = text[j:end]
            strip_r = inner.endswith("~")
            if strip_r:
                inner = inner[:-1]
            here = line
            line += text.count("\n", i, end + 1)
            r = rng_at(here)
            if c == "$":
                parts.append(("interp", parse_expression(inner, filename, here), strip_l, strip_r, r))
            else:
                parts.append(_directive(inner.strip(), filename, here, strip_l, strip_r, r))
            i = end + 1
            continue
        buf.append(c)
        if c == "\n":
            line += 1
            parts.append(("lit", "".join(buf)))
            buf = []
        i += 1
    if buf:
        parts.append(("lit", "".join(buf)))
    parts = _apply_strip(parts)
    if flush:
        parts = _flush_heredoc(parts)
    return build_template(parts, rng_at(start_line), stripped=True)


def _flush_heredoc(parts: list[tuple]) -> list[tuple]:
    big = 1 << 60
    min_spaces = big
    newline = True
    adjust: list[int] = []
    for i, p in enumerate(parts):
        if newline:
            newline = False
            if p[0] == "lit":
                val = p[1]
                trimmed = val.lstrip()
                if not trimmed and val.endswith("\n"):
                    spaces = big
                else:
                    spaces = len(val) - len(trimmed)
                    adjust.append(i)
            else:
                spaces = 0
            min_spaces = min(min_spaces, spaces)
        if p[0] == "lit" and p[1].endswith("\n"):
            newline = True
    if min_spaces == big:
        return parts
    out = list(parts)
    for i in adjust:
        out[i] = ("lit", out[i][1][min_spaces:])
    return out


def _find_close(text: str, j: int) -> int:
    depth = 0
    in_str = False
    while j < len(text):
        c = text[j]
        if in_str:
            if c == "\\":
                j += 2
                continue
            if c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                return j
            depth -= 1
        j += 1
    return -1


_FOR_DIRECTIVE = re.compile(r"^for\s+([A-Za-z_][\w-]*)\s*(?:,\s*([A-Za-z_][\w-]*)\s*)?in\s+(.*)$", re.S)


def _directive(inner: str, filename: str, line: int, sl: bool, sr: bool, r: SourceRange) -> tuple:
    if inner.startswith("if ") or inner.startswith("if("):
        return ("if", parse_expression(inner[2:], filename, line), sl, sr, r)
    if inner == "else":
        return ("else", None, sl, sr, r)
    if inner == "endif":
        return ("endif", None, sl, sr, r)
    if inner == "endfor":
        return ("endfor", None, sl, sr, r)
    m = _FOR_DIRECTIVE.match(inner)
    if m:
        a, b, coll = m.groups()
        kv = (a, b) if b else (None, a)
        return ("for", (kv, parse_expression(coll, filename, line)), sl, sr, r)
    raise ParseError(f"Invalid template directive: %{{{inner}}}", r)


# ---------------------------------------------------------------------------
# entry points


def parse_expression(text: str, filename: str = "<expr>", line: int = 1) -> Expr:
    """Parse a standalone expression (used for templates, -var values and the console)."""
    import hcl2
    from lark.exceptions import LarkError

    from tfconsole.config.body import hcl_parser

    hcl_parser()  # our (patched, cached) grammar, shared with python-hcl2
    src = "__x = " + text.strip() + "\n"
    try:
        tree = hcl2.parses_to_tree(src)
    except LarkError as exc:
        raise ParseError(f"Invalid expression: {_lark_message(exc)}",
                         SourceRange(filename, Pos(line, 1), Pos(line, 1))) from None
    body = tree.children[0]
    attrs = [c for c in body.children if isinstance(c, Tree) and c.data == "attribute"]
    if len(attrs) != 1:
        raise ParseError("Invalid expression", SourceRange(filename, Pos(line, 1), Pos(line, 1)))
    expr_tree = [c for c in attrs[0].children if isinstance(c, Tree) and c.data not in
                 ("identifier", "new_line_or_comment")][0]
    return Compiler(filename, line - 1).expr(expr_tree)


def _lark_message(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else "syntax error"


def references(expr: Expr) -> list[ScopeTraversal]:
    """Every scope traversal in the expression, excluding for-expression/template-for locals."""
    out: list[ScopeTraversal] = []
    _refs(expr, frozenset(), out)
    return out


def _refs(e: Expr, bound: frozenset, out: list) -> None:
    if isinstance(e, ScopeTraversal):
        if e.root not in bound:
            out.append(e)
        return
    if isinstance(e, ForExpr):
        _refs(e.coll, bound, out)
        inner = bound | {e.val_var} | ({e.key_var} if e.key_var else set())
        for c in (e.key, e.value, e.cond):
            if c is not None:
                _refs(c, inner, out)
        return
    if isinstance(e, TemplateFor):
        _refs(e.coll, bound, out)
        inner = bound | {e.val_var} | ({e.key_var} if e.key_var else set())
        _refs(e.body, inner, out)
        return
    for c in e.children():
        _refs(c, bound, out)
