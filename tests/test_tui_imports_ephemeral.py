"""Imports and ephemeral resources in the console: planned imports listed as Terraform lists them
("will be imported", counted in the summary, their own filter), their apply followed per
instance, and ephemeral resources' open / renew / close shown in the apply and graph views."""
from __future__ import annotations

from pathlib import Path

import pytest

from tfconsole.tui.app import ConsoleApp
from test_tui_helpers import wait_for

pytestmark = pytest.mark.anyio

CONFIG = """\
ephemeral "random_password" "db" {
  length = 12
}
resource "terraform_data" "app" {
  input = "a"
}
import {
  to = terraform_data.imp
  id = "imp-42"
}
resource "terraform_data" "imp" {}
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _rows(app: ConsoleApp) -> dict[str, object]:
    return {n.data.addr: n for n in app._tree("plan").walk() if n.data is not None and n.data.addr}


def _detail(app: ConsoleApp) -> str:
    return str(app.query_one("#detail-body").render())


async def test_imports_and_ephemeral_resources(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(CONFIG)
    app = ConsoleApp(str(tmp_path))
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("p")
        await wait_for(pilot, lambda: not app.busy and app.summary_line.startswith("Plan:"))
        assert app.summary_line.startswith("Plan: 1 to import, 1 to add, 0 to change, 0 to destroy.")
        rows = _rows(app)
        # an import alone is a no-op action, and still listed (no-ops hidden) as "will be imported"
        imp = rows["terraform_data.imp"]
        assert "import 'imp-42'" in imp.label.plain
        app._tree("plan").move_cursor(imp)
        await wait_for(pilot, lambda: "terraform_data.imp will be imported" in _detail(app))
        module_row = next(n for n in app._tree("plan").walk() if n.data is not None and n.data.kind == "module")
        assert "import 1" in module_row.label.plain
        while app.action_filter != "import":
            await pilot.press("f")
        shown = {a for a, n in _rows(app).items() if n.data.kind == "instance"}
        assert shown == {"terraform_data.imp"}
        while app.action_filter != "all":
            await pilot.press("f")

        await pilot.press("a")
        await wait_for(pilot, lambda: app.screen is not app.screen_stack[0])
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.busy and "Apply complete!" in app.summary_line)
        assert app.summary_line == "Apply complete! Resources: 1 imported, 1 added, 0 changed, 0 destroyed."
        rows = _rows(app)
        # the ephemeral instance: opened, then closed after its last dependent, in the apply view
        eph = rows["ephemeral.random_password.db"]
        assert eph.data.kind == "ephemeral"
        assert app.ephemeral.word("ephemeral.random_password.db") == "closed"
        assert "closed" in app._plan_decoration(eph).plain
        app._tree("plan").move_cursor(eph)
        await wait_for(pilot, lambda: "Closing complete" in _detail(app))
        assert "Opening complete" in _detail(app) and "open " in _detail(app)
        # the imported instance's own log in its detail pane
        app._tree("plan").move_cursor(rows["terraform_data.imp"])
        await wait_for(pilot, lambda: "Import complete [id=imp-42]" in _detail(app))
        assert "Importing... [id=imp-42]" in _detail(app)
        # the graph: the ephemeral block's vertex says what its instances are
        await pilot.press("g")
        await wait_for(pilot, lambda: any(r.name == "ephemeral.random_password.db" for r in app.graph_canvas.rows))
        row = next(r for r in app.graph_canvas.rows if r.name == "ephemeral.random_password.db")
        assert "⧗ 1 closed" in app._graph_row_text(row, 120).plain


def test_ephemeral_tracker_words() -> None:
    from tfconsole.tui.models.ephemeral import EphemeralEvent as E, EphemeralTracker

    t = EphemeralTracker()
    a, b = 'module.m.ephemeral.x_secret.s["a"]', 'module.m.ephemeral.x_secret.s["b"]'
    t.apply([E(a, "open", "start"), E(b, "open", "start")])
    assert t.word(a) == "opening" and t.block_word("module.m.ephemeral.x_secret.s") == "2 opening"
    t.apply([E(a, "open", "end", 0.25), E(b, "open", "end", 0.1, "denied"), E(a, "renew", "start")])
    assert t.word(a) == "renewing" and t.word(b) == "open failed"
    t.apply([E(a, "renew", "end", 0.01), E(a, "renew", "start"), E(a, "renew", "end", 0.01)])
    assert t.word(a) == "open 250ms, renewed 2×"
    assert t.block_word("module.m.ephemeral.x_secret.s (close)") == "1 open, 1 failed"
    t.apply([E(a, "close", "start")])
    assert t.word(a) == "closing, renewed 2×"
    t.apply([E(a, "close", "end", 0.0)])
    assert t.block_word("module.m.ephemeral.x_secret.s") == "1 closed, 1 failed"
    # a managed resource of a similar name is no ephemeral block; another block's instances are not its
    assert t.block_word("module.m.x_secret.s") == "" and t.of_block("module.m.ephemeral.x_secret.ss") == []
