"""Provider processes under pressure: how many are started, a provider crashing mid-apply,
tfconsole killed mid-apply, and Ctrl-C / SIGTERM during a slow create."""
from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
from plugin_support import (
    ROOT,
    counting_wrapper,
    make_workspace,
    provider_pids,
    recorded_calls,
    recording_wrapper,
)

PROVIDERS = """
terraform {
  required_providers {
    null    = { source = "hashicorp/null" }
    tfcheck = { source = "tfconsole/tfcheck" }
  }
}
"""


def _wait_for(predicate, timeout: float = 60.0) -> bool:
    """Poll until predicate() holds (a hang guard for the test, not a timing assertion)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_one_provider_process_per_configuration_per_command(tmp_path: Path, null_provider: Path,
                                                            tfcheck_provider: Path) -> None:
    starts = tmp_path / "starts"
    ws = make_workspace(tmp_path, null=counting_wrapper(null_provider, tmp_path / "counting", starts),
                        tfcheck=counting_wrapper(tfcheck_provider, tmp_path / "counting", starts))
    ws.write(PROVIDERS + """
provider "tfcheck" {}
provider "tfcheck" {
  alias = "second"
}
resource "null_resource" "a" {
  triggers = { x = "1" }
}
resource "tfcheck_thing" "b" {
  name = "b-${null_resource.a.id}"
}
resource "tfcheck_thing" "c" {
  provider = tfcheck.second
  name     = tfcheck_thing.b.label
}
data "tfcheck_echo" "d" {
  provider = tfcheck.second
  input    = "d"
}
""")

    def launches(*args: str) -> int:
        starts.write_text("")
        r = ws.tfconsole(*args, "-no-color")
        assert r.returncode in (0, 2), r.stdout + r.stderr
        return len(starts.read_text().split())

    # three provider configurations: three processes for plan and apply together, whether the
    # schemas come from the processes (first run) or from the cache (later runs)
    assert launches("apply", "-auto-approve") == 3
    assert launches("plan") == 3
    assert launches("apply", "-destroy", "-auto-approve") == 3
    assert not provider_pids(str(tmp_path))


def test_a_provider_crash_mid_apply(tmp_path: Path, tfcheck_provider: Path, null_provider: Path) -> None:
    ws = make_workspace(tmp_path, null=null_provider, tfcheck=tfcheck_provider)
    config = PROVIDERS + """
