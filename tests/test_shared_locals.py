"""Locals that several module calls compute alike are computed once per walk (lang/shared.py);
anything whose value could differ between the calls is still computed for each."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tfconsole.lang import shared

MODULE = """
variable "name" {
  type = string
}

locals {
  layers = { a = { x = 1, y = { z = [1, 2] } }, b = { x = 2 } }
  merged = merge(try(local.layers.a, {}), try(local.layers.b, {}), try(local.layers.c, {}))
  keys   = sort(keys(local.merged))
  digest = sha256(jsonencode(local.merged))
  named  = "${var.name}-${length(local.keys)}"
  random = uuid()
  where  = "${path.module}:${local.digest}"
  bad    = local.layers.c.x
}

output "merged" {
  value = local.merged
}

output "digest" {
  value = local.digest
}

output "named" {
  value = local.named
}

output "random" {
  value = local.random
}
"""

ROOT = """
module "m0" {
  source = "./mod"
  name   = "zero"
}

module "m1" {
  source = "./mod"
  name   = "one"
}

module "m2" {
  source = "./mod"
  name   = "two"
}

output "all" {
  value = [module.m0, module.m1, module.m2]
}
"""


def _plan(d: Path) -> tuple[Any, Any]:
    from tfconsole.core import Context, Options
    from tfconsole.states.state import State

    cwd = os.getcwd()
    os.chdir(d)
    try:
        ctx = Context(Options(working_dir="."))
        assert not ctx.load_config().has_errors
        return ctx.plan(State(serial=0))
    finally:
        os.chdir(cwd)


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "mod").mkdir()
    (tmp_path / "mod" / "main.tf").write_text(MODULE)
    (tmp_path / "main.tf").write_text(ROOT)
    return tmp_path


def test_a_local_three_calls_compute_alike_is_evaluated_once(config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    evaluated: list[str] = []
    real = shared.evaluate

    def counting(expr: Any, scope: Any) -> Any:
        evaluated.append(scope.data.mi.steps[0][0] if scope.data.mi.steps else "root")
        return real(expr, scope)

    monkeypatch.setattr(shared, "evaluate", counting)
    plan, diags = _plan(config)
    # `bad` fails in every call, and every call reports it, as Terraform does
    errors = [d for d in diags.errors()]
    assert len(errors) == 3 and {d.summary for d in errors} == {"Unsupported attribute"}
    calls = {}
    for name in evaluated:
        calls[name] = calls.get(name, 0) + 1
    # merged, keys, digest: once for the three calls; layers (a constant: nothing to share),
    # named (var.name), random (uuid()), where (path.module), bad (an error): in each call. The
    # plan walks twice (validate, then plan), each walk with its own memo.
    assert calls == {"m0": 2 * (3 + 5), "m1": 2 * 5, "m2": 2 * 5}, calls


def test_what_differs_between_calls_is_not_shared(config: Path) -> None:
    (config / "mod" / "main.tf").write_text(MODULE.replace('  bad    = local.layers.c.x\n', ""))
    plan, diags = _plan(config)
    assert not diags.has_errors, [d.summary for d in diags]
    outs = {o.name: o.after for o in plan.output_changes}["all"]
    assert [o["named"] for o in outs] == ["zero-2", "one-2", "two-2"]
    assert len({o["random"] for o in outs}) == 3  # one uuid() per call, as in Terraform
    assert outs[0]["merged"] == outs[1]["merged"] == {"x": 2, "y": {"z": [1, 2]}}
    assert len({o["digest"] for o in outs}) == 1


def test_which_expressions_may_be_shared() -> None:
    from tfconsole.config.body import parse_file

    def refs(src: str) -> tuple:
        body, diags = parse_file(f"x = {src}\n", "t.tf")
        assert not len(diags)
        return shared.shareable_refs(body.attributes["x"].expr)

    assert refs("merge(local.a, try(var.b.c, {}))") == (("local", "a"), ("var", "b"))
    assert refs("[for k, v in local.m : upper(k) if v]") == (("local", "m"),)
    assert refs("{ a = 1 }") == ()  # a constant: nothing to share
    for src in ("local.a[count.index]", "each.key", "path.module", "terraform.workspace", "module.m.o",
                "aws_instance.x.id", "self.id", "timestamp()", "uuid()", "file(local.f)",
                "provider::p::f(local.a)", "templatestring(local.t, {})", "bcrypt(local.a)"):
        assert refs(f"[local.a, {src}]") == (), src


def test_an_expression_that_never_repeats_is_given_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Instances of a for_each module read values of their own: after GIVE_UP_AFTER of them the
    walk stops remembering that expression (each instance still gets its own value)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "mod").mkdir()
    (tmp_path / "mod" / "main.tf").write_text(
        'variable "name" {}\nlocals {\n  upper = upper(var.name)\n}\noutput "o" {\n  value = local.upper\n}\n')
    (tmp_path / "main.tf").write_text(
        'module "m" {\n  source   = "./mod"\n  for_each = toset(["a", "b", "c", "d", "e", "f", "g", "h"])\n'
        '  name     = each.key\n}\noutput "all" {\n  value = [for k, m in module.m : m.o]\n}\n')
    stored: list[Any] = []
    real = shared.remember
    monkeypatch.setattr(shared, "remember", lambda memo, key, value, limit: stored.append(key) or
                        real(memo, key, value, limit))
    plan, diags = _plan(tmp_path)
    assert not diags.has_errors, [d.summary for d in diags]
    assert {o.name: o.after for o in plan.output_changes}["all"] == list("ABCDEFGH")
    per_walk = [k for k in stored if type(k) is tuple]
    # the plan walk gives up after GIVE_UP_AFTER of its 8 instances (validate's walk has one
    # representative instance, whose unknown name it may remember too)
    assert shared.GIVE_UP_AFTER <= len(per_walk) <= shared.GIVE_UP_AFTER + 1 < 8


def test_an_impure_call_over_shared_values_is_evaluated_in_each_call(config: Path) -> None:
    """uuid() beside local.keys (the same object in every call): one value per call still."""
    text = MODULE.replace('  bad    = local.layers.c.x\n', "").replace(
        "  random = uuid()\n", '  random = "${uuid()}/${local.keys[0]}"\n')
    (config / "mod" / "main.tf").write_text(text)
    plan, diags = _plan(config)
    assert not diags.has_errors, [d.summary for d in diags]
    outs = {o.name: o.after for o in plan.output_changes}["all"]
    assert len({o["random"] for o in outs}) == 3 and all(o["random"].endswith("/x") for o in outs)
