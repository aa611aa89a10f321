"""Constructors made only of literals are evaluated once (eval._object / eval._tuple): the value is
the same wherever the expression is evaluated again (each module instance, each for element),
while a constructor that refers to anything is evaluated afresh every time."""
from __future__ import annotations

from tfconsole.lang.ast import parse_expression
from tfconsole.lang.eval import Scope, _NoData, evaluate


def _ev(expr, **vars):
    v, d = evaluate(expr, Scope(_NoData(), vars=vars))
    assert not d.has_errors, [x.detail for x in d]
    return v


def test_a_literal_constructor_is_evaluated_once() -> None:
    e = parse_expression('{ a = { b = [1, "x", true, null], c = {} }, d = [[2], { e = 3 }] }')
    first, again = _ev(e), _ev(e)
    assert first == {"a": {"b": [1, "x", True, None], "c": {}}, "d": [[2], {"e": 3}]}
    assert again is first


def test_a_constructor_that_refers_to_something_is_evaluated_each_time() -> None:
    e = parse_expression('{ a = { b = 1 }, v = x, t = [x, 2] }')
    one, two = _ev(e, x="one"), _ev(e, x="two")
    assert one == {"a": {"b": 1}, "v": "one", "t": ["one", 2]}
    assert two == {"a": {"b": 1}, "v": "two", "t": ["two", 2]}
    assert one["a"] is two["a"]  # its literal part is still shared


def test_computed_keys_and_templates_are_not_taken_for_literals() -> None:
    e = parse_expression('{ (k) = 1, s = "${k}-x" }')
    assert _ev(e, k="p") == {"p": 1, "s": "p-x"}
    assert _ev(e, k="q") == {"q": 1, "s": "q-x"}


def test_for_elements_share_a_literal_body() -> None:
    e = parse_expression('[for i in [1, 2, 3] : { fixed = [i > 0 ? 1 : 0, 9] }]')
    v = _ev(e)
    assert v == [{"fixed": [1, 9]}] * 3
    lit = _ev(parse_expression('[for i in [1, 2] : { fixed = [1, 9] }]'))
    assert lit[0] is lit[1] and lit[0] == {"fixed": [1, 9]}


def test_a_literal_value_is_known_wholly_at_once_and_try_still_sees_unknowns() -> None:
    """try() asks whether its result holds an unknown anywhere; for a literal constructor's value
    the answer is recorded, not worked out by walking it again (values.note_wholly_known)."""
    from tfconsole.lang import values as V
    from tfconsole.lang.types import STRING

    e = parse_expression('{ a = { b = [1, "x"] }, c = [{ d = 2 }] }')
    value = _ev(e)
    real = V.is_wholly_known
    assert V._KNOWN.get(id(value)) is value and V._KNOWN.get(id(value["a"])) is value["a"]
    assert real(value) and real(value["c"][0])
    # try() over a part of it gives the part; over a value with an unknown inside, an unknown
    t = parse_expression('try(x.a, "fallback")')
    assert _ev(t, x=value) is value["a"]
    unknown_inside = {"a": {"b": V.Unknown(STRING)}}
    got = _ev(t, x=unknown_inside)
    assert isinstance(got, V.Unknown)
    # a container that is not a recorded literal is walked as before
    assert not real({"a": [1, V.Unknown(STRING)]}) and real({"a": [1, "two"]})
