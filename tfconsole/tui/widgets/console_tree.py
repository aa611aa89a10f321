"""A Tree whose nodes carry addresses; space marks a node instead of folding it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.binding import Binding
from textual.message import Message
from textual.widgets import Tree


@dataclass
class NodeInfo:
    kind: str  # module | resource | instance | attribute | vertex | orphan | output
    addr: str
    payload: Any = None


class ConsoleTree(Tree[NodeInfo]):
    BINDINGS = [
        Binding("space", "mark", "Mark", show=False),
        Binding("right", "expand_node", "Expand", show=False),
        Binding("left", "collapse_node", "Collapse", show=False),
    ]

    @dataclass
    class MarkRequested(Message):
        tree: "ConsoleTree"
        info: NodeInfo

    def action_mark(self) -> None:
        node = self.cursor_node
        if node is not None and node.data is not None:
            self.post_message(self.MarkRequested(self, node.data))

    def action_expand_node(self) -> None:
        node = self.cursor_node
        if node is not None and node.allow_expand:
            node.expand()

    def action_collapse_node(self) -> None:
        node = self.cursor_node
        if node is None:
            return
        if node.is_expanded and node.allow_expand:
            node.collapse()
        elif node.parent is not None and node.parent is not self.root:
            self.select_node(node.parent)
            self.move_cursor(node.parent)
