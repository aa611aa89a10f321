"""Read-only plan review: a plan made elsewhere (Terraform's `show -json`, a tfconsole plan
file or its JSON) shown in the plan review, which refuses to apply it."""
from __future__ import annotations

import os
from typing import Any

from rich.text import Text
from textual import work

from tfconsole.diags import Diagnostics

from .. import operations as ops


class ReviewView:
    """Mixin of ConsoleApp (its widgets, reactives and helpers are the app's). `self.review`
    is the ReviewPlan on screen, or None when the plan is this directory's own."""

    review: Any = None

    def open_review(self, path: str) -> None:
        """`tfconsole ui -plan=FILE` and `:open FILE` (relative to the working directory)."""
        if not self._guard_idle():
            return
        full = path if os.path.isabs(path) else os.path.join(self.working_dir, path)
        self._start_op("open plan")
        self._set_summary(f"Opening {path}…")
        self.view = "plan"
        self.run_open_plan(full)

    @work(thread=True, exclusive=True, group="op", name="open_plan", description="open plan")
    def run_open_plan(self, path: str) -> tuple[Any, Diagnostics]:
        return ops.review_plan(path)

    def _open_plan_done(self, result: tuple[Any, Diagnostics]) -> None:
        review, diags = result
        self._show_diags(diags, {})
        if review is None:
            self._op_finished("open failed")
            why = next((d.detail for d in diags.errors()), "")
            self._set_summary(Text(f"Cannot open the plan: {why}", style="bold red"))
            self.notify(why, title="Cannot open the plan", severity="error", timeout=10)
            return
        self._op_finished("reviewing")
        self.review = review
        self.plan, self.plan_ctx, self.plan_applied = review.plan, None, False
        self.graph_info = self.applied_state = None
        self._reset_progress()
        self._rebuild_plan_tree()
        self._show_workdir()
        line = review.plan.summary_line() if review.plan.has_changes() else "No changes."
        t = Text(f"{line}  ", style="bold")
        t.append(f"(read-only review of {os.path.basename(review.path)}: p plans this directory instead)",
                 style="yellow")
        self._set_summary(t)

    def _leave_review(self) -> None:
        if self.review is not None:
            self.review = None
            self._show_workdir()

    def _review_refuses(self, what: str) -> bool:
        """True (and says why) when `what` would act on a plan opened read-only."""
        if self.review is None:
            return False
        self.notify(f"{os.path.basename(self.review.path)} is open read-only for review: tfconsole does not "
                    f"{what} it. Press p to plan this directory.", title="Read-only", severity="warning",
                    timeout=8)
        return True

    def _review_header(self) -> str | None:
        if self.review is None:
            return None
        return f"{os.path.basename(self.review.path)} · {self.review.source} · read-only"
