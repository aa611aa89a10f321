"""A yes/no modal: y confirms, n or escape cancels. Dismisses with a bool."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("y", "confirm", "Yes"),
        Binding("n", "cancel", "No"),
        Binding("escape", "cancel", "Cancel", show=False),
    ]

    def __init__(self, title: str, body: str, danger: bool = False) -> None:
        super().__init__()
        self.title_text = title
        self.body_text = body
        self.danger = danger

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog", classes="danger" if self.danger else ""):
            yield Static(self.title_text, id="confirm-title")
            yield Static(self.body_text, id="confirm-body")
            yield Static("[b]y[/b] confirm    [b]n[/b] / [b]esc[/b] cancel", id="confirm-keys")

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
