#!/usr/bin/env python
"""Key-press latency of the console while a large apply streams into it (headless).

    .venv/bin/python benchmarks/tui_latency.py            # 2 x 5,000 terraform_data = 10,000 vertices
    .venv/bin/python benchmarks/tui_latency.py --quick    # 2 x 250, a few seconds (used by the tests)
    .venv/bin/python benchmarks/tui_latency.py --repeat 3 --json out.json

What it does, on a temporary directory (nothing lands in the repository):

1. baselines without the console: the engine in-process (Context.plan + Context.apply, no hooks)
   and the CLI (`tfconsole plan -out=tfplan`, then the wall time of `tfconsole apply tfplan` in a
   subprocess, output to a file);
2. the console under `App.run_test()`: `p`, wait for the plan, `a`, `y`; while the apply runs it
   presses keys in a loop - down, down, up, up, s (state view), escape (back), g (the live graph
   view), down, down, up, up (in the graph), escape - and measures each one.

What a key's latency is, precisely: the key event is handed to the app's driver exactly as the
terminal driver's input thread hands it over (`driver.send_message(events.Key)`) at t0; the
key's effect is its change in the widget state (the cursor is on the row after - or before - the
one it was on, the view switcher shows the other pane); the latency ends at the first screen update *after* that change,
i.e. when the compositor has rendered the changed region and the update was serialised to
terminal escape sequences (a headless driver does not write them, so the benchmark renders them
itself and throws them away). The next key is sent 50 ms after the previous key's effect (a
fast typist / key repeat). A key whose effect is not on screen within 10 s counts as 10 s.

It also reports the worst event-loop stall (a 10 ms ticker's lateness), the number of vertex
status messages and updates streamed, and the apply wall time in the app against the two
baselines. Numbers depend on the machine: run it on a quiet one, or repeat (--repeat).
"""
from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tfconsole.tui  # noqa: E402,F401 - first: it sets the console's frame rate before textual loads
from textual import events  # noqa: E402
from textual._compositor import CompositorUpdate  # noqa: E402

from tfconsole.tui.app import ConsoleApp  # noqa: E402
from tfconsole.tui.messages import VertexBatch  # noqa: E402

KEY_TIMEOUT = 10.0
KEY_GAP = 0.05
SLOW_KEY_MS = 500  # keys slower than this are listed with what they met
# the last part moves in the live graph pane while it redraws statuses (g opens it)
KEYS = ["down", "down", "up", "up", "s", "escape", "g", "down", "down", "up", "up", "escape"]


def config_text(per_resource: int) -> str:
    return (f'resource "terraform_data" "a" {{\n  count = {per_resource}\n  input = "a-${{count.index}}"\n}}\n\n'
            f'resource "terraform_data" "b" {{\n  count = {per_resource}\n'
            f'  input = terraform_data.a[count.index].output\n}}\n')


def make_dir(base: Path, name: str, per_resource: int) -> Path:
    d = base / name
    d.mkdir()
    (d / "main.tf").write_text(config_text(per_resource))
    return d


# ---------------------------------------------------------------------------- baselines
def engine_baseline(d: Path, parallelism: int) -> dict[str, Any]:
    from tfconsole.tui import operations as ops

    t0 = time.perf_counter()
    planned = ops.plan(str(d), parallelism, [])
    t1 = time.perf_counter()
    if planned.plan is None:
        return {"error": "plan failed: " + "; ".join(x.summary for x in planned.diags)}
    out = ops.apply(planned.ctx, planned.plan)
    t2 = time.perf_counter()
    return {"plan_s": t1 - t0, "apply_s": t2 - t1, "errors": sum(1 for x in out.diags if x.is_error)}


