"""Instance addresses read by the fast path (printed forms) give exactly what the general
parser gives; anything else goes to the general parser, errors included."""
from __future__ import annotations

import random

import pytest

from tfconsole.addrs import (
    AbsResource, AbsResourceInstance, AddressError, ModuleInstance, Resource, _fast_instance, parse_instance,
    parse_target,
)

CASES = [
    'terraform_data.a', 'terraform_data.a[0]', 'terraform_data.a[007]', 'data.x.y', 'data.x.y["k"]',
    'ephemeral.a.b[1]', 'module.m00["k000"].terraform_data.item[3]', 'module.a.module.b[2].x.y',
    'module.a[0].data.t.n', 'a.b["é ü"]', 'a.b["x\\"y"]', 'a.b["\\u00e9"]', 'a.b[ 1 ]', ' a.b', 'a-b.c_d[1]',
    'module.data.x.y', 'x.data', 'data.data.data', 'module.module.module.m.x.y', 'a.b["a.b"]',
    'module.m["x.y"].a.b["]"]', 'module.m["a"]["b"].x.y', 'a.b[1][2]', 'data.x', 'module.x', 'a', 'a.b.c',
    'a.b["tab\there"]', 'module.a[*].x.y', 'a.b[-1]', 'a.b["k"', '.a.b',
]


def _general(text: str) -> object:
    try:
        t = parse_target(text)
    except ValueError as exc:
        return type(exc)
    if isinstance(t, AbsResource):
        return t.instance(None)
    return t if isinstance(t, AbsResourceInstance) else AddressError


@pytest.mark.parametrize("text", CASES)
def test_fast_path_agrees_with_the_general_parser(text: str) -> None:
    want = _general(text)
    fast = _fast_instance(text)
    assert fast is None or fast == want
    try:
        got: object = parse_instance(text)
    except ValueError as exc:
        got = type(exc) if isinstance(exc, AddressError) else ValueError
    assert got == want or (isinstance(want, type) and isinstance(got, type))


def test_printed_addresses_take_the_fast_path_and_round_trip() -> None:
    rng = random.Random(7)
    for _ in range(500):
        steps = tuple((rng.choice(["m", "mod_1", "data", "a-b"]), rng.choice([None, 0, 12, "k", "x.y", "é"]))
                      for _ in range(rng.randint(0, 3)))
        addr = AbsResourceInstance(ModuleInstance(steps),
                                   Resource(rng.choice(["managed", "data", "ephemeral"]), "t_x", "n"),
                                   rng.choice([None, 0, 3, "key", "a b", "]"]))
        text = str(addr)
        assert _fast_instance(text) == addr, text
        assert parse_instance(text) == addr


def test_module_instances_from_expansion_and_parsing_are_one_object() -> None:
    from tfconsole.addrs import ROOT, module_instance, parse_instance, parse_target

    a = ROOT.child("net", "k1").child("sub", 0)
    assert a is ROOT.child("net", "k1").child("sub", 0) is module_instance((("net", "k1"), ("sub", 0)))
    assert parse_instance('module.net["k1"].module.sub[0].null_resource.x').module is a
    assert parse_target('module.net["k1"].module.sub[0]') is a
    assert a.parent() is ROOT.child("net", "k1") and a.parent().parent() is ROOT
    assert ROOT.child("net", 1) is not ROOT.child("net", "1") and str(ROOT.child("net", "1")) == 'module.net["1"]'
