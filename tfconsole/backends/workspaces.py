"""Workspaces as every backend has them: the current workspace (``.terraform/environment``,
``TF_WORKSPACE``), and `workspace new / select / delete` with Terraform's checks and texts.

A backend subclasses WorkspaceBackend and supplies where workspaces live: workspaces(),
_create_workspace(name), _remove_workspace(name) and state_manager(name, ...). Workspace
operations return Diagnostics whose summary is the text Terraform prints (the command layer
prints errors to stderr and the *_message() texts to stdout).
"""
from __future__ import annotations

import os
from typing import Any, Iterable, Mapping

from tfconsole.diags import Diagnostics

DEFAULT_WORKSPACE = "default"
ENV_FILE = "environment"
WORKSPACE_ENV = "TF_WORKSPACE"


# ---- Terraform's texts

def created_message(name: str) -> str:
    return (f'Created and switched to workspace "{name}"!\n\n'
            "You're now on a new, empty workspace. Workspaces isolate their state,\n"
            'so if you run "terraform plan" Terraform will not see any existing state\n'
            "for this configuration.\n")


def switched_message(name: str) -> str:
    return f'Switched to workspace "{name}".\n'


def deleted_message(name: str, was_non_empty: bool = False) -> str:
    s = f'Deleted workspace "{name}"!\n'
    if was_non_empty:
        s += (f'WARNING: "{name}" was non-empty.\n'
              "The resources managed by the deleted workspace may still exist,\n"
              "but are no longer manageable by Terraform since the state has\n"
              "been deleted.\n\n")
    return s


def list_message(workspaces: Iterable[str], current: str) -> str:
    lines = [("* " if w == current else "  ") + w for w in workspaces]
    return "\n".join(lines) + "\n\n"


def invalid_name_message(name: str) -> str:
    return (f'\nThe workspace name "{name}" is not allowed. The name must contain only URL safe\n'
            "characters, contain no path separators, and not be an empty string.\n")


def doesnt_exist_message(name: str) -> str:
    return (f'Workspace "{name}" doesn\'t exist.\n\n'
            'You can create this workspace with the "new" subcommand \n'
            'or include the "-or-create" flag with the "select" subcommand.')


def already_exists_message(name: str) -> str:
    return f'Workspace "{name}" already exists'


def delete_current_message(name: str) -> str:
    return (f'Workspace "{name}" is your active workspace.\n\n'
            "You cannot delete the currently active workspace. Please switch\n"
            "to another workspace and try again.")


DELETE_DEFAULT_MESSAGE = "Cannot delete the default workspace"

ENV_OVERRIDDEN_MESSAGE = (
    "\nThe selected workspace is currently overridden using the TF_WORKSPACE\n"
    "environment variable.\n\n"
    "To select a new workspace, either update this environment variable or unset\n"
    "it and then run this command again.\n")

INVALID_ENV_WORKSPACE = "Error selecting workspace: Invalid workspace name set using TF_WORKSPACE"


def not_empty_detail(name: str, instances: Iterable[str]) -> str:
    listed = "".join(f"  - {a}\n" for a in instances)
    return (f'Workspace "{name}" is currently tracking the following resource instances:\n'
            f"{listed}\n"
            "Deleting this workspace would cause Terraform to lose track of any associated\n"
            "remote objects, which would then require you to delete them manually outside\n"
            "of Terraform. You should destroy these objects with Terraform before deleting\n"
            "the workspace.\n\n"
            "If you want to delete this workspace anyway, and have Terraform forget about\n"
            "these managed objects, use the -force option to disable this safety check.")


def valid_workspace_name(name: str) -> bool:
    """Terraform: non-empty and unchanged by Go's url.PathEscape (so no '/')."""
    from urllib.parse import quote  # here: urllib.parse (and ipaddress) cost a plan 2 ms

    return bool(name) and quote(name, safe="-_.~$&+,:;=@") == name


