"""Why a state instance has no place in the configuration: the one orphan-reason rule.

The plan graph (OrphanResourceTransformer for removed resources and modules, a resource's
expansion for removed count indexes, for_each keys and module instances) and the console's
orphans view (which knows only the configuration, not evaluated expansions) all ask
orphan_reason; a change of rule reaches every one of them. Terraform's reason codes are the
plan's (plans.REASON_*).
"""
from __future__ import annotations

from typing import Any

from tfconsole.addrs import AbsResourceInstance, InstanceKey
from tfconsole.plans import (
    REASON_COUNT_INDEX, REASON_EACH_KEY, REASON_NO_MODULE, REASON_NO_RESOURCE_CONFIG, REASON_WRONG_REPETITION,
)


def orphan_reason(key: InstanceKey, *, module_declared: bool, resource_declared: bool,
                  module_instance_live: bool = True, mode: str | None = None) -> str | None:
    """The delete reason of an instance with key `key` that its resource's expansion does not
    produce. `mode` is the expansion's repetition ("" none, "list" count, "map" for_each), None
    when unknown; with an unknown mode only a missing module or resource is a reason."""
    if not module_declared or not module_instance_live:
        return REASON_NO_MODULE
    if not resource_declared:
        return REASON_NO_RESOURCE_CONFIG
    if mode is None:
        return None
    if mode == "" or key is None or isinstance(key, int) != (mode == "list"):
        return REASON_WRONG_REPETITION
    return REASON_COUNT_INDEX if mode == "list" else REASON_EACH_KEY


def static_orphan_reason(addr: AbsResourceInstance, module_declared: bool, rc: Any) -> str | None:
    """orphan_reason judged from configuration alone: a key that does not fit the resource's
    count / for_each (or its absence) is an orphan; one that fits may be, but that needs the
    evaluated expansion (a plan) to know."""
    if not module_declared or rc is None:
        return orphan_reason(addr.key, module_declared=module_declared, resource_declared=rc is not None)
    mode = "list" if rc.count is not None else "map" if rc.for_each is not None else ""
    key = addr.key
    fits = (key is None and mode == "") or (isinstance(key, int) and mode == "list") or \
        (isinstance(key, str) and mode == "map")
    if fits:
        return None
    return orphan_reason(key, module_declared=True, resource_declared=True, mode=mode)


def describe_orphan(addr: AbsResourceInstance, reason: str) -> str:
    """The reason code followed by what it means for this instance."""
    key = addr.key
    shown = "" if key is None else f"[{key}]" if isinstance(key, int) else f"[\"{key}\"]"
    why = {
        REASON_NO_MODULE: f"module {addr.module} is not in the configuration",
        REASON_NO_RESOURCE_CONFIG: f"no resource block for {addr.resource}",
        REASON_COUNT_INDEX: f"index {shown} is beyond the resource's count",
        REASON_EACH_KEY: f"key {shown} is not in the resource's for_each",
    }.get(reason)
    if why is None:  # wrong repetition
        why = "the resource now uses count or for_each" if key is None else \
            f"instance key {shown} but no count" if isinstance(key, int) else f"instance key {shown} but no for_each"
    return f"{reason}: {why}"
