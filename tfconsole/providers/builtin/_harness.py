"""Drive a provider through a resource's lifecycle the way Terraform core does (used by tests).

`proposed_new_state` follows core's objchange.ProposedNew for flat schemas: configured values,
and prior values for computed attributes the configuration leaves null.
"""
from __future__ import annotations

from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any

from tfconsole.diags import Diagnostics

from ..interface import ApplyRequest, PlanRequest, PlanResponse, Provider


class ProviderError(AssertionError):
    def __init__(self, what: str, diags: Diagnostics) -> None:
        super().__init__(f"{what}: " + "; ".join(f"{d.summary}: {d.detail}" for d in diags.errors()))
        self.diags = diags


def proposed_new_state(p: Provider, type_name: str, prior: dict[str, Any] | None,
                       config: dict[str, Any]) -> dict[str, Any]:
    attrs = p.resource_schemas()[type_name].block.attributes
    out: dict[str, Any] = {}
    for name, a in attrs.items():
        cv = config.get(name)
        if cv is None and a.computed:
            out[name] = prior.get(name) if prior is not None else None
        else:
            out[name] = cv
    return out


def plan(p: Provider, type_name: str, prior: dict[str, Any] | None, config: dict[str, Any]) -> PlanResponse:
    vd = p.validate_resource(type_name, config)
    if vd.has_errors:
        return PlanResponse(planned=None, diags=vd)  # type: ignore[arg-type]
    resp = p.plan_resource(PlanRequest(type_name, prior, proposed_new_state(p, type_name, prior, config), config))
    resp.diags.items[:0] = vd.items
    return resp


@dataclass
class Change:
    action: str  # "create" | "update" | "replace" | "noop"
    plan: PlanResponse
    state: dict[str, Any] | None


def apply_config(p: Provider, type_name: str, prior: dict[str, Any] | None, config: dict[str, Any]) -> Change:
    """Plan and apply config over prior (replacing when the provider asks), as `terraform apply`."""
    resp = plan(p, type_name, prior, config)
    if resp.diags.has_errors:
        raise ProviderError("plan", resp.diags)
    if prior is None:
        action = "create"
    elif resp.requires_replace:
        action = "replace"
    elif resp.planned == prior:
        return Change("noop", resp, prior)
    else:
        action = "update"
    if action == "replace":
        destroy(p, type_name, prior)
        prior = None
    ar = p.apply_resource(ApplyRequest(type_name, prior, resp.planned, config, resp.private))
    if ar.diags.has_errors:
        raise ProviderError("apply", ar.diags)
    return Change(action, resp, ar.new_state)


def create(p: Provider, type_name: str, config: dict[str, Any]) -> dict[str, Any]:
    ch = apply_config(p, type_name, None, config)
    assert ch.state is not None
    return ch.state


def destroy(p: Provider, type_name: str, prior: dict[str, Any]) -> None:
    ar = p.apply_resource(ApplyRequest(type_name, prior, None, None))
    if ar.diags.has_errors:
        raise ProviderError("destroy", ar.diags)
    assert ar.new_state is None


def read(p: Provider, type_name: str, state: dict[str, Any]) -> dict[str, Any] | None:
    rr = p.read_resource(type_name, state, None)
    if rr.diags.has_errors:
        raise ProviderError("read", rr.diags)
    return rr.new_state


def import_(p: Provider, type_name: str, id_: str) -> dict[str, Any]:
    state, diags = p.import_resource(type_name, id_)
    if diags.has_errors or state is None:
        raise ProviderError("import", diags)
    return state


def read_data(p: Provider, type_name: str, config: dict[str, Any]) -> tuple[dict[str, Any] | None, Diagnostics]:
    vd = p.validate_data_source(type_name, config)
    if vd.has_errors:
        return None, vd
    state, diags = p.read_data_source(type_name, config)
    diags.items[:0] = vd.items
    return state, diags
