"""Following a walk: the hook bridge's messages turned into live status on the plan rows,
the apply itself (confirmation, worker, result) and the keys that follow it."""
from __future__ import annotations

import time
from collections import deque
from typing import Any

from rich.text import Text
from textual import work

from tfconsole.plans import Plan

from .. import operations as ops
from ..messages import VertexBatch, VertexUpdate, WalkFinished, WalkStarted
from ..models.plan import is_change
from ..models.format import fmt_seconds, status_word
from ..screens import ConfirmScreen
from ..widgets import NodeInfo, StatusBar
from .common import VERTEX_SUFFIX


class ApplyView:
    """Mixin of ConsoleApp (its widgets, reactives and helpers are the app's)."""

    def action_apply(self) -> None:
        if not self._guard_idle() or self._review_refuses("apply"):
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

    def _reset_progress(self) -> None:
        self.instance_diags = {}
        self.instance_status.clear()
        self.running.clear()
        if self._groups_plan is self.plan:
            # the plan shown since it was made (its apply starts): its rows' groups stand, their
            # counters start again (the key that starts an apply skips 10,000 instances' setup)
            for progress in self.group_progress.values():
                progress.clear()
            self._tree("plan").refresh()
            return
        self._groups_plan = self.plan
        self.group_progress.clear()
        self._groups_of.clear()
        self._group_totals.clear()
        # one pair of counters per resource: its key strings are made once, not per instance
        # (10,000 instances of two resources: two pairs; this runs on the key that starts an apply)
        counters: dict[tuple[Any, Any], tuple[list[dict[str, int]], tuple[str, str]]] = {}
        for ch in self.plan.changes if self.plan is not None else []:
            if not is_change(ch):  # nothing to apply: no status to count (an import alone is applied)
                continue
            addr = ch.addr
            group = counters.get((addr.module, addr.resource))
            if group is None:
                keys = (f"resource:{addr.abs_resource()}", f"module:{addr.module}")
                group = counters[(addr.module, addr.resource)] = (
                    [self.group_progress.setdefault(k, {}) for k in keys], keys)
            self._groups_of[ch.address] = group[0]
            for k in group[1]:
                self._group_totals[k] = self._group_totals.get(k, 0) + 1
        self._tree("plan").refresh()

    def _apply_done(self, out: ops.ApplyOutcome) -> None:
        self._show_diags(out.diags)
        self.instance_diags = {}
        for d in out.diags:  # each instance's own diagnostics go to its detail pane
            if d.address:
                self.instance_diags.setdefault(VERTEX_SUFFIX.sub("", d.address), []).append(d)
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
            imp = out.plan.imports()  # Terraform counts imports first: "1 imported, 2 added, ..."
            line = Text(f"Apply complete! Resources: {f'{imp} imported, ' if imp else ''}{add} added, "
                        f"{change} changed, {destroy} destroyed.", style="bold green")
        self._set_summary(line)
        if out.applied:
            self._graph_walk_done(out.timings)
            self.applied_state = out.state
            self._show_applied_outputs()
        verb = "destroy" if out.plan.destroy else "apply"
        self._op_finished(f"{verb} cancelled" if out.cancelled else
                          f"{verb} failed" if out.diags.has_errors else f"{verb} done")
        self.running.clear()
        self._tree("plan").refresh()
        failed = next((self.instance_nodes[a] for a in self.instance_diags if a in self.instance_nodes), None)
        if failed is not None and self.view == "plan":  # a failure is shown, not buried in the log pane
            self._tree("plan").move_cursor(failed)
            self._set_detail(self._detail_for(failed.data))

    def on_walk_started(self, msg: WalkStarted) -> None:
        self.vertices = {}
        self.ephemeral.reset()
        if self._ephemeral_node is not None:  # the previous walk's ephemeral instances leave with it
            self._ephemeral_node.remove()
            self._ephemeral_node = None
        self.walk_operation = msg.operation
        if msg.operation == "plan":
            self.expansions = {}
            self.expansion_edges = {}
            self._graph_cache = None
        self._graph_walk_started(msg.names)
        now = time.monotonic()
        for name in msg.names:
            self.vertices[name] = VertexUpdate(name, "waiting", now)
        self.status_counts = {"waiting": len(self.vertices)}
        self._refresh_counts()

    BATCH_CHUNK = 1000  # status updates handled per turn of the event loop

    def on_vertex_batch(self, msg: VertexBatch) -> None:
        """A batch, handled in chunks: when the loop fell behind, a batch holds thousands of
        updates (the bridge coalesces while it waits), and a key pressed meanwhile waits for one
        chunk (about 10 ms), not for the whole batch; the rest comes after the keys queued. A
        key that came before the batch is handled (the bridge holds for it) goes first."""
        if self.bridge.holding():
            # a key came and is not on screen yet: it goes first (its handling and paint do not
            # wait for this batch, nor repaint the rows it changes); the batch follows its paint
            self.call_after_refresh(self.on_vertex_batch, msg)
            return
        rest = None
        if len(msg.updates) > self.BATCH_CHUNK:
            rest = VertexBatch(msg.updates[self.BATCH_CHUNK:])
            msg = VertexBatch(msg.updates[:self.BATCH_CHUNK], msg.expansions, msg.expansion_edges, msg.log,
                              msg.provider_status, msg.provider_logs, msg.deps, msg.log_addrs, msg.ephemeral)
        try:
            self._vertex_batch(msg)
        finally:
            if rest is not None:
                self.call_later(self.on_vertex_batch, rest)
            else:
                self.bridge.batch_done()  # the bridge may send the next one (back-pressure)

    def _vertex_batch(self, msg: VertexBatch) -> None:
        counts = self.status_counts
        touched: set[str] = set()  # instance addresses whose status changed
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
                    stripped = VERTEX_SUFFIX.sub("", upd.name)
                    addr = self._vertex_addr[upd.name] = stripped if stripped != upd.name else ""
                if addr in self._groups_of:  # an instance of the plan, shown or filtered out
                    self._set_instance_status(addr, upd)
                    touched.add(addr)
        if msg.provider_status or msg.provider_logs:
            self._provider_news(msg)
        if msg.log_addrs:
            self._instance_log_news(msg)
        if msg.ephemeral:
            self.ephemeral.apply(msg.ephemeral)
            if self.walk_operation == "apply":
                self._show_ephemeral_node()
        if msg.expansions:
            self.expansions.update(msg.expansions)
            self.expansion_edges.update(msg.expansion_edges)
            self._graph_cache = None
        self._graph_batch(msg.deps, msg.expansions, msg.expansion_edges)
        if touched and self.follow and self.running and self.view == "plan":
            newest = max(self.running, key=lambda a: self.instance_status[a].at)
            self._jump_to(newest)
        with self.batch_update():
            if touched and self.view == "plan":  # (a hidden tree is painted whole when shown)
                self._tree("plan").refresh_visible(lambda node: self._plan_row_changed(node, touched))
                self._refresh_plan_detail()
            self._refresh_counts()
            self._graph_live_refresh({u.name for u in msg.updates})
            if msg.ephemeral and self.view == "graph":  # (ephemeral blocks' rows say what they are now)
                self.graph_canvas.refresh()
            if msg.log:
                self.diagnostics_pane.add_log(msg.log)

    def _plan_row_changed(self, node: Any, touched: set[str]) -> bool:
        """Whether a plan row on screen reads differently after a batch: its instance changed,
        it waits (on dependencies that may have finished), or it counts instances."""
        info = node.data
        if info is None:
            return False
        if info.kind == "instance":
            upd = self.instance_status.get(info.addr)
            return info.addr in touched or (upd is not None and upd.status == "waiting")
        return info.kind in ("module", "resource")

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
        if self.view == "graph":
            row = self.graph_canvas.cursor_row
            if row is not None and row.name and (VERTEX_SUFFIX.sub("", row.name) in msg.provider_logs
                                                 or row.name in msg.provider_status):
                self._set_detail(self._vertex_detail(row.name))
            return
        node = self._tree(self.view).cursor_node
        if node is not None and node.data is not None and (
                node.data.addr in msg.provider_logs or node.data.addr in msg.provider_status
                or VERTEX_SUFFIX.sub("", node.data.addr) in msg.provider_logs):
            self._set_detail(self._detail_for(node.data))

    INSTANCE_LOG_LINES = 50  # progress lines kept per instance for its detail pane

    def _instance_log_news(self, msg: VertexBatch) -> None:
        for line, addr in zip(msg.log, msg.log_addrs):
            if addr:
                self.instance_log.setdefault(addr, deque(maxlen=self.INSTANCE_LOG_LINES)).append(line)

    def _log_text(self, addr: str, body: Text) -> None:
        """The instance's own progress lines (the log pane holds everyone's)."""
        lines = self.instance_log.get(addr)
        if lines:
            body.append("\n\nlog:", style="bold")
            for line in lines:
                body.append(f"\n  {line}", style="dim")

    # ---- ephemeral instances: not planned, not stored; followed from the walk's hooks
    def _show_ephemeral_node(self) -> None:
        tree = self._tree("plan")
        if self._ephemeral_node is None:
            self._ephemeral_node = tree.root.add("", NodeInfo("ephemerals", ""), expand=True)
        node = self._ephemeral_node
        node.set_label(Text(f"  Ephemeral resources ({len(self.ephemeral.instances)})", style="bold"))
        shown = {c.data.addr for c in node.children if c.data is not None}
        for addr in self.ephemeral.instances:
            if addr not in shown:
                node.add_leaf(Text(f"  ⧗ {addr}", style="cyan"), NodeInfo("ephemeral", addr))
        tree.refresh()
        cur = tree.cursor_node
        if self.view == "plan" and cur is not None and cur.data is not None and cur.data.kind == "ephemeral":
            self._set_detail(self._detail_for(cur.data))

    def _ephemeral_detail(self, info: NodeInfo) -> Text:
        if info.kind == "ephemerals":
            t = Text("Ephemeral resources\n\n", style="bold")
            t.append("Opened for this walk, renewed while needed and closed after their last dependent; "
                     "never planned or saved.\n\n", style="dim")
            for addr in self.ephemeral.instances:
                t.append(f"{addr}  {self.ephemeral.word(addr)}\n")
            return t
        t = Text(info.addr, style="bold")
        word = self.ephemeral.word(info.addr)
        inst = self.ephemeral.instances.get(info.addr)
        t.append(f"\n{word}", style="bold red" if inst is not None and inst.state == "failed" else "cyan")
        if inst is not None and inst.error:
            t.append(f"\n{inst.error}", style="red")
        if inst is not None and inst.history:
            t.append("\n\n" + "\n".join(inst.history), style="dim")
        self._log_text(info.addr, t)
        return t

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

    def on_walk_finished(self, msg: WalkFinished) -> None:
        self._refresh_counts()
        self._graph_walk_finished()

    def _refresh_counts(self) -> None:
        status = self.query_one(StatusBar)
        status.total = len(self.vertices)
        status.done = self.status_counts.get("done", 0)
        status.running = self.status_counts.get("running", 0)

    def _tick(self) -> None:
        """Running vertices show a live elapsed time: repaint the visible rows if any runs."""
        if self.busy and self.running and self.view == "plan":  # (elapsed times of running rows)
            self._tree("plan").refresh_visible(
                lambda node: node.data is not None and node.data.kind in ("module", "resource")
                or node.data is not None and node.data.addr in self.running)
        if self.busy and self.view == "graph":
            self._graph_live_refresh(settle=True)
        if self.busy:
            self.query_one(StatusBar).timing = self._timing_text()

    def _timing_text(self) -> str:
        """The running operation's elapsed time and, once some vertices are done, an estimate
        of the rest (the pace so far applied to the vertices left)."""
        elapsed = max(0.0, self.clock() - self.op_started)
        text = f"{fmt_seconds(elapsed)} elapsed"
        total, done = len(self.vertices), self.status_counts.get("done", 0)
        if 0 < done < total:
            text += f", ~{fmt_seconds(elapsed / done * (total - done))} left"
        return text

    def _status_text(self, upd: VertexUpdate) -> str:
        """The status word of an instance row (waiting lists only the dependencies pending)."""
        detail = self._pending_text(upd.name) if upd.status == "waiting" else ""
        return status_word(upd.status, upd.at, upd.elapsed, self.clock(), detail)
