"""The one rule for applying a saved or reviewed plan: only to the state snapshot it was made
from. The CLI (`apply PLANFILE`) and the console (apply after review) both call check_applicable
under the state lock, so the two can never disagree.

As Terraform (backend/local/backend_local.go): a plan made when there was no state yet carries
lineage "" and serial 0 and is compared by serial only; otherwise a different lineage means the
plan belongs to another state, and a different serial means the state changed since planning.
"""
from __future__ import annotations

from typing import Any

from tfconsole.diags import Diagnostics

from . import Plan, StateMeta

STALE_SUMMARY = "Saved plan is stale"
STALE_DETAIL = ("The given plan file can no longer be applied because the state was changed by another "
                "operation after the plan was created.")
MISMATCH_SUMMARY = "Saved plan does not match the given state"
MISMATCH_DETAIL = "The given plan file can not be applied because it was created from a different state lineage."


def state_meta(state: Any) -> StateMeta:
    """The snapshot identity of a state as loaded by a state manager. A state that was never
    written (serial 0: no state file) has no lineage yet."""
    if state is None or state.serial == 0:
        return StateMeta("", 0)
    return StateMeta(state.lineage, state.serial)


def check_applicable(plan: Plan, current: Any) -> Diagnostics:
    """Errors when `plan` may not be applied to `current` (the state loaded under the lock)."""
    diags = Diagnostics()
    planned = plan.prior_state_meta
    if planned is None:
        diags.error(STALE_SUMMARY, STALE_DETAIL + " (The plan does not record which state it was made from.)")
        return diags
    now = state_meta(current)
    first_plan = planned.lineage == "" and planned.serial == 0
    if not first_plan and planned.lineage != now.lineage:
        diags.error(MISMATCH_SUMMARY, MISMATCH_DETAIL)
    elif planned.serial != now.serial:
        diags.error(STALE_SUMMARY, STALE_DETAIL)
    return diags
