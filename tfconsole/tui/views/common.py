"""Styles and rich renderings shared by the console's views (no widgets here)."""
from __future__ import annotations

import json
import re
from typing import Any, Iterable

from rich.text import Text

from tfconsole.plans import Action, ResourceInstanceChange

ACTION_STYLE = {
    Action.CREATE: "green", Action.UPDATE: "yellow", Action.DELETE: "red",
    Action.DELETE_THEN_CREATE: "magenta", Action.CREATE_THEN_DELETE: "magenta",
    Action.READ: "cyan", Action.FORGET: "red", Action.NOOP: "dim",
}
STATUS_STYLE = {"waiting": "dim", "queued": "cyan", "running": "bold yellow", "done": "green",
                "failed": "bold red", "skipped": "dim red"}
# a walk vertex name is an instance address plus its action: "x.y[0] (create)"
VERTEX_SUFFIX = re.compile(r" \([a-z][a-z -]*\)$")
# a resource with more instances than this starts closed in the plan and state trees: its row
# shows the counts (and the live progress during an apply); enter or right opens it
COLLAPSE_ABOVE = 50
IMPORT_STYLE = "bold cyan"
_DIFF_STYLE = {"+": "green", "-": "red", "~": "yellow", "-/+": "magenta", "+/-": "magenta", "<=": "cyan"}


def counts_text(changes: Iterable[ResourceInstanceChange]) -> Text:
    counts: dict[Action, int] = {}
    imports = 0
    for c in changes:
        imports += c.importing is not None
        if c.action is Action.NOOP and c.importing is not None:
            continue  # an import alone is counted as an import, not as a no-op
        counts[c.action] = counts.get(c.action, 0) + 1
    t = Text()
    if imports:  # Terraform's "N to import" comes first in its summary too
        t.append(f" import {imports}", style=IMPORT_STYLE)
    for action in (Action.CREATE, Action.UPDATE, Action.DELETE_THEN_CREATE, Action.CREATE_THEN_DELETE,
                   Action.DELETE, Action.READ, Action.FORGET, Action.NOOP):
        n = counts.get(action)
        if n:
            sym = action.symbol.strip() or "="
            t.append(f" {sym}{n}", style=ACTION_STYLE[action])
    return t


def diff_text(text: str) -> Text:
    """Colour Terraform's diff text by each line's leading action symbol."""
    out = Text()
    for i, line in enumerate(text.splitlines()):
        if i:
            out.append("\n")
        body = line.lstrip()
        style = ""
        if body.startswith("#"):
            style = "bold"
        else:
            for sym in ("-/+", "+/-", "<=", "+", "-", "~"):
                if body.startswith(sym + " "):
                    style = _DIFF_STYLE[sym]
                    break
        out.append(line, style=style)
    return out


def value_text(value: Any, multiline: bool = False) -> str:
    """An attribute value as `state show` writes values (HCL-like: strings quoted, maps with =)."""
    from tfconsole.command.views import render_value

    try:
        text = render_value(value)
    except Exception:  # noqa: BLE001 - a value the renderer cannot draw is still shown
        text = json.dumps(value, ensure_ascii=False, default=str)
    return text if multiline else " ".join(text.split())
