"""The bottom pane: diagnostics with file:line, then the operation's progress log."""
from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import RichLog


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


LOG_REFRESH = 0.25  # seconds between repaints of the progress log
LOG_KEEP = 200  # progress lines kept (the newest)


class DiagnosticsPane(RichLog):
    """Attributes down: the app sets diagnostics and appends progress lines; this pane renders them.

    A line-API log: each line is wrapped once, when written, and a repaint renders only the
    visible lines - appending progress during a 10,000-vertex apply costs the new lines, not a
    re-layout of the whole pane. Progress lines are appended at most every LOG_REFRESH seconds.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(wrap=True, min_width=20, auto_scroll=False, **kwargs)
        self._diags: list[Any] = []
        self._files: dict[str, str] = {}
        self._log: list[str] = []
        self._pending: list[str] = []
        self._log_timer: Any = None
        self._plain: list[str] = []  # what the pane shows, as plain text (for tests and copying)
        self._placeholder = False

    def show(self, diags: list[Any], files: dict[str, str]) -> None:
        self._diags = list(diags)
        self._files = files
        self._rewrite()
        if self._diags:  # diagnostics matter more than the progress log under them
            self.call_after_refresh(self.scroll_home, animate=False)

    def clear_log(self) -> None:
        self._log = []
        self._pending = []
        if self._log_timer is not None:
            self._log_timer.stop()
            self._log_timer = None
        self._rewrite()

    def add_log(self, lines: list[str]) -> None:
        self._pending.extend(lines)
        if self._log_timer is None:
            self._log_timer = self.set_timer(LOG_REFRESH, self._flush_log)

    def _flush_log(self) -> None:
        self._log_timer = None
        new, self._pending = self._pending, []
        if not new:
            return
        if self._placeholder or len(new) >= LOG_KEEP or len(self._log) + len(new) > 2 * LOG_KEEP:
            # amortised trim: rewrite the newest LOG_KEEP lines once in a while
            self._log = (self._log + new)[-LOG_KEEP:]
            self._rewrite()
        else:
            self._log.extend(new)
            self._write_log(new)
        self.scroll_end(animate=False)

    @property
    def diagnostics(self) -> list[Any]:
        return list(self._diags)

    @property
    def text(self) -> str:
        return "\n".join(self._plain)

    def _rewrite(self) -> None:
        self.clear()
        self._plain = []
        for d in self._diags:
            t = diagnostic_text(d, self._files)
            self.write(t)
            self._plain.append(t.plain)
        if self._log:
            self._write_log(self._log)
        self._placeholder = not self._plain
        # nothing to show: the pane shrinks to one line (at 80x24 every row counts)
        self.set_class(self._placeholder, "empty")
        if self._placeholder:
            self.write(Text("No diagnostics.", style="dim"))
        self.border_title = f"Diagnostics ({len(self._diags)})" if self._diags else "Diagnostics"

    def _write_log(self, lines: list[str]) -> None:
        self.write(Text("\n".join(lines), style="dim"))
        self._plain.extend(lines)
