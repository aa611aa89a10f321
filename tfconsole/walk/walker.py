"""The graph walker: one coordinator thread and a pool of `parallelism` worker threads.

Only the coordinator (the thread that calls `walk`) touches the ready/running/done bookkeeping.
Vertices that only compute (`cpu_only`) run on the coordinator itself, one at a time; the others
(those that wait on I/O) run on the pool, which reports back through a queue. A vertex starts as
soon as all of its dependencies are done. -parallelism bounds the executions at once, pool and
coordinator together (a semaphore of that many slots); a worker is busy only while a vertex
executes (and expands), never while its expanded sub-graph is being walked: the sub-graph's
vertices join this same walk and the parent completes when all of them have.

A walk never ends quietly with work left: when nothing is running and vertices are still waiting
(a dependency that can never complete: a cycle the builder missed, or an expansion that added
edges into vertices outside it), the walk reports an error naming them.

On a vertex failure its descendants are skipped (no extra noise) and independent work goes on;
`cancel()` stops scheduling anything new, lets in-flight vertices finish, and returns.
"""
from __future__ import annotations

import queue
import threading
import time
from collections import deque
from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any, Callable

from tfconsole.diags import Diagnostics

from ..graph.dag import Graph
from .hooks import Hook, _noop


@dataclass
class VertexResult:
    vertex: Any
    diags: Diagnostics
    subgraph: Graph | None
    elapsed: float


@dataclass
class WalkResult:
    diags: Diagnostics = field(default_factory=Diagnostics)
    cancelled: bool = False
    failed: list[Any] = field(default_factory=list)
    skipped: list[Any] = field(default_factory=list)
    timings: dict[str, tuple[float, float]] = field(default_factory=dict)  # name -> (start, end) offsets

    @property
    def ok(self) -> bool:
        return not self.diags.has_errors and not self.cancelled


