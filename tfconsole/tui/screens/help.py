"""The ? screen: every key, grouped by view.

Keys and their descriptions sit in two columns of a grid, so a description that wraps (at 80
columns many do) continues under its own column, never under the keys.
"""
from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

SECTIONS: list[tuple[str, list[tuple[str, str]]]] = [
    ("Operations", [
        ("p", "plan (review it in the left tree)"),
        ("a", "apply the reviewed plan (y; a plan that deletes or replaces anything asks for yes)"),
        ("d", "plan a destroy, then confirm it with yes"),
        ("x", "cancel the running operation (in-flight work finishes, state is saved)"),
        ("ctrl+c", "during an operation: cancel it (twice: stop at once); when idle: quit"),
    ]),
    ("Moving", [
        ("↑ ↓ j k", "move; pgup / pgdn, home / end, G jump"),
        ("enter → ←", "open / close a module, resource or state instance; resources with more than 50 "
                      "instances start closed, their row shows the counts and, during an apply, the progress"),
        ("> ! =", "during an apply: next running / next failed instance; = follows the newest running one"),
    ]),
    ("Plan review", [
        ("space", "mark / unmark the row under the cursor and move down"),
        ("t / e", "re-plan with the marks as targets (-target) / exclusions (-exclude)"),
        ("R", "re-plan with the marked (or selected) instances as -replace"),
        ("c", "clear marks"),
        ("n", "show / hide no-op instances"),
        ("f", "filter by action: all, create, update, delete, replace, import"),
        ("/", "search addresses (esc clears)"),
    ]),
    ("Views", [
        ("g", "the live graph: vertices in layers by dependency depth, each with its status (waiting on "
              "ADDR, queued, running 3.2s, done 1.1s, failed, skipped; ⧗ an ephemeral resource's open / "
              "renew / close)"),
        ("  ← →", "follow an edge to a dependency / a dependent; . , the other ones; backspace back"),
        ("  enter m", "collapse the vertex's module (or open it); m: every module"),
        ("  v", "after an apply: the timeline; the critical path heads the graph"),
        ("  z /", "centre the selection; filter vertices by address"),
        ("s", "state: module → resource → instance → attributes"),
        ("r", "reveal / hide sensitive attributes (state view)"),
        ("T / U", "taint / untaint the selected state instance"),
        ("o", "orphans: state instances without configuration"),
        ("D / F", "destroy (typed yes) / forget (state rm, y) the selected or marked orphans"),
        ("L", "the diagnostics and progress log full screen (L or esc: back)"),
        ("esc", "back to the plan review"),
    ]),
    ("Command line (:)", [
        (":plan :apply", "also destroy, refresh-only, replace ADDR, target ADDR, exclude ADDR, state, "
                         "orphans, graph ADDR, demo, help, quit"),
        (":var k=v", "also :var-file F, :unset NAME, :vars: the values every plan uses"),
        (":open FILE", "review a plan read-only: terraform show -json output, a tfconsole plan file or "
                       "its JSON (also: tfconsole ui -plan=FILE)"),
        (":workspace", "[new] NAME selects (or creates) a workspace; W: the next one"),
    ]),
    ("Other", [
        ("ctrl+p", "command palette (every action by name)"),
        ("?", "this help (esc or ? closes it)"),
        ("q", "quit (asks first during an apply)"),
    ]),
]


def help_renderable() -> Group:
    parts: list = [Text("tfconsole — keys", style="bold")]
    for title, keys in SECTIONS:
        grid = Table.grid(padding=(0, 2))
        grid.add_column(no_wrap=True, style="bold cyan", min_width=10)
        grid.add_column(ratio=1)
        for key, text in keys:
            grid.add_row(key, text)
        parts += [Text(""), Text(title, style="bold underline"), grid]
    return Group(*parts)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("question_mark", "close", "Close", show=False),
        Binding("q", "close", "Close", show=False),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog"):
            yield Static(help_renderable(), id="help-text")

    def action_close(self) -> None:
        self.dismiss(None)
