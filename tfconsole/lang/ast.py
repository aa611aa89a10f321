"""Expression syntax tree, compiled from python-hcl2's parse tree.

The compiled nodes are small classes with `evaluate(scope)` and `walk()`; references are
found by walking for ScopeTraversal nodes. Compilation keeps a SourceRange on every node so
diagnostics can name file:line. This module does no evaluation itself (see eval.py).
"""
from __future__ import annotations

import json
import re
import threading
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any, Iterator

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


NOT_CONSTANT = object()  # see TupleCons.const

# Guards the first use of a constructor's items decoded late (see _Lazy): every caller must see
# the same item nodes.
_ITEMS_LOCK = threading.RLock()  # reentrant: making one node's items may make another's (a reparse)


class _LazyItems:
    """A constructor whose value is known without its item nodes: the parse cache stores a
    constructor made only of literals so that its value is read straight from the entry, and its
    items are decoded only if something asks for them (a deep-merge module's 15 layers of nested
    literals are evaluated, never inspected item by item)."""

    __slots__ = ()

    @property
    def items(self) -> Any:
        items = self._items  # type: ignore[attr-defined]
        if items is None:
            with _ITEMS_LOCK:
                items = self._items  # type: ignore[attr-defined]
                if items is None:
                    items = self._items = self._pending()  # type: ignore[attr-defined]
                    self._pending = None
        return items

    @items.setter
    def items(self, value: Any) -> None:
        self._items = value

    @classmethod
    def constant(cls, value: Any, pending: Any, rng: SourceRange | None) -> Any:
        """The constructor whose evaluation gives `value` (made only of literals); `pending()`
        makes its item nodes when first needed."""
        node = cls.__new__(cls)
        node._items, node._pending, node.const, node.range = None, pending, value, rng
        return node


class TupleCons(_LazyItems, Expr):
    # `const`: the value, once evaluated, when every item is a literal or such a constructor
    # (None: not evaluated yet, NOT_CONSTANT: it is not one); see eval._tuple
    __slots__ = ("_items", "_pending", "const")

    def __init__(self, items: list[Expr], rng: SourceRange | None):
        self._items = items
        self._pending = None
        self.range = rng
        self.const: Any = None

    def children(self) -> Iterator[Expr]:
        return iter(self.items)


class ObjectCons(_LazyItems, Expr):
    __slots__ = ("_items", "_pending", "const")  # `const` as in TupleCons

    def __init__(self, items: list[tuple[Expr, Expr]], rng: SourceRange | None):
        self._items = items  # (key expr, value expr); a bare identifier key is a Literal string
        self._pending = None
        self.range = rng
        self.const: Any = None

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
# building the tree while parsing
#
# The parser (config/hcl_parser.py) runs python-hcl2's grammar and calls one handler per
# reduction with the rule's children: tokens (Tok), values the handlers below returned, and
# PNodes for the grammar's intermediate rules. Each handler gets the span of its children
# (Lark's position rule), from which every node's SourceRange is made.


class PNode:
    """A reduction that is not (yet) an expression: an identifier, a string before it is known
    to be a template or a block label, an index, a for clause..."""

    __slots__ = ("data", "kids", "span")

    def __init__(self, data: str, kids: list, span: tuple | None):
        self.data = data
        self.kids = kids
        self.span = span

    def word(self) -> str:
        """The text of an identifier, keyword or literal_value."""
        return self.kids[0].value


def number_literal(text: str) -> Any:
    """The value of a number literal's source text (digits, fraction, exponent; no sign)."""
    return numbers.parse_literal(text)


_WORDS = {"true": True, "false": False, "null": None}


def _make_range(filename: str, span: tuple) -> SourceRange:
    global _range_maker
    if _range_maker is None:
        from tfconsole.config.hcl_parser import make_range as _range_maker
    return _range_maker(filename, span)


_range_maker: Any = None


