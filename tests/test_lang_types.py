"""The type objects of tfconsole.lang.types: singleton primitives, the JSON type notation and
the per-type decoders of values.from_json_typed."""
from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from tfconsole.lang.types import (
    BOOL, DYNAMIC, NUMBER, STRING, DynamicType, ListType, MapType, ObjectType, PrimitiveType, SetType,
    TupleType, type_from_json,
)
from tfconsole.lang.values import Null, TList, TMap, TSet, from_json_typed


def test_primitives_are_singletons() -> None:
    assert PrimitiveType("string") is STRING and PrimitiveType("number") is NUMBER
    assert DynamicType() is DYNAMIC
    for t in (STRING, NUMBER, BOOL, DYNAMIC):
        assert copy.copy(t) is t and copy.deepcopy([t])[0] is t and pickle.loads(pickle.dumps(t)) is t
    assert dataclasses.replace(STRING, name="bool") is BOOL
    assert STRING != NUMBER and hash(STRING) != hash(NUMBER)


@pytest.mark.parametrize("notation", [
    "string", ["list", "number"], ["set", ["map", "bool"]],
    ["object", {"b": "string", "a": ["tuple", ["number", "dynamic"]]}],
    ["object", {"a": "string", "o": "number"}, ["o"]],
])
def test_type_from_json_round_trips_and_repeats_one_object(notation: object) -> None:
    t = type_from_json(notation)
    assert type_from_json(t.to_json()) == t
    assert type_from_json(copy.deepcopy(notation)) is t


@pytest.mark.parametrize("bad", ["strin", [], ["list"], ["nope", "string"], {"a": 1}])
def test_type_from_json_refuses_and_does_not_remember(bad: object) -> None:
    for _ in range(2):
        with pytest.raises((ValueError, IndexError)):
            type_from_json(bad)


def test_decoders_per_type() -> None:
    ty = ObjectType.of({
        "s": STRING, "n": NUMBER, "b": BOOL, "l": ListType(STRING), "set": SetType(NUMBER),
        "m": MapType(BOOL), "t": TupleType((STRING, NUMBER)), "d": DYNAMIC, "o": ObjectType.of({"x": STRING}),
    })
    j = {"s": 5, "n": "12", "b": "true", "l": ["a", True], "set": [2, 1, 2], "m": {"z": False, "a": True},
         "t": ["x", 1.5], "d": {"value": ["p"], "type": ["list", "string"]}, "o": None}
    v = from_json_typed(j, ty)
    assert v["s"] == "5" and v["n"] == 12 and v["b"] is True
    assert type(v["l"]) is TList and v["l"] == ["a", "true"] and v["l"].etype is STRING
    assert type(v["set"]) is TSet and sorted(v["set"]) == [1, 2]
    assert type(v["m"]) is TMap and list(v["m"]) == ["a", "z"]
    assert v["t"][0] == "x" and str(v["t"][1]) == "1.5"
    assert type(v["d"]) is TList and v["d"] == ["p"]
    assert type(v["o"]) is Null and v["o"].type == ObjectType.of({"x": STRING})
    # absent attributes are typed nulls; a dynamic null stays a plain None
    v2 = from_json_typed({"d": None}, ty)
    assert v2["d"] is None and type(v2["s"]) is Null and v2["s"].type is STRING
    assert from_json_typed({"value": 1, "type": "number", "x": 2}, DYNAMIC) == {"value": 1, "type": "number", "x": 2}


def test_type_of_gives_one_object_per_shape() -> None:
    from tfconsole.lang.values import type_of

    a = type_of({"n": 1, "t": ["x", True], "o": {"k": "v"}})
    b = type_of({"o": {"k": "w"}, "t": ["y", False], "n": 2})
    assert a is b and a == ObjectType.of({"n": NUMBER, "t": TupleType((STRING, BOOL)), "o": ObjectType.of({"k": STRING})})
    assert type_of(["a", 1]) is type_of(["b", 2]) and type_of(["a", 1]) != type_of([1, "a"])
    assert type_of({"a": "x"}) != type_of({"a": 1})


def test_find_infinity_at_any_depth() -> None:
    from tfconsole.lang.values import Sensitive, find_infinity, parse_number

    inf = parse_number("inf")
    deep = {"a": ["x", TList([1, 2], NUMBER), {"b": Sensitive(TMap({"c": inf}, NUMBER))}]}
    assert find_infinity(deep)
    assert not find_infinity({"a": ["x", TList([1, 2], NUMBER), {"b": Sensitive(TMap({"c": 3}, NUMBER))}]})
    assert not find_infinity("Infinity") and not find_infinity(None)


def test_length_of_tuples_and_objects_with_unknown_or_marked_members() -> None:
    from tfconsole.lang.funcs import call_function
    from tfconsole.lang.values import Sensitive, Unknown

    assert call_function("length", [["a", Unknown(STRING), Sensitive("x")]]) == 3
    assert call_function("length", [{"a": Unknown(NUMBER), "b": 1}]) == 2
    marked = call_function("length", [Sensitive(["a", "b"])])
    assert type(marked) is Sensitive and marked.value == 2
    assert call_function("length", [[]]) == 0 and call_function("length", [{}]) == 0


def test_for_body_sees_the_enclosing_scope() -> None:
    """A for expression's element scope (Scope.child) keeps count, each, self, functions' base
    directory and the outer variables, and adds its own."""
    from tfconsole.lang import ast as A
    from tfconsole.lang.eval import Scope, evaluate

    e = A.parse_expression('[for i, x in xs : "${count.index}/${each.key}/${self.n}/${outer}/${i}/${x}/${abspath(".")}"]',
                           "t.tf")
    e = e[0] if isinstance(e, tuple) else e
    s = Scope(count_index=2, each=("k", "v"), self_value={"n": "s"}, base_dir="/base", vars={"xs": ["a"], "outer": "o"})
    v, d = evaluate(e, s)
    assert not d.has_errors and v == ["2/k/s/o/0/a//base"]  # abspath is relative to the base directory
