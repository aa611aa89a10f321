"""The operations layer: plan, apply, destroy, refresh, import, the state edits and the
workspace changes, each written once, called by the CLI (command/main.py) and the console
(tui/operations.py) alike.

A caller builds an OperationRequest, optionally with an OperationView to hear about progress,
and renders the OperationResult. The operations reach state only through the configured
backend's state manager, so every backend registered in backends.BACKENDS runs them.
"""
from __future__ import annotations

from .imports import import_resource
from .local import (
    apply, destroy, edit_state, load_configuration, new_context, orphans, plan, read_state, refresh, state_mv,
    state_push, state_rm, taint, untaint,
)
from .request import OperationRequest, OperationResult, OperationView
from .rules import find_orphans
from .workspaces import (
    open_backend, workspace_current, workspace_delete, workspace_list, workspace_new, workspace_select,
)

__all__ = [
    "OperationRequest", "OperationResult", "OperationView", "apply", "destroy", "edit_state", "find_orphans",
    "import_resource", "load_configuration", "new_context", "open_backend", "orphans", "plan", "read_state",
    "refresh", "state_mv", "state_push", "state_rm", "taint", "untaint", "workspace_current", "workspace_delete",
    "workspace_list",
    "workspace_new", "workspace_select",
]
