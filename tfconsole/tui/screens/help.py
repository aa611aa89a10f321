"""The ? screen: every key, grouped by view."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

HELP = """\
[b]tfconsole — keys[/b]

[b]Operations[/b]
  p        plan (review in the left tree)
  a        apply the reviewed plan (asks y/n)
  d        plan a destroy, then confirm it
  x        cancel the running operation (in-flight work finishes, state is saved)

[b]Moving[/b]
  ↑ ↓      move; pgup / pgdn, home / end jump
  enter    open / close a module, resource or state instance (→ opens, ← closes or goes up)
           resources with more than 50 instances start closed; their row shows the counts
           and, during an apply, the progress (k/n done, r running)

[b]Plan review[/b]
  space    mark / unmark the instance, resource or module under the cursor
  t        re-plan with the marks as targets (-target)
  e        re-plan with the marks as exclusions (-exclude)
  R        re-plan with the marked (or selected) instances as -replace
  c        clear marks
  n        show / hide no-op instances
  f        filter by action (all, create, update, delete, replace)
  /        search addresses (esc clears)

[b]Views[/b]
  g        the live graph: vertices in layers by dependency depth, each with its status
           (waiting on ADDR, queued, running 3.2s, done 1.1s, failed, skipped)
    ← →    follow an edge to a dependency / a dependent; . , the other ones; backspace back
    enter  collapse the module of the vertex (or open a collapsed module); m: every module
    v      after an apply: the timeline (a bar per vertex over wall time); the critical
           path heads the graph: the chain of vertices that determined the wall time
    z      centre the selection; / filters vertices by address
  s        state: module → resource → instance → attributes
  r        reveal / hide sensitive attributes (state view)
  T / U    taint / untaint the selected state instance
  o        orphans: state instances without configuration
  D        destroy the selected or marked orphans (a plan deleting exactly them, typed yes)
  F        forget (state rm) the selected or marked orphans (asks y/n)
  esc      back to the plan review

[b]Workspaces[/b]
  W        switch to the next workspace (the status line names the current one)
  :workspace [new] NAME   select (or create) a workspace; :workspace lists them

[b]Other[/b]
  :        command line: plan, apply, destroy, refresh-only, replace ADDR, state, orphans,
           graph ADDR, workspace, demo, help, quit
  :var k=v / :var-file F / :unset NAME / :vars
           the -var and -var-file values every plan uses (also: tfconsole ui -var k=v)
  L        the diagnostics and progress log full screen (L again: back)
  ctrl+p   command palette
  ?        this help
  q        quit
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("question_mark", "close", "Close", show=False),
        Binding("q", "close", "Close", show=False),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog"):
            yield Static(HELP, id="help-text")

    def action_close(self) -> None:
        self.dismiss(None)
