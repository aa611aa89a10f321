"""Graphs built from step lists, compared with their text form (Graph.string(): each vertex
with its dependencies): the destroy plan, the destroy apply, and a resource's expansion."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from tfconsole.addrs import AbsResource, ModuleInstance
from tfconsole.command.main import CLI
from tfconsole.config.loader import load_config
from tfconsole.diags import Diagnostics
from tfconsole.graph.builder import apply_destroy_steps, build, expand_steps, plan_destroy_steps, plan_steps
from tfconsole.graph.nodes.expansion import ExpandFacts
from tfconsole.graph.nodes.resource import ResourceNode
from tfconsole.graph.transforms import BuildContext, parse_targets
from tfconsole.plans.planfile import load_plan
from tfconsole.states.state import State
from tfconsole.states.statefile import read_state
from tfconsole.walk.context import Expansion

CONFIG = """\
resource "terraform_data" "a" {
  count = 3
}

resource "terraform_data" "b" {
  input = terraform_data.a[0].id
}

resource "terraform_data" "c" {}
"""
PROVIDER = 'provider["terraform.io/builtin/terraform"]'


@pytest.fixture
def applied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "main.tf").write_text(CONFIG)
    monkeypatch.chdir(tmp_path)
    assert CLI(io.StringIO(), io.StringIO()).run(["apply", "-auto-approve"]) == 0
    return tmp_path


def test_destroy_plan_with_a_target_takes_its_dependents(applied: Path) -> None:
    cfg, _ = load_config(str(applied))
    state, _ = read_state(applied / "terraform.tfstate")
    b = BuildContext(cfg, state, targets=parse_targets(["terraform_data.a[0]"], Diagnostics()), destroy=True)
    g, d = build(plan_destroy_steps(), b, "plan-destroy")
    assert not d.has_errors
    assert g.string() == f"""\
{PROVIDER}
root
  terraform_data.a[0] (orphan)
  terraform_data.b (orphan)
terraform_data.a[0] (orphan)
  {PROVIDER}
terraform_data.b (orphan)
  {PROVIDER}
"""


def test_destroy_apply_destroys_dependents_first(applied: Path) -> None:
    out = io.StringIO()
    assert CLI(out, io.StringIO()).run(["plan", "-destroy", "-out=d.tfplan"]) == 0
    plan, _ = load_plan(str(applied / "d.tfplan"))
    cfg, _ = load_config(str(applied))
    g, d = build(apply_destroy_steps(), BuildContext(cfg, plan.prior_state, plan=plan, destroy=True), "x")
    assert not d.has_errors
    assert g.string() == f"""\
{PROVIDER}
root
  terraform_data.a[0] (destroy)
  terraform_data.a[1] (destroy)
  terraform_data.a[2] (destroy)
  terraform_data.c (destroy)
terraform_data.a[0] (destroy)
  terraform_data.b (destroy)
terraform_data.a[1] (destroy)
  terraform_data.b (destroy)
terraform_data.a[2] (destroy)
  terraform_data.b (destroy)
terraform_data.b (destroy)
  {PROVIDER}
terraform_data.c (destroy)
  {PROVIDER}
"""


def _resource_node(tmp_path: Path, targets: list[str] | None = None) -> ResourceNode:
    (tmp_path / "main.tf").write_text(CONFIG)
    cfg, _ = load_config(str(tmp_path))
    b = BuildContext(cfg, State(), targets=parse_targets(targets or [], Diagnostics()))
    g, _ = build(plan_steps(), b, "plan")
    [node] = [v for v in g.vertices() if isinstance(v, ResourceNode) and v.name == "terraform_data.a"]
    return node


def _facts(node: ResourceNode) -> ExpandFacts:
    here = AbsResource(ModuleInstance(), node.rc.addr)
    gone = AbsResource(ModuleInstance((("m", 1),)), node.rc.addr)
    return ExpandFacts(node, instances=[(here, Expansion("list", [0, 1]))],
                       in_state={here: (PROVIDER, [0, 1, 2, "x"])},
                       gone=[(gone, PROVIDER, [(None, True), (5, False)])])


def test_expansion_adds_instances_and_the_orphans_it_leaves(tmp_path: Path) -> None:
    facts = _facts(_resource_node(tmp_path))
    g, d = build(expand_steps(), facts, "expand")
    assert not d.has_errors
    assert g.string() == """\
module.m[1].terraform_data.a (orphan)
terraform_data.a["x"] (orphan)
terraform_data.a[0]
terraform_data.a[1]
terraform_data.a[2] (orphan)
"""
    reasons = {v.name: v.reason for v in g.vertices() if hasattr(v, "reason")}
    assert reasons == {"module.m[1].terraform_data.a (orphan)": "delete_because_no_module",
                       'terraform_data.a["x"] (orphan)': "delete_because_wrong_repetition",
                       "terraform_data.a[2] (orphan)": "delete_because_count_index"}


def test_expansion_under_a_target_skips_the_others(tmp_path: Path) -> None:
    facts = _facts(_resource_node(tmp_path, ["terraform_data.a[1]"]))
    g, _ = build(expand_steps(), facts, "expand")
    kinds = {v.name: type(v).__name__ for v in g.vertices()}
    assert kinds == {"terraform_data.a[0] (untargeted)": "PlanSkippedInstance", "terraform_data.a[1]": "PlanInstanceNode"}


def test_expression_keys_are_each_traversal_key_once_in_order() -> None:
    """expr_keys (remembered per expression, relative to the module) gives what
    key_for_traversal gives for each reference, each key once, in the order of first use."""
    from tfconsole.addrs import Module as ModulePath
    from tfconsole.config.body import parse_file
    from tfconsole.graph.nodes.base import expr_keys, key_for_traversal
    from tfconsole.lang import ast as A

    src = ('[local.a, var.b.c, module.m.out, module.n, module.o[0].x, data.t.d.id, aws_x.y[0].id, local.a, '
           'count.index, each.key, path.module, self.x, terraform.workspace, ephemeral.e.f.v, '
           '[for k, v in local.m : v if k != local.a], module.m.out]')
    body, diags = parse_file(f"x = {src}\n", "t.tf")
    assert not len(diags)
    e = body.attributes["x"].expr
    for module in (ModulePath(), ModulePath(("p",)), ModulePath(("p", "q"))):
        want = [k for k in (key_for_traversal(module, t) for t in A.references(e)) if k is not None]
        assert expr_keys(module, e) == list(dict.fromkeys(want)), module
        assert expr_keys(module, e) == expr_keys(module, e)
    assert (ModulePath(("p", "m")), "output.out") in expr_keys(ModulePath(("p",)), e)
