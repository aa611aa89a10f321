"""How the human CLI hears a running operation: Terraform's per-resource progress lines (a
walk hook) and the OperationView that prints diagnostics, the lock wait, the plan and the
approval prompt, and lets signals cancel the running walk. The JSON UI (jsonops.py) extends
the view; both talk to the CLI object (main.CLI) only through its out/diags/interrupts.
"""
from __future__ import annotations

import sys
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from tfconsole.diags import Diagnostics
from tfconsole.operations import OperationView
from tfconsole.walk.hooks import Hook

from .flags import Args

if TYPE_CHECKING:
    from .main import CLI


# how long a progress line may wait in the output buffer for the lines after it
FLUSH_DELAY = 0.05


# the progress lines' verbs, by action (made once: an apply prints two lines per instance)
_PRE_APPLY = {"create": "Creating...", "update": "Modifying...", "delete": "Destroying...",
              "read": "Reading..."}
_POST_APPLY = {"create": "Creation complete", "update": "Modifications complete",
               "delete": "Destruction complete", "read": "Read complete"}


class CLIHook(Hook):
    """Terraform's per-resource progress lines.

    Given the output stream, a worker thread only appends its line to a queue; the lines are
    written and flushed together at most FLUSH_DELAY seconds after the first of them, and
    whenever the CLI writes anything else (CLI.flush_progress), so the order on the terminal is
    the order of the calls. A flush per line made 20,000 lines 20,000 system calls, and a write
    per line under a lock made ten walker threads queue on it (a 1 % change plan of 2,000
    instances spent 10 % of its CPU there)."""

    def __init__(self, out: Callable[[str], None], stream: Any = None):
        self.out = out
        self.stream = stream
        self.lock = threading.Lock()
        self._flush_due = False
        self._reads: dict[str, float] = {}  # data source reads under way: when each started
        self._pending: deque[str] = deque()

    def _p(self, s: str) -> None:
        if self.stream is None:
            with self.lock:
                self.out(s)
            return
        self._pending.append(s)  # atomic under the GIL: worker threads never queue on a lock here
        if self._flush_due:
            return
        with self.lock:
            if self._flush_due:
                return
            self._flush_due = True
        timer = threading.Timer(FLUSH_DELAY, self.flush)
        timer.daemon = True
        timer.start()

    def flush(self, blocking: bool = True) -> None:
        """Write the pending lines, in the order they came, and flush the stream. Not blocking
        (a signal handler, which may have interrupted a flush on its own thread), it does
        nothing when another flush holds the lock."""
        if not self.lock.acquire(blocking):
            return
        try:
            # cleared before the lines are taken: a line appended after this point either is
            # taken below or finds the flag down and schedules the next flush
            self._flush_due = False
            pending = self._pending
            lines = [pending.popleft() for _ in range(len(pending))]
            if lines:
                self.stream.write("\n".join(lines) + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass  # a closed or broken stream: the command's next output reports it
        finally:
            self.lock.release()

    def pending(self) -> bool:
        return bool(self._pending)

    def pre_apply(self, addr: str, action: str, id_hint: str | None) -> None:
        hint = f" [{getattr(id_hint, 'key', 'id')}={id_hint}]" if id_hint and action != "create" else ""
        self._p(f"{addr}: {_PRE_APPLY.get(action, action)}{hint}")

    def post_apply(self, addr: str, action: str, elapsed: float, error: str | None, id_hint: str | None) -> None:
        if error:
            return
        hint = f" [{getattr(id_hint, 'key', 'id')}={id_hint}]" if id_hint and action != "delete" else ""
        self._p(f"{addr}: {_POST_APPLY.get(action, action)} after {int(elapsed)}s{hint}")

    def provision_output(self, addr: str, provisioner: str, line: str) -> None:
        self._p(f"{addr} ({provisioner}): {line}")

    def pre_plan_import(self, addr: str, import_id: str, identity: str | None = None) -> None:
        self._p(f"{addr}: Preparing import... [{_import_what(import_id, identity)}]")

    def pre_apply_import(self, addr: str, import_id: str, identity: str | None = None) -> None:
        self._p(f"{addr}: Importing... [{_import_what(import_id, identity)}]")

    def post_apply_import(self, addr: str, import_id: str, identity: str | None = None) -> None:
        self._p(f"{addr}: Import complete [{_import_what(import_id, identity)}]")
    def pre_ephemeral(self, addr: str, action: str) -> None:
        verb = {"open": "Opening...", "renew": "Renewing...", "close": "Closing..."}
        self._p(f"{addr}: {verb.get(action, action)}")

    def post_ephemeral(self, addr: str, action: str, elapsed: float, error: str | None) -> None:
        if error:
            return
        verb = {"open": "Opening complete", "renew": "Renewal complete", "close": "Closing complete"}
        self._p(f"{addr}: {verb.get(action, action)} after {int(elapsed)}s")

    def pre_provision(self, addr: str, provisioner: str) -> None:
        self._p(f"{addr}: Provisioning with '{provisioner}'...")

    def pre_refresh(self, addr: str, id_hint: str | None) -> None:
        if _is_data(addr):  # a data source read: Terraform reports it as an apply of "read"
            self._reads[addr] = time.monotonic()
            self._p(f"{addr}: Reading...")
        else:
            self._p(f"{addr}: Refreshing state...{f' [id={id_hint}]' if id_hint else ''}")

    def post_refresh(self, addr: str, id_hint: str | None = None) -> None:
        if _is_data(addr):
            started = self._reads.pop(addr, None)
            self.post_apply(addr, "read", time.monotonic() - started if started else 0.0, None, id_hint)


def _is_data(addr: str) -> bool:
    return addr.startswith("data.") or ".data." in addr


class CLIView(OperationView):
    """How an operation's progress reaches the terminal: diagnostics as each phase ends, the
    lock wait, the plan, the approval prompt, and signals cancelling the running walk.

    An apply that plans first keeps its plan's warnings (hold_plan_warnings) and reports them
    with the apply's own at the end, as Terraform does; release_held() reports them when the
    apply never ran."""

    def __init__(self, cli: "CLI", a: Args) -> None:
        self.cli = cli
        self.args = a
        self.ctx: Any = None
        self.answered_no = False
        self._interrupts: Any = None
        self.held: Diagnostics | None = None

    def hold_plan_warnings(self) -> None:
        """An apply that plans first: its plan's warnings come out with the apply's."""
        self.held = Diagnostics()

    def release_held(self) -> None:
        if self.held:
            self._show(self.held, "plan")
        self.held = None

    def context_ready(self, ctx: Any) -> None:
        self.ctx = ctx

    def diagnostics(self, diags: Diagnostics, phase: str) -> None:
        if self.held is not None and phase == "plan" and not diags.has_errors:
            self.held.extend(diags)
            return
        if self.held is not None and phase == "apply":
            diags, self.held = Diagnostics().extend(self.held).extend(diags), None
        self._show(diags, phase)

    def _show(self, diags: Diagnostics, phase: str) -> None:
        if not self.cli.files or phase == "config":
            if self.ctx is not None and self.ctx.config is not None:
                self.cli.files = {k: v for m in self.ctx.config.descendants() for k, v in m.files.items()}
            elif diags.has_errors:
                self.cli._collect_files_for_diags()  # the error may quote the backend block
        self.cli.diags(diags, warnings_to_stderr=(phase == "state"))

    def lock_waiting(self) -> None:
        self.cli.out("Acquiring state lock. This may take a few moments...")

    def walk_started(self, ctx: Any) -> None:
        if self.cli.program:
            # What is loaded by now (configuration, state, schemas) lives until the process
            # exits: frozen, the cyclic collector stops rescanning it (a 2,000-instance state
            # is 100,000 objects, 40 ms a scan). During the walk it would only scan the values
            # the walk keeps (it found 0-2,000 garbage objects of 100,000 on realistic plans
            # and applies), so it pauses until the walk ends. Only in the program itself.
            import gc

            gc.freeze()
            gc.disable()
        self._interrupts = self.cli.interrupts.operation(ctx)
        self._interrupts.__enter__()

    def walk_ended(self, ctx: Any) -> None:
        self.cli.flush_progress()  # the walk's progress lines, before anything printed after it
        if self.cli.program:
            import gc

            gc.freeze()  # the walk's results (plan, values) live on too: no scan when it resumes
            gc.enable()
        if self._interrupts is not None:
            self._interrupts.__exit__(None, None, None)
            self._interrupts = None

    def plan_ready(self, plan: Any) -> None:
        from .views import render_plan

        # the plan's last line, then straight on: Terraform's next words bring their own spacing
        self.cli.out(render_plan(plan).rstrip("\n"))

    def plan_failed(self, plan: Any) -> None:
        """Before the errors: the partial plan when it would change something (Terraform's best
        effort), else "Planning failed."; nothing when validation stopped it before planning."""
        from tfconsole.plans import Action

        from .views import render_plan

        if plan is not None and plan.validation_failed:
            return
        if plan is not None and any(c.action is not Action.NOOP for c in plan.changes):
            self.cli.out(render_plan(plan, errored=True).rstrip("\n"))
            return
        if self.held is not None and (plan is None or not plan.changes):
            return  # apply says it only over a plan that holds resources (Terraform's apply does so)
        self.cli.out("\nPlanning failed. tfconsole encountered an error while generating this plan.\n")

    def importing(self, addr: Any, import_id: str) -> None:
        self.cli.out(f"{addr}: Importing from ID \"{import_id}\"...")

    def approved_up_front(self) -> None:
        """No question will be asked: the plan's check block warnings are dropped, since the apply
        evaluates the checks again and reports their results (Terraform drops them too)."""
        if self.held is not None:
            self.held = Diagnostics([d for d in self.held if not d.from_check])

    def confirm(self, plan: Any) -> bool:
        if self.args.bool("auto-approve"):
            self.approved_up_front()
            return True
        if not sys.stdin.isatty():
            self.cli.stderr.write("╷\n│ Error: No value for required approval\n│\n│ Apply requires "
                                  "approval: pass -auto-approve when running without a terminal.\n╵\n")
            return False
        what = "destroy all remote objects managed by this configuration" if plan.destroy else \
            "perform the actions described above"
        self.release_held()  # the plan's warnings, to weigh before answering (Terraform shows them here)
        self.cli.out(f"\nDo you want to {what}?\n  Only 'yes' will be accepted to approve.\n")
        ans = input("  Enter a value: ")
        self.answered_no = ans.strip() != "yes"
        return not self.answered_no


def _import_what(import_id: str, identity: str | None) -> str:
    return f"identity={identity}" if identity is not None else f"id={import_id}"
