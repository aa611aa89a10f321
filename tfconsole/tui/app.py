"""The operations console: plan review, live apply, graph, state and orphans in one Textual app.

The app observes the engine only through the hook bridge (bridge.py) and the plain results of
operations.py, which run on thread workers. Handlers here run on the event loop and are the only
code that touches widgets. Layout lives in app.tcss.
"""
from __future__ import annotations

import gc
from collections import deque
import json
import os
import re
import time
from typing import Any, Iterable

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Input, Static
from textual.worker import Worker, WorkerState

from tfconsole.diags import Diagnostics
from tfconsole.plans import Action, Plan, ResourceInstanceChange

from . import operations as ops
from .bridge import HookBridge
from .messages import VertexBatch, VertexUpdate, WalkFinished, WalkStarted
from .screens import ConfirmScreen, HelpScreen
from .widgets.diagnostics import diagnostic_text
from .widgets import ConsoleTree, DiagnosticsPane, KeyBar, NodeInfo, StatusBar, TreeNode

ACTION_STYLE = {
    Action.CREATE: "green", Action.UPDATE: "yellow", Action.DELETE: "red",
    Action.DELETE_THEN_CREATE: "magenta", Action.CREATE_THEN_DELETE: "magenta",
    Action.READ: "cyan", Action.FORGET: "red", Action.NOOP: "dim",
}
FILTERS = ["all", "create", "update", "delete", "replace"]
STATUS_STYLE = {"waiting": "dim", "queued": "cyan", "running": "bold yellow", "done": "green",
                "failed": "bold red", "skipped": "dim red"}
_VERTEX_SUFFIX = re.compile(r" \([a-z][a-z -]*\)$")
# a resource with more instances than this starts closed in the plan and state trees: its row
# shows the counts (and the live progress during an apply); enter or right opens it
COLLAPSE_ABOVE = 50
_DIFF_STYLE = {"+": "green", "-": "red", "~": "yellow", "-/+": "magenta", "+/-": "magenta", "<=": "cyan"}


def _matches_filter(action: Action, flt: str) -> bool:
    if flt == "all":
        return True
    if flt == "create":
        return action is Action.CREATE
    if flt == "update":
        return action is Action.UPDATE
    if flt == "delete":
        return action in (Action.DELETE, Action.FORGET)
    return action.is_replace


def _counts_text(changes: Iterable[ResourceInstanceChange]) -> Text:
    counts: dict[Action, int] = {}
    for c in changes:
        counts[c.action] = counts.get(c.action, 0) + 1
    t = Text()
    for action in (Action.CREATE, Action.UPDATE, Action.DELETE_THEN_CREATE, Action.CREATE_THEN_DELETE,
                   Action.DELETE, Action.READ, Action.FORGET, Action.NOOP):
        n = counts.get(action)
        if n:
            sym = action.symbol.strip() or "="
            t.append(f" {sym}{n}", style=ACTION_STYLE[action])
    return t


def diff_text(text: str) -> Text:
    """Colour Terraform's diff text by each line's leading action symbol."""
    out = Text()
    for i, line in enumerate(text.splitlines()):
        if i:
            out.append("\n")
        body = line.lstrip()
        style = ""
        if body.startswith("#"):
            style = "bold"
        else:
            for sym in ("-/+", "+/-", "<=", "+", "-", "~"):
                if body.startswith(sym + " "):
                    style = _DIFF_STYLE[sym]
                    break
        out.append(line, style=style)
    return out


def _fmt_seconds(s: float) -> str:
    return f"{s * 1000:.0f}ms" if s < 1 else f"{s:.1f}s"


class ConsoleApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "tfconsole"

    BINDINGS = [
        Binding("p", "plan", "Plan"),
        Binding("a", "apply", "Apply"),
        Binding("x", "cancel_op", "Cancel"),
        Binding("t", "plan_targets", "Target"),
        Binding("e", "plan_excludes", "Exclude"),
        Binding("r", "reveal", "Reveal"),
        Binding("T", "taint", "Taint"),
        Binding("U", "untaint", "Untaint"),
        Binding("D", "orphan_destroy", "Destroy"),
        Binding("F", "orphan_forget", "Forget"),
        Binding("g", "graph", "Graph"),
        Binding("s", "state", "State"),
        Binding("o", "orphans", "Orphans"),
        Binding("W", "next_workspace", "Workspace", show=False),
        Binding("greater_than_sign", "next_running", "Next running", show=False),
        Binding("exclamation_mark", "next_failed", "Next failed", show=False),
        Binding("equals_sign", "toggle_follow", "Follow", show=False),
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit_app", "Quit"),
        # Terraform users stop an apply with ctrl+c: the first press cancels as Terraform's first
        # interrupt does, a second one stops at once (Terraform's second interrupt)
        Binding("ctrl+c", "interrupt", "Interrupt", show=False, priority=True),
        Binding("d", "destroy", "Destroy all", show=False),
        Binding("c", "clear_marks", "Clear marks", show=False),
        Binding("n", "toggle_noop", "No-ops", show=False),
        Binding("f", "cycle_filter", "Filter", show=False),
        Binding("slash", "search", "Search", show=False),
        Binding("escape", "back", "Back", show=False),
        Binding("colon", "command_line", "Command", show=False),
    ]

    view: reactive[str] = reactive("plan")
    show_noop: reactive[bool] = reactive(False)
    action_filter: reactive[str] = reactive("all")
    search: reactive[str] = reactive("")
    reveal: reactive[bool] = reactive(False)
    busy: reactive[bool] = reactive(False)

    def __init__(self, working_dir: str = ".", parallelism: int = 10) -> None:
        super().__init__()
        self.working_dir = os.path.abspath(working_dir)
        self.parallelism = max(1, parallelism)
        self.bridge = HookBridge(self)
        self.plan: Plan | None = None
        self.plan_ctx: Any = None  # the Context that made self.plan; apply reuses it
        self.plan_applied = False
        self.op_ctx: Any = None  # the running operation's Context, for x (cancel)
        self.op_name = ""
        self.marks: set[str] = set()
        self.files: dict[str, str] = {}
        self.vertices: dict[str, VertexUpdate] = {}
        self.walk_operation = ""
        self.expansions: dict[str, list[str]] = {}
        self.expansion_edges: dict[str, list[tuple[str, str]]] = {}
        self.instance_status: dict[str, VertexUpdate] = {}
        self.instance_nodes: dict[str, TreeNode] = {}
        self.status_counts: dict[str, int] = {}  # walk vertices by status, kept incrementally
        self.group_progress: dict[str, dict[str, int]] = {}  # plan module/resource -> instances by status
        self.running: set[str] = set()  # instance addresses running now (their rows show elapsed time)
        self._interrupted = False  # ctrl+c pressed once during the running operation
        self.follow = False  # during an apply, the cursor follows the newest running instance
        self.instance_diags: dict[str, list[Any]] = {}  # instance address -> the last apply's diagnostics
        self._decoded: dict[tuple[str, int], dict[str, Any]] = {}  # state view: decoded instances
        self._schema_session: Any = None  # providers.registry.ProviderSession for the state view's schemas
        self.provider_status: dict[str, str] = {}  # provider plugin address -> started/configured/failed/crashed
        self.provider_logs: dict[str, deque[str]] = {}  # instance (or provider) address -> its provider's lines
        # instance address -> the counters of its resource and module rows, for every instance of
        # the plan being applied (shown or filtered out: live status never depends on the filter)
        self._groups_of: dict[str, list[dict[str, int]]] = {}
        self._group_totals: dict[str, int] = {}  # "resource:ADDR" / "module:PATH" -> instances in the plan
        self._graph_cache: tuple[Any, dict[str, str | None]] | None = None
        self._graph_tree_of: dict[str, str | None] | None = None  # what the graph tree shows
        self._detail_status: VertexUpdate | None = None  # the status the detail pane shows
        self._vertex_addr: dict[str, str] = {}  # walk vertex name -> instance address (memo)
        self._gc_thresholds: tuple[int, int, int] | None = None  # saved while an operation runs
        self.state_outcome: ops.StateOutcome | None = None
        self.graph_info: ops.GraphInfo | None = None
        self.graph_focus = ""
        self.summary_line = "Press p to plan, ? for help."

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        yield Static(self.summary_line, id="summary")
        with Horizontal(id="main"):
            with ContentSwitcher(initial="plan-tree", id="views"):
                yield ConsoleTree("plan", id="plan-tree")
                yield ConsoleTree("state", id="state-tree")
                yield ConsoleTree("orphans", id="orphans-tree")
                yield ConsoleTree("graph", id="graph-tree")
            with VerticalScroll(id="detail"):
                yield Static("", id="detail-body")
        yield DiagnosticsPane(id="diagnostics")
        yield Input(placeholder="search addresses (enter keeps, esc clears)", id="search")
        yield Input(placeholder="plan | apply | destroy | state | orphans | graph ADDR | workspace [new] NAME | quit",
                    id="cmdline")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self.theme = "nord"
        self._tree("plan").decorate = self._plan_decoration
        status = self.query_one(StatusBar)
        status.parallelism = self.parallelism
        self._show_workdir()
        self.query_one("#detail", VerticalScroll).border_title = "Detail"
        self.query_one("#views", ContentSwitcher).border_title = "Plan"
        self.query_one("#diagnostics", DiagnosticsPane).show([], {})
        self.query_one("#plan-tree", ConsoleTree).focus()
        self.set_interval(0.5, self._tick)

    async def on_event(self, event: events.Event) -> None:
        # input priority: while a walk runs, it pauses briefly at its next hook call so that
        # this key is handled and painted without competing for the GIL (see bridge.py)
        if isinstance(event, events.Key) and self.busy:
            self.bridge.hold()
        await super().on_event(event)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        # Textual's own entries, except those ours replace: its "Keys" (ours lists every key) and
        # its "Quit" (ours asks during an apply)
        for cmd in super().get_system_commands(screen):
            if cmd.title not in ("Keys", "Quit"):
                yield cmd
        for title, help_text, action in self.PALETTE:
            yield SystemCommand(title, help_text, getattr(self, f"action_{action}"))

    # every console action, by name, for the command palette (the key in brackets)
    PALETTE = [
        ("Plan", "Plan the configuration (p)", "plan"),
        ("Apply", "Apply the reviewed plan (a)", "apply"),
        ("Destroy", "Plan a destroy and confirm it (d)", "destroy"),
        ("Cancel operation", "Stop the running plan or apply (x, ctrl+c)", "cancel_op"),
        ("Target marked", "Re-plan with the marked rows as -target (t)", "plan_targets"),
        ("Exclude marked", "Re-plan with the marked rows as -exclude (e)", "plan_excludes"),
        ("Clear marks", "Unmark every row (c)", "clear_marks"),
        ("Filter by action", "Cycle all / create / update / delete / replace (f)", "cycle_filter"),
        ("No-ops", "Show or hide instances with no change (n)", "toggle_noop"),
        ("Search", "Search addresses in the plan (/)", "search"),
        ("State", "Browse the state (s)", "state"),
        ("Reveal sensitive values", "Show or hide sensitive values in the state view (r)", "reveal"),
        ("Taint", "Mark the selected state instance for replacement (T)", "taint"),
        ("Untaint", "Clear the tainted mark of the selected instance (U)", "untaint"),
        ("Orphans", "State instances without configuration (o)", "orphans"),
        ("Destroy orphans", "Plan the destruction of the marked orphans (D)", "orphan_destroy"),
        ("Forget orphans", "Remove the marked orphans from state (F)", "orphan_forget"),
        ("Graph", "Dependencies of the selected vertex (g)", "graph"),
        ("Next workspace", "Switch to the next workspace (W)", "next_workspace"),
        ("Command line", "Type a command: plan, apply, target ADDR... (:)", "command_line"),
        ("Next running", "Jump to the next running instance (>)", "next_running"),
        ("Next failed", "Jump to the next failed instance (!)", "next_failed"),
        ("Follow the apply", "Keep the cursor on the newest running instance (=)", "toggle_follow"),
        ("Keys", "Every key binding (?)", "help"),
        ("Quit", "Quit tfconsole (q; asks first during an apply)", "quit_app"),
    ]

    # bindings that only make sense in one view (hidden from the footer elsewhere)
    VIEW_ACTIONS = {
        "plan_targets": ("plan",), "plan_excludes": ("plan",), "reveal": ("state",), "taint": ("state",),
        "untaint": ("state",), "orphan_destroy": ("orphans",), "orphan_forget": ("orphans",),
    }

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_op" and not self.busy:
            return False
        views = self.VIEW_ACTIONS.get(action)
        if views is not None and self.view not in views:
            return False
        return True

    # ------------------------------------------------------------------ small helpers
    @property
    def diagnostics_pane(self) -> DiagnosticsPane:
        return self.query_one("#diagnostics", DiagnosticsPane)

    def _tree(self, name: str) -> ConsoleTree:
        return self.query_one(f"#{name}-tree", ConsoleTree)

    def _set_summary(self, text: str | Text) -> None:
        self.summary_line = text.plain if isinstance(text, Text) else text
        self.query_one("#summary", Static).update(text)

    def _show_diags(self, diags: Diagnostics, files: dict[str, str] | None = None) -> None:
        if files is not None:
            self.files = files
        self.diagnostics_pane.show(list(diags), self.files)

    def _set_detail(self, content: str | Text) -> None:
        self.query_one("#detail-body", Static).update(content)

    def _guard_idle(self) -> bool:
        if self.busy:
            self.notify(f"{self.op_name} is running; press x to cancel it.", severity="warning")
            return False
        return True

    def watch_busy(self, busy: bool) -> None:
        self.refresh_bindings()
        self._freeze_heap(busy)

    def _freeze_heap(self, freeze: bool) -> None:
        """No full garbage collection while an operation runs.

        A 10,000-instance plan, its state and the trees are millions of objects; a full
        collection triggered by the walker's allocations walks all of them while holding the
        GIL and stalls the event loop for up to a second (measured with
        benchmarks/tui_latency.py). While busy the oldest generation's threshold is raised out
        of reach, so only the young generations are collected (as usual, milliseconds each);
        the usual thresholds come back when the operation ends."""
        if freeze and self._gc_thresholds is None:
            self._gc_thresholds = gc.get_threshold()
            t0, t1, _t2 = self._gc_thresholds
            gc.set_threshold(t0, t1, 1 << 30)
        elif not freeze and self._gc_thresholds is not None:
            gc.set_threshold(*self._gc_thresholds)
            self._gc_thresholds = None

    def on_unmount(self) -> None:
        self._freeze_heap(False)

    def _start_op(self, name: str) -> None:
        self.busy = True
        self._interrupted = False
        self.op_name = name
        self.op_ctx = None
        self.query_one(StatusBar).operation = f"{name}…"
        self.diagnostics_pane.clear_log()

    def _set_op_ctx(self, ctx: Any) -> None:
        # called on the worker thread before the walk starts: a plain attribute, no widgets
        self.op_ctx = ctx

    # ------------------------------------------------------------------ operations
    def action_plan(self) -> None:
        self._plan()

    def action_destroy(self) -> None:
        self._plan(destroy=True)

    def action_plan_targets(self) -> None:
        if not self.marks:
            self.notify("Mark instances, resources or modules with space first.")
            return
        self._plan(targets=sorted(self.marks))

    def action_plan_excludes(self) -> None:
        if not self.marks:
            self.notify("Mark instances, resources or modules with space first.")
            return
        self._plan(excludes=sorted(self.marks))

    def _plan(self, destroy: bool = False, targets: list[str] | None = None,
              excludes: list[str] | None = None) -> None:
        if not self._guard_idle():
            return
        self._start_op("destroy plan" if destroy else "plan")
        self._set_summary("Planning…")
        self.view = "plan"
        self.run_plan(destroy, targets or [], excludes or [])

    @work(thread=True, exclusive=True, group="op", name="plan", description="plan")
    def run_plan(self, destroy: bool, targets: list[str], excludes: list[str]) -> ops.PlanOutcome:
        return ops.plan(self.working_dir, self.parallelism, [self.bridge], destroy=destroy,
                        targets=targets, excludes=excludes, on_context=self._set_op_ctx)

    def action_apply(self) -> None:
        if not self._guard_idle():
            return
        plan = self.plan
        if plan is None or plan.errored or self.plan_applied:
            self.notify("Nothing to apply: press p to plan first.", severity="warning")
            return
        if not plan.has_changes():
            self.notify("No changes. Your infrastructure matches the configuration.")
            return
        self._confirm_apply(plan)

    def _confirm_apply(self, plan: Plan) -> None:
        add, change, destroy = plan.summary()
        lines = [plan.summary_line(), ""]
        if plan.destroy:
            title = "Destroy all remote objects managed by this configuration?"
        else:
            title = "Apply the reviewed plan?"
        if plan.targets:
            lines.append("Targets: " + ", ".join(plan.targets))
        if plan.excludes:
            lines.append("Excluded: " + ", ".join(plan.excludes))
        lines.append(f"{add} to add, {change} to change, {destroy} to destroy; exactly these actions.")

        def done(ok: bool | None) -> None:
            if ok:
                self._start_apply(plan)
            else:
                self.notify("Apply cancelled.")

        # destroying or replacing anything asks for "yes" typed out, as Terraform does
        dangerous = plan.destroy or destroy > 0
        self.push_screen(ConfirmScreen(title, "\n".join(lines), danger=dangerous, typed=dangerous), done)

    def _start_apply(self, plan: Plan) -> None:
        if not self._guard_idle():
            return
        self._start_op("destroy" if plan.destroy else "apply")
        self.op_ctx = self.plan_ctx
        self._reset_progress()
        self._set_summary("Applying…" if not plan.destroy else "Destroying…")
        self.view = "plan"
        self.run_apply(self.plan_ctx, plan)

    @work(thread=True, exclusive=True, group="op", name="apply", description="apply")
    def run_apply(self, ctx: Any, plan: Plan) -> ops.ApplyOutcome:
        return ops.apply(ctx, plan)

    def action_cancel_op(self) -> None:
        if not self.busy:
            self.notify("No operation is running.")
            return
        if self.op_ctx is not None:
            self.op_ctx.cancel()
        self.query_one(StatusBar).operation = f"{self.op_name}: cancelling…"
        self.notify("Cancelling: in-flight work finishes, state is saved.")

    # ------------------------------------------------------------------ worker results
    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group not in ("op", "read"):
            return
        if event.state == WorkerState.ERROR:
            d = Diagnostics()
            d.error(f"Internal error in {worker.name}", f"{type(worker.error).__name__}: {worker.error}")
            self._show_diags(d)
            self._op_finished(f"{worker.name} failed: see diagnostics")
        elif event.state == WorkerState.CANCELLED:
            self._op_finished(f"{worker.name} cancelled")
        elif event.state == WorkerState.SUCCESS:
            handler = getattr(self, f"_{worker.name}_done", None)
            if handler is not None:
                handler(worker.result)

    def _op_finished(self, status: str) -> None:
        if self.busy and self.op_name:
            self.busy = False
        self.op_ctx = None
        self.query_one(StatusBar).operation = status
        self._refresh_counts()

    def _plan_done(self, out: ops.PlanOutcome) -> None:
        self._show_diags(out.diags, out.files)
        self._op_finished("plan done" if out.plan is not None else "plan failed")
        if out.plan is None:
            if out.ctx.config is None:
                self._set_summary(Text("The configuration is not valid: see diagnostics.", style="bold red"))
            else:
                self._set_summary(Text("Planning failed: see diagnostics.", style="bold red"))
            return
        self.plan = out.plan
        self.plan_ctx = out.ctx
        self.plan_applied = False
        self._reset_progress()
        self.graph_info = None
        if out.ctx.last_graph is not None:
            self.graph_info = ops.graph_info(out.ctx.last_graph, kind="plan")
        self._rebuild_plan_tree()
        if out.plan.has_changes():
            self._set_summary(self._summary_text(out.plan.summary_line()))
        else:
            self._set_summary("No changes. Your infrastructure matches the configuration.")
        if out.destroy and out.plan.has_changes():
            self._confirm_apply(out.plan)

    def _reset_progress(self) -> None:
        self.instance_diags = {}
        self.instance_status.clear()
        self.group_progress.clear()
        self._groups_of.clear()
        self._group_totals.clear()
        self.running.clear()
        for ch in self.plan.changes if self.plan is not None else []:
            if ch.action is Action.NOOP:  # nothing to apply: no status to count
                continue
            keys = (f"resource:{ch.addr.abs_resource()}", f"module:{ch.addr.module}")
            self._groups_of[ch.address] = [self.group_progress.setdefault(k, {}) for k in keys]
            for k in keys:
                self._group_totals[k] = self._group_totals.get(k, 0) + 1
        self._tree("plan").refresh()

    def _summary_text(self, line: str) -> Text:
        t = Text(line, style="bold")
        if self.plan is not None and (self.plan.targets or self.plan.excludes):
            t.append("  (targeted)" if self.plan.targets else "  (with exclusions)", style="yellow")
        return t

    def _apply_done(self, out: ops.ApplyOutcome) -> None:
        self._show_diags(out.diags)
        self.instance_diags = {}
        for d in out.diags:  # each instance's own diagnostics go to its detail pane
            if d.address:
                self.instance_diags.setdefault(_VERTEX_SUFFIX.sub("", d.address), []).append(d)
        self.plan_applied = True
        if out.graph is not None:
            self.graph_info = out.graph
        add, change, destroy = out.plan.summary()
        if out.cancelled:
            line = Text("Apply cancelled: completed changes were saved to the state.", style="bold yellow")
        elif out.diags.has_errors and not out.applied:
            line = Text("Apply refused: see diagnostics. Nothing was applied.", style="bold red")
        elif out.diags.has_errors:
            line = Text("Apply failed: see diagnostics. Completed changes were saved to the state.",
                        style="bold red")
        elif out.plan.destroy:
            line = Text(f"Destroy complete! Resources: {destroy} destroyed.", style="bold green")
        else:
            line = Text(f"Apply complete! Resources: {add} added, {change} changed, {destroy} destroyed.",
                        style="bold green")
        self._set_summary(line)
        verb = "destroy" if out.plan.destroy else "apply"
        self._op_finished(f"{verb} cancelled" if out.cancelled else
                          f"{verb} failed" if out.diags.has_errors else f"{verb} done")
        self.running.clear()
        self._tree("plan").refresh()
        self.state_outcome = None
        failed = next((self.instance_nodes[a] for a in self.instance_diags if a in self.instance_nodes), None)
        if failed is not None and self.view == "plan":  # a failure is shown, not buried in the log pane
            self._tree("plan").move_cursor(failed)
            self._set_detail(self._detail_for(failed.data))

    def _state_done(self, out: ops.StateOutcome) -> None:
        self.state_outcome = out
        if out.diags.has_errors or self.view != "plan":
            self._show_diags(out.diags, out.files)
        self._rebuild_state_tree()
        self._rebuild_orphans_tree()

    def _graph_done(self, result: tuple[ops.GraphInfo | None, Diagnostics]) -> None:
        info, diags = result
        if diags.has_errors:
            self._show_diags(diags)
        if info is not None:
            self.graph_info = info
        self._rebuild_graph_tree()

    def _edit_done(self, diags: Diagnostics) -> None:
        self._show_diags(diags)
        if not diags.has_errors:
            self.notify("State updated.")
        self.load_state_view()

    # ------------------------------------------------------------------ hook bridge messages
    # Work per message is proportional to the batch, never to the size of the walk: counters are
    # kept incrementally and the plan tree repaints only its visible rows (decorations are
    # computed when a row is rendered).
    @on(WalkStarted)
    def _walk_started(self, msg: WalkStarted) -> None:
        self.vertices = {}
        self.walk_operation = msg.operation
        if msg.operation == "plan":
            self.expansions = {}
            self.expansion_edges = {}
            self._graph_cache = None
        now = time.monotonic()
        for name in msg.names:
            self.vertices[name] = VertexUpdate(name, "waiting", now)
        self.status_counts = {"waiting": len(self.vertices)}
        self._refresh_counts()

    @on(VertexBatch)
    def _vertex_batch(self, msg: VertexBatch) -> None:
        counts = self.status_counts
        touched = False
        for upd in msg.updates:
            old = self.vertices.get(upd.name)
            if old is not None:
                counts[old.status] = counts.get(old.status, 1) - 1
            counts[upd.status] = counts.get(upd.status, 0) + 1
            self.vertices[upd.name] = upd
            if self.walk_operation == "apply":
                addr = self._vertex_addr.get(upd.name)
                if addr is None:
                    # instance vertices carry the action ("x.y[0] (create)"); a bare name is the
                    # resource-level vertex, which for a single instance has the same address
                    stripped = _VERTEX_SUFFIX.sub("", upd.name)
                    addr = self._vertex_addr[upd.name] = stripped if stripped != upd.name else ""
                if addr in self._groups_of:  # an instance of the plan, shown or filtered out
                    self._set_instance_status(addr, upd)
                    touched = True
        if msg.provider_status or msg.provider_logs:
            self._provider_news(msg)
        if msg.expansions:
            self.expansions.update(msg.expansions)
            self.expansion_edges.update(msg.expansion_edges)
            self._graph_cache = None
        if touched and self.follow and self.running and self.view == "plan":
            newest = max(self.running, key=lambda a: self.instance_status[a].at)
            self._jump_to(newest)
        with self.batch_update():
            if touched:
                self._tree("plan").refresh()
                self._refresh_plan_detail()
            self._refresh_counts()
            if msg.log:
                self.diagnostics_pane.add_log(msg.log)

    # ---- following an apply
    def action_next_running(self) -> None:
        self._jump_next(lambda a: a in self.running, "No instance is running.")

    def action_next_failed(self) -> None:
        self._jump_next(lambda a: (u := self.instance_status.get(a)) is not None and u.status == "failed",
                        "No instance has failed.")

    def action_toggle_follow(self) -> None:
        self.follow = not self.follow
        self.notify("Following the newest running instance." if self.follow else "Not following.")

    def _jump_next(self, wanted: Any, none: str) -> None:
        """The cursor to the next instance row (after the cursor, wrapping) that is wanted."""
        if self.view != "plan":
            self.view = "plan"
        order = list(self.instance_nodes)
        node = self._tree("plan").cursor_node
        at = order.index(node.data.addr) if node is not None and node.data and node.data.addr in order else -1
        for addr in order[at + 1:] + order[:at + 1]:
            if wanted(addr):
                self._jump_to(addr)
                return
        self.notify(none)

    def _jump_to(self, addr: str) -> None:
        node = self.instance_nodes.get(addr)
        if node is None:
            return
        if node.parent is not None and not node.parent.is_expanded:
            node.parent.expand()
        self._tree("plan").move_cursor(node)
        self._set_detail(self._detail_for(node.data))

    PROVIDER_LOG_LINES = 500  # kept per instance; the detail pane shows the newest

    def _provider_news(self, msg: VertexBatch) -> None:
        """Provider plugins' status and log lines; the detail pane follows if it shows one."""
        self.provider_status.update(msg.provider_status)
        for key, lines in msg.provider_logs.items():
            self.provider_logs.setdefault(key, deque(maxlen=self.PROVIDER_LOG_LINES)).extend(lines)
        node = self._tree(self.view).cursor_node
        if node is not None and node.data is not None and (
                node.data.addr in msg.provider_logs or node.data.addr in msg.provider_status
                or _VERTEX_SUFFIX.sub("", node.data.addr) in msg.provider_logs):
            self._set_detail(self._detail_for(node.data))

    def _provider_text(self, addr: str, body: Text, lines: int = 40) -> None:
        """A provider plugin's status (for a provider address) and the newest log lines it wrote
        while working on addr."""
        status = self.provider_status.get(addr)
        if status is not None:
            body.append(f"\n\nplugin: {status}", style="red" if status in ("failed", "crashed") else "green")
        log = self.provider_logs.get(addr)
        if log:
            body.append(f"\n\nprovider log ({len(log)} line{'s' if len(log) != 1 else ''}):", style="bold")
            for line in list(log)[-lines:]:
                body.append(f"\n  {line}", style="dim")

    def _set_instance_status(self, addr: str, upd: VertexUpdate) -> None:
        old = self.instance_status.get(addr)
        self.instance_status[addr] = upd
        if upd.status == "running":
            self.running.add(addr)
        else:
            self.running.discard(addr)
        for progress in self._groups_of[addr]:  # the resource's and the module's counters (their rows)
            if old is not None:
                progress[old.status] = progress.get(old.status, 1) - 1
            progress[upd.status] = progress.get(upd.status, 0) + 1

    def _refresh_plan_detail(self) -> None:
        """The detail pane shows the selected instance's live status: re-render it if it changed."""
        if self.view != "plan":
            return
        node = self._tree("plan").cursor_node
        if node is not None and node.data is not None and node.data.kind == "instance":
            upd = self.instance_status.get(node.data.addr)
            if upd is not None and upd is not self._detail_status:
                self._detail_status = upd
                self._set_detail(self._detail_for(node.data))

    @on(WalkFinished)
    def _walk_finished(self, msg: WalkFinished) -> None:
        self._refresh_counts()

    def _refresh_counts(self) -> None:
        status = self.query_one(StatusBar)
        status.total = len(self.vertices)
        status.done = self.status_counts.get("done", 0)
        status.running = self.status_counts.get("running", 0)

    def _tick(self) -> None:
        """Running vertices show a live elapsed time: repaint the visible rows if any runs."""
        if self.busy and self.running:
            self._tree("plan").refresh()

    # ------------------------------------------------------------------ the plan tree
    def _visible_changes(self) -> list[ResourceInstanceChange]:
        if self.plan is None:
            return []
        needle = self.search.lower()
        out = []
        for ch in self.plan.changes:
            if ch.action is Action.NOOP and not self.show_noop:
                continue
            if not _matches_filter(ch.action, self.action_filter):
                continue
            if needle and needle not in ch.address.lower():
                continue
            out.append(ch)
        return out

    def _rebuild_plan_tree(self) -> None:
        tree = self._tree("plan")
        cursor = tree.cursor_node.data.addr if tree.cursor_node and tree.cursor_node.data else None
        tree.clear()
        self.instance_nodes = {}
        changes = self._visible_changes()
        modules: dict[str, dict[str, list[ResourceInstanceChange]]] = {}
        for ch in changes:
            addr = ch.addr
            modules.setdefault(str(addr.module), {}).setdefault(str(addr.abs_resource()), []).append(ch)
        target_line = None
        with self.batch_update():
            for mod, resources in modules.items():
                mod_changes = [c for rs in resources.values() for c in rs]
                minfo = NodeInfo("module", mod, mod_changes)
                mnode = tree.root.add(self._label(minfo), minfo, expand=True)
                for raddr, rchanges in resources.items():
                    rinfo = NodeInfo("resource", raddr, rchanges)
                    rnode = mnode.add(self._label(rinfo), rinfo, expand=len(rchanges) <= COLLAPSE_ABOVE)
                    for ch in rchanges:
                        address = ch.address
                        info = NodeInfo("instance", address, ch)
                        self.instance_nodes[address] = rnode.add_leaf(self._lazy_label(info), info)
            self._update_plan_title(len(changes))
        if cursor and cursor in self.instance_nodes:
            target_line = self.instance_nodes[cursor]
        elif self.instance_nodes:
            target_line = next(iter(self.instance_nodes.values()))
            if target_line.parent is not None and not target_line.parent.is_expanded:
                target_line = target_line.parent  # a closed resource stays closed
        if target_line is not None:
            self.call_after_refresh(tree.move_cursor, target_line)
        elif not changes:
            self._set_detail(Text("No changes to show." if self.plan else "Press p to plan.", style="dim"))

    def _update_plan_title(self, shown: int) -> None:
        parts = ["Plan"]
        if self.plan is not None:
            total = len([c for c in self.plan.changes if self.show_noop or c.action is not Action.NOOP])
            parts.append(f"{shown}/{total}")
        if self.action_filter != "all":
            parts.append(f"filter:{self.action_filter}")
        if self.search:
            parts.append(f"/{self.search}")
        if not self.show_noop:
            parts.append("no-ops hidden")
        if self.marks:
            parts.append(f"{len(self.marks)} marked")
        self.query_one("#views", ContentSwitcher).border_title = " · ".join(parts)

    def _label(self, info: NodeInfo) -> Text:
        t = Text()
        t.append("●" if info.addr in self.marks else " ", style="bold cyan")
        if info.kind == "module":
            t.append(" " + (info.addr or "root module"), style="bold")
            t.append_text(_counts_text(info.payload))
        elif info.kind == "resource":
            t.append(" " + str(info.payload[0].addr.resource))
            t.append_text(_counts_text(info.payload))
        else:
            ch: ResourceInstanceChange = info.payload
            style = ACTION_STYLE[ch.action]
            t.append(f"{ch.action.symbol:>3} ", style=style)
            # under its resource node a keyed instance needs only its key
            t.append(_key_text(ch.addr.key) if ch.addr.key is not None else str(ch.addr.resource), style=style)
            if ch.deposed:
                t.append(f" (deposed {ch.deposed})", style="dim")
        return t

    def _lazy_label(self, info: NodeInfo) -> Any:
        """A label made when its row is first shown (10,000 rows, a screenful of labels)."""
        return lambda: self._label(info)

    def _plan_decoration(self, node: TreeNode) -> Text | None:
        """Live status after a plan row, computed when the row is rendered (visible rows only)."""
        info = node.data
        if info is None:
            return None
        if info.kind == "instance":
            upd = self.instance_status.get(info.addr)
            if upd is None:
                return None
            return Text("  " + self._status_text(upd), style=STATUS_STYLE.get(upd.status, ""))
        progress = self.group_progress.get(f"{info.kind}:{info.addr}")
        if not progress:
            return None
        t = Text("  ")
        total = self._group_totals.get(f"{info.kind}:{info.addr}", len(info.payload))
        t.append(f"{progress.get('done', 0)}/{total} done", style=STATUS_STYLE["done"])
        for status in ("running", "failed", "skipped"):
            if progress.get(status):
                t.append(f", {progress[status]} {status}", style=STATUS_STYLE[status])
        return t

    def _status_text(self, upd: VertexUpdate) -> str:
        if upd.status == "running":
            return f"running {_fmt_seconds(time.monotonic() - upd.at)}"
        if upd.status in ("done", "failed") and upd.elapsed is not None:
            return f"{upd.status} {_fmt_seconds(upd.elapsed)}"
        return upd.status

    def watch_show_noop(self) -> None:
        self._rebuild_plan_tree()

    def watch_action_filter(self) -> None:
        self._rebuild_plan_tree()

    def watch_search(self) -> None:
        self._rebuild_plan_tree()

    def action_toggle_noop(self) -> None:
        self.show_noop = not self.show_noop
        self.notify("No-ops shown." if self.show_noop else "No-ops hidden.")

    def action_cycle_filter(self) -> None:
        self.action_filter = FILTERS[(FILTERS.index(self.action_filter) + 1) % len(FILTERS)]
        self.notify(f"Filter: {self.action_filter}")

    def action_search(self) -> None:
        if self.view != "plan":
            self.view = "plan"
        box = self.query_one("#search", Input)
        box.add_class("visible")
        box.value = self.search
        box.focus()

    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        self.search = event.value

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.input.remove_class("visible")
        self._tree("plan").focus()

    # ------------------------------------------------------------------ marks
    @on(ConsoleTree.MarkRequested)
    def _mark(self, msg: ConsoleTree.MarkRequested) -> None:
        info = msg.info
        if info.kind not in ("module", "resource", "instance", "orphan"):
            return
        if info.kind == "module" and not info.addr:
            self.notify("The root module cannot be a target; mark its resources instead.")
            return
        if info.addr in self.marks:
            self.marks.discard(info.addr)
        else:
            self.marks.add(info.addr)
        node = msg.tree.cursor_node
        if node is not None and node.data is info:
            if msg.tree.id == "orphans-tree":
                node.set_label(self._orphan_label(info))
            else:
                node.set_label(self._label(info))
        self._update_plan_title(len(self._visible_changes()))

    def action_clear_marks(self) -> None:
        self.marks.clear()
        self._rebuild_plan_tree()
        self._rebuild_orphans_tree()

    # ------------------------------------------------------------------ detail pane
    @on(ConsoleTree.NodeHighlighted)
    def _highlighted(self, event: ConsoleTree.NodeHighlighted) -> None:
        info = event.node.data
        if info is None:
            return
        self._set_detail(self._detail_for(info))

    def _detail_for(self, info: NodeInfo) -> Text:
        if info.kind == "instance":
            ch: ResourceInstanceChange = info.payload
            from tfconsole.command.views import render_change

            try:
                body = diff_text(render_change(ch))
            except Exception as exc:  # noqa: BLE001 - a renderer bug must not take the console down
                body = Text(f"{ch.address}: cannot render this change ({exc})", style="red")
            upd = self.instance_status.get(info.addr)
            if upd is not None:
                body.append("\n\n")
                body.append(f"{self.walk_operation or 'apply'}: {self._status_text(upd)}",
                            style=STATUS_STYLE.get(upd.status, ""))
                if upd.detail:
                    body.append(f"\n{upd.detail}")
            for d in self.instance_diags.get(info.addr, []):
                body.append("\n\n")
                body.append_text(diagnostic_text(d, self.files))
            self._provider_text(info.addr, body)
            return body
        if info.kind in ("module", "resource"):
            t = Text(info.addr or "root module", style="bold")
            t.append_text(_counts_text(info.payload))
            t.append(f"\n\n{len(info.payload)} instance(s) shown.")
            t.append("\nspace marks it; t re-plans with marks as targets, e as exclusions.", style="dim")
            return t
        if info.kind in ("state-module", "state-resource", "state-instance", "attribute"):
            return self._state_detail(info)
        if info.kind == "orphan":
            from tfconsole.addrs import parse_instance
            from tfconsole.command.views import reason_text

            t = Text(info.addr, style="bold red")
            code, _, note = str(info.payload).partition(":")  # "REASON" or "REASON: where it comes from"
            try:
                why = reason_text(code, parse_instance(info.addr)) or code
            except Exception:  # noqa: BLE001 - an address the parser refuses: the reason as it is
                why = code
            if note.strip():
                why += f"\n{note.strip()}"
            t.append(f"\n\n{why}\n\n")
            t.append("D plans its destruction and asks for yes; F forgets it (state rm) after y.\n"
                     "space marks several.", style="dim")
            return t
        if info.kind == "vertex":
            return self._vertex_detail(info.addr)
        return Text(info.addr)

    # ------------------------------------------------------------------ views
    def watch_view(self, view: str) -> None:
        if view != "state" and self.reveal:  # revealed secrets stay in the state view
            self.reveal = False
            if self.state_outcome is not None:
                self._rebuild_state_tree()
        self.refresh_bindings()
        self.query_one("#views", ContentSwitcher).current = f"{view}-tree"
        self.query_one(StatusBar).view = view
        titles = {"state": "State", "orphans": "Orphans", "graph": "Graph"}
        if view == "plan":
            self._update_plan_title(len(self._visible_changes()))
        elif view == "state":
            self._state_title()
        else:
            self.query_one("#views", ContentSwitcher).border_title = titles[view]
        tree = self._tree(view)
        tree.focus()
        node = tree.cursor_node
        if node is not None and node.data is not None:
            self._set_detail(self._detail_for(node.data))
        else:
            self._set_detail("")

    def action_back(self) -> None:
        for box_id in ("#cmdline", "#search"):
            box = self.query_one(box_id, Input)
            if box.has_class("visible"):
                box.remove_class("visible")
                if box_id == "#search":
                    box.value = ""
                    self.search = ""
                self._tree(self.view).focus()
                return
        self.view = "plan"

    # ------------------------------------------------------------------ workspaces
    def _backend(self) -> Any:
        from tfconsole.backends import backend_for
        from tfconsole.core import Context, Options

        return backend_for(Context(Options(working_dir=self.working_dir)))  # local, http or pg, as configured

    def _show_workdir(self) -> None:
        name = os.path.basename(self.working_dir.rstrip(os.sep)) or self.working_dir
        try:
            ws = self._backend().current_workspace()
        except Exception:  # noqa: BLE001 - a broken .terraform dir only hides the name
            ws = "default"
        self.query_one(StatusBar).workdir = name if ws == "default" else f"{name} · workspace {ws}"

    def switch_workspace(self, name: str, create: bool = False) -> None:
        """Select (or create and select) a workspace; the reviewed plan belongs to the old one."""
        if self.busy:
            self.notify("An operation is running; cancel it (x) before switching workspace.", severity="warning")
            return
        backend = self._backend()
        if create:
            d = backend.new_workspace(name)
        else:
            _, d = backend.select_workspace(name)
        if d.has_errors:
            self.notify("; ".join(x.summary for x in d.errors()), severity="error")
            return
        self.plan = None
        self.plan_ctx = None
        self.state_outcome = None
        self.graph_info = None
        self._reset_progress()
        self._rebuild_plan_tree()  # the old workspace's plan leaves the screen with it
        self._set_summary(f"Workspace {name}: press p to plan.")
        self._show_workdir()
        self.notify(f"Workspace {name!r} {'created and ' if create else ''}selected.")
        if self.view in ("state", "orphans"):
            self.load_state_view()

    def action_next_workspace(self) -> None:
        backend = self._backend()
        names = backend.workspaces()
        current = backend.current_workspace()
        if len(names) < 2:
            self.notify("Only one workspace; create one with :workspace new NAME.")
            return
        nxt = names[(names.index(current) + 1) % len(names)] if current in names else names[0]
        self.switch_workspace(nxt)

    def action_state(self) -> None:
        self.view = "state"
        self.load_state_view()

    def action_orphans(self) -> None:
        self.view = "orphans"
        self.load_state_view()

    def load_state_view(self) -> None:
        self.run_load_state()

    @work(thread=True, exclusive=True, group="read", name="state", description="state")
    def run_load_state(self) -> ops.StateOutcome:
        return ops.load_state(self.working_dir)

    def action_graph(self, addr: str | None = None) -> None:
        if addr is None:
            node = self._tree(self.view).cursor_node if self.view in ("plan", "state", "orphans") else None
            addr = node.data.addr if node is not None and node.data is not None else ""
        self.graph_focus = addr or self.graph_focus
        self.view = "graph"
        if self.graph_info is None:
            self.run_build_graph()
        else:
            self._rebuild_graph_tree()

    @work(thread=True, exclusive=True, group="read", name="graph", description="graph")
    def run_build_graph(self) -> tuple[ops.GraphInfo | None, Diagnostics]:
        return ops.build_graph(self.working_dir)

    # ------------------------------------------------------------------ state view
    def _rebuild_state_tree(self) -> None:
        tree = self._tree("state")
        at = tree.cursor_node.data.addr if tree.cursor_node is not None and tree.cursor_node.data else None
        tree.clear()
        self._decoded.clear()
        out = self.state_outcome
        if out is None or out.state is None:
            self._set_detail(Text("No state could be read: see diagnostics.", style="red"))
            return
        state = out.state
        if state.is_empty():
            tree.root.add_leaf(Text("The state is empty.", style="dim"), NodeInfo("empty", ""))
        modules: dict[str, list[Any]] = {}
        for rs in sorted(state.resources.values(), key=lambda r: (str(r.addr.module), str(r.addr.resource))):
            modules.setdefault(str(rs.addr.module), []).append(rs)
        first: TreeNode | None = None
        keep: TreeNode | None = None  # the row the cursor was on (r, T, U rebuild the tree)
        with self.batch_update():
            for mod, resources in modules.items():
                mnode = tree.root.add(Text(mod or "root module", style="bold"),
                                      NodeInfo("state-module", mod), expand=True)
                for rs in resources:
                    many = len(rs.instances) > COLLAPSE_ABOVE
                    label = Text(str(rs.addr.resource))
                    if many:
                        label.append(f"  {len(rs.instances)} instances", style="dim")
                    rnode = mnode.add(label, NodeInfo("state-resource", str(rs.addr), rs), expand=not many)
                    for key, inst in rs.instances.items():
                        addr = rs.addr.instance(key)
                        info = NodeInfo("state-instance", str(addr), inst)
                        # attributes are added when the instance is first opened
                        inode = rnode.add(self._lazy_state_label(addr, inst), info, expand=False,
                                          loader=self._load_attributes if inst.current is not None else None)
                        first = first or (inode if not many else rnode)
                        if at == str(addr):
                            keep = inode
                    if at == str(rs.addr) and keep is None:
                        keep = rnode
        if self.view == "state" and (keep or first) is not None:
            self.call_after_refresh(tree.move_cursor, keep or first)

    def _lazy_state_label(self, addr: Any, inst: Any) -> Any:
        return lambda: self._state_instance_label(addr, inst)

    def _decode_instance(self, addr_text: str, obj: Any) -> dict[str, Any]:
        """An instance's attributes as the provider's schema types and marks them (what `state
        show` prints), memoised per state read."""
        key = (addr_text, id(obj))
        if key not in self._decoded:
            from tfconsole.addrs import parse_instance
            from tfconsole.command.views import state_decoder

            addr = parse_instance(addr_text)
            state = self.state_outcome.state if self.state_outcome is not None else None
            rs = state.resources.get(addr.abs_resource()) if state is not None else None
            if self._schema_session is None:
                from tfconsole.providers.registry import ProviderSession

                self._schema_session = ProviderSession(self.working_dir)
            try:
                value = state_decoder(self._schema_session)(addr, rs.provider if rs else "", obj) or {}
            except Exception:  # noqa: BLE001 - an undecodable object is still shown, as stored
                value = dict(obj.attributes or {})
            self._decoded[key] = value
        return self._decoded[key]

    def _load_attributes(self, inode: TreeNode) -> None:
        info = inode.data
        obj = info.payload.current if info is not None else None
        if obj is None:
            return
        from tfconsole.lang.values import unmark_deep

        for name, value in sorted(self._decode_instance(info.addr, obj).items()):
            plain, sensitive = unmark_deep(value)
            inode.add_leaf(self._attr_label(name, plain, sensitive),
                           NodeInfo("attribute", info.addr, (name, plain, sensitive)))

    def _state_instance_label(self, addr: Any, inst: Any) -> Text:
        t = Text()
        t.append(_key_text(addr.key) if addr.key is not None else str(addr.resource))
        if inst.current is not None and inst.current.status == "tainted":
            t.append("  tainted", style="bold red")
        if inst.deposed:
            t.append(f"  {len(inst.deposed)} deposed", style="magenta")
        return t

    def _attr_label(self, name: str, value: Any, sensitive: bool) -> Text:
        t = Text(f"{name} = ", style="")
        if sensitive and not self.reveal:
            t.append("(sensitive value)", style="italic magenta")
        else:
            text = _value_text(value)
            t.append(text if len(text) <= 60 else text[:57] + "...", style="magenta" if sensitive else "cyan")
        return t

    def _state_detail(self, info: NodeInfo) -> Text:
        if info.kind == "state-module":
            return Text(info.addr or "root module", style="bold")
        if info.kind == "state-resource":
            rs = info.payload
            t = Text(info.addr, style="bold")
            t.append(f"\nprovider: {rs.provider}\ninstances: {len(rs.instances)}")
            return t
        if info.kind == "attribute":
            name, value, sensitive = info.payload
            t = Text(f"{info.addr}.{name}\n\n", style="bold")
            if sensitive and not self.reveal:
                t.append("(sensitive value) press r to reveal", style="italic magenta")
            else:
                t.append(_value_text(value, multiline=True))
            return t
        inst = info.payload
        t = Text(f"# {info.addr}", style="bold")
        obj = inst.current
        if obj is None:
            t.append("\n(no current object)", style="dim")
            return t
        if obj.status == "tainted":
            t.append("  (tainted)", style="bold red")
        from tfconsole.addrs import parse_instance
        from tfconsole.command.views import render_state_instance
        from tfconsole.lang.values import unmark_deep

        value = self._decode_instance(info.addr, obj)
        if self.reveal:
            value = unmark_deep(value)[0]
        body = render_state_instance(parse_instance(info.addr), value).split("\n", 1)[1]  # "# ADDR:" is above
        t.append("\n" + body)
        if obj.dependencies:
            t.append("\n\ndepends on: " + ", ".join(obj.dependencies), style="dim")
        t.append("\n\nT taints, U untaints; r reveals sensitive values.", style="dim")
        return t

    def _state_title(self) -> None:
        if self.view == "state":
            self.query_one("#views", ContentSwitcher).border_title = \
                "State · SENSITIVE VALUES SHOWN (r hides)" if self.reveal else "State"

    def action_reveal(self) -> None:
        self.reveal = not self.reveal
        self._state_title()
        self.notify("Sensitive values revealed." if self.reveal else "Sensitive values hidden.")
        if self.state_outcome is not None:
            self._rebuild_state_tree()
        node = self._tree(self.view).cursor_node
        if node is not None and node.data is not None:
            self._set_detail(self._detail_for(node.data))

    def _selected_state_instance(self) -> str | None:
        if self.view != "state":
            self.notify("Select an instance in the state view (s) first.")
            return None
        node = self._tree("state").cursor_node
        if node is None or node.data is None or node.data.kind not in ("state-instance", "attribute"):
            self.notify("Select a resource instance.")
            return None
        return node.data.addr

    def action_taint(self) -> None:
        addr = self._selected_state_instance()
        if addr and self._guard_idle():
            self.run_edit("taint", addr)

    def action_untaint(self) -> None:
        addr = self._selected_state_instance()
        if addr and self._guard_idle():
            self.run_edit("untaint", addr)

    @work(thread=True, exclusive=True, group="read", name="edit", description="edit")
    def run_edit(self, what: str, arg: Any) -> Diagnostics:
        if what == "taint":
            return ops.set_status(self.working_dir, arg, "tainted")
        if what == "untaint":
            return ops.set_status(self.working_dir, arg, "ready")
        return ops.forget(self.working_dir, list(arg))

    # ------------------------------------------------------------------ orphans view
    def _rebuild_orphans_tree(self) -> None:
        tree = self._tree("orphans")
        tree.clear()
        out = self.state_outcome
        if out is None:
            return
        if out.config is None:
            tree.root.add_leaf(Text("The configuration is not valid: see diagnostics.", style="red"),
                               NodeInfo("empty", ""))
            return
        orphans = self._orphans()
        if not orphans:
            if self.plan is None or self.plan.destroy or self.plan_applied:
                # count index, for_each key and module instance orphans need a plan to be known
                tree.root.add_leaf(Text("No orphans without a resource block or module.", style="dim"),
                                   NodeInfo("empty", ""))
                tree.root.add_leaf(Text("p plans: removed count, for_each and module keys show here.",
                                        style="dim"), NodeInfo("empty", ""))
            else:
                tree.root.add_leaf(Text("No orphans: every state instance has configuration.", style="dim"),
                                   NodeInfo("empty", ""))
            return
        first = None
        for addr, reason in orphans:
            info = NodeInfo("orphan", addr, reason)
            node = tree.root.add_leaf(self._orphan_label(info), info)
            first = first or node
        if self.view == "orphans" and first is not None:
            self.call_after_refresh(tree.move_cursor, first)

    def _orphans(self) -> list[tuple[str, str]]:
        """Static orphans (no resource block or module) plus what the last plan deletes because
        of count, for_each or module instance keys (those need evaluation to know; the engine
        gives each such delete its reason)."""
        out = self.state_outcome
        found = list(out.orphans) if out is not None else []
        seen = {a for a, _ in found}
        plan = self.plan
        if plan is not None and not plan.destroy and not self.plan_applied:
            for ch in plan.changes:
                if ch.action is Action.DELETE and (ch.reason or "").startswith("delete_because") \
                        and ch.address not in seen:
                    found.append((ch.address, f"{ch.reason}: the last plan deletes it"))
                    seen.add(ch.address)
        return found

    def _orphan_label(self, info: NodeInfo) -> Text:
        t = Text("● " if info.addr in self.marks else "  ", style="bold cyan")
        t.append(info.addr, style="red")
        code = str(info.payload).split(":", 1)[0]
        t.append("  " + _SHORT_REASON.get(code, code), style="dim")
        return t

    def _selected_orphans(self) -> list[str]:
        if self.view != "orphans" or self.state_outcome is None:
            self.notify("Open the orphans view (o) first.")
            return []
        orphans = [a for a, _ in self._orphans()]
        chosen = [a for a in orphans if a in self.marks]
        if not chosen:
            node = self._tree("orphans").cursor_node
            if node is not None and node.data is not None and node.data.kind == "orphan":
                chosen = [node.data.addr]
        if not chosen:
            self.notify("No orphan selected.")
        return chosen

    def action_orphan_destroy(self) -> None:
        chosen = self._selected_orphans()
        if chosen:  # a targeted destroy plan: deletes exactly these, then asks for confirmation
            self._plan(destroy=True, targets=chosen)

    def action_orphan_forget(self) -> None:
        chosen = self._selected_orphans()
        if not chosen or not self._guard_idle():
            return

        def done(ok: bool | None) -> None:
            if ok:
                self.marks.difference_update(chosen)
                self.run_edit("forget", chosen)

        body = ("These instances will be removed from the state without being destroyed:\n\n"
                + "\n".join(f"  {a}" for a in chosen))
        self.push_screen(ConfirmScreen("Forget (state rm)?", body, danger=True), done)

    # ------------------------------------------------------------------ graph view
    def _graph_vertices(self) -> dict[str, str | None]:
        """Every vertex name -> the config-level vertex it was expanded from (None if none).

        Cached until the graph or the expansions change. Dependencies are looked up per vertex
        (_vertex_edges), only for the one on screen."""
        info = self.graph_info
        if info is None:
            return {}
        if self._graph_cache is not None and self._graph_cache[0] is info:
            return self._graph_cache[1]
        out: dict[str, str | None] = dict.fromkeys(info.deps)
        if info.kind == "plan":
            # the plan graph has config-level vertices; the walk told us their instances
            for parent, children in self.expansions.items():
                if parent in info.deps:
                    for child in children:
                        if child != parent:
                            out[child] = parent
        self._graph_cache = (info, out)
        return out

    def _vertex_edges(self, name: str) -> tuple[list[str], list[str]]:
        info = self.graph_info
        vertices = self._graph_vertices()
        if info is None or name not in vertices:
            return [], []
        parent = vertices[name]
        if parent is None:
            return list(info.deps.get(name, [])), list(info.dependents.get(name, []))
        deps, dents = set(info.deps.get(parent, [])), set(info.dependents.get(parent, []))
        for a, b in self.expansion_edges.get(parent, []):
            if a == name:
                deps.add(b)
            elif b == name:
                dents.add(a)
        return sorted(deps), sorted(dents)

    def _rebuild_graph_tree(self) -> None:
        tree = self._tree("graph")
        vertices = self._graph_vertices()
        focus = self._match_vertex(self.graph_focus, vertices)
        focus_node = None
        if self._graph_tree_of is vertices:  # same graph: only move the cursor
            focus_node = next((n for n in tree.root.children if n.data is not None and n.data.addr == focus), None)
        else:
            self._graph_tree_of = vertices
            tree.clear()
            timings = self.graph_info.timings if self.graph_info else {}
            for name in sorted(vertices, key=lambda n: (n == "root", n.startswith("provider"), n)):
                node = tree.root.add_leaf(self._lazy_vertex_label(name, timings), NodeInfo("vertex", name))
                if name == focus:
                    focus_node = node
        kind = self.graph_info.kind if self.graph_info else ""
        self.query_one("#views", ContentSwitcher).border_title = f"Graph ({kind}, {len(vertices)} vertices)"
        if focus_node is not None:
            self.call_after_refresh(tree.move_cursor, focus_node)
        elif vertices:
            self.call_after_refresh(tree.move_cursor, tree.root.children[0])

    @staticmethod
    def _lazy_vertex_label(name: str, timings: dict[str, tuple[float, float]]) -> Any:
        def make() -> Text:
            t = Text(name)
            if name in timings:
                start, end = timings[name]
                t.append(f"  {_fmt_seconds(end - start)}", style="green")
            return t
        return make

    @staticmethod
    def _match_vertex(addr: str, vertices: dict[str, Any]) -> str | None:
        if not addr:
            return None
        if addr in vertices:
            return addr
        for name in sorted(vertices):
            if name.startswith(addr + " ("):
                return name
        base = re.sub(r"\[[^\]]*\]$", "", addr)
        if base in vertices:
            return base
        for name in sorted(vertices):
            if name.startswith(addr):
                return name
        return None

    def _vertex_detail(self, name: str) -> Text:
        deps, dents = self._vertex_edges(name)
        t = Text(name, style="bold")
        timings = self.graph_info.timings if self.graph_info else {}
        if name in timings:
            start, end = timings[name]
            t.append(f"\n\nran +{start:.3f}s → +{end:.3f}s ({_fmt_seconds(end - start)})", style="green")
        t.append(f"\n\ndepends on ({len(deps)}):", style="bold")
        for d in deps:
            t.append(f"\n  ← {d}")
        t.append(f"\n\ndependents ({len(dents)}):", style="bold")
        for d in dents:
            t.append(f"\n  → {d}")
        self._provider_text(_VERTEX_SUFFIX.sub("", name), t)
        return t

    # ------------------------------------------------------------------ command line
    def action_command_line(self) -> None:
        box = self.query_one("#cmdline", Input)
        box.value = ""
        box.add_class("visible")
        box.focus()

    @on(Input.Submitted, "#cmdline")
    def _command_submitted(self, event: Input.Submitted) -> None:
        event.input.remove_class("visible")
        self._tree(self.view).focus()
        self.run_command(event.value)

    def run_command(self, text: str) -> None:
        words = text.strip().lstrip(":").split()
        if not words:
            return
        cmd, args = words[0].lower(), words[1:]
        simple = {
            "plan": self.action_plan, "p": self.action_plan, "apply": self.action_apply,
            "destroy": self.action_destroy, "state": self.action_state, "orphans": self.action_orphans,
            "help": self.action_help, "cancel": self.action_cancel_op, "quit": self.action_quit_app,
            "q": self.action_quit_app, "exit": self.action_quit_app,
        }
        if cmd == "graph":
            self.action_graph(args[0] if args else None)
        elif cmd in ("workspace", "ws"):
            if not args:
                b = self._backend()
                cur = b.current_workspace()
                self.notify("Workspaces: " + ", ".join(f"*{n}" if n == cur else n for n in b.workspaces()))
            elif args[0] == "new" and len(args) == 2:
                self.switch_workspace(args[1], create=True)
            elif args[0] == "select" and len(args) == 2:
                self.switch_workspace(args[1])
            else:
                self.switch_workspace(args[0])
        elif cmd in ("target", "exclude") and args:
            self.marks.update(args)
            self.action_plan_targets() if cmd == "target" else self.action_plan_excludes()
        elif cmd in simple:
            simple[cmd]()
        else:
            self.notify(f"Unknown command: {cmd}", severity="error")

    # ------------------------------------------------------------------ misc
    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_quit_app(self) -> None:
        if not self.busy:
            self.exit(0)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                if self.op_ctx is not None:
                    self.op_ctx.cancel()
                self.exit(0)

        self.push_screen(ConfirmScreen(
            f"Quit while {self.op_name} is running?",
            "Scheduling stops, in-flight work finishes and the state is saved before tfconsole exits.",
            danger=True), answered)

    def action_interrupt(self) -> None:
        if not self.busy:
            self.action_quit_app()
            return
        if self._interrupted:
            self.exit(1, message="Two interrupts received. Exiting immediately. Note that data loss may have occurred.")
            return
        self._interrupted = True
        self.action_cancel_op()
        self.notify("Interrupt received: in-flight work finishes and the state is saved. "
                    "ctrl+c again stops at once.", severity="warning")


