"""The console at scale: a 10,000-instance apply streams in with bounded rendering work.

No timing assertions (shared CI machines are noisy): these tests prove the structure that makes
the console responsive - a fixed set of widgets, rows rendered per repaint bounded by the pane's
height, counters kept incrementally - and that the latency benchmark runs. The figures themselves
come from benchmarks/tui_latency.py (see benchmarks/README_tui.md).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from test_tui_helpers import planned, wait_for

from tfconsole.tui.app import COLLAPSE_ABOVE, ConsoleApp

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parent.parent

# two independent resources: the test is about the console, not about cross-instance references
BIG = """\
resource "terraform_data" "a" {
  count = 5000
  input = "a-${count.index}"
}

resource "terraform_data" "b" {
  count = 5000
  input = "b-${count.index}"
}
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _widgets(app: ConsoleApp) -> int:
    return len(list(app.screen.walk_children(with_self=True)))


async def test_10k_apply_streams_with_bounded_rendering(tmp_path: Path) -> None:
    d = tmp_path / "big"
    d.mkdir()
    (d / "main.tf").write_text(BIG)
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        widgets = _widgets(app)
        await pilot.press("p")
        await wait_for(pilot, lambda: app.summary_line.startswith("Plan:") and not app.busy, 300)
        assert app.summary_line == "Plan: 10000 to add, 0 to change, 0 to destroy."
        assert len(app.instance_nodes) == 10000
        tree = app._tree("plan")
        # resources with more than COLLAPSE_ABOVE instances start closed: three rows, not 10,003
        assert 5000 > COLLAPSE_ABOVE
        assert [n.label.plain.strip() for n, _ in tree.rows][1:] == ["terraform_data.a +5000",
                                                                      "terraform_data.b +5000"]
        # open one: 5,000 more rows exist, yet a repaint renders at most a screenful
        first = tree.root.children[0].children[0]
        first.expand()
        tree.move_cursor(first)
        await pilot.pause(0.1)
        assert len(tree.rows) == 3 + 5000
        height = tree.size.height
        assert 0 < height < 30

        await pilot.press("a")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "ConfirmScreen")
        rendered, repaints = tree.rendered_lines, tree.repaints
        await pilot.press("y")
        # keys keep working while the apply streams in
        for key in ("down", "down", "up", "s", "escape", "g", "escape"):
            await pilot.press(key)
        assert app.view == "plan"
        # ("Applying…" also starts with "Apply": wait for the operation to end)
        await wait_for(pilot, lambda: app.summary_line.startswith("Apply") and not app.busy, 600)
        assert app.summary_line == "Apply complete! Resources: 10000 added, 0 changed, 0 destroyed."
        # the last batches are handled in chunks after the walk's end message (a key may come
        # between two): on a loaded machine they may still be arriving, so wait for them
        await wait_for(pilot, lambda: len(app.instance_status) == 10000 and all(
            u.status == "done" for u in app.instance_status.values()), 120)

        # every instance's final status arrived (coalesced), counters agree with the walk
        assert len(app.instance_status) == 10000
        assert all(u.status == "done" for u in app.instance_status.values())
        assert app.status_counts.get("done") == len(app.vertices)
        assert app.query_one("#status").done == len(app.vertices)
        # virtualisation: a fixed set of widgets, and never more rows per repaint than fit
        assert _widgets(app) == widgets
        assert tree.repaints > repaints
        assert tree.rendered_lines - rendered <= (tree.repaints - repaints) * height
        # the closed resource's row carries the aggregate progress
        b_row = tree.row_text(tree.root.children[0].children[1], 1).plain
        assert "5000/5000 done" in b_row


