"""The HCL parser (config/hcl_parser.py) against python-hcl2's own Lark parser.

tfconsole parses with its own LALR driver over tables Lark computes from python-hcl2's grammar.
These tests run the real Lark parser built from the same grammar text, with python-hcl2's
post-lexer, and require the same result on every input: the same parse tree with the same
positions on every node and token, or the same error (kind, position, expected terminals). The
inputs are every .tf file in the repository and seeded mutations of them.
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tfconsole.config import hcl_parser as H
from tfconsole.config import hcl_tables
from tfconsole.config.body import parse_file
from tfconsole.lang import ast as A

ROOT = Path(__file__).resolve().parent.parent
def _utf8(p: Path) -> bool:
    try:
        p.read_text()
    except UnicodeDecodeError:  # fmt's invalid UTF-8 case: refused before parsing
        return False
    return True


CORPUS = sorted(p for d in ("tests", "configs") for p in (ROOT / d).rglob("*.tf") if _utf8(p))


@pytest.fixture(scope="module")
def lark_parser() -> Any:
    from hcl2.postlexer import PostLexer
    from lark import Lark

    return Lark(hcl_tables.grammar_text(), parser="lalr", propagate_positions=True, postlex=PostLexer(),
                start=list(hcl_tables.START_SYMBOLS))


class Node:
    """A generic reduction, to compare with Lark's Tree."""

    __slots__ = ("data", "kids", "span")

    def __init__(self, data: str, kids: list, span: Any):
        self.data, self.kids, self.span = data, list(kids), span


def generic(text: str) -> Any:
    return H.parse(text, "start", {}, lambda name: (lambda ctx, kids, span: Node(name, kids, span)))


def same_tree(a: Any, b: Any, path: str = "") -> None:
    from lark import Tree

    if isinstance(a, Tree):
        assert isinstance(b, Node) and a.data == b.data, (path, a.data, b)
        m = a.meta
        want = None if m.empty else (m.line, m.column, m.start_pos, m.end_line, m.end_column, m.end_pos)
        assert (tuple(b.span) if b.span else None) == want, (path, a.data)
        assert len(a.children) == len(b.kids), (path, a.data)
        for i, (x, y) in enumerate(zip(a.children, b.kids)):
            same_tree(x, y, f"{path}/{a.data}[{i}]")
    else:
        assert isinstance(b, H.Tok), (path, a, b)
        assert (b.type, b.value, *b.span) == (a.type, str(a), a.line, a.column, a.start_pos, a.end_line,
                                              a.end_column, a.end_pos), path


def outcome(lark_parser: Any, text: str) -> tuple[Any, Any]:
    from lark.exceptions import UnexpectedCharacters, UnexpectedInput

    try:
        want: Any = lark_parser.parse(text, start="start")
    except UnexpectedInput as exc:
        kind = "chars" if isinstance(exc, UnexpectedCharacters) else "token"
        tok = getattr(exc, "token", None)
        expected = sorted(getattr(exc, "expected", None) or getattr(exc, "allowed", None) or [])
        want = ("error", kind, exc.line, exc.column, getattr(tok, "type", None) if kind == "token" else None, expected)
    try:
        got: Any = generic(text)
    except H.HclSyntaxError as exc:
        got = ("error", exc.kind, exc.line, exc.column, exc.token_type or None, sorted(exc.expected))
    return want, got


