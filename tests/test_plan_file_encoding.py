"""The plan file's metadata encoder: orjson where it can, the standard encoder for what orjson
refuses, both read back to the same document; non-finite floats are refused, never written."""
import json
import math

import pytest

from tfconsole.plans import planfile


@pytest.mark.parametrize("doc", [
    {"a": [1, -2, 0.5, "é\u2028<&>", None, True, {"k": {}}]},
    {"big": 1 << 70, "s": "x"},          # beyond 64 bits: orjson refuses, the standard encoder writes it
    {"surrogate": "\ud800"},              # a lone surrogate: likewise
])
def test_metadata_round_trips(doc: dict) -> None:
    assert json.loads(planfile._dumps(doc)) == doc


def test_orjson_is_the_encoder_for_plain_documents(monkeypatch: pytest.MonkeyPatch) -> None:
    assert planfile._orjson is not None, "orjson is a dependency"
    calls: list = []
    real = planfile._orjson.dumps
    monkeypatch.setattr(planfile._orjson, "dumps", lambda d: calls.append(d) or real(d), raising=False)
    planfile._dumps({"a": 1})
    assert calls == [{"a": 1}]


def test_non_finite_float_is_refused_not_written_as_null() -> None:
    with pytest.raises(ValueError):
        planfile._dumps({"x": math.nan}, fast=False)
    assert not planfile._finite({"a": [1, {"b": math.inf}]}) and planfile._finite({"a": [1.5, None, "x"]})


def test_plan_with_a_nan_identity_is_refused(tmp_path) -> None:
    from tfconsole.addrs import parse_instance
    from tfconsole.plans import Action, Plan, ResourceInstanceChange

    ch = ResourceInstanceChange(addr=parse_instance("terraform_data.a"), action=Action.CREATE,
                                provider='provider["terraform.io/builtin/terraform"]', before=None,
                                after={"id": "x"}, after_identity={"id": math.nan})
    plan = Plan()
    plan.changes = [ch]
    assert not planfile._identities_finite(plan)
    with pytest.raises(ValueError):
        planfile.plan_bytes(plan)
