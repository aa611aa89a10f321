"""Reviewing a plan made elsewhere: `tfconsole ui -plan=FILE` and `:open FILE` open Terraform's
plan JSON (made here by real Terraform 1.15), tfconsole's plan file and its JSON read-only.

Terraform's own texts are the expectations: its summary line, its `# ADDR will be ...` headers
and its "Changes to Outputs" lines, read from `terraform show PLANFILE`. Sensitive values must
never reach the screen; bad files get a message, never a traceback, and are never unpickled.
"""
from __future__ import annotations

import json
import os
import pickle
import re
from pathlib import Path
from typing import Any

import pytest

from tfconsole.command.views import render_change, render_output_changes
from tfconsole.tui.app import ConsoleApp
from tfconsole.tui.models.plan_json import PlanOpenError, open_plan
from test_tui_helpers import wait_for
from tfrun import make_workdir, terraform, tfconsole

pytestmark = pytest.mark.anyio

BEFORE = """\
resource "terraform_data" "upd" { input = "one" }
resource "terraform_data" "rep" { triggers_replace = "a" }
resource "terraform_data" "gone" { input = "bye" }
resource "terraform_data" "sec" { input = sensitive("hunter2-old") }
output "plain" { value = "x" }
"""

AFTER = """\
resource "terraform_data" "upd" { input = "two" }
resource "terraform_data" "rep" { triggers_replace = "b" }
resource "terraform_data" "sec" { input = sensitive("hunter3-new") }
resource "terraform_data" "new" { input = { a = 1, b = [true, null] } }
import {
  to = terraform_data.imp
  id = "abc-123"
}
resource "terraform_data" "imp" {}
output "plain" { value = "y" }
output "secret" {
  value     = "s3cr3t-out"
  sensitive = true
}
"""

SECRETS = ("hunter2-old", "hunter3-new", "s3cr3t-out")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def plans(tmp_path_factory: Any) -> dict[str, Any]:
    """Terraform's plan (its JSON and its text) and tfconsole's of the same change."""
    root = make_workdir(tmp_path_factory, "review")
    out: dict[str, Any] = {}
    for tool in ("terraform", "tfconsole"):
        d = os.path.join(root, tool)
        os.makedirs(d)
        Path(d, "main.tf").write_text(BEFORE)
        run = terraform if tool == "terraform" else _tfconsole
        code, _o, err = run(["apply", "-auto-approve", "-input=false", "-no-color"], d)
        assert code == 0, err
        Path(d, "main.tf").write_text(AFTER)
        code, _o, err = run(["plan", "-out=p.tfplan", "-input=false", "-no-color"], d)
        assert code == 0, err
        code, text, err = run(["show", "-no-color", "p.tfplan"], d)
        assert code == 0, err
        code, js, err = run(["show", "-json", "p.tfplan"], d)
        assert code == 0, err
        Path(d, "p.json").write_text(js)
        out[tool] = {"dir": d, "text": text, "json": json.loads(js)}
    return out


def _tfconsole(args: list[str], cwd: str) -> tuple[int, str, str]:
    p = tfconsole(args, cwd)
    return p.returncode, p.stdout, p.stderr


def _blocks(text: str) -> dict[str, list[str]]:
    """Terraform's plan text: address -> the `#` lines heading its block."""
    heads: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        m = re.match(r"\s*# (\S+) (will|must|is|has)", line)
        if m:
            current = m.group(1)
            heads[current] = [line.strip()]
        elif current and line.strip().startswith("# ("):
            heads[current].append(line.strip())
        elif line.strip():
            current = None
    return heads


def _outputs_lines(text: str) -> list[str]:
    lines = text.split("Changes to Outputs:\n", 1)[1].split("\n\n")[0].splitlines()
    return [ln for ln in lines if ln.strip()]


def _summary(text: str) -> str:
    return next(ln for ln in text.splitlines() if ln.startswith("Plan:"))


# ---------------------------------------------------------------- the model

@pytest.mark.parametrize("source", ["terraform", "tfconsole-json", "tfconsole-planfile"])
def test_opened_plan_says_what_terraform_says(plans: dict[str, Any], source: str) -> None:
    tf = plans["terraform"]
    path = {"terraform": os.path.join(tf["dir"], "p.json"),
            "tfconsole-json": os.path.join(plans["tfconsole"]["dir"], "p.json"),
            "tfconsole-planfile": os.path.join(plans["tfconsole"]["dir"], "p.tfplan")}[source]
    review = open_plan(path)
    plan = review.plan
    if source == "terraform":
        assert review.source == f"Terraform {tf['json']['terraform_version']} plan JSON"
    elif source == "tfconsole-planfile":
        assert review.source == "tfconsole plan file"
    assert plan.summary_line() == _summary(tf["text"])
    rendered = {ch.address: render_change(ch) for ch in plan.changes}
    expected = _blocks(tf["text"])
    # every block Terraform shows, with its header and reason lines, and no other change
    assert set(expected) == {ch.address for ch in plan.changes if ch.action.value != "no-op" or ch.importing}
    for addr, heads in expected.items():
        assert [ln.strip() for ln in rendered[addr].splitlines() if ln.strip().startswith("#")] == heads
    assert render_output_changes([o for o in plan.output_changes if o.action.value != "no-op"]) == \
        _outputs_lines(tf["text"])
    everything = "\n".join(rendered.values()) + "\n".join(render_output_changes(plan.output_changes))
    for secret in SECRETS:
        assert secret not in everything


