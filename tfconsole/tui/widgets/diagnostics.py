"""The bottom pane: diagnostics with file:line, then the operation's progress log."""
from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static


def diagnostic_text(d: Any, files: dict[str, str]) -> Text:
    error = d.is_error
    t = Text()
    t.append("✗ Error: " if error else "! Warning: ", style="bold red" if error else "bold yellow")
    t.append(d.summary, style="bold")
    if d.subject is not None:
        t.append(f"  {d.subject.filename}:{d.subject.start.line}", style="cyan")
    if d.address:
        t.append(f"  ({d.address})", style="dim")
    if d.subject is not None:
        lines = files.get(d.subject.filename, "").splitlines()
        ln = d.subject.start.line
        if 0 < ln <= len(lines):
            t.append(f"\n    {ln:>3}: {lines[ln - 1]}", style="dim")
    if d.detail:
        t.append("\n    " + d.detail.replace("\n", "\n    "))
    return t


LOG_REFRESH = 0.25  # seconds


class DiagnosticsPane(VerticalScroll):
    """Attributes down: the app sets diagnostics/log; this pane only renders them."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._diags: list[Any] = []
        self._files: dict[str, str] = {}
        self._log: list[str] = []
        self._log_timer: Any = None
        self._body = Static("", id="diagnostics-body")

    def compose(self):  # type: ignore[no-untyped-def]
        yield self._body

    def show(self, diags: list[Any], files: dict[str, str]) -> None:
        self._diags = list(diags)
        self._files = files
        self._refresh()
        if self._diags:  # diagnostics matter more than the progress log under them
            self.call_after_refresh(self.scroll_home, animate=False)

    def clear_log(self) -> None:
        self._log = []
        if self._log_timer is not None:
            self._log_timer.stop()
            self._log_timer = None
        self._refresh()

    def add_log(self, lines: list[str], keep: int = 200) -> None:
        """Progress lines arrive with every vertex batch; the pane repaints at most every 0.25 s."""
        self._log.extend(lines)
        del self._log[:-keep]
        if self._log_timer is None:
            self._log_timer = self.set_timer(LOG_REFRESH, self._flush_log)

    def _flush_log(self) -> None:
        self._log_timer = None
        self._refresh()

    @property
    def diagnostics(self) -> list[Any]:
        return list(self._diags)

    def _refresh(self) -> None:
        out = Text()
        for d in self._diags:
            if out:
                out.append("\n")
            out.append_text(diagnostic_text(d, self._files))
        for line in self._log:
            if out:
                out.append("\n")
            out.append(line, style="dim")
        if not out:
            out.append("No diagnostics.", style="dim")
        self._body.update(out)
        self.border_title = f"Diagnostics ({len(self._diags)})" if self._diags else "Diagnostics"
        if self._log:
            self.scroll_end(animate=False)
