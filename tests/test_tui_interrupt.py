"""Interrupting the console as a Terraform user does: ctrl+c cancels a running apply (in-flight
work finishes, state is saved, nothing new starts), and q during an apply asks first."""
from __future__ import annotations

from pathlib import Path

import pytest
from test_tui_helpers import state_addresses, wait_for

from tfconsole.tui.app import ConsoleApp
from tfconsole.tui.screens import ConfirmScreen

pytestmark = pytest.mark.anyio

# "first" blocks until the test creates the gate file; "second" depends on it
CONFIG = """\
resource "terraform_data" "first" {
  provisioner "local-exec" {
    command = "while [ ! -e gate ]; do sleep 0.05; done"
  }
}

resource "terraform_data" "second" {
  input = terraform_data.first.id
}
"""


def _config(tmp_path: Path, text: str) -> Path:
    d = tmp_path / "cfg"
    d.mkdir()
    (d / "main.tf").write_text(text)
    return d


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _start_blocked_apply(app: ConsoleApp, pilot, d: Path) -> None:
    await pilot.press("p")
    await wait_for(pilot, lambda: app.summary_line.startswith("Plan:"))
    await pilot.press("a")
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
    await pilot.press("y")
    await wait_for(pilot, lambda: app.busy and "terraform_data.first" in app.running)


async def test_ctrl_c_cancels_the_apply_and_keeps_what_completed(tmp_path: Path) -> None:
    d = _config(tmp_path, CONFIG)
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await _start_blocked_apply(app, pilot, d)
        await pilot.press("ctrl+c")
        await pilot.pause(0.1)
        assert app.is_running and app.busy  # the first interrupt cancels; it does not quit
        (d / "gate").write_text("")
        await wait_for(pilot, lambda: not app.busy)
        assert app.is_running
    # the in-flight resource finished and was saved; its dependent never started
    assert state_addresses(d) == {"terraform_data.first"}
    assert not (d / ".terraform.tfstate.lock.info").exists()


async def test_q_during_an_apply_asks_before_quitting(tmp_path: Path) -> None:
    d = _config(tmp_path, CONFIG)
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await _start_blocked_apply(app, pilot, d)
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await pilot.pause(0.1)
        assert app.is_running and app.busy  # declined: the apply goes on
        (d / "gate").write_text("")
        await wait_for(pilot, lambda: app.summary_line.startswith("Apply complete!"))
    assert state_addresses(d) == {"terraform_data.first", "terraform_data.second"}


FILTERED_CONFIG = CONFIG + """
resource "terraform_data" "many" {
  count = 3
  input = "m${count.index}"
}
"""


async def test_live_status_survives_filters_and_searches_during_an_apply(tmp_path: Path) -> None:
    """Rows filtered out while their instances finish show the final status when shown again,
    and a resource's counter counts its instances in the plan, not the rows a filter shows."""
    d = _config(tmp_path, FILTERED_CONFIG)
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await _start_blocked_apply(app, pilot, d)
        await pilot.press("f", "f")  # "update": nothing of this plan is shown
        await pilot.pause(0.1)
        assert not app.instance_nodes
        (d / "gate").write_text("")
        await wait_for(pilot, lambda: app.summary_line.startswith("Apply complete!"))
        while app.action_filter != "all":  # back to "all"
            await pilot.press("f")
        await wait_for(pilot, lambda: app.action_filter == "all" and len(app.instance_nodes) == 5)
        for addr, node in app.instance_nodes.items():
            assert str(app._plan_decoration(node)).strip().startswith("done"), addr
        # a search shows one of the three instances of "many": its counter still counts three
        app.search = "many[1]"
        await wait_for(pilot, lambda: list(app.instance_nodes) == ["terraform_data.many[1]"])
        resource = app.instance_nodes["terraform_data.many[1]"].parent
        assert str(app._plan_decoration(resource)).strip() == "3/3 done"


