"""The header line: view, operation, progress (k/M done, r running, slots r/P), timing, the
console's variables and the directory and workspace every action applies to.

At 80 columns the full line does not fit: the words shorten in steps (the brand goes first,
then progress, directory and timing take their short forms) so that the directory and the
workspace stay on screen; only what still does not fit is cut, with an ellipsis.
"""
from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static


class StatusBar(Static):
    operation: reactive[str] = reactive("ready")
    done: reactive[int] = reactive(0)
    total: reactive[int] = reactive(0)
    running: reactive[int] = reactive(0)
    parallelism: reactive[int] = reactive(10)
    workdir: reactive[str] = reactive("")
    view: reactive[str] = reactive("plan")
    timing: reactive[str] = reactive("")  # during an operation: elapsed, and an estimate of the rest
    variables: reactive[int] = reactive(0)  # -var / -var-file values the console's plans use

    def render(self) -> Text:
        width = self.size.width or 200
        for level in range(5):
            t = self.line(level)
            if t.cell_len <= width:
                return t
        # still too long: the directory's name gives way, the workspace after it stays
        t = self.line(4, with_workdir=False)
        name, sep, rest = self.workdir.replace(" · workspace ", " · ws ").partition(" · ")
        room = width - t.cell_len - 2 - len(sep) - len(rest)
        if self.workdir and room >= 4:
            clipped = name if len(name) <= room else name[:room - 1] + "…"
            t.append(f"│ {clipped}{sep}{rest}", style="dim")
        t.truncate(width, overflow="ellipsis")
        return t

    def line(self, level: int = 0, with_workdir: bool = True) -> Text:
        """The line at compaction level 0 (everything in full) to 4 (every short form)."""
        t = Text()
        if level == 0:
            t.append(" tfconsole ", style="bold reverse")
        t.append(f" {self.view} ", style="bold")
        t.append(f"│ {self.operation} ")
        if level < 2:
            t.append(f"│ {self.done}/{self.total} done, {self.running} running, "
                     f"slots {self.running}/{self.parallelism} ")
        elif level < 4:
            t.append(f"│ {self.done}/{self.total} done, {self.running}/{self.parallelism} running ")
        else:  # k/M done, ▶ running of the slots
            t.append(f"│ {self.done}/{self.total} ▶{self.running}/{self.parallelism} ")
        if self.timing:
            t.append(f"│ {self.timing if level < 3 else self.timing.replace(' elapsed', '')} ", style="cyan")
        if self.variables:
            t.append(f"│ {self.variables} var{'s' if self.variables != 1 else ''} ", style="cyan")
        if self.workdir and with_workdir:
            workdir = self.workdir.replace(" · workspace ", " · ws ") if level >= 3 else self.workdir
            t.append(f"│ {workdir}", style="dim")
        return t

    def on_resize(self) -> None:
        self.refresh()
