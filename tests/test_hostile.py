"""Hostile configurations for the expression language (issue 7 item 7).

Each case is a configuration that, in Terraform, hangs, exhausts memory or crashes - or that a
naive evaluator would: catastrophic regular expressions, unbounded files and devices, numbers
of twenty thousand digits, alias bombs, products of huge sets. tfconsole runs as a subprocess
with a time limit and an address-space limit, and must end with a non-zero exit and a
diagnostic naming the file and line, never a traceback or "Internal error". Where Terraform has
no limit, the diagnostic states tfconsole's.

(Configuration-level cases - parser input - are in the parser's own hostile tests.)
"""
from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest

TOOL = str(Path(sys.executable).parent / "tfconsole")
TIME_LIMIT = 240           # seconds: far above any case's run time, far below a hang
MEMORY_LIMIT = 3 << 30     # bytes of address space for the tfconsole process

A50K = 'join("", [for i in range(1000) : "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"])'
BOMB = "\\n".join(["a: &a [x,x,x,x,x,x,x,x,x,x]"] + [
    f"{c}: &{c} [{','.join(['*' + p] * 10)}]" for p, c in zip("abcdefgh", "bcdefghi")])


def _output(expr: str, extra: str = "") -> str:
    return f'{extra}\noutput "x" {{\n  value = {expr}\n}}\n'


