"""The human plan rendering stays linear in the number of changes (a behaviour, not a timing:
what it must not do is compare every change with every other)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tfconsole.command.main import main
from tfconsole.plans import ResourceInstanceChange


def test_rendering_a_plan_never_compares_changes_with_each_other(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {\n  count = 40\n  input = count.index\n}\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    compared: list[int] = []
    original = ResourceInstanceChange.__eq__

    def counting_eq(self: ResourceInstanceChange, other: object) -> bool:
        compared.append(1)
        return original(self, other)

    monkeypatch.setattr(ResourceInstanceChange, "__eq__", counting_eq)
    assert main(["plan", "-input=false", "-no-color"]) == 0
    assert "Plan: 40 to add, 0 to change, 0 to destroy." in capsys.readouterr().out
    assert len(compared) < 40, f"{len(compared)} comparisons of whole changes for 40 changes"
