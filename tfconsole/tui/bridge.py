"""The hook bridge: the engine's Hook interface, turned into coalesced app messages.

Hooks are called from the walker's coordinator and worker threads. This module never touches
a widget: it records the newest status per vertex under a lock and posts one VertexBatch per
flush interval (a 10,000-vertex walk produces a few dozen messages per second, not tens of
thousands). post_message is thread-safe.

Back-pressure: one batch at a time. Until the app has handled the batch it was sent (it calls
batch_done()), new events keep coalescing here instead of queueing up as further messages in
front of the user's keys; the next batch leaves one interval after the last one was handled, so
the event loop is never busy with status alone.

Input priority: the walker's threads and the event loop share one GIL. When a key arrives during
a walk (the app calls hold() from the terminal's input thread, before the key is even queued),
every hook call waits with the GIL released until the key is on screen (release()) or the
window (INPUT_PRIORITY) ends: the walk pauses at its next vertex event and the loop gets the
interpreter while it handles and paints the key. Holds cover at most half of the time (a
held-down key must not stall an apply). Otherwise nothing here blocks the walk.
"""
from __future__ import annotations

import threading
import time
from typing import Any

from tfconsole.walk.hooks import Hook

from .messages import VertexBatch, VertexUpdate, WalkFinished, WalkStarted
from .models.ephemeral import EphemeralEvent

FLUSH_INTERVAL = 0.075  # seconds: fast enough to feel live, slow enough to coalesce
INPUT_PRIORITY = 0.1  # seconds the walk yields to the event loop after a key press, at most

_VERBS = {"create": "Creating...", "update": "Modifying...", "delete": "Destroying...", "read": "Reading..."}
_EPH_VERBS = {"open": "Opening...", "renew": "Renewing...", "close": "Closing..."}
_EPH_DONE = {"open": "Opening complete", "renew": "Renewal complete", "close": "Closing complete"}
_DONE = {"create": "Creation complete", "update": "Modifications complete", "delete": "Destruction complete",
         "read": "Read complete"}


