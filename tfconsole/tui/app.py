"""The operations console: plan review, live apply, graph, state and orphans in one Textual app.

The app observes the engine only through the hook bridge (bridge.py) and the plain results of
operations.py, which run on thread workers. Handlers here run on the event loop and are the only
code that touches widgets. Layout lives in app.tcss.
"""
from __future__ import annotations

from collections import deque
import os
from typing import Any, Iterable

from rich.text import Text
from textual import events, on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Input, Static
from textual.worker import Worker, WorkerState

from tfconsole.diags import Diagnostics
from tfconsole.plans import Plan, ResourceInstanceChange

from . import operations as ops
from .bridge import HookBridge
from .heap import HeapPolicy
from .messages import VertexUpdate
from .screens import ConfirmScreen, HelpScreen
from .widgets.diagnostics import diagnostic_text
from .widgets import ConsoleTree, DiagnosticsPane, KeyBar, NodeInfo, StatusBar, TreeNode
from .models.ephemeral import EphemeralTracker
from .models.plan import FILTERS  # noqa: F401 - re-exported for tests and scripts
from .views.common import ACTION_STYLE, COLLAPSE_ABOVE, STATUS_STYLE, VERTEX_SUFFIX, counts_text, diff_text  # noqa: F401
from .views.apply import ApplyView
from .views.graph import GraphView
from .widgets.graph_canvas import GraphCanvas
from .views.orphans import OrphansView
from .views.plan import PlanView
from .views.review import ReviewView
from .views.state import StateView

# seconds without a key press before the full collection that follows an operation runs
IDLE_BEFORE_COLLECT = 1.0  # seconds without a key before a full garbage collection may run
HEAP_TICK = 0.25  # seconds between checks whether one should
VIEWS_WIDTH, GRAPH_VIEWS_WIDTH = "45%", "65%"  # the left pane's width (app.tcss has the first)


