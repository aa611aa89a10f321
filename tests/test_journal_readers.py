"""Read-only commands during an apply never touch its journal (issue 7, item 2).

A reader (state list, show, output, state pull...) sees the state with the live journal overlaid
in memory and changes neither file; only a command holding the lock folds a journal. So a
reader run in the middle of a large apply followed by kill -9 of the apply loses nothing that
the apply reported complete.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

from tfconsole.addrs import parse_instance
from tfconsole.states.manager import StateManager
from tfconsole.states.state import ObjectState
from tfconsole.states.sync import SyncState

TOOL = str(Path(sys.executable).parent / "tfconsole")
P = 'provider["terraform.io/builtin/terraform"]'
N = 1500


def gated_config(d: Path) -> tuple[Path, Path]:
    """N resources, then a gate the test opens, then N more, then a gate never opened: the apply
    cannot end before the test kills it, however fast or slow the machine is."""
    gate, never = d / "gate", d / "never"
    (d / "main.tf").write_text(f'''
resource "terraform_data" "a" {{
  count = {N}
  input = "a-${{count.index}}"
}}

resource "terraform_data" "gate" {{
  provisioner "local-exec" {{
    command = "while [ ! -e '{gate}' ]; do sleep 0.05; done"
  }}
}}

resource "terraform_data" "b" {{
  count      = {N}
  input      = "b-${{count.index}}"
  depends_on = [terraform_data.gate]
}}

resource "terraform_data" "never" {{
  depends_on = [terraform_data.b]
  provisioner "local-exec" {{
    command = "while [ ! -e '{never}' ]; do sleep 0.05; done"
  }}
}}
''')
    return gate, never


def obj(v: str) -> ObjectState:
    return ObjectState({"id": v, "input": {"value": v, "type": "string"}})


def _files(path: Path) -> dict[str, tuple[int, bytes]]:
    out = {}
    for p in path.parent.iterdir():
        if p.is_file():
            out[p.name] = (p.stat().st_ino, p.read_bytes())
    return out


def test_reader_overlays_the_journal_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "terraform.tfstate"
    writer = StateManager(str(path))
    assert not writer.lock().has_errors
    st, _ = writer.load()
    st.set_current(parse_instance("terraform_data.base"), obj("base"), P)
    assert not writer.persist(st).has_errors
    sync = SyncState(st, writer.open_journal())
    for i in range(50):
        sync.set_current(parse_instance(f"terraform_data.x[{i}]"), obj(f"x{i}"), P, "list")
    files = _files(path)

    reader = StateManager(str(path), lock=False)
    seen, d = reader.load()
    assert not d.has_errors, d
    assert seen.current(parse_instance("terraform_data.base")) is not None
    assert all(seen.current(parse_instance(f"terraform_data.x[{i}]")) for i in range(50))
    assert _files(path) == files  # same inodes, same bytes: nothing folded, nothing removed

    # the writer keeps journaling into the same file, then dies: every record survives
    for i in range(50, 80):
        sync.set_current(parse_instance(f"terraform_data.x[{i}]"), obj(f"x{i}"), P, "list")
    writer._lock.release()  # what process death does to the lock
    locked = StateManager(str(path))
    assert not locked.lock().has_errors
    st2, d2 = locked.load()
    assert not d2.has_errors
    assert all(st2.current(parse_instance(f"terraform_data.x[{i}]")) for i in range(80))
    assert not os.path.exists(locked.journal_path)  # the lock holder folded it
    locked.close()


def test_reader_ignores_a_torn_tail_of_a_live_journal(tmp_path: Path) -> None:
    path = tmp_path / "terraform.tfstate"
    writer = StateManager(str(path))
    writer.lock()
    writer.load()
    j = writer.open_journal()
    j.record(parse_instance("terraform_data.a"), obj("a"), P)
    with open(j.path, "ab") as f:  # a record being written right now
        f.write(b'{"k":"r","a":"terraform_data.b","p":"x","e":"","o":{"sch')
    seen, d = StateManager(str(path), lock=False).load()
    assert not d.has_errors
    assert seen.current(parse_instance("terraform_data.a")) and not seen.current(parse_instance("terraform_data.b"))
    writer.close()


class _Progress:
    """Reads an apply's output in a thread: the instances it reported complete."""

    def __init__(self, proc: subprocess.Popen):
        self.done: set[str] = set()
        self.ended = False
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self.thread.start()

    def _read(self, proc: subprocess.Popen) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if ": Creation complete" in line:
                with self.cond:
                    self.done.add(line.split(":", 1)[0])
                    self.cond.notify_all()
        with self.cond:
            self.ended = True
            self.cond.notify_all()

    def wait_for(self, wanted: set[str], timeout: float = 900) -> set[str]:
        with self.cond:
            assert self.cond.wait_for(lambda: wanted <= self.done or self.ended, timeout), "no progress"
            assert wanted <= self.done, f"the apply ended early: {sorted(wanted - self.done)[:5]}"
            return set(self.done)


def run(d: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([TOOL, f"-chdir={d}", *args], capture_output=True, text=True, timeout=600,
                          stdin=subprocess.DEVNULL)


def listed(text: str) -> set[str]:
    return set(re.findall(r"^(terraform_data\.\w+(?:\[\d+\])?)$", text, re.M))


def test_readers_during_a_large_apply_then_kill9_lose_nothing(tmp_path: Path) -> None:
    d = tmp_path
    gate, never = gated_config(d)
    group_a = {f"terraform_data.a[{i}]" for i in range(N)}
    group_b = {f"terraform_data.b[{i}]" for i in range(N)}
    proc = subprocess.Popen([TOOL, f"-chdir={d}", "apply", "-auto-approve", "-no-color", "-parallelism=10"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        progress = _Progress(proc)
        before = progress.wait_for(group_a)  # the apply now waits at the gate
        journal = d / "terraform.tfstate.journal"
        ino = journal.stat().st_ino
        for args in (("state", "list"), ("show", "-json"), ("output",), ("state", "pull"), ("show",)):
            r = run(d, *args)
            assert r.returncode == 0 and "Traceback" not in r.stderr, (args, r.stderr[-2000:])
            if args == ("state", "list"):
                assert before <= listed(r.stdout), sorted(before - listed(r.stdout))[:5]
            assert journal.stat().st_ino == ino, f"{args} replaced or removed the live journal"
        assert (d / "terraform.tfstate").stat().st_size == 0  # nothing folded by a reader
        gate.write_text("")
        reported = progress.wait_for(group_b | {"terraform_data.gate"})  # journaled after the readers
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        # the killed apply's local-exec shell outlives it: let it finish instead of looping on
        never.write_text("")
    assert proc.returncode == -signal.SIGKILL

    plan = run(d, "plan", "-no-color")  # holds the lock: folds the journal left by the kill
    assert plan.returncode == 0, plan.stderr[-2000:]
    assert "Recovered state changes from an interrupted run" in plan.stdout + plan.stderr
    assert not (d / "terraform.tfstate.journal").exists()
    in_state = listed(run(d, "state", "list").stdout)
    assert reported <= in_state, f"{len(reported - in_state)} completed resources lost"
    assert not re.search(r"terraform_data\.[ab]\[\d+\] will be created", plan.stdout), plan.stdout[-2000:]
