"""The console's outputs: "Changes to Outputs" in the plan review, the values saved after an
apply (sensitive ones hidden), and the detail pane showing applied values after an apply."""
from __future__ import annotations

from pathlib import Path

import pytest

from tfconsole.tui.app import ConsoleApp
from test_tui_helpers import wait_for

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


CONFIG = """\
resource "terraform_data" "a" {
  input = "hello"
}
output "greeting" {
  value = terraform_data.a.output
}
output "secret" {
  value     = "s3cr3t-value"
  sensitive = true
}
"""


def detail(app: ConsoleApp) -> str:
    return str(app.query_one("#detail-body").render())


def node_of(app: ConsoleApp, kind: str):
    return next(n for n in app._tree("plan").walk() if n.data is not None and n.data.kind == kind)


async def plan_and_apply(pilot, app: ConsoleApp) -> None:
    """p, then a and y: the plan, then its apply, confirmed."""
    await pilot.press("p")
    await wait_for(pilot, lambda: app.summary_line.startswith("Plan:") and not app.busy)
    await pilot.press("a")
    await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen")
    await pilot.press("y")
    await wait_for(pilot, lambda: not app.busy and app.summary_line.startswith("Apply complete!"))


async def test_outputs_in_plan_review_and_after_apply(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(CONFIG)
    app = ConsoleApp(str(tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("p")
        await wait_for(pilot, lambda: app.summary_line.startswith("Plan:") and not app.busy)
        tree = app._tree("plan")
        outputs = node_of(app, "outputs")
        assert "Changes to Outputs (2)" in outputs.label.plain
        tree.move_cursor(outputs)
        await wait_for(pilot, lambda: "Changes to Outputs:" in detail(app))
        assert "+ greeting" in detail(app) and "+ secret" in detail(app)
        assert "(sensitive value)" in detail(app) and "s3cr3t" not in detail(app)

        await pilot.press("a")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen")
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.busy and app.summary_line.startswith("Apply complete!"))
        outputs = node_of(app, "outputs")
        assert outputs.label.plain.strip() == "Outputs (2)"
        rows = [c.label.plain.strip() for c in outputs.children]
        assert rows == ['greeting = "hello"', "secret = <sensitive>"]
        tree.move_cursor(outputs)
        await wait_for(pilot, lambda: detail(app).startswith("Outputs:"))
        assert 'greeting = "hello"' in detail(app) and "s3cr3t" not in detail(app)
        # the instance's detail: the values the apply saved, not the plan's "will be created"
        tree.move_cursor(app.instance_nodes["terraform_data.a"])
        await wait_for(pilot, lambda: "terraform_data.a: applied" in detail(app))
        assert "will be created" not in detail(app)
        assert 'input' in detail(app) and '"hello"' in detail(app)


async def test_plan_on_open(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(CONFIG)
    app = ConsoleApp(str(tmp_path), plan_on_open=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: app.summary_line.startswith("Plan: 1 to add"))
        # the header names the directory and the workspace the console acts on
        assert app.query_one("#status").workdir == f"{tmp_path.name} · workspace default"


async def test_directory_without_configuration_offers_the_demo(tmp_path: Path) -> None:
    from tfconsole.tui.app import demo_dir

    app = ConsoleApp(str(tmp_path), plan_on_open=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause(0.3)
        assert app.summary_line.startswith(f"No .tf files in {tmp_path}")
        assert ":demo" in app.summary_line
        assert app.plan is None and not app.busy  # nothing was planned here
        app.run_command("demo")
        assert app.working_dir == demo_dir()
        assert app.summary_line.startswith("Opened ")


async def test_empty_log_pane_is_small_and_L_shows_it_full_screen(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(CONFIG)
    app = ConsoleApp(str(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.diagnostics_pane
        await pilot.pause(0.1)
        # nothing to show: the pane takes no row at all (L says there is nothing yet)
        assert pane.has_class("empty") and pane.outer_size.height == 0
        await pilot.press("L")
        await pilot.pause(0.1)
        assert app.screen.maximized is None
        await plan_and_apply(pilot, app)
        await wait_for(pilot, lambda: not pane.has_class("empty"))  # the apply's progress lines


COLLECTIONS = """\
variable "nothing" {
  type    = string
  default = null
}
output "list" {
  value = tolist(["a", "b"])
}
output "obj" {
  value = { name = "x", none = var.nothing, tags = tomap({ k = "v" }) }
}
output "text" {
  value = "line one\\nline two\\n"
}
"""


async def test_applied_outputs_read_as_the_output_command_prints_them(tmp_path: Path) -> None:
    """After an apply the Outputs detail shows each value as `tfconsole output` does (which
    the differential tests hold to Terraform's): tolist(...), quoted keys, typed nulls, heredocs."""
    import subprocess
    import sys

    (tmp_path / "main.tf").write_text(COLLECTIONS)
    app = ConsoleApp(str(tmp_path))
    async with app.run_test(size=(120, 48)) as pilot:
        await plan_and_apply(pilot, app)
        app._tree("plan").move_cursor(node_of(app, "outputs"))
        await wait_for(pilot, lambda: detail(app).startswith("Outputs:"))
        shown = detail(app)
    cli = subprocess.run([sys.executable, "-m", "tfconsole", f"-chdir={tmp_path}", "output", "-no-color"],
                         capture_output=True, text=True, timeout=300)
    assert cli.returncode == 0, cli.stderr
    assert "tolist(" in cli.stdout and "tostring(null)" in cli.stdout
    assert shown.split("\n", 2)[2].strip() == cli.stdout.strip()
