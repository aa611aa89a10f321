"""The console's state view: values as `state show` prints them, sensitivity by the provider's
schema (one rule with the plan), the cursor kept where it was, and revealed secrets said and
hidden again when the view is left."""
from __future__ import annotations

from pathlib import Path

import pytest
from test_tui_helpers import wait_for

from tfconsole.command.main import CLI
from tfconsole.tui.app import ConsoleApp

pytestmark = pytest.mark.anyio

CONFIG = """\
resource "terraform_data" "a" {
  count = 3
  input = "v${count.index}"
}

resource "local_sensitive_file" "secret" {
  filename = "${path.module}/secret.txt"
  content  = "hunter2"
}
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def detail(app: ConsoleApp) -> str:
    return str(app.query_one("#detail-body").render())


def title(app: ConsoleApp) -> str:
    return str(app.query_one("#views").border_title)


async def test_state_view_values_cursor_and_reveal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "main.tf").write_text(CONFIG)
    monkeypatch.chdir(tmp_path)
    assert CLI().run(["apply", "-auto-approve", "-no-color"]) == 0
    app = ConsoleApp(str(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("s")
        await wait_for(pilot, lambda: app.state_outcome is not None and app.view == "state")
        tree = app._tree("state")
        node = _find(tree.root, "terraform_data.a[1]")
        tree.move_cursor(node)
        await wait_for(pilot, lambda: "terraform_data.a[1]" in detail(app))
        # terraform_data's dynamic input is shown as its value, as `state show` shows it
        assert 'input  = "v1"' in detail(app) and '"type"' not in detail(app)

        await pilot.press("T")  # taint: the state is read again and the tree rebuilt
        await wait_for(pilot, lambda: "(tainted)" in detail(app))
        assert tree.cursor_node.data.addr == "terraform_data.a[1]"  # the cursor did not jump

        secret = _find(tree.root, "local_sensitive_file.secret")
        tree.move_cursor(secret)
        await wait_for(pilot, lambda: "local_sensitive_file.secret" in detail(app))
        # the provider's schema marks content (and the hashes) sensitive, as in the plan
        assert "hunter2" not in detail(app) and "(sensitive value)" in detail(app)
        await pilot.press("r")
        await wait_for(pilot, lambda: "hunter2" in detail(app))
        assert "SENSITIVE VALUES SHOWN" in title(app)
        await pilot.press("escape")  # leave the view: secrets are hidden again
        await wait_for(pilot, lambda: app.view == "plan")
        await pilot.press("s")
        await wait_for(pilot, lambda: app.view == "state")
        assert not app.reveal and "SENSITIVE" not in title(app)
        tree.move_cursor(_find(tree.root, "local_sensitive_file.secret"))
        await wait_for(pilot, lambda: "local_sensitive_file.secret" in detail(app))
        assert "hunter2" not in detail(app)


def _find(node, addr: str):
    for child in node.children:
        if child.data is not None and child.data.kind == "state-instance" and child.data.addr == addr:
            return child
        found = _find(child, addr)
        if found is not None:
            return found
    return None
