"""StateManager: atomic writes, backup, serial/lineage, permissions, journal, lock."""
from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from tfconsole.addrs import parse_instance
from tfconsole.states.manager import LockInfo, StateManager
from tfconsole.states.state import ObjectState, OutputState, State
from tfconsole.states.statefile import read_state
from tfconsole.states.sync import SyncState

ROOT = Path(__file__).resolve().parents[1]
P = 'provider["terraform.io/builtin/terraform"]'


def obj(v: str, **kw) -> ObjectState:
    return ObjectState({"id": v, "input": {"value": v, "type": "string"}}, **kw)


def mode(p: Path) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


def run_py(code: str, *args: str, **kw) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), *args], cwd=str(ROOT), env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


# ---------------------------------------------------------------------------
# persisting


def test_persist_serial_lineage_and_no_change(tmp_path):
    path = tmp_path / "terraform.tfstate"
    m = StateManager(str(path))
    assert not m.lock().has_errors
    st, d = m.load()
    assert not d.has_errors and st.serial == 0 and st.is_empty()
    lineage = st.lineage
    st.set_current(parse_instance("terraform_data.a"), obj("a"), P)
    assert not m.persist(st).has_errors
    assert st.serial == 1
    raw = json.loads(path.read_text())
    assert raw["serial"] == 1 and raw["lineage"] == lineage
    assert not m.persist(st).has_errors  # unchanged: no new serial
    assert json.loads(path.read_text())["serial"] == 1
    st.set_current(parse_instance("terraform_data.b"), obj("b"), P)
    m.persist(st)
    assert json.loads(path.read_text())["serial"] == 2
    m.close()
    # a new run continues from the file
    m2 = StateManager(str(path))
    m2.lock()
    st2, _ = m2.load()
    assert st2.serial == 2 and st2.lineage == lineage
    st2.outputs["o"] = OutputState("x", "string")
    m2.persist(st2)
    assert json.loads(path.read_text())["serial"] == 3
    m2.close()


def test_files_are_created_0600(tmp_path):
    path = tmp_path / "terraform.tfstate"
    old = os.umask(0o022)
    try:
        m = StateManager(str(path))
        m.lock()
        assert mode(Path(m.lock_file)) == 0o600
        st, _ = m.load()
        st.set_current(parse_instance("terraform_data.a"), obj("a"), P)
        m.persist(st)
        j = m.open_journal()
        j.record(parse_instance("terraform_data.b"), obj("b"), P)
        assert mode(Path(j.path)) == 0o600
        j.close()
        m.close()
        m = StateManager(str(path))
        m.lock()
        st, _ = m.load()  # replays the journal: state rewritten, backup written
        assert mode(path) == 0o600
        assert mode(tmp_path / "terraform.tfstate.backup") == 0o600
        m.close()
    finally:
        os.umask(old)


def test_backup_is_state_before_this_runs_first_write(tmp_path):
    path = tmp_path / "terraform.tfstate"
    m = StateManager(str(path))
    m.lock()
    st, _ = m.load()
    st.set_current(parse_instance("terraform_data.a"), obj("a"), P)
    m.persist(st)
    assert not (tmp_path / "terraform.tfstate.backup").exists()  # nothing before: no backup
    m.close()
    before = path.read_bytes()
    m = StateManager(str(path))
    m.lock()
    st, _ = m.load()
    m.persist(st)  # no change: no backup yet
    assert not (tmp_path / "terraform.tfstate.backup").exists()
    st.set_current(parse_instance("terraform_data.b"), obj("b"), P)
    m.persist(st)
    assert (tmp_path / "terraform.tfstate.backup").read_bytes() == before
    st.set_current(parse_instance("terraform_data.c"), obj("c"), P)
    m.persist(st)
    assert (tmp_path / "terraform.tfstate.backup").read_bytes() == before  # still the pre-run state
    m.close()


def test_backup_disabled_and_state_out(tmp_path):
    src = tmp_path / "in.tfstate"
    out = tmp_path / "sub" / "out.tfstate"
    st = State()
    st.set_current(parse_instance("terraform_data.a"), obj("a"), P)
    StateManager(str(src), lock=False).persist(st)
    m = StateManager(str(src), out_path=str(out), backup_path="-")
    m.lock()
    st, _ = m.load()
    st.set_current(parse_instance("terraform_data.b"), obj("b"), P)
    m.persist(st)
    m.close()
    assert read_state(out)[0].current(parse_instance("terraform_data.b"))
    assert read_state(src)[0].current(parse_instance("terraform_data.b")) is None
    assert not list(tmp_path.rglob("*.backup"))