FAILING_CONFIG = """\
resource "terraform_data" "fine" {}

resource "local_file" "broken" {
  filename = "${path.module}/blocked/broken.txt"
  content  = "x"
}
"""


async def test_a_failure_is_shown_on_its_row_with_file_and_line(tmp_path: Path) -> None:
    d = _config(tmp_path, FAILING_CONFIG)
    (d / "blocked").write_text("a file where a directory is needed")
    app = ConsoleApp(str(d))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("p")
        await wait_for(pilot, lambda: app.summary_line.startswith("Plan:"))
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: app.summary_line.startswith("Apply failed"))
        # the cursor is on the failed row and its detail holds the provider's error and where
        assert app._tree("plan").cursor_node.data.addr == "local_file.broken"
        text = str(app.query_one("#detail-body").render())
        assert "not a directory" in text and "main.tf:3" in text


async def test_jump_to_running_and_failed_rows_and_follow(tmp_path: Path) -> None:
    d = _config(tmp_path, FILTERED_CONFIG)
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await _start_blocked_apply(app, pilot, d)
        tree = app._tree("plan")
        await pilot.press("G")  # vim keys in the tree: G goes to the last row
        assert tree.cursor_line == len(tree.rows) - 1
        await pilot.press("greater_than_sign")
        assert tree.cursor_node.data.addr == "terraform_data.first"  # the one running row
        await pilot.press("k", "k")
        assert tree.cursor_node.data.addr != "terraform_data.first"
        await pilot.press("equals_sign")  # follow: the cursor goes where work is running
        assert app.follow
        (d / "gate").write_text("")
        await wait_for(pilot, lambda: app.summary_line.startswith("Apply complete!"))
        await pilot.press("exclamation_mark")  # nothing failed: the cursor stays, a notice says so
        assert not any(u.status == "failed" for u in app.instance_status.values())


async def test_a_stale_plan_is_refused_and_says_nothing_was_applied(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from tfconsole.command.main import CLI

    d = _config(tmp_path, 'resource "terraform_data" "a" {}\n')
    app = ConsoleApp(str(d))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("p")
        await wait_for(pilot, lambda: app.summary_line.startswith("Plan:"))
        monkeypatch.chdir(d)  # meanwhile someone applies from the command line: the plan is stale
        assert CLI().run(["apply", "-auto-approve", "-no-color"]) == 0
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: app.summary_line.startswith("Apply "))
        assert app.summary_line.startswith("Apply refused") and "saved" not in app.summary_line
    assert state_addresses(d) == {"terraform_data.a"}  # one object, not two


async def test_the_state_view_during_an_apply_shows_the_state_read_before_it(tmp_path: Path) -> None:
    """During an apply the stored state is what was read already (the apply writes it when it
    ends): the State view shows that read and says so instead of reading it again on a thread
    that competes with the keys; when the apply ends it reads the applied state."""
    d = _config(tmp_path, CONFIG)
    app = ConsoleApp(str(d))
    reads: list[bool] = []
    load = app.run_load_state
    app.run_load_state = lambda: (reads.append(app.busy), load())[1]  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("s")  # read once before anything runs: the state is empty
        await wait_for(pilot, lambda: app.state_outcome is not None)
        await pilot.press("escape")
        await _start_blocked_apply(app, pilot, d)
        try:
            await pilot.press("s")
            await pilot.pause(0.2)
            assert reads == [False]  # nothing read while the apply runs
            assert "as read before this apply" in str(app.query_one("#views").border_title)
        finally:
            (d / "gate").write_text("")  # (the apply must end, or the app cannot)
        await wait_for(pilot, lambda: app.summary_line.startswith("Apply complete!"))
        await wait_for(pilot, lambda: app.state_outcome is not None and not app.state_outcome.state.is_empty())
        assert reads == [False, False]  # read again once the apply ended
        assert str(app.query_one("#views").border_title) == "State"
        assert state_addresses(d) == {"terraform_data.first", "terraform_data.second"}
