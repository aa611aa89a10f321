"""The console's orphans view: derived from the state and the configuration evaluated with the
console's -var values (never a stale plan), and D destroying exactly the marked orphans."""
from __future__ import annotations

from pathlib import Path

import pytest

from tfconsole import operations
from tfconsole.operations import OperationRequest, OperationView
from tfconsole.tui.app import ConsoleApp
from test_tui_helpers import state_addresses, wait_for

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


CONFIG = """\
variable "shards" {
  type    = number
  default = 3
}
resource "terraform_data" "shard" {
  count = var.shards
  input = "shard ${count.index}"
}
resource "terraform_data" "keep" {
  input = "kept"
}
"""


class _Yes(OperationView):
    def confirm(self, plan: object) -> bool:
        return True


def applied(tmp_path: Path) -> Path:
    d = tmp_path / "cfg"
    d.mkdir()
    (d / "main.tf").write_text(CONFIG)
    res = operations.apply(OperationRequest(working_dir=str(d), view=_Yes()))
    assert res.ok, [x.summary for x in res.diags]
    return d


def orphan_rows(app: ConsoleApp) -> list[str]:
    tree = app._tree("orphans")
    return [n.data.addr for n in tree.root.children if n.data is not None and n.data.kind == "orphan"]


async def test_orphans_from_state_and_vars_and_D_destroys_exactly_the_marked(tmp_path: Path) -> None:
    d = applied(tmp_path)
    app = ConsoleApp(str(d), cli_vars=[("var", "shards=1")])
    async with app.run_test(size=(120, 36)) as pilot:
        # no plan was made: the orphans come from the state and the configuration with -var
        await pilot.press("o")
        await wait_for(pilot, lambda: orphan_rows(app) == ["terraform_data.shard[1]", "terraform_data.shard[2]"])
        assert "count index" in app._tree("orphans").root.children[0].label.plain
        tree = app._tree("orphans")
        tree.move_cursor(tree.root.children[1])
        await wait_for(pilot, lambda: tree.cursor_node is not None
                       and tree.cursor_node.data.addr == "terraform_data.shard[2]")
        await pilot.press("space", "D")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen")
        assert "Destroy all remote objects" not in app.screen.title_text
        assert app.plan is not None and not app.plan.destroy
        assert {c.address for c in app.plan.changes if c.action.name != "NOOP"} == {"terraform_data.shard[2]"}
        await pilot.press(*(["y", "e", "s", "enter"] if app.screen.typed else ["y"]))
        await wait_for(pilot, lambda: not app.busy and "complete" in app.summary_line.lower())
        assert state_addresses(d) == {"terraform_data.shard[0]", "terraform_data.shard[1]", "terraform_data.keep"}
        # the view follows the state: the destroyed orphan has gone, the other stays listed
        await pilot.press("o")
        await wait_for(pilot, lambda: orphan_rows(app) == ["terraform_data.shard[1]"])


async def test_var_command_changes_the_orphans(tmp_path: Path) -> None:
    d = applied(tmp_path)
    app = ConsoleApp(str(d))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("o")
        await wait_for(pilot, lambda: app.state_outcome is not None
                       and any(n.data is not None and n.data.kind == "empty"
                               for n in app._tree("orphans").root.children))
        assert orphan_rows(app) == []
        app.run_command("set var shards=2")
        assert app.cli_vars == [("var", "shards=2")]
        assert app.query_one("#status").variables == 1
        await pilot.press("o")
        await wait_for(pilot, lambda: orphan_rows(app) == ["terraform_data.shard[2]"])
        app.run_command("unset shards")
        assert app.cli_vars == []