class ConsoleApp(ReviewView, PlanView, ApplyView, GraphView, StateView, OrphansView, App[int]):
    """Layout, bindings, the palette, view switching, workspaces and the command line; each
    view's behaviour lives in its mixin (tui/views/)."""

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
        Binding("R", "plan_replace", "Replace"),
        Binding("U", "untaint", "Untaint"),
        Binding("D", "orphan_destroy", "Destroy"),
        Binding("F", "orphan_forget", "Forget"),
        Binding("g", "graph", "Graph"),
        Binding("v", "graph_mode", "Layers/timeline", show=False),
        Binding("m", "collapse_modules", "Modules", show=False),
        Binding("s", "state", "State"),
        Binding("o", "orphans", "Orphans"),
        Binding("W", "next_workspace", "Workspace", show=False),
        Binding("greater_than_sign", "next_running", "Next running", show=False),
        Binding("exclamation_mark", "next_failed", "Next failed", show=False),
        Binding("equals_sign", "toggle_follow", "Follow", show=False),
        Binding("L", "toggle_log", "Log", show=False),
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

    def __init__(self, working_dir: str = ".", parallelism: int = 10,
                 cli_vars: list[tuple[str, str]] | None = None, plan_on_open: bool = False,
                 plan_file: str | None = None) -> None:
        super().__init__()
        self.plan_file = plan_file  # `tfconsole ui -plan=FILE`: open it read-only instead of planning
        self.plan_on_open = plan_on_open  # `tfconsole ui` plans at once (x or ctrl+c cancels it)
        self.working_dir = os.path.abspath(working_dir)
        self.parallelism = max(1, parallelism)
        # -var / -var-file as ("var", "k=v") / ("var-file", PATH), in order (a later one wins);
        # every plan, orphan search and graph of this console uses them
        self.cli_vars: list[tuple[str, str]] = list(cli_vars or [])
        self._orphan_plan: list[str] | None = None
        self.op_started = 0.0  # clock() when the running operation started (elapsed, estimate)
        self.applied_state: Any = None  # the state the last apply saved (outputs, applied values)
        self._outputs_node: TreeNode | None = None
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
        self.instance_log: dict[str, deque[str]] = {}  # instance address -> its progress lines (detail pane)
        self.ephemeral = EphemeralTracker()  # the walk's ephemeral instances: open / renew / close
        self._ephemeral_node: TreeNode | None = None
        # instance address -> the counters of its resource and module rows, for every instance of
        # the plan being applied (shown or filtered out: live status never depends on the filter)
        self._groups_of: dict[str, list[dict[str, int]]] = {}
        self._groups_plan: Plan | None = None  # the plan _groups_of was made for
        self._group_totals: dict[str, int] = {}  # "resource:ADDR" / "module:PATH" -> instances in the plan
        self._graph_cache: tuple[Any, dict[str, str | None]] | None = None
        self._graph_tree_of: dict[str, str | None] | None = None  # what the graph tree shows
        self._detail_status: VertexUpdate | None = None  # the status the detail pane shows
        self._title_counts: tuple[Any, Any, tuple[int, int]] | None = None  # plan title: (plan, filters, counts)
        self._vertex_addr: dict[str, str] = {}  # walk vertex name -> instance address (memo)
        self.heap = HeapPolicy(IDLE_BEFORE_COLLECT)  # full collections only while nobody types (tui/heap.py)
        self.state_outcome: ops.StateOutcome | None = None
        self._stale_state = False  # the state view shows a read from before the running operation
        self.graph_info: ops.GraphInfo | None = None
        self.graph_focus = ""
        self._init_graph_view()
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
                yield GraphCanvas(id="graph-tree")
            with VerticalScroll(id="detail"):
                yield Static("", id="detail-body")
        yield DiagnosticsPane(id="diagnostics")
        yield Input(placeholder="search addresses (enter keeps, esc clears)", id="search")
        yield Input(placeholder="plan | apply | destroy | refresh-only | replace ADDR | var k=v | var-file F | "
                                "vars | unset NAME | state | orphans | graph ADDR | workspace [new] NAME | "
                                "open FILE | quit",
                    id="cmdline")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self.theme = "nord"
        self._input_priority()
        self._tree("plan").decorate = self._plan_decoration
        status = self.query_one(StatusBar)
        status.parallelism = self.parallelism
        status.variables = len(self.cli_vars)
        self._show_workdir()
        self.query_one("#detail", VerticalScroll).border_title = "Detail"
        self.query_one("#views", ContentSwitcher).border_title = "Plan"
        self.query_one("#diagnostics", DiagnosticsPane).show([], {})
        self.watch(self.screen, "focused", self._focus_moved)
        self.query_one("#plan-tree", ConsoleTree).focus()
        self.set_interval(0.5, self._tick)
        self.heap.start()
        self.set_interval(HEAP_TICK, self.heap.tick)
        if self.plan_file:
            self.call_after_refresh(self.open_review, self.plan_file)
        elif not has_config(self.working_dir):
            self._set_summary(Text(f"No .tf files in {self.working_dir}. Type :demo to open the bundled demo, "
                                   "or quit and start tfconsole ui in a configuration directory.",
                                   style="bold yellow"))
        elif self.plan_on_open:
            self.call_after_refresh(self.action_plan)

    def _input_priority(self) -> None:
        """Keys pause a running walk from the moment the terminal's input thread reads them.

        The driver hands every input event to the app through send_message on its own thread;
        holding the walk there (see bridge.py) lets the key reach the event loop without
        waiting for the GIL behind ten walker threads. Only the hold happens on that thread."""
        driver = self._driver
        if driver is None:
            return
        send, hold = driver.send_message, self.bridge.hold

        def send_message(message: Any) -> None:
            if isinstance(message, events.Key):
                hold()  # (a no-op unless a walk runs)
            send(message)

        driver.send_message = send_message  # type: ignore[method-assign]

    async def on_event(self, event: events.Event) -> None:
        if not isinstance(event, events.Key) or event.is_forwarded:
            await super().on_event(event)
            return
        self.heap.key()
        if self.busy:
            self.bridge.hold()  # (keys not from the driver: a test's, a pasted sequence's)
            # after the refresh that follows the key's handling its effect is painted: the walk
            # goes on then (the hold's own limit applies if that takes longer)
            self.call_after_refresh(self.call_after_refresh, self.bridge.release)
        if await self._key_in_order(event):
            return
        await super().on_event(event)

    async def _key_in_order(self, event: events.Key) -> bool:
        """Run the key's binding now, in the order the keys came, when a pane of ours has focus.

        Textual forwards a key to the widget focused when the key is *read* and runs the
        widget's or the app's binding when the key has bubbled back; a key typed right after
        `g` (or `/`, `escape`, `s`) was therefore already on its way to the pane that `g` hides,
        and moved a cursor nobody sees. Our panes handle keys only through bindings, so the
        binding chain (focused pane, its parents, the app: what the bubbled key would meet) runs
        here, before the next key is looked at. Any other focus (a text box, a dialog): Textual's
        usual path."""
        if not isinstance(self.focused, (ConsoleTree, GraphCanvas)):
            return False
        return await self._check_bindings(event.key, priority=True) or await self._check_bindings(event.key)

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
        ("Replace marked", "Re-plan with the marked (or selected) instances as -replace (R)", "plan_replace"),
        ("Refresh-only plan", "Plan with -refresh-only: update the state to match real objects", "plan_refresh_only"),
        ("Variables", "The -var and -var-file values plans use (:var k=v, :var-file F, :unset NAME)",
         "show_vars"),
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
        ("Graph", "The live dependency graph, in layers by depth (g)", "graph"),
        ("Graph: layers or timeline", "After an apply: the timeline of every vertex (v)", "graph_mode"),
        ("Graph: collapse modules", "Collapse or open every module in the graph (m)", "collapse_modules"),
        ("Next workspace", "Switch to the next workspace (W)", "next_workspace"),
        ("Command line", "Type a command: plan, apply, target ADDR, var k=v, open FILE, demo... (:)", "command_line"),
        ("Next running", "Jump to the next running instance (>)", "next_running"),
        ("Next failed", "Jump to the next failed instance (!)", "next_failed"),
        ("Follow the apply", "Keep the cursor on the newest running instance (=)", "toggle_follow"),
        ("Log full screen", "Show the diagnostics and progress log full screen, or back (L)", "toggle_log"),
        ("Keys", "Every key binding (?)", "help"),
        ("Quit", "Quit tfconsole (q; asks first during an apply)", "quit_app"),
    ]

    # bindings that only make sense in one view (hidden from the footer elsewhere)
    VIEW_ACTIONS = {
        "plan_targets": ("plan",), "plan_excludes": ("plan",), "plan_replace": ("plan",), "reveal": ("state",), "taint": ("state",),
        "untaint": ("state",), "orphan_destroy": ("orphans",), "orphan_forget": ("orphans",),
        "graph_mode": ("graph",), "collapse_modules": ("graph",),
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
        self.heap.operation(busy)

    def on_unmount(self) -> None:
        self.heap.stop()

    def _start_op(self, name: str) -> None:
        self.busy = True
        self._interrupted = False
        self.op_name = name
        self.op_ctx = None
        self.op_started = self.clock()
        self.query_one(StatusBar).operation = f"{name}…"
        self.diagnostics_pane.clear_log()
        self.instance_log = {}

    def _set_op_ctx(self, ctx: Any) -> None:
        # called on the worker thread before the walk starts: a plain attribute, no widgets
        self.op_ctx = ctx

    # ------------------------------------------------------------------ operations

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
        if worker.group == "layout":  # the live graph's layout (views/graph.py): not an operation
            if event.state == WorkerState.SUCCESS:
                self._graph_layout_done(worker.result)
            elif event.state in (WorkerState.ERROR, WorkerState.CANCELLED):
                self._graph_layout_done(None)
                if event.state == WorkerState.ERROR:
                    d = Diagnostics()
                    d.error("Internal error in the graph layout", f"{type(worker.error).__name__}: {worker.error}")
                    self._show_diags(d)
            return
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
        ended = bool(self.busy and self.op_name)  # an operation ended (not a read worker)
        if ended:
            self.busy = False
        self.op_ctx = None
        bar = self.query_one(StatusBar)
        bar.operation = status
        bar.timing = ""
        self._refresh_counts()
        if ended and (self._stale_state or self.op_name in ("apply", "destroy")):  # (a plan writes no state)
            self._state_after_op()

    # ------------------------------------------------------------------ search (plan or graph)
    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        if self.view == "graph":  # the graph filters its vertices by address
            self.graph_needle = event.value
            self._rebuild_graph_tree()
        else:
            self.search = event.value

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.input.remove_class("visible")
        self._focus_now(self.graph_canvas if self.view == "graph" else self._tree("plan"))

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

            upd = self.instance_status.get(info.addr)
            applied = self._applied_text(info.addr) if self.plan_applied and upd is not None \
                and upd.status == "done" else None
            try:  # after an apply, what it saved; before, what the plan will do
                body = applied if applied is not None else diff_text(render_change(ch))
            except Exception as exc:  # noqa: BLE001 - a renderer bug must not take the console down
                body = Text(f"{ch.address}: cannot render this change ({exc})", style="red")
            if upd is not None:
                body.append("\n\n")
                body.append(f"{self.walk_operation or 'apply'}: {self._status_text(upd)}",
                            style=STATUS_STYLE.get(upd.status, ""))
                if upd.detail and upd.status != "waiting":  # (waiting: the pending deps are in the word)
                    body.append(f"\n{upd.detail}")
            for d in self.instance_diags.get(info.addr, []):
                body.append("\n\n")
                body.append_text(diagnostic_text(d, self.files))
            self._log_text(info.addr, body)
            self._provider_text(info.addr, body)
            return body
        if info.kind in ("ephemerals", "ephemeral"):
            return self._ephemeral_detail(info)
        if info.kind in ("module", "resource"):
            t = Text(info.addr or "root module", style="bold")
            t.append_text(counts_text(info.payload))
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
        if info.kind in ("outputs", "output", "output-change"):
            return self._outputs_detail(info)
        return Text(info.addr)

    # ------------------------------------------------------------------ views
    def _focus_now(self, widget: Any) -> None:
        """Focus widget before the next message is handled. (Widget.focus() defers the change
        behind the messages already queued: keys a fast typist sent right after the key that
        switched views or opened a box would reach the widget left behind - a hidden tree's
        cursor, or bindings meant as the box's text.)"""
        widget.screen.set_focus(widget)

    def _focus_moved(self, widget: Any) -> None:
        """The views pane's border is brighter while the focus is in it (the class changes only
        when the focus enters or leaves the pane, not when a view switch moves it inside)."""
        views = self.query_one("#views")
        views.set_class(widget is not None and views in widget.ancestors_with_self, "focused")

    def watch_view(self, view: str) -> None:
        if view != "state" and self.reveal:  # revealed secrets stay in the state view
            self.reveal = False
            if self.state_outcome is not None:
                self._rebuild_state_tree()
        self.refresh_bindings()
        switcher = self.query_one("#views", ContentSwitcher)
        switcher.current = f"{view}-tree"
        self.query_one(StatusBar).view = view
        # the graph's rows are long (full addresses, status words, timeline bars): it takes more
        # room. An inline width, not a class on #main: a class re-matches the stylesheet for
        # every widget under it (5-8 ms of each switch to or from the graph, measured)
        width = GRAPH_VIEWS_WIDTH if view == "graph" else VIEWS_WIDTH
        if str(switcher.styles.width) != width:
            switcher.styles.width = width
        titles = {"state": "State", "orphans": "Orphans", "graph": "Graph"}
        if view == "plan":
            self._update_plan_title()
        elif view == "state":
            self._state_title()
        else:
            self.query_one("#views", ContentSwitcher).border_title = titles[view]
        if view == "graph":
            canvas = self.graph_canvas
            self._focus_now(canvas)
            row = canvas.cursor_row
            self._set_detail(self._vertex_detail(row.name) if row is not None and row.name else "")
            return
        tree = self._tree(view)
        self._focus_now(tree)
        node = tree.cursor_node
        if node is not None and node.data is not None:
            self._set_detail(self._detail_for(node.data))
        else:
            self._set_detail("")

    def action_back(self) -> None:
        if self.screen.maximized is not None:  # the full-screen log first
            self.screen.minimize()
            return
        for box_id in ("#cmdline", "#search"):
            box = self.query_one(box_id, Input)
            if box.has_class("visible"):
                box.remove_class("visible")
                if box_id == "#search":
                    box.value = ""  # (clears the graph filter or the plan search: _search_changed)
                    self.search = ""
                    if self.graph_needle:
                        self.graph_needle = ""
                        self._rebuild_graph_tree()
                self._focus_now(self.graph_canvas if self.view == "graph" else self._tree(self.view))
                return
        self.view = "plan"

    # ------------------------------------------------------------------ workspaces
    def _workspaces(self) -> tuple[list[str], str]:
        """(the workspaces, the current one) through the operations layer (any backend)."""
        from tfconsole import operations

        req = operations.OperationRequest(working_dir=self.working_dir)
        listed = operations.workspace_list(req)
        if listed.ok:
            return list(listed.report), str(listed.state)
        current = operations.workspace_current(req)  # http has one workspace and cannot list it
        name = str(current.state) if current.ok else "default"
        return [name], name

    def _show_workdir(self) -> None:
        name = os.path.basename(self.working_dir.rstrip(os.sep)) or self.working_dir
        try:
            ws = self._workspaces()[1]
        except Exception:  # noqa: BLE001 - a broken .terraform dir only hides the name
            ws = "default"
        # always both: the directory and the workspace every action of the console acts on (or,
        # while a plan opened from a file is reviewed, that file and what made it)
        self.query_one(StatusBar).workdir = self._review_header() or f"{name} · workspace {ws}"

    def switch_workspace(self, name: str, create: bool = False) -> None:
        """Select (or create and select) a workspace; the reviewed plan belongs to the old one."""
        if self.busy:
            self.notify("An operation is running; cancel it (x) before switching workspace.", severity="warning")
            return
        from tfconsole import operations

        req = operations.OperationRequest(working_dir=self.working_dir)
        res = operations.workspace_new(req, name) if create else operations.workspace_select(req, name)
        if not res.ok:
            self.notify("; ".join(x.summary for x in res.diags.errors()), severity="error")
            return
        self.plan = None
        self.plan_ctx = None
        self.review = None
        self.state_outcome = None
        self.graph_info = None
        self._reset_progress()
        self._rebuild_plan_tree()  # the old workspace's plan leaves the screen with it
        self._set_summary(f"Workspace {name}: press p to plan.")
        self._show_workdir()
        self.notify(f"Workspace {name!r} {'created and ' if create else ''}selected.")
        if self.view in ("state", "orphans"):
            self.load_state_view()

    def open_directory(self, path: str) -> None:
        """Act on another configuration directory from now on (the demo, offered when the
        console was opened where there is no configuration)."""
        if not self._guard_idle():
            return
        if not has_config(path):
            self.notify(f"No .tf files in {path}.", severity="error")
            return
        self.working_dir = os.path.abspath(path)
        self.review = None
        self.plan = self.plan_ctx = self.state_outcome = self.graph_info = self.applied_state = None
        self._init_graph_view()
        self._reset_progress()
        self._rebuild_plan_tree()
        self._show_workdir()
        self._set_summary(f"Opened {self.working_dir}: press p to plan.")

    def action_next_workspace(self) -> None:
        names, current = self._workspaces()
        if len(names) < 2:
            self.notify("Only one workspace; create one with :workspace new NAME.")
            return
        nxt = names[(names.index(current) + 1) % len(names)] if current in names else names[0]
        self.switch_workspace(nxt)

    # ------------------------------------------------------------------ state view

    # ------------------------------------------------------------------ orphans view

    # ------------------------------------------------------------------ graph view

    # ------------------------------------------------------------------ command line
    def action_command_line(self) -> None:
        box = self.query_one("#cmdline", Input)
        box.value = ""
        box.add_class("visible")
        self._focus_now(box)

    @on(Input.Submitted, "#cmdline")
    def _command_submitted(self, event: Input.Submitted) -> None:
        event.input.remove_class("visible")
        self._focus_now(self.graph_canvas if self.view == "graph" else self._tree(self.view))
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
        if cmd == "set" and args:  # ":set var k=v" is ":var k=v"
            cmd, args = args[0].lower(), args[1:]
        if cmd in ("var", "var-file", "vars", "unset"):
            self._var_command(cmd, " ".join(args))
        elif cmd in ("refresh-only", "refresh"):
            self._plan(refresh_only=True)
        elif cmd == "replace" and args:
            self._plan(replace=args)
        elif cmd == "open" and args:
            self.open_review(" ".join(args))
        elif cmd == "demo":
            self.open_directory(demo_dir())
        elif cmd == "graph":
            self.action_graph(" ".join(args) if args else None)
        elif cmd in ("workspace", "ws"):
            if not args:
                names, cur = self._workspaces()
                self.notify("Workspaces: " + ", ".join(f"*{n}" if n == cur else n for n in names))
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

    def _var_command(self, cmd: str, arg: str) -> None:
        """:var k=v and :var-file F add to the console's variables (a later one wins, as on the
        command line); :unset NAME drops NAME's -var; :vars lists them. The next plan uses them."""
        if cmd == "var" and "=" in arg:
            self.cli_vars.append(("var", arg))
        elif cmd == "var-file" and arg:
            path = os.path.join(self.working_dir, arg) if not os.path.isabs(arg) else arg
            if not os.path.isfile(path):
                self.notify(f"No such file: {arg}", severity="error")
                return
            self.cli_vars.append(("var-file", arg))
        elif cmd == "unset" and arg:
            self.cli_vars = [(k, v) for k, v in self.cli_vars if not (k == "var" and v.split("=", 1)[0] == arg)]
        elif cmd != "vars":
            self.notify(f"Usage: :{cmd} NAME=VALUE" if cmd == "var" else f"Usage: :{cmd} NAME", severity="error")
            return
        self._show_vars()
        if cmd != "vars":
            self.notify("Variables changed: press p to plan with them.")

    def _show_vars(self) -> None:
        text = " ".join(f"-{k}={v}" for k, v in self.cli_vars) or "no -var or -var-file"
        self.notify(f"Variables: {text}")
        self.query_one(StatusBar).variables = len(self.cli_vars)

    # ------------------------------------------------------------------ misc
    def action_toggle_log(self) -> None:
        """The diagnostics and progress log full screen (L again, or escape, brings the views back)."""
        if self.screen.maximized is not None:
            self.screen.minimize()
        elif self.diagnostics_pane.has_class("empty"):  # (collapsed: nothing to show yet)
            self.notify("No diagnostics or progress log yet.")
        else:
            self.screen.maximize(self.diagnostics_pane, container=False)

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


def demo_dir() -> str:
    """The bundled demo configuration (configs/demo beside the package)."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        "configs", "demo")


def has_config(path: str) -> bool:
    try:
        return any(n.endswith((".tf", ".tf.json")) for n in os.listdir(path))
    except OSError:
        return False


def run_app(target_dir: str, args: Any = None) -> int:
    """The `tfconsole ui` entry point: run the console on target_dir; 0 on a normal quit."""
    parallelism = 10
    if args is not None:
        try:
            parallelism = int(args.get("parallelism", "10") or "10")
        except (AttributeError, TypeError, ValueError):
            parallelism = 10
    cli_vars = [(k, v) for k, v in getattr(args, "ordered", []) if k in ("var", "var-file")]
    plan_file = None
    if args is not None:
        try:
            plan_file = args.get("plan") or None
        except (AttributeError, TypeError):
            plan_file = None
    app = ConsoleApp(target_dir, parallelism=parallelism, cli_vars=cli_vars, plan_on_open=plan_file is None,
                     plan_file=plan_file)
    result = app.run()
    if isinstance(result, int):
        return result
    return app.return_code or 0
