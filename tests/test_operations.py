"""The operations layer (tfconsole/operations): every rule the CLI and the console share is one
function below both, and the same scenario driven through either ends in the same state."""
from __future__ import annotations

import ast
import io
import json
from pathlib import Path
from typing import Any

import pytest
from test_tui_helpers import wait_for

import tfconsole
from tfconsole import operations
from tfconsole.command.main import CLI
from tfconsole.graph import orphans as orphan_rules
from tfconsole.operations import OperationRequest, OperationView, local, rules
from tfconsole.tui import operations as console_ops

pytestmark = pytest.mark.anyio

SRC = Path(tfconsole.__file__).parent


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def cli(d: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    monkeypatch.chdir(d)
    out, err = io.StringIO(), io.StringIO()
    rc = CLI(out, err).run(list(args))
    return rc, out.getvalue(), err.getvalue()


def spy(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[Any]:
    """Count the calls of owner.name (still calling the real function)."""
    calls: list[Any] = []
    real = getattr(owner, name)

    def wrapper(*a: Any, **kw: Any) -> Any:
        calls.append(a)
        return real(*a, **kw)

    monkeypatch.setattr(owner, name, wrapper)
    return calls


def applied(d: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    (d / "main.tf").write_text(text)
    rc, _, err = cli(d, monkeypatch, "apply", "-auto-approve")
    assert rc == 0, err
    return d


TWO = 'resource "terraform_data" "a" {\n  count = 2\n  input = count.index\n}\n'


# ---------------------------------------------------------------- one function per rule

def test_taint_and_untaint_are_one_rule_for_cli_and_console(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = applied(tmp_path, monkeypatch, TWO)
    calls = spy(monkeypatch, rules, "set_status")
    assert cli(d, monkeypatch, "taint", "terraform_data.a[0]")[0] == 0
    assert not console_ops.set_status(str(d), "terraform_data.a[1]", "tainted").has_errors
    assert len(calls) == 2
    st = json.loads((d / "terraform.tfstate").read_text())
    assert [i.get("status") for i in st["resources"][0]["instances"]] == ["tainted", "tainted"]
    # the rule's refusal reads the same from both
    assert not console_ops.set_status(str(d), "terraform_data.a[0]", "ready").has_errors
    rc, _, err = cli(d, monkeypatch, "untaint", "terraform_data.a[0]")
    d2 = console_ops.set_status(str(d), "terraform_data.a[0]", "ready")
    assert rc == 1 and "Resource instance is not tainted" in err
    assert [x.summary for x in d2] == ["Resource instance is not tainted"]
    assert len(calls) == 5


def test_state_rm_is_one_rule_for_cli_and_console(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = applied(tmp_path, monkeypatch, TWO)
    calls = spy(monkeypatch, rules, "remove")
    rc, out, _ = cli(d, monkeypatch, "state", "rm", "terraform_data.a[0]")
    assert rc == 0 and "Removed terraform_data.a[0]" in out
    assert not console_ops.forget(str(d), ["terraform_data.a[1]"]).has_errors
    assert len(calls) == 2
    assert json.loads((d / "terraform.tfstate").read_text())["resources"] == []
    rc, _, err = cli(d, monkeypatch, "state", "rm", "terraform_data.a[0]")
    assert rc == 1 and "No matching objects found" in err
    assert [x.summary for x in console_ops.forget(str(d), ["terraform_data.a[0]"])] == ["Invalid target address"]


def test_the_stale_plan_rule_is_one_function_for_cli_and_console(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    d = applied(tmp_path, monkeypatch, TWO)
    (d / "main.tf").write_text(TWO.replace("count = 2", "count = 3"))
    assert cli(d, monkeypatch, "plan", "-out=p.tfplan")[0] == 0
    reviewed = console_ops.plan(str(d), 2, [])
    calls = spy(monkeypatch, local, "check_applicable")
    assert cli(d, monkeypatch, "taint", "terraform_data.a[0]")[0] == 0  # the state moves on
    rc, _, err = cli(d, monkeypatch, "apply", "p.tfplan")
    out = console_ops.apply(reviewed.ctx, reviewed.plan)
    assert len(calls) == 2
    assert rc == 1 and "Saved plan is stale" in err
    assert [x.summary for x in out.diags] == ["Saved plan is stale"] and out.state is None


def test_import_is_one_operation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = tmp_path
    (d / "main.tf").write_text('resource "random_integer" "n" {\n  min = 1\n  max = 100\n}\n')
    calls = spy(monkeypatch, operations, "import_resource")
    rc, out, err = cli(d, monkeypatch, "import", "random_integer.n", "15,1,100")
    assert rc == 0, err
    assert "Import successful!" in out and len(calls) == 1
    st = json.loads((d / "terraform.tfstate").read_text())
    assert st["resources"][0]["instances"][0]["attributes"]["result"] == 15
    # the same operation, called directly, refuses an address that already has an object
    res = operations.import_resource(OperationRequest(working_dir=str(d)), "random_integer.n", "16,1,100")
    assert res.failed_phase == "edit" and [x.summary for x in res.diags] == ["Resource already managed by Terraform"]


def test_orphan_reasons_come_from_one_function(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = applied(tmp_path, monkeypatch, TWO + 'resource "terraform_data" "gone" {}\n'
                'resource "terraform_data" "m" {\n  for_each = toset(["x", "y"])\n}\n')
    (d / "main.tf").write_text(TWO.replace("count = 2", "count = 1") +
                               'resource "terraform_data" "m" {\n  for_each = toset(["x"])\n}\n')
    calls = spy(monkeypatch, orphan_rules, "orphan_reason")
    rc, out, err = cli(d, monkeypatch, "plan")
    assert rc == 0, err
    planned = len(calls)
    assert planned == 3  # a[1] (count index), m["y"] (each key), gone (no resource config)
    found = console_ops.load_state(str(d)).orphans
    assert len(calls) == planned + 1 and [a for a, _ in found] == ["terraform_data.gone"]
    assert found[0][1].startswith("delete_because_no_resource_config")
    # the plan shows each reason as Terraform words it
    assert "(because index [1] is out of range for count)" in out
    assert '(because key ["y"] is not in for_each map)' in out
    assert "(because terraform_data.gone is not in configuration)" in out


def test_orphan_reason_rule() -> None:
    r = orphan_rules.orphan_reason
    assert r(0, module_declared=False, resource_declared=False) == "delete_because_no_module"
    assert r(0, module_declared=True, resource_declared=True, module_instance_live=False) == \
        "delete_because_no_module"
    assert r(None, module_declared=True, resource_declared=False) == "delete_because_no_resource_config"
    assert r(3, module_declared=True, resource_declared=True, mode="list") == "delete_because_count_index"
    assert r("k", module_declared=True, resource_declared=True, mode="map") == "delete_because_each_key"
    assert r("k", module_declared=True, resource_declared=True, mode="list") == "delete_because_wrong_repetition"
    assert r(None, module_declared=True, resource_declared=True, mode="map") == "delete_because_wrong_repetition"
    assert r(0, module_declared=True, resource_declared=True, mode="") == "delete_because_wrong_repetition"
    assert r(0, module_declared=True, resource_declared=True) is None


ORPHAN_DECISIONS = {"REASON_NO_MODULE", "REASON_WRONG_REPETITION", "REASON_COUNT_INDEX", "REASON_EACH_KEY"}
STATE_ACCESS = {"check_applicable", "persist", "lock", "unlock", "set_current", "open_journal",
                "import_resource_state", "state_manager"}


def _names_used(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, ast.alias):
            out.add(node.name.rsplit(".", 1)[-1])
    return out


def test_the_uis_hold_no_copy_of_a_rule() -> None:
    """The CLI and the console reach state only through operations: neither locks, loads,
    writes, checks staleness or decides an orphan's reason on its own."""
    for ui in (SRC / "command" / "main.py", SRC / "command" / "jsonops.py", SRC / "command" / "cliview.py",
               SRC / "tui" / "operations.py", SRC / "tui" / "app.py"):
        used = _names_used(ui)
        assert not used & ORPHAN_DECISIONS, ui
        assert not used & {"check_applicable", "persist", "set_current", "open_journal", "import_resource_state"}, \
            (ui, used & STATE_ACCESS)
    for f in SRC.rglob("*.py"):
        if f.name != "orphans.py" and f.parent.name != "plans":
            assert not _names_used(f) & ORPHAN_DECISIONS, f


def test_a_view_hears_each_phase(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = applied(tmp_path, monkeypatch, TWO)
    seen: list[str] = []

    class View(OperationView):
        def diagnostics(self, diags: Any, phase: str) -> None:
            seen.append(phase)

        def plan_ready(self, plan: Any) -> None:
            seen.append("plan-ready")

        def confirm(self, plan: Any) -> bool:
            seen.append("confirm")
            return False

    (d / "main.tf").write_text(TWO.replace("count = 2", "count = 3"))
    res = operations.apply(OperationRequest(working_dir=str(d), view=View()))
    assert seen == ["config", "lock", "state", "plan-ready", "plan", "confirm"]  # a plan, then its warnings
    assert res.declined and not res.ok and res.plan is not None
    assert not (d / ".terraform.tfstate.lock.info").exists()  # released after a refusal too


# ---------------------------------------------------------------- one scenario, two UIs

FIRST = ('resource "terraform_data" "keep" {\n  input = "k"\n}\n'
         'resource "terraform_data" "gone" {}\n'
         'resource "terraform_data" "t" {\n  input = terraform_data.keep.output\n}\n'
         'output "o" {\n  value = terraform_data.t.output\n}\n')
SECOND = FIRST.replace('resource "terraform_data" "gone" {}\n', "")


def normalized(d: Path) -> dict[str, Any]:
    """The state without what differs between any two runs (ids, lineage, serial, version)."""
    st = json.loads((d / "terraform.tfstate").read_text())
    out: dict[str, Any] = {"outputs": st["outputs"], "resources": {}}
    for r in st["resources"]:
        for i in r["instances"]:
            attrs = {k: v for k, v in i["attributes"].items() if k != "id"}
            out["resources"][f'{r["type"]}.{r["name"]}'] = (i.get("status"), attrs, sorted(i.get("dependencies", [])))
    return out


async def test_one_scenario_through_cli_and_console_ends_in_the_same_state(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tfconsole.tui.app import ConsoleApp

    # the CLI: apply, taint, the configuration loses a resource, state rm it, apply
    c = applied(tmp_path / "cli", monkeypatch, FIRST)
    assert cli(c, monkeypatch, "taint", "terraform_data.t")[0] == 0
    (c / "main.tf").write_text(SECOND)
    assert cli(c, monkeypatch, "state", "rm", "terraform_data.gone")[0] == 0
    assert cli(c, monkeypatch, "apply", "-auto-approve")[0] == 0

    # the console: the same steps with its keys and workers
    k = tmp_path / "console"
    k.mkdir()
    (k / "main.tf").write_text(FIRST)
    app = ConsoleApp(str(k))
    async with app.run_test(size=(100, 30)) as pilot:
        await _plan_apply(app, pilot)
        await app.run_edit("taint", "terraform_data.t").wait()
        (k / "main.tf").write_text(SECOND)
        await pilot.press("o")
        await wait_for(pilot, lambda: "terraform_data.gone" in [a for a, _ in app._orphans()])
        await pilot.press("F")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "ConfirmScreen")
        await pilot.press("y")
        await wait_for(pilot, lambda: "gone" not in (k / "terraform.tfstate").read_text())
        await pilot.press("escape")
        await _plan_apply(app, pilot)
    assert normalized(k) == normalized(c)
    assert normalized(c)["resources"]["terraform_data.t"][0] is None  # the tainted object was replaced
    assert "terraform_data.gone" not in normalized(c)["resources"]


async def _plan_apply(app: Any, pilot: Any) -> None:
    await pilot.press("p")
    await wait_for(pilot, lambda: app.summary_line.startswith("Plan:") and not app.busy)
    await pilot.press("a")
    await wait_for(pilot, lambda: app.screen.__class__.__name__ == "ConfirmScreen")
    # a plan that replaces or destroys anything wants "yes" typed out, as Terraform's does
    await pilot.press(*(["y", "e", "s", "enter"] if app.screen.typed else ["y"]))
    await wait_for(pilot, lambda: app.summary_line.startswith("Apply complete!") and not app.busy)


def test_the_json_ui_runs_the_shared_operations() -> None:
    """plan/apply -json stream through the operations layer: jsonops takes no lock, loads no
    state and walks no Context itself; it only calls operations.plan / operations.apply."""
    used = _names_used(SRC / "command" / "jsonops.py")
    assert not used & {"lock", "unlock", "load_state", "manager", "load", "walk"}, used
    assert {"plan", "apply", "operations"} <= used


def test_the_console_reaches_backends_only_through_operations() -> None:
    """Workspaces, state and locks: every console module goes through tfconsole.operations."""
    for f in sorted((SRC / "tui").rglob("*.py")):
        used = _names_used(f)
        assert not used & {"backend_for", "open_backend", "select_workspace", "new_workspace", "state_manager",
                           "check_applicable", "persist"}, f

