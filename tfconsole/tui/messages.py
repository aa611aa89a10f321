"""Messages that cross from worker threads to the app.

The hook bridge and the operation workers only ever *post* these; the app's handlers (on the
event loop) are the only code that touches widgets. Widget-local messages live nested in
their widgets (see widgets/).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from textual.message import Message

from .models.ephemeral import EphemeralEvent


@dataclass
class VertexUpdate:
    """The latest known status of one walk vertex (plain data, coalesced by the bridge)."""

    name: str
    status: str  # waiting | queued | running | done | failed | skipped
    at: float  # time.monotonic() of the event (running vertices show a live elapsed time)
    elapsed: float | None = None
    detail: str = ""


@dataclass
class WalkStarted(Message):
    operation: str
    names: list[str]


@dataclass
class VertexBatch(Message):
    """Every vertex status change since the previous batch (newest status per vertex wins)."""

    updates: list[VertexUpdate]
    expansions: dict[str, list[str]] = field(default_factory=dict)
    expansion_edges: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    log: list[str] = field(default_factory=list)  # human progress lines, in order
    # provider plugins: the newest status per provider address (started, configured, failed,
    # crashed), and the lines each logged, keyed by the instance whose call wrote them (the
    # provider's address for provider-level lines)
    provider_status: dict[str, str] = field(default_factory=dict)
    provider_logs: dict[str, list[str]] = field(default_factory=dict)
    # the walk graph's edges: vertex -> its dependencies, as the walker registered the vertex
    # (the live graph is drawn from these; a later "waiting" status no longer carries them)
    deps: dict[str, list[str]] = field(default_factory=dict)
    log_addrs: list[str] = field(default_factory=list)  # the instance each log line is about
    ephemeral: list[EphemeralEvent] = field(default_factory=list)  # opens, renews, closes, in order


@dataclass
class WalkFinished(Message):
    operation: str
    ok: bool
    cancelled: bool
