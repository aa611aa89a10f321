"""Snapshot tests of the console's panes (pytest-textual-snapshot).

Regenerate after an intended UI change: pytest tests/test_tui_snapshots.py --snapshot-update
The working directory is always named "demo" and the state is written by hand (fixed ids and
lineage), so nothing random or time-dependent reaches the screen.
"""
from __future__ import annotations

import json
from pathlib import Path

from tfconsole.tui.app import ConsoleApp
from test_tui_helpers import wait_for as _wait

SIZE = (100, 30)

CONFIG = """\
resource "terraform_data" "web" {
  count = 2
  input = "web-${count.index}"
}

resource "terraform_data" "db" {
  input = "postgres"
}

resource "terraform_data" "cache" {
  input = "redis"
}
"""

PROVIDER = 'provider["terraform.io/builtin/terraform"]'


def _instance(key, ident: str, value: str, *, tainted: bool = False, sensitive: bool = False) -> dict:
    inst = {
        "schema_version": 0,
        "attributes": {"id": ident, "input": value, "output": value, "triggers_replace": None},
        "sensitive_attributes": [[{"type": "get_attr", "value": "input"}]] if sensitive else [],
    }
    if key is not None:
        inst = {"index_key": key, **inst}
    if tainted:
        inst["status"] = "tainted"
    return inst


STATE = {
    "version": 4,
    "terraform_version": "1.15.0",
    "serial": 3,
    "lineage": "00000000-0000-4000-8000-000000000000",
    "outputs": {},
    "resources": [
        {"mode": "managed", "type": "terraform_data", "name": "db", "provider": PROVIDER,
         "instances": [_instance(None, "11111111-1111-4111-8111-111111111111", "mysql", sensitive=True)]},
        {"mode": "managed", "type": "terraform_data", "name": "old", "provider": PROVIDER,
         "instances": [_instance(None, "22222222-2222-4222-8222-222222222222", "legacy")]},
        {"mode": "managed", "type": "terraform_data", "name": "web", "provider": PROVIDER,
         "each": "list",
         "instances": [_instance(0, "33333333-3333-4333-8333-333333333333", "web-0"),
                       _instance(1, "44444444-4444-4444-8444-444444444444", "web-1", tainted=True)]},
    ],
    "check_results": None,
}


def make_demo(tmp_path: Path) -> Path:
    d = tmp_path / "demo"
    d.mkdir()
    (d / "main.tf").write_text(CONFIG)
    (d / "terraform.tfstate").write_text(json.dumps(STATE, indent=2))
    return d


def test_plan_review_snapshot(snap_compare, tmp_path: Path) -> None:
    app = ConsoleApp(str(make_demo(tmp_path)))

    async def run_before(pilot) -> None:
        await pilot.press("p")
        await _wait(pilot, lambda: app.summary_line.startswith("Plan:") and not app.busy)
        tree = app.query_one("#plan-tree")
        tree.move_cursor(app.instance_nodes["terraform_data.db"])
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_state_view_snapshot(snap_compare, tmp_path: Path) -> None:
    app = ConsoleApp(str(make_demo(tmp_path)))

    async def run_before(pilot) -> None:
        await pilot.press("s")
        await _wait(pilot, lambda: app.state_outcome is not None)
        await pilot.pause(0.1)
        tree = app.query_one("#state-tree")
        web = tree.root.children[0].children[2]
        web.children[1].expand()
        tree.move_cursor(web.children[1])
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_orphans_view_snapshot(snap_compare, tmp_path: Path) -> None:
    app = ConsoleApp(str(make_demo(tmp_path)))

    async def run_before(pilot) -> None:
        await pilot.press("o")
        await _wait(pilot, lambda: app.state_outcome is not None)
        await pilot.pause(0.2)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


# ---------------------------------------------------------------------------------------------
# the graph pane and the apply pane at its end: these need the deterministic randomness and the
# virtual clock of scripts/screenshots.py, undone after each test


import importlib.util
import secrets
import sys
import uuid

import pytest


