"""Shared helpers for the console tests (no tests here)."""
from __future__ import annotations

import json
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Callable


async def wait_for(pilot: Any, cond: Callable[[], bool], timeout: float = 600.0) -> None:
    """Let the app run until cond() holds (workers are threads; the loop must keep turning). The
    timeout only stops a hang: it is no statement about speed (a shared machine may be slow)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        await pilot.pause(0.05)
        if cond():
            return
    raise AssertionError("condition not met in time")


def state_addresses(d: Path) -> set[str]:
    """Every instance address in d/terraform.tfstate."""
    data = json.loads((d / "terraform.tfstate").read_text())
    out = set()
    for r in data["resources"]:
        for inst in r["instances"]:
            key = inst.get("index_key")
            out.add(f"{r['type']}.{r['name']}" + ("" if key is None else f"[{json.dumps(key)}]"))
    return out


@asynccontextmanager
async def planned(tmp_path: Path, main_tf: str, size: tuple[int, int] = (100, 30)) -> AsyncIterator[tuple[Any, Any]]:
    """(app, pilot): the console on a directory holding `main_tf`, after `p` planned it."""
    from tfconsole.tui.app import ConsoleApp

    d = tmp_path / "cfg"
    d.mkdir()
    (d / "main.tf").write_text(main_tf)
    app = ConsoleApp(str(d))
    async with app.run_test(size=size) as pilot:
        await pilot.press("p")
        await wait_for(pilot, lambda: app.summary_line.startswith("Plan:") and not app.busy)
        yield app, pilot