# name -> (files, command, expected text in the output)
CASES: dict[str, tuple[dict, str, str]] = {
    "regex-catastrophic": ({"main.tf": _output(f'regex("(a+)+$", "${{{A50K}}}!")')}, "plan",
                           "pattern did not match"),
    "regexall-catastrophic": ({"main.tf": _output(f'tobool(length(regexall("(a+)+$", "${{{A50K}}}!")))')},
                              "plan", "bool"),
    "replace-catastrophic": ({"main.tf": _output(f'tonumber(replace("${{{A50K}}}!", "/(a+)+$/", "x"))')}, "plan",
                             "number"),
    "format-width-number": ({"main.tf": _output('tonumber(format("%999999999d", 1))')}, "plan", "NOVERB"),
    "format-width-string": ({"main.tf": _output('format("%999999999s", "x")')}, "plan", "tfconsole pads to"),
    "templatefile-200MB": ({"main.tf": _output('templatefile("big.tftpl", {})'), "big.tftpl": 200 << 20},
                           "plan", "the most tfconsole reads"),
    "file-200MB": ({"main.tf": _output('file("big.txt")'), "big.txt": 200 << 20}, "plan",
                   "the most tfconsole reads"),
    "file-dev-zero": ({"main.tf": _output('file("/dev/zero")')}, "plan", "not a regular file"),
    "filebase64-dev-urandom": ({"main.tf": _output('filebase64("/dev/urandom")')}, "plan", "not a regular file"),
    "file-fifo": ({"main.tf": _output('file("pipe")'), "pipe": "fifo"}, "plan", "not a regular file"),
    "filesha256-fifo": ({"main.tf": _output('filesha256("pipe")'), "pipe": "fifo"}, "plan", "not a regular file"),
    "templatefile-fifo": ({"main.tf": _output('templatefile("pipe", {})'), "pipe": "fifo"}, "plan",
                          "not a regular file"),
    "fileset-root": ({"main.tf": _output('tobool(length(fileset("/", "**")))')}, "plan", "fileset"),
    "number-20000-digits": ({"main.tf": _output("tobool(1" + "0" * 20000 + ")")}, "plan", "to bool"),
    "number-20000-fraction-digits": ({"main.tf": _output("tobool(0." + "3" * 20000 + ")")}, "plan", "to bool"),
    "number-beyond-range": ({"main.tf": _output("1e2000000 > 1")}, "plan", "number out of range"),
    "number-1e999999-text": ({"main.tf": _output("tobool(tostring(1e999999))")}, "plan", "bool"),
    "parseint-10000-chars": ({"main.tf": _output(f'tobool(parseint("{"z" * 10000}", 36))')}, "plan",
                             "to bool"),
    "parseint-10000-chars-invalid": ({"main.tf": _output(f'parseint("{"z" * 10000}!", 36)')}, "plan",
                                     "cannot parse"),
    "pow-infinite-output": ({"main.tf": _output("pow(10, 1000000)")}, "apply", "cannot serialize infinity"),
    "log-zero-output": ({"main.tf": _output("log(0, 10)")}, "apply", "cannot serialize infinity"),
    "infinite-resource-attribute": ({"main.tf": 'resource "terraform_data" "x" {\n  input = 5 / 0\n}\n'}, "plan",
                                    "cannot serialize infinity"),
    "jsondecode-deep": ({"main.tf": _output('jsondecode("' + "[" * 100000 + "]" * 100000 + '")')}, "plan",
                        "nests too deeply"),
    "yamldecode-alias-bomb": ({"main.tf": _output(f'yamldecode("{BOMB}")')}, "plan", "aliases"),
    "setproduct-huge": ({"main.tf": _output("setproduct(range(1000), range(1000), range(1000))")}, "plan",
                        "tfconsole builds at most"),
    "indent-huge": ({"main.tf": _output('indent(1000000000, "a\\nb")')}, "plan", "tfconsole builds strings"),
    "replace-multiplying": ({"main.tf": _output(
        'replace(replace(replace(local.s, "a", local.s), "a", local.s), "a", local.s)',
        f'locals {{\n  s = "${{{A50K}}}"\n}}\n')}, "plan", "tfconsole builds strings"),
    "for-product": ({"main.tf": _output(
        "length([for a in range(1000) : [for b in range(1000) : [for c in range(1000) : 1]]])")}, "plan",
        "Expression too expensive"),
    "templatefile-recursion": ({"main.tf": _output('templatefile("self.tftpl", {})'),
                                "self.tftpl": '${templatefile("self.tftpl", {})}'}, "plan", "recursively"),
    "bcrypt-cost-31": ({"main.tf": _output('bcrypt("x", 31)')}, "plan", "tfconsole computes"),
    "range-huge": ({"main.tf": _output("range(1e9)")}, "plan", "1024"),
    "regex-huge-repetition": ({"main.tf": _output('regex("((a{1000}){1000}){1000}", "a")')}, "plan",
                              "invalid regexp pattern"),
    "timeadd-overflow": ({"main.tf": _output('timeadd("2017-11-22T00:00:00Z", "99999999999999999999h")')}, "plan",
                         "invalid duration"),
}


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _materialise(d: Path, files: dict) -> None:
    for name, content in files.items():
        p = d / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if content == "fifo":
            os.mkfifo(p)
        elif isinstance(content, int):  # a sparse file of that size: no disk, all zeros
            with open(p, "wb") as f:
                f.truncate(content)
        else:
            p.write_text(content)


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_configuration_is_bounded(name: str, tmp_path: Path) -> None:
    files, command, expected = CASES[name]
    _materialise(tmp_path, files)
    args = [TOOL, command, "-no-color"] + (["-auto-approve"] if command == "apply" else [])
    env = dict(os.environ, CHECKPOINT_DISABLE="1", HOME=str(tmp_path))
    try:
        proc = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=TIME_LIMIT,
                              preexec_fn=_limits, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{name}: still running after {TIME_LIMIT} s")
    out = proc.stdout + proc.stderr
    shown = out if len(out) < 4000 else out[:2000] + " ... " + out[-2000:]
    assert proc.returncode != 0, shown
    assert proc.returncode > 0, f"killed by signal {-proc.returncode}: {shown}"
    assert "Traceback" not in out and "Internal error" not in out, shown
    assert re.search(r"on main\.tf line \d+", out), shown
    assert expected in " ".join(out.split()), shown
