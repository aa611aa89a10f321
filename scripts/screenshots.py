#!/usr/bin/env python
"""Drive the console headless and save SVG screenshots of its main views into screenshots/.

Works on a temporary copy of configs/demo (or a small generated config when the demo is
absent), so no state or output files land in the repository.

The pictures are deterministic: two runs write the same files. In this process only, the
randomness the providers draw (secrets, uuid4) comes from a seeded generator, the time
provider's clock is fixed, the walk runs one vertex at a time (-parallelism=1, so the draws and
the progress lines come in one order) and tfconsole's durations come from a virtual clock that
stands still except when this script moves it on (by 1.5 s, before the live-apply picture), so
finished vertices show 0 ms. Nothing is patched outside this script.

    .venv/bin/python scripts/screenshots.py [--out screenshots] [--size 120x40]
"""
from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import random
import secrets
import shutil
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tfconsole.graph.nodes.resource as resource_module  # noqa: E402
import tfconsole.providers.builtin.time as time_provider  # noqa: E402
import tfconsole.tui.bridge as bridge_module  # noqa: E402
import tfconsole.tui.views.apply as apply_view_module  # noqa: E402
import tfconsole.tui.views.graph as graph_view_module  # noqa: E402
import tfconsole.walk.walker as walker_module  # noqa: E402
from tfconsole.tui.app import ConsoleApp  # noqa: E402


class VirtualClock:
    """Durations the script controls: the clock stands still unless advance() moves it (the walk
    runs sub-walks beside the executing vertex, so a clock that ticked on each reading would give
    timings that depend on thread interleaving)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self._lock = threading.Lock()

    def read(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds


class _TimeModule:
    """Stands in for the `time` module inside one tfconsole module: monotonic() is virtual."""

    def __init__(self, monotonic: Callable[[], float]) -> None:
        self.monotonic = monotonic

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


def make_deterministic(seed: int = 4) -> VirtualClock:
    rng = random.Random(seed)
    lock = threading.Lock()

    def locked(fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            with lock:
                return fn(*args)
        return call

    secrets.token_bytes = locked(lambda n=None: rng.randbytes(32 if n is None else n))
    secrets.choice = locked(rng.choice)
    secrets.randbelow = locked(rng.randrange)
    secrets.randbits = locked(rng.getrandbits)
    uuid.uuid4 = locked(lambda: uuid.UUID(int=rng.getrandbits(128), version=4))
    fixed = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
    time_provider.now_utc = lambda: fixed
    clock = VirtualClock()
    walker_module.time = _TimeModule(clock.read)
    resource_module.time = _TimeModule(clock.read)
    bridge_module.time = _TimeModule(clock.read)
    apply_view_module.time = _TimeModule(clock.read)
    graph_view_module.time = _TimeModule(clock.read)
    return clock

FALLBACK = """\
resource "terraform_data" "network" {
  input = "10.0.0.0/16"
}

resource "terraform_data" "subnet" {
  for_each = toset(["a", "b", "c"])
  input    = "${terraform_data.network.output}-${each.key}"
}

resource "terraform_data" "server" {
  count = 3
  input = terraform_data.subnet["a"].output
}

