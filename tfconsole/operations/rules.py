"""The rules the CLI and the console share, each written once: taint / untaint, state rm,
state mv, state push, placing an imported object, and the orphans of a state.

Each edit is a pure function over a State that was loaded under the lock and is not shared
with anything else (no walk is running): it returns the report lines to show once the state is
written, and Diagnostics (Terraform's summaries and details). The runner (local.py) locks,
loads, calls the edit, writes and unlocks.
"""
from __future__ import annotations

from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any

from tfconsole.addrs import (
    AbsResource, AbsResourceInstance, AddressError, parse_instance, parse_target, target_contains,
)
from tfconsole.diags import Diagnostics
from tfconsole.graph.orphans import describe_orphan, static_orphan_reason
from tfconsole.states.state import ObjectState, State


@dataclass
class Edit:
    """What a state edit did: lines to report, and whether the state changed at all."""

    diags: Diagnostics = field(default_factory=Diagnostics)
    report: list[str] = field(default_factory=list)
    changed: bool = False


def _instance(text: str, diags: Diagnostics) -> AbsResourceInstance | None:
    try:
        return parse_instance(text)
    except AddressError as exc:
        diags.error("Invalid address", f"{text}: {exc}")
        return None


def set_status(state: State, addr_text: str, status: str, *, allow_missing: bool = False) -> Edit:
    """taint (status "tainted") and untaint (status "ready") of one resource instance."""
    e = Edit()
    addr = _instance(addr_text, e.diags)
    if addr is None:
        return e
    obj = state.current(addr)
    if obj is None and allow_missing:
        e.diags.warning("No such resource instance", f"Resource instance {addr} was not found, but this is not "
                        "an error because -allow-missing was set.")
        return e
    if obj is None:
        e.diags.error("No such resource instance", f"There is no resource instance in the state with the address "
                      f"{addr}. If the resource configuration has just been added, you must run \"terraform "
                      "apply\" first to create the object before tainting it.")
        return e
    if status == "ready" and obj.status != "tainted":
        e.diags.error("Resource instance is not tainted",
                      f"Resource instance {addr} is not currently tainted, and so it cannot be untainted.")
        return e
    obj.status = status
    e.changed = True
    e.report.append(f"Resource instance {addr} has been "
                    f"{'marked as tainted' if status == 'tainted' else 'successfully untainted'}.")
    return e


def remove(state: State, addr_texts: list[str], *, dry_run: bool = False) -> Edit:
    """state rm: forget every instance the addresses select, without destroying anything."""
    e = Edit()
    targets = []
    for text in addr_texts:
        try:
            targets.append(parse_target(text))
        except AddressError as exc:
            e.diags.error("Invalid address", f"Error parsing address {text}: {exc}")
            return e
    removed = 0
    for t in targets:
        for addr, _inst in list(state.all_instances()):
            if target_contains(t, addr) and state.current(addr) is not None:
                state.set_current(addr, None, state.resources[addr.abs_resource()].provider)
                e.report.append(f"{'Would remove' if dry_run else 'Removed'} {addr}")
                removed += 1
    if removed == 0:
        if dry_run:
            e.report.append("Would have removed nothing.")
            return e
        e.diags.error("Invalid target address", "No matching objects found. To view the available instances, use "
                      "\"terraform state list\". Please modify the address to reference a specific instance.")
        return e
    e.changed = True
    if not dry_run:
        e.report.append(f"Successfully removed {removed} resource instance(s).")
    return e


