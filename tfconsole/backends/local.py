"""The local backend: state paths, workspaces and their state managers, as Terraform 1.15.

* default workspace: ``terraform.tfstate`` in the working dir, or ``backend "local" { path }``,
  or ``-state=PATH`` (which overrides every workspace's path, as Terraform does);
* other workspaces: ``<workspace_dir>/<name>/terraform.tfstate`` (``terraform.tfstate.d``);
* the current workspace is kept in ``<data_dir>/environment`` (``.terraform/environment``),
  no trailing newline; ``TF_WORKSPACE`` overrides it;
* the lock is Terraform's own (states/locking.py): both tools exclude each other.

Workspace operations return Diagnostics whose summary is the text Terraform prints (the
command layer prints errors to stderr and the *_message() texts to stdout).
"""
from __future__ import annotations

import os
import shutil
from typing import Iterable
from urllib.parse import quote

from tfconsole.backends import Overrides, register_backend
from tfconsole.diags import Diagnostics
from tfconsole.states.manager import StateManager

DEFAULT_WORKSPACE = "default"
DEFAULT_STATE_FILENAME = "terraform.tfstate"
DEFAULT_WORKSPACE_DIR = "terraform.tfstate.d"
DEFAULT_BACKUP_EXTENSION = ".backup"
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


# force-unlock (Terraform's texts)
LOCAL_UNLOCK_REFUSED = "Local state cannot be unlocked by another process"
LOCAL_NOT_LOCKED = "Failed to unlock state: LocalState not locked"


def valid_workspace_name(name: str) -> bool:
    """Terraform: non-empty and unchanged by Go's url.PathEscape (so no '/')."""
    return bool(name) and quote(name, safe="-_.~$&+,:;=@") == name


# ---- the backend

class LocalBackend:
    def __init__(self, working_dir: str = ".", *, path: str | None = None,
                 workspace_dir: str | None = None, state_path: str | None = None,
                 state_out_path: str | None = None, backup_path: str | None = None,
                 data_dir: str | None = None, env: dict[str, str] | None = None):
        """path/workspace_dir: the backend "local" block's settings (relative to working_dir);
        state_path/state_out_path/backup_path: the -state/-state-out/-backup overrides
        (backup "-" disables backups); data_dir: TF_DATA_DIR (default .terraform)."""
        self.working_dir = working_dir
        self.config_path = path
        self.config_workspace_dir = workspace_dir
        self.override_state = state_path
        self.override_state_out = state_out_path
        self.override_backup = backup_path
        self._env = env if env is not None else os.environ
        self.data_dir = data_dir or self._env.get("TF_DATA_DIR") or ".terraform"

    # ---- paths
    def _abs(self, p: str) -> str:
        # relative to "." stays as written: Terraform names the state "terraform.tfstate" in the
        # lock info and in messages, not "./terraform.tfstate"
        if os.path.isabs(p) or self.working_dir in ("", "."):
            return p
        return os.path.join(self.working_dir, p)

    @property
    def workspace_dir(self) -> str:
        return self._abs(self.config_workspace_dir or DEFAULT_WORKSPACE_DIR)

    def state_paths(self, name: str | None = None) -> tuple[str, str, str]:
        """(state in, state out, backup) for a workspace; backup "" when disabled."""
        name = name or DEFAULT_WORKSPACE
        is_default = name == DEFAULT_WORKSPACE
        state = self.override_state or ""
        if not state:
            if is_default:
                state = self.config_path or DEFAULT_STATE_FILENAME
            else:
                state = os.path.join(self.config_workspace_dir or DEFAULT_WORKSPACE_DIR, name,
                                     DEFAULT_STATE_FILENAME)
        out = self.override_state_out or state
        backup = self.override_backup or ""
        if backup == "-":
            backup = ""
        elif not backup:
            backup = out + DEFAULT_BACKUP_EXTENSION
        return self._abs(state), self._abs(out), (self._abs(backup) if backup else "")

    def state_path(self, name: str | None = None) -> str:
        return self.state_paths(name or self.current_workspace())[0]

    def state_manager(self, name: str | None = None, *, lock: bool = True,
                      lock_timeout: float = 0.0, operation: str = "OperationTypeApply") -> StateManager:
        name = name or self.current_workspace()
        if name != DEFAULT_WORKSPACE:
            os.makedirs(os.path.join(self.workspace_dir, name), exist_ok=True)
        sin, sout, backup = self.state_paths(name)
        return StateManager(sin, out_path=sout, backup_path=backup or "-", lock=lock,
                            lock_timeout=lock_timeout, operation=operation)

    def force_unlock(self, lock_id: str, *, force: bool = False) -> str | None:
        """`force-unlock LOCK_ID`: the error text to print, None when unlocked.

        As in Terraform, a local state lock is never removed by another process: it is an fcntl
        lock held by the kernel for a live holder and dropped when the holder exits (even on
        kill -9), so there is nothing a second process could, or should, take away. A lock-info
        file left behind by a killed holder blocks nobody and is replaced by the next holder."""
        del lock_id
        return LOCAL_NOT_LOCKED if force else LOCAL_UNLOCK_REFUSED

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
    def workspaces(self) -> list[str]:
        """"default" first, then the directories of the workspace dir, sorted."""
        out = [DEFAULT_WORKSPACE]
        try:
            entries = os.listdir(self.workspace_dir)
        except (FileNotFoundError, NotADirectoryError):
            return out
        out += sorted(e for e in entries if os.path.isdir(os.path.join(self.workspace_dir, e)))
        return out

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
        os.makedirs(os.path.join(self.workspace_dir, name), exist_ok=True)
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

    def workspace_instances(self, name: str) -> tuple[list[str], Diagnostics]:
        """Addresses of the resource instances (managed and data) tracked by a workspace."""
        from tfconsole.states.statefile import read_state

        sin = self.state_paths(name)[0]
        state, diags = read_state(self._as_path(sin))
        if state is None:
            return [], diags
        addrs: list[tuple] = []
        for addr, inst in state.all_instances():
            if not inst.is_empty():
                addrs.append(str(addr))
        return sorted(addrs), diags

    @staticmethod
    def _as_path(p: str):
        from pathlib import Path
        return Path(p)

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
            instances, rd = self.workspace_instances(name)
            if rd.has_errors and not force:
                diags.append(rd)
                return False, diags
            non_empty = bool(instances)
            if non_empty and not force:
                diags.error("Workspace is not empty", not_empty_detail(name, instances))
                return True, diags
        finally:
            mgr.unlock()
        try:
            shutil.rmtree(os.path.join(self.workspace_dir, name))
        except OSError as exc:
            diags.error(f"error deleting workspace {name}: {exc}")
        return non_empty, diags


# ---- the backend table's entry for `backend "local"`

def _from_block(working_dir: str, settings: dict, overrides: Overrides) -> tuple[LocalBackend | None, Diagnostics]:
    diags = Diagnostics()
    for name in ("path", "workspace_dir"):
        v = settings.get(name)
        if v is not None and not isinstance(v, str):
            diags.error("Invalid backend configuration", f"The local backend's \"{name}\" must be a string.")
    if diags.has_errors:
        return None, diags
    return LocalBackend(working_dir, path=settings.get("path"), workspace_dir=settings.get("workspace_dir"),
                        state_path=overrides.state_path), diags


register_backend("local", _from_block)