resource "terraform_data" "legacy" {
  input = "to be removed"
}
"""


def prepare(workdir: Path) -> tuple[Path, Callable[[Path], None]]:
    """Copy the demo (or write the fallback); return it and a function that leaves orphans."""
    demo = ROOT / "configs" / "demo"
    target = workdir / "demo"
    if demo.is_dir():
        shutil.copytree(demo, target, ignore=shutil.ignore_patterns("terraform.tfstate*", ".terraform*", "out"))

        def orphan(d: Path) -> None:  # the demo's documented step 2
            (d / "terraform.tfvars").write_text('services = ["api", "web"]\nworkers = 1\n')

        return target, orphan
    target.mkdir()
    (target / "main.tf").write_text(FALLBACK)

    def orphan_fallback(d: Path) -> None:
        text = FALLBACK.split('resource "terraform_data" "legacy"')[0].replace("count = 3", "count = 1")
        (d / "main.tf").write_text(text)

    return target, orphan_fallback


async def wait(pilot, cond: Callable[[], bool], timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        await pilot.pause(0.02)
    return False


async def shoot(out: Path, size: tuple[int, int]) -> list[Path]:
    saved: list[Path] = []
    clock = make_deterministic()
    with tempfile.TemporaryDirectory(prefix="tfconsole-shots-") as tmp:
        d, make_orphans = prepare(Path(tmp))
        app = ConsoleApp(str(d))  # the default parallelism, as a user runs it

        def save(name: str) -> None:
            path = out / f"{name}.svg"
            app.save_screenshot(path.name, path=str(out))
            saved.append(path)

        async with app.run_test(size=size) as pilot:
            # plan review
            await pilot.press("p")
            await wait(pilot, lambda: app.summary_line.startswith(("Plan:", "No changes")) and not app.busy)
            await pilot.pause(0.2)
            save("plan-review")

            # live apply: catch it while something is running
            await pilot.press("a")
            await wait(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", 5)
            save("apply-confirm")
            await pilot.press("y")
            # a deterministic moment: the demo's 2 s time_sleep.settle is running (one vertex at a
            # time, so everything before it is done and nothing after it has started)
            slow = "time_sleep.settle" if "time_sleep.settle" in app.instance_nodes else None
            caught = await wait(pilot, lambda: (app.instance_status.get(slow) is not None
                                                and app.instance_status[slow].status == "running") if slow else
                                (any(u.status == "running" for u in app.instance_status.values())
                                 and app.query_one("#status").done > 3), 30)
            if caught and app.busy:
                clock.advance(1.5)  # the virtual clock: "running 1.5s"
                app.query_one("#plan-tree").refresh()
                await pilot.pause(0.6)
                save("live-apply")
                # the live graph at the same moment
                await pilot.press("g")
                await pilot.pause(0.6)
                save("live-graph")
                await pilot.press("escape")
            await wait(pilot, lambda: not app.busy, 120)
            await pilot.pause(0.2)
            if "live-apply" not in [p.stem for p in saved]:
                save("live-apply")
            save("apply-complete")

            # graph around an instance with dependencies
            instances = list(app.instance_nodes)
            pick = next((a for a in instances if "worker" in a or "server" in a), instances[0] if instances else "")
            app.run_command(f"graph {pick}")
            await pilot.pause(0.5)
            save("graph")  # after the apply: the critical path heads the layers
            await pilot.press("v")
            await pilot.pause(0.3)
            save("graph-timeline")
            await pilot.press("v")

            # state, one instance opened
            await pilot.press("s")
            await wait(pilot, lambda: app.state_outcome is not None, 10)
            await pilot.pause(0.2)
            tree = app.query_one("#state-tree")
            node = tree.root
            while node.children:
                node = node.children[0]
                if node.data is not None and node.data.kind == "state-instance":
                    break
            if node.data is not None and node.data.kind == "state-instance":
                node.expand()
                tree.move_cursor(node)
            await pilot.pause(0.3)
            save("state")

            # orphans after shrinking the configuration
            make_orphans(d)
            await pilot.press("escape", "p")
            await wait(pilot, lambda: not app.busy and app.summary_line.startswith(("Plan:", "No changes")), 60)
            await pilot.press("o")
            await wait(pilot, lambda: app.state_outcome is not None, 10)
            await pilot.pause(0.4)
            save("orphans")

            # help
            await pilot.press("question_mark")
            await pilot.pause(0.2)
            save("help")
            await pilot.press("escape")
    return saved


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "screenshots"))
    ap.add_argument("--size", default="120x40")
    a = ap.parse_args()
    w, h = (int(x) for x in a.size.lower().split("x"))
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    for p in asyncio.run(shoot(out, (w, h))):
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
