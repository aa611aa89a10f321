"""The console at 80x24: what the snapshots show, asserted as behaviour (the header keeps the
directory and workspace, rows keep their status words, the empty diagnostics pane takes no
room and comes back with content, the help wraps under its own column)."""
from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from tfconsole.tui.app import ConsoleApp
from tfconsole.tui.messages import VertexBatch, VertexUpdate, WalkStarted
from tfconsole.tui.screens.help import SECTIONS, help_renderable
from test_tui_helpers import planned, wait_for

pytestmark = pytest.mark.anyio

LONG = "module.platform_services.module.observability.terraform_data.collector_instance"
CONFIG = """\
resource "terraform_data" "a_rather_long_resource_name_for_a_narrow_pane" {
  count = 2
  input = count.index
}
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_status_words_and_header_survive_80_columns(tmp_path: Path) -> None:
    d = tmp_path / "a-directory-with-a-long-name"
    d.mkdir()
    (d / "main.tf").write_text(CONFIG)
    app = ConsoleApp(str(d))
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one("#diagnostics")
        assert pane.has_class("empty") and pane.region.height == 0  # collapsed, not 3 or 6 rows
        await pilot.press("p")
        await wait_for(pilot, lambda: not app.busy and app.summary_line.startswith("Plan:"))
        bar = app.query_one("#status")
        bar.operation, bar.timing, bar.done, bar.total, bar.running = "apply…", "12.3s elapsed, ~4.1s left", 9, 10, 1
        await pilot.pause(0.1)
        header = bar.render().plain
        # everything shortened, then the directory's name: the workspace stays whole
        assert len(header) <= 80 and "a-directory-with" in header and header.endswith(" · ws default")
        assert "9/10 ▶1/10" in header and "12.3s, ~4.1s left" in header
        bar.timing = ""
        await pilot.pause(0.1)
        assert "a-directory-with-a-long-name · ws default" in bar.render().plain
        # a row whose label and status do not both fit keeps the status whole
        tree = app._tree("plan")
        app.clock = lambda: 50.0
        addr = "terraform_data.a_rather_long_resource_name_for_a_narrow_pane[1]"
        app.instance_status[addr] = VertexUpdate(f"{addr} (create)", "running", 46.8)
        node = app.instance_nodes[addr]
        text = tree.row_text(node, 2, 26)
        text.truncate(26)
        assert text.plain == "       + [1]  running 3.2s"
        group = f"resource:{node.parent.data.addr}"
        app.group_progress[group] = {"done": 1, "running": 1}
        text = tree.row_text(node.parent, 1, 36)
        assert text.cell_len <= 36 and text.plain.endswith("…  1/2 done, 1 running")
        # the graph: a long address is shortened from the left, its status stays
        app.post_message(WalkStarted("apply", [f"{LONG} (create)", "root"]))
        app.post_message(VertexBatch([VertexUpdate(f"{LONG} (create)", "running", 48.9)],
                                     deps={"root": [f"{LONG} (create)"]}))
        await pilot.pause(0.2)
        await pilot.press("g")
        await wait_for(pilot, lambda: any(r.name == f"{LONG} (create)" for r in app.graph_canvas.rows))
        row = next(r for r in app.graph_canvas.rows if r.name == f"{LONG} (create)")
        drawn = app._graph_row_text(row, 48)
        assert drawn.cell_len <= 48 and drawn.plain.endswith("(create)  running 1.1s")
        assert "…" in drawn.plain and "collector_instance" in drawn.plain


async def test_empty_diagnostics_pane_comes_back_with_a_diagnostic(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text('resource "terraform_data" "x" {\n  input = var.missing\n}\n')
    app = ConsoleApp(str(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("L")  # nothing to show full screen yet
        assert app.screen.maximized is None
        await pilot.press("p")
        await wait_for(pilot, lambda: not app.busy and "failed" in app.summary_line.lower()
                       or "not valid" in app.summary_line)
        await pilot.pause(0.1)
        pane = app.query_one("#diagnostics")
        assert not pane.has_class("empty") and pane.region.height >= 3
        assert "Reference to undeclared input variable" in pane.text
        await pilot.press("L")  # the log grows to the whole screen, and back
        assert app.screen.maximized is pane
        await pilot.press("L")
        assert app.screen.maximized is None


def test_help_wraps_under_its_own_column() -> None:
    console = Console(width=76, record=True, color_system=None)
    console.print(help_renderable())
    lines = console.export_text().splitlines()
    keys = {k for _t, rows in SECTIONS for k, _d in rows}
    titles = {t for t, _rows in SECTIONS}
    desc_col = None
    for line in lines:
        if not line.strip() or line.strip() in titles or line.startswith("tfconsole"):
            continue
        stripped = line.lstrip()
        if any(line.startswith(k) or stripped.startswith(k) for k in keys if k.strip()) and desc_col is None:
            desc_col = len(line) - len(line[12:].lstrip()) if len(line) > 12 else None
        # every line is a key row or a continuation indented past the key column
        assert any(stripped.startswith(k.strip()) for k in keys) or line.startswith(" " * 10), line
    assert max(len(ln) for ln in lines) <= 76


async def test_a_cursor_moved_right_after_a_rebuild_stays(tmp_path: Path) -> None:
    """The plan tree places its cursor after a rebuild once the rows exist; a move made before
    that (a key, a jump) is not undone by it."""
    async with planned(tmp_path, 'resource "terraform_data" "a" {\n  count = 3\n}\n') as (app, pilot):
        tree = app._tree("plan")
        tree.move_cursor(app.instance_nodes["terraform_data.a[0]"])
        await pilot.pause(0.1)
        app._rebuild_plan_tree()
        tree.move_cursor(app.instance_nodes["terraform_data.a[2]"])
        await pilot.pause(0.2)
        assert tree.cursor_node.data.addr == "terraform_data.a[2]"


async def test_the_views_pane_is_marked_while_the_focus_is_in_it(tmp_path: Path) -> None:
    """The views pane's bright border follows the focus: on while any view has it (and across
    view switches, which move the focus inside the pane), off while the search box has it."""
    async with planned(tmp_path, 'resource "terraform_data" "a" {}\n') as (app, pilot):
        views = app.query_one("#views")
        assert views.has_class("focused")
        for key in ("g", "s", "escape"):
            await pilot.press(key)
            await pilot.pause()
            assert views.has_class("focused"), key
        await pilot.press("slash")
        await wait_for(pilot, lambda: not views.has_class("focused"))
        await pilot.press("enter")
        await wait_for(pilot, lambda: views.has_class("focused"))


async def test_an_apply_of_the_plan_shown_restarts_its_counters_on_the_same_groups(tmp_path: Path) -> None:
    """The key that starts an apply does not rebuild the plan's row groups (10,000 instances'
    setup): they stand, and their counters start from nothing again."""
    async with planned(tmp_path, 'resource "terraform_data" "a" {\n  count = 3\n}\n') as (app, pilot):
        groups = dict(app._groups_of)
        assert sorted(groups) == [f"terraform_data.a[{i}]" for i in range(3)]
        for addr in groups:
            app._set_instance_status(addr, VertexUpdate(addr, "done", 0.0))
        assert app.group_progress["resource:terraform_data.a"] == {"done": 3}
        app._reset_progress()  # as the apply's start does
        assert all(app._groups_of[a] is g for a, g in groups.items())
        assert all(not counters for counters in app.group_progress.values())
        app._set_instance_status("terraform_data.a[1]", VertexUpdate("terraform_data.a[1]", "running", 0.0))
        resource = app.instance_nodes["terraform_data.a[1]"].parent
        assert "1 running" in str(app._plan_decoration(resource))


async def test_a_read_worker_ending_does_not_count_as_an_operation_ending(tmp_path: Path) -> None:
    """A state read cancelled by a newer one (exclusive workers) reports through the same path
    as an operation; it must not make the views read the state again (that read cancels the
    running one, which ended the same way: the reads never finished)."""
    async with planned(tmp_path, 'resource "terraform_data" "a" {}\n') as (app, pilot):
        await pilot.press("s")
        await wait_for(pilot, lambda: app.state_outcome is not None)
        outcome, app.op_name = app.state_outcome, "apply"  # the last operation was an apply
        reads: list[int] = []
        app.run_load_state = lambda: reads.append(1)  # type: ignore[method-assign]
        app._op_finished("state cancelled")  # as _worker_changed reports a cancelled read
        assert app.state_outcome is outcome and reads == []
