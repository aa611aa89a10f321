"""The built-in null provider: null_resource and data null_data_source."""
from __future__ import annotations

import pytest

from tfconsole.lang.types import STRING
from tfconsole.lang.values import TMap, Unknown
from tfconsole.providers.builtin import _harness as h
from tfconsole.providers.builtin.null import NullProvider
from tfconsole.providers.registry import default_registry


@pytest.fixture
def p() -> NullProvider:
    return NullProvider()


def test_registered() -> None:
    assert isinstance(default_registry().create("null"), NullProvider)


def test_null_resource_lifecycle(p: NullProvider) -> None:
    plan = h.plan(p, "null_resource", None, {})
    assert plan.planned == {"triggers": None, "id": Unknown(STRING)}
    st = h.create(p, "null_resource", {"triggers": TMap({"a": "1"}, STRING)})
    assert st["id"].isdigit() and int(st["id"]) < 2**63
    assert st["triggers"] == {"a": "1"}
    assert h.read(p, "null_resource", st) == st
    same = h.apply_config(p, "null_resource", st, {"triggers": TMap({"a": "1"}, STRING)})
    assert same.action == "noop"
    ch = h.apply_config(p, "null_resource", st, {"triggers": TMap({"a": "2"}, STRING)})
    assert ch.action == "replace" and ch.plan.requires_replace == [("triggers",)]
    assert ch.plan.planned["id"] == Unknown(STRING)
    assert ch.state["id"] != st["id"]
    # removing a trigger key replaces too
    ch2 = h.apply_config(p, "null_resource", ch.state, {"triggers": TMap({}, STRING)})
    assert ch2.action == "replace"
    h.destroy(p, "null_resource", ch2.state)


def test_null_resource_triggers_added_from_null(p: NullProvider) -> None:
    st = h.create(p, "null_resource", {})
    assert h.plan(p, "null_resource", st, {"triggers": TMap({"x": "y"}, STRING)}).requires_replace == [("triggers",)]
    # adding only null-valued triggers is an in-place update, keeping the id
    ch = h.apply_config(p, "null_resource", st, {"triggers": TMap({"x": None}, STRING)})
    assert ch.action == "update" and ch.state["id"] == st["id"]


def test_null_resource_triggers_convert_to_strings(p: NullProvider) -> None:
    st = h.create(p, "null_resource", {"triggers": {"n": 1, "b": True}})
    assert st["triggers"] == {"n": "1", "b": "true"}


def test_null_resource_no_import(p: NullProvider) -> None:
    _, d = p.import_resource("null_resource", "123")
    assert d.has_errors


def test_null_data_source(p: NullProvider) -> None:
    st, d = h.read_data(p, "null_data_source", {"inputs": TMap({"a": "b"}, STRING)})
    assert not d.has_errors
    assert st["outputs"] == {"a": "b"}
    assert st["id"] == "static"
    assert st["has_computed_default"] == "default"
    assert st["random"].isdigit()
    assert any(w.summary == "Deprecated" and "terraform_data" in w.detail for w in d.warnings())
    st2, _ = h.read_data(p, "null_data_source", {"has_computed_default": "mine"})
    assert st2["has_computed_default"] == "mine" and st2["outputs"] is None


def test_null_data_source_unknown_inputs_defer(p: NullProvider) -> None:
    cfg = {"inputs": TMap({"a": Unknown(STRING)}, STRING)}
    st, d = p.read_data_source("null_data_source", cfg)
    assert not d.has_errors
    assert isinstance(st["outputs"], Unknown) and isinstance(st["random"], Unknown)
