"""Vertices touch the walk's shared state only through SyncState (states/sync.py): no vertex or
walk module changes a State itself, and none reads the walk context's State behind its lock."""
from __future__ import annotations

import ast
from pathlib import Path

import tfconsole
from tfconsole.addrs import parse_instance
from tfconsole.states.state import ObjectState, State
from tfconsole.states.sync import SyncState

SRC = Path(tfconsole.__file__).parent
MUTATIONS = {"set_current", "set_deposed", "depose_current", "remove_resource"}
# the walk context's set_output is a named value, not state: these count only on a State
STATE_OUTPUTS = {"set_output", "remove_output"}


def _walk_modules() -> list[Path]:
    return sorted((SRC / "graph" / "nodes").glob("*.py")) + sorted((SRC / "walk").glob("*.py"))


def test_only_sync_state_changes_state_during_a_walk() -> None:
    offenders = []
    for path in _walk_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                owner = ast.unparse(node.func.value)
                direct = (node.func.attr in MUTATIONS and not (owner.endswith("sync") or owner == "refreshed")) or \
                    (node.func.attr in STATE_OUTPUTS and "state" in owner)
                if direct:
                    offenders.append(f"{path.name}:{node.lineno}: {ast.unparse(node.func)}")
            if isinstance(node, ast.Attribute) and node.attr == "state" and \
                    ast.unparse(node.value) in ("ctx", "wctx"):
                offenders.append(f"{path.name}:{node.lineno}: {ast.unparse(node)} (read behind the lock)")
    assert offenders == []


def test_the_check_above_sees_a_direct_change(tmp_path: Path) -> None:
    bad = "def execute(self, ctx):\n    ctx.state.set_current(a, None, p)\n"
    tree = ast.parse(bad)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr in MUTATIONS]
    assert calls and not ast.unparse(calls[0].func.value).endswith("sync")


class Journal:
    def __init__(self) -> None:
        self.records: list[tuple] = []

    def record(self, *a: object, **kw: object) -> None:
        self.records.append((a, kw))


def test_sync_state_journals_each_change() -> None:
    j = Journal()
    sync = SyncState(State(), j)
    addr = parse_instance("terraform_data.a[0]")
    sync.set_current(addr, ObjectState(attributes={"id": "x"}), 'provider["terraform.io/builtin/terraform"]')
    key = sync.depose_current(addr, 'provider["terraform.io/builtin/terraform"]')
    assert key is not None and sync.current(addr) is None and sync.deposed(addr, key) is not None
    assert len(j.records) == 3  # set, then deposed before current removed
    assert sync.instance_keys(addr.abs_resource()) == [0]
    [(ra, provider, keys)] = sync.resources_where(lambda r: r.resource.name == "a")
    assert str(ra) == "terraform_data.a" and keys == [(0, False)]
