"""Property-based fuzzing of the parser, the expression evaluator and whole configurations.

The engine's contract (tfconsole/diags): engine functions return values plus Diagnostics;
raising is reserved for bugs. These tests feed arbitrary and near-valid input and check that
nothing raises, and that no "Internal error" diagnostic (a bug the walker caught) comes back.
"""
from __future__ import annotations

import os
import string
import tempfile

import pytest

import hypothesis  # noqa: E402,F401 - a test dependency: missing is a failure, never a skip
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tfconsole.config.body import parse_file  # noqa: E402
from tfconsole.diags import Diagnostics  # noqa: E402
from tfconsole.lang import evaluate_source  # noqa: E402
from tfconsole.lang.funcs import FUNCTIONS  # noqa: E402

# CI: a fixed, modest set of examples (derandomized, so a run is reproducible). For a deeper local
# hunt: TFCONSOLE_FUZZ_EXAMPLES=5000 pytest tests/test_fuzz.py (random seeds, more examples).
_DEEP = int(os.environ.get("TFCONSOLE_FUZZ_EXAMPLES", "0"))
FUZZ = settings(max_examples=_DEEP or 200, deadline=None, derandomize=not _DEEP, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])
SMALL = settings(FUZZ, max_examples=max(_DEEP // 4, 60))


def _known_crash(exc: BaseException) -> str | None:
    """The signature of a crash already reported (see test_known_crash_* at the end), or None."""
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb.tb_frame.f_code.co_name
        tb = tb.tb_next
    known: dict[tuple[type, str], str] = {
        # (exception type, innermost function): name -- none open at the moment
    }
    return known.get((type(exc), last or ""))


def _guard(fn, *args) -> None:
    """Run fn; a crash with a known signature is skipped (it has its own xfail test below), so
    the generative tests keep hunting for new crashes instead of stopping at the known one."""
    try:
        fn(*args)
    except Exception as exc:  # noqa: BLE001
        if _known_crash(exc) is None:
            raise
        hypothesis.reject()


def _no_internal_error(diags: Diagnostics) -> None:
    assert isinstance(diags, Diagnostics)
    for d in diags:
        assert d.summary != "Internal error", d.detail


# --------------------------------------------------------------------------- (a) parser

VALID_CONFIG = '''\
variable "names" {
  type    = list(string)
  default = ["a", "b"]
}
locals {
  m    = { for i, n in var.names : n => i }
  s    = "x-${upper(var.names[0])}-%{ if length(var.names) > 1 }many%{ endif }"
  heredoc = <<-EOT
    hello ${local.s}
    %{ for n in var.names ~}
    - ${n}
    %{ endfor ~}
  EOT
}
resource "terraform_data" "r" {
  for_each = local.m
  input    = [each.key, each.value * 2, try(local.m["z"], null)]
  lifecycle {
    ignore_changes = [input]
  }
}
module "m" {
  source = "./mod"
  count  = 2
}
output "o" {
  value     = { for k, r in terraform_data.r : k => r.output if k != "b" }
  sensitive = true
}
'''

HCL_PIECES = ['{', '}', '[', ']', '(', ')', '"', '${', '%{', '~}', '<<EOT\n', '<<-EOT\n', 'EOT\n', '=', '==',
              '=>', '...', '?', ':', ',', '.', '*', '[*]', '\n', ' ', '#', '//', '/*', '*/', '\\', '$$', '%%',
              'for', 'in', 'if', 'endif', 'endfor', 'else', 'null', 'true', '0x', '1e', '"\\u', 'é', '\t',
              'resource', 'variable', 'locals', 'module', 'output', 'block', 'terraform_data', '-', '!', '&&']


@st.composite
def mutated_config(draw) -> str:
    text = VALID_CONFIG
    for _ in range(draw(st.integers(1, 6))):
        pos = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["insert", "delete", "replace", "duplicate"]))
        if op == "insert":
            text = text[:pos] + draw(st.sampled_from(HCL_PIECES) | st.text(max_size=3)) + text[pos:]
        elif op == "delete":
            text = text[:pos] + text[pos + draw(st.integers(1, 8)):]
        elif op == "replace":
            text = text[:pos] + draw(st.sampled_from(HCL_PIECES)) + text[pos + 1:]
        else:
            n = draw(st.integers(1, 30))
            text = text[:pos] + text[pos:pos + n] + text[pos:]
    return text


def _parse_ok(text: str) -> None:
    body, diags = parse_file(text, "main.tf")
    assert isinstance(diags, Diagnostics)
    if body is None:
        assert diags.has_errors


