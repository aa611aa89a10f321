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

from tfconsole.backends import Overrides, register_backend
from tfconsole.diags import Diagnostics
from tfconsole.states.manager import StateManager

from .workspaces import *  # noqa: F401,F403 - Terraform's workspace texts, re-exported
from .workspaces import DEFAULT_WORKSPACE, WorkspaceBackend

DEFAULT_STATE_FILENAME = "terraform.tfstate"
DEFAULT_WORKSPACE_DIR = "terraform.tfstate.d"
DEFAULT_BACKUP_EXTENSION = ".backup"


# force-unlock (Terraform's texts)
LOCAL_UNLOCK_REFUSED = "Local state cannot be unlocked by another process"
LOCAL_NOT_LOCKED = "Failed to unlock state: LocalState not locked"


# ---- the backend

class LocalBackend(WorkspaceBackend):
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

    def _create_workspace(self, name: str) -> Diagnostics:
        os.makedirs(os.path.join(self.workspace_dir, name), exist_ok=True)
        return Diagnostics()

    def _remove_workspace(self, name: str) -> Diagnostics:
        diags = Diagnostics()
        try:
            import shutil  # only deleting a workspace needs it

            shutil.rmtree(os.path.join(self.workspace_dir, name))
        except OSError as exc:
            diags.error(f"error deleting workspace {name}: {exc}")
        return diags


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


register_backend("local", _from_block, {"path": "string", "workspace_dir": "string"})
