"""identical(): the plan's cheap first test that a value did not change. Whenever it says
True, equal() and type_of() must agree (a value of another type is a change even when equal);
and decoding an object whose dynamic attributes hold the same JSON shares one value."""
from hypothesis import given, settings
from hypothesis import strategies as st

from tfconsole.lang.types import NUMBER, STRING, type_from_json
from tfconsole.lang.values import (
    Null, Sensitive, TList, TMap, TSet, Unknown, equal, from_json_typed, identical, type_of,
)
from tfconsole.providers.builtin.terraform import DATA_SCHEMA, TerraformProvider
from tfconsole.providers.interface import PlanRequest

_leaf = st.one_of(st.text(max_size=3), st.integers(-3, 3), st.booleans(), st.none(),
                  st.sampled_from([Null(STRING), Unknown(NUMBER), Sensitive("s")]))
values = st.recursive(_leaf, lambda inner: st.one_of(
    st.lists(inner, max_size=3),
    st.dictionaries(st.sampled_from("abc"), inner, max_size=3),
    st.lists(st.text(max_size=2), max_size=3).map(lambda xs: TList(xs, STRING)),
    st.dictionaries(st.sampled_from("xy"), st.integers(0, 2), max_size=2).map(lambda d: TMap(d, NUMBER)),
), max_leaves=8)


def _copy(v: object) -> object:
    if type(v) is dict:
        return {k: _copy(x) for k, x in v.items()}
    if type(v) is list:
        return [_copy(x) for x in v]
    if type(v) in (TList, TSet):
        return type(v)([_copy(x) for x in v], v.etype)  # type: ignore[attr-defined]
    if type(v) is TMap:
        return TMap({k: _copy(x) for k, x in v.items()}, v.etype)
    return v


@settings(max_examples=300, deadline=None)
@given(values, values)
def test_identical_values_are_equal_and_of_one_type(a: object, b: object) -> None:
    if identical(a, b):
        assert equal(a, b)
        assert type_of(a) == type_of(b)


@settings(max_examples=200, deadline=None)
@given(values)
def test_a_copy_of_plain_data_is_identical(a: object) -> None:
    plain = not any(isinstance(x, (Null, Unknown, Sensitive)) for x in _leaves(a))
    assert identical(a, _copy(a)) or not plain


def _leaves(v: object) -> list:
    if isinstance(v, dict):
        return [y for x in v.values() for y in _leaves(x)]
    if isinstance(v, list):
        return [y for x in v for y in _leaves(x)]
    return [v]


def test_what_identical_tells_apart() -> None:
    assert not identical(1, True)  # equal in Python, not in Terraform
    assert not identical(["a"], TList(["a"], STRING))  # a tuple and a list
    assert not identical(TList(["a"], STRING), TList(["a"], type_from_json("dynamic")))
    assert not identical({"a": 1}, {"a": 1, "b": 2}) and not identical({"a": 1}, {"b": 1})
    assert identical({"a": [1, "x", {"b": False}]}, {"a": [1, "x", {"b": False}]})


def test_an_input_changed_only_in_type_is_still_a_change() -> None:
    prior = {"id": "i-1", "input": ["a"], "output": ["a"], "triggers_replace": None}
    config = {"id": None, "input": TList(["a"], STRING), "output": None, "triggers_replace": None}
    proposed = dict(config, id="i-1", output=prior["output"])
    resp = TerraformProvider().plan_resource(PlanRequest("terraform_data", prior, proposed, config))
    assert isinstance(resp.planned["output"], Unknown)


def test_equal_dynamic_attributes_decode_to_one_value() -> None:
    ty = DATA_SCHEMA.block.implied_type()
    same = {"value": {"n": 1, "tags": ["a", "b"]}, "type": ["object", {"n": "number", "tags": ["list", "string"]}]}
    j = {"id": "x", "input": same, "output": dict(same), "triggers_replace": None}
    v = from_json_typed(j, ty)
    assert v["output"] is v["input"]
    assert v["input"] == from_json_typed(same, type_from_json("dynamic"))
    # the same data under another type is another value
    other = {"value": {"n": 1, "tags": ["a", "b"]}, "type": ["object", {"n": "number", "tags": ["tuple", ["string", "string"]]}]}
    v = from_json_typed({"id": "x", "input": same, "output": other, "triggers_replace": None}, ty)
    assert v["output"] is not v["input"] and type(v["output"]["tags"]) is list and type(v["input"]["tags"]) is TList
    v = from_json_typed({"id": "x", "input": {"value": True, "type": "bool"}, "output": {"value": 1, "type": "number"},
                         "triggers_replace": None}, ty)
    assert v["input"] is True and v["output"] == 1 and type(v["output"]) is int


def test_dynamic_values_of_many_types_decode_each_to_its_own_type() -> None:
    """The last few type notations are remembered: more than fit, interleaved, each value
    still decodes under its own notation."""
    notations = [["list", "string"], ["set", "string"], ["tuple", ["string", "string"]], ["map", "string"],
                 ["object", {"a": "string", "b": "string"}], ["list", "number"]]
    data = {"list": ["1", "2"], "set": ["1", "2"], "tuple": ["1", "2"], "map": {"a": "1", "b": "2"},
            "object": {"a": "1", "b": "2"}}
    for _ in range(2):
        for n in notations + notations[::-1]:
            j = data.get(n[0], [1, 2])
            v = from_json_typed({"value": j, "type": n}, type_from_json("dynamic"))
            assert type_of(v) == type_from_json(n), n


def test_try_whose_references_all_fail_reports_what_evaluating_them_does() -> None:
    """try() looks at references through objects without raising; when every argument fails,
    the error is the one evaluating them as usual gives (parentheses take the usual path)."""
    from tfconsole.lang.ast import parse_expression
    from tfconsole.lang.eval import Scope, evaluate

    scope = Scope(None, vars={"o": {"a": {"b": 1}}})
    _, fast = evaluate(parse_expression("try(o.x, o.a.c, o.a.b.d)"), scope)
    _, usual = evaluate(parse_expression("try((o.x), (o.a.c), (o.a.b.d))"), scope)
    assert fast.has_errors and [(d.summary, d.detail.replace("(", "").replace(")", "")) for d in fast.items] == \
        [(d.summary, d.detail.replace("(", "").replace(")", "")) for d in usual.items]
    v, d = evaluate(parse_expression("try(o.x, o.a.b)"), scope)
    assert v == 1 and not d.has_errors
