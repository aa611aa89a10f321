"""Pilot tests for the operations console (tfconsole/tui)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_tui_helpers import state_addresses, wait_for

from tfconsole.tui.app import ConsoleApp

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


CONFIG = """\
resource "terraform_data" "a" {
  count = 3
  input = "x${count.index}"
}

resource "terraform_data" "b" {
  input = terraform_data.a[0].output
}
"""


def write_config(d: Path, text: str = CONFIG) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    (d / "main.tf").write_text(text)
    return d


def summary(app: ConsoleApp) -> str:
    return app.summary_line


async def test_plan_shows_summary_line(tmp_path: Path) -> None:
    d = write_config(tmp_path / "cfg")
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("p")
        await wait_for(pilot, lambda: summary(app).startswith("Plan:"))
        assert summary(app) == "Plan: 4 to add, 0 to change, 0 to destroy."
        assert "terraform_data.a[1]" in app.instance_nodes
        assert not app.busy
        # the lock is held only while planning
        assert not (d / ".terraform.tfstate.lock.info").exists()


async def test_apply_confirms_and_writes_state(tmp_path: Path) -> None:
    d = write_config(tmp_path / "cfg")
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await _plan_and_apply(app, pilot)
        assert summary(app) == "Apply complete! Resources: 4 added, 0 changed, 0 destroyed."
        assert all(u.status == "done" for u in app.instance_status.values())
        assert len(app.instance_status) == 4
    assert state_addresses(d) == {"terraform_data.a[0]", "terraform_data.a[1]", "terraform_data.a[2]",
                                  "terraform_data.b"}


async def test_apply_declined_changes_nothing(tmp_path: Path) -> None:
    d = write_config(tmp_path / "cfg")
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("p")
        await wait_for(pilot, lambda: summary(app).startswith("Plan:"))
        await pilot.press("a", "n")
        await pilot.pause(0.2)
        assert summary(app).startswith("Plan:")
    assert not (d / "terraform.tfstate").exists()


async def _plan_and_apply(app: ConsoleApp, pilot) -> None:
    await pilot.press("p")
    await wait_for(pilot, lambda: summary(app).startswith("Plan:"))
    await pilot.press("a")
    await wait_for(pilot, lambda: app.screen.__class__.__name__ == "ConfirmScreen")
    await pilot.press("y")
    await wait_for(pilot, lambda: summary(app).startswith("Apply complete!"))


def tree_labels(app: ConsoleApp, name: str) -> list[str]:
    tree = app.query_one(f"#{name}-tree")
    out = []

    def walk(node) -> None:
        for child in node.children:
            out.append(str(child.label))
            walk(child)

    walk(tree.root)
    return out


async def test_state_view_shows_addresses(tmp_path: Path) -> None:
    d = write_config(tmp_path / "cfg")
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await _plan_and_apply(app, pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: app.state_outcome is not None and bool(tree_labels(app, "state")))
        labels = tree_labels(app, "state")
        assert "terraform_data.a" in labels
        assert "terraform_data.b" in labels
        assert "[2]" in labels
        assert app.view == "state"


async def test_taint_from_state_view(tmp_path: Path) -> None:
    d = write_config(tmp_path / "cfg", 'resource "terraform_data" "only" {\n  input = "v"\n}\n')
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await _plan_and_apply(app, pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: any("terraform_data.only" == x for x in tree_labels(app, "state")))
        tree = app.query_one("#state-tree")
        inst = tree.root.children[0].children[0]  # a single-instance resource is one row: the instance
        assert inst.data.kind == "state-instance"
        tree.move_cursor(inst)
        await pilot.pause(0.05)
        await pilot.press("T")
        await wait_for(pilot, lambda: any("tainted" in x for x in tree_labels(app, "state")))
        await pilot.press("p")
        await wait_for(pilot, lambda: summary(app).startswith("Plan:"))
        assert summary(app) == "Plan: 1 to add, 0 to change, 1 to destroy."
    data = json.loads((d / "terraform.tfstate").read_text())
    assert data["resources"][0]["instances"][0]["status"] == "tainted"


async def test_help_screen(tmp_path: Path) -> None:
    d = write_config(tmp_path / "cfg")
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause(0.1)
        assert app.screen.__class__.__name__ == "HelpScreen"
        from rich.console import Console

        console = Console(width=96, record=True, color_system=None)
        console.print(app.screen.query_one("#help-text").content)
        assert "re-plan with the marks as targets" in console.export_text()
        await pilot.press("escape")
        await pilot.pause(0.1)
        assert app.screen.__class__.__name__ != "HelpScreen"


async def test_command_line_plan(tmp_path: Path) -> None:
    d = write_config(tmp_path / "cfg")
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("colon")
        await pilot.pause(0.05)
        assert app.focused is not None and app.focused.id == "cmdline"
        await pilot.press("p", "l", "a", "n", "enter")
        await wait_for(pilot, lambda: summary(app).startswith("Plan:"))
        assert summary(app) == "Plan: 4 to add, 0 to change, 0 to destroy."
        assert app.focused is not None and app.focused.id == "plan-tree"


async def test_broken_config_shows_diagnostic(tmp_path: Path) -> None:
    d = write_config(tmp_path / "cfg", 'resource "terraform_data" "a" {\n  input = \n}\n'
                     'resource "terraform_data" "b" {\n  nope = 1\n}\n')
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("p")
        await wait_for(pilot, lambda: not app.busy and bool(app.diagnostics_pane.diagnostics))
        diags = app.diagnostics_pane.diagnostics
        assert any(x.is_error for x in diags)
        body = app.diagnostics_pane.text
        assert "main.tf:" in body
        assert "configuration is not valid" in summary(app) or "failed" in summary(app)
        # still alive: other views open without crashing
        await pilot.press("s")
        await pilot.pause(0.3)
        await pilot.press("o")
        await pilot.pause(0.3)
        await pilot.press("g")
        await pilot.pause(0.3)
        assert app.is_running


async def test_invalid_reference_reports_file_and_line(tmp_path: Path) -> None:
    d = write_config(tmp_path / "cfg", 'resource "terraform_data" "a" {\n  input = terraform_data.missing.id\n}\n')
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("p")
        await wait_for(pilot, lambda: not app.busy and bool(app.diagnostics_pane.diagnostics))
        body = app.diagnostics_pane.text
        assert "main.tf:2" in body


async def test_marks_target_replan(tmp_path: Path) -> None:
    d = write_config(tmp_path / "cfg")
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("p")
        await wait_for(pilot, lambda: summary(app).startswith("Plan:"))
        tree = app.query_one("#plan-tree")
        await pilot.pause(0.2)  # the plan's own cursor placement (after a refresh) comes first
        tree.move_cursor(app.instance_nodes["terraform_data.a[1]"])
        await wait_for(pilot, lambda: tree.cursor_node is not None
                       and tree.cursor_node.data.addr == "terraform_data.a[1]")
        await pilot.press("space")
        await pilot.pause(0.05)
        assert app.marks == {"terraform_data.a[1]"}
        await pilot.press("t")
        await wait_for(pilot, lambda: not app.busy and app.plan is not None and bool(app.plan.targets))
        assert summary(app).startswith("Plan: 1 to add, 0 to change, 0 to destroy.")
        # exclusions: mark the resource terraform_data.b (instead of a[1]) and re-plan with e
        await pilot.press("c")
        await pilot.press("p")
        await wait_for(pilot, lambda: not app.busy and app.plan is not None and not app.plan.targets
                       and "terraform_data.b" in app.instance_nodes)
        # a single-instance resource is one row (its instance): marking it marks the resource
        tree.move_cursor(app.instance_nodes["terraform_data.b"])
        await pilot.pause(0.05)
        await pilot.press("space", "e")
        await wait_for(pilot, lambda: not app.busy and app.plan is not None and bool(app.plan.excludes))
        assert app.plan.excludes == ["terraform_data.b"]
        assert summary(app).startswith("Plan: 3 to add, 0 to change, 0 to destroy.")
        assert "terraform_data.b" not in app.instance_nodes


async def test_orphans_view_and_forget(tmp_path: Path) -> None:
    d = write_config(tmp_path / "cfg", 'resource "terraform_data" "keep" {}\nresource "terraform_data" "gone" {}\n')
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await _plan_and_apply(app, pilot)
        (d / "main.tf").write_text('resource "terraform_data" "keep" {}\n')
        await pilot.press("o")
        await wait_for(pilot, lambda: any("terraform_data.gone" in x for x in tree_labels(app, "orphans")))
        await pilot.press("F")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "ConfirmScreen")
        await pilot.press("y")
        await wait_for(pilot, lambda: any("No orphans" in x for x in tree_labels(app, "orphans")))
    assert state_addresses(d) == {"terraform_data.keep"}


async def test_destroy_with_confirmation(tmp_path: Path) -> None:
    d = write_config(tmp_path / "cfg")
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await _plan_and_apply(app, pilot)
        await pilot.press("d")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "ConfirmScreen")
        await pilot.press("y", "enter")  # a destroy wants "yes" typed out: "y" is not enough
        await wait_for(pilot, lambda: app.screen.__class__.__name__ != "ConfirmScreen")
        await pilot.pause(0.2)
        assert not app.busy and state_addresses(d)
        await pilot.press("d")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "ConfirmScreen")
        await pilot.press("y", "e", "s", "enter")
        await wait_for(pilot, lambda: summary(app).startswith("Destroy complete!"))
        assert summary(app) == "Destroy complete! Resources: 4 destroyed."
    assert state_addresses(d) == set()


async def test_graph_view_after_apply_has_timings(tmp_path: Path) -> None:
    d = write_config(tmp_path / "cfg")
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await _plan_and_apply(app, pilot)
        app.run_command("graph terraform_data.b")
        await pilot.pause(0.3)
        assert app.view == "graph"
        assert app.graph_info is not None and app.graph_info.timings
        detail = str(app.query_one("#detail-body").render())
        assert "terraform_data.b" in detail and "depends on" in detail


async def test_cancel_is_harmless_when_idle(tmp_path: Path) -> None:
    d = write_config(tmp_path / "cfg")
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("x")
        await pilot.pause(0.05)
        assert app.is_running


class _MessageSink:
    """Stands for the app in the hook bridge's tests: keeps what is posted."""

    def __init__(self) -> None:
        self.messages: list = []

    def post_message(self, m) -> None:
        self.messages.append(m)


