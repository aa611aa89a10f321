"""The walker driven directly: parallelism is the pool's size (one mechanism), an expanded
sub-walk does not hold a worker, a failure skips exactly its descendants, and a walk that can
make no progress stops with an error naming what was left."""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from tfconsole.diags import Diagnostics
from tfconsole.graph.dag import Graph
from tfconsole.walk.hooks import Hook
from tfconsole.walk.walker import Walker

PATIENCE = 120.0  # seconds a test waits for a condition; only reached when something is broken


@dataclass(eq=False)
class V:
    name: str


def chain_free(n: int) -> tuple[Graph, list[V]]:
    g = Graph()
    vs = [g.add(V(f"v{i}")) for i in range(n)]
    return g, vs


def test_parallelism_is_the_number_of_concurrent_executions() -> None:
    g, _ = chain_free(9)
    lock = threading.Lock()
    running = peak = 0
    reached = threading.Event()
    release = threading.Event()

    def execute(v: V) -> Diagnostics:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
            if running == 3:
                reached.set()
        release.wait(PATIENCE)
        with lock:
            running -= 1
        return Diagnostics()

    w = Walker(execute, parallelism=3)
    out: list[Any] = []
    t = threading.Thread(target=lambda: out.append(w.walk(g)))
    t.start()
    assert reached.wait(PATIENCE)
    release.set()
    t.join(PATIENCE)
    assert out and out[0].ok
    assert peak == 3


def test_an_expanded_vertex_does_not_hold_a_worker_while_its_children_run() -> None:
    g = Graph()
    parent = g.add(V("parent"))
    after = g.add(V("after"))
    g.connect(after, parent)
    order: list[str] = []

    def expand(v: V) -> tuple[Graph | None, Diagnostics]:
        if v is not parent:
            return None, Diagnostics()
        sub = Graph()
        a, b = sub.add(V("child-a")), sub.add(V("child-b"))
        sub.connect(b, a)
        return sub, Diagnostics()

    def execute(v: V) -> Diagnostics:
        order.append(v.name)
        return Diagnostics()

    res = Walker(execute, expand, parallelism=1).walk(g)
    assert res.ok
    # with one worker, the children could not run if the parent kept it; the parent's
    # dependents wait for the whole sub-walk
    assert order == ["parent", "child-a", "child-b", "after"]


def test_a_failure_skips_its_descendants_only() -> None:
    g = Graph()
    bad, dep, dep2, other = (g.add(V(n)) for n in ("bad", "dep", "dep2", "other"))
    g.connect(dep, bad)
    g.connect(dep2, dep)
    ran: list[str] = []

    def execute(v: V) -> Diagnostics:
        ran.append(v.name)
        d = Diagnostics()
        if v is bad:
            d.error("boom")
        return d

    res = Walker(execute, parallelism=2).walk(g)
    assert sorted(ran) == ["bad", "other"]
    assert [v.name for v in res.failed] == ["bad"]
    assert sorted(v.name for v in res.skipped) == ["dep", "dep2"]
    assert [x.summary for x in res.diags] == ["boom"]


class Recorder(Hook):
    def __init__(self) -> None:
        self.skipped: list[tuple[str, str]] = []

    def vertex_skipped(self, name: str, reason: str) -> None:
        self.skipped.append((name, reason))


def test_a_walk_that_cannot_progress_says_so() -> None:
    g = Graph()
    a, b, c = g.add(V("a")), g.add(V("b")), g.add(V("c"))
    g.connect(a, b)
    g.connect(b, a)  # a cycle the builder would have refused: neither can ever start
    hook = Recorder()
    ran: list[str] = []
    res = Walker(lambda v: ran.append(v.name) or Diagnostics(), parallelism=2, hook=hook).walk(g)
    assert ran == ["c"]
    assert not res.ok
    [err] = res.diags.errors()
    assert err.summary == "Graph walk stopped with work outstanding"
    assert "a, b" in err.detail
    assert sorted(n for n, _ in hook.skipped) == ["a", "b"]


def test_cancel_skips_what_has_not_started() -> None:
    g = Graph()
    first, second = g.add(V("first")), g.add(V("second"))
    g.connect(second, first)
    w = Walker(lambda v: (w.cancel(), Diagnostics())[1], parallelism=2)
    res = w.walk(g)
    assert res.cancelled and [v.name for v in res.skipped] == ["second"]
    assert not res.diags.has_errors  # a cancel is not a stuck walk
