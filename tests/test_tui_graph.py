"""The console's live graph: its textual-free model (layers, natural order, collapsed modules,
edges, critical path, timeline) and the graph view during and after a real apply."""
from __future__ import annotations

from pathlib import Path

import pytest

from tfconsole.tui.app import ConsoleApp
from tfconsole.tui.models.format import natural_key, status_word
from tfconsole.tui.models.graph import (GraphLayout, WalkGraph, critical_path, module_of, timeline_bar,
                                        timeline_rows)
from test_tui_helpers import wait_for


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _graph(edges: dict[str, list[str]]) -> WalkGraph:
    g = WalkGraph()
    for name, deps in edges.items():
        g.add(name, deps)
    return g


def test_natural_order() -> None:
    names = ["base[10]", "base[9]", "base[100]", "base[1]", "a.b", 'x["k"]']
    assert sorted(names, key=natural_key) == ["a.b", "base[1]", "base[9]", "base[10]", "base[100]", 'x["k"]']


def test_status_words() -> None:
    assert status_word("running", 10.0, None, 13.2) == "running 3.2s"
    assert status_word("done", 0, 1.14, 99) == "done 1.1s"
    assert status_word("waiting", 0, None, 1, "aws_vpc.main") == "waiting on aws_vpc.main"
    assert status_word("queued", 0, None, 1) == "queued"
    assert status_word("skipped", 0, None, 1) == "skipped"


def test_layers_by_dependency_depth() -> None:
    g = _graph({"p": [], "a": ["p"], "b": ["a", "p"], "c": ["p"], "root": ["b", "c"]})
    assert g.layers() == {"p": 0, "a": 1, "c": 1, "b": 2, "root": 3}
    layout = GraphLayout(g)
    assert [(r.kind, r.name, r.layer) for r in layout.rows] == [
        ("layer", "", 0), ("vertex", "p", 0), ("layer", "", 1), ("vertex", "a", 1), ("vertex", "c", 1),
        ("layer", "", 2), ("vertex", "b", 2), ("layer", "", 3), ("vertex", "root", 3)]
    assert layout.edges("b") == (["a", "p"], ["root"])
    assert g.blast_radius("a") == {"b", "root"}


def test_layer_sorts_naturally_and_filters() -> None:
    g = _graph({f"base[{i}]": [] for i in (10, 9, 100, 1)})
    assert [r.name for r in GraphLayout(g).rows if r.name] == ["base[1]", "base[9]", "base[10]", "base[100]"]
    assert [r.name for r in GraphLayout(g, needle="[1").rows if r.name] == ["base[1]", "base[10]", "base[100]"]


def test_collapsed_module_is_one_row_with_its_edges() -> None:
    g = _graph({"var.x": [], "module.net[0].a.b (create)": ["var.x"], "module.net[1].a.b (create)": ["var.x"],
                "module.net[0].module.sub.c.d": ["module.net[0].a.b (create)"],
                "out": ["module.net[0].module.sub.c.d", "module.net[1].a.b (create)"]})
    assert module_of("module.net[0].module.sub.c.d") == "module.net.module.sub"
    layout = GraphLayout(g, collapsed={"module.net"})
    rows = [(r.kind, r.name, r.count) for r in layout.rows if r.name]
    assert rows == [("vertex", "var.x", 0), ("module", "module.net", 3), ("vertex", "out", 0)]
    assert layout.edges("module.net") == (["var.x"], ["out"])
    assert layout.edges("out") == (["module.net"], [])


def test_critical_path_follows_the_dependency_that_finished_last() -> None:
    # short and long both feed end; long finished later, so the chain runs through it
    g = _graph({"p": [], "short": ["p"], "long": ["p"], "mid": ["long"], "end": ["short", "mid"]})
    timings = {"p": (0.0, 0.1), "short": (0.1, 0.3), "long": (0.1, 2.0), "mid": (2.0, 2.1), "end": (2.1, 2.2)}
    assert critical_path(g, timings) == ["p", "long", "mid", "end"]
    timings["short"] = (0.1, 2.15)  # now short finished after mid: it is what end waited for
    timings["end"] = (2.15, 2.2)
    assert critical_path(g, timings) == ["p", "short", "end"]
    assert critical_path(g, {}) == []