def _is_tok(k: Any) -> bool:
    return type(k).__name__ == "Tok"


class Compiler:
    """The expression handlers for one file (or one standalone expression)."""

    def __init__(self, filename: str, numbers: dict | None = None):
        self.filename = filename
        # id(Literal) -> (the Literal, source text, negated) for every number literal: lets the
        # parse cache store a number as its text, whatever type the number values have (the
        # Literal is held so that its id cannot be reused by another object)
        self.numbers: dict[int, tuple[Any, str, bool]] = numbers if numbers is not None else {}

    def rng(self, span: tuple | None) -> SourceRange | None:
        return _make_range(self.filename, span) if span is not None else None

    @classmethod
    def handlers(cls) -> dict[str, Any]:
        """Rule name -> handler function (called with the Compiler first), for hcl_parser.parse;
        one dict per class, so the parser can remember what it derives from it."""
        table = cls.__dict__.get("_handler_table")
        if table is None:
            table = {n[2:]: getattr(cls, n) for n in dir(cls) if n.startswith("h_")}
            cls._handler_table = table
        return table

    # --- words and literals
    def h_identifier(self, kids: list, span: tuple) -> PNode:
        return PNode("identifier", kids, span)

    def h_keyword(self, kids: list, span: tuple) -> PNode:
        return PNode("keyword", kids, span)

    def h_literal_value(self, kids: list, span: tuple) -> PNode:
        return PNode("literal_value", kids, span)

    def h_new_line_or_comment(self, kids: list, span: tuple) -> None:
        return None

    def number(self, text: str, span: tuple) -> Literal:
        try:
            value = number_literal(text)
        except numbers.NumberRangeError as exc:
            raise ParseError(f"Invalid number literal: {exc}.", self.rng(span)) from None
        except (numbers.NumberError, ValueError, OverflowError):
            raise ParseError("Invalid number literal: Failed to recognize the value of this number literal.",
                             self.rng(span)) from None
        lit = Literal(value, self.rng(span))
        self.numbers[id(lit)] = (lit, text, False)
        return lit

    def h_int_lit(self, kids: list, span: tuple) -> Expr:
        return self.number(kids[0].value, span)

    def h_float_lit(self, kids: list, span: tuple) -> Expr:
        return self.number(kids[0].value, span)

    def h_template_string(self, kids: list, span: tuple) -> Expr:
        return Literal(_unescape(kids[0].value[2:-2]), self.rng(span))

    def h_string(self, kids: list, span: tuple) -> PNode:
        return PNode("string", [k for k in kids if type(k) is tuple], span)

    def h_string_part(self, kids: list, span: tuple) -> tuple:
        inner = kids[0]
        if _is_tok(inner):
            text = inner.value
            if inner.type in ("ESCAPED_INTERPOLATION", "ESCAPED_DIRECTIVE"):
                return ("lit", text[1:], inner)
            return ("lit", _unescape(text), inner)
        kind = inner.data
        toks = [x for x in inner.kids if _is_tok(x)]
        strip_l = len(toks) > 1 and toks[1].type == "STRIP_MARKER"
        strip_r = len(toks) > 1 and toks[-2].type == "STRIP_MARKER"
        r = self.rng(inner.span)
        if kind == "interpolation":
            return ("interp", _exprs(inner.kids)[0], False, False, r)
        if kind == "template_if_start":
            return ("if", _exprs(inner.kids)[0], strip_l, strip_r, r)
        if kind in ("template_else", "template_endif", "template_endfor"):
            return (kind[len("template_"):], None, strip_l, strip_r, r)
        if kind == "template_for_start":
            names = [x.word() for x in inner.kids if type(x) is PNode]
            kv = (names[0], names[1]) if len(names) == 2 else (None, names[0])
            return ("for", (kv, _exprs(inner.kids)[0]), strip_l, strip_r, r)
        raise ParseError(f"unsupported template syntax {kind}", r)

    def h_heredoc_template(self, kids: list, span: tuple) -> Expr:
        return self.heredoc(kids[0], trim=False)

    def h_heredoc_template_trim(self, kids: list, span: tuple) -> Expr:
        return self.heredoc(kids[0], trim=True)

    def heredoc(self, tok: Any, trim: bool) -> Expr:
        text = tok.value
        body = text[text.index("\n") + 1:]
        # drop the closing marker line
        body = body.rstrip("\n")
        last_nl = body.rfind("\n")
        body = body[: last_nl + 1] if last_nl >= 0 else ""
        return parse_template(body, self.filename, tok.span[0] + 1, heredoc=True, flush=trim,
                              numbers=self.numbers, start_byte=tok.span[2] + text.index("\n") + 1)

    # --- terms
    def h_expr_term(self, kids: list, span: tuple) -> Expr:
        first = kids[0]
        if _is_tok(first):  # ( expression )
            return Parens(_exprs(kids)[0], self.rng(span))
        if type(first) is PNode:
            return self.term(first, span)
        return first

    def term(self, node: PNode, span: tuple) -> Expr:
        """An identifier, keyword, literal word or quoted string in expression position."""
        if node.data == "string":
            return build_template(list(node.kids), self.rng(span))
        if node.data == "literal_value":
            return Literal(_WORDS[node.word()], self.rng(span))
        return ScopeTraversal(node.word(), (), self.rng(span))

    def h_tuple(self, kids: list, span: tuple) -> Expr:
        return TupleCons(_exprs(kids), self.rng(span))

    def h_object(self, kids: list, span: tuple) -> Expr:
        return ObjectCons([k for k in kids if type(k) is tuple], self.rng(span))

    def h_object_elem(self, kids: list, span: tuple) -> tuple:
        return (kids[0], kids[2])

    def h_object_elem_key(self, kids: list, span: tuple) -> Expr:
        inner = kids[0]
        rng = self.rng(span)
        if type(inner) is PNode:  # a keyword
            return ObjectKey(inner.word(), None, rng)
        # A bare word is a literal key; parentheses force evaluation.
        if type(inner) is ScopeTraversal and not inner.steps:
            return ObjectKey(inner.root, None, rng)
        if type(inner) is Literal and isinstance(inner.value, (bool, type(None))):
            return ObjectKey({True: "true", False: "false", None: "null"}[inner.value], None, rng)
        return ObjectKey(None, inner, rng)

    def h_function_call(self, kids: list, span: tuple) -> Expr:
        name = "::".join(k.word() for k in kids if type(k) is PNode and k.data == "identifier")
        args: list[Expr] = []
        expand = False
        for k in kids:
            if type(k) is PNode and k.data == "arguments":
                args = _exprs(k.kids)
                expand = any(_is_tok(a) and a.type == "ELLIPSIS" for a in k.kids)
        return FunctionCall(name, args, expand, self.rng(span))

    # --- traversals
    def h_get_attr_expr_term(self, kids: list, span: tuple) -> Expr:
        src = kids[0]
        name = _attr_name(kids[1])
        if type(src) is ScopeTraversal:
            return ScopeTraversal(src.root, src.steps + (AttrStep(name),), self.rng(span))
        return RelativeTraversal(src, name, None, self.rng(span))

    def h_index_expr_term(self, kids: list, span: tuple) -> Expr:
        src = kids[0]
        key = self.index_key(kids[1])
        if type(src) is ScopeTraversal and type(key) is Literal and isinstance(key.value, (int, str)) \
                and not isinstance(key.value, bool):
            return ScopeTraversal(src.root, src.steps + (IndexStep(key.value),), self.rng(span))
        return RelativeTraversal(src, None, key, self.rng(span))

    def index_key(self, idx: PNode) -> Expr:
        if idx.data == "short_index":
            tok = [k for k in idx.kids if _is_tok(k) and k.type == "INT_LITERAL"][0]
            try:
                return Literal(int(tok.value), self.rng(idx.span))
            except ValueError:
                raise ParseError("Invalid index: the number is too long", self.rng(idx.span)) from None
        return _exprs(idx.kids)[0]

    def h_full_splat_expr_term(self, kids: list, span: tuple) -> Expr:
        cur: Expr = AnonSymbol(self.rng(span))
        for step in kids[1].kids:
            if type(step) is not PNode:
                continue
            if step.data == "get_attr":
                cur = RelativeTraversal(cur, _attr_name(step), None, cur.range)
            else:
                cur = RelativeTraversal(cur, None, self.index_key(step), cur.range)
        return Splat(kids[0], cur, self.rng(span))

    h_attr_splat_expr_term = h_full_splat_expr_term

    # --- operators
    def h_binary_op(self, kids: list, span: tuple) -> Expr:
        term = kids[1]  # binary_term: operator, [newline], right operand
        op = term.kids[0].kids[0].value
        right = _exprs(term.kids)[0]
        end = right.range
        if end is not None and span is not None:  # the term's span can run on over a line break
            e = end.end
            span = (*span[:3], e.line, e.column, e.byte)
        return Binary(op, kids[0], right, self.rng(span))

    def h_unary_op(self, kids: list, span: tuple) -> Expr:
        op = kids[0].value
        operand = kids[1]
        if op == "-" and type(operand) is Literal and numbers.is_number(operand.value):
            lit = Literal(numbers.neg(operand.value), self.rng(span))
            entry = self.numbers.pop(id(operand), None)
            if entry is not None:
                self.numbers[id(lit)] = (lit, entry[1], not entry[2])
            return lit
        return Unary(op, operand, self.rng(span))

    def h_conditional(self, kids: list, span: tuple) -> Expr:
        cond, true, false = _exprs(kids)
        return Conditional(cond, true, false, self.rng(span))

    # --- for expressions
    def h_for_intro(self, kids: list, span: tuple) -> tuple:
        names = [k.word() for k in kids if type(k) is PNode]
        coll = _exprs(kids)[0]
        if len(names) == 2:
            return names[0], names[1], coll
        return None, names[0], coll

    def h_for_tuple_expr(self, kids: list, span: tuple) -> Expr:
        key_var, val_var, coll = [k for k in kids if type(k) is tuple][0]
        value = _exprs(kids)[0]
        cond = _for_cond(kids)
        return ForExpr(key_var, val_var, coll, None, value, cond, False, self.rng(span))

    def h_for_object_expr(self, kids: list, span: tuple) -> Expr:
        key_var, val_var, coll = [k for k in kids if type(k) is tuple][0]
        key, value = _exprs(kids)[:2]
        group = any(_is_tok(k) and k.type == "ELLIPSIS" for k in kids)
        return ForExpr(key_var, val_var, coll, key, value, _for_cond(kids), group, self.rng(span))

    def h_expr_only(self, kids: list, span: tuple) -> Expr:
        return _exprs(kids)[0]


