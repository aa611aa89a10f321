"""The plan review: the plan as a tree of modules, resources and instances, with filter,
search and marks (target / exclude re-plans)."""
from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import work
from textual.widgets import ContentSwitcher, Input

from tfconsole.plans import Action, Plan, ResourceInstanceChange

from .. import operations as ops
from ..models.format import key_text
from ..models.plan import FILTERS, group_changes, is_change, is_single_instance, visible_changes
from ..widgets import ConsoleTree, NodeInfo, TreeNode
from .common import ACTION_STYLE, COLLAPSE_ABOVE, IMPORT_STYLE, STATUS_STYLE, counts_text, diff_text


class PlanView:
    """Mixin of ConsoleApp (its widgets, reactives and helpers are the app's)."""

    def action_plan(self) -> None:
        self._plan()

    def action_destroy(self) -> None:
        if not self._review_refuses("destroy"):
            self._plan(destroy=True)

    def action_plan_targets(self) -> None:
        if self._review_refuses("re-plan"):
            return
        if not self.marks:
            self.notify("Mark instances, resources or modules with space first.")
            return
        self._plan(targets=sorted(self.marks))

    def action_plan_excludes(self) -> None:
        if self._review_refuses("re-plan"):
            return
        if not self.marks:
            self.notify("Mark instances, resources or modules with space first.")
            return
        self._plan(excludes=sorted(self.marks))

    def action_plan_replace(self) -> None:
        """-replace the marked instances (or the selected one): Terraform's forced replacement."""
        if self._review_refuses("re-plan"):
            return
        chosen = sorted(a for a in self.marks if self.plan is not None
                        and any(ch.address == a for ch in self.plan.changes))
        if not chosen:
            node = self._tree("plan").cursor_node
            if node is not None and node.data is not None and node.data.kind == "instance":
                chosen = [node.data.addr]
        if not chosen:
            self.notify("Select or mark resource instances to replace.")
            return
        self._plan(replace=chosen)

    def action_plan_refresh_only(self) -> None:
        self._plan(refresh_only=True)

    def action_show_vars(self) -> None:
        self._show_vars()

    def _plan(self, destroy: bool = False, targets: list[str] | None = None,
              excludes: list[str] | None = None, *, refresh_only: bool = False,
              replace: list[str] | None = None, orphans: list[str] | None = None) -> None:
        """Plan with the console's variables; `orphans`: the plan must delete exactly these
        (the orphans view's D), and its confirmation follows at once."""
        if not self._guard_idle():
            return
        if self.review is not None:  # the reviewed plan leaves the screen: this directory is planned
            self._leave_review()
            self.plan = None
            self._rebuild_plan_tree()
        self._start_op("destroy plan" if destroy else "refresh-only plan" if refresh_only else "plan")
        self._set_summary("Planning…")
        self.view = "plan"
        self._orphan_plan = list(orphans) if orphans is not None else None
        self.run_plan(destroy, targets or [], excludes or [], refresh_only, replace or [])

    @work(thread=True, exclusive=True, group="op", name="plan", description="plan")
    def run_plan(self, destroy: bool, targets: list[str], excludes: list[str], refresh_only: bool = False,
                 replace: list[str] | None = None) -> ops.PlanOutcome:
        return ops.plan(self.working_dir, self.parallelism, [self.bridge], destroy=destroy,
                        targets=targets, excludes=excludes, on_context=self._set_op_ctx,
                        cli_vars=self.cli_vars, refresh_only=refresh_only, replace=replace)

    def _plan_done(self, out: ops.PlanOutcome) -> None:
        self._show_diags(out.diags, out.files)
        self._op_finished("plan done" if out.plan is not None else "plan failed")
        orphans, self._orphan_plan = self._orphan_plan, None
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
        if orphans is not None:
            self._confirm_orphan_plan(out.plan, orphans)
        elif out.destroy and out.plan.has_changes():
            self._confirm_apply(out.plan)

    def _confirm_orphan_plan(self, plan: Plan, orphans: list[str]) -> None:
        """The orphans' plan is applied only if it deletes exactly them and changes nothing else."""
        changed = {ch.address: ch.action for ch in plan.changes if ch.action is not Action.NOOP}
        wanted = set(orphans)
        if set(changed) == wanted and all(a is Action.DELETE for a in changed.values()):
            self._confirm_apply(plan)
            return
        extra = sorted(set(changed) - wanted)
        missing = sorted(wanted - set(changed))
        why = (f"it would also change {', '.join(extra)}" if extra else
               f"it does not delete {', '.join(missing)}")
        self.notify(f"Not applying the orphans' plan: {why}. Review it here.", severity="error", timeout=10)

    def _summary_text(self, line: str) -> Text:
        t = Text(line, style="bold")
        if self.plan is not None and (self.plan.targets or self.plan.excludes):
            t.append("  (targeted)" if self.plan.targets else "  (with exclusions)", style="yellow")
        return t

    def _visible_changes(self) -> list[ResourceInstanceChange]:
        if self.plan is None:
            return []
        return visible_changes(self.plan.changes, self.show_noop, self.action_filter, self.search)

    def _rebuild_plan_tree(self) -> None:
        tree = self._tree("plan")
        cursor = tree.cursor_node.data.addr if tree.cursor_node and tree.cursor_node.data else None
        tree.clear()
        self.instance_nodes = {}
        changes = self._visible_changes()
        with self.batch_update():
            for mod, resources in group_changes(changes).items():
                mod_changes = [c for rs in resources.values() for c in rs]
                minfo = NodeInfo("module", mod, mod_changes)
                mnode = tree.root.add(self._label(minfo), minfo, expand=True)
                for raddr, rchanges in resources.items():
                    parent = mnode
                    if not is_single_instance(rchanges):  # one unkeyed instance is its own row
                        rinfo = NodeInfo("resource", raddr, rchanges)
                        parent = mnode.add(self._label(rinfo), rinfo, expand=len(rchanges) <= COLLAPSE_ABOVE)
                    for ch in rchanges:
                        address = ch.address  # (a string made on each call: once per row)
                        info = NodeInfo("instance", address, ch)
                        self.instance_nodes[address] = parent.add_leaf(self._lazy_label(info), info)
            self._outputs_node = None
            if self.action_filter == "all" and not self.search:
                self._add_outputs_node(tree)
            self._ephemeral_node = None
            if self.ephemeral.instances and self.walk_operation == "apply":
                self._show_ephemeral_node()
            self._update_plan_title(len(changes))
        target_line = None
        if cursor and cursor in self.instance_nodes:
            target_line = self.instance_nodes[cursor]
        elif self.instance_nodes:
            target_line = next(iter(self.instance_nodes.values()))
            if target_line.parent is not None and not target_line.parent.is_expanded:
                target_line = target_line.parent  # a closed resource stays closed
        if target_line is not None:
            def place(node: Any = target_line) -> None:
                if tree.cursor_line < 0:  # (a cursor moved since the rebuild - a key - stays where it went)
                    tree.move_cursor(node)
            self.call_after_refresh(place)
        elif not changes:
            self._set_detail(Text("No changes to show." if self.plan else "Press p to plan.", style="dim"))

    # ---- outputs: the plan's "Changes to Outputs", and after an apply the values saved
    def _add_outputs_node(self, tree: ConsoleTree) -> None:
        state = self.applied_state if self.plan_applied else None
        has = bool(state.outputs) if state is not None else self.plan is not None and any(
            o.action is not Action.NOOP for o in self.plan.output_changes)
        if has:
            self._outputs_node = tree.root.add("", NodeInfo("outputs", ""), expand=True)
            self._fill_outputs_node()

    def _show_applied_outputs(self) -> None:
        """After an apply: the outputs row lists the values saved (sensitive hidden)."""
        if self._outputs_node is None:
            if self.action_filter == "all" and not self.search:
                self._add_outputs_node(self._tree("plan"))
        else:
            self._fill_outputs_node()
        node = self._tree("plan").cursor_node
        if self.view == "plan" and node is not None and node.data is not None \
                and node.data.kind in ("outputs", "output", "output-change"):
            self._set_detail(self._detail_for(node.data))

    def _fill_outputs_node(self) -> None:
        node = self._outputs_node
        if node is None:
            return
        node.remove_children()
        state = self.applied_state if self.plan_applied else None
        if state is not None:
            node.set_label(Text(f"  Outputs ({len(state.outputs)})", style="bold"))
            for name, o in sorted(state.outputs.items()):
                t = Text(f"    {name} = ")
                t.append("<sensitive>" if o.sensitive else self._output_value(o), style="magenta" if o.sensitive
                         else "cyan")
                node.add_leaf(t, NodeInfo("output", name, o))
            return
        ocs = [o for o in (self.plan.output_changes if self.plan is not None else [])
               if o.action is not Action.NOOP]
        node.set_label(Text(f"  Changes to Outputs ({len(ocs)})", style="bold"))
        for o in ocs:
            node.add_leaf(Text(f"{o.action.symbol:>3} {o.name}", style=ACTION_STYLE.get(o.action, "")),
                          NodeInfo("output-change", o.name, o))

    @staticmethod
    def _output_value(o: Any, one_line: bool = True) -> str:
        """An applied output as `tfconsole output` prints it (Terraform's notation), on one line
        for a tree label."""
        from tfconsole.command.views import format_output_value

        try:
            text = format_output_value(o.value, o.type)
        except Exception:  # noqa: BLE001 - a value the renderer cannot draw is still shown
            text = str(o.value)
        return " ".join(text.split()) if one_line else text

    def _outputs_detail(self, info: NodeInfo) -> Text:
        """Outputs as `terraform plan` ("Changes to Outputs:") or `apply` ("Outputs:") print them;
        sensitive values stay hidden."""
        from tfconsole.command.views import render_output_changes

        state = self.applied_state if self.plan_applied else None
        if state is not None:
            items = state.outputs.items() if info.kind == "outputs" else [(info.addr, info.payload)]
            t = Text("Outputs:\n\n", style="bold")
            for name, o in sorted(items):
                t.append(f"{name} = {'<sensitive>' if o.sensitive else self._output_value(o, one_line=False)}\n")
            return t
        ocs = [o for o in (self.plan.output_changes if self.plan is not None else [])
               if o.action is not Action.NOOP and (info.kind == "outputs" or o.name == info.addr)]
        t = Text("Changes to Outputs:\n", style="bold")
        if ocs:
            t.append_text(diff_text("\n".join(render_output_changes(ocs))))
        return t

    def _update_plan_title(self, shown: int | None = None) -> None:
        """The plan pane's title; `shown` is given by a rebuild that just counted the rows (else
        the counts of the last one serve, if the plan and its filters are the same: returning
        to the plan view must not walk 10,000 changes twice on the key that does it)."""
        parts = ["Plan"]
        if self.plan is not None:
            flags = (self.show_noop, self.action_filter, self.search)
            cached = self._title_counts
            if shown is None and cached is not None and cached[0] is self.plan and cached[1] == flags:
                shown, total = cached[2]
            else:
                shown = len(self._visible_changes()) if shown is None else shown
                total = len([c for c in self.plan.changes if self.show_noop or is_change(c)])
                self._title_counts = (self.plan, flags, (shown, total))
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
            t.append_text(counts_text(info.payload))
        elif info.kind == "resource":
            t.append(" " + str(info.payload[0].addr.resource))
            t.append_text(counts_text(info.payload))
        else:
            ch: ResourceInstanceChange = info.payload
            style = ACTION_STYLE[ch.action]
            t.append(f"{ch.action.symbol:>3} ", style=style)
            # under its resource node a keyed instance needs only its key
            t.append(key_text(ch.addr.key) if ch.addr.key is not None else str(ch.addr.resource), style=style)
            if ch.deposed:
                t.append(f" (deposed {ch.deposed})", style="dim")
            if ch.importing is not None:  # Terraform: "will be imported" / "(imported from "ID")"
                t.append(f" ← import {ch.importing.id!r}" if len(ch.importing.id) <= 24 else " ← import",
                         style=IMPORT_STYLE)
        return t

    def _lazy_label(self, info: NodeInfo) -> Any:
        """A label made when its row is first shown (10,000 rows, a screenful of labels)."""
        return lambda: self._label(info)

    def _plan_decoration(self, node: TreeNode) -> Text | None:
        """Live status after a plan row, computed when the row is rendered (visible rows only)."""
        info = node.data
        if info is None:
            return None
        if info.kind == "ephemeral":
            word = self.ephemeral.word(info.addr)
            return Text(f"  {word}", style="bold red" if word.endswith("failed") else "cyan") if word else None
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
        if self.view not in ("plan", "graph"):  # the graph view filters its own vertices
            self.view = "plan"
        box = self.query_one("#search", Input)
        box.add_class("visible")
        box.value = self.graph_needle if self.view == "graph" else self.search
        self._focus_now(box)

    def on_console_tree_mark_requested(self, msg: ConsoleTree.MarkRequested) -> None:
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
        self._update_plan_title()

    def action_clear_marks(self) -> None:
        self.marks.clear()
        self._rebuild_plan_tree()
        self._rebuild_orphans_tree()