def move(state: State, src_text: str, dst_text: str, *, dry_run: bool = False) -> Edit:
    """state mv of a resource (all its instances) or of one instance."""
    e = Edit()
    try:
        src, dst = parse_target(src_text), parse_target(dst_text)
    except AddressError as exc:
        e.diags.error("Invalid address", f"Error parsing address: {exc}")
        return e
    if isinstance(src, AbsResource) and isinstance(dst, AbsResource):
        rs = state.resources.get(src)
        if rs is None:
            e.diags.error("Invalid source address", f"Cannot move {src}: does not match anything in the current "
                          "state.")
            return e
        if dst in state.resources:
            e.diags.error("Invalid target address", f"Cannot move to {dst}: there is already a resource at that "
                          "address in the current state.")
            return e
        del state.resources[src]
        rs.addr = dst
        state.resources[dst] = rs
    elif isinstance(src, (AbsResource, AbsResourceInstance)) and isinstance(dst, (AbsResource, AbsResourceInstance)):
        si = src if isinstance(src, AbsResourceInstance) else src.instance(None)
        di = dst if isinstance(dst, AbsResourceInstance) else dst.instance(None)
        obj = state.current(si)
        if obj is None:
            e.diags.error("Invalid source address", f"Cannot move {si}: does not match anything in the current "
                          "state.")
            return e
        if state.current(di) is not None:
            e.diags.error("Invalid target address", f"Cannot move to {di}: there is already a resource instance "
                          "at that address in the current state.")
            return e
        prov = state.resources[si.abs_resource()].provider
        state.set_current(si, None, prov)
        state.set_current(di, obj, prov)
    else:
        e.diags.error("Unsupported move", "Module moves are not supported by state mv yet; use a moved block.")
        return e
    e.changed = True
    e.report.append(f"Would move \"{src_text}\" to \"{dst_text}\"" if dry_run else
                    f"Move \"{src_text}\" to \"{dst_text}\"\nSuccessfully moved 1 object(s).")
    return e


def push(state: State, new: State, *, force: bool = False) -> Edit:
    """state push: replace the state's contents with another state of the same lineage (newer
    or equal serial), unless forced."""
    e = Edit()
    if not force and state.lineage and new.lineage != state.lineage and not state.is_empty():
        e.diags.error(f"Failed to write state: cannot import state with lineage {new.lineage!r} over unrelated "
                      f"state with lineage {state.lineage!r}")
        return e
    if not force and new.lineage == state.lineage and new.serial < state.serial:
        e.diags.error(f"Failed to write state: cannot import state with serial {new.serial} over newer state "
                      f"with serial {state.serial}")
        return e
    state.resources = new.resources
    state.outputs = new.outputs
    state.lineage = new.lineage
    e.changed = True
    return e


def place_imported(state: State, addr: AbsResourceInstance, obj: ObjectState, provider: str) -> Edit:
    """import: the object read from the provider becomes the instance's current object, unless
    the address already has one."""
    e = Edit()
    if state.current(addr) is not None:
        e.diags.error("Resource already managed by Terraform", f"Terraform is already managing a remote object for "
                      f"{addr}. To import to this address you must first remove the existing object from the "
                      "state.")
        return e
    state.set_current(addr, obj, provider)
    e.changed = True
    return e


def find_orphans(config: Any, state: State) -> list[tuple[str, str]]:
    """State instances the configuration no longer declares, each with Terraform's delete reason
    and why, judged from the configuration alone (no expression is evaluated)."""
    out: list[tuple[str, str]] = []
    for addr, inst in state.all_instances():
        if inst.current is None:
            continue
        mod = config.module_at(addr.module.module())
        rc = mod.resources.get(addr.resource) if mod is not None else None
        reason = static_orphan_reason(addr, mod is not None, rc)
        if reason is not None:
            out.append((str(addr), describe_orphan(addr, reason)))
    return out


def targeted_apply_warning() -> Diagnostics:
    """What Terraform says after applying a plan made with -target (or -exclude)."""
    d = Diagnostics()
    d.warning("Applied changes may be incomplete", "The plan was created with the -target option in effect, so "
              "some changes requested in the configuration may have been ignored and the output values may not "
              "be fully updated. Run the following command to verify that no other changes are pending:\n    "
              "terraform plan\n\nNote that the -target option is not suitable for routine use, and is "
              "provided only for exceptional situations such as recovering from errors or mistakes, or when "
              "Terraform specifically suggests to use it as part of an error message.")
    return d
