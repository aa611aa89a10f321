"""`init`'s backend step: record the configured backend, and move state between backends
(`-migrate-state`, `-force-copy`) or drop the old one (`-reconfigure`), as Terraform 1.15 does.

Migration copies every workspace that holds a state, each as it is (same lineage, serial,
resources and outputs), holding both backends' locks. A target workspace that already holds a
different state is not overwritten unless -force-copy is given. A backend with only the default
workspace (http) takes only the current workspace, and only with -force-copy: Terraform asks
for that confirmation, and tfconsole never prompts.
"""
from __future__ import annotations

import os
from typing import Any

from tfconsole.diags import Diagnostics

from . import BACKENDS, Overrides, block_settings
from .config import config_hash, parse_overrides, read_saved, schema_of, write_saved
from .workspaces import DEFAULT_WORKSPACE

CHANGED_SUMMARY = "Backend configuration changed"
CHANGED_DETAIL = (
    "A change in the backend configuration has been detected, which may require migrating existing state.\n\n"
    "If you wish to attempt automatic migration of the state, use \"terraform init -migrate-state\".\n"
    "If you wish to store the current configuration with no changes to the state, use \"terraform init "
    "-reconfigure\".")


def configured_message(kind: str) -> str:
    return (f"\nSuccessfully configured the backend \"{kind}\"! Terraform will automatically\n"
            "use this backend unless the backend configuration changes.")


def multi_to_single_detail(src: str, dst: str, current: str) -> str:
    return (f"The existing \"{src}\" backend supports workspaces and you currently are using more than one. "
            f"The newly configured \"{dst}\" backend doesn't support workspaces. If you continue, Terraform will "
            f"copy your current workspace \"{current}\" to the default workspace in the new backend. Your existing "
            "workspaces in the source backend won't be modified.\n\ntfconsole does not ask: run init again with "
            "-force-copy to copy the current workspace only.")


def supports_workspaces(backend: Any) -> bool:
    from .http import HttpBackend
    return not isinstance(backend, HttpBackend)


def _normal(kind: str, config: dict[str, Any]) -> dict[str, Any]:
    from .config import _jsonable
    return {n: _jsonable(config.get(n)) for n in schema_of(kind)}


def init_backend(root: Any, working_dir: str, backend_config: list[str], *, reconfigure: bool = False,
                 migrate: bool = False, force_copy: bool = False) -> tuple[str, Diagnostics]:
    """Returns (message for stdout, diagnostics)."""
    diags = Diagnostics()
    kind, body = root.backend if root is not None and root.backend is not None else ("local", None)
    block, d = block_settings(kind, body)
    overrides, d2 = parse_overrides(backend_config, kind)
    diags.append(d).append(d2)
    if diags.has_errors:
        return "", diags
    config = {**block, **{k: v for k, v in overrides.items() if v is not None}}
    new, d = BACKENDS[kind](working_dir, config, Overrides())
    diags.append(d)
    if new is None or diags.has_errors:
        return "", diags
    saved, d = read_saved(working_dir)
    if d.has_errors and not reconfigure:
        return "", diags.append(d)
    explicit = root is not None and root.backend is not None
    old_kind, old_config = ("local", {}) if saved is None or reconfigure else (
        saved["type"], {k: v for k, v in saved["config"].items() if v is not None})
    unchanged = old_kind == kind and _normal(kind, old_config) == _normal(kind, config)
    message = ""
    if not unchanged and not reconfigure:
        old, d = BACKENDS[old_kind](working_dir, old_config, Overrides())
        if old is None:
            return "", diags.append(d)
        holding = _workspaces_with_state(old, diags)
        if diags.has_errors:
            return "", diags
        if holding and not (migrate or force_copy):
            if saved is None:
                return "", diags.error(CHANGED_SUMMARY, f"The working directory has state in the local backend "
                                       f"({', '.join(holding)}), and the configuration now uses the \"{kind}\" "
                                       "backend.\n\n" + CHANGED_DETAIL)
            return "", diags.error(CHANGED_SUMMARY, CHANGED_DETAIL)
        if holding:
            diags.append(migrate_states(old, new, holding, old_kind, kind, force_copy))
            if diags.has_errors:
                return "", diags
    if explicit or saved is not None:
        write_saved(working_dir, kind if explicit else None, config, block)
    if explicit and not unchanged:
        message = configured_message(kind)
    return message, diags


def _workspaces_with_state(backend: Any, diags: Diagnostics) -> list[str]:
    out = []
    for name in backend.workspaces():
        mgr = backend.state_manager(name, lock=False)
        try:
            state, d = mgr.load()
        finally:
            mgr.close()
        diags.append(d)
        if state is not None and (state.serial or list(state.all_instances()) or state.outputs):
            out.append(name)
    return out


def migrate_states(old: Any, new: Any, names: list[str], old_kind: str, new_kind: str, force: bool) -> Diagnostics:
    diags = Diagnostics()
    pairs = [(n, n) for n in names]
    if not supports_workspaces(new) and (len(names) > 1 or names != [DEFAULT_WORKSPACE]):
        current = old.current_workspace()
        if len(names) > 1 and not force:
            return diags.error(f"Destination backend \"{new_kind}\" doesn't support workspaces",
                               multi_to_single_detail(old_kind, new_kind, current))
        pairs = [(current, DEFAULT_WORKSPACE)]
    for src_name, dst_name in pairs:
        diags.append(_copy_one(old, new, src_name, dst_name, force))
        if diags.has_errors:
            return diags
    if not supports_workspaces(new):
        _select_default(new)
    return diags


def _copy_one(old: Any, new: Any, src_name: str, dst_name: str, force: bool) -> Diagnostics:
    from tfconsole.states.statefile import state_body, state_header, terraform_version

    diags = Diagnostics()
    src = old.state_manager(src_name, lock=True, operation="OperationTypeInvalid")
    dst = new.state_manager(dst_name, lock=True, operation="OperationTypeInvalid")
    try:
        for mgr in (src, dst):
            diags.append(mgr.lock())
            if diags.has_errors:
                return diags
        state, d = src.load()
        diags.append(d)
        target, d = dst.load()
        diags.append(d)
        if diags.has_errors or state is None:
            return diags
        if (target is not None and list(target.all_instances()) and target.lineage != state.lineage
                and not force):
            return diags.error("Error migrating the workspace",
                               f"The workspace \"{dst_name}\" of the new backend already holds a different state "
                               f"(lineage {target.lineage}). tfconsole does not overwrite it: run init with "
                               "-force-copy to replace it with the workspace's previous state.")
        text = state_header(state.terraform_version or terraform_version(), state.serial, state.lineage)
        diags.append(dst.write_raw(text + state_body(state)))
    finally:
        src.close()
        dst.close()
    return diags


def _select_default(backend: Any) -> None:
    path = getattr(backend, "environment_file", None)
    if path and os.path.exists(path):
        try:
            os.unlink(path)
        except OSError:
            pass


__all__ = ["init_backend", "migrate_states", "config_hash"]