def _exprs(kids: list) -> list:
    return [k for k in kids if isinstance(k, Expr)]


def _attr_name(get_attr: PNode) -> str:
    for k in get_attr.kids:
        if type(k) is PNode:
            return k.word()
    raise ParseError("malformed attribute access", None)


def _for_cond(kids: list) -> Expr | None:
    for k in kids:
        if type(k) is PNode and k.data == "for_cond":
            return _exprs(k.kids)[0]
    return None


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
                   flush: bool = False, numbers: dict | None = None, start_byte: int = 0) -> Expr:
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
        # literal text up to the next escape, interpolation, directive or newline, at C speed
        m = _TEMPLATE_SPECIAL.search(text, i)
        if m is None:
            buf.append(text[i:])
            break
        if m.start() > i:
            buf.append(text[i:m.start()])
            i = m.start()
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
                # the expression's own column, for its diagnostics (heredoc bodies and template
                # files start at column 1)
                col = j - (text.rfind("\n", 0, j) + 1) + 1
                parts.append(("interp", parse_expression(inner, filename, here, numbers, col, start_byte + j),
                              strip_l, strip_r, r))
            else:
                parts.append(_directive(inner.strip(), filename, here, strip_l, strip_r, r, numbers))
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


_TEMPLATE_SPECIAL = re.compile(r"\$\$\{|%%\{|\$\{|%\{|\n")


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


