"""terraform_data's plan: an unchanged object is planned as the prior object itself (the walk
then knows it equal without comparing it), a changed input as an unknown output, a changed
triggers_replace as a replacement."""
from tfconsole.lang.values import Unknown
from tfconsole.providers.builtin.terraform import TerraformProvider
from tfconsole.providers.interface import PlanRequest

PRIOR = {"id": "i-1", "input": "a", "output": "a", "triggers_replace": None}


def plan(config: dict) -> object:
    proposed = dict(config, id=PRIOR["id"], output=PRIOR["output"])
    return TerraformProvider().plan_resource(PlanRequest("terraform_data", PRIOR, proposed, config))


def test_an_unchanged_object_is_planned_as_the_prior_object() -> None:
    resp = plan({"id": None, "input": "a", "output": None, "triggers_replace": None})
    assert resp.planned is PRIOR and not resp.requires_replace


def test_a_changed_input_plans_an_unknown_output() -> None:
    resp = plan({"id": None, "input": "b", "output": None, "triggers_replace": None})
    assert resp.planned is not PRIOR and resp.planned["id"] == "i-1" and resp.planned["input"] == "b"
    assert isinstance(resp.planned["output"], Unknown) and not resp.requires_replace


def test_a_changed_trigger_replaces() -> None:
    resp = plan({"id": None, "input": "a", "output": None, "triggers_replace": "x"})
    assert resp.requires_replace == [("triggers_replace",)] and isinstance(resp.planned["id"], Unknown)