async def test_tree_renders_only_visible_rows() -> None:
    from tfconsole.tui.widgets import ConsoleTree, NodeInfo

    app = ConsoleApp(".")
    async with app.run_test(size=(100, 30)) as pilot:
        tree = app.query_one("#plan-tree", ConsoleTree)
        made = []

        def lazy(i: int):
            def label():
                made.append(i)
                from rich.text import Text
                return Text(f"row {i}")
            return label

        parent = tree.root.add("many", NodeInfo("empty", "many"), expand=True)
        for i in range(20000):
            parent.add_leaf(lazy(i), NodeInfo("empty", f"many[{i}]"))
        tree.focus()
        tree.move_cursor(parent.children[0])
        await pilot.pause(0.1)
        # labels are made only for rows that were shown
        assert 0 < len(made) <= tree.size.height
        await pilot.press("end")
        await pilot.pause(0.1)
        assert tree.cursor_node is parent.children[-1]
        assert len(made) <= 2 * tree.size.height + 2


def test_latency_benchmark_quick_mode_runs() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "tui_latency.py"), "--quick"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "key -> screen latency during the apply" in proc.stdout
    assert "Apply complete! Resources: 500 added" in proc.stdout


async def test_the_console_never_lets_a_full_collection_start_on_its_own(tmp_path: Path) -> None:
    """While the console runs, a full garbage collection happens only when the heap policy runs
    one (no operation, no key for a second): never because an allocation tipped a threshold in
    a key's handler, a repaint or the worker that reads the state. Allocation pressure that
    would start several on CPython's thresholds starts none while keys come; once the (faked)
    clock says nobody typed for a while, one runs and its survivors are frozen. Leaving the
    console restores the thresholds."""
    import gc

    from tfconsole.tui import heap

    usual = gc.get_threshold()
    full: list[bool] = []  # one entry per full collection: was it the policy's?
    in_policy = [False]

    def watch(phase: str, info: dict) -> None:
        if phase == "start" and info["generation"] == 2:
            full.append(in_policy[0])

    tick = heap.HeapPolicy.tick

    def policy_tick(self: heap.HeapPolicy) -> bool:
        in_policy[0] = True
        try:
            return tick(self)
        finally:
            in_policy[0] = False

    heap.HeapPolicy.tick = policy_tick  # type: ignore[method-assign]
    gc.callbacks.append(watch)
    try:
        async with planned(tmp_path, 'resource "terraform_data" "a" {\n  count = 3\n}\n') as (app, pilot):
            assert gc.get_threshold()[2] == heap.OUT_OF_REACH
            now = [1000.0]
            app.heap.clock = lambda: now[0]
            app.heap.key()  # someone types (the faked clock stands still)
            full.clear()
            collections = app.heap.collections
            garbage = []
            for _ in range(20):  # about 40 full collections' worth on CPython's own thresholds
                garbage.append([[i] for i in range(50_000)])
                await pilot.pause(0.01)
            await pilot.press("s")  # the State view reads the state on a worker thread
            await pilot.pause(0.3)
            assert full == [] and app.heap.collections == collections
            del garbage
            now[0] += 2 * app.heap.idle  # nobody typed since
            await wait_for(pilot, lambda: app.heap.collections > collections)
            assert full and all(full)
            assert gc.get_freeze_count() > 0
    finally:
        gc.callbacks.remove(watch)
        heap.HeapPolicy.tick = tick  # type: ignore[method-assign]
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == usual


async def test_a_big_status_batch_lets_a_key_in_between_its_chunks(tmp_path: Path) -> None:
    """A batch of thousands of updates (the bridge coalesced while the loop was behind) is
    handled in chunks: a key queued behind it is handled after the first chunk, not after all of
    it; every update still lands, and the bridge hears once that the batch is done."""
    from textual import events

    from tfconsole.tui.messages import VertexBatch, VertexUpdate, WalkStarted

    d = tmp_path / "cfg"
    d.mkdir()
    (d / "main.tf").write_text('resource "terraform_data" "a" {}\n')
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        names = [f"v{i}" for i in range(2500)]
        app.post_message(WalkStarted("apply", names))
        await wait_for(pilot, lambda: len(app.vertices) == 2500)
        seen: list[int] = []
        app.action_toggle_follow = lambda: seen.append(app.status_counts.get("running", 0))  # type: ignore
        done: list[bool] = []
        app.bridge.batch_done = lambda: done.append(True)  # type: ignore
        assert app.BATCH_CHUNK < 2500
        app.post_message(VertexBatch([VertexUpdate(n, "running", 0.0) for n in names]))
        app.post_message(events.Key("equals_sign", "="))
        await wait_for(pilot, lambda: app.status_counts.get("running") == 2500 and seen)
        assert seen[0] < 2500
        await pilot.pause(0.1)
        assert done == [True]