def _directive(inner: str, filename: str, line: int, sl: bool, sr: bool, r: SourceRange,
               numbers: dict | None = None) -> tuple:
    if inner.startswith("if ") or inner.startswith("if("):
        return ("if", parse_expression(inner[2:], filename, line, numbers), sl, sr, r)
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
        return ("for", (kv, parse_expression(coll, filename, line, numbers)), sl, sr, r)
    raise ParseError(f"Invalid template directive: %{{{inner}}}", r)


# ---------------------------------------------------------------------------
# entry points


def parse_expression(text: str, filename: str = "<expr>", line: int = 1, numbers: dict | None = None,
                     column: int = 1, byte: int = 0) -> Expr:
    """Parse a standalone expression (used for templates, -var values and the console) that
    starts at `line`, `column` and offset `byte` of `filename`."""
    from tfconsole.config import hcl_parser as H

    comp = Compiler(filename, numbers)
    try:
        value = H.parse(text, "expr_only", comp.handlers(), pnode_handler, comp, first_line=line,
                        first_column=column, first_byte=byte, errors=(ParseError,))
    except H.HclSyntaxError as exc:
        at = exc.start or Pos(line, 1)
        raise ParseError(f"Invalid expression: {exc.describe()}", SourceRange(filename, at, at)) from None
    except H.TooLarge as exc:
        at = exc.start or Pos(line, 1)
        raise ParseError(too_large_message(exc), SourceRange(filename, at, at)) from None
    if type(value) is H.Bad:
        raise value.error
    return value


