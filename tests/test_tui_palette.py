"""The command palette offers every console action once, by name."""
from __future__ import annotations

from pathlib import Path

import pytest

from tfconsole.tui.app import ConsoleApp

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_palette_has_every_action_once(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {}\n')
    app = ConsoleApp(str(tmp_path))
    async with app.run_test(size=(100, 30)):
        titles = [c.title for c in app.get_system_commands(app.screen)]
    assert len(titles) == len(set(titles)), sorted(t for t in titles if titles.count(t) > 1)
    bound = {b.action for b in ConsoleApp.BINDINGS if b.action not in ("back", "interrupt")}
    offered = {action for _title, _help, action in ConsoleApp.PALETTE}
    assert bound <= offered, bound - offered  # every keyboard action is also in the palette
    for wanted in ("Taint", "Target marked", "Exclude marked", "Next workspace", "Reveal sensitive values",
                   "Filter by action", "Keys", "Quit"):
        assert wanted in titles


async def test_switching_workspace_clears_the_old_plan(tmp_path: Path) -> None:
    from test_tui_helpers import wait_for

    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {}\n')
    app = ConsoleApp(str(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("p")
        await wait_for(pilot, lambda: app.summary_line.startswith("Plan:"))
        assert app.instance_nodes
        app.run_command("workspace new dev")
        await wait_for(pilot, lambda: "dev" in app.summary_line)
        assert app.plan is None and not app.instance_nodes  # nothing of default's plan on screen
        assert app.summary_line == "Workspace dev: press p to plan."
