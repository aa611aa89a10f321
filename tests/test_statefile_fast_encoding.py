"""The state writer's C path (orjson for attribute values) writes exactly the bytes of the
reference encoder (_data, Go's MarshalIndent layout) on varied states, and is really taken for
plain values; values it cannot write identically (floats, Decimals, huge integers, unsorted
keys, lone surrogates) fall back to the reference encoder."""
from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tfconsole.addrs import parse_instance
from tfconsole.states import statefile
from tfconsole.states.state import ObjectState, OutputState, State

P = 'provider["terraform.io/builtin/terraform"]'

texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12) | st.sampled_from(
    ["<a&b>", "\u2028\u2029", "tab\there", "nl\nx", "\x00\x1f\x7f", "quote\"back\\", "é😀", "\ud800"])
scalars = (st.none() | st.booleans() | st.integers(min_value=-(1 << 70), max_value=1 << 70) | texts
           | st.floats(allow_nan=False, allow_infinity=False) | st.decimals(allow_nan=False, allow_infinity=False,
                                                                            places=3))
values = st.recursive(scalars, lambda c: st.lists(c, max_size=4) | st.dictionaries(texts, c, max_size=4),
                      max_leaves=20)


def _state(attr_values: list) -> State:
    s = State()
    for i, v in enumerate(attr_values):
        attrs = {"id": f"i{i}", "value": v} if i % 2 else {"value": v, "id": f"i{i}"}  # unsorted too
        s.set_current(parse_instance(f"terraform_data.r[{i}]"), ObjectState(attributes=attrs), P)
    s.outputs["o"] = OutputState(value=attr_values[0] if attr_values else None, type="dynamic")
    return s


def _reference(state: State, monkeypatch: pytest.MonkeyPatch) -> str:
    with monkeypatch.context() as m:
        m.setattr(statefile, "_orjson_module", lambda: None)
        return statefile.write_state(state)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(values, min_size=1, max_size=5))
def test_same_bytes_as_the_reference_encoder(monkeypatch: pytest.MonkeyPatch, vals: list) -> None:
    state = _state(vals)
    expected = _reference(state, monkeypatch)
    assert statefile.write_state(state) == expected


def test_plain_values_take_the_c_path_and_others_do_not(monkeypatch: pytest.MonkeyPatch) -> None:
    assert statefile._orjson_module() is not None, "orjson is a dependency"
    calls: list[object] = []
    real = statefile._data

    def counting(v: object, ind: str, out: list[str]) -> None:
        calls.append(v)
        real(v, ind, out)

    monkeypatch.setattr(statefile, "_data", counting)
    plain = {"id": "x", "list": [1, "<b>", None, True, {"k": [{"a": -3}]}], "wrapped": {"value": 1, "type": "number"}}
    statefile.write_state(_state([0, plain]))  # instance 1's attributes are sorted: the C path
    assert plain not in calls and {"id": "i1", "value": plain} not in calls
    for odd in (1.5, Decimal("1e400"), 1 << 65, "\ud800"):
        calls.clear()
        statefile.write_state(_state([0, {"a": [odd]}]))
        assert {"id": "i1", "value": {"a": [odd]}} in calls, odd


# every field of an instance object and of a resource, so the C path's direct document building
# (_object_tree, _resource_tree) is held to the reference layout for each of them
paths = st.lists(st.lists(st.sampled_from([{"type": "get_attr", "value": "input"},
                                           {"type": "index", "value": {"value": 0, "type": "number"}},
                                           {"type": "index", "value": {"value": "k", "type": "string"}}]),
                          min_size=1, max_size=3), max_size=2)
objects = st.builds(
    ObjectState, attributes=st.dictionaries(st.sampled_from(["id", "input", "zz"]), values, max_size=3),
    status=st.sampled_from(["ready", "tainted"]), schema_version=st.integers(0, 3), sensitive_attributes=paths,
    private=st.none() | st.just("cHJpdg=="), dependencies=st.lists(st.sampled_from(["b.x", "a.y", "module.m.c.z"]),
                                                                   max_size=3),
    create_before_destroy=st.booleans(), identity=st.none() | st.fixed_dictionaries({"id": texts}),
    identity_schema_version=st.integers(0, 2),
    attributes_flat=st.none() | st.dictionaries(st.sampled_from(["%", "id"]), texts, max_size=2))
instances = st.tuples(st.sampled_from(["", "module.m.", 'module.n["k"].']),
                      st.sampled_from(["[0]", "[2]", '["a"]', ""]), objects,
                      st.lists(st.sampled_from(["00000001", "0000000a"]), max_size=2, unique=True))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(instances, min_size=1, max_size=6))
def test_every_object_field_same_bytes_as_the_reference_encoder(monkeypatch: pytest.MonkeyPatch,
                                                                insts: list) -> None:
    s = State()
    for i, (module, key, obj, deposed) in enumerate(insts):
        addr = parse_instance(f"{module}terraform_data.r{i % 2}{key}")
        addr = addr[0] if isinstance(addr, tuple) else addr
        if s.current(addr) is None or not deposed:
            s.set_current(addr, obj, P)
        for dk in deposed:
            s.set_deposed(addr, dk, obj.copy(), P)
    assert statefile.write_state(s) == _reference(s, monkeypatch)