variable "name" { default = "crash" }
resource "tfcheck_thing" "first" {
  name = "first"
}
resource "tfcheck_thing" "boom" {
  name       = var.name
  depends_on = [tfcheck_thing.first]
}
resource "tfcheck_thing" "after" {
  name = "after-${tfcheck_thing.boom.id}"
}
resource "null_resource" "elsewhere" {
  triggers = { x = "1" }
}
"""
    ws.write(config)
    r = ws.tfconsole("apply", "-auto-approve", "-no-color")
    assert r.returncode == 1
    assert "Error: Plugin did not respond" in r.stderr and "Traceback" not in r.stderr + r.stdout
    assert "tfcheck_thing.boom" in r.stderr and "registry.terraform.io/tfconsole/tfcheck" in r.stderr
    state = ws.state()
    addrs = {f"{res['type']}.{res['name']}" for res in state["resources"] if res["instances"]}
    assert "tfcheck_thing.first" in addrs and "null_resource.elsewhere" in addrs  # completed work is kept
    assert "tfcheck_thing.boom" not in addrs and "tfcheck_thing.after" not in addrs  # the rest never ran
    assert not provider_pids(str(tmp_path))
    r = ws.tfconsole("apply", "-auto-approve", "-no-color", "-var=name=fine")
    assert r.returncode == 0, r.stderr
    assert "2 added, 0 changed, 0 destroyed" in r.stdout
    r = ws.tfconsole("plan", "-detailed-exitcode", "-no-color", "-var=name=fine")
    assert r.returncode == 0, r.stdout + r.stderr


SLOW = PROVIDERS + """
resource "null_resource" "quick" {
  triggers = { x = "1" }
}
resource "tfcheck_thing" "quick" {
  name = "quick"
}
resource "tfcheck_thing" "slow" {
  name       = "slow"
  delay      = 120
  depends_on = [tfcheck_thing.quick, null_resource.quick]
}
"""


def _start_slow_apply(ws, **env: str) -> subprocess.Popen:
    proc = subprocess.Popen(ws.tfconsole_argv("apply", "-auto-approve", "-no-color"), env=ws.env(**env), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # the quick thing is stored and the slow one has begun
    assert _wait_for(lambda: len(list(ws.store.glob("*.json"))) == 1), "the quick thing was never created"
    assert _wait_for(lambda: (ws.dir / "terraform.tfstate.journal").exists() and
                     "tfcheck_thing" in (ws.dir / "terraform.tfstate.journal").read_text())
    time.sleep(1.0)  # let the slow create reach the provider
    return proc


def test_kill_9_mid_apply_leaves_no_provider(tmp_path: Path, tfcheck_provider: Path, null_provider: Path) -> None:
    ws = make_workspace(tmp_path, null=null_provider, tfcheck=tfcheck_provider)
    ws.write(SLOW)
    proc = _start_slow_apply(ws)
    assert provider_pids(str(ws.mirror))  # the providers are running
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert _wait_for(lambda: not provider_pids(str(ws.mirror)), 30), provider_pids(str(ws.mirror))
    # what completed survives; a second apply converges
    ws.write(SLOW.replace("delay      = 120", "delay      = 0"))
    (ws.dir / ".terraform.tfstate.lock.info").unlink(missing_ok=True)  # the killed run's lock
    r = ws.tfconsole("apply", "-auto-approve", "-no-color")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 added, 0 changed, 0 destroyed" in r.stdout
    r = ws.tfconsole("plan", "-detailed-exitcode", "-no-color")
    assert r.returncode == 0, r.stdout


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_stops_providers_and_keeps_completed_work(tmp_path: Path, tfcheck_provider: Path,
                                                            null_provider: Path, sig: signal.Signals) -> None:
    recorder = recording_wrapper(tfcheck_provider, tmp_path / "recorder")
    ws = make_workspace(tmp_path, null=null_provider, tfcheck=recorder)
    ws.write(SLOW)
    logs = tmp_path / "calls"
    logs.mkdir()
    proc = _start_slow_apply(ws, RECORD_DIR=str(logs))
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=90)  # a hang guard: StopProvider makes the slow create return
    assert proc.returncode == 1
    assert "Interrupt received" in err and "Traceback" not in out + err
    methods = [c["method"] for c in recorded_calls(logs)]
    assert "StopProvider" in methods
    assert methods.index("StopProvider") > methods.index("ApplyResourceChange")
    state = ws.state()
    kept = {f"{r['type']}.{r['name']}" for r in state["resources"] if r["instances"]}
    assert {"tfcheck_thing.quick", "null_resource.quick"} <= kept and "tfcheck_thing.slow" not in kept
    assert not (ws.dir / ".terraform.tfstate.lock.info").exists()
    assert _wait_for(lambda: not provider_pids(str(tmp_path)), 30)
    json.dumps(methods)


def test_workers_call_one_provider_concurrently(tmp_path: Path, tfcheck_provider: Path) -> None:
    """The walker's workers share the provider process and call it at the same time."""
    ws = make_workspace(tmp_path, tfcheck=tfcheck_provider)
    ws.write(PROVIDERS.replace('null    = { source = "hashicorp/null" }', "") + """
resource "tfcheck_thing" "many" {
  count = 6
  name  = "n${count.index}"
  delay = 1
}
""")
    r = ws.tfconsole("apply", "-auto-approve", "-no-color", "-parallelism=6")
    assert r.returncode == 0, r.stderr
    assert json.loads((ws.store / "concurrency.txt").read_text()) >= 2