def test_bridge_coalesces_vertex_updates() -> None:
    from tfconsole.tui.bridge import HookBridge
    from tfconsole.tui.messages import VertexBatch

    target = _MessageSink()
    bridge = HookBridge(target, interval=0.05)
    bridge.walk_started("apply", [f"v{i}" for i in range(2000)])
    for i in range(2000):
        bridge.vertex_queued(f"v{i}")
        bridge.vertex_started(f"v{i}")
        bridge.vertex_finished(f"v{i}", 0.001)
    bridge.walk_finished("apply", True, False)
    batches = [m for m in target.messages if isinstance(m, VertexBatch)]
    assert len(batches) <= 50  # 6,000 events, a handful of messages
    final = {u.name: u.status for b in batches for u in b.updates}
    assert len(final) == 2000 and set(final.values()) == {"done"}


async def test_orphans_of_a_removed_module_key(tmp_path: Path) -> None:
    """The engine plans the delete of a removed module instance; the orphans view lists it with
    its reason and D destroys exactly it."""
    d = write_config(tmp_path / "cfg", 'variable "keys" {\n  default = ["a", "b"]\n}\n\n'
                     'module "svc" {\n  source   = "./svc"\n  for_each = toset(var.keys)\n  name = each.key\n}\n')
    (d / "svc").mkdir()
    (d / "svc" / "main.tf").write_text('variable "name" {}\n\nresource "terraform_data" "x" {\n'
                                       '  input = var.name\n}\n')
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await _plan_and_apply(app, pilot)
        (d / "terraform.tfvars").write_text('keys = ["a"]\n')
        await pilot.press("p")
        await wait_for(pilot, lambda: summary(app).startswith("Plan:") and not app.busy)
        assert summary(app) == "Plan: 0 to add, 0 to change, 1 to destroy."
        await pilot.press("o")
        await wait_for(pilot, lambda: any('module.svc["b"]' in x for x in tree_labels(app, "orphans")))
        labels = [x for x in tree_labels(app, "orphans") if "module.svc" in x]
        assert len(labels) == 1 and "no module" in labels[0]
        detail = str(app.query_one("#detail-body").render())
        # Terraform's words for the reason, never the internal name
        assert '(because module.svc["b"] is not in configuration)' in detail
        assert "delete_because" not in detail
        await pilot.press("D")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "ConfirmScreen")
        await pilot.press("y", "e", "s", "enter")
        # a normal plan restricted to the orphan (not a destroy plan): it deletes just that
        await wait_for(pilot, lambda: summary(app).startswith("Apply complete! Resources: 0 added, 0 changed, "
                                                              "1 destroyed."))
    data = json.loads((d / "terraform.tfstate").read_text())
    assert [(r.get("module"), r["name"]) for r in data["resources"]] == [('module.svc["a"]', "x")]


