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
    t = threading.Thread(target=lambda: out.append(w.walk(g)), name="the-walker")
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


def test_computing_vertices_run_in_turn_while_waiting_ones_run_beside_them() -> None:
    """cpu_only vertices run one at a time, on the walking thread; the others (I/O) run on the
    pool at the same time as them; -parallelism still bounds the executions in all (3 waiting
    vertices and a computing one fill -parallelism=4)."""
    g, vs = chain_free(11)
    waiting = {v.name for v in vs[:3]}  # the "I/O" vertices; the other 8 only compute
    lock = threading.Lock()
    running = {"cpu": 0, "io": 0}
    peaks = {"cpu": 0, "io": 0, "all": 0}
    cpu_threads: set[str] = set()
    io_started = threading.Event()
    release_io = threading.Event()
    computed = threading.Event()
    count = [0]

    def execute(v: V) -> Diagnostics:
        kind = "io" if v.name in waiting else "cpu"
        with lock:
            running[kind] += 1
            peaks[kind] = max(peaks[kind], running[kind])
            peaks["all"] = max(peaks["all"], running["cpu"] + running["io"])
            if kind == "cpu":
                cpu_threads.add(threading.current_thread().name)
            if running["io"] == 3:
                io_started.set()
        if kind == "io":
            release_io.wait(PATIENCE)  # waits until every computing vertex has run beside it
        else:
            assert io_started.wait(PATIENCE)
        with lock:
            running[kind] -= 1
            if kind == "cpu":
                count[0] += 1
                if count[0] == 8:
                    computed.set()
        return Diagnostics()

    w = Walker(execute, parallelism=4, cpu_only=lambda v: v.name not in waiting)
    out: list[Any] = []
    t = threading.Thread(target=lambda: out.append(w.walk(g)), name="the-walker")
    t.start()
    assert computed.wait(PATIENCE)  # all 8 computed while the 3 I/O vertices were still running
    release_io.set()
    t.join(PATIENCE)
    assert out and out[0].ok
    assert peaks["cpu"] == 1 and cpu_threads == {"the-walker"}
    assert peaks["io"] == 3 and peaks["all"] == 4


def test_a_computing_vertex_waits_for_a_slot_when_the_pool_fills_parallelism() -> None:
    """The walking thread runs a computing vertex without a slot only while the pool holds fewer
    than -parallelism; with the pool full (two waiting vertices at -parallelism=2) it waits for
    one of them to end, so at most two vertices ever execute at once."""
    g = Graph()
    for name in ("io1", "io2", "cpu"):
        g.add(V(name))
    lock = threading.Lock()
    running = {"io": 0, "all": 0}
    peak = [0]
    both_io = threading.Event()
    cpu_done = threading.Event()

    def execute(v: V) -> Diagnostics:
        kind = "cpu" if v.name == "cpu" else "io"
        with lock:
            running["all"] += 1
            peak[0] = max(peak[0], running["all"])
            if kind == "io":
                running["io"] += 1
                if running["io"] == 2:
                    both_io.set()
        if kind == "io":
            cpu_done.wait(1.0)  # a wrong walker runs the computing vertex meanwhile
        else:
            # a wrong walker starts it beside both I/O vertices (which then both run); a right
            # one either took the second slot before them (only one I/O vertex runs: the wait
            # ends at its timeout) or started it after one of them ended
            both_io.wait(1.0)
            cpu_done.set()
        with lock:
            running["all"] -= 1
            if kind == "io":
                running["io"] -= 1
        return Diagnostics()

    w = Walker(execute, parallelism=2, cpu_only=lambda v: v.name == "cpu")
    res = w.walk(g)
    assert res.ok and cpu_done.is_set()
    assert peak[0] == 2


def test_which_vertices_only_compute() -> None:
    """core.computes_only: values and in-process providers that do not wait compute; a plugin,
    a sleeping, networked or subprocess provider, a provisioner or a remote state read wait."""
    from types import SimpleNamespace as NS

    from tfconsole.addrs import parse_instance
    from tfconsole.core import computes_only
    from tfconsole.graph.nodes.values import LocalNode

    def inst(provider: str, address: str = "x_thing.a", provisioners: tuple = ()) -> Any:
        rc = NS(provisioners=list(provisioners))
        return NS(addr=parse_instance(address), parent=NS(provider_addr=provider, rc=rc))

    builtin = NS(wire_protocol=False)
    plugin = NS(wire_protocol=True)
    addr = 'provider["registry.terraform.io/hashicorp/{}"]'
    ctx = NS(providers={addr.format(n): builtin for n in ("random", "time", "http", "external", "local")} |
             {'provider["terraform.io/builtin/terraform"]': builtin, addr.format("null"): plugin})
    assert computes_only(LocalNode.__new__(LocalNode), ctx)
    assert computes_only(inst(addr.format("random")), ctx)
    assert computes_only(inst('provider["terraform.io/builtin/terraform"]', "terraform_data.x"), ctx)
    assert not computes_only(inst('provider["terraform.io/builtin/terraform"]', "data.terraform_remote_state.s"), ctx)
    assert not computes_only(inst(addr.format("null")), ctx)  # a plugin: a process on the other end
    for waits in ("time", "http", "external"):
        assert not computes_only(inst(addr.format(waits)), ctx)
    assert not computes_only(inst(addr.format("local"), provisioners=("local-exec",)), ctx)
    assert not computes_only(inst(addr.format("missing")), ctx)
    assert not computes_only(NS(name="provider"), ctx)
    # a resource vertex (its configuration, no instance address) expands as its instances run
    from tfconsole.addrs import Resource

    def res(provider: str, rtype: str = "x_thing", mode: str = "managed") -> Any:
        return NS(provider_addr=provider, rc=NS(provisioners=[], addr=Resource(mode, rtype, "a")))

    assert computes_only(res(addr.format("random")), ctx)
    assert not computes_only(res(addr.format("null")), ctx)
    assert not computes_only(res(addr.format("time")), ctx)
    assert not computes_only(res('provider["terraform.io/builtin/terraform"]', "terraform_remote_state", "data"), ctx)
    # configuring terraform.io/builtin/terraform computes; any other provider may be a plugin
    from tfconsole.addrs import Module as ModulePath
    from tfconsole.graph.nodes.values import ProviderNode, RootNode

    def prov(source: str) -> ProviderNode:
        return ProviderNode(ModulePath(), source.rsplit("/", 1)[-1], None, source, None)

    assert computes_only(prov("terraform.io/builtin/terraform"), ctx)
    assert not computes_only(prov("registry.terraform.io/hashicorp/random"), ctx)
    assert computes_only(RootNode(), ctx)


