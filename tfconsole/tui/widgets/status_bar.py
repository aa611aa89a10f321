"""The header line: operation, progress (k/M done, r running, slots r/P) and the summary."""
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
        t = Text()
        t.append(" tfconsole ", style="bold reverse")
        t.append(f" {self.view} ", style="bold")
        t.append(f"│ {self.operation} ")
        t.append(f"│ {self.done}/{self.total} done, {self.running} running, "
                 f"slots {self.running}/{self.parallelism} ")
        if self.timing:
            t.append(f"│ {self.timing} ", style="cyan")
        if self.variables:
            t.append(f"│ {self.variables} var{'s' if self.variables != 1 else ''} ", style="cyan")
        if self.workdir:
            t.append(f"│ {self.workdir}", style="dim")
        return t
