"""`show -json PLANFILE`: the whole JSON plan document as Terraform 1.15 writes it.

views.plan_json gives the changes and planned values; this adds what needs the plan's
configuration snapshot and the provider schemas (configuration, relevant_attributes, schema
versions, declared variable defaults) and the prior state with the root outputs the plan
evaluated, then orders the keys as Terraform's document has them.
"""
from __future__ import annotations

from typing import Any

from tfconsole.diags import Diagnostics
from tfconsole.plans import Action, Plan

from .jsonconfig import Schemas, config_json, root_variable_defaults, source_for
from .relevant import relevant_attributes

ORDER = ("format_version", "terraform_version", "variables", "planned_values", "resource_drift",
         "resource_changes", "output_changes", "prior_state", "configuration", "relevant_attributes",
         "checks", "timestamp", "applyable", "complete", "errored")


def load_snapshot(plan: Plan) -> tuple[Any, Diagnostics]:
    """The configuration the plan was made from, loaded from its snapshot."""
    from tfconsole.config.loader import load_config
    from tfconsole.plans.planfile import PlanFileError, materialized_config

    diags = Diagnostics()
    try:
        with materialized_config(plan) as root_dir:
            root, d = load_config(root_dir)
            diags.append(d)
    except (PlanFileError, OSError) as exc:
        diags.error("Failed to read the plan's configuration", f"The configuration snapshot in the plan file "
                    f"could not be unpacked: {exc}.")
        return None, diags
    return root, diags


def _schema_version(root: Any, schemas: Schemas) -> Any:
    def version(ch: Any) -> int:
        mod = root.module_at(ch.addr.module.module()) if root is not None else None
        source = _provider_source(ch.provider)
        if mod is not None:
            rc = mod.resources.get(ch.addr.resource)
            if rc is not None:
                source = source_for(mod, rc.provider_local_name) if not rc.provider_ref else source
        s = schemas.resource(source, ch.addr.resource.mode, ch.addr.resource.type)
        return s.version if s is not None else 0

    return version


def _provider_source(provider_addr: str) -> str:
    from tfconsole.walk.context import provider_source_of

    return provider_source_of(provider_addr)


def _prior_state(plan: Plan, decode: Any) -> dict | None:
    """Terraform's prior state holds the root outputs the plan evaluated (the known ones)."""
    from tfconsole.lang.values import type_of, unmark_deep

    from .views import _values_json, is_wholly_known_plain, state_json

    outputs = {}
    for o in sorted(plan.output_changes, key=lambda o: o.name):
        if o.action is Action.DELETE or o.after is None or not is_wholly_known_plain(o.after):
            continue
        clean = unmark_deep(o.after)[0]
        outputs[o.name] = {"sensitive": o.sensitive, "value": _values_json(o.after),
                           "type": type_of(clean).to_json()}
    st = plan.prior_state
    has_resources = st is not None and not st.is_empty()
    if not has_resources and not outputs:
        return None
    doc = state_json(_without_pending_reads(plan), decode) if has_resources else {"format_version": "1.0"}
    from tfconsole import TERRAFORM_VERSION

    values = doc.get("values", {})
    values.pop("outputs", None)
    new_values: dict[str, Any] = {}
    if outputs:
        new_values["outputs"] = outputs
    new_values["root_module"] = values.get("root_module", {})
    # the state a plan is made against holds no check results yet (the plan's are in "checks")
    return {"format_version": "1.0", "terraform_version": TERRAFORM_VERSION, "values": new_values}


def _without_pending_reads(plan: Plan) -> Any:
    """The prior state less the data resources the plan reads again at apply: Terraform drops
    their old objects from the state it plans against."""
    reads = {ch.addr.abs_resource() for ch in plan.changes if ch.action is Action.READ and ch.mode == "data"}
    st = plan.prior_state
    if not reads or not any(a in st.resources for a in reads):
        return st
    import copy

    st = copy.copy(st)
    st.resources = {a: r for a, r in st.resources.items() if a not in reads}
    return st


def show_plan_json(plan: Plan, decode: Any, session: Any) -> dict:
    from .views import plan_json

    schemas = Schemas(session)
    root, _diags = load_snapshot(plan)
    out = plan_json(plan, decode, _schema_version(root, schemas) if root is not None else None)
    out.pop("prior_state", None)
    prior = _prior_state(plan, decode)
    if prior is not None:
        out["prior_state"] = prior
    if root is not None:
        variables = dict(out.get("variables", {}))
        for name, default in root_variable_defaults(root).items():
            variables.setdefault(name, {"value": default})
        if variables:
            out["variables"] = dict(sorted(variables.items()))
        out["configuration"] = config_json(root, schemas)
        relevant = relevant_attributes(plan, root, schemas)
        if relevant:
            out["relevant_attributes"] = relevant
    if plan.checks:
        out["checks"] = plan.checks
    return {k: out[k] for k in ORDER if k in out} | {k: v for k, v in out.items() if k not in ORDER}
