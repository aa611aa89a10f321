"""Ephemeral resources as the console follows them: each instance's open / renew / close as a
status word, and each ephemeral block vertex's summary for the graph (textual-free).

Ephemeral instances are not in the plan's changes (nothing of them is planned or stored): the
walk reports them through the pre/post ephemeral hooks, and this model is all the console
knows of them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .format import fmt_seconds

_DOING = {"open": "opening", "renew": "renewing", "close": "closing"}


@dataclass(frozen=True)
class EphemeralEvent:
    """One hook call: `phase` "start" (pre_ephemeral) or "end" (post_ephemeral)."""

    addr: str
    action: str  # open | renew | close
    phase: str
    elapsed: float = 0.0
    error: str | None = None


@dataclass
class EphemeralInstance:
    addr: str
    state: str = "opening"  # opening | open | renewing | closing | closed | failed
    opened_in: float | None = None  # seconds the open took
    renewals: int = 0
    error: str = ""
    failed_action: str = ""
    history: list[str] = field(default_factory=list)  # "open 0.2s", "renew 1ms", ...


class EphemeralTracker:
    """Every ephemeral instance of the current walk, in the order they were first seen."""

    def __init__(self) -> None:
        self.instances: dict[str, EphemeralInstance] = {}

    def reset(self) -> None:
        self.instances = {}

    def apply(self, events: list[EphemeralEvent]) -> None:
        for ev in events:
            inst = self.instances.setdefault(ev.addr, EphemeralInstance(ev.addr))
            if ev.phase == "start":
                inst.state = _DOING.get(ev.action, ev.action)
                continue
            if ev.error:
                inst.state, inst.error, inst.failed_action = "failed", ev.error, ev.action
            elif ev.action == "open":
                inst.state, inst.opened_in = "open", ev.elapsed
            elif ev.action == "renew":
                inst.state = "open"
                inst.renewals += 1
            elif ev.action == "close":
                inst.state = "closed"
            inst.history.append(f"{ev.action} {fmt_seconds(ev.elapsed)}" + (f" failed: {ev.error}" if ev.error
                                                                              else ""))

    def word(self, addr: str) -> str:
        """An instance's status: `opening`, `open 0.2s`, `open 0.2s, renewed 2×`, `closed`,
        `close failed`."""
        inst = self.instances.get(addr)
        if inst is None:
            return ""
        if inst.state == "failed":
            return f"{inst.failed_action} failed"
        text = inst.state
        if inst.state == "open" and inst.opened_in is not None:
            text = f"open {fmt_seconds(inst.opened_in)}"
        if inst.renewals:
            text += f", renewed {inst.renewals}×"
        return text

    def of_block(self, vertex: str) -> list[EphemeralInstance]:
        """The instances of the ephemeral block whose vertex (or close vertex) is named vertex
        (`ephemeral.T.N`, `module.m.ephemeral.T.N (close)`); instance keys follow the name."""
        base = vertex[:-len(" (close)")] if vertex.endswith(" (close)") else vertex
        if not _is_ephemeral_block(base):
            return []
        return [i for a, i in self.instances.items() if a == base or (a.startswith(base + "[")
                                                                       and a.endswith("]"))]

    def block_word(self, vertex: str) -> str:
        """A block vertex's summary for the graph: `2 open`, `1 open, 1 closed`, `1 failed`."""
        counts: dict[str, int] = {}
        for inst in self.of_block(vertex):
            counts[inst.state] = counts.get(inst.state, 0) + 1
        order = ("opening", "open", "renewing", "closing", "closed", "failed")
        return ", ".join(f"{counts[s]} {s}" for s in order if counts.get(s))


def _is_ephemeral_block(name: str) -> bool:
    parts = name.split(".")
    # module.a.module.b.ephemeral.T.N: after the module steps, "ephemeral" then type and name
    i = 0
    while i + 1 < len(parts) and parts[i] == "module":
        i += 2
    return len(parts) - i == 3 and parts[i] == "ephemeral"