@pytest.fixture
def deterministic():
    spec = importlib.util.spec_from_file_location(
        "tfconsole_screenshots", Path(__file__).resolve().parent.parent / "scripts" / "screenshots.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["tfconsole_screenshots"] = mod
    spec.loader.exec_module(mod)
    saved_secrets = {n: getattr(secrets, n) for n in ("token_bytes", "choice", "randbelow", "randbits")}
    saved_uuid4 = uuid.uuid4
    patched = [mod.walker_module, mod.resource_module, mod.bridge_module, mod.apply_view_module,
               mod.graph_view_module]
    saved_time = [m.time for m in patched]
    saved_now = mod.time_provider.now_utc
    try:
        yield mod.make_deterministic()
    finally:
        for n, f in saved_secrets.items():
            setattr(secrets, n, f)
        uuid.uuid4 = saved_uuid4
        for m, t in zip(patched, saved_time):
            m.time = t
        mod.time_provider.now_utc = saved_now
        sys.modules.pop("tfconsole_screenshots", None)


def test_graph_view_snapshot(snap_compare, tmp_path: Path, deterministic) -> None:
    app = ConsoleApp(str(make_demo(tmp_path)), parallelism=1)

    async def run_before(pilot) -> None:
        await pilot.press("p")
        await _wait(pilot, lambda: app.summary_line.startswith("Plan:") and not app.busy)
        app.run_command("graph terraform_data.web[1]")
        await pilot.pause(0.3)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_apply_pane_snapshot(snap_compare, tmp_path: Path, deterministic) -> None:
    app = ConsoleApp(str(make_demo(tmp_path)), parallelism=1)

    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: _plan_and_apply(app, pilot))


