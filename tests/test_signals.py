"""SIGTERM is handled like SIGINT (Terraform's behaviour): the first stops scheduling, lets
in-flight work finish, stops the providers, saves the state and releases the lock; a second
exits at once without corrupting anything, and the next run recovers and converges."""
from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import ClassVar

TOOL = str(Path(sys.executable).parent / "tfconsole")
SLEEPS = ('resource "time_sleep" "s" {\n  count = 12\n  create_duration = "1s"\n}\n'
          'resource "terraform_data" "after" {\n  input = length(time_sleep.s)\n}\n')


def run(d: Path, *args: str, timeout: int = 180) -> subprocess.CompletedProcess:
    return subprocess.run([TOOL, f"-chdir={d}", *args], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def start_apply(d: Path, completions: int) -> tuple[subprocess.Popen, set[str]]:
    proc = subprocess.Popen([TOOL, f"-chdir={d}", "apply", "-auto-approve", "-no-color", "-parallelism=2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    completed: set[str] = set()
    for line in proc.stdout:
        if "Creation complete" in line:
            completed.add(line.split(":")[0])
        if len(completed) >= completions:
            break
    return proc, completed


def finish(proc: subprocess.Popen, completed: set[str]) -> tuple[str, str]:
    out, err = proc.communicate(timeout=120)
    for line in out.splitlines():
        if "Creation complete" in line:
            completed.add(line.split(":")[0])
    return out, err


def converges(d: Path, completed: set[str]) -> None:
    listed = set(run(d, "state", "list").stdout.split())
    assert completed <= listed, sorted(completed - listed)
    again = run(d, "apply", "-auto-approve", "-no-color")
    assert again.returncode == 0, again.stderr[-2000:]
    assert len(run(d, "state", "list").stdout.split()) == 13
    assert run(d, "plan", "-detailed-exitcode", "-no-color").returncode == 0


def test_sigterm_mid_apply_stops_gracefully(tmp_path: Path) -> None:
    d = tmp_path
    (d / "main.tf").write_text(SLEEPS)
    proc, completed = start_apply(d, 2)
    proc.send_signal(signal.SIGTERM)
    _out, err = finish(proc, completed)
    assert proc.returncode == 1, err
    assert "Interrupt received." in err and "Gracefully shutting down..." in err
    assert "Traceback" not in err and "Operation cancelled" in err
    assert not (d / ".terraform.tfstate.lock.info").exists()
    listed = set(run(d, "state", "list").stdout.split())
    assert "terraform_data.after" not in listed and len(listed) < 13
    # nothing waited on a journal: every completed object is in the state file itself
    assert not (d / "terraform.tfstate.journal").exists()
    converges(d, completed)


def test_second_sigterm_exits_at_once_and_the_next_run_recovers(tmp_path: Path) -> None:
    d = tmp_path
    (d / "main.tf").write_text(SLEEPS.replace('"1s"', '"3s"'))
    proc, completed = start_apply(d, 2)
    proc.send_signal(signal.SIGTERM)
    assert proc.stderr is not None
    seen = ""
    while "Gracefully shutting down" not in seen:  # the first signal was handled
        seen += proc.stderr.readline()
    proc.send_signal(signal.SIGTERM)
    _out, err = finish(proc, completed)
    assert proc.returncode == 1
    assert "Two interrupts received. Exiting immediately." in err
    assert "Traceback" not in err
    # the lock died with the process: a locking command runs at once
    assert run(d, "plan", "-lock-timeout=0s", "-no-color").returncode == 0
    converges(d, completed)


def test_sigterm_during_plan_releases_the_lock(tmp_path: Path) -> None:
    d = tmp_path
    (d / "main.tf").write_text('data "external" "slow" {\n  program = ["sh", "-c", "sleep 5; echo {}"]\n}\n')
    proc = subprocess.Popen([TOOL, f"-chdir={d}", "plan", "-no-color"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (d / ".terraform.tfstate.lock.info").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode != 0
    assert "Traceback" not in err
    assert not (d / ".terraform.tfstate.lock.info").exists()


def test_cancel_tells_the_providers_to_stop() -> None:
    from tfconsole.core import Context, Options

    class Provider:
        stopped = 0

        def stop(self) -> None:
            self.stopped += 1

    class WalkContext:
        providers: ClassVar[dict] = {"a": Provider(), "b": object()}

    ctx = Context(Options())
    ctx._walk_ctx = WalkContext()  # type: ignore[assignment]
    ctx.cancel()
    assert WalkContext.providers["a"].stopped == 1



def test_json_ui_logs_the_interrupt_on_its_stream(tmp_path: Path) -> None:
    """apply -json: the interrupt words are log messages on the JSON stream (Terraform's
    OperationJSON.Interrupted / Stopping), never plain text on stderr; the stream stays JSON."""
    import json

    d = tmp_path
    (d / "main.tf").write_text(SLEEPS)
    proc = subprocess.Popen([TOOL, f"-chdir={d}", "apply", "-auto-approve", "-json", "-parallelism=2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if '"type":"apply_complete"' in line:
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    msgs = [json.loads(x) for x in lines + out.splitlines()]
    logs = [m["@message"] for m in msgs if m["type"] == "log"]
    assert "\nInterrupt received.\nPlease wait for Terraform to exit or data loss may occur.\n" \
           "Gracefully shutting down...\n" in logs, logs
    assert logs.index("Stopping operation...") > logs.index(
        "\nInterrupt received.\nPlease wait for Terraform to exit or data loss may occur.\nGracefully shutting down...\n")
    assert "Interrupt received" not in err and "Traceback" not in err
    assert proc.returncode == 1


def test_human_ui_says_it_is_stopping(tmp_path: Path) -> None:
    d = tmp_path
    (d / "main.tf").write_text(SLEEPS)
    proc, completed = start_apply(d, 1)
    proc.send_signal(signal.SIGINT)
    out, err = finish(proc, completed)
    assert "Interrupt received." in err and "Stopping operation...\n" in out
