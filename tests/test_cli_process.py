"""The CLI as a program: what its process does around a command (not what the command does)."""
from __future__ import annotations

import gc
import sys

import pytest

from tfconsole.command import main as cli_main


def test_the_program_freezes_its_heap_before_exit_and_an_in_process_caller_does_not(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    frozen: list[int] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(gc.get_count()[0]))
    monkeypatch.setattr(sys, "argv", ["tfconsole", "version"])
    assert cli_main.main() == 0          # as the console script calls it
    assert len(frozen) == 1
    assert cli_main.main(["version"]) == 0  # as a test or an embedding program calls it
    assert len(frozen) == 1
    assert capsys.readouterr().out.count("Terraform v1.15") == 2  # both ran the command itself