@FUZZ
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200))
@example("")
@example("\x00")
@example("a = ")
@example('a = "${')
@example("a = <<EOT\n")
@example("block {\n")
def test_parse_arbitrary_text_never_raises(text: str) -> None:
    _guard(_parse_ok, text)


@FUZZ
@given(mutated_config())
@example(VALID_CONFIG)
def test_parse_near_valid_hcl_never_raises(text: str) -> None:
    _guard(_parse_ok, text)


# --------------------------------------------------------------------------- (b) evaluator

# Functions that would only burn time (key stretching) or depend on the wall clock/randomness
# add nothing to a crash search; everything else from the function table is fair game.
SKIP_FUNCS = {"bcrypt"}
FUNC_NAMES = sorted(n for n in FUNCTIONS if n not in SKIP_FUNCS and "::" not in n)

NUMBERS = st.sampled_from(["0", "1", "2", "-1", "3", "7", "2.5", "-0.5", "1e3", "0.1", "16", "255", "-7"])
STRINGS = st.sampled_from([
    '""', '"a"', '"abc"', '"a,b,,c"', '"héllo ✓"', '"10.0.0.0/16"', '"fd00::/56"', '"2024-02-29T13:45:07Z"',
    '"24h"', '"-1h30m"', '"YYYY-MM-DD hh:mm"', '"%s-%d"', '"%v %q %5.2f"', '"[a-z]+"', '"(\\\\d)(x)?"',
    '"{\\"a\\": [1, null]}"', '"a: 1\\nb: [x]"', '"k,v\\n1,2\\n"', '"aGVsbG8="', '"dns"', '"true"', '"12"',
    '"0x1f"', '"*.tf"', '"UTF-16LE"', '"/x/"', '"$${x}"', '"  pad  "', '"\\n"', '"ff"', '"a/b/c.txt"',
])
ATOMS = st.one_of(
    NUMBERS, STRINGS, st.sampled_from(["true", "false", "null", "[]", "{}", "x", "k", "v", "x.a", "x[0]"]),
    st.integers(-50, 50).map(str),
    st.text(alphabet=string.ascii_letters + string.digits + " -_.,/%$", max_size=6).map(lambda s: '"' + s + '"'),
)
BINOPS = ["+", "-", "*", "/", "%", "==", "!=", "<", ">", "<=", ">=", "&&", "||"]


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pair = st.tuples(inner, inner)
    return st.one_of(
        st.tuples(inner, st.sampled_from(BINOPS), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        inner.map(lambda a: f"!({a})"),
        inner.map(lambda a: f"-({a})"),
        st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})"),
        st.lists(inner, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(st.tuples(st.sampled_from(["a", "b", '"c d"', "x", "(k)", '"1"']), inner), max_size=3)
        .map(lambda kv: "{" + ", ".join(f"{k} = {v}" for k, v in kv) + "}"),
        st.tuples(st.sampled_from(FUNC_NAMES), st.lists(inner, max_size=4), st.booleans())
        .map(lambda t: f"{t[0]}({', '.join(t[1])}{'...' if t[2] and t[1] else ''})"),
        st.tuples(inner, inner, st.booleans())
        .map(lambda t: f"[for x in {t[0]} : {t[1]}{' if x != null' if t[2] else ''}]"),
        pair.map(lambda t: f"{{for k, v in {t[0]} : tostring(k) => {t[1]}}}"),
        pair.map(lambda t: f"{{for k, v in {t[0]} : tostring(v) => {t[1]}...}}"),
        pair.map(lambda t: f"{t[0]}[{t[1]}]"),
        inner.map(lambda a: f"{a}.a"),
        inner.map(lambda a: f"{a}[*]"),
        inner.map(lambda a: f"{a}[*].a"),
        inner.map(lambda a: f"{a}.*.b"),
        inner.map(lambda a: f"{a}.0"),
        inner.map(lambda a: f'"pre ${{{a}}} post"'),
        pair.map(lambda t: f'"%{{ if {t[0]} }}yes%{{ else }}${{{t[1]}}}%{{ endif }}"'),
        inner.map(lambda a: f'"%{{ for i, x in {a} ~}} ${{i}}=${{x}} %{{~ endfor }}"'),
        inner.map(lambda a: f"<<-EOT\n  line ${{{a}}}\n  %{{ if true ~}}\n  y\n  %{{~ endif }}\n  EOT\n"),
        inner.map(lambda a: f"try({a}, \"fallback\")"),
        inner.map(lambda a: f"can({a})"),
        inner.map(lambda a: f"({a})"),
    )


EXPRESSIONS = st.recursive(ATOMS, _extend, max_leaves=12)



def _eval_ok(text: str) -> None:
    with tempfile.TemporaryDirectory() as base:
        value, diags = evaluate_source(text, base_dir=base)
    _no_internal_error(diags)