def test_bridge_input_priority_holds_at_most_half_the_time() -> None:
    import threading
    import time as _time

    from tfconsole.tui.bridge import INPUT_PRIORITY, HookBridge

    bridge = HookBridge(_MessageSink())
    bridge.hold()
    assert bridge._hold_until == 0.0  # no walk runs: a key holds nothing
    bridge.walk_started("apply", ["v"])
    t0 = _time.perf_counter()
    bridge.hold()
    first = bridge._hold_until
    assert first >= t0 + INPUT_PRIORITY
    bridge.hold()  # a key right after: no second window until as long again has passed
    assert bridge._hold_until == first
    assert bridge._next_hold >= first + INPUT_PRIORITY - 1e-9
    # a hook call during the hold waits, and goes on as soon as the key is painted (release)
    done = threading.Event()
    worker = threading.Thread(target=lambda: (bridge.vertex_started("v"), done.set()))
    worker.start()
    assert not done.wait(0.02)
    bridge.release()
    assert done.wait(5)
    worker.join()
    # the walk's end ends any hold
    bridge.hold(60.0)
    bridge.walk_finished("apply", True, False)
    assert bridge._hold_until <= _time.perf_counter()


def test_bridge_sends_one_batch_at_a_time() -> None:
    """Back-pressure: until the app has handled a batch, later events coalesce in the bridge
    (newest status per vertex) instead of queueing as more messages; the walk's end sends the
    rest regardless."""
    from tfconsole.tui.bridge import HookBridge
    from tfconsole.tui.messages import VertexBatch

    target = _MessageSink()
    bridge = HookBridge(target, interval=60.0)  # (no timer fires during the test)
    bridge.walk_started("apply", ["a", "b"])
    bridge.vertex_started("a")
    bridge.flush()
    bridge.vertex_finished("a", 0.1)
    bridge.vertex_started("b")
    bridge.flush()  # the first batch is not handled yet: nothing more is sent
    batches = [m for m in target.messages if isinstance(m, VertexBatch)]
    assert [[(u.name, u.status) for u in b.updates] for b in batches] == [[("a", "running")]]
    bridge.batch_done()
    bridge.flush()
    batches = [m for m in target.messages if isinstance(m, VertexBatch)]
    assert [(u.name, u.status) for u in batches[1].updates] == [("a", "done"), ("b", "running")]
    bridge.vertex_finished("b", 0.1)  # batch 2 unhandled, yet the walk's end sends the rest
    bridge.walk_finished("apply", True, False)
    batches = [m for m in target.messages if isinstance(m, VertexBatch)]
    assert [(u.name, u.status) for u in batches[2].updates] == [("b", "done")]


async def test_switch_workspace_from_keyboard(tmp_path: Path) -> None:
    d = write_config(tmp_path / "cfg")
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await _plan_and_apply(app, pilot)
        assert (d / "terraform.tfstate").exists()
        # a new workspace from the command line: its state is empty, so a plan creates everything
        await pilot.press("colon")
        for ch in "workspace new blue":
            await pilot.press("space" if ch == " " else ch)
        await pilot.press("enter")
        await wait_for(pilot, lambda: (d / ".terraform" / "environment").exists())
        assert (d / ".terraform" / "environment").read_text() == "blue"
        assert "workspace blue" in app.query_one("#status").workdir
        await pilot.press("p")
        await wait_for(pilot, lambda: summary(app).startswith("Plan:"))
        assert summary(app) == "Plan: 4 to add, 0 to change, 0 to destroy."
        # W cycles back to default, whose state already holds everything
        await pilot.press("W")
        await wait_for(pilot, lambda: (d / ".terraform" / "environment").read_text() == "default")
        await pilot.press("p")
        await wait_for(pilot, lambda: not app.busy and summary(app) != "" and "4 to add" not in summary(app))
        assert "No changes" in summary(app)