def cli_baseline(d: Path) -> dict[str, Any]:
    exe = [sys.executable, "-m", "tfconsole"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the same tfconsole as the app under test
    with open(d / "cli.log", "w") as log:
        t0 = time.perf_counter()
        rc = subprocess.call(exe + ["plan", "-out=tfplan"], cwd=d, stdout=log, stderr=log, env=env)
        t1 = time.perf_counter()
        if rc != 0:
            return {"error": f"plan exit {rc}"}
        rc = subprocess.call(exe + ["apply", "tfplan"], cwd=d, stdout=log, stderr=log, env=env)
        t2 = time.perf_counter()
    return {"plan_s": t1 - t0, "apply_s": t2 - t1, "exit": rc}


# ---------------------------------------------------------------------------- the app under test
@dataclass
class Probe:
    key: str
    t0: float
    cond: Callable[[], bool]
    changed_at: float | None = None
    shown_at: float | None = None
    received_at: float | None = None  # when the app's on_event saw the key
    view: str = ""  # where the key was pressed, and the cursor line then (slow keys are reported)
    before: int = -1
    cpu0: float = 0.0  # the event loop's thread_time() when the key was sent, and when it was shown
    cpu1: float = 0.0
    event: asyncio.Event = field(default_factory=asyncio.Event)


class BenchApp(ConsoleApp):
    """The console plus instrumentation: terminal serialisation of every update, display probes."""

    CSS_PATH = str(Path(sys.modules[ConsoleApp.__module__].__file__).with_name("app.tcss"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.probe: Probe | None = None
        self.displays = 0
        self.render_s = 0.0
        self.batches = 0
        self.updates = 0

    def _display(self, screen: Any, renderable: Any) -> None:
        if renderable is not None and not self._batch_count and isinstance(renderable, CompositorUpdate):
            t = time.perf_counter()
            renderable.render_segments(self.console)  # what a real terminal driver would write
            self.render_s += time.perf_counter() - t
        super()._display(screen, renderable)
        if renderable is None or self._batch_count:
            return
        self.displays += 1
        probe = self.probe
        if probe is not None and probe.shown_at is None and probe.cond():
            probe.shown_at = time.perf_counter()
            probe.cpu1 = time.thread_time()
            probe.event.set()

    async def on_event(self, event: events.Event) -> None:
        probe = self.probe
        if probe is not None and isinstance(event, events.Key) and event.key == probe.key \
                and probe.received_at is None:
            probe.received_at = time.perf_counter()
        await super().on_event(event)

    def post_message(self, message: Any) -> bool:
        if isinstance(message, VertexBatch):  # counted on the posting (walker timer) thread
            self.batches += 1
            self.updates += len(message.updates)
        return super().post_message(message)


async def loop_lag(stop: asyncio.Event, out: list[float], cpu: list[float], busy: Callable[[], bool]) -> None:
    """Lateness of a 10 ms ticker while the apply runs: how long the event loop was busy with
    something else, and the loop's own CPU time in that interval (a stall with little of it is
    the loop waiting for the GIL or a CPU, not working)."""
    while not stop.is_set():
        t, c = time.perf_counter(), time.thread_time()
        await asyncio.sleep(0.01)
        if busy():
            out.append(time.perf_counter() - t - 0.01)
            cpu.append(time.thread_time() - c)


def cursor_of(app: BenchApp) -> int:
    return (app.graph_canvas if app.view == "graph" else app._tree("plan")).cursor_line


def effect_of(app: BenchApp, key: str) -> tuple[str, Callable[[], bool]]:
    """The key to press (down/up flip at the ends of the pane) and how to see its effect."""
    switcher = app.query_one("#views")
    tree = app.graph_canvas if app.view == "graph" else app._tree("plan")
    if key in ("down", "up"):
        line, rows = tree.cursor_line, tree.rows
        if key == "down" and line >= len(rows) - 1:
            key = "up"
        elif key == "up" and line <= 0:
            key = "down"
        step = 1 if key == "down" else -1
        # the effect: the cursor on the row next to the one it was on. Rows are compared by what
        # they show (the graph's vertex, the tree's node), not by index: the live graph is laid
        # out again as it grows, and its rows move while the cursor stays on its vertex
        # (the graph's rows as the app follows them across relayouts: a vertex by its name - its
        # depth may change as the graph grows -, a layer heading by its depth)
        ident = (lambda row: (row.kind, row.layer if row.kind == "layer" else row.name)) \
            if tree is app.graph_canvas else (lambda row: row[0])
        was = ident(rows[line]) if 0 <= line < len(rows) else None
        # (a live graph laid out on a worker may land just after the key: then the cursor is on
        # the row that was next to `was` when the key was handled, and stays on it)
        target = ident(rows[line + step]) if 0 <= line + step < len(rows) else None

        def moved() -> bool:
            at, now = tree.cursor_line, tree.rows
            if not 0 <= at < len(now) or ident(now[at]) == was:
                return False
            return ident(now[at]) == target or (0 <= at - step < len(now) and ident(now[at - step]) == was)
        return key, moved
    target = {"s": "state-tree", "g": "graph-tree", "escape": "plan-tree"}[key]
    return key, lambda: switcher.current == target


async def run_app(d: Path, parallelism: int, size: tuple[int, int], max_keys: int | None,
                  profile: str | None = None) -> dict[str, Any]:
    app = BenchApp(str(d), parallelism=parallelism)
    # the event loop's own CPU, by function (thread_time: the walker threads and the machine's
    # other work do not count); only the main thread is profiled, and only during the apply
    prof = cProfile.Profile(timer=time.thread_time) if profile else None
    res: dict[str, Any] = {}
    lat: list[dict[str, Any]] = []
    lags: list[float] = []
    lag_cpu: list[float] = []
    slow: list[dict[str, Any]] = []
    async with app.run_test(size=size) as pilot:
        t0 = time.perf_counter()
        await pilot.press("p")
        while not (app.summary_line.startswith(("Plan:", "Planning failed", "The configuration")) and not app.busy):
            await asyncio.sleep(0.02)
        res["plan_s"] = time.perf_counter() - t0
        if not app.summary_line.startswith("Plan:"):
            return {"error": app.summary_line}
        # open the first resource, if the console shows it closed, and move onto its instances:
        # the keys below then move over rows whose status changes as the apply runs
        tree = app._tree("plan")
        first = tree.root.children[0].children[0]  # root module -> terraform_data.a
        first.expand()
        tree.move_cursor(first)
        await pilot.pause(0.1)
        await pilot.press("down", "down")
        await pilot.press("a")
        while type(app.screen).__name__ != "ConfirmScreen":
            await asyncio.sleep(0.01)
        stop = asyncio.Event()
        ticker = asyncio.create_task(loop_lag(stop, lags, lag_cpu, lambda: app.busy))
        driver = app._driver
        assert driver is not None
        t_apply = time.perf_counter()
        cpu_loop, cpu_process = time.thread_time(), time.process_time()
        if prof is not None:
            prof.enable()
        driver.send_message(events.Key("y", "y"))
        while app.op_name != "apply":
            await asyncio.sleep(0.001)
        i = 0
        while app.busy or app.op_name != "apply":
            if max_keys is not None and i >= max_keys:
                await asyncio.sleep(0.05)
                continue
            pane = app.graph_canvas if app.view == "graph" else app._tree("plan")
            if KEYS[i % len(KEYS)] in ("up", "down") and len(pane.rows) < 2 and app.busy:
                # nothing to move to (the live graph's first layout is still being made: the
                # view says "Laying out"): such a key could show no effect; wait for the rows
                await asyncio.sleep(0.01)
                continue
            key, cond = effect_of(app, KEYS[i % len(KEYS)])
            i += 1
            busy = app.busy
            probe = Probe(key, time.perf_counter(), cond, view=app.view, before=cursor_of(app))
            app.probe = probe
            probe.t0 = time.perf_counter()
            probe.cpu0 = time.thread_time()
            driver.send_message(events.Key(key, None))
            try:
                await asyncio.wait_for(probe.event.wait(), KEY_TIMEOUT)
                ms = (probe.shown_at - probe.t0) * 1000
            except asyncio.TimeoutError:
                ms = KEY_TIMEOUT * 1000
            app.probe = None
            cpu_ms = (probe.cpu1 - probe.cpu0) * 1000 if probe.shown_at is not None else None
            lat.append({"key": key, "ms": ms, "busy": busy, "cpu_ms": cpu_ms, "view": probe.view,
                        "at_s": probe.t0 - t_apply,  # when in the apply it was sent
                        "received_ms": None if probe.received_at is None
                        else (probe.received_at - probe.t0) * 1000})
            if ms >= SLOW_KEY_MS:  # what a slow or lost key met: reported, so that it can be explained
                slow.append({"key": key, "ms": round(ms), "view": probe.view, "cursor_before": probe.before,
                             "received_ms": None if probe.received_at is None
                             else round((probe.received_at - probe.t0) * 1000),
                             "loop_cpu_ms": None if cpu_ms is None else round(cpu_ms),
                             "view_after": app.view, "cursor_after": cursor_of(app)})
            await asyncio.sleep(KEY_GAP)
        res["apply_s"] = time.perf_counter() - t_apply
        res["apply_loop_cpu_s"] = time.thread_time() - cpu_loop  # the event loop thread's own CPU
        res["apply_process_cpu_s"] = time.process_time() - cpu_process
        if prof is not None:
            prof.disable()
            prof.dump_stats(profile)
        stop.set()
        await ticker
        res["summary"] = app.summary_line
        res["vertices_done"] = sum(1 for v in app.vertices.values() if v.status == "done")
        res["vertices_total"] = len(app.vertices)
        res["instances_with_status"] = len(app.instance_status)
        res["batches"] = app.batches
        res["updates"] = app.updates
        res["displays"] = app.displays
        res["serialise_s"] = app.render_s
        res["widgets"] = len(list(app.screen.walk_children(with_self=True)))
        await pilot.press("q")
    busy = [x for x in lat if x["busy"]]  # keys sent while the apply was running
    during = [x["ms"] for x in busy]
    res["keys"] = len(during)
    # the event loop's own CPU from a key's sending to its screen update (handlers, batches and
    # paints in between): what the key cost the loop, whatever the GIL and the machine's load did
    res["cpu_by_key"] = {k: round(statistics.median(x["cpu_ms"] for x in busy if x["key"] == k
                                                    and x["cpu_ms"] is not None), 1)
                         for k in sorted({x["key"] for x in busy if x["cpu_ms"] is not None})}
    res["by_key"] = {k: round(max(x["ms"] for x in busy if x["key"] == k), 1)
                     for k in sorted({x["key"] for x in busy})}
    if during:
        s = sorted(during)
        res["worst_ms"] = s[-1]
        res["p50_ms"] = statistics.median(s)
        res["p95_ms"] = s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))]
    res["loop_lag_worst_ms"] = max(lags) * 1000 if lags else 0.0
    worst = max(range(len(lags)), key=lags.__getitem__) if lags else None
    res["loop_lag_worst_cpu_ms"] = lag_cpu[worst] * 1000 if worst is not None else 0.0
    res["slow_keys"] = slow
    res["key_log"] = lat
    return res