_SHORT_REASON = {
    "delete_because_no_resource_config": "no config",
    "delete_because_no_module": "no module",
    "delete_because_wrong_repetition": "wrong repetition",
    "delete_because_count_index": "count index",
    "delete_because_each_key": "each key",
    "delete_because_no_move_target": "no move target",
}


def _key_text(key: Any) -> str:
    if key is None:
        return ""
    if isinstance(key, int):
        return f"[{key}]"
    return f"[{json.dumps(key)}]"


def run_app(target_dir: str, args: Any = None) -> int:
    """The `tfconsole ui` entry point: run the console on target_dir; 0 on a normal quit."""
    parallelism = 10
    if args is not None:
        try:
            parallelism = int(args.get("parallelism", "10") or "10")
        except (AttributeError, TypeError, ValueError):
            parallelism = 10
    app = ConsoleApp(target_dir, parallelism=parallelism)
    result = app.run()
    if isinstance(result, int):
        return result
    return app.return_code or 0


def _value_text(value: Any, multiline: bool = False) -> str:
    """An attribute value as `state show` writes values (HCL-like: strings quoted, maps with =)."""
    from tfconsole.command.views import render_value

    try:
        text = render_value(value)
    except Exception:  # noqa: BLE001 - a value the renderer cannot draw is still shown
        text = json.dumps(value, ensure_ascii=False, default=str)
    return text if multiline else " ".join(text.split())
