"""A confirmation modal. Ordinary actions: y confirms, n or escape cancels. Destructive ones
(typed=True: destroying or replacing anything) ask, as Terraform does, for `yes` typed out and
Enter; anything else cancels. Dismisses with a bool."""
from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("y", "confirm", "Yes"),
        Binding("n", "cancel", "No"),
        Binding("escape", "cancel", "Cancel", show=False),
    ]

    def __init__(self, title: str, body: str, danger: bool = False, typed: bool = False) -> None:
        super().__init__()
        self.title_text = title
        self.body_text = body
        self.danger = danger
        self.typed = typed

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog", classes="danger" if self.danger else ""):
            yield Static(self.title_text, id="confirm-title")
            yield Static(self.body_text, id="confirm-body")
            if self.typed:
                yield Static("Only [b]yes[/b] will be accepted to approve; [b]esc[/b] cancels.", id="confirm-keys")
                yield Input(placeholder="Enter a value", id="confirm-input")
            else:
                yield Static("[b]y[/b] confirm    [b]n[/b] / [b]esc[/b] cancel", id="confirm-keys")

    def on_mount(self) -> None:
        if self.typed:
            self.query_one("#confirm-input", Input).focus()

    def action_confirm(self) -> None:
        if not self.typed:  # with a typed answer, "y" is just a letter of it
            self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)

    @on(Input.Submitted, "#confirm-input")
    def _answered(self, event: Input.Submitted) -> None:
        self.dismiss(event.value == "yes")