@FUZZ
@given(EXPRESSIONS)
@example("[for x in [1, 2] : x * 2]")
@example('{for k, v in {a = 1} : v => k...}')
@example('format("%v", [1, "a"])')
@example("range(0, 3, 0.5)")
@example('cidrsubnets("fd00::/56", 16, 16)')
def test_evaluate_generated_expressions_never_raise(text: str) -> None:
    _guard(_eval_ok, text)


def _arg_for(type_name: str) -> st.SearchStrategy[str]:
    """A mostly well-typed argument for a parameter, so calls reach past argument checking."""
    scalar = st.one_of(STRINGS, NUMBERS, st.sampled_from(["true", "false"]))
    lists = st.lists(scalar, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]")
    by_type = {
        "string": STRINGS,
        "number": NUMBERS,
        "ListType(elem=string)": st.lists(STRINGS, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"),
        "ListType(elem=bool)": st.lists(st.sampled_from(["true", "false"]), max_size=4)
        .map(lambda xs: "[" + ", ".join(xs) + "]"),
        "MapType(elem=ListType(elem=string))": st.just('{ a = ["1", "2"], b = [] }'),
    }
    typed = by_type.get(type_name, st.one_of(lists, scalar, st.sampled_from(
        ['{ a = 1, b = "x" }', "{}", '[[1], [2, 3]]', 'toset(["a", "b"])', 'tomap({ k = "v" })', "null"])))
    # wrapped in marks, nulls or (rarely) anything at all
    return st.one_of(typed, typed, typed, typed.map(lambda a: f"sensitive({a})"),
                     st.just("null"), EXPRESSIONS)


@st.composite
def typed_call(draw) -> str:
    f = FUNCTIONS[draw(st.sampled_from(FUNC_NAMES))]
    args = [draw(_arg_for(str(p.type))) for p in f.params]
    if f.variadic is not None:
        args += draw(st.lists(_arg_for(str(f.variadic.type)), max_size=3))
    if args and draw(st.integers(0, 9)) == 0:
        args = args[:-1] if draw(st.booleans()) else args + ["1"]
    return f"{f.name}({', '.join(args)})"


@FUZZ
@given(typed_call())
@example('cidrsubnet("10.0.0.0/8", sensitive(8), 2)')
@example('formatdate(sensitive("YYYY"), "2024-01-01T00:00:00Z")')
def test_every_function_with_typed_arguments_never_raises(text: str) -> None:
    _guard(_eval_ok, text)


@FUZZ
@given(st.text(alphabet=string.printable, max_size=60))
def test_evaluate_arbitrary_text_never_raises(text: str) -> None:
    _guard(_eval_ok, text)


@FUZZ
@given(st.sampled_from(FUNC_NAMES), st.lists(st.one_of(ATOMS, EXPRESSIONS), max_size=4))
def test_every_function_with_random_arguments_never_raises(name: str, args: list[str]) -> None:
    _guard(_eval_ok, f"{name}({', '.join(args)})")


# --------------------------------------------------------------------------- (c) whole configs


@st.composite
def small_config(draw) -> dict[str, str]:
    expr = EXPRESSIONS
    parts: list[str] = []
    names = draw(st.lists(st.sampled_from(["a", "b", "c"]), unique=True, max_size=3))
    for n in names:
        typ = draw(st.sampled_from(["", "type = string", "type = number", "type = list(string)",
                                    "type = map(number)", "type = any",
                                    "type = object({ x = optional(string, \"d\"), y = optional(number) })"]))
        default = draw(st.sampled_from(["", "default = null", "default = 1", 'default = "s"', "default = []",
                                        "default = { x = \"1\" }", f"default = {draw(expr)}"]))
        extra = draw(st.sampled_from(["", "nullable = false", "sensitive = true",
                                      "validation {\n    condition     = var.%s != null\n"
                                      "    error_message = \"must be set\"\n  }" % n]))
        parts.append(f'variable "{n}" {{\n  {typ}\n  {default}\n  {extra}\n}}')
    refs = [f"var.{n}" for n in names] + ["local.l0", "local.l1", "terraform_data.r", "terraform_data.r[0]",
                                          "module.m", "module.m.out", "each.key", "count.index", "self",
                                          "terraform.workspace", "path.module"]
    ref = st.sampled_from(refs)
    sane = st.sampled_from(['"s"', "1", "[1, 2]", '{ a = "b" }', "null", 'toset(["p"])', '{ k = "v" }',
                            'sensitive("x")', '"${terraform.workspace}-x"', "length(local.l0)", "true"])
    rexpr = st.one_of(sane, sane, expr, ref, st.tuples(ref, expr).map(lambda t: f"[{t[0]}, {t[1]}]"),
                      st.tuples(ref, sane).map(lambda t: f"try({t[0]}, {t[1]})"))
    parts.append(f"locals {{\n  l0 = {draw(rexpr)}\n  l1 = {draw(rexpr)}\n}}")
    meta = draw(st.sampled_from(["", "count = 2", f"count = {draw(rexpr)}", 'for_each = toset(["p", "q"])',
                                 f"for_each = {draw(rexpr)}"]))
    lifecycle = draw(st.sampled_from([
        "", "lifecycle {\n    create_before_destroy = true\n  }", "lifecycle {\n    ignore_changes = all\n  }",
        "lifecycle {\n    ignore_changes = [input]\n    replace_triggered_by = [terraform_data.r]\n  }",
        f"lifecycle {{\n    precondition {{\n      condition     = {draw(rexpr)}\n"
        "      error_message = \"pre\"\n    }\n  }",
    ]))
    parts.append(f'resource "terraform_data" "r" {{\n  {meta}\n  input = {draw(rexpr)}\n  {lifecycle}\n}}')
    if draw(st.booleans()):
        parts.append(f'resource "terraform_data" "s" {{\n  input = {draw(rexpr)}\n'
                     f'  depends_on = [{draw(st.sampled_from(["terraform_data.r", "module.m", "local.l0"]))}]\n}}')
    if draw(st.booleans()):
        mmeta = draw(st.sampled_from(["", "count = 1", 'for_each = { k = 1 }', f"count = {draw(rexpr)}"]))
        parts.append(f'module "m" {{\n  source = "./mod"\n  {mmeta}\n  v = {draw(rexpr)}\n}}')
    if draw(st.booleans()):
        parts.append(draw(st.sampled_from([
            "moved {\n  from = terraform_data.old\n  to   = terraform_data.r\n}",
            "moved {\n  from = terraform_data.r[0]\n  to   = terraform_data.r[\"p\"]\n}",
            "removed {\n  from = terraform_data.gone\n  lifecycle {\n    destroy = false\n  }\n}",
            'check "c" {\n  assert {\n    condition     = local.l0 != null\n    error_message = "x"\n  }\n}',
            'data "terraform_remote_state" "rs" {\n  backend = "local"\n  config = { path = "x.tfstate" }\n}',
        ])))
    parts.append(f'output "o" {{\n  value = {draw(rexpr)}\n  sensitive = {draw(st.sampled_from(["true", "false"]))}\n}}')
    files = {"main.tf": "\n".join(parts) + "\n"}
    files["mod/main.tf"] = ('variable "v" {\n  default = null\n}\n'
                            f'resource "terraform_data" "inner" {{\n  input = {draw(st.sampled_from(["var.v", "path.module", "1"]))}\n}}\n'
                            'output "out" {\n  value = terraform_data.inner.output\n}\n')
    return files


def _validate_config(files: dict[str, str]) -> None:
    from tfconsole.config.loader import load_config
    from tfconsole.core import Context, Options

    with tempfile.TemporaryDirectory() as d:
        for rel, text in files.items():
            path = os.path.join(d, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        cfg, diags = load_config(d)
        _no_internal_error(diags)
        if cfg is None or diags.has_errors:
            return
        ctx = Context(Options(working_dir=d, parallelism=2))
        diags = ctx.load_config()
        _no_internal_error(diags)
        if diags.has_errors:
            return
        diags = ctx.validate()
        _no_internal_error(diags)
        if diags.has_errors:
            return
        from tfconsole.states.state import State

        _plan, diags = ctx.plan(State())
        _no_internal_error(diags)


@SMALL
@given(small_config())
def test_validate_random_configs_never_raise(files: dict[str, str]) -> None:
    _guard(_validate_config, files)


# --------------------------------------------------------------------------- found crashes
# Crashes these tests found, kept as regression tests once fixed. (A crash not fixed yet goes
# here marked xfail(strict=False), and its signature into _known_crash so the generative tests
# above keep searching for new ones meanwhile.)


@settings(max_examples=1, deadline=None, database=None)
@given(st.just('a = "a-${5}"\n'))
@example('a = "a-${5}"\n')
@example('a = "x${true}y"\n')
@example('a = "${null}!"\n')
@example('a = "v${1.5}"\n')
def test_found_crash_template_literal_interpolation(text: str) -> None:
    """Was: TypeError in tfconsole.lang.ast.build_template when every part of a template is a
    literal and one is not a string (fixed in ea0a466)."""
    _parse_ok(text)
    _eval_ok(text.split("=", 1)[1].strip())