def mutants(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    sources = [p.read_text() for p in CORPUS if p.stat().st_size < 4000]
    pieces = list('{}[]()"$%~=:,.*?!<>-+/#\n \t\\') + [
        "${", "%{", "<<EOF\n", "\nEOF\n", "for ", " in ", "if ", "...", "=>", "1e5", "0.5", "true", "null", "::",
        "//c\n", "/*", "*/", "$${", "\r\n", "%{ if x }", "%{ endif }", "[*]", ".*", "~}"]
    out = []
    for _ in range(count):
        s = rng.choice(sources)
        for _ in range(rng.randint(1, 4)):
            j = rng.randrange(len(s) + 1)
            op = rng.randrange(3)
            if op == 0:
                s = s[:j] + rng.choice(pieces) + s[j:]
            elif op == 1:
                s = s[:j] + s[j + rng.randint(1, 5):]
            else:
                a = rng.randrange(len(s) + 1)
                s = s[:j] + s[a:a + rng.randint(1, 30)] + s[j:]
        out.append(s)
    return out


def check_same(lark_parser: Any, text: str) -> None:
    want, got = outcome(lark_parser, text)
    if isinstance(want, tuple) or isinstance(got, tuple):
        assert want == got, text
    else:
        same_tree(want, got)


def test_corpus_parses_exactly_as_lark_does(lark_parser: Any) -> None:
    assert len(CORPUS) > 100
    for path in CORPUS:
        check_same(lark_parser, path.read_text() + "\n")


@pytest.mark.parametrize("seed", range(4))
def test_mutated_configurations_parse_or_fail_exactly_as_lark_does(lark_parser: Any, seed: int) -> None:
    for text in mutants(seed, 150):
        check_same(lark_parser, text + "\n")


def test_shipped_tables_are_those_of_the_installed_grammar() -> None:
    """A changed correction or a new python-hcl2 grammar needs `python -m tfconsole.config.hcl_tables
    --write`; the shipped file must equal a fresh build."""
    shipped = json.loads(Path(hcl_tables.SHIPPED).read_text())
    assert shipped == hcl_tables.build_tables(hcl_tables.grammar_text())


def test_parsing_never_imports_lark_or_python_hcl2() -> None:
    import subprocess
    import sys

    code = ("import sys; from tfconsole.config.body import parse_file; "
            "b, d = parse_file('a = [1, {b = \"${x}\"}]\\n', 'm.tf'); assert b is not None and not d.has_errors; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('lark', 'hcl2')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# --------------------------------------------------------------------------- the tree it builds


def body_of(text: str) -> Any:
    body, diags = parse_file(text, "main.tf")
    assert body is not None and not diags.has_errors, [d.summary for d in diags]
    return body


def where(rng: Any) -> tuple[int, int, int, int]:
    return rng.start.line, rng.start.column, rng.end.line, rng.end.column


def test_ranges_of_blocks_attributes_and_expressions() -> None:
    body = body_of('resource "a" "b" {\n  count = 2\n  x     = [var.y[0], "s${local.z}"]\n}\n')
    blk = body.blocks[0]
    assert (blk.type, blk.labels) == ("resource", ["a", "b"])
    assert where(blk.range) == (1, 1, 1, 17)  # the header, as Terraform reports it
    x = blk.body.attributes["x"]
    assert where(x.range) == (3, 3, 3, 36) and where(x.name_range) == (3, 3, 3, 4)
    tup = x.expr
    assert isinstance(tup, A.TupleCons) and where(tup.range) == (3, 11, 3, 36)
    ref, tmpl = tup.items
    assert isinstance(ref, A.ScopeTraversal) and ref.text() == "var.y[0]" and where(ref.range) == (3, 12, 3, 20)
    assert isinstance(tmpl, A.Template) and where(tmpl.parts[1].range) == (3, 26, 3, 33)


def test_heredoc_interpolations_keep_their_own_line_and_column() -> None:
    text = 'locals {\n  h = <<-EOT\n    one\n    two ${var.x} three\n  EOT\n}\n'
    h = body_of(text).blocks[0].body.attributes["h"].expr
    ref = [p for p in h.parts if isinstance(p, A.ScopeTraversal)][0]
    assert where(ref.range) == (4, 11, 4, 16)
    assert text[ref.range.start.byte:ref.range.end.byte] == "var.x"


def test_number_literals_minus_and_newline_before_operator() -> None:
    attrs = body_of("a = 3-0.5\nb = -7\nc = (1\n  + 2)\n").attributes
    a, b, c = attrs["a"].expr, attrs["b"].expr, attrs["c"].expr
    assert isinstance(a, A.Binary) and a.op == "-"
    assert isinstance(b, A.Literal) and b.value == -7
    assert isinstance(c, A.Parens) and isinstance(c.inner, A.Binary)


def test_errors_inside_one_attribute_leave_the_others_and_come_in_source_order() -> None:
    body, diags = parse_file('a = "\\q"\nblock {\n  b = "\\z"\n}\nc = 1\nc = 2\n', "main.tf")
    assert body is not None and list(body.attributes) == ["c"]
    assert [(d.summary, d.subject.start.line) for d in diags] == [
        ("Invalid expression", 1), ("Invalid expression", 3), ("Attribute redefined", 6)]


def test_expression_start_parses_standalone_expressions_with_positions() -> None:
    e = A.parse_expression("  foo(1, var.x)", "<value for var.v>", line=3, column=5)
    assert isinstance(e, A.FunctionCall) and e.name == "foo"
    assert where(e.range) == (3, 7, 3, 20)
    with pytest.raises(A.ParseError):
        A.parse_expression("1 +", "x")


# --------------------------------------------------------------------------- the literal fast path


def random_configuration(rng: random.Random) -> str:
    """Configurations of nested objects and tuples, plain and not, with the spacing, comments and
    separators people write (and some they should not)."""
    blanks = ["", " ", "  ", "\t", "\n", "\n  ", " # c\n", "// x\n", "/* y */", "\r\n", ",", " ,", ", "]

    def blank() -> str:
        return rng.choice(blanks) if rng.random() < 0.5 else rng.choice(["", " "])

    def key() -> str:
        return rng.choice(["a", "b_c", "x-1", '"q"', '"sp ace"', "true", "null", "for", "in", '""', "if", '"a$b"'])

    def leaf() -> str:
        return rng.choice(["1", "0", "-1", "- 2", "1.5", "1e3", "2E-2", '"s"', '""', '"a b"', "true", "false", "null",
                           "var.x", "x", '"e\\n"', '"${x}"', "1+2", "--1", "[]", "{}", "01", "1.", ".5", '"%{x}"'])

    def value(d: int) -> str:
        r = rng.random()
        if d > 3 or r < 0.45:
            return leaf()
        if r < 0.75:
            items = [f"{key()}{blank()}{rng.choice(['=', ':', ' = ', '==', '=>'])} {value(d + 1)}"
                     for _ in range(rng.randint(0, 4))]
            return "{" + blank() + "".join(i + rng.choice([",", "\n", ", ", " ", ",\n", " # c\n"]) for i in items) + \
                blank() + "}"
        items = [value(d + 1) for _ in range(rng.randint(0, 4))]
        return "[" + blank() + "".join(i + rng.choice([",", ", ", ",\n", "\n", " "]) for i in items) + blank() + "]"

    out = [f"locals {{\n  v{i} = {value(0)}{rng.choice(['', ' ', ' # t', '.x', '[0]', ' + 1', '...'])}\n}}\n"
           for i in range(rng.randint(1, 3))]
    if rng.random() < 0.3:
        out.append(f'resource "a" "b" {{\n  x = {value(0)}\n  y = [for k in {value(1)} : k]\n}}\n')
    return "".join(out)


def test_literals_read_directly_give_exactly_the_parsers_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    """Objects and tuples read by the fast path (hcl_literals) against the same text parsed token by
    token: the same tree and ranges, the same diagnostics, the same cache entry."""
    from test_parse_cache import shape

    from tfconsole.config import body as B
    from tfconsole.config import hcl_literals, parse_cache

    used = []
    real = hcl_literals.read_literal

    def counting(*args: Any) -> Any:
        got = real(*args)
        used.append(got is not None)
        return got

    monkeypatch.setattr(hcl_literals, "read_literal", counting)
    rng = random.Random(11)
    texts = [random_configuration(rng) for _ in range(1500)] + [p.read_text() for p in CORPUS]
    for text in texts:
        fast, fast_diags, fast_numbers = B._parse(text, "m.tf", literals=True)
        slow, slow_diags, slow_numbers = B._parse(text, "m.tf", literals=False)
        assert [(d.summary, d.detail, d.subject) for d in fast_diags] == \
            [(d.summary, d.detail, d.subject) for d in slow_diags], text
        assert (fast is None) == (slow is None), text
        if fast is not None:
            # encoded first: the constants' item nodes not read yet (their values are), then again
            entry = parse_cache.encode_body(fast, fast_numbers, side=False) if not len(fast_diags) else None
            assert shape(fast) == shape(slow), text
            if entry is not None:
                assert entry == parse_cache.encode_body(slow, slow_numbers, side=False)
                assert parse_cache.encode_body(fast, fast_numbers) == parse_cache.encode_body(slow, slow_numbers)
    assert sum(used) > 500 and used.count(False) > 500  # both paths taken many times


def test_a_constant_literal_is_read_as_its_value_and_its_items_only_when_asked() -> None:
    from test_parse_cache import _value_shape, shape

    from tfconsole.config import body as B
    from tfconsole.lang.eval import evaluate_constant

    text = ('locals {\n  c = { a = [1, -2.5, "x", true, null], b = { d = 1e400, e = -0 } }\n'
            '  q = { "quoted" = { z = 1 } }\n}\n')
    fast = B._parse(text, "m.tf")[0].blocks_of("locals")[0].body.attributes
    slow = B._parse(text, "m.tf", literals=False)[0].blocks_of("locals")[0].body.attributes
    c = fast["c"].expr
    assert c._items is None and c.const is not None  # a value, no item nodes
    want, diags = evaluate_constant(slow["c"].expr)
    assert not diags.has_errors and _value_shape(c.const) == _value_shape(want)
    assert shape(c) == shape(slow["c"].expr) and c._items is not None  # read when asked
    q = fast["q"].expr  # a quoted key: no constant, but the object inside it is one
    assert q.const is None and q._items is not None and q.items[0][1]._items is None
    assert shape(q) == shape(slow["q"].expr)