def _bad(tmp_path: Path, name: str, data: bytes) -> str:
    p = tmp_path / name
    p.write_bytes(data)
    return str(p)


class _Boom:
    """Unpickling this would create a file: the marker proves the console never unpickles."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> Any:
        return (open, (self.marker, "w"))


def test_bad_files_are_refused_with_a_message(tmp_path: Path, plans: dict[str, Any]) -> None:
    marker = tmp_path / "unpickled"
    tf_json = plans["terraform"]["json"]
    cases = {
        "not json": (_bad(tmp_path, "a.json", b"resource_changes: nope\n"), "is not JSON"),
        "truncated": (_bad(tmp_path, "b.json", json.dumps(tf_json)[:200].encode()), "is not JSON"),
        "format": (_bad(tmp_path, "c.json", json.dumps({**tf_json, "format_version": "2.0"}).encode()),
                   "format_version '2.0' is not supported"),
        "pickle": (_bad(tmp_path, "d.pkl", pickle.dumps(_Boom(str(marker)))), "never loads"),
        "state": (_bad(tmp_path, "e.json", json.dumps({"format_version": "1.0", "values": {}}).encode()),
                  "this JSON is a state"),
        "array": (_bad(tmp_path, "f.json", b"[1, 2]"), "a plan's JSON is an object"),
        "deep": (_bad(tmp_path, "g.json", json.dumps({**tf_json, "resource_changes": [
            {**tf_json["resource_changes"][0], "change": {**tf_json["resource_changes"][0]["change"],
                                                         "before": {"x": json.loads("[" * 500 + "]" * 500)}}}
        ]}).encode()), "nested more than"),
        "actions": (_bad(tmp_path, "h.json", json.dumps({**tf_json, "resource_changes": [
            {**tf_json["resource_changes"][0], "change": {"actions": ["explode"]}}]}).encode()),
            "resource_changes[0].change.actions: unknown actions"),
        "terraform planfile": (os.path.join(plans["terraform"]["dir"], "p.tfplan"), "written by Terraform"),
        "directory": (str(tmp_path), "is a directory"),
        "missing": (str(tmp_path / "nope.json"), "cannot read"),
    }
    for name, (path, message) in cases.items():
        with pytest.raises(PlanOpenError) as exc:
            open_plan(path)
        assert message in str(exc.value), name
    assert not marker.exists()


# ---------------------------------------------------------------- the console

def _screen_text(app: ConsoleApp) -> str:
    return app.export_screenshot()


def _detail(app: ConsoleApp) -> str:
    return str(app.query_one("#detail-body").render())


def _row(app: ConsoleApp, addr: str) -> Any:
    return next(n for n in app._tree("plan").walk() if n.data is not None and n.data.addr == addr)


async def test_console_reviews_terraform_plan_read_only(plans: dict[str, Any], tmp_path: Path) -> None:
    tf = plans["terraform"]
    path = os.path.join(tf["dir"], "p.json")
    state_before = Path(tf["dir"], "terraform.tfstate").read_bytes()
    app = ConsoleApp(str(tmp_path), plan_file=path)  # (an empty directory: the review needs none)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.review is not None and not app.busy)
        bar = app.query_one("#status").render().plain
        assert f"p.json · Terraform {tf['json']['terraform_version']} plan JSON · read-only" in bar
        assert app.summary_line.startswith(_summary(tf["text"]))
        # every change Terraform lists is a row, the import included
        for addr in _blocks(tf["text"]):
            _row(app, addr)
        assert "import" in str(_row(app, "terraform_data.imp").label)
        app._tree("plan").move_cursor(_row(app, "terraform_data.sec"))
        await wait_for(pilot, lambda: "terraform_data.sec will be updated in-place" in _detail(app))
        detail = _detail(app)
        assert "(sensitive value)" in detail
        screen = _screen_text(app)
        for secret in SECRETS:
            assert secret not in screen and secret not in detail
        for key in ("a", "d", "t"):
            await pilot.press(key)
            await pilot.pause(0.1)
            assert not app.busy
            assert app.screen is app.screen_stack[0]  # no confirmation: refused at once
        assert any("read-only" in n.message for n in app._notifications)
    assert Path(tf["dir"], "terraform.tfstate").read_bytes() == state_before


async def test_open_command_bad_file_and_back_to_planning(plans: dict[str, Any], tmp_path: Path) -> None:
    d = tmp_path / "w"
    d.mkdir()
    (d / "main.tf").write_text('resource "terraform_data" "here" {}\n')
    (d / "broken.json").write_text("{not json")
    app = ConsoleApp(str(d))
    async with app.run_test(size=(120, 40)) as pilot:
        app.run_command(":open broken.json")
        await wait_for(pilot, lambda: not app.busy and "Cannot open" in app.summary_line)
        assert "broken.json is not JSON" in app.summary_line and "line 1, column 2" in app.summary_line
        assert app.review is None and app.plan is None
        app.run_command(f":open {plans['tfconsole']['dir']}/p.tfplan")
        await wait_for(pilot, lambda: app.review is not None and not app.busy)
        assert "p.tfplan · tfconsole plan file · read-only" in app.query_one("#status").render().plain
        await pilot.press("p")  # plans this directory: the review leaves the screen
        await wait_for(pilot, lambda: not app.busy and app.summary_line.startswith("Plan:"))
        assert app.review is None and app.summary_line.startswith("Plan: 1 to add")
        assert "workspace default" in app.query_one("#status").render().plain