def test_timeline_bars() -> None:
    assert timeline_bar(0.0, 1.0, 2.0, 10) == "█████     "
    assert timeline_bar(1.0, 1.0, 2.0, 10) == "     █    "  # an instant still shows
    assert [r.name for r in timeline_rows({"b": (1.0, 2.0), "a": (0.0, 1.0), "c": (1.0, 1.5)})] == ["a", "b", "c"]


# a configuration whose critical chain is known: the long sleep, what follows it, the end
CRITICAL_CONFIG = """\
resource "time_sleep" "short" {
  create_duration = "100ms"
}
resource "time_sleep" "long" {
  create_duration = "3s"
}
resource "terraform_data" "after_long" {
  input = time_sleep.long.id
}
resource "terraform_data" "after_short" {
  count = 2
  input = time_sleep.short.id
}
resource "terraform_data" "end" {
  input = [terraform_data.after_long.id, terraform_data.after_short[0].id]
}
"""


def _row_texts(app: ConsoleApp) -> list[str]:
    canvas = app.graph_canvas
    return [canvas.render_row(r, 200).plain for r in canvas.rows]


@pytest.mark.anyio
async def test_live_graph_during_and_after_apply(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(CRITICAL_CONFIG)
    app = ConsoleApp(str(tmp_path), parallelism=4)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("p")
        await wait_for(pilot, lambda: app.summary_line.startswith("Plan:") and not app.busy)
        await pilot.press("a")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen")
        await pilot.press("y")
        await wait_for(pilot, lambda: app.busy)
        await pilot.press("g")
        # live: the vertex after the long sleep says what it still waits on, the sleep runs
        await wait_for(pilot, lambda: any(t.strip().endswith("terraform_data.after_long (create)  waiting on "
                                                               "time_sleep.long") for t in _row_texts(app)))
        assert any("time_sleep.long (create)  running" in t for t in _row_texts(app))
        # the header: elapsed time, and an estimate of the rest once some vertices are done
        await wait_for(pilot, lambda: "elapsed, ~" in app.query_one("#status").timing)
        assert "live" in str(app.query_one("#views").border_title)
        await wait_for(pilot, lambda: not app.busy)
        assert app.summary_line.startswith("Apply complete!")
        chain = app.critical
        assert chain.index("time_sleep.long (create)") < chain.index("terraform_data.after_long (create)") \
            < chain.index("terraform_data.end (create)")
        assert "time_sleep.short (create)" not in chain
        texts = _row_texts(app)
        assert texts[0].startswith("Critical path")
        assert any(t.strip().startswith("★ time_sleep.long (create)  done") for t in texts)
        # the timeline: a bar per timed vertex, the long sleep's the longest
        await pilot.press("v")
        await pilot.pause(0.1)
        bars = {r.name: app.graph_canvas.render_row(r, 120).plain for r in app.graph_canvas.rows
                if r.kind == "bar"}
        assert bars["time_sleep.long (create)"].count("█") > bars["time_sleep.short (create)"].count("█")


@pytest.mark.anyio
async def test_graph_edges_followed_by_keys(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(
        'resource "terraform_data" "a" {}\n'
        'resource "terraform_data" "b" {\n  input = terraform_data.a.id\n}\n'
        'resource "terraform_data" "c" {\n  input = terraform_data.b.id\n}\n')
    app = ConsoleApp(str(tmp_path))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("p")
        await wait_for(pilot, lambda: app.summary_line.startswith("Plan:") and not app.busy)
        app.run_command("graph terraform_data.c")
        await wait_for(pilot, lambda: app.graph_canvas.cursor_row is not None
                       and app.graph_canvas.cursor_row.name == "terraform_data.c")
        # the selection's dependency and dependents are marked
        # (a row: the edge mark, the critical-path mark, then the address)
        assert any(t[0] == "←" and t[3:].startswith("terraform_data.b ") for t in _row_texts(app))
        await pilot.press("left")
        await wait_for(pilot, lambda: app.graph_canvas.cursor_row.name == "terraform_data.b")
        await pilot.press("left")
        await wait_for(pilot, lambda: app.graph_canvas.cursor_row.name == "terraform_data.a")
        await pilot.press("backspace")
        await wait_for(pilot, lambda: app.graph_canvas.cursor_row.name == "terraform_data.b")
        await pilot.press("right")
        await wait_for(pilot, lambda: app.graph_canvas.cursor_row.name == "terraform_data.c")
        # / filters the graph's vertices
        await pilot.press("slash", *"data.b")
        await wait_for(pilot, lambda: [r.name for r in app.graph_canvas.rows if r.kind == "vertex"]
                       == ["terraform_data.b"])


def test_view_models_do_not_import_textual() -> None:
    """tui/models is what tests drive without Textual: importing it must not bring Textual in."""
    import subprocess
    import sys

    code = ("import sys; import tfconsole.tui.models.graph, tfconsole.tui.models.plan, "
            "tfconsole.tui.models.format; print('textual' in sys.modules, 'rich' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


@pytest.mark.anyio
async def test_keys_queued_behind_a_focus_change_reach_the_new_widget(tmp_path: Path) -> None:
    """A fast typist's `g` then `down` (both read by the terminal before the app handles the
    first) moves the graph's cursor, never the hidden plan tree's; `/` then `a` types an `a` in
    the search box instead of asking to apply."""
    from textual import events

    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {\n  count = 3\n}\n'
                                      'resource "terraform_data" "b" {\n  input = terraform_data.a[0].id\n}\n')
    app = ConsoleApp(str(tmp_path))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("p")
        await wait_for(pilot, lambda: app.summary_line.startswith("Plan:") and not app.busy)
        app.action_graph()  # the graph's rows exist (built by a worker), then back to the plan
        await wait_for(pilot, lambda: any(r.kind == "vertex" for r in app.graph_canvas.rows))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.view == "plan" and app.focused is app._tree("plan"))
        plan_line, graph_line = app._tree("plan").cursor_line, app.graph_canvas.cursor_line
        driver = app._driver
        for key in ("g", "down", "down"):  # queued at once, as the terminal's input thread does
            driver.send_message(events.Key(key, None))
        await wait_for(pilot, lambda: app.view == "graph")
        await pilot.pause(0.1)
        assert (app.graph_canvas.cursor_line, app._tree("plan").cursor_line) == (graph_line + 2, plan_line)
        assert app.focused is app.graph_canvas
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.view == "plan")
        for key, char in (("slash", "/"), ("a", "a")):
            driver.send_message(events.Key(key, char))
        await wait_for(pilot, lambda: app.query_one("#search").has_class("visible"))
        await pilot.pause(0.1)
        assert app.query_one("#search").value == "a"
        assert type(app.screen).__name__ != "ConfirmScreen"