def one_run(per_resource: int, parallelism: int, size: tuple[int, int], baselines: bool,
            max_keys: int | None, profile: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"vertices": 2 * per_resource, "load_start": _load()}
    with tempfile.TemporaryDirectory(prefix="tfconsole-bench-") as tmp:
        base = Path(tmp)
        if baselines:
            out["engine"] = engine_baseline(make_dir(base, "engine", per_resource), parallelism)
            out["cli"] = cli_baseline(make_dir(base, "cli", per_resource))
        out["app"] = asyncio.run(run_app(make_dir(base, "app", per_resource), parallelism, size, max_keys,
                                       profile))
    out["load_end"] = _load()
    return out


def _load() -> float | None:
    """The 1-minute load average (the machine may be shared: figures are read with it)."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def report(runs: list[dict[str, Any]]) -> str:
    lines = []
    for n, r in enumerate(runs, 1):
        a = r["app"]
        if "error" in a:
            lines.append(f"run {n}: app error: {a['error']}")
            continue
        if r.get("load_start") is not None:
            lines.append(f"run {n}: load average {r['load_start']:.2f} at the start, {r['load_end']:.2f} at the end")
        lines.append(f"run {n}: {r['vertices']} vertices, {a['vertices_done']}/{a['vertices_total']} walk vertices "
                     f"done; {a['updates']} status updates streamed in {a['batches']} batches; {a['summary']}")
        if "worst_ms" in a:
            lines.append(f"  key -> screen latency during the apply ({a['keys']} keys): worst {a['worst_ms']:.0f} ms, "
                         f"p50 {a['p50_ms']:.0f} ms, p95 {a['p95_ms']:.0f} ms; worst by key {a['by_key']}")
            lines.append(f"  the event loop's CPU from key to screen, median by key (ms): {a['cpu_by_key']}")
        else:
            lines.append("  key -> screen latency during the apply: no key was pressed (the apply was too short)")
        for k in a.get("slow_keys", []):
            lines.append(f"  slow key: {k}")
        lines.append(f"  event-loop stall worst {a['loop_lag_worst_ms']:.0f} ms "
                     f"(the loop's own CPU in it: {a['loop_lag_worst_cpu_ms']:.0f} ms); {a['displays']} screen updates; "
                     f"{a['widgets']} widgets on screen")
        lines.append(f"  CPU during the apply: event-loop thread {a['apply_loop_cpu_s']:.2f}s of "
                     f"{a['apply_process_cpu_s']:.2f}s for the whole process")
        walls = f"  wall: app plan {a['plan_s']:.2f}s apply {a['apply_s']:.2f}s"
        if "engine" in r:
            e, c = r["engine"], r["cli"]
            if "error" not in e:
                walls += f"; engine in-process plan {e['plan_s']:.2f}s apply {e['apply_s']:.2f}s"
            if "error" not in c:
                walls += f"; CLI plan {c['plan_s']:.2f}s apply {c['apply_s']:.2f}s (subprocess)"
        lines.append(walls)
    ok = [r["app"] for r in runs if "worst_ms" in r["app"]]
    if len(ok) > 1:
        lines.append(f"over {len(ok)} runs: worst {max(a['worst_ms'] for a in ok):.0f} ms, "
                     f"median of p50 {statistics.median(a['p50_ms'] for a in ok):.0f} ms, "
                     f"median of p95 {statistics.median(a['p95_ms'] for a in ok):.0f} ms")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    from textual import constants

    lines.append(f"machine: {os.cpu_count()} CPUs, load average {load[0]:.2f} at the end; "
                 f"Textual at {constants.MAX_FPS} frames a second" if load else "")
    return "\n".join(x for x in lines if x)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=5000, help="instances per resource (two resources)")
    ap.add_argument("--quick", action="store_true", help="2 x 250 instances, no baselines, at most 16 keys")
    ap.add_argument("--parallelism", type=int, default=10)
    ap.add_argument("--size", default="120x40")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--no-baselines", action="store_true")
    ap.add_argument("--max-keys", type=int, help="press at most this many keys during the apply (0: none, to see "
                                                 "the console's own cost in the apply's wall time)")
    ap.add_argument("--json", help="also write the raw figures here")
    ap.add_argument("--profile", help="write the event-loop thread's CPU profile during the apply here "
                                      "(pstats; the last run's)")
    a = ap.parse_args(argv)
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    per = 250 if a.quick else a.count
    w, h = (int(x) for x in a.size.lower().split("x"))
    runs = []
    for _ in range(max(1, a.repeat)):
        runs.append(one_run(per, a.parallelism, (w, h), not (a.quick or a.no_baselines),
                            a.max_keys if a.max_keys is not None else 16 if a.quick else None,
                            a.profile))
    print(report(runs))
    if a.json:
        Path(a.json).write_text(json.dumps(runs, indent=2, default=str))
    failed = any("error" in r["app"] or not r["app"].get("summary", "").startswith("Apply complete!") for r in runs)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