def test_failed_rename_leaves_old_state_intact(tmp_path, monkeypatch):
    path = tmp_path / "terraform.tfstate"
    m = StateManager(str(path))
    m.lock()
    st, _ = m.load()
    st.set_current(parse_instance("terraform_data.a"), obj("a"), P)
    m.persist(st)
    good = path.read_bytes()

    def boom(a, b):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    st.set_current(parse_instance("terraform_data.b"), obj("b"), P)
    d = m.persist(st)
    assert d.has_errors and "No space left" in d.errors()[0].detail
    assert path.read_bytes() == good
    assert sorted(p.name for p in tmp_path.iterdir()) == [".terraform.tfstate.lock.info", "terraform.tfstate"]
    monkeypatch.undo()
    assert not m.persist(st).has_errors  # and the next write works
    assert read_state(path)[0].current(parse_instance("terraform_data.b"))
    m.close()


def test_crash_between_temp_write_and_rename(tmp_path):
    path = tmp_path / "terraform.tfstate"
    st = State()
    for i in range(50):
        st.set_current(parse_instance(f"terraform_data.a[{i}]"), obj(f"a{i}"), P)
    StateManager(str(path), lock=False).persist(st)
    good = path.read_bytes()
    child = run_py('''
        import os, sys
        from tfconsole.addrs import parse_instance
        from tfconsole.states.manager import StateManager
        from tfconsole.states.state import ObjectState
        m = StateManager(sys.argv[1]); m.lock()
        st, _ = m.load()
        st.set_current(parse_instance("terraform_data.new"), ObjectState({"id": "n"}), "p")
        os.replace = lambda a, b: os._exit(9)   # the process dies right before the rename
        m.persist(st)
    ''', str(path))
    child.wait(timeout=60)
    assert child.returncode == 9
    assert path.read_bytes() == good  # never empty or partial
    temps = list(tmp_path.glob(".terraform.tfstate.*.tmp"))
    assert len(temps) == 1 and temps[0].stat().st_size > 0 and mode(temps[0]) == 0o600
    m = StateManager(str(path))
    assert not m.lock().has_errors  # the dead process's lock does not block
    assert not list(tmp_path.glob(".terraform.tfstate.*.tmp"))  # leftover temp removed
    st2, d = m.load()
    assert not d.has_errors and len(st2.resources) == 1
    m.close()


def test_corrupt_state_file_is_a_diagnostic_and_not_overwritten(tmp_path):
    path = tmp_path / "terraform.tfstate"
    path.write_text('{"version": 4, "serial": ')
    m = StateManager(str(path))
    m.lock()
    st, d = m.load()
    assert st is None and d.has_errors and d.errors()[0].summary == "Failed to load state"
    m.close()
    assert path.read_text() == '{"version": 4, "serial": '


# ---------------------------------------------------------------------------
# journal


def test_journal_crash_then_next_load_recovers(tmp_path):
    path = tmp_path / "terraform.tfstate"
    m = StateManager(str(path))
    m.lock()
    st, _ = m.load()
    st.set_current(parse_instance("terraform_data.keep"), obj("keep"), P)
    st.set_current(parse_instance("terraform_data.gone"), obj("gone"), P)
    m.persist(st)
    serial = st.serial
    sync = SyncState(st, m.open_journal())
    for i in range(100):
        sync.set_current(parse_instance(f'module.m[0].terraform_data.x["k{i}"]'), obj(f"x{i}"), P, "map")
    sync.set_current(parse_instance("terraform_data.gone"), None, P)
    sync.set_deposed(parse_instance("terraform_data.keep"), "deadbeef", obj("old"), P)
    sync.set_current(parse_instance("terraform_data.tainted"), obj("t", status="tainted"), P)
    sync.set_output("out", {"a": 1}, ["object", {"a": "number"}], True)
    # simulated crash: nothing is folded, the manager is simply dropped (no close)
    journal_path = Path(m.journal_path)
    assert journal_path.exists()
    assert json.loads(path.read_text())["serial"] == serial
    m._lock.release()  # what process death does to the lock
    del m, sync

    m2 = StateManager(str(path))
    m2.lock()
    st2, d = m2.load()
    assert not d.has_errors
    assert any("Recovered" in w.summary for w in d.warnings())
    assert not journal_path.exists()
    for s in (st2, read_state(path)[0]):
        assert s.serial == serial + 1
        assert s.current(parse_instance('module.m[0].terraform_data.x["k99"]')).attributes["id"] == "x99"
        assert s.resources[parse_instance('module.m[0].terraform_data.x["k0"]').abs_resource()].each == "map"
        assert s.current(parse_instance("terraform_data.gone")) is None
        assert s.instance(parse_instance("terraform_data.keep")).deposed["deadbeef"].attributes["id"] == "old"
        assert s.current(parse_instance("terraform_data.tainted")).status == "tainted"
        assert s.outputs["out"] == OutputState({"a": 1}, ["object", {"a": "number"}], True)
    m2.close()


