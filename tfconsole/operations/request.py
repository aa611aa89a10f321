"""What an operation is asked to do, what it tells its caller while it runs, and what it returns.

The CLI and the console build an OperationRequest, pass it to one of the operations in this
package, and render the OperationResult; neither touches a state manager, a lock or a Context on
its own. Modelled on OpenTofu's backend.Operation / RunningOperation and the op.View the local
backend reports through (internal/backend/backend.go, internal/backend/local/backend_apply.go).
"""
from __future__ import annotations

from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any

from tfconsole.options import Options
from tfconsole.diags import Diagnostics


class OperationView:
    """How a running operation reports to the UI that started it. The defaults keep quiet and
    approve: the console reads everything from the result; the CLI prints as it goes."""

    def diagnostics(self, diags: Diagnostics, phase: str) -> None:
        """Diagnostics of one phase ("config", "lock", "state", "plan", "apply", "write", "edit"),
        as soon as that phase ends. The result carries them all too."""

    def lock_waiting(self) -> None:
        """The state is locked by someone else and this operation waits (-lock-timeout)."""

    def context_ready(self, ctx: Any) -> None:
        """The Context that will walk exists: the caller may keep it to cancel the walk."""

    def walk_started(self, ctx: Any) -> None:
        """A plan or apply walk begins (a signal handler may now cancel `ctx`)."""

    def walk_ended(self, ctx: Any) -> None:
        """The walk begun by walk_started is over."""

    def plan_ready(self, plan: Any) -> None:
        """A plan was made (plan, apply, destroy, refresh), before any confirmation."""

    def plan_failed(self, plan: Any) -> None:
        """A plan walk ended with errors; `plan` (possibly None) holds what it planned before
        them. Called before the errors reach diagnostics()."""

    def applying_saved_plan(self, plan: Any) -> None:
        """An earlier plan passed the stale-plan rule and is about to be applied."""

    def importing(self, addr: Any, import_id: str) -> None:
        """import: the provider is asked for the object with this id."""

    def confirm(self, plan: Any) -> bool:
        """A plan made by `apply` / `destroy` is ready; True applies it, False stops."""
        return True


@dataclass
class OperationRequest(Options):
    """One operation: the Context's options (where, which variables, parallelism, locking,
    which workspace) and what to do with them."""

    # plan settings
    destroy: bool = False
    refresh: bool = True
    refresh_only: bool = False
    targets: list[str] = field(default_factory=list)
    excludes: list[str] = field(default_factory=list)
    replace: list[str] = field(default_factory=list)
    generate_config_out: str = ""  # plan: write configuration for import targets without any here
    # apply: a plan made earlier (a plan file, or the one the console reviewed) and the Context
    # holding its configuration; None plans first
    plan: Any = None
    context: Any = None
    hooks: list[Any] = field(default_factory=list)
    view: OperationView = field(default_factory=OperationView)
    dry_run: bool = False


@dataclass
class OperationResult:
    """What an operation did. `failed_phase` names the phase that stopped it (None: it ran to
    the end); `report` holds the lines a state edit reports once its state is written."""

    diags: Diagnostics = field(default_factory=Diagnostics)
    plan: Any = None
    generated_config_file: str = ""  # plan -generate-config-out: the file written (none: "")
    generated_config_warnings: Diagnostics = field(default_factory=Diagnostics)
    state: Any = None
    context: Any = None
    cancelled: bool = False
    declined: bool = False
    failed_phase: str | None = None
    report: list[str] = field(default_factory=list)
    orphans: list[tuple[str, str]] = field(default_factory=list)  # (address, reason: why)

    @property
    def ok(self) -> bool:
        return self.failed_phase is None and not self.declined

    def fail(self, phase: str, diags: Diagnostics | None = None) -> "OperationResult":
        if diags is not None:
            self.diags.append(diags)
        self.failed_phase = phase
        return self
