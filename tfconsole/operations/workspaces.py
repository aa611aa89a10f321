"""Workspace changes: list, new, select, delete, through whichever backend is configured.

Each backend decides what its workspaces are (local: directories; http: only "default"); the
operation opens the backend the root module configures and asks it.
"""
from __future__ import annotations

from typing import Any

from tfconsole.diags import Diagnostics

from .request import OperationRequest, OperationResult


def open_backend(req: OperationRequest) -> tuple[Any, Diagnostics]:
    """The configured backend (the root module's backend block, or local); an unusable one is
    reported, never silently replaced by local state."""
    from tfconsole.backends import UnavailableBackend

    from .local import new_context

    ctx = new_context(req)
    ctx.load_config()
    from tfconsole.backends import backend_for

    b = backend_for(ctx)
    ctx.close()
    if isinstance(b, UnavailableBackend):
        return None, Diagnostics().append(b.diags)
    return b, Diagnostics()


def _with_backend(req: OperationRequest, fn: Any) -> OperationResult:
    res = OperationResult()
    b, d = open_backend(req)
    if b is None:
        return res.fail("backend", d)
    return fn(b, res)


def workspace_list(req: OperationRequest) -> OperationResult:
    """report = the workspace names; state = the current one's name."""
    def run(b: Any, res: OperationResult) -> OperationResult:
        d = b.check_workspaces() if hasattr(b, "check_workspaces") else Diagnostics()
        if d.has_errors:  # http: only the default workspace, and Terraform says so
            return res.fail("workspace", d)
        res.report = list(b.workspaces())
        res.state = b.current_workspace()
        return res
    return _with_backend(req, run)


def workspace_current(req: OperationRequest) -> OperationResult:
    """state = the current workspace's name (every backend has one, even those that cannot list
    workspaces)."""
    def run(b: Any, res: OperationResult) -> OperationResult:
        res.state = b.current_workspace()
        return res
    return _with_backend(req, run)


def workspace_new(req: OperationRequest, name: str) -> OperationResult:
    return _with_backend(req, lambda b, res: res.fail("workspace", d) if (d := b.new_workspace(name)).has_errors
                         else res)


def workspace_select(req: OperationRequest, name: str, *, or_create: bool = False) -> OperationResult:
    """report = ["created"] when -or-create made it."""
    def run(b: Any, res: OperationResult) -> OperationResult:
        created, d = b.select_workspace(name, or_create=or_create)
        if d.has_errors:
            return res.fail("workspace", d)
        res.report = ["created"] if created else []
        return res
    return _with_backend(req, run)


def workspace_delete(req: OperationRequest, name: str, *, force: bool = False) -> OperationResult:
    """report = ["non-empty"] when the deleted workspace still tracked objects (-force)."""
    def run(b: Any, res: OperationResult) -> OperationResult:
        non_empty, d = b.delete_workspace(name, force=force)
        if d.has_errors:
            return res.fail("workspace", d)
        res.report = ["non-empty"] if non_empty else []
        return res
    return _with_backend(req, run)