def test_journal_torn_last_line_is_ignored(tmp_path):
    path = tmp_path / "terraform.tfstate"
    m = StateManager(str(path))
    m.lock()
    st, _ = m.load()
    j = m.open_journal()
    j.record(parse_instance("terraform_data.a"), obj("a"), P)
    j.record(parse_instance("terraform_data.b"), obj("b"), P)
    j.close()
    m.unlock()
    with open(m.journal_path, "ab") as f:
        f.write(b'{"k":"r","a":"terraform_data.c","p":"x","e":"","o":{"schema_ver')
    m2 = StateManager(str(path))
    m2.lock()
    st2, d = m2.load()
    assert not d.has_errors
    assert st2.current(parse_instance("terraform_data.a")) and st2.current(parse_instance("terraform_data.b"))
    assert st2.current(parse_instance("terraform_data.c")) is None
    assert not os.path.exists(m.journal_path)
    m2.close()


def test_journal_fold_writes_state_and_removes_journal(tmp_path):
    path = tmp_path / "terraform.tfstate"
    m = StateManager(str(path))
    m.lock()
    st, _ = m.load()
    j = m.open_journal()
    for i in range(10):
        j.record(parse_instance(f"terraform_data.a[{i}]"), obj(f"a{i}"), P, "list")
    j.record_output("o", OutputState("v", "string"))
    d = j.fold()
    assert not d.has_errors
    assert not os.path.exists(j.path)
    s = read_state(path)[0]
    assert len(s.resources[parse_instance("terraform_data.a[0]").abs_resource()].instances) == 10
    assert s.outputs["o"].value == "v" and s.serial == 1
    # folding with the engine's final state
    sync = SyncState(s, m.open_journal())
    sync.set_current(parse_instance("terraform_data.z"), obj("z"), P)
    sync.remove_output("o")
    assert not sync.journal.fold(sync.snapshot()).has_errors
    s2 = read_state(path)[0]
    assert s2.current(parse_instance("terraform_data.z")) and "o" not in s2.outputs and s2.serial == 2
    m.close()