@pytest.mark.anyio
@pytest.mark.parametrize("in_thread", [False, True], ids=["loop-layout", "worker-layout"])
async def test_graph_keys_while_the_walk_graph_grows(tmp_path: Path, in_thread: bool) -> None:
    """Keys pressed while batches stream in and the graph is laid out again between them: each
    key moves the cursor one row from the vertex it was on (rows move under a relayout, the
    cursor stays on its vertex, none of the keys is lost). A big live graph is laid out on a
    worker thread (here: any size), a small one on the loop."""
    from textual import events

    from tfconsole.tui.messages import VertexBatch, VertexUpdate, WalkStarted

    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {}\n')
    app = ConsoleApp(str(tmp_path))
    async with app.run_test(size=(120, 30)) as pilot:
        app.RELAYOUT_EVERY = 0.0  # every batch that grows the graph lays it out again
        app.LAYOUT_IN_THREAD_ABOVE = 0 if in_thread else 10**9
        names = ["root", "provider", "res.a", "res.b"]
        app.post_message(WalkStarted("apply", names))
        app.post_message(VertexBatch([], deps={"res.a": ["provider"], "res.b": ["res.a"], "root": ["res.b"]}))
        await wait_for(pilot, lambda: "res.b" in app.walk_graph.deps)
        app.busy = True  # (a walk runs: statuses and growth are live)
        app.action_graph("res.a")
        await wait_for(pilot, lambda: app.graph_canvas.cursor_row is not None
                       and app.graph_canvas.cursor_row.name == "res.a")
        canvas, driver = app.graph_canvas, app._driver
        from tfconsole.tui.views.graph import _row_identity as ident

        def neighbour(rows: list, row: object, delta: int) -> object:
            at = next(i for i, r in enumerate(rows) if ident(r) == row)
            return ident(rows[at + delta])

        for step in range(12):
            was, before = ident(canvas.cursor_row), list(canvas.rows)
            # the graph grows (a resource expands into instances that sort before the cursor's
            # row), and the key was already typed when the batch is handled
            children = [f"res.a[{step * 3 + i}]" for i in range(3)]
            app.post_message(VertexBatch([VertexUpdate(c, "waiting", 0.0) for c in children],
                                         expansions={"provider": children}))
            key = "down" if step % 4 < 2 else "up"
            driver.send_message(events.Key(key, None))
            delta = 1 if key == "down" else -1
            await wait_for(pilot, lambda children=children, was=was: all(c in app.walk_graph.deps for c in children)
                           and canvas.cursor_row is not None and ident(canvas.cursor_row) != was)
            await wait_for(pilot, lambda: not app._layout_running)
            await pilot.pause(0.05)
            # the key moved from `was` to its neighbour in the rows it met: the grown graph's
            # (laid out before the key was handled) or, with a worker layout that landed after
            # the key, the rows on screen before
            now = ident(canvas.cursor_row)
            assert now in (neighbour(canvas.rows, was, delta), neighbour(before, was, delta)), (step, key, was, now)
        # on a layer's heading row, the cursor stays on that heading as the graph grows
        # (it used to jump to the first vertex: a key pressed then seemed lost)
        layer_at = max(i for i, r in enumerate(canvas.rows) if r.kind == "layer")
        depth = canvas.rows[layer_at].layer
        canvas.cursor_line = layer_at
        more = [f"res.a[{100 + i}]" for i in range(5)]
        app.post_message(VertexBatch([], expansions={"provider": more}))
        await wait_for(pilot, lambda: all(c in app.walk_graph.deps for c in more)
                       and canvas.cursor_line != layer_at)
        assert (canvas.cursor_row.kind, canvas.cursor_row.layer) == ("layer", depth)
        # the graph grows while another view is shown: `g` paints the last layout at once and
        # lays the grown graph out right after, with no further key or batch
        await pilot.press("escape")
        late = [f"res.a[{200 + i}]" for i in range(5)]
        app.post_message(VertexBatch([], expansions={"provider": late}))
        await wait_for(pilot, lambda: all(c in app.walk_graph.deps for c in late))
        await pilot.press("g")
        await wait_for(pilot, lambda: all(any(r.name == c for r in canvas.rows) for c in late))
        app.busy = False
    assert app._layout_running is False