async def _plan_and_apply(app: ConsoleApp, pilot) -> None:
    await pilot.press("p")
    await _wait(pilot, lambda: app.summary_line.startswith("Plan:") and not app.busy)
    await pilot.press("a")
    await _wait(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen")
    # the demo's plan replaces something: Terraform's typed "yes" is asked for
    await pilot.press(*(["y", "e", "s", "enter"] if app.screen.typed else ["y"]))
    await _wait(pilot, lambda: not app.busy and "complete" in app.summary_line.lower(), 60)
    await pilot.pause(0.3)


# ---------------------------------------------------------------------------------------------
# the live graph, fed the messages a walk's hook bridge posts (fixed times, so the screen is
# the same on every run): during an apply, and after it with the critical path and timeline

from tfconsole.tui.messages import VertexBatch, VertexUpdate, WalkStarted  # noqa: E402

TFD = 'provider["terraform.io/builtin/terraform"]'
LIVE_DEPS = {
    "terraform_data.db (create)": [TFD],
    "terraform_data.web[0] (create)": [TFD, "terraform_data.db (create)"],
    "terraform_data.web[1] (create)": [TFD, "terraform_data.db (create)"],
    "terraform_data.web[10] (create)": [TFD, "terraform_data.db (create)"],
    "module.cache.terraform_data.node[0] (create)": [TFD],
    "module.cache.terraform_data.node[1] (create)": [TFD],
    "terraform_data.lb (create)": ["terraform_data.web[0] (create)", "terraform_data.web[1] (create)",
                                   "terraform_data.web[10] (create)",
                                   "module.cache.terraform_data.node[1] (create)"],
    "root": ["terraform_data.lb (create)"],
}


def _feed(app: ConsoleApp, statuses: dict[str, tuple[str, float, float | None]]) -> None:
    names = [TFD, *LIVE_DEPS]
    app.post_message(WalkStarted("apply", names))
    updates = [VertexUpdate(n, s, at, elapsed) for n, (s, at, elapsed) in statuses.items()]
    app.post_message(VertexBatch(updates, deps={k: list(v) for k, v in LIVE_DEPS.items()}))


def test_graph_live_snapshot(snap_compare, tmp_path: Path) -> None:
    app = ConsoleApp(str(make_demo(tmp_path)))

    run_before = _live_graph(app, "terraform_data.web[1] (create)", node1=("done", 99.5, 2.0))
    assert snap_compare(app, terminal_size=(120, 34), run_before=run_before)


def _live_graph(app: ConsoleApp, selected: str, node1: tuple[str, float, float | None]):
    """A run_before that feeds the live graph fixed statuses and selects a vertex."""
    async def run_before(pilot) -> None:
        app.clock = lambda: 103.2
        _feed(app, {
            TFD: ("done", 99.0, 0.01),
            "terraform_data.db (create)": ("done", 99.1, 1.1),
            "terraform_data.web[0] (create)": ("running", 100.0, None),
            "terraform_data.web[1] (create)": ("queued", 100.5, None),
            "terraform_data.web[10] (create)": ("failed", 100.0, 0.4),
            "module.cache.terraform_data.node[0] (create)": ("skipped", 100.0, None),
            "module.cache.terraform_data.node[1] (create)": node1,
            "terraform_data.lb (create)": ("waiting", 99.0, None),
            "root": ("waiting", 99.0, None),
        })
        await pilot.pause(0.2)
        app.run_command(f"graph {selected}")
        await _wait(pilot, lambda: app.graph_canvas.cursor_row is not None
                    and app.graph_canvas.cursor_row.name == selected)
        await pilot.pause(0.2)
    return run_before


def test_graph_after_apply_snapshot(snap_compare, tmp_path: Path) -> None:
    app = ConsoleApp(str(make_demo(tmp_path)))
    timings = {TFD: (0.0, 0.1), "terraform_data.db (create)": (0.1, 1.2),
               "module.cache.terraform_data.node[0] (create)": (0.1, 0.6),
               "module.cache.terraform_data.node[1] (create)": (0.1, 2.1),
               "terraform_data.web[0] (create)": (1.2, 1.9), "terraform_data.web[1] (create)": (1.2, 2.4),
               "terraform_data.web[10] (create)": (1.2, 1.5), "terraform_data.lb (create)": (2.4, 3.0),
               "root": (3.0, 3.0)}

    async def run_before(pilot) -> None:
        _feed(app, {n: ("done", 100.0, e - s) for n, (s, e) in timings.items()})
        await pilot.pause(0.2)
        app._graph_walk_done(timings)
        app.run_command("graph terraform_data.lb (create)")
        await pilot.pause(0.1)
        await pilot.press("v")  # the timeline under the critical path
        await pilot.pause(0.2)

    assert snap_compare(app, terminal_size=(120, 34), run_before=run_before)


# ---------------------------------------------------------------------------------------------
# 80x24, the smallest terminal the console is made for: the header keeps the directory and the
# workspace, rows keep their status words, the empty diagnostics pane takes no room, the help
# wraps each description under its own column

SMALL = (80, 24)


def test_plan_review_80x24_snapshot(snap_compare, tmp_path: Path) -> None:
    app = ConsoleApp(str(make_demo(tmp_path)))

    async def run_before(pilot) -> None:
        await pilot.press("p")
        await _wait(pilot, lambda: app.summary_line.startswith("Plan:") and not app.busy)
        app.query_one("#diagnostics").show([], {})  # (the plan's warnings, if any, are not the point here)
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_apply_pane_80x24_snapshot(snap_compare, tmp_path: Path, deterministic) -> None:
    app = ConsoleApp(str(make_demo(tmp_path)), parallelism=1)
    assert snap_compare(app, terminal_size=SMALL, run_before=lambda pilot: _plan_and_apply(app, pilot))


def test_graph_live_80x24_snapshot(snap_compare, tmp_path: Path) -> None:
    app = ConsoleApp(str(make_demo(tmp_path)))

    run_before = _live_graph(app, "module.cache.terraform_data.node[1] (create)", node1=("running", 99.5, None))
    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_help_80x24_snapshot(snap_compare, tmp_path: Path) -> None:
    app = ConsoleApp(str(make_demo(tmp_path)))

    async def run_before(pilot) -> None:
        await pilot.press("question_mark")
        await _wait(pilot, lambda: type(app.screen).__name__ == "HelpScreen")
        await pilot.pause(0.2)

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)