class WorkspaceBackend:
    """The workspace logic shared by every backend (see the module docstring)."""

    working_dir: str = "."
    data_dir: str = ".terraform"
    _env: Mapping[str, str] = os.environ

    def _abs(self, p: str) -> str:
        # relative to "." stays as written: Terraform names the state "terraform.tfstate" in the
        # lock info and in messages, not "./terraform.tfstate"
        if os.path.isabs(p) or self.working_dir in ("", "."):
            return p
        return os.path.join(self.working_dir, p)

    def check_workspaces(self) -> Diagnostics:
        """Errors when the backend cannot list workspaces (http: it has only the default one)."""
        return Diagnostics()

    # ---- what a backend supplies
    def workspaces(self) -> list[str]:
        raise NotImplementedError

    def state_manager(self, name: str | None = None, **kw: Any) -> Any:
        raise NotImplementedError

    def _create_workspace(self, name: str) -> Diagnostics:
        raise NotImplementedError

    def _remove_workspace(self, name: str) -> Diagnostics:
        raise NotImplementedError

    # ---- current workspace
    @property
    def environment_file(self) -> str:
        return os.path.join(self._abs(self.data_dir), ENV_FILE)

    def env_override(self) -> str | None:
        v = self._env.get(WORKSPACE_ENV)
        return v if v else None

    def current_workspace(self) -> str:
        v = self.env_override()
        if v:
            return v
        try:
            with open(self.environment_file, encoding="utf-8") as f:
                name = f.read().strip()
        except OSError:
            return DEFAULT_WORKSPACE
        return name or DEFAULT_WORKSPACE

    def check_env_workspace(self) -> Diagnostics:
        diags = Diagnostics()
        v = self.env_override()
        if v and not valid_workspace_name(v):
            diags.error(INVALID_ENV_WORKSPACE)
        return diags

    def set_current_workspace(self, name: str) -> None:
        os.makedirs(self._abs(self.data_dir), exist_ok=True)
        with open(self.environment_file, "w", encoding="utf-8") as f:
            f.write(name)

    # ---- workspaces
    def new_workspace(self, name: str, *, select: bool = True) -> Diagnostics:
        diags = Diagnostics()
        if self.env_override():
            diags.error(ENV_OVERRIDDEN_MESSAGE)
            return diags
        if not valid_workspace_name(name):
            diags.error(invalid_name_message(name))
            return diags
        if name in self.workspaces():
            diags.error(already_exists_message(name))
            return diags
        d = self._create_workspace(name)
        if d.has_errors:
            return diags.append(d)
        if select:
            self.set_current_workspace(name)
        return diags

    def select_workspace(self, name: str, *, or_create: bool = False) -> tuple[bool, Diagnostics]:
        """Returns (created, diags)."""
        diags = Diagnostics()
        if self.env_override():
            diags.error(ENV_OVERRIDDEN_MESSAGE)
            return False, diags
        if not valid_workspace_name(name):
            diags.error(invalid_name_message(name))
            return False, diags
        if name not in self.workspaces():
            if not or_create:
                diags.error("\n" + doesnt_exist_message(name))
                return False, diags
            diags.append(self.new_workspace(name))
            return not diags.has_errors, diags
        self.set_current_workspace(name)
        return False, diags

    def workspace_instances(self, name: str, mgr: Any = None) -> tuple[list[str], Diagnostics]:
        """Addresses of the resource instances (managed and data) tracked by a workspace."""
        mgr = mgr or self.state_manager(name, lock=False)
        state, diags = mgr.load()
        if state is None:
            return [], diags
        return sorted(str(addr) for addr, inst in state.all_instances() if not inst.is_empty()), diags

    def delete_workspace(self, name: str, *, force: bool = False,
                         lock: bool = True, lock_timeout: float = 0.0) -> tuple[bool, Diagnostics]:
        """Returns (was_non_empty, diags). Mirrors `terraform workspace delete [-force]`."""
        diags = Diagnostics()
        if not valid_workspace_name(name):
            diags.error(invalid_name_message(name))
            return False, diags
        if name not in self.workspaces():
            diags.error(doesnt_exist_message(name))
            return False, diags
        if name == self.current_workspace():
            diags.error(delete_current_message(name))
            return False, diags
        if name == DEFAULT_WORKSPACE:
            diags.error(DELETE_DEFAULT_MESSAGE)
            return False, diags
        mgr = self.state_manager(name, lock=lock, lock_timeout=lock_timeout,
                                 operation="OperationTypeInvalid")
        ld = mgr.lock()
        if ld.has_errors:
            diags.append(ld)
            return False, diags
        try:
            instances, rd = self.workspace_instances(name, mgr)
            if rd.has_errors and not force:
                diags.append(rd)
                return False, diags
            non_empty = bool(instances)
            if non_empty and not force:
                diags.error("Workspace is not empty", not_empty_detail(name, instances))
                return True, diags
        finally:
            mgr.unlock()
        diags.append(self._remove_workspace(name))
        return non_empty, diags


__all__ = [
    "DEFAULT_WORKSPACE", "ENV_FILE", "WORKSPACE_ENV", "WorkspaceBackend", "created_message", "switched_message",
    "deleted_message", "list_message", "invalid_name_message", "doesnt_exist_message", "already_exists_message",
    "delete_current_message", "DELETE_DEFAULT_MESSAGE", "ENV_OVERRIDDEN_MESSAGE", "INVALID_ENV_WORKSPACE",
    "not_empty_detail", "valid_workspace_name",
]