def test_a_layout_off_the_event_loop_pauses_now_and_then_and_lays_out_the_same() -> None:
    """A big live graph is laid out on a worker thread, which calls `pause` every few hundred
    vertices and between layers (the bridge makes it wait while a key is handled); the rows
    are those of a layout without pauses."""
    g = WalkGraph()
    for i in range(3000):
        g.add(f"terraform_data.a[{i}] (create)", ["terraform_data.a (expand)"])
    g.add("output.all (expand)", [f"terraform_data.a[{i}] (create)" for i in range(0, 3000, 7)])
    calls: list[int] = []
    paused = GraphLayout(g, pause=lambda: calls.append(1))
    assert len(calls) >= 3000 // GraphLayout.PAUSE_EVERY + 2
    assert paused.rows == GraphLayout(g).rows and paused.index == GraphLayout(g).index


def test_the_bridge_input_pause_waits_while_a_key_is_handled(monkeypatch: pytest.MonkeyPatch) -> None:
    """input_pause returns at once with no key pending; during a walk it waits from the key's
    hold until the app's release (the thread off the loop gives up the interpreter meanwhile).
    (The hold's own limit is raised here, so that the test does not depend on speed.)"""
    import threading

    from tfconsole.tui import bridge as bridge_module
    from tfconsole.tui.bridge import HookBridge

    monkeypatch.setattr(bridge_module, "INPUT_PRIORITY", 30.0)

    class Target:
        def post_message(self, message: object) -> bool:
            return True

    bridge = HookBridge(Target())
    bridge.input_pause()  # nothing held: no wait
    bridge.walk_started("apply", [])
    bridge.hold(seconds=30)
    done = threading.Event()
    waiter = threading.Thread(target=lambda: (bridge.input_pause(), done.set()))
    waiter.start()
    assert not done.wait(0.2)  # held: still waiting
    bridge.release()
    assert done.wait(10)
    waiter.join()
    bridge.walk_finished("apply", True, False)