def test_journal_20k_records_are_cheap_and_thread_safe(tmp_path, monkeypatch):
    """Cheap means: one write(2) per record and no fsync while recording (the timing itself is
    benchmarks/bench_states.py); thread-safe means every line whole, none lost."""
    path = tmp_path / "terraform.tfstate"
    m = StateManager(str(path))
    m.lock()
    st, _ = m.load()
    sync = SyncState(st, m.open_journal())
    objs = [obj(f"x{i}") for i in range(20000)]
    addrs = [parse_instance(f"terraform_data.x[{i}]") for i in range(20000)]
    calls = {"write": 0, "fsync": 0}
    real_write, real_fsync = os.write, os.fsync

    def write(fd, data):  # noqa: ANN001
        calls["write"] += 1
        return real_write(fd, data)

    def fsync(fd):  # noqa: ANN001
        calls["fsync"] += 1
        return real_fsync(fd)

    def work(lo: int, hi: int) -> None:
        for i in range(lo, hi):
            sync.set_current(addrs[i], objs[i], P, "list")

    monkeypatch.setattr(os, "write", write)
    monkeypatch.setattr(os, "fsync", fsync)
    threads = [threading.Thread(target=work, args=(k * 2500, (k + 1) * 2500)) for k in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    monkeypatch.undo()
    assert calls == {"write": 20000, "fsync": 0}
    with open(m.journal_path, "rb") as f:
        lines = f.read().split(b"\n")
    assert len(lines) == 20000 + 2 and lines[-1] == b""  # header + records, each whole
    m.unlock()  # crash: the journal alone must restore all of it
    m2 = StateManager(str(path))
    m2.lock()
    st2, _ = m2.load()
    assert len(st2.resources[addrs[0].abs_resource()].instances) == 20000
    m2.close()


def test_journal_survives_sigkill_mid_write(tmp_path):
    path = tmp_path / "terraform.tfstate"
    child = run_py('''
        import sys
        from tfconsole.addrs import parse_instance
        from tfconsole.states.manager import StateManager
        from tfconsole.states.state import ObjectState
        m = StateManager(sys.argv[1]); m.lock()
        st, _ = m.load()
        j = m.open_journal()
        i = 0
        while True:
            j.record(parse_instance(f"terraform_data.x[{i}]"), ObjectState({"id": "x" * 200 + str(i)}),
                     "p", "list")
            print(i, flush=True)   # reported as written only after write() returned
            i += 1
    ''', str(path))
    last = -1
    assert child.stdout is not None
    while last < 3000:
        line = child.stdout.readline()
        assert line, child.stderr.read() if child.stderr else ""
        last = int(line)
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    m = StateManager(str(path))
    assert not m.lock().has_errors  # killed holder's lock is gone
    st, d = m.load()
    assert not d.has_errors
    rs = next(iter(st.resources.values()))
    assert all(i in rs.instances for i in range(last + 1)), last
    assert rs.instances[last].current.attributes["id"].endswith(str(last))
    m.close()


def test_journal_of_other_lineage_is_set_aside(tmp_path):
    path = tmp_path / "terraform.tfstate"
    st = State()
    st.set_current(parse_instance("terraform_data.a"), obj("a"), P)
    StateManager(str(path), lock=False).persist(st)
    Path(str(path) + ".journal").write_text(
        '{"k":"h","lineage":"someone-else","serial":3,"v":1}\n'
        '{"k":"r","a":"terraform_data.b","p":"x","e":"","o":{"attributes":{}}}\n')
    m = StateManager(str(path))
    m.lock()
    st2, d = m.load()
    assert st2.current(parse_instance("terraform_data.b")) is None
    assert any(w.summary == "State journal ignored" for w in d.warnings())
    assert not os.path.exists(m.journal_path) and list(tmp_path.glob("*.journal.stale-*"))
    m.close()


# ---------------------------------------------------------------------------
# lock

HOLD = '''
    import sys, time
    from tfconsole.states.manager import StateManager
    m = StateManager(sys.argv[1], operation="OperationTypePlan")
    d = m.lock()
    print("LOCKED" if not d.has_errors else "FAILED", flush=True)
    time.sleep(float(sys.argv[2]))
    m.unlock()
    print("UNLOCKED", flush=True)
    time.sleep(60)
'''


def _hold(path: Path, seconds: float) -> subprocess.Popen:
    p = run_py(HOLD, str(path), str(seconds))
    assert p.stdout is not None and p.stdout.readline().strip() == "LOCKED"
    return p


def test_second_process_fails_with_terraform_message(tmp_path):
    path = tmp_path / "terraform.tfstate"
    holder = _hold(path, 30)
    try:
        m = StateManager(str(path))
        d = m.lock()
        assert d.has_errors
        e = d.errors()[0]
        assert e.summary == "Error acquiring the state lock"
        assert e.detail.startswith("Error message: resource temporarily unavailable\nLock Info:\n  ID:        ")
        for field in ("Path:      " + str(path), "Operation: OperationTypePlan", "Who:       ",
                      "Version:   1.15", "Created:   ", "Info:      \n\n\nTerraform acquires a state lock"):
            assert field in e.detail
        assert e.detail.endswith('flag, but this is not recommended.')
        info = LockInfo.from_json(Path(m.lock_file).read_text())
        assert info.Operation == "OperationTypePlan" and info.Created.endswith("Z")
        assert list(json.loads(Path(m.lock_file).read_text())) == [
            "ID", "Operation", "Info", "Who", "Version", "Created", "Path"]
        # and a second manager in this very process, too
        assert not StateManager(str(path), lock=False).lock().has_errors  # lock=False: no lock taken
    finally:
        holder.kill()
        holder.wait()


def test_lock_in_same_process_conflicts(tmp_path):
    path = tmp_path / "terraform.tfstate"
    a, b = StateManager(str(path)), StateManager(str(path))
    assert not a.lock().has_errors
    assert b.lock().has_errors
    a.unlock()
    assert not os.path.exists(a.lock_file)  # removed on unlock, as Terraform does
    assert not b.lock().has_errors
    b.unlock()


def test_lock_timeout_waits_for_release(tmp_path):
    path = tmp_path / "terraform.tfstate"
    holder = _hold(path, 1.0)
    try:
        t = time.monotonic()
        assert StateManager(str(path), lock_timeout=0.3).lock().has_errors
        assert time.monotonic() - t >= 0.3
        m = StateManager(str(path), lock_timeout=300)
        assert not m.lock().has_errors
        assert holder.stdout.readline().strip() == "UNLOCKED"
        m.unlock()
    finally:
        holder.kill()
        holder.wait()


def test_lock_released_when_holder_dies(tmp_path):
    path = tmp_path / "terraform.tfstate"
    holder = _hold(path, 60)
    assert StateManager(str(path)).lock().has_errors
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    assert os.path.exists(tmp_path / ".terraform.tfstate.lock.info")  # stale file left behind
    m = StateManager(str(path))
    assert not m.lock().has_errors
    m.unlock()


def test_syncstate_depose_and_remove_are_journaled(tmp_path):
    path = tmp_path / "terraform.tfstate"
    m = StateManager(str(path))
    m.lock()
    st, _ = m.load()
    a = parse_instance("terraform_data.a")
    st.set_current(a, obj("old"), P)
    st.set_current(parse_instance("terraform_data.r[0]"), obj("r0"), P)
    st.set_current(parse_instance("terraform_data.r[1]"), obj("r1"), P)
    m.persist(st)
    sync = SyncState(st, m.open_journal())
    key = sync.depose_current(a, P)
    assert key and sync.current(a) is None and sync.deposed(a, key).attributes["id"] == "old"
    sync.set_current(a, obj("new"), P)
    sync.remove_resource(parse_instance("terraform_data.r[0]").abs_resource())
    snap = sync.snapshot()
    assert snap.instance(a).deposed[key].attributes["id"] == "old"
    m.unlock()  # crash
    m2 = StateManager(str(path))
    m2.lock()
    st2, _ = m2.load()
    assert st2.current(a).attributes["id"] == "new"
    assert st2.instance(a).deposed[key].attributes["id"] == "old"
    assert parse_instance("terraform_data.r[0]").abs_resource() not in st2.resources
    m2.close()


def _written_state(path: Path) -> None:
    m = StateManager(str(path))
    m.lock()
    st, _ = m.load()
    st.set_current(parse_instance("terraform_data.a"), obj("a"), P)
    m.persist(st)
    m.close()


def test_a_plan_manager_keeps_no_copy_of_what_it_loaded(tmp_path, monkeypatch):
    # a plan never changes the State it loads (it plans on copies): no snapshot of 20,000 objects
    path = tmp_path / "terraform.tfstate"
    _written_state(path)
    copies: list[int] = []
    original = State.deep_copy

    def counting(self: State) -> State:
        copies.append(1)
        return original(self)

    monkeypatch.setattr(State, "deep_copy", counting)
    plan = StateManager(str(path), operation="OperationTypePlan")
    plan.lock()
    st, _ = plan.load()
    assert copies == []
    assert not plan.persist(st).has_errors  # unchanged and canonical: still found the same
    assert json.loads(path.read_text())["serial"] == 1
    plan.close()
    apply = StateManager(str(path))
    apply.lock()
    apply.load()
    assert copies == [1]  # any other operation keeps its snapshot
    apply.close()


def test_a_plan_manager_never_misses_a_write(tmp_path):
    # without a snapshot, a loaded file not in canonical form is never taken for the same body:
    # were a plan to write, it would write once too often, never miss a write
    path = tmp_path / "terraform.tfstate"
    _written_state(path)
    odd = json.dumps(json.loads(path.read_text()))  # the same state, another layout
    for operation, rewritten in (("OperationTypeApply", False), ("OperationTypePlan", True)):
        path.write_text(odd)
        m = StateManager(str(path), operation=operation, backup_path="-")
        m.lock()
        st, _ = m.load()
        assert not m.persist(st).has_errors
        assert (path.read_text() != odd) is rewritten, operation
        assert read_state(path)[0].current(parse_instance("terraform_data.a")) is not None
        m.close()
