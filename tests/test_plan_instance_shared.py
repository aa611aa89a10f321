"""What a plan works out once per resource instead of once per instance gives what the general
path gives: a body's layout against its schema (evaluate_body), the facts the instances of a
resource share, and the one object per resource address the walk's dictionaries find by
identity."""
from __future__ import annotations

from pathlib import Path

import pytest

from tfconsole.addrs import ROOT, AbsResource, AbsResourceInstance, Resource, intern_resource
from tfconsole.config.body import parse_file
from tfconsole.graph.nodes import resource as R
from tfconsole.lang.eval import Scope
from tfconsole.lang.types import DYNAMIC, NUMBER, STRING
from tfconsole.providers.interface import Attr, BlockSchema
from tfconsole.states.state import State
from tfconsole.states.statefile import read_state

SCHEMA = BlockSchema({
    "id": Attr(STRING, computed=True),
    "name": Attr(STRING, optional=True),
    "size": Attr(NUMBER, optional=True),
    "anything": Attr(DYNAMIC, optional=True),
    "needed": Attr(STRING, required=True),
})

BODIES = [
    'needed = "x"\nname = "n-${count.index}"\nsize = "12"\n',  # converted to the schema's types
    'needed = "x"\n',  # the rest: typed nulls, and a dynamic attribute's plain null
    'needed = "x"\nsize = "not a number"\n',  # a conversion error
    'needed = "x"\nname = 1 + "a"\n',  # an evaluation error
    'name = "no needed"\n',  # a required attribute missing: the general path
    'needed = "x"\nid = "read-only"\n',  # a computed-only attribute set: the general path
    'needed = "x"\nunknown_arg = 1\n',  # an argument the schema lacks: the general path
]


def _body(text: str):  # type: ignore[no-untyped-def]
    body, diags = parse_file(text, "main.tf")
    assert body is not None and not diags.has_errors, diags
    return body


@pytest.mark.parametrize("text", BODIES, ids=range(len(BODIES)))
def test_a_body_evaluates_as_the_general_path_evaluates_it(text: str) -> None:
    body = _body(text)
    scope = Scope(None, count_index=3)
    got, gd = R.evaluate_body(body, SCHEMA, scope, None, "x.y")
    want, wd = R._evaluate_body(body, SCHEMA, scope, None, "x.y")
    assert list(got) == list(want)  # the same attributes, in the same order
    assert {k: repr(v) for k, v in got.items()} == {k: repr(v) for k, v in want.items()}
    assert [(d.severity, d.summary, d.detail) for d in gd] == [(d.severity, d.summary, d.detail) for d in wd]


def test_the_layout_is_made_once_and_only_for_bodies_it_fits() -> None:
    simple, missing = _body(BODIES[0]), _body(BODIES[4])
    first = R._body_layout(simple, SCHEMA)
    assert first is not None and R._body_layout(simple, SCHEMA) is first
    assert [name for name, _, _ in first[0]] == ["needed", "name", "size"]
    assert list(first[1]) == ["id", "anything"] and first[1]["anything"] is None
    assert R._body_layout(missing, SCHEMA) is None


def test_equal_resource_addresses_are_one_object() -> None:
    res = Resource("managed", "terraform_data", "a")
    one = AbsResourceInstance(ROOT, res, 0).abs_resource()
    two = AbsResourceInstance(ROOT, Resource("managed", "terraform_data", "a"), 1).abs_resource()
    assert one is two
    assert intern_resource(AbsResource(ROOT, res)) is one


def test_a_state_files_resource_addresses_are_the_interned_ones(tmp_path: Path) -> None:
    doc = ('{"version": 4, "terraform_version": "1.15.0", "serial": 1, "lineage": "l", "outputs": {}, '
           '"resources": [{"mode": "managed", "type": "terraform_data", "name": "s", '
           '"provider": "provider[\\"terraform.io/builtin/terraform\\"]", "instances": '
           '[{"schema_version": 0, "attributes": {"id": "1"}}]}]}')
    state, diags = read_state(doc)
    assert state is not None and not diags.has_errors
    (key,) = state.resources
    assert key is AbsResourceInstance(ROOT, Resource("managed", "terraform_data", "s"), 0).abs_resource()


def test_a_plan_changes_nothing_in_the_state_it_is_handed(tmp_path: Path) -> None:
    # the plan keeps that State as the previous run's, without a copy: moves, refresh and the
    # walk must change only the plan's own copies
    from tfconsole.core import Context, Options
    from tfconsole.states.statefile import state_body

    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {\n  count = 2\n  input = "x${count.index}"\n}\n')
    ctx = Context(Options(working_dir=str(tmp_path)))
    try:
        assert not ctx.load_config().has_errors
        plan, d = ctx.plan(State())
        from tfconsole.states.manager import StateManager

        mgr = StateManager(str(tmp_path / "terraform.tfstate"))
        assert not mgr.lock().has_errors
        try:
            mgr.load()
            state, d = ctx.apply(plan, mgr)
        finally:
            mgr.unlock()
        assert state is not None and not d.has_errors
        # then renamed and shrunk: a move, an orphan and a refresh of everything left
        (tmp_path / "main.tf").write_text('moved {\n  from = terraform_data.a\n  to = terraform_data.b\n}\n'
                                          'resource "terraform_data" "b" {\n  count = 1\n  input = "y"\n}\n')
        assert not ctx.load_config().has_errors
        before = state_body(state)
        plan, d = ctx.plan(state)
        assert not d.has_errors, [x.detail for x in d]
        assert state_body(state) == before
        assert state_body(plan.prev_run_state) == before
        assert state_body(plan.prior_state) != before  # the moves were made on the plan's copy
    finally:
        ctx.close()