@pytest.mark.anyio
async def test_a_big_live_graph_is_first_laid_out_off_the_loop_and_g_shows_it_coming(tmp_path: Path) -> None:
    """A big walk's graph gets its first layout from the worker, started with the walk: `g`
    pressed before it is ready paints the view at once with a "Laying out" heading (the event
    loop never lays out the walk's graph), then the rows come with the cursor on the vertex the
    key asked for."""
    import threading

    from tfconsole.tui.messages import VertexBatch, WalkStarted
    from tfconsole.tui.models import graph as graph_model

    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {}\n')
    app = ConsoleApp(str(tmp_path))
    built_on: list[str] = []  # the threads that laid out a graph with vertices
    build = graph_model.GraphLayout.build

    def recording_build(self: graph_model.GraphLayout) -> None:
        if self.graph.deps:
            built_on.append(threading.current_thread().name)
        build(self)

    gate = threading.Event()
    async with app.run_test(size=(120, 30)) as pilot:
        graph_model.GraphLayout.build = recording_build  # type: ignore[method-assign]
        app.bridge.input_pause = lambda: gate.wait(30)  # type: ignore[method-assign]
        try:
            app.LAYOUT_IN_THREAD_ABOVE = 0  # (any size counts as big)
            app.busy = True
            names = ["root", "provider", "res.a", "res.b"]
            app.post_message(WalkStarted("apply", names))
            app.post_message(VertexBatch([], deps={"res.a": ["provider"], "res.b": ["res.a"]}))
            await wait_for(pilot, lambda: "res.b" in app.walk_graph.deps and app._layout_running)
            app.action_graph("res.b")
            await pilot.pause(0.1)
            assert app.view == "graph"
            assert [r.text for r in app.graph_canvas.rows] == ["Laying out 4 vertices…"]
        finally:
            gate.set()
        await wait_for(pilot, lambda: app.graph_canvas.cursor_row is not None
                       and app.graph_canvas.cursor_row.name == "res.b")
        graph_model.GraphLayout.build = build  # type: ignore[method-assign]
        assert built_on and "MainThread" not in built_on
        app.busy = False


@pytest.mark.anyio
async def test_a_big_graph_is_laid_out_as_its_walk_ended_by_the_worker(tmp_path: Path) -> None:
    """When a big walk ends, its final graph (with what the last batches added) is laid out on
    the worker, not on the event loop, and drawn when it comes."""
    import threading

    from tfconsole.tui.messages import VertexBatch, WalkFinished, WalkStarted
    from tfconsole.tui.models import graph as graph_model

    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {}\n')
    app = ConsoleApp(str(tmp_path))
    built_on: list[str] = []
    build = graph_model.GraphLayout.build

    def recording_build(self: graph_model.GraphLayout) -> None:
        if self.graph.deps:
            built_on.append(threading.current_thread().name)
        build(self)

    async with app.run_test(size=(120, 30)) as pilot:
        graph_model.GraphLayout.build = recording_build  # type: ignore[method-assign]
        try:
            app.LAYOUT_IN_THREAD_ABOVE = 0
            app.RELAYOUT_EVERY = 3600.0  # no relayout during the walk: only its start's and its end's
            app.busy = True
            app.post_message(WalkStarted("apply", ["root", "res.a"]))
            await wait_for(pilot, lambda: "res.a" in app.walk_graph.deps)
            app.action_graph("res.a")
            await wait_for(pilot, lambda: any(r.name == "res.a" for r in app.graph_canvas.rows))
            late = [f"res.a[{i}]" for i in range(3)]
            app.post_message(VertexBatch([], expansions={"res.a": late}))
            await wait_for(pilot, lambda: all(c in app.walk_graph.deps for c in late))
            app.post_message(WalkFinished("apply", True, False))
            await wait_for(pilot, lambda: all(any(r.name == c for r in app.graph_canvas.rows) for c in late))
        finally:
            graph_model.GraphLayout.build = build  # type: ignore[method-assign]
        assert built_on and "MainThread" not in built_on
        app.busy = False
