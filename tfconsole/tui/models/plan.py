"""The plan review's model: which changes a filter and a search show, grouped by module and
resource in the order the plan lists them (textual-free)."""
from __future__ import annotations

from typing import Iterable

from tfconsole.plans import Action, ResourceInstanceChange

FILTERS = ["all", "create", "update", "delete", "replace", "import"]


def is_change(ch: ResourceInstanceChange) -> bool:
    """Whether the plan does something to this instance: an action, an import or a move (an
    import or a move alone is a no-op action, and Terraform still lists it as a change)."""
    return ch.action is not Action.NOOP or ch.importing is not None or \
        (ch.prev_run_addr is not None and ch.prev_run_addr != ch.addr)


def matches_filter(ch: ResourceInstanceChange, flt: str) -> bool:
    action = ch.action
    if flt == "all":
        return True
    if flt == "import":
        return ch.importing is not None
    if flt == "create":
        return action is Action.CREATE
    if flt == "update":
        return action is Action.UPDATE
    if flt == "delete":
        return action in (Action.DELETE, Action.FORGET)
    return action.is_replace


def visible_changes(changes: Iterable[ResourceInstanceChange], show_noop: bool, flt: str,
                    search: str) -> list[ResourceInstanceChange]:
    needle = search.lower()
    return [ch for ch in changes
            if (show_noop or is_change(ch)) and matches_filter(ch, flt)
            and (not needle or needle in ch.address.lower())]


def group_changes(changes: Iterable[ResourceInstanceChange]) -> dict[str, dict[str, list[ResourceInstanceChange]]]:
    """module path -> resource address -> its instances' changes."""
    modules: dict[str, dict[str, list[ResourceInstanceChange]]] = {}
    # the instances of a resource come one after another: its row's list is looked up once
    # per run of them, not once per instance (10,000 instances: two address strings each)
    last: tuple[object, object] | None = None
    bucket: list[ResourceInstanceChange] = []
    for ch in changes:
        addr = ch.addr
        key = (addr.module, addr.resource)
        if key != last:
            last = key
            bucket = modules.setdefault(str(addr.module), {}).setdefault(str(addr.abs_resource()), [])
        bucket.append(ch)
    return modules


def is_single_instance(changes: list[ResourceInstanceChange]) -> bool:
    """A resource whose only instance has no key is shown as one row, not a resource row
    holding a row of the same address."""
    return len(changes) == 1 and changes[0].addr.key is None and not changes[0].deposed
