"""A backend plugs into the operations by providing a state manager: a backend registered in
backends.BACKENDS (as http and pg register themselves) runs plan, apply, the state edits and
import with no state file written locally."""
from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from tfconsole import backends
from tfconsole.command.main import CLI
from tfconsole.diags import Diagnostics
from tfconsole.states.state import State
from tfconsole.states.statefile import read_state, write_state


class MemoryJournal:
    """Keeps nothing between runs: the memory manager persists the folded state at the end."""

    def __init__(self, mgr: "MemoryManager") -> None:
        self.mgr = mgr
        self.records = 0

    def record(self, *a: Any, **kw: Any) -> None:
        self.records += 1

    def record_output(self, *a: Any) -> None:
        self.records += 1

    def record_check_results(self, *a: Any) -> None:
        pass

    def close(self) -> None:
        pass

    def fold(self, state: State) -> Diagnostics:
        return self.mgr.persist(state)


class MemoryManager:
    """A state manager over a text blob, the way a remote one keeps state elsewhere."""

    def __init__(self, store: dict[str, Any], workspace: str, operation: str) -> None:
        self.store, self.workspace, self.operation = store, workspace, operation
        self.state: State | None = None
        self.locked = False
        self.on_lock_wait = None

    def lock(self, *_: Any, **__: Any) -> Diagnostics:
        d = Diagnostics()
        if self.store.get("lock"):
            d.error("Error acquiring the state lock", f"held by {self.store['lock']}")
            return d
        self.store["lock"] = self.operation
        self.locked = True
        return d

    def unlock(self) -> None:
        if self.locked:
            self.store.pop("lock", None)
            self.locked = False

    def load(self) -> tuple[State | None, Diagnostics]:
        text = self.store.get(self.workspace)
        if text is None:
            return None, Diagnostics()
        self.state, d = read_state(text)
        return self.state, d

    def persist(self, state: State) -> Diagnostics:
        state.serial += 1
        self.store[self.workspace] = write_state(state)
        self.store.setdefault("writes", []).append(self.operation)
        self.state = state
        return Diagnostics()

    def open_journal(self) -> MemoryJournal:
        return MemoryJournal(self)


class MemoryBackend:
    def __init__(self, store: dict[str, Any]) -> None:
        self.store = store

    def current_workspace(self) -> str:
        return "default"

    def workspaces(self) -> list[str]:
        return ["default"]

    def state_manager(self, name: str | None = None, *, lock: bool = True, lock_timeout: float = 0.0,
                      operation: str = "OperationTypeApply") -> MemoryManager:
        return MemoryManager(self.store, name or "default", operation)


@pytest.fixture
def store(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    shared: dict[str, Any] = {}
    monkeypatch.setitem(backends.BACKENDS, "pg",
                        lambda wd, settings, overrides: (MemoryBackend(shared), Diagnostics()))
    return shared


def run(d: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    monkeypatch.chdir(d)
    out, err = io.StringIO(), io.StringIO()
    return CLI(out, err).run(list(args)), out.getvalue(), err.getvalue()


CONFIG = ('terraform {\n  backend "pg" {\n    conn_str = "postgres://db/state"\n  }\n}\n\n'
          'resource "terraform_data" "a" {\n  count = 2\n  input = count.index\n}\n')


def test_operations_run_over_a_registered_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  store: dict[str, Any]) -> None:
    (tmp_path / "main.tf").write_text(CONFIG)
    rc, out, err = run(tmp_path, monkeypatch, "apply", "-auto-approve")
    assert rc == 0, err
    assert "2 added" in out
    assert not (tmp_path / "terraform.tfstate").exists()  # the state lives in the backend
    assert store["writes"] == ["OperationTypeApply"] and "lock" not in store
    assert run(tmp_path, monkeypatch, "taint", "terraform_data.a[0]")[0] == 0
    assert run(tmp_path, monkeypatch, "state", "rm", "terraform_data.a[1]")[0] == 0
    state, _ = read_state(store["default"])
    assert [(str(a), i.current.status) for a, i in state.all_instances()] == [("terraform_data.a[0]", "tainted")]
    rc, out, _ = run(tmp_path, monkeypatch, "plan")
    assert rc == 0 and "Plan: 2 to add, 0 to change, 1 to destroy." in out
    assert store["writes"] == ["OperationTypeApply", "OperationTypeState", "OperationTypeState"]


def test_a_lock_held_elsewhere_stops_every_operation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      store: dict[str, Any]) -> None:
    (tmp_path / "main.tf").write_text(CONFIG)
    store["lock"] = "someone else"
    for args in (("plan",), ("apply", "-auto-approve"), ("state", "rm", "terraform_data.a[0]"),
                 ("taint", "terraform_data.a[0]")):
        rc, _, err = run(tmp_path, monkeypatch, *args)
        assert rc == 1 and "held by someone else" in err, args
    assert "writes" not in store and store["lock"] == "someone else"