def test_heap_policy_collects_after_an_operation_only_when_idle() -> None:
    """The policy on its own, with a faked clock: nothing while an operation runs, nothing while
    keys come, one full collection once the operation has ended and a second passed without a
    key, then nothing until the young generations have promoted a full collection's worth."""
    import gc

    from tfconsole.tui.heap import SWEEP_AFTER, HeapPolicy

    now = [100.0]
    policy = HeapPolicy(idle=1.0, clock=lambda: now[0])
    usual = gc.get_threshold()
    policy.start()
    try:
        policy.operation(True)
        assert gc.get_freeze_count() == 0
        now[0] += 5
        assert not policy.tick()  # an operation runs
        policy.key()
        policy.operation(False)
        now[0] += 0.5
        assert not policy.tick()  # a key half a second ago
        now[0] += 0.6
        assert policy.tick() and policy.collections == 1 and gc.get_freeze_count() > 0
        now[0] += 5
        assert not policy.tick()  # nothing new since
        for _ in range(SWEEP_AFTER):
            gc.collect(1)  # each collection of the middle generation counts toward the sweep
        assert policy.tick() and policy.collections == 2
        policy.operation(True)
        assert gc.get_freeze_count() == 0  # what the operation frees can be found again
        policy.operation(False)
    finally:
        policy.stop()
    assert gc.get_threshold() == usual and gc.get_freeze_count() == 0


async def test_a_status_batch_waits_for_a_key_not_yet_on_screen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch that meets a key not yet painted (the bridge holds for it) is handled after the
    key's paint, not before it; then every update lands."""
    from tfconsole.tui import bridge as bridge_module
    from tfconsole.tui.messages import VertexBatch, VertexUpdate

    monkeypatch.setattr(bridge_module, "INPUT_PRIORITY", 30.0)  # (the hold's limit: not speed)
    d = tmp_path / "cfg"
    d.mkdir()
    (d / "main.tf").write_text('resource "terraform_data" "a" {}\n')
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        app.bridge.walk_started("apply", ["v1", "v2"])
        await wait_for(pilot, lambda: len(app.vertices) == 2)
        app.bridge.hold(30.0)  # a key came
        try:
            app.post_message(VertexBatch([VertexUpdate("v1", "running", 0.0)]))
            await pilot.pause(0.3)
            assert app.vertices["v1"].status == "waiting"  # the key goes first
        finally:
            app.bridge.release()  # its paint
        await wait_for(pilot, lambda: app.vertices["v1"].status == "running")
        app.bridge.walk_finished("apply", True, False)


def test_the_console_paints_at_144_frames_a_second_unless_the_user_says_otherwise() -> None:
    """Textual reads TEXTUAL_FPS once, when it is first imported: the console sets 144 before
    that (a key's paint waits for the next frame), and keeps a value the user set."""
    import os

    code = "import tfconsole.tui.app, textual.constants as c; print(c.MAX_FPS)"
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_FPS"}
    ours = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert ours.stdout.strip() == "144", ours.stderr
    users = subprocess.run([sys.executable, "-c", code], env={**env, "TEXTUAL_FPS": "30"},
                           capture_output=True, text=True, timeout=120)
    assert users.stdout.strip() == "30", users.stderr