def too_large_message(exc: Any) -> str:
    """The detail of a parse stopped by one of hcl_parser's limits."""
    if exc.what == "tokens":
        return (f"This has more than {exc.limit:,} tokens (names, numbers, operators, brackets...), "
                "tfconsole's limit for one file or expression.")
    return (f"This nests brackets, operators or templates more than {exc.limit} levels deep, "
            "tfconsole's limit.")


_PNODE_HANDLERS: dict[str, Any] = {}


def pnode_handler(name: str) -> Any:
    """The handler for a rule the Compiler has no method for: keep it as a PNode."""
    h = _PNODE_HANDLERS.get(name)
    if h is None:
        h = _PNODE_HANDLERS[name] = lambda ctx, kids, span: PNode(name, kids, span)
    return h


_REFS: dict[int, tuple[Expr, tuple[ScopeTraversal, ...]]] = {}
_REFS_MAX = 200_000


def references(expr: Expr) -> list[ScopeTraversal]:
    """Every scope traversal in the expression, excluding for-expression/template-for locals.

    Remembered per expression object: a module called several times shares one parsed tree, and
    the graph builders ask for the same expressions' references once per module instance."""
    hit = _REFS.get(id(expr))
    if hit is not None and hit[0] is expr:
        return list(hit[1])
    out: list[ScopeTraversal] = []
    _refs(expr, frozenset(), out)
    if len(_REFS) >= _REFS_MAX:
        _REFS.clear()
    _REFS[id(expr)] = (expr, tuple(out))  # the tree is kept alive, so its id is not reused
    return out


def _refs(e: Expr, bound: frozenset, out: list) -> None:
    t = type(e)
    if (t is ObjectCons or t is TupleCons) and e.const is not None and e.const is not NOT_CONSTANT:  # type: ignore[attr-defined]
        return  # a constructor of literals refers to nothing (and its items may not be decoded)
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
