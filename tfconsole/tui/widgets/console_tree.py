"""A virtualised tree: any number of nodes, only the visible rows rendered.

The console's panes hold up to tens of thousands of rows (a 10,000-instance plan, its graph, its
state). Textual's Tree keeps a widget-wide line cache and relabels through one callback per node,
which floods the message queue when thousands of labels change at once. This widget keeps a plain
node model, flattens the expanded part into a row list only when the structure changes, and
renders rows on demand through the Line API (`render_line`), so a repaint costs the height of the
pane, whatever the number of nodes.

Labels can be dynamic: set `decorate` (attributes down) to a function that returns the text shown
after a node's label; it is called at render time, so a status change needs only `refresh()` -
one repaint of the visible rows - instead of a relabel per node. Space marks a node (the app
decides what a mark means); enter or right/left open and close nodes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Union

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip


# a label: text, or a function that makes it when the row is first shown
Label = Union[str, Text, Callable[[], Text]]


@dataclass
class NodeInfo:
    kind: str  # module | resource | instance | attribute | vertex | orphan | output
    addr: str
    payload: Any = None


class TreeNode:
    """One node: a label, plain data, children. Structural changes tell the tree to re-flatten."""

    __slots__ = ("_tree", "parent", "children", "data", "_label", "_expanded", "allow_expand", "_loader", "line")

    def __init__(self, tree: "ConsoleTree", parent: "TreeNode | None", label: Label, data: Any,
                 expanded: bool, allow_expand: bool, loader: Callable[["TreeNode"], None] | None = None) -> None:
        self._tree = tree
        self.parent = parent
        self.children: list[TreeNode] = []
        self.data = data
        self._label = label
        self._expanded = expanded
        self.allow_expand = allow_expand
        self._loader = loader
        self.line = -1  # row index while visible, -1 when hidden under a closed ancestor

    def __repr__(self) -> str:
        return f"TreeNode({self.label.plain!r})"

    # ---- structure
    def add(self, label: Label, data: Any = None, *, expand: bool = False, allow_expand: bool = True,
            loader: Callable[["TreeNode"], None] | None = None) -> "TreeNode":
        """A child that can hold children; `loader` fills it on first expansion (lazy children)."""
        node = TreeNode(self._tree, self, label, data, expand, allow_expand, loader)
        self.children.append(node)
        if self._expanded or self is self._tree.root:
            self._tree._structure_changed()
        return node

    def add_leaf(self, label: Label, data: Any = None) -> "TreeNode":
        return self.add(label, data, expand=False, allow_expand=False)

    def remove_children(self) -> None:
        self.children = []
        self._tree._structure_changed()

    def remove(self) -> None:
        """Take this node (and its children) out of the tree."""
        if self.parent is not None and self in self.parent.children:
            self.parent.children.remove(self)
            self._tree._structure_changed()

    # ---- state
    @property
    def label(self) -> Text:
        label = self._label
        if not isinstance(label, Text):
            label = self._label = label() if callable(label) else Text(label)
        return label

    def set_label(self, label: Label) -> None:
        self._label = label
        self._tree.refresh_node(self)

    @property
    def is_expanded(self) -> bool:
        return self._expanded

    @property
    def is_root(self) -> bool:
        return self.parent is None

    def expand(self) -> "TreeNode":
        if self._loader is not None:
            loader, self._loader = self._loader, None
            loader(self)
        if not self._expanded:
            self._expanded = True
            self._tree._structure_changed()
        return self

    def collapse(self) -> "TreeNode":
        if self._expanded:
            self._expanded = False
            self._tree._structure_changed()
        return self

    def toggle(self) -> "TreeNode":
        return self.collapse() if self._expanded else self.expand()

    @property
    def can_expand(self) -> bool:
        return self.allow_expand and (bool(self.children) or self._loader is not None)

    def refresh(self) -> None:
        self._tree.refresh_node(self)


class ConsoleTree(ScrollView, can_focus=True):
    DEFAULT_CSS = """
    ConsoleTree {
        overflow-x: hidden;
        overflow-y: auto;
        background: $surface;
        color: $foreground;
        & > .console-tree--cursor {
            background: $block-cursor-blurred-background;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus > .console-tree--cursor {
            color: $block-cursor-foreground;
            background: $block-cursor-background;
            text-style: $block-cursor-text-style;
        }
    }
    """
    COMPONENT_CLASSES = {"console-tree--cursor"}

    BINDINGS = [
        Binding("up", "cursor_up", "Up", show=False),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home", "cursor_home", "First", show=False),
        Binding("end", "cursor_end", "Last", show=False),
        Binding("enter", "toggle_node", "Open/close", show=False),
        Binding("space", "mark", "Mark", show=False),
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("G", "cursor_end", "Last", show=False),
        Binding("right", "expand_node", "Expand", show=False),
        Binding("left", "collapse_node", "Collapse", show=False),
    ]

    cursor_line: reactive[int] = reactive(-1, always_update=False, init=False)

    @dataclass
    class MarkRequested(Message):
        tree: "ConsoleTree"
        info: NodeInfo

    class NodeHighlighted(Message):
        """The cursor moved onto another node."""

        def __init__(self, tree: "ConsoleTree", node: TreeNode) -> None:
            super().__init__()
            self.tree = tree
            self.node = node

        @property
        def control(self) -> "ConsoleTree":
            return self.tree

    def __init__(self, label: str = "", *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.root = TreeNode(self, None, label, None, True, True)
        self.decorate: Callable[[TreeNode], Text | None] | None = None
        self._rows: list[tuple[TreeNode, int]] | None = []
        self._cursor_node: TreeNode | None = None
        self._styles: tuple[Style, Style] | None = None
        self.rendered_lines = 0  # rows rendered since mount (tests prove virtualisation with these)
        self.repaints = 0

    # ------------------------------------------------------------------ model
    def clear(self) -> "ConsoleTree":
        self.root = TreeNode(self, None, self.root._label, None, True, True)
        self._cursor_node = None
        self._structure_changed()
        self.set_reactive(ConsoleTree.cursor_line, -1)
        return self

    def _structure_changed(self) -> None:
        # O(1): adding 10,000 nodes re-flattens once, before the next repaint
        if self._rows is not None:
            self._rows = None
            self.refresh()
            self.call_later(lambda: self.rows)

    @property
    def rows(self) -> list[tuple[TreeNode, int]]:
        """(node, depth) for every visible row (the root itself is never shown)."""
        if self._rows is None:
            self._flatten()
        assert self._rows is not None
        return self._rows

    def _flatten(self) -> None:
        rows: list[tuple[TreeNode, int]] = []
        # hidden nodes keep a stale line number; reset the previously visible ones
        if self._rows:
            for node, _ in self._rows:
                node.line = -1
        stack: list[tuple[TreeNode, int]] = [(c, 0) for c in reversed(self.root.children)]
        while stack:
            node, depth = stack.pop()
            node.line = len(rows)
            rows.append((node, depth))
            if node._expanded and node.children:
                stack.extend((c, depth + 1) for c in reversed(node.children))
        self._rows = rows
        self.virtual_size = Size(self.size.width, len(rows))
        cursor = self._cursor_node
        if cursor is not None:
            line = cursor.line
            if line < 0:  # hidden under a closed ancestor: move to the nearest visible ancestor
                while cursor is not None and cursor.line < 0:
                    cursor = cursor.parent
                line = cursor.line if cursor is not None else (0 if rows else -1)
            self.set_reactive(ConsoleTree.cursor_line, line)
            self._cursor_node = rows[line][0] if 0 <= line < len(rows) else None
        elif self.cursor_line >= len(rows):
            self.set_reactive(ConsoleTree.cursor_line, len(rows) - 1)

    def walk(self, node: TreeNode | None = None) -> Iterator[TreeNode]:
        """Every node under node (default: the root), depth first, expanded or not."""
        stack = list(reversed((node or self.root).children))
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(n.children))

    # ------------------------------------------------------------------ cursor
    @property
    def cursor_node(self) -> TreeNode | None:
        rows = self.rows
        line = self.cursor_line
        if 0 <= line < len(rows):
            return rows[line][0]
        return None

    def move_cursor(self, node: TreeNode | None, animate: bool = False) -> None:
        if node is None or node._tree is not self:
            return
        parent = node.parent
        while parent is not None and parent is not self.root:
            if not parent._expanded:
                parent.expand()
            parent = parent.parent
        line = node.line if self._rows is not None else -1
        if line < 0:
            self.rows  # re-flatten now
            line = node.line
        if line >= 0:
            self.cursor_line = line

    select_node = move_cursor

    def watch_cursor_line(self, previous: int, line: int) -> None:
        rows = self.rows
        node = rows[line][0] if 0 <= line < len(rows) else None
        self._cursor_node = node
        self._refresh_row(previous)
        self._refresh_row(line)
        if node is not None:
            self._scroll_to_row(line)
            self.post_message(self.NodeHighlighted(self, node))

    def _scroll_to_row(self, line: int) -> None:
        height = self.scrollable_content_region.height or self.size.height
        top = int(self.scroll_offset.y)
        if line < top:
            self.scroll_to(y=line, animate=False, immediate=True)
        elif height and line >= top + height:
            self.scroll_to(y=line - height + 1, animate=False, immediate=True)

    def _refresh_row(self, line: int) -> None:
        if line < 0:
            return
        y = line - int(self.scroll_offset.y)
        if 0 <= y < self.size.height:
            self.refresh(Region(0, y, self.size.width, 1))

    def refresh_visible(self, wanted: Callable[[TreeNode], bool]) -> None:
        """Repaint the rows on screen whose node is wanted (a status batch changes a few of
        them: repainting only those keeps the compositor's work to those lines)."""
        rows = self.rows
        top = int(self.scroll_offset.y)
        for line in range(top, min(len(rows), top + self.size.height)):
            if wanted(rows[line][0]):
                self._refresh_row(line)

    def refresh_node(self, node: TreeNode) -> None:
        """Repaint node's row if it is on screen (off-screen rows are rendered when they scroll in)."""
        if self._rows is not None and node.line >= 0:
            self._refresh_row(node.line)

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(self.size.width, len(self.rows))
        if self.cursor_line >= 0:
            self._scroll_to_row(self.cursor_line)

    # ------------------------------------------------------------------ actions
    def _move(self, delta: int) -> None:
        n = len(self.rows)
        if not n:
            return
        line = self.cursor_line if self.cursor_line >= 0 else (0 if delta > 0 else n - 1)
        if self.cursor_line >= 0:
            line = max(0, min(n - 1, line + delta))
        self.cursor_line = line

    def action_cursor_up(self) -> None:
        self._move(-1)

    def action_cursor_down(self) -> None:
        self._move(1)

    def action_page_up(self) -> None:
        self._move(-max(1, self.scrollable_content_region.height - 1))

    def action_page_down(self) -> None:
        self._move(max(1, self.scrollable_content_region.height - 1))

    def action_cursor_home(self) -> None:
        if self.rows:
            self.cursor_line = 0

    def action_cursor_end(self) -> None:
        if self.rows:
            self.cursor_line = len(self.rows) - 1

    def action_toggle_node(self) -> None:
        node = self.cursor_node
        if node is not None and node.can_expand:
            node.toggle()

    def action_mark(self) -> None:
        node = self.cursor_node
        if node is not None and node.data is not None:
            self.post_message(self.MarkRequested(self, node.data))
            self._move(1)  # marking several rows in a row, as in a file manager

    def action_expand_node(self) -> None:
        node = self.cursor_node
        if node is not None and node.can_expand:
            node.expand()

    def action_collapse_node(self) -> None:
        node = self.cursor_node
        if node is None:
            return
        if node.is_expanded and node.can_expand:
            node.collapse()
        elif node.parent is not None and node.parent is not self.root:
            self.move_cursor(node.parent)

    def on_click(self, event: events.Click) -> None:
        line = int(self.scroll_offset.y) + event.y
        if 0 <= line < len(self.rows):
            if line == self.cursor_line and event.chain >= 2:
                self.action_toggle_node()
            self.cursor_line = line

    # ------------------------------------------------------------------ rendering
    def render_lines(self, crop: Region) -> list[Strip]:
        # component styles once per repaint, not once per row
        self._styles = (self.rich_style, self.get_component_rich_style("console-tree--cursor"))
        self.repaints += 1
        return super().render_lines(crop)

    def row_text(self, node: TreeNode, depth: int, width: int | None = None) -> Text:
        """The row as text: indentation, open/closed marker, label, then the dynamic decoration.
        Given a width, a row too long for it shortens its label, never the status after it
        (`running 3.2s` matters more than the end of a long address)."""
        t = Text("  " * depth)
        if node.can_expand:
            t.append("▼ " if node._expanded else "▶ ")
        t.append_text(node.label)
        extra = self.decorate(node) if self.decorate is not None else None
        if not extra:
            return t
        if width is not None and t.cell_len + extra.cell_len > width:
            # (a long status, "waiting on ADDR", is itself cut at the end after the label's 12)
            t.truncate(max(min(t.cell_len, 12), width - extra.cell_len), overflow="ellipsis")
        t.append_text(extra)
        return t

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        line = int(self.scroll_offset.y) + y
        rows = self.rows
        base, cursor = self._styles or (self.rich_style, Style(reverse=True))
        if not 0 <= line < len(rows):
            return Strip.blank(width, base)
        self.rendered_lines += 1
        node, depth = rows[line]
        # (the rows fit the width left of the scrollbar, or their status would be cut)
        text = self.row_text(node, depth, self.scrollable_content_region.width or width)
        text.truncate(width, overflow="ellipsis")
        style = base
        if line == self.cursor_line:
            style = base + cursor
        segments = list(Segment.apply_style(text.render(self.app.console, end=""), style))
        return Strip(segments, text.cell_len).extend_cell_length(width, style).crop(0, width)
