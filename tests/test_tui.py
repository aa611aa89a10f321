"""Pilot tests for the operations console (tfconsole/tui)."""
from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Callable

import pytest

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


async def wait_for(pilot, cond: Callable[[], bool], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        await pilot.pause(0.05)
        if cond():
            return
    raise AssertionError("condition not met in time")


def summary(app: ConsoleApp) -> str:
    return app.summary_line


def state_addresses(d: Path) -> set[str]:
    data = json.loads((d / "terraform.tfstate").read_text())
    out = set()
    for r in data["resources"]:
        for inst in r["instances"]:
            key = inst.get("index_key")
            suffix = "" if key is None else f"[{json.dumps(key)}]"
            out.add(f"{r['type']}.{r['name']}{suffix}")
    return out


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
        await pilot.press("p")
        await wait_for(pilot, lambda: summary(app).startswith("Plan:"))
        await pilot.press("a")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "ConfirmScreen")
        await pilot.press("y")
        await wait_for(pilot, lambda: summary(app).startswith("Apply complete!"))
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
