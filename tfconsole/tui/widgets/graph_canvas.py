"""The live graph's drawing: a virtualised list of rows (layer headings, vertices, collapsed
modules, critical path, timeline bars) rendered through the Line API.

The widget knows nothing of graphs: the app gives it rows (attributes down) and a `render_row`
function called at paint time for visible rows only, so a status change anywhere in a
10,000-vertex walk costs one repaint of the pane. Keys that mean something for the graph
(follow an edge, collapse a module, centre) are posted up as messages.
"""
from __future__ import annotations

from typing import Any, Callable

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


class GraphCanvas(ScrollView, can_focus=True):
    COMPONENT_CLASSES = {"graph-canvas--cursor"}
    DEFAULT_CSS = """
    GraphCanvas > .graph-canvas--cursor { background: $accent 40%; text-style: bold; }
    """
    BINDINGS = [
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end,G", "last", "Last", show=False),
        Binding("left,h", "follow('deps')", "Dependency", show=False),
        Binding("right,l", "follow('dependents')", "Dependent", show=False),
        Binding("backspace", "follow('back')", "Back", show=False),
        Binding("full_stop", "follow('next')", "Next alternative", show=False),
        Binding("comma", "follow('previous')", "Previous alternative", show=False),
        Binding("enter", "toggle", "Collapse", show=False),
        Binding("z", "centre", "Centre", show=False),
    ]

    cursor_line: reactive[int] = reactive(-1, init=False)

    class Highlighted(Message):
        def __init__(self, canvas: "GraphCanvas", row: Any) -> None:
            super().__init__()
            self.canvas = canvas
            self.row = row

    class Follow(Message):
        """Follow an edge from the cursor row: "deps", "dependents", "next" / "previous" (the last
        hop's alternatives) or "back"."""

        def __init__(self, row: Any, direction: str) -> None:
            super().__init__()
            self.row = row
            self.direction = direction

    class Toggle(Message):
        """enter on a row: collapse or open the module it belongs to."""

        def __init__(self, row: Any) -> None:
            super().__init__()
            self.row = row

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[Any] = []
        self.render_row: Callable[[Any, int], Text] = lambda row, width: Text(str(row))
        self._cursor_style: Style | None = None

    # ------------------------------------------------------------------ data down
    def set_rows(self, rows: list[Any], cursor: int = 0) -> None:
        self.rows = rows
        self.virtual_size = Size(self.size.width, len(rows))
        line = max(0, min(cursor, len(rows) - 1)) if rows else -1
        if line == self.cursor_line:  # same line, new row under it: say so
            self._highlight(line)
        self.cursor_line = line
        self.refresh()

    def refresh_visible(self, wanted: Callable[[Any], bool]) -> None:
        """Repaint the rows on screen that are wanted (those a status batch changed)."""
        top = int(self.scroll_offset.y)
        for line in range(top, min(len(self.rows), top + self.size.height)):
            if wanted(self.rows[line]):
                self.refresh_line(line)

    @property
    def cursor_row(self) -> Any:
        return self.rows[self.cursor_line] if 0 <= self.cursor_line < len(self.rows) else None

    def watch_cursor_line(self, previous: int, line: int) -> None:
        self._highlight(line)
        self.refresh()

    def _highlight(self, line: int) -> None:
        if 0 <= line < len(self.rows):
            self._bring_into_view(line)
            self.post_message(self.Highlighted(self, self.rows[line]))

    def _bring_into_view(self, line: int, centre: bool = False) -> None:
        height = self.scrollable_content_region.height or self.size.height
        top = int(self.scroll_offset.y)
        if centre and height:
            self.scroll_to(y=max(0, line - height // 2), animate=False, immediate=True)
        elif line < top:
            self.scroll_to(y=line, animate=False, immediate=True)
        elif height and line >= top + height:
            self.scroll_to(y=line - height + 1, animate=False, immediate=True)

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(self.size.width, len(self.rows))
        if self.cursor_line >= 0:
            self._bring_into_view(self.cursor_line)

    # ------------------------------------------------------------------ actions
    def action_move(self, delta: int) -> None:
        if self.rows:
            self.cursor_line = max(0, min(len(self.rows) - 1, max(self.cursor_line, 0) + delta))

    def action_page(self, sign: int) -> None:
        self.action_move(sign * max(1, self.scrollable_content_region.height - 1))

    def action_first(self) -> None:
        self.action_move(-len(self.rows))

    def action_last(self) -> None:
        self.action_move(len(self.rows))

    def action_follow(self, direction: str) -> None:
        if self.cursor_row is not None or direction == "back":
            self.post_message(self.Follow(self.cursor_row, direction))

    def action_toggle(self) -> None:
        if self.cursor_row is not None:
            self.post_message(self.Toggle(self.cursor_row))

    def action_centre(self) -> None:
        if self.cursor_line >= 0:
            self._bring_into_view(self.cursor_line, centre=True)

    def on_click(self, event: events.Click) -> None:
        line = int(self.scroll_offset.y) + event.y
        if 0 <= line < len(self.rows):
            self.cursor_line = line

    # ------------------------------------------------------------------ rendering
    def render_lines(self, crop: Region) -> list[Strip]:
        self._cursor_style = self.get_component_rich_style("graph-canvas--cursor")
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        line = int(self.scroll_offset.y) + y
        base = self.rich_style
        if not 0 <= line < len(self.rows):
            return Strip.blank(width, base)
        # (the row fits the width left of the scrollbar, or its status would be cut)
        text = self.render_row(self.rows[line], self.scrollable_content_region.width or width)
        text.truncate(width, overflow="ellipsis")
        style = base + (self._cursor_style or Style(reverse=True)) if line == self.cursor_line else base
        segments = list(Segment.apply_style(text.render(self.app.console, end=""), style))
        return Strip(segments, text.cell_len).extend_cell_length(width, style).crop(0, width)
