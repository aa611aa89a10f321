"""How a failing plan reads, against Terraform 1.15 (stdout and stderr compared whole):

- errors Terraform's validate walk finds (constant expressions) are all it reports: a plan that
  also fails later is never shown, and no "Planning failed." is printed;
- a plan that fails after planning some actions shows them under "Terraform planned the following
  actions, but then encountered a problem:"; one with nothing to do says "Planning failed.";
- inside a for expression an error has no "while calling f(...)" line (HCL's child context has no
  functions), and an operator whose two operands are both unsuitable reports both.
"""
from __future__ import annotations

import re
import subprocess

import pytest
from tfrun import TOOL, make_workdir, terraform

CASES = {
    "validate-errors-only": ('variable "x" {\n  default = "z"\n}\n'
                             'output "a" {\n  value = tonumber(var.x)\n}\n'
                             'output "b" {\n  value = [for s in ["z"] : tonumber(s)]\n}\n'
                             'output "d" {\n  value = [for s in ["z"] : s + 1]\n}\n', []),
    "plan-time-errors": ('variable "x" {\n  default = "z"\n}\nvariable "y" {}\n'
                         'output "c" {\n  value = tonumber(var.x)\n}\n'
                         'output "d" {\n  value = tonumber(var.y)\n}\n'
                         'output "e" {\n  value = [for s in [var.y] : s + var.y]\n}\n'
                         'output "f" {\n  value = var.y * var.y\n}\n'
                         'output "g" {\n  value = "%{for s in [var.y]}${tonumber(s)}%{endfor}"\n}\n'
                         'output "h" {\n  value = [for s in [var.y] : [for t in [s] : tonumber(t)]]\n}\n'
                         'output "i" {\n  value = [for s in [var.y] : upper(var.y) if s > 1]\n}\n', ["-var", "y=q"]),
    "partial-plan": ('variable "y" {}\nresource "terraform_data" "a" {\n  input = "x"\n}\n'
                     'output "d" {\n  value = tonumber(var.y)\n}\n', ["-var", "y=q"]),
}


def _normal(text: str) -> str:
    text = text.replace("tfconsole encountered", "Terraform encountered")
    return re.sub(r"\[id=[^\]]+\]", "[id=ID]", text)


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> str:
    return make_workdir(tmp_path_factory, "planerr")


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_failing_plan_reads_as_terraforms(root: str, case: str) -> None:
    config, args = CASES[case]
    got = {}
    for who in ("terraform", "tfconsole"):
        d = f"{root}/{case}-{who}"
        subprocess.run(["mkdir", "-p", d], check=True)
        with open(f"{d}/main.tf", "w") as f:
            f.write(config)
        if who == "terraform":
            rc, out, err = terraform(["plan", "-no-color", *args], d)
        else:
            p = subprocess.run([TOOL, "plan", "-no-color", *args], cwd=d, capture_output=True, text=True, check=False)
            rc, out, err = p.returncode, p.stdout, p.stderr
        got[who] = (rc, _normal(out), _normal(err))
    assert got["terraform"][0] == 1
    assert got["tfconsole"] == got["terraform"]
