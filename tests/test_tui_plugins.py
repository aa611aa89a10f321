"""The console with a provider plugin: the provider's vertex shows its configure status, and an
instance's detail pane shows the lines the provider logged while working on that instance."""
from __future__ import annotations

from pathlib import Path

import pytest
from plugin_support import make_workspace
from test_tui_helpers import wait_for

from tfconsole.tui.app import ConsoleApp

pytestmark = pytest.mark.anyio

PROVIDER = 'provider["registry.terraform.io/tfconsole/tfcheck"]'


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def detail(app: ConsoleApp) -> str:
    return str(app.query_one("#detail-body").render())


async def test_plugin_status_and_log_in_the_console(tmp_path: Path, tfcheck_provider: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    ws = make_workspace(tmp_path, tfcheck=tfcheck_provider)
    ws.write("""
terraform {
  required_providers {
    tfcheck = { source = "tfconsole/tfcheck" }
  }
}
resource "tfcheck_thing" "one" {
  name = "one"
}
resource "tfcheck_thing" "two" {
  name = "two-${tfcheck_thing.one.id}"
}
""")
    for k, v in ws.env().items():
        monkeypatch.setenv(k, v)
    app = ConsoleApp(str(ws.dir))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("p")
        await wait_for(pilot, lambda: app.summary_line.startswith("Plan:"))
        await pilot.press("a")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "ConfirmScreen")
        await pilot.press("y")
        await wait_for(pilot, lambda: app.summary_line.startswith("Apply complete!"))
        assert app.provider_status.get(PROVIDER) == "configured"

        # the instance's detail pane: its change, its status, and what the provider logged for it
        tree = app._tree("plan")
        tree.move_cursor(app.instance_nodes["tfcheck_thing.one"])
        await wait_for(pilot, lambda: "creating one" in detail(app))
        assert "provider log" in detail(app)
        assert "creating two-" not in detail(app)  # another instance's lines stay with it
        tree.move_cursor(app.instance_nodes["tfcheck_thing.two"])
        await wait_for(pilot, lambda: "creating two-" in detail(app))

        # the graph view: the provider is a vertex, and its detail says how configuring went
        await pilot.press("g")
        graph = app.graph_canvas
        await wait_for(pilot, lambda: _find(graph.rows, PROVIDER) is not None)
        graph.cursor_line = _find(graph.rows, PROVIDER)
        await wait_for(pilot, lambda: "plugin: configured" in detail(app))


def _find(rows, name: str) -> int | None:
    return next((i for i, r in enumerate(rows) if r.kind == "vertex" and r.name == name), None)