def test_the_walks_remembered_computes_only_answers_as_computes_only_does() -> None:
    """core.computes_only_memo: the same answers, remembered per resource configuration and
    provider only once that provider is there (before it is, an instance waits on a thread)."""
    from types import SimpleNamespace as NS

    from tfconsole.addrs import parse_instance
    from tfconsole.core import computes_only, computes_only_memo

    tf = 'provider["terraform.io/builtin/terraform"]'
    tm = 'provider["registry.terraform.io/hashicorp/time"]'
    ctx = NS(providers={tm: NS(wire_protocol=False)})
    plain, provisioned = NS(provisioners=[]), NS(provisioners=["local-exec"])

    def inst(provider: str, rc: Any, address: str) -> Any:
        return NS(addr=parse_instance(address), rc=rc, change=NS(provider=provider))

    memo = computes_only_memo(ctx)
    first = inst(tf, plain, "terraform_data.a[0]")
    assert not memo(first) and not computes_only(first, ctx)  # the provider is not configured yet
    ctx.providers[tf] = NS(wire_protocol=False)
    cases = [inst(tf, plain, f"terraform_data.a[{i}]") for i in range(3)]
    cases += [inst(tf, provisioned, "terraform_data.p[0]"), inst(tf, plain, "terraform_remote_state.s"),
              inst(tm, plain, "time_sleep.s[0]"), inst(tm, plain, "time_sleep.s[1]")]
    for v in cases + cases:  # the second round answers from what the first remembered
        assert memo(v) == computes_only(v, ctx), v.addr
    assert [memo(v) for v in cases] == [True, True, True, False, False, False, False]


class EventLog(Hook):
    """The per-vertex events a console sees, in order."""

    def __init__(self) -> None:
        self.events: list[tuple] = []

    def vertex_waiting(self, name: str, waiting_on: list[str]) -> None:
        self.events.append(("waiting", name, tuple(sorted(waiting_on))))

    def vertex_queued(self, name: str) -> None:
        self.events.append(("queued", name))

    def vertex_started(self, name: str) -> None:
        self.events.append(("started", name))

    def vertex_finished(self, name: str, elapsed: float) -> None:
        self.events.append(("finished", name))


def test_every_vertex_reports_what_it_waits_on_and_its_queued_started_finished_events() -> None:
    """The walker reads a graph's edges in bulk: each vertex with dependencies still names
    exactly them, and each vertex (a sub-walk's too) is queued, started and finished once, in
    that order, after everything it waits on finished. An expand answering None (the vertex
    never expands) completes the vertex like an empty expansion."""
    g = Graph()
    a, b, c, d = (g.add(V(n)) for n in "abcd")
    g.connect(c, a)
    g.connect(c, b)
    g.connect(d, c)
    hook = EventLog()

    def expand(v: V) -> Any:
        if v is not b:
            return None
        sub = Graph()
        x, y = sub.add(V("b.x")), sub.add(V("b.y"))
        sub.connect(y, x)
        return sub, Diagnostics()

    res = Walker(lambda v: Diagnostics(), expand, parallelism=2, hook=hook).walk(g)
    assert res.ok
    waiting = {e[1]: e[2] for e in hook.events if e[0] == "waiting"}
    assert waiting == {"c": ("a", "b"), "d": ("c",), "b.y": ("b.x",)}
    for name in ("a", "b", "c", "d", "b.x", "b.y"):
        seen = [e[0] for e in hook.events if e[0] != "waiting" and e[1] == name]
        assert seen == ["queued", "started", "finished"], name
    finished = [e[1] for e in hook.events if e[0] == "finished"]
    # b's dependents wait for its sub-walk; each vertex after what it waits on
    assert finished.index("c") > max(finished.index("a"), finished.index("b.y"))
    assert finished.index("d") > finished.index("c") and finished.index("b.y") > finished.index("b.x")
