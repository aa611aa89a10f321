"""The orphans view: state instances the configuration no longer declares; destroy or forget
the marked ones."""
from __future__ import annotations


from rich.text import Text


from ..screens import ConfirmScreen
from ..widgets import NodeInfo


_SHORT_REASON = {
    "delete_because_no_resource_config": "no config",
    "delete_because_no_module": "no module",
    "delete_because_wrong_repetition": "wrong repetition",
    "delete_because_count_index": "count index",
    "delete_because_each_key": "each key",
    "delete_because_no_move_target": "no move target",
}


class OrphansView:
    """Mixin of ConsoleApp (its widgets, reactives and helpers are the app's)."""

    def action_orphans(self) -> None:
        self.view = "orphans"
        self.load_state_view()

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
        """The orphans of the state as last read with the configuration and the console's
        variables (tui/operations.load_state): never a plan's leftovers."""
        out = self.state_outcome
        return list(out.orphans) if out is not None else []

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
        if chosen:  # a normal plan restricted to them (their deletes), confirmed only if exactly that
            self._plan(targets=chosen, orphans=chosen)

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