class Walker:
    def __init__(self, execute: Callable[[Any], Diagnostics],
                 expand: Callable[[Any], tuple[Graph | None, Diagnostics] | None] | None = None,
                 parallelism: int = 10, hook: Hook | None = None,
                 cpu_only: Callable[[Any], bool] | None = None) -> None:
        self.execute = execute
        # expand(v): v's subgraph and diagnostics, or None for a vertex that never expands
        self.expand = expand
        self.parallelism = max(1, parallelism)
        self.hook = hook or Hook()
        self._cancel = threading.Event()
        # vertices that only compute (no provider plugin, no sleep, no network or subprocess)
        # run one at a time, on the coordinating thread: on a quiet multi-core machine,
        # several threads running Python hand the GIL to each other and contend on the state
        # lock, which cost twice the CPU of running them in turn (a 20,000-instance plan: 3.4 s
        # at -parallelism=10 against 1.7 s at 1); running them where the bookkeeping is saves
        # two queue hand-offs and thread switches per vertex. Vertices that wait on I/O run on
        # the pool beside it; at most -parallelism vertices execute at once in all.
        self.cpu_only = cpu_only

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def _stuck(self, left: list[Any], result: WalkResult) -> None:
        """Nothing runs, yet vertices wait: none of them can ever start. Say which, as an error."""
        names = sorted(v.name for v in left)
        shown = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
        result.diags.error("Graph walk stopped with work outstanding",
                           f"{len(names)} vertices could never start because a dependency of theirs can never "
                           f"complete: {shown}. This is a bug in tfconsole's graph; nothing more was run.")
        for v in left:
            result.skipped.append(v)
            self.hook.vertex_skipped(v.name, "a dependency can never complete")

    # ------------------------------------------------------------------
    def walk(self, graph: Graph, operation: str = "walk") -> WalkResult:
        result = WalkResult()
        t0 = time.monotonic()
        # the hook's methods, looked up once per walk (a Hooks fan-out builds a new callable per
        # attribute access, and these are called several times for every vertex)
        hook = self.hook
        on_waiting, on_queued, on_started = hook.vertex_waiting, hook.vertex_queued, hook.vertex_started
        on_finished, on_skipped, on_failed = hook.vertex_finished, hook.vertex_skipped, hook.vertex_failed
        ready: queue.SimpleQueue = queue.SimpleQueue()  # for the pool
        local: deque[Any] = deque()  # cpu_only vertices, run by this (the coordinating) thread
        done_q: queue.SimpleQueue = queue.SimpleQueue()
        cpu_only = self.cpu_only
        execute, expand, monotonic, timings = self.execute, self.expand, time.monotonic, result.timings
        slots = threading.BoundedSemaphore(self.parallelism)
        threads: list[threading.Thread] = []

        # coordinator-only bookkeeping
        remaining: dict[int, int] = {}
        dependents: dict[int, list[Any]] = {}
        parent_of: dict[int, Any] = {}
        open_children: dict[int, int] = {}
        failed_children: dict[int, bool] = {}
        poisoned: set[int] = set()
        waiting: dict[int, Any] = {}  # every vertex not yet completed, by id
        in_flight = 0
        pool_in_flight = 0  # of in_flight, those handed to the pool and not yet reported back
        outstanding = 0  # vertices not yet completed (including expanded parents)

        def add_graph(g: Graph, parent: Any | None) -> list[Any]:
            """Take g's vertices into the walk; the ready ones are returned. The edges are read
            in one rustworkx call (two calls per vertex were a tenth of a large apply's walk)."""
            nonlocal outstanding
            rg = g.g
            node_of = {i: rg[i] for i in rg.node_indices()}
            counts = dict.fromkeys(node_of, 0)
            after: dict[int, list[Any]] = {i: [] for i in node_of}
            for a, b in rg.edge_list():  # dependency -> dependent
                counts[b] += 1
                after[a].append(node_of[b])
            for i, v in node_of.items():
                vid = id(v)
                remaining[vid] = counts[i]
                dependents[vid] = after[i]
                waiting[vid] = v
            outstanding += len(node_of)
            if parent is not None:
                for v in node_of.values():
                    parent_of[id(v)] = parent
            if on_waiting is not _noop:
                for i, v in node_of.items():
                    if counts[i]:
                        on_waiting(v.name, [node_of[d].name for d in rg.predecessor_indices(i)])
            return [v for i, v in node_of.items() if counts[i] == 0]

        def schedule(v: Any) -> None:
            nonlocal in_flight, pool_in_flight
            if self._cancel.is_set():
                finish(v, ok=False, skipped_because="cancelled")
                return
            if id(v) in poisoned:
                finish(v, ok=False, skipped_because="an upstream dependency failed")
                return
            in_flight += 1
            on_queued(v.name)
            if cpu_only is not None and cpu_only(v):
                local.append(v)
                return
            if not threads:  # the pool starts with the first vertex that waits on I/O
                threads.extend(threading.Thread(target=worker, name=f"tfconsole-worker-{i}", daemon=True)
                               for i in range(self.parallelism))
                for t in threads:
                    t.start()
            pool_in_flight += 1
            ready.put(v)

        def finish(v: Any, ok: bool, skipped_because: str | None = None) -> None:
            """Complete v (success, failure, or skip) and release or poison its dependents."""
            nonlocal outstanding
            stack = [(v, ok, skipped_because)]
            while stack:
                cur, cur_ok, why = stack.pop()
                outstanding -= 1
                waiting.pop(id(cur), None)
                if why is not None:
                    result.skipped.append(cur)
                    on_skipped(cur.name, why)
                for d in dependents.get(id(cur), ()):
                    if not cur_ok:
                        poisoned.add(id(d))
                    remaining[id(d)] -= 1
                    if remaining[id(d)] == 0:
                        if self._cancel.is_set():
                            stack.append((d, False, "cancelled"))
                        elif id(d) in poisoned:
                            stack.append((d, False, "an upstream dependency failed"))
                        else:
                            schedule(d)
                parent = parent_of.get(id(cur))
                if parent is not None:
                    pid = id(parent)
                    if not cur_ok:
                        failed_children[pid] = True
                    open_children[pid] -= 1
                    if open_children[pid] == 0:
                        p_ok = not failed_children.get(pid, False)
                        stack.append((parent, p_ok, None))

        def run(v: Any, slot: bool = True) -> tuple[Diagnostics, Graph | None, float]:
            """Execute (and expand) v on the calling thread, holding one of the slots (slot=False:
            the caller knows one is free for as long as v runs): (diagnostics, subgraph, elapsed)."""
            if slot:
                slots.acquire()  # at most -parallelism executions at once, pool and coordinator
            start = monotonic()
            on_started(v.name)
            sub = None
            try:
                diags = execute(v)
                if expand is not None and not diags.has_errors:
                    got = expand(v)
                    if got is not None:  # (None: v never expands)
                        sub, d2 = got
                        diags.append(d2)
            except Exception as exc:  # noqa: BLE001 - a bug in a vertex must not kill the walk
                import traceback

                diags = Diagnostics()
                diags.error("Internal error", f"{v.name}: {exc!r}\n{traceback.format_exc()}")
            finally:
                if slot:
                    slots.release()
            end = monotonic()
            timings[v.name] = (start - t0, end - t0)
            return diags, sub, end - start

        def worker() -> None:
            while True:
                v = ready.get()
                if v is None:
                    return
                if self._cancel.is_set():
                    done_q.put(("skip", v, None))
                    continue
                done_q.put(("done", v, run(v)))

        def complete(kind: str, v: Any, res: tuple[Diagnostics, Graph | None, float] | None) -> None:
            """The coordinator's side of a vertex that ran (or was skipped at its turn)."""
            nonlocal in_flight
            in_flight -= 1
            if kind == "skip":
                finish(v, ok=False, skipped_because="cancelled")
                return
            assert res is not None
            diags, sub, elapsed = res
            if diags:
                result.diags.append(diags)
                for d in diags:
                    self.hook.diagnostic(d)
                if diags.has_errors:
                    result.failed.append(v)
                    msg = "; ".join(d.summary for d in diags.errors())
                    on_failed(v.name, elapsed, msg)
                    finish(v, ok=False)
                    return
            on_finished(v.name, elapsed)
            if sub is not None and len(sub) > 0:
                open_children[id(v)] = len(sub)
                edges = [(a.name, b.name) for a, b in sub.edges()]
                self.hook.vertex_expanded(v.name, [c.name for c in sub.vertices()], edges)
                for c in add_graph(sub, v):
                    schedule(c)
                return
            finish(v, ok=True)

        names = [v.name for v in graph.vertices()]
        self.hook.walk_started(operation, names)
        initial = add_graph(graph, None)
        try:
            for v in initial:
                schedule(v)
            while outstanding > 0:
                if local:
                    # a vertex that only computes runs right here: no hand-off to another
                    # thread and back (two queue passes and GIL switches per vertex)
                    v = local.popleft()
                    if self._cancel.is_set():
                        complete("skip", v, None)
                    else:
                        # no vertex reaches the pool while this one runs (this thread hands them
                        # out), so with fewer than -parallelism there a slot is free throughout
                        complete("done", v, run(v, slot=pool_in_flight >= self.parallelism))
                    while pool_in_flight and not done_q.empty():  # what the pool finished meanwhile
                        pool_in_flight -= 1
                        complete(*done_q.get())
                    continue
                if in_flight == 0:
                    self._stuck(list(waiting.values()), result)
                    break
                pool_in_flight -= 1
                complete(*done_q.get())
        finally:
            for _ in threads:
                ready.put(None)
            for t in threads:
                t.join(timeout=60)
        result.cancelled = self._cancel.is_set()
        self.hook.walk_finished(operation, result.ok, result.cancelled)
        return result
