"""The local-exec provisioner."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from tfconsole.lang.types import STRING
from tfconsole.lang.values import Sensitive, TList, TMap
from tfconsole.providers.builtin.provisioners import run_local_exec, validate_local_exec

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses /bin/sh")


def run(config: dict, base_dir: Path) -> tuple[list[str], object]:
    lines: list[str] = []
    diags = run_local_exec(config, str(base_dir), lines.append)
    return lines, diags


def test_runs_in_base_dir_and_streams(tmp_path: Path) -> None:
    lines, d = run({"command": "echo one; echo two >&2; pwd"}, tmp_path)
    assert not d.has_errors
    assert lines[0] == 'Executing: ["/bin/sh" "-c" "echo one; echo two >&2; pwd"]'
    assert lines[1:3] == ["one", "two"]
    assert Path(lines[3]).resolve() == tmp_path.resolve()


def test_output_is_streamed_as_it_arrives(tmp_path: Path) -> None:
    stamps: list[tuple[float, str]] = []
    run_local_exec({"command": "echo first; sleep 0.3; echo second"}, str(tmp_path),
                   lambda line: stamps.append((time.monotonic(), line)))
    assert [s[1] for s in stamps[1:]] == ["first", "second"]
    assert stamps[2][0] - stamps[1][0] >= 0.25


def test_environment_working_dir_interpreter(tmp_path: Path) -> None:
    (tmp_path / "w").mkdir()
    lines, d = run({"command": "import os; print(os.environ['GREETING'], os.path.basename(os.getcwd()))",
                    "interpreter": TList([sys.executable, "-c"], STRING),
                    "environment": TMap({"GREETING": "hi", "SKIPPED": None}, STRING),
                    "working_dir": "w"}, tmp_path)
    assert not d.has_errors, [x.detail for x in d]
    assert lines[0].startswith(f'Executing: ["{sys.executable}" "-c" ')
    assert lines[1] == "hi w"


def test_quiet(tmp_path: Path) -> None:
    lines, d = run({"command": "echo secret-ish", "quiet": True}, tmp_path)
    assert lines == ["local-exec: Executing: Suppressed by quiet=true", "secret-ish"]


def test_failure_message(tmp_path: Path) -> None:
    lines, d = run({"command": "echo partial; exit 7"}, tmp_path)
    e = d.errors()[0]
    assert e.summary == "local-exec provisioner error"
    assert e.detail == "Error running command 'echo partial; exit 7': exit status 7. Output: partial\n"


def test_output_tail_is_bounded(tmp_path: Path) -> None:
    lines, d = run({"command": "i=0; while [ $i -lt 2000 ]; do echo line-$i; i=$((i+1)); done; exit 1"}, tmp_path)
    detail = d.errors()[0].detail
    out = detail.split(". Output: ", 1)[1]
    assert len(out.encode()) <= 8 * 1024
    assert out.endswith("line-1999\n")
    assert len(lines) == 2001


def test_validation(tmp_path: Path) -> None:
    lines, d = run({}, tmp_path)
    assert d.errors()[0].summary == "Invalid local-exec provisioner configuration"
    lines, d = run({"command": ""}, tmp_path)
    assert d.errors()[0].summary == "Invalid local-exec provisioner command"
    assert lines == []
    assert validate_local_exec({"command": "x", "bogus": 1}).has_errors
    assert validate_local_exec({"command": "x", "environment": "nope"}).has_errors


def test_sensitive_values_are_used_and_output_suppressed(tmp_path: Path) -> None:
    lines, d = run({"command": Sensitive("echo $X > used; echo $X"), "environment": {"X": Sensitive("v")}}, tmp_path)
    assert not d.has_errors
    assert (tmp_path / "used").read_text() == "v\n"
    assert lines == ["(output suppressed due to sensitive value in config)"] * 2


def test_missing_interpreter(tmp_path: Path) -> None:
    lines, d = run({"command": "x", "interpreter": TList(["/nonexistent/shell"], STRING)}, tmp_path)
    assert "Error running command 'x'" in d.errors()[0].detail
