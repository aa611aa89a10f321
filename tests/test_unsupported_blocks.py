"""Blocks Terraform supports that tfconsole does not implement yet are refused with their
location, never skipped (ignoring one would plan something else than the configuration says)."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from tfconsole.command.main import CLI

CASES = {
    # Terraform 1.14's actions: tfconsole has none, so the block is refused, never skipped
    "action": ('action "local_command" "x" {\n}\n', "Unsupported block type"),
}


@pytest.mark.parametrize("kind", sorted(CASES))
def test_unsupported_block_is_refused_with_its_location(kind: str, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    block, summary = CASES[kind]
    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {}\n' + block)
    monkeypatch.chdir(tmp_path)
    for command in (["validate"], ["plan"], ["apply", "-auto-approve"]):
        out, err = io.StringIO(), io.StringIO()
        assert CLI(out, err).run([*command, "-no-color"]) == 1
        assert f"Error: {summary}" in err.getvalue() and "on main.tf line 2" in err.getvalue(), err.getvalue()
    assert not (tmp_path / "terraform.tfstate").exists()