class HookBridge(Hook):
    def __init__(self, target: Any, interval: float = FLUSH_INTERVAL) -> None:
        self._target = target  # anything with a thread-safe post_message (the App)
        self._interval = interval
        self._lock = threading.Lock()
        self._pending: dict[str, VertexUpdate] = {}
        self._expansions: dict[str, list[str]] = {}
        self._edges: dict[str, list[tuple[str, str]]] = {}
        self._log: list[str] = []
        self._log_addrs: list[str] = []
        self._ephemeral: list[EphemeralEvent] = []
        self._provider_status: dict[str, str] = {}
        self._provider_logs: dict[str, list[str]] = {}
        self._deps: dict[str, list[str]] = {}
        self._timer: threading.Timer | None = None
        self._hold_until = 0.0  # time.perf_counter() until which hook calls wait (input priority)
        self._hold_from = 0.0
        self._next_hold = 0.0  # no new hold before this: holds take at most half of the time
        self._walking = False  # between walk_started and walk_finished: only then do keys hold
        self._in_flight = False  # a batch was posted and the app has not handled it yet
        self._go = threading.Event()  # cleared during a hold: held hook calls wait on it
        self._go.set()

    # ---- input priority
    def hold(self, seconds: float = INPUT_PRIORITY) -> None:
        """Called when a key arrives (on any thread): hook calls wait until release() or for
        `seconds` at most (GIL released). Only while a walk runs."""
        now = time.perf_counter()
        if self._walking and now >= self._next_hold:
            self._hold_from = now
            self._hold_until = now + seconds
            self._next_hold = now + 2 * seconds
            self._go.clear()

    def release(self) -> None:
        """Called on the event loop once the key is on screen: the walk goes on at once, and the
        next hold may come after as long again as this one lasted."""
        now = time.perf_counter()
        if self._hold_until > now:
            self._hold_until = now
            self._next_hold = now + (now - self._hold_from)
        self._go.set()

    def holding(self) -> bool:
        """A key came during the walk and is not on screen yet (its hold has not ended)."""
        return self._walking and self._hold_until > time.perf_counter()

    def input_pause(self) -> None:
        """For other work off the event loop (the live graph's layout): wait while a key is
        handled, as the walk's hook calls do."""
        self._yield()

    def _yield(self) -> None:
        delay = self._hold_until - time.perf_counter()
        if delay > 0:
            self._go.wait(min(delay, INPUT_PRIORITY))

    # ---- coalescing
    def _record(self, upd: VertexUpdate | None = None, line: str | None = None, addr: str = "",
                eph: EphemeralEvent | None = None) -> None:
        self._yield()
        with self._lock:
            if upd is not None:
                self._pending[upd.name] = upd
            if line is not None:
                self._log.append(line)
                self._log_addrs.append(addr)
            if eph is not None:
                self._ephemeral.append(eph)
            if self._timer is None and not self._in_flight:
                self._start_timer()

    def _start_timer(self) -> None:  # (with the lock held)
        self._timer = threading.Timer(self._interval, self.flush)
        self._timer.daemon = True
        self._timer.start()

    def batch_done(self) -> None:
        """Called on the event loop when a batch has been handled: the next may be sent."""
        with self._lock:
            self._in_flight = False
            owed = self._pending or self._expansions or self._log or self._provider_status \
                or self._provider_logs or self._deps or self._ephemeral
            if owed and self._timer is None:
                self._start_timer()

    def flush(self, force: bool = False) -> None:
        """Post what has accumulated, unless the app is still on the previous batch (then it
        waits for batch_done); `force` posts regardless (a walk's start and end)."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._in_flight and not force:
                return
            pending, self._pending = self._pending, {}
            exps, self._expansions = self._expansions, {}
            edges, self._edges = self._edges, {}
            log, self._log = self._log, []
            log_addrs, self._log_addrs = self._log_addrs, []
            eph, self._ephemeral = self._ephemeral, []
            pstatus, self._provider_status = self._provider_status, {}
            plogs, self._provider_logs = self._provider_logs, {}
            deps, self._deps = self._deps, {}
            sending = bool(pending or exps or log or pstatus or plogs or deps or eph)
            if sending:
                self._in_flight = True
        if sending:
            self._target.post_message(VertexBatch(list(pending.values()), exps, edges, log, pstatus, plogs, deps,
                                                  log_addrs, eph))

    # ---- walk progress
    def walk_started(self, operation: str, vertex_names: list[str]) -> None:
        self.flush(force=True)
        self._walking = True
        self._target.post_message(WalkStarted(operation, list(vertex_names)))

    def vertex_waiting(self, name: str, waiting_on: list[str]) -> None:
        with self._lock:
            self._deps[name] = list(waiting_on)
        self._record(VertexUpdate(name, "waiting", time.monotonic(), detail=", ".join(sorted(waiting_on))))

    def vertex_queued(self, name: str) -> None:
        self._record(VertexUpdate(name, "queued", time.monotonic()))

    def vertex_started(self, name: str) -> None:
        self._record(VertexUpdate(name, "running", time.monotonic()))

    def vertex_finished(self, name: str, elapsed: float) -> None:
        self._record(VertexUpdate(name, "done", time.monotonic(), elapsed=elapsed))

    def vertex_failed(self, name: str, elapsed: float, message: str) -> None:
        self._record(VertexUpdate(name, "failed", time.monotonic(), elapsed=elapsed, detail=message))

    def vertex_skipped(self, name: str, because: str) -> None:
        self._record(VertexUpdate(name, "skipped", time.monotonic(), detail=because))

    def vertex_expanded(self, name: str, children: list[str], edges: list[tuple[str, str]]) -> None:
        self._yield()
        with self._lock:
            self._expansions[name] = list(children)
            self._edges[name] = list(edges)

    def walk_finished(self, operation: str, ok: bool, cancelled: bool) -> None:
        self._walking = False
        self.release()
        self.flush(force=True)
        self._target.post_message(WalkFinished(operation, ok, cancelled))

    # ---- provider plugins
    def provider_status(self, provider: str, status: str) -> None:
        with self._lock:
            self._provider_status[provider] = status
        self._record()

    def provider_log(self, provider: str, resource: str | None, level: str, message: str) -> None:
        with self._lock:
            self._provider_logs.setdefault(resource or provider, []).append(f"[{level}] {message}")
        self._record()

    # ---- instance events: a short human log, like the CLI's progress lines
    def pre_apply(self, addr: str, action: str, id_hint: str | None) -> None:
        hint = f" [id={id_hint}]" if id_hint and action != "create" else ""
        self._record(line=f"{addr}: {_VERBS.get(action, action)}{hint}", addr=addr)

    def post_apply(self, addr: str, action: str, elapsed: float, error: str | None, id_hint: str | None) -> None:
        if error:
            self._record(line=f"{addr}: {action} failed: {error}", addr=addr)
            return
        self._record(line=f"{addr}: {_DONE.get(action, action)} after {elapsed:.1f}s", addr=addr)

    # imports, ephemeral resources and provisioners: the CLI's progress lines, per instance
    def pre_plan_import(self, addr: str, import_id: str) -> None:
        self._record(line=f"{addr}: Preparing import... [id={import_id}]", addr=addr)

    def pre_apply_import(self, addr: str, import_id: str) -> None:
        self._record(line=f"{addr}: Importing... [id={import_id}]", addr=addr)

    def post_apply_import(self, addr: str, import_id: str) -> None:
        self._record(line=f"{addr}: Import complete [id={import_id}]", addr=addr)

    def pre_ephemeral(self, addr: str, action: str) -> None:
        self._record(line=f"{addr}: {_EPH_VERBS.get(action, action)}", addr=addr,
                     eph=EphemeralEvent(addr, action, "start"))

    def post_ephemeral(self, addr: str, action: str, elapsed: float, error: str | None) -> None:
        line = f"{addr}: {action} failed: {error}" if error else \
            f"{addr}: {_EPH_DONE.get(action, action)} after {elapsed:.1f}s"
        self._record(line=line, addr=addr, eph=EphemeralEvent(addr, action, "end", elapsed, error))

    def pre_provision(self, addr: str, provisioner: str) -> None:
        self._record(line=f"{addr}: Provisioning with '{provisioner}'...", addr=addr)

    def provision_output(self, addr: str, provisioner: str, line: str) -> None:
        self._record(line=f"{addr} ({provisioner}): {line}", addr=addr)
