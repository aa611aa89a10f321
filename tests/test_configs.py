"""The bundled configurations in configs/, exercised from the CLI on a temporary copy of each:
plan, apply, the documented second step and destroy, asserting what each README documents
(counts in the `Plan:` lines, files on disk, the state through `state list` and `show -json`)."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from test_provider_e2e import state_list  # one reading of `state list`, a workspace without state included

TOOL = str(Path(sys.executable).parent / "tfconsole")
CONFIGS = Path(__file__).resolve().parent.parent / "configs"
TESTED = {"demo", "dependencies", "replacement", "orphans", "failing", "targeting"}


def run(d: Path, *args: str, timeout: int = 180) -> subprocess.CompletedProcess:
    return subprocess.run([TOOL, f"-chdir={d}", *args, "-no-color"] if args[0] in _NO_COLOR else
                          [TOOL, f"-chdir={d}", *args], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


_NO_COLOR = {"plan", "apply", "destroy"}


def ok(d: Path, *args: str) -> str:
    proc = run(d, *args)
    assert proc.returncode == 0, f"{args}: rc={proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert "Traceback" not in proc.stderr
    return proc.stdout


def copy_config(name: str, tmp_path: Path) -> Path:
    dest = tmp_path / name
    shutil.copytree(CONFIGS / name, dest,
                    ignore=shutil.ignore_patterns("out", "terraform.tfstate*", ".terraform*", "tfplan"))
    return dest


def plan_counts(text: str) -> tuple[int, int, int]:
    m = re.search(r"Plan: (\d+) to add, (\d+) to change, (\d+) to destroy\.", text)
    assert m, text[-2000:]
    return int(m[1]), int(m[2]), int(m[3])


def show_values(d: Path) -> dict[str, dict]:
    """address -> values, over the root module and all child modules of `show -json`."""
    doc = json.loads(ok(d, "show", "-json"))
    out: dict[str, dict] = {}

    def walk(mod: dict) -> None:
        for r in mod.get("resources", []):
            out[r["address"]] = r["values"]
        for child in mod.get("child_modules", []):
            walk(child)

    walk(doc.get("values", {}).get("root_module", {}))
    return out


def planned(text: str, verb: str) -> set[str]:
    """Addresses of `# ADDR will be <verb>` / `must be replaced` lines of a plan."""
    return set(re.findall(rf"^  # (\S+) (?:will be|must be) {verb}", text, re.M))


def order(text: str) -> list[str]:
    return text.splitlines()


def index_of(lines: list[str], needle: str) -> int:
    for i, line in enumerate(lines):
        if line.startswith(needle):
            return i
    raise AssertionError(f"{needle!r} not in output:\n" + "\n".join(lines[-60:]))


# ---------------------------------------------------------------------------------------------


def test_every_config_is_tested_and_documented() -> None:
    present = {p.name for p in CONFIGS.iterdir() if p.is_dir()}
    assert present == TESTED, f"untested or missing configs: {present ^ TESTED}"
    for name in present:
        assert (CONFIGS / name / "main.tf").is_file(), name
        assert (CONFIGS / name / "README.md").is_file(), name


@pytest.mark.parametrize("name", sorted(TESTED))
def test_config_validates(name: str, tmp_path: Path) -> None:
    d = copy_config(name, tmp_path)
    out = ok(d, "validate")
    assert "Success" in out


def test_dependencies_order_create_and_destroy(tmp_path: Path) -> None:
    d = copy_config("dependencies", tmp_path)
    assert plan_counts(ok(d, "plan")) == (6, 0, 0)
    out = ok(d, "apply", "-auto-approve")
    assert "Apply complete! Resources: 6 added, 0 changed, 0 destroyed." in out
    lines = order(out)
    deps = {
        "local_file.greeting": ["random_pet.name"],
        "terraform_data.checksum": ["local_file.greeting"],
        "time_sleep.pause": ["local_file.greeting"],
        "local_file.summary": ["time_sleep.pause", "terraform_data.checksum", "random_pet.name"],
    }
    for res, befores in deps.items():
        start = index_of(lines, f"{res}: Creating...")
        for b in befores:
            assert index_of(lines, f"{b}: Creation complete") < start, (res, b)
    assert re.search(r"time_sleep.pause: Creation complete after [1-9]\d*s", out)

    name = show_values(d)["random_pet.name"]["id"]
    greeting = (d / "out" / "greeting.txt").read_text()
    assert greeting == f"hello, {name}\n"
    import hashlib

    sha = hashlib.sha1(greeting.encode()).hexdigest()  # noqa: S324
    assert (d / "out" / "summary.txt").read_text() == f"{name} {sha}\n"
    assert json.loads(ok(d, "output", "-json"))["name"]["value"] == name

    graph = ok(d, "graph")
    for a, b in [("local_file.greeting", "random_pet.name"), ("time_sleep.pause", "local_file.greeting"),
                 ("terraform_data.checksum", "local_file.greeting"), ("local_file.summary", "time_sleep.pause")]:
        assert f'"{a}" -> "{b}"' in graph, (a, b)
    assert '"random_integer.lucky" ->' not in graph

    assert run(d, "plan", "-detailed-exitcode").returncode == 0

    out = ok(d, "destroy", "-auto-approve")
    assert "Destroy complete! Resources: 6 destroyed." in out
    lines = order(out)
    rev = {"random_pet.name": ["local_file.greeting", "local_file.summary"],
           "local_file.greeting": ["terraform_data.checksum", "time_sleep.pause"],
           "time_sleep.pause": ["local_file.summary"]}
    for res, afters in rev.items():
        start = index_of(lines, f"{res}: Destroying...")
        for a in afters:
            assert index_of(lines, f"{a}: Destruction complete") < start, (res, a)
    assert state_list(d) == set()
    assert not (d / "out" / "greeting.txt").exists() and not (d / "out" / "summary.txt").exists()


def test_replacement_second_step_replaces_three(tmp_path: Path) -> None:
    d = copy_config("replacement", tmp_path)
    out = ok(d, "apply", "-auto-approve")
    assert plan_counts(out) == (4, 0, 0)
    before = show_values(d)
    manifest = (d / "out" / "manifest.txt").read_text()
    assert manifest == f"release 1 build {before['random_id.build']['hex']}\n"

    assert run(d, "plan", "-detailed-exitcode").returncode == 0

    plan = ok(d, "plan", "-var=release=2")
    assert plan_counts(plan) == (3, 0, 3)
    assert planned(plan, "replaced") == {"random_id.build", "local_file.manifest", "terraform_data.deployment"}
    assert re.search(r'^-/\+ resource "random_id" "build"', plan, re.M)
    assert re.search(r'^-/\+ resource "local_file" "manifest"', plan, re.M)
    assert re.search(r'^\+/- resource "terraform_data" "deployment"', plan, re.M)
    assert "# random_pet.site" not in plan

    out = ok(d, "apply", "-auto-approve", "-var=release=2")
    assert "Apply complete! Resources: 3 added, 0 changed, 3 destroyed." in out
    lines = order(out)
    # create_before_destroy: the new deployment exists before the old one is destroyed
    assert index_of(lines, "terraform_data.deployment: Creation complete") < \
        index_of(lines, "terraform_data.deployment (deposed object ")
    # the default order for the others: destroy, then create
    assert index_of(lines, "local_file.manifest: Destruction complete") < \
        index_of(lines, "local_file.manifest: Creating...")
    after = show_values(d)
    assert after["random_id.build"]["hex"] != before["random_id.build"]["hex"]
    assert after["random_id.build"]["keepers"] == {"release": "2"}
    assert after["terraform_data.deployment"]["id"] != before["terraform_data.deployment"]["id"]
    assert after["random_pet.site"] == before["random_pet.site"]
    assert (d / "out" / "manifest.txt").read_text() == f"release 2 build {after['random_id.build']['hex']}\n"
    assert run(d, "plan", "-detailed-exitcode", "-var=release=2").returncode == 0

    out = ok(d, "destroy", "-auto-approve", "-var=release=2")
    assert "Destroy complete! Resources: 4 destroyed." in out
    assert state_list(d) == set()
    assert not (d / "out" / "manifest.txt").exists()


def test_orphans_second_step_destroys_removed_keys_and_indexes(tmp_path: Path) -> None:
    d = copy_config("orphans", tmp_path)
    out = ok(d, "apply", "-auto-approve")
    assert plan_counts(out) == (7, 0, 0)
    assert sorted(p.name for p in (d / "out").iterdir()) == ["team-blue.txt", "team-green.txt", "team-red.txt"]

    step2 = ['-var=teams=["red"]', "-var=shards=1"]
    plan = ok(d, "plan", *step2)
    assert plan_counts(plan) == (0, 1, 4)
    assert planned(plan, "destroyed") == {'local_file.team["blue"]', 'local_file.team["green"]',
                                          "terraform_data.shard[1]", "terraform_data.shard[2]"}
    assert planned(plan, "updated in-place") == {"terraform_data.roster"}
    assert '(because key ["blue"] is not in for_each map)' in plan
    assert "(because index [2] is out of range for count)" in plan

    out = ok(d, "apply", "-auto-approve", *step2)
    assert "Apply complete! Resources: 0 added, 1 changed, 4 destroyed." in out
    assert state_list(d) == {'local_file.team["red"]', "terraform_data.shard[0]", "terraform_data.roster"}
    assert sorted(p.name for p in (d / "out").iterdir()) == ["team-red.txt"]
    assert show_values(d)["terraform_data.roster"]["output"] == ["red"]
    assert run(d, "plan", "-detailed-exitcode", *step2).returncode == 0

    out = ok(d, "destroy", "-auto-approve", *step2)
    assert "Destroy complete! Resources: 3 destroyed." in out
    assert state_list(d) == set()
    assert list((d / "out").iterdir()) == []


def test_failing_resource_fails_alone(tmp_path: Path) -> None:
    d = copy_config("failing", tmp_path)
    assert plan_counts(ok(d, "plan")) == (5, 0, 0)
    proc = run(d, "apply", "-auto-approve")
    assert proc.returncode == 1, proc.stdout[-2000:]
    assert "Traceback" not in proc.stderr
    err = proc.stderr
    assert "Error: Create local file error" in err
    assert "on main.tf line 15" in err
    assert "local_file.broken" in err
    assert "open ./blocked/broken.txt: not a directory" in err
    assert "Creation complete" in proc.stdout and "Apply complete" not in proc.stdout
    assert "terraform_data.after_broken: Creating..." not in proc.stdout
    assert state_list(d) == {"random_pet.name", "local_file.ok", "terraform_data.independent"}
    name = show_values(d)["random_pet.name"]["id"]
    assert (d / "out" / "ok.txt").read_text() == f"{name}\n"
    assert (d / "blocked").is_file()

    plan = ok(d, "plan")
    assert plan_counts(plan) == (2, 0, 0)
    assert planned(plan, "created") == {"local_file.broken", "terraform_data.after_broken"}

    # the same failure on the next apply; nothing that succeeded is touched
    again = run(d, "apply", "-auto-approve")
    assert again.returncode == 1 and "not a directory" in again.stderr
    assert show_values(d)["random_pet.name"]["id"] == name

    out = ok(d, "destroy", "-auto-approve")
    assert "Destroy complete! Resources: 3 destroyed." in out
    assert state_list(d) == set()


def test_targeting_applies_only_targets_and_their_dependencies(tmp_path: Path) -> None:
    d = copy_config("targeting", tmp_path)
    proc = run(d, "apply", "-auto-approve", "-target=local_file.app")
    assert proc.returncode == 0, proc.stderr
    assert plan_counts(proc.stdout) == (2, 0, 0)
    assert "Resource targeting is in effect" in proc.stdout + proc.stderr
    assert state_list(d) == {"random_pet.app", "local_file.app"}

    out = ok(d, "apply", "-auto-approve", "-target=local_file.shard[1]")
    assert plan_counts(out) == (1, 0, 0)
    out = ok(d, "apply", "-auto-approve", "-target=module.cache")
    assert plan_counts(out) == (2, 0, 0)
    assert state_list(d) == {"random_pet.app", "local_file.app", "local_file.shard[1]",
                             "module.cache.random_id.key", "module.cache.local_file.config"}
    assert sorted(p.name for p in (d / "out").iterdir()) == ["app.txt", "cache.conf", "shard-1.txt"]
    key = show_values(d)["module.cache.random_id.key"]["hex"]
    assert (d / "out" / "cache.conf").read_text() == f"key={key}\n"

    plan = ok(d, "plan")
    assert plan_counts(plan) == (4, 0, 0)
    assert planned(plan, "created") == {"random_pet.db", "local_file.db", "local_file.shard[0]",
                                        "local_file.shard[2]"}

    out = ok(d, "apply", "-auto-approve")
    assert plan_counts(out) == (4, 0, 0)
    assert run(d, "plan", "-detailed-exitcode").returncode == 0

    out = ok(d, "destroy", "-auto-approve", "-target=local_file.shard[0]")
    assert "Destroy complete! Resources: 1 destroyed." in out
    assert not (d / "out" / "shard-0.txt").exists() and (d / "out" / "shard-2.txt").exists()

    out = ok(d, "destroy", "-auto-approve")
    assert "Destroy complete! Resources: 8 destroyed." in out
    assert state_list(d) == set()
    assert list((d / "out").iterdir()) == []


def test_targeted_destroy_includes_dependents(tmp_path: Path) -> None:
    d = copy_config("targeting", tmp_path)
    ok(d, "apply", "-auto-approve", "-target=local_file.app")
    out = ok(d, "destroy", "-auto-approve", "-target=random_pet.app")
    assert plan_counts(out) == (0, 0, 2)
    assert state_list(d) == set()
    assert not (d / "out" / "app.txt").exists()


# ---------------------------------------------------------------------------------------------
# the demo

DEMO_STEP2 = ['-var=services=["api","web"]', "-var=workers=1"]
JOBS = {f'module.service["jobs"].{r}' for r in
        ("random_id.suffix", "terraform_data.instance[0]", "terraform_data.instance[1]",
         "local_sensitive_file.config", "null_resource.register")}


@pytest.fixture(scope="module")
def demo_applied(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    d = copy_config("demo", tmp_path_factory.mktemp("demo"))
    out = ok(d, "apply", "-auto-approve")
    return d, out


def test_demo_applies(demo_applied: tuple[Path, str]) -> None:
    d, out = demo_applied
    adds, _, _ = plan_counts(out)
    assert f"Apply complete! Resources: {adds} added, 0 changed, 0 destroyed." in out
    assert adds == 31
    listed = state_list(d)
    assert len(listed) == adds
    assert JOBS <= listed
    assert sorted(p.name for p in (d / "out").iterdir()) == ["api.env", "inventory.txt", "jobs.env", "routes.txt", "web.env"]
    values = show_values(d)
    project = values["random_pet.project"]["id"]
    inventory = (d / "out" / "inventory.txt").read_text()
    assert project in inventory
    # a sensitive value is written to the file but never shown
    password = values["random_password.db"]["result"]
    assert f"DB_PASSWORD={password}" in (d / "out" / "api.env").read_text()
    assert password not in out
    assert "db_password = <sensitive>" in out
    assert run(d, "plan", "-detailed-exitcode").returncode == 0


def test_demo_second_step_plans_orphans(demo_applied: tuple[Path, str]) -> None:
    d, _ = demo_applied
    plan = ok(d, "plan", *DEMO_STEP2)
    destroyed = planned(plan, "destroyed")
    assert {"terraform_data.worker[1]", "terraform_data.worker[2]"} <= destroyed
    assert "(because index [2] is out of range for count)" in plan
    assert "local_file.inventory" in planned(plan, "replaced")


def test_demo_second_step_destroys_removed_module_key(demo_applied: tuple[Path, str]) -> None:
    d, _ = demo_applied
    plan = ok(d, "plan", *DEMO_STEP2)
    assert JOBS <= planned(plan, "destroyed")
    assert plan_counts(plan) == (1, 0, 3 + len(JOBS))


def test_demo_second_step_applies_and_destroys_cleanly(demo_applied: tuple[Path, str]) -> None:
    d, _ = demo_applied
    out = ok(d, "apply", "-auto-approve", *DEMO_STEP2)
    assert "Apply complete!" in out
    listed = state_list(d)
    assert "terraform_data.worker[0]" in listed and "terraform_data.worker[1]" not in listed
    assert not listed & JOBS
    assert not (d / "out" / "jobs.env").exists()
    assert json.loads(ok(d, "output", "-json"))["endpoints"]["value"].keys() == {"api", "web"}

    out = ok(d, "destroy", "-auto-approve", *DEMO_STEP2)
    assert re.search(r"Destroy complete! Resources: \d+ destroyed\.", out)
    assert state_list(d) == set()
    assert list((d / "out").iterdir()) == []
    assert run(d, "plan", "-destroy", "-detailed-exitcode", *DEMO_STEP2).returncode == 0
