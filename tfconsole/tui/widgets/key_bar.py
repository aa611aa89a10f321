"""The footer: the active key bindings on one line.

Textual's Footer mounts a widget per binding and recomposes whenever the bindings change (here:
on every view switch and at the start and end of each operation), which costs tens of
milliseconds of styling work on the event loop - while an apply streams in, that is felt on the
keyboard. This bar renders the same information as one line of text; a click on a key runs its
action.
"""
from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.widget import Widget


class KeyBar(Widget):
    DEFAULT_CSS = """
    KeyBar {
        height: 1;
        background: $footer-background;
        color: $footer-foreground;
        & > .key-bar--key { color: $footer-key-foreground; background: $footer-key-background;
                            text-style: bold; }
        & > .key-bar--description { color: $footer-description-foreground; }
    }
    """
    COMPONENT_CLASSES = {"key-bar--key", "key-bar--description"}

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._spans: list[tuple[int, int, str]] = []  # (start, end, action) for clicks

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Any) -> None:
        self.refresh()

    def render(self) -> Text:
        key_style = self.get_component_rich_style("key-bar--key")
        desc_style = self.get_component_rich_style("key-bar--description")
        t = Text(no_wrap=True, overflow="ellipsis")
        spans: list[tuple[int, int, str]] = []
        seen: set[str] = set()
        palette = None
        for _node, binding, enabled, _tooltip in self.screen.active_bindings.values():
            if binding.key == self.app.COMMAND_PALETTE_BINDING:
                palette = binding
                continue
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            start = t.cell_len
            # " p Plan a Apply ...": keys bold in the accent colour; fits 80 columns
            t.append(" ")
            t.append(self.app.get_key_display(binding), style=key_style if enabled else "dim")
            t.append(f" {binding.description}", style=desc_style if enabled else "dim")
            spans.append((start, t.cell_len, binding.action))
        if palette is not None and self.app.ENABLE_COMMAND_PALETTE:
            tail = Text.assemble((self.app.get_key_display(palette), key_style),
                                 (f" {palette.description} ", desc_style))
            gap = self.size.width - t.cell_len - tail.cell_len
            if gap > 0:
                t.append(" " * gap)
                t.append_text(tail)
        self._spans = spans
        return t

    async def on_click(self, event: events.Click) -> None:
        for start, end, action in self._spans:
            if start <= event.x < end:
                await self.app.run_action(action, self.screen)
                return
