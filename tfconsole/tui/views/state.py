"""The state view: state instances and their attributes as `state show` prints them; taint,
untaint and reveal."""
from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import work
from textual.widgets import ContentSwitcher

from tfconsole.diags import Diagnostics

from .. import operations as ops
from ..models.format import key_text
from ..widgets import NodeInfo, TreeNode
from .common import COLLAPSE_ABOVE, value_text


class StateView:
    """Mixin of ConsoleApp (its widgets, reactives and helpers are the app's)."""

    def _state_done(self, out: ops.StateOutcome) -> None:
        self.state_outcome = out
        self._state_title()
        if out.diags.has_errors or self.view != "plan":
            self._show_diags(out.diags, out.files)
        self._rebuild_state_tree()
        self._rebuild_orphans_tree()

    def _edit_done(self, diags: Diagnostics) -> None:
        self._show_diags(diags)
        if not diags.has_errors:
            self.notify("State updated.")
        self.load_state_view()

    def action_state(self) -> None:
        self.view = "state"
        self.load_state_view()

    def load_state_view(self) -> None:
        if self.busy and self.state_outcome is not None:
            # An operation runs: the state it will write is still in memory (an apply writes the
            # state when it ends; its progress is in the journal), so the stored state is what
            # was read already. Reading and decoding it again (0.2 s of CPU at 10,000
            # instances, on a thread sharing the interpreter with the keys typed meanwhile)
            # would show the same. It is read when the operation ends (_state_after_op).
            self._stale_state = True
            self._state_title()
            return
        self._stale_state = False
        self.run_load_state()

    def _state_after_op(self) -> None:
        """An operation ended: the state view, if shown, reads what it wrote."""
        self.state_outcome = None
        if self.view in ("state", "orphans"):
            self.load_state_view()

    @work(thread=True, exclusive=True, group="read", name="state", description="state")
    def run_load_state(self) -> ops.StateOutcome:
        # the orphans view needs the orphans only evaluation finds (count, for_each, module keys)
        return ops.load_state(self.working_dir, self.cli_vars, evaluate=self.view == "orphans")

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
                    single = list(rs.instances) == [None]  # one unkeyed instance is its own row
                    rnode = mnode if single else mnode.add(label, NodeInfo("state-resource", str(rs.addr), rs),
                                                           expand=not many)
                    for key, inst in rs.instances.items():
                        addr = rs.addr.instance(key)
                        info = NodeInfo("state-instance", str(addr), inst)
                        # attributes are added when the instance is first opened
                        inode = rnode.add(self._lazy_state_label(addr, inst), info, expand=False,
                                          loader=self._load_attributes if inst.current is not None else None)
                        first = first or (inode if not many else rnode)
                        if at == str(addr):
                            keep = inode
                    if at == str(rs.addr) and keep is None and not single:
                        keep = rnode
        if self.view == "state" and (keep or first) is not None:
            self.call_after_refresh(tree.move_cursor, keep or first)

    def _lazy_state_label(self, addr: Any, inst: Any) -> Any:
        return lambda: self._state_instance_label(addr, inst)

    def _decode_instance(self, addr_text: str, obj: Any, state: Any = None) -> dict[str, Any]:
        """An instance's attributes as the provider's schema types and marks them (what `state
        show` prints), memoised per state read. `state`: where obj comes from (default: the
        state view's)."""
        key = (addr_text, id(obj))
        if key not in self._decoded:
            from tfconsole.addrs import parse_instance
            from tfconsole.command.views import state_decoder

            addr = parse_instance(addr_text)
            if state is None:
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

    def _instance_blocks(self, addr: Any, state: Any = None) -> dict[str, Any]:
        """The nested blocks of an instance's schema, drawn as blocks ({} without a schema)."""
        from tfconsole.command.views import state_shapes

        if state is None:
            state = self.state_outcome.state if self.state_outcome is not None else None
        rs = state.resources.get(addr.abs_resource()) if state is not None else None
        if rs is None or self._schema_session is None:
            return {}
        try:
            return state_shapes(self._schema_session)(addr, rs.provider)
        except Exception:  # noqa: BLE001 - no schema: the object is drawn as plain attributes
            return {}

    def _applied_text(self, addr_text: str) -> Text | None:
        """After an apply, an instance as the apply left it (the values saved, as `state show`
        prints them, sensitive hidden), or that it was destroyed; None if unknown."""
        from tfconsole.addrs import parse_instance
        from tfconsole.command.views import render_state_instance

        state = self.applied_state
        if state is None:
            return None
        try:
            addr = parse_instance(addr_text)
        except Exception:  # noqa: BLE001 - not an instance address: nothing to show
            return None
        obj = state.current(addr)
        if obj is None:
            return Text(f"# {addr_text}: destroyed by the apply", style="bold")
        value = self._decode_instance(addr_text, obj, state)
        t = Text(f"# {addr_text}: applied", style="bold green")
        t.append("\n" + render_state_instance(addr, value, shape=self._instance_blocks(addr, state)).split("\n", 1)[1])
        return t

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
        t.append(key_text(addr.key) if addr.key is not None else str(addr.resource))
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
            text = value_text(value)
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
                t.append(value_text(value, multiline=True))
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
        addr = parse_instance(info.addr)
        body = render_state_instance(addr, value, shape=self._instance_blocks(addr)).split("\n", 1)[1]  # "# ADDR:" is above
        t.append("\n" + body)
        if obj.dependencies:
            t.append("\n\ndepends on: " + ", ".join(obj.dependencies), style="dim")
        t.append("\n\nT taints, U untaints; r reveals sensitive values.", style="dim")
        return t

    def _state_title(self) -> None:
        if self.view == "state":
            title = "State · SENSITIVE VALUES SHOWN (r hides)" if self.reveal else "State"
            if self._stale_state:
                title += f" · as read before this {self.op_name or 'operation'}"
            self.query_one("#views", ContentSwitcher).border_title = title

    def action_reveal(self) -> None:
        self.reveal = not self.reveal
        self._state_title()
        self.notify("Sensitive values revealed." if self.reveal else "Sensitive values hidden.")
        if self.state_outcome is not None:
            self._rebuild_state_tree()
        node = self._tree(self.view).cursor_node if self.view != "graph" else None
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

