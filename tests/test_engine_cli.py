"""Engine and CLI behaviour that the differential cases cannot show: import hygiene, broken
configurations (diagnostic with file:line, non-zero exit, never a traceback), cycles, graph
output, state commands, sensitive redaction, and crash safety of apply."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

TOOL = str(Path(sys.executable).parent / "tfconsole")


def run(d: Path, *args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run([TOOL, f"-chdir={d}", *args], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def write(d: Path, text: str, name: str = "main.tf") -> Path:
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_text(text)
    return d


def test_engine_imports_without_textual() -> None:
    code = ("import sys, tfconsole.core, tfconsole.command.main, tfconsole.graph.builder, tfconsole.walk.walker;"
            "bad=[m for m in sys.modules if m.split('.')[0]=='textual'];print(bad);sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


BROKEN = {
    "syntax": ('resource "terraform_data" "a" {\n  input = [1,\n}\n', "main.tf line"),
    "unknown_reference": ('resource "terraform_data" "a" {\n  input = var.nope\n}\n', "Reference to undeclared input variable"),
    "unknown_function": ('output "x" {\n  value = nosuchfn(1)\n}\n', "Call to unknown function"),
    "bad_call": ('output "x" {\n  value = upper([1])\n}\n', "Invalid function argument"),
    "cycle": ('resource "terraform_data" "a" {\n  input = terraform_data.b.output\n}\n'
              'resource "terraform_data" "b" {\n  input = terraform_data.a.output\n}\n', "Cycle: "),
    "self_reference": ('resource "terraform_data" "a" {\n  input = terraform_data.a.id\n}\n', "Self-referential block"),
    "self_local": ('locals {\n  ab = 1\n  a = merge(try(local.ab, {}), { x = local.a })\n}\n',
                   "Self-referencing local value"),
    "type_error": ('variable "n" {\n  type = number\n  default = "abc"\n}\noutput "o" {\n  value = var.n\n}\n',
                   "Invalid"),
    "duplicate": ('resource "terraform_data" "a" {}\nresource "terraform_data" "a" {}\n', "Duplicate resource"),
    "missing_variable": ('variable "v" {\n  type = string\n}\noutput "o" {\n  value = var.v\n}\n',
                         "No value for required variable"),
    "failed_validation": ('variable "v" {\n  default = 5\n  validation {\n    condition = var.v < 3\n'
                          '    error_message = "too big"\n  }\n}\noutput "o" {\n  value = var.v\n}\n', "too big"),
    "count_negative": ('resource "terraform_data" "a" {\n  count = -1\n}\n', "Invalid count argument"),
    "for_each_list": ('resource "terraform_data" "a" {\n  for_each = ["a"]\n}\n', "Invalid for_each argument"),
    "count_and_for_each": ('resource "terraform_data" "a" {\n  count = 1\n  for_each = {}\n}\n',
                           "Invalid combination"),
    "unsupported_argument": ('resource "terraform_data" "a" {\n  nope = 1\n}\n', "Unsupported argument"),
    "index_out_of_range": ('output "o" {\n  value = [1, 2][5]\n}\n', "Invalid index"),
    "missing_module": ('module "m" {\n  source = "./nowhere"\n}\n', "Unreadable module directory"),
    "undeclared_resource": ('output "o" {\n  value = terraform_data.nope.id\n}\n', "Reference to undeclared resource"),
    "undeclared_local": ('output "o" {\n  value = local.nope\n}\n', "Reference to undeclared local value"),
    "duplicate_variable": ('variable "a" {}\nvariable "a" {}\n', "Duplicate variable declaration"),
    "duplicate_output": ('output "a" {\n  value = 1\n}\noutput "a" {\n  value = 2\n}\n',
                         "Duplicate output definition"),
    "unknown_block": ('resourse "terraform_data" "a" {}\n', "Unsupported block type"),
    "too_few_args": ('output "o" {\n  value = upper()\n}\n', "Not enough function arguments"),
    "null_attribute": ('variable "v" {\n  default = null\n}\noutput "o" {\n  value = var.v.x\n}\n',
                       "Attempt to get attribute from null value"),
    "for_each_unknown": ('resource "terraform_data" "a" {}\nresource "terraform_data" "b" {\n'
                         '  for_each = toset([terraform_data.a.id])\n}\n', "Invalid for_each argument"),
    "count_unknown": ('resource "terraform_data" "a" {}\nresource "terraform_data" "b" {\n'
                      '  count = length(terraform_data.a.id)\n}\n', "Invalid count argument"),
    "module_missing_argument": ('module "m" {\n  source = "./m"\n}\n', "Missing required argument"),
    "sensitive_output": ('variable "s" {\n  default = "x"\n  sensitive = true\n}\noutput "o" {\n  value = var.s\n}\n',
                         "Output refers to sensitive values"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_configuration_gives_diagnostic(name: str, tmp_path: Path) -> None:
    text, expect = BROKEN[name]
    d = write(tmp_path / name, text)
    if name == "module_missing_argument":
        write(d / "m", 'variable "x" {}\n')
    proc = run(d, "plan", "-input=false", "-no-color")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert "Traceback" not in out
    assert expect in out
    assert "main.tf" in out or name == "cycle"


def test_binary_garbage_is_a_diagnostic(tmp_path: Path) -> None:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "main.tf").write_bytes(os.urandom(2048))
    proc = run(tmp_path, "plan")
    assert proc.returncode != 0
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "main.tf" in proc.stderr


def test_cycle_names_every_member(tmp_path: Path) -> None:
    d = write(tmp_path, 'resource "terraform_data" "a" {\n  input = terraform_data.c.output\n}\n'
                        'resource "terraform_data" "b" {\n  input = terraform_data.a.output\n}\n'
                        'resource "terraform_data" "c" {\n  input = terraform_data.b.output\n}\n')
    proc = run(d, "graph")
    assert proc.returncode != 0
    for member in ("terraform_data.a", "terraform_data.b", "terraform_data.c"):
        assert member in proc.stderr


def test_graph_plan_shows_vertex_kinds_and_replacement_split(tmp_path: Path) -> None:
    d = write(tmp_path, 'resource "terraform_data" "a" {\n  count = 2\n  triggers_replace = var.v\n}\n'
                        'variable "v" {\n  default = "1"\n}\n')
    full = run(d, "graph", "-type=plan")
    assert full.returncode == 0, full.stderr
    assert 'provider[\\"terraform.io/builtin/terraform' in full.stdout
    assert "root" in full.stdout and "var.v" in full.stdout
    assert run(d, "apply", "-auto-approve").returncode == 0
    assert run(d, "plan", "-out=p", "-var=v=2").returncode == 0
    g = run(d, "graph", "-plan=p")
    assert g.returncode == 0, g.stderr
    assert "terraform_data.a[0] (destroy)" in g.stdout and "terraform_data.a[0] (create)" in g.stdout


def test_state_commands_and_sensitive_redaction(tmp_path: Path) -> None:
    d = write(tmp_path, 'variable "p" {\n  default = "s3cr3t-value"\n  sensitive = true\n}\n'
                        'resource "terraform_data" "a" {\n  count = 2\n  input = var.p\n}\n'
                        'output "o" {\n  value = terraform_data.a[0].output\n  sensitive = true\n}\n')
    ap = run(d, "apply", "-auto-approve")
    assert ap.returncode == 0, ap.stderr
    assert "s3cr3t-value" not in ap.stdout
    assert run(d, "state", "list").stdout.split() == ["terraform_data.a[0]", "terraform_data.a[1]"]
    show = run(d, "state", "show", "terraform_data.a[0]")
    assert show.returncode == 0 and "(sensitive value)" in show.stdout and "s3cr3t-value" not in show.stdout
    assert "s3cr3t-value" not in run(d, "output").stdout
    assert json.loads(run(d, "output", "-json").stdout)["o"]["sensitive"] is True
    assert oct(os.stat(d / "terraform.tfstate").st_mode & 0o777) == "0o600"
    assert run(d, "state", "rm", "terraform_data.a[1]").returncode == 0
    assert run(d, "state", "list").stdout.split() == ["terraform_data.a[0]"]
    plan = run(d, "plan", "-no-color")
    assert "1 to add, 0 to change, 0 to destroy" in plan.stdout


def test_workspaces_keep_separate_state(tmp_path: Path) -> None:
    d = write(tmp_path, 'resource "terraform_data" "a" {\n  input = terraform.workspace\n}\n')
    assert run(d, "apply", "-auto-approve").returncode == 0
    assert run(d, "workspace", "new", "blue").returncode == 0
    assert run(d, "workspace", "show").stdout.strip() == "blue"
    assert run(d, "state", "list").stdout.strip() == ""
    assert run(d, "apply", "-auto-approve").returncode == 0
    st = json.loads((d / "terraform.tfstate.d" / "blue" / "terraform.tfstate").read_text())
    assert st["resources"][0]["instances"][0]["attributes"]["input"]["value"] == "blue"
    assert run(d, "workspace", "select", "default").returncode == 0
    assert run(d, "workspace", "delete", "blue").returncode != 0  # not empty without -force


def test_sigkill_mid_apply_loses_no_completed_resource(tmp_path: Path) -> None:
    n = 3000
    d = write(tmp_path, f'resource "terraform_data" "r" {{\n  count = {n}\n  input = "v${{count.index}}"\n}}\n')
    proc = subprocess.Popen([TOOL, f"-chdir={d}", "apply", "-auto-approve", "-no-color"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    completed = set()
    deadline = time.time() + 120
    assert proc.stdout is not None
    for line in proc.stdout:
        if "Creation complete" in line:
            completed.add(line.split(":")[0])
        if len(completed) >= n // 3 or time.time() > deadline:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert completed, "apply never completed a resource"
    listed = run(d, "state", "list")
    assert listed.returncode == 0, listed.stderr
    in_state = set(listed.stdout.split())
    assert completed <= in_state, sorted(completed - in_state)[:5]
    again = run(d, "apply", "-auto-approve", "-no-color", timeout=300)
    assert again.returncode == 0, again.stderr[-2000:]
    final = run(d, "plan", "-no-color", "-detailed-exitcode")
    assert final.returncode == 0, final.stdout[-1000:]
    assert len(run(d, "state", "list").stdout.split()) == n


def test_ctrl_c_mid_apply_saves_state_and_releases_the_lock(tmp_path: Path) -> None:
    d = write(tmp_path, 'resource "time_sleep" "s" {\n  count = 12\n  create_duration = "1s"\n}\n'
                        'resource "terraform_data" "after" {\n  input = length(time_sleep.s)\n}\n')
    proc = subprocess.Popen([TOOL, f"-chdir={d}", "apply", "-auto-approve", "-no-color", "-parallelism=2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    completed = set()
    for line in proc.stdout:
        if "Creation complete" in line:
            completed.add(line.split(":")[0])
        if len(completed) >= 2:
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    for line in out.splitlines():
        if "Creation complete" in line:
            completed.add(line.split(":")[0])
    assert proc.returncode != 0
    assert "Traceback" not in err
    assert "Interrupt received" in err or "cancelled" in (out + err).lower()
    assert not (d / ".terraform.tfstate.lock.info").exists()
    listed = set(run(d, "state", "list").stdout.split())
    assert completed <= listed
    assert "terraform_data.after" not in listed  # its dependency never finished
    assert len(listed) < 13
    again = run(d, "apply", "-auto-approve", "-no-color", timeout=120)
    assert again.returncode == 0, again.stderr[-2000:]
    assert len(run(d, "state", "list").stdout.split()) == 13
