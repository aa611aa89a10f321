"""`init`, `providers`, `version` against real Terraform 1.15 on the same working directories:
printed lines, lock files both ways, links into .terraform/providers, refusals of changed
binaries, built-in providers offline, and errors for providers nothing can supply."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from _install_util import PLATFORM, isolate, mirror_rc, ours, put_packed, put_unpacked, terraform

NULL = "registry.terraform.io/hashicorp/null"
NULL_MAIN = ('terraform {\n  required_providers {\n    null = { source = "hashicorp/null", version = "~> 2.1" }\n'
             '  }\n}\nresource "null_resource" "a" {}\n')


def pair(tmp_path: Path, main: str, files: dict[str, str] | None = None) -> tuple[Path, Path]:
    """Two identical working directories: one for Terraform, one for tfconsole."""
    out = []
    for who in ("tf", "us"):
        d = tmp_path / who
        d.mkdir()
        (d / "main.tf").write_text(main)
        for name, text in (files or {}).items():
            (d / name).parent.mkdir(parents=True, exist_ok=True)
            (d / name).write_text(text)
        out.append(d)
    return out[0], out[1]


def same_init(tf: Path, us: Path, env: dict[str, str], *args: str) -> tuple[str, str]:
    code, out, err = terraform(tf, env, "init", "-no-color", *args)
    code2, out2, err2 = ours(us, "init", "-no-color", *args)
    assert (code2, out2) == (code, out), err2
    return out, err


@pytest.fixture
def null_mirror(tmp_path: Path, null_provider_binary: str) -> Path:
    mirror = tmp_path / "mirror"
    put_unpacked(mirror, NULL, "2.1.2", Path(null_provider_binary), name="terraform-provider-null_v2.1.2_x4")
    return mirror


def test_fresh_init_then_again_prints_what_terraform_prints(tmp_path: Path, monkeypatch, null_mirror: Path) -> None:
    env = isolate(monkeypatch, tmp_path, mirror_rc(null_mirror))
    tf, us = pair(tmp_path, NULL_MAIN)
    out, _ = same_init(tf, us, env)
    assert "- Installed hashicorp/null v2.1.2 (unauthenticated)" in out
    assert (us / ".terraform.lock.hcl").read_bytes() == (tf / ".terraform.lock.hcl").read_bytes()
    rel = f".terraform/providers/{NULL}/2.1.2/{PLATFORM}"
    assert (us / rel).is_symlink() and os.readlink(us / rel) == os.readlink(tf / rel)
    out, _ = same_init(tf, us, env)
    assert "- Using previously-installed hashicorp/null v2.1.2" in out


def test_init_with_a_state_installs_its_providers_too(tmp_path: Path, monkeypatch, null_mirror: Path) -> None:
    env = isolate(monkeypatch, tmp_path, mirror_rc(null_mirror))
    tf, us = pair(tmp_path, NULL_MAIN)
    same_init(tf, us, env)
    assert terraform(tf, env, "apply", "-auto-approve", "-no-color")[0] == 0
    shutil.copy(tf / "terraform.tfstate", us / "terraform.tfstate")
    out, _ = same_init(tf, us, env)
    assert "Initializing provider plugins found in the state..." in out
    code, out, err = terraform(tf, env, "providers", "-no-color")
    assert ours(us, "providers", "-no-color") == (code, out, err)


def test_packed_mirror_and_the_builtin_terraform_provider(tmp_path: Path, monkeypatch, null_provider_binary: str
                                                          ) -> None:
    mirror = tmp_path / "zips"
    put_packed(mirror, NULL, "2.1.2", Path(null_provider_binary))
    env = isolate(monkeypatch, tmp_path, mirror_rc(mirror))
    tf, us = pair(tmp_path, 'resource "null_resource" "a" {}\nresource "terraform_data" "b" {}\n')
    out, _ = same_init(tf, us, env)
    assert "- terraform.io/builtin/terraform is built in to Terraform" in out
    assert (us / ".terraform.lock.hcl").read_bytes() == (tf / ".terraform.lock.hcl").read_bytes()
    pkg = us / f".terraform/providers/{NULL}/2.1.2/{PLATFORM}"
    assert pkg.is_dir() and not pkg.is_symlink()
    assert os.access(pkg / "terraform-provider-null_v2.1.2", os.X_OK)


def test_plugin_cache_dir(tmp_path: Path, monkeypatch, null_mirror: Path) -> None:
    caches = {who: tmp_path / f"cache-{who}" for who in ("tf", "us")}
    for c in caches.values():
        c.mkdir()
    tf, us = pair(tmp_path, NULL_MAIN)
    outs = {}
    for who, d in (("tf", tf), ("us", us)):
        env = isolate(monkeypatch, tmp_path, mirror_rc(null_mirror, extra=f'plugin_cache_dir = "{caches[who]}"\n'))
        outs[who] = terraform(d, env, "init", "-no-color") if who == "tf" else ours(d, "init", "-no-color")
    assert outs["us"][:2] == outs["tf"][:2]
    for who, d in (("tf", tf), ("us", us)):
        link = d / f".terraform/providers/{NULL}/2.1.2/{PLATFORM}"
        assert os.readlink(link) == str(caches[who] / NULL / "2.1.2" / PLATFORM)
        assert (caches[who] / NULL / "2.1.2" / PLATFORM / "terraform-provider-null_v2.1.2_x4").is_file()
    # offline, the cache stands in for the registry: a directory using `direct` links the cached copy
    isolate(monkeypatch, tmp_path, f'plugin_cache_dir = "{caches["us"]}"\nprovider_installation {{\n  direct {{}}\n}}\n')
    other = tmp_path / "other"
    other.mkdir()
    (other / "main.tf").write_text(NULL_MAIN)
    shutil.copy(us / ".terraform.lock.hcl", other / ".terraform.lock.hcl")
    code, out, err = ours(other, "init", "-no-color")
    assert code == 0, err
    assert "- Using hashicorp/null v2.1.2 from the shared cache directory" in out


def test_plugin_dirs_replace_other_sources(tmp_path: Path, monkeypatch, null_mirror: Path,
                                           null_provider_binary: str) -> None:
    zips = tmp_path / "zips"
    put_packed(zips, NULL, "2.1.2", Path(null_provider_binary))
    env = isolate(monkeypatch, tmp_path, mirror_rc(tmp_path / "ignored"))
    tf, us = pair(tmp_path, NULL_MAIN)
    same_init(tf, us, env, f"-plugin-dir={null_mirror}", f"-plugin-dir={zips}")
    assert (us / ".terraform/plugin_path").read_text() == (tf / ".terraform/plugin_path").read_text()
    rel = f".terraform/providers/{NULL}/2.1.2/{PLATFORM}"
    assert os.readlink(us / rel) == os.readlink(tf / rel)


def test_dev_overrides_skip_installation(tmp_path: Path, monkeypatch, null_provider_binary: str) -> None:
    from tfconsole.providers.plugin.locate import dev_override_warnings, provider_executable

    dev = tmp_path / "dev"
    dev.mkdir()
    shutil.copy(null_provider_binary, dev / "terraform-provider-null")
    rc = f'provider_installation {{\n  dev_overrides {{\n    "hashicorp/null" = "{dev}"\n  }}\n  direct {{}}\n}}\n'
    env = isolate(monkeypatch, tmp_path, rc)
    tf, us = pair(tmp_path, 'resource "null_resource" "a" {}\n')
    same_init(tf, us, env)
    assert not (us / ".terraform.lock.hcl").exists() and not (tf / ".terraform.lock.hcl").exists()
    assert provider_executable(str(us), NULL) == str(dev / "terraform-provider-null")
    code, out, err = terraform(tf, env, "plan", "-no-color")
    warning = out[:out.index("Terraform used the selected providers")].strip()
    from tfconsole.command.views import format_diagnostic

    assert format_diagnostic(list(dev_override_warnings())[0], color=False).strip() == warning


def test_local_modules(tmp_path: Path, monkeypatch, null_mirror: Path) -> None:
    env = isolate(monkeypatch, tmp_path, mirror_rc(null_mirror))
    files = {"modules/a/main.tf": 'module "inner" {\n  source = "../b"\n}\nresource "null_resource" "n" {}\n',
             "modules/b/main.tf": 'resource "terraform_data" "y" {}\n'}
    tf, us = pair(tmp_path, 'module "a" {\n  source = "./modules/a"\n}\nmodule "z" {\n  source = "./modules/b"\n}\n'
                  'resource "terraform_data" "x" {}\n', files)
    code, out, err = terraform(tf, env, "init", "-no-color")
    code2, out2, err2 = ours(us, "init", "-no-color")
    # Terraform installs modules concurrently: the order of the "- KEY in DIR" lines varies
    assert (code2, sorted(out2.splitlines())) == (code, sorted(out.splitlines())), err2
    assert out2.splitlines()[0] == out.splitlines()[0] == "Initializing modules..."
    mods = ".terraform/modules/modules.json"
    assert json.loads((us / mods).read_text()) == json.loads((tf / mods).read_text())
    code, out, err = terraform(tf, env, "providers", "-no-color")
    code2, out2, err2 = ours(us, "providers", "-no-color")
    # Terraform lists a module's children in Go's random map order: compare the trees, not the order
    assert (code2, canonical_tree(out2), err2) == (code, canonical_tree(out), err)


def canonical_tree(text: str) -> list:
    """A treeprint drawing as nested (label, children) with every level sorted."""
    root: list = []
    stack = [(-1, root)]
    for line in text.splitlines():
        i = max(line.find("├── "), line.find("└── "))
        if i < 0:
            continue
        depth, node = i // 4, (line[i + 4:], [])
        while stack[-1][0] >= depth:
            stack.pop()
        stack[-1][1].append(node)
        stack.append((depth, node[1]))

    def norm(nodes: list) -> list:
        return sorted((label, norm(kids)) for label, kids in nodes)

    return norm(root)


def test_changed_binary_in_the_mirror_is_refused(tmp_path: Path, monkeypatch, null_mirror: Path) -> None:
    env = isolate(monkeypatch, tmp_path, mirror_rc(null_mirror))
    tf, us = pair(tmp_path, NULL_MAIN)
    same_init(tf, us, env)
    for d in (tf, us):
        shutil.rmtree(d / ".terraform")
    exe = null_mirror / NULL / "2.1.2" / PLATFORM / "terraform-provider-null_v2.1.2_x4"
    with open(exe, "ab") as fh:
        fh.write(b"tampered")
    code, out, err = terraform(tf, env, "init", "-no-color")
    code2, out2, err2 = ours(us, "init", "-no-color")
    assert (code2, out2, err2) == (code, out, err)
    assert "doesn't match any of the checksums" in err


def test_changed_installed_binary_is_refused_before_an_operation(tmp_path: Path, monkeypatch,
                                                                 null_mirror: Path) -> None:
    from tfconsole.command.views import format_diagnostic
    from tfconsole.providers.plugin.locate import check_installed, provider_executable

    env = isolate(monkeypatch, tmp_path, mirror_rc(null_mirror))
    tf, us = pair(tmp_path, NULL_MAIN)
    same_init(tf, us, env)
    exe = null_mirror / NULL / "2.1.2" / PLATFORM / "terraform-provider-null_v2.1.2_x4"
    assert provider_executable(str(us), NULL) == str(us / f".terraform/providers/{NULL}/2.1.2/{PLATFORM}" / exe.name)
    assert not check_installed(str(us))
    with open(exe, "ab") as fh:
        fh.write(b"tampered")
    code, out, err = terraform(tf, env, "plan", "-no-color")
    assert code == 1
    diags = check_installed(str(us))
    assert format_diagnostic(list(diags)[0], color=False).strip() == err.strip()
    assert provider_executable(str(us), NULL) is None
    assert check_installed(str(us), {NULL}).has_errors  # a changed plugin is never replaced by a built-in
    for command in ("plan", "apply", "refresh"):  # refused before anything runs, as Terraform refuses it
        ours_code, ours_out, ours_err = ours(us, command, "-no-color", *(["-auto-approve"] if command == "apply"
                                                                         else []))
        assert (ours_code, ours_err.strip()) == (1, err.strip()), ours_out
    assert not (us / "terraform.tfstate").exists()


def test_lock_conflicts_and_upgrade(tmp_path: Path, monkeypatch, null_provider_binary: str) -> None:
    mirror = tmp_path / "mirror"
    for v in ("1.0.0", "1.1.0", "2.0.0"):
        put_unpacked(mirror, "example.com/test/thing", v, f"#!/bin/sh\necho {v}\n".encode())
    env = isolate(monkeypatch, tmp_path, mirror_rc(mirror))
    main = 'terraform {\n  required_providers {\n    thing = { source = "example.com/test/thing", version = "%s" }\n  }\n}\n'
    tf, us = pair(tmp_path, main % "1.0.0")
    same_init(tf, us, env)
    for d in (tf, us):
        (d / "main.tf").write_text(main % ">= 1.1.0")
    code, out, err = terraform(tf, env, "init", "-no-color")
    assert ours(us, "init", "-no-color") == (code, out, err)
    assert "does not match configured version constraint" in " ".join(err.split())
    same_init(tf, us, env, "-upgrade")
    assert (us / ".terraform.lock.hcl").read_bytes() == (tf / ".terraform.lock.hcl").read_bytes()
    assert 'version     = "2.0.0"' in (us / ".terraform.lock.hcl").read_text()


def test_terraform_accepts_our_lock_file_and_we_accept_its(tmp_path: Path, monkeypatch, null_mirror: Path) -> None:
    env = isolate(monkeypatch, tmp_path, mirror_rc(null_mirror))
    ours_first, tf_first = pair(tmp_path, NULL_MAIN)
    assert ours(ours_first, "init", "-no-color")[0] == 0
    written = (ours_first / ".terraform.lock.hcl").read_bytes()
    code, out, err = terraform(ours_first, env, "init", "-no-color")
    assert code == 0 and "- Using previously-installed hashicorp/null v2.1.2" in out
    assert (ours_first / ".terraform.lock.hcl").read_bytes() == written
    code, out, err = terraform(ours_first, env, "plan", "-no-color")
    assert code == 0, err
    assert terraform(tf_first, env, "init", "-no-color")[0] == 0
    theirs = (tf_first / ".terraform.lock.hcl").read_bytes()
    code, out, err = ours(tf_first, "init", "-no-color")
    assert code == 0 and "- Reusing previous version of hashicorp/null from the dependency lock file" in out
    assert (tf_first / ".terraform.lock.hcl").read_bytes() == theirs


def test_builtins_serve_offline_without_lock_entries(tmp_path: Path, monkeypatch) -> None:
    rc = 'provider_installation {\n  network_mirror {\n    url = "https://mirror.example.com/"\n  }\n  direct {}\n}\n'
    isolate(monkeypatch, tmp_path, rc)
    (tmp_path / "main.tf").write_text('terraform {\n  required_providers {\n    random = { source = "hashicorp/random",'
                                      ' version = "~> 3.5" }\n  }\n}\nresource "random_id" "a" {\n  byte_length = 4\n}\n'
                                      'resource "null_resource" "b" {}\nresource "time_static" "c" {}\n'
                                      'resource "terraform_data" "d" {}\n')
    code, out, err = ours(tmp_path, "init", "-no-color")
    assert code == 0, err
    for src in ("hashicorp/random", "hashicorp/null", "hashicorp/time"):
        assert f"- {src} is built in to tfconsole" in out
    assert "- terraform.io/builtin/terraform is built in to Terraform" in out
    assert not (tmp_path / ".terraform.lock.hcl").exists()
    assert "Terraform has been successfully initialized!" in out


def test_a_plugin_in_a_mirror_takes_over_a_builtin_source(tmp_path: Path, monkeypatch, null_mirror: Path) -> None:
    isolate(monkeypatch, tmp_path, mirror_rc(null_mirror))
    (tmp_path / "main.tf").write_text('resource "null_resource" "a" {}\nresource "random_id" "b" {\n  byte_length = 2\n}\n')
    code, out, err = ours(tmp_path, "init", "-no-color")
    assert code == 0, err
    assert "- Installed hashicorp/null v2.1.2 (unauthenticated)" in out
    assert "- hashicorp/random is built in to tfconsole" in out
    text = (tmp_path / ".terraform.lock.hcl").read_text()
    assert NULL in text and "random" not in text


def test_unavailable_provider_names_the_ways_to_provide_it(tmp_path: Path, monkeypatch, null_mirror: Path) -> None:
    env = isolate(monkeypatch, tmp_path, f'provider_installation {{\n  filesystem_mirror {{\n    path = "{null_mirror}"\n'
                  '    include = ["hashicorp/*"]\n  }\n  direct {\n    exclude = ["hashicorp/*"]\n  }\n}\n')
    main = 'terraform {\n  required_providers {\n    foo = { source = "acme/foo" }\n  }\n}\n'
    tf, us = pair(tmp_path, main)
    code2, out2, err2 = ours(us, "init", "-no-color")
    assert code2 == 1
    err2 = " ".join(err2.split())
    assert "provider registry.terraform.io/acme/foo was not found in any of the search locations" in err2
    assert "registry registry.terraform.io" in err2 and str(null_mirror) not in err2  # excluded by include
    for way in ("filesystem_mirror", "-plugin-dir", "dev_overrides"):
        assert way in err2
    code, out, err = terraform(tf, env, "init", "-no-color")
    assert code == 1 and out2 == out  # the same progress lines; Terraform then fails to reach the registry


def test_version_and_version_json(tmp_path: Path, monkeypatch, null_mirror: Path) -> None:
    env = isolate(monkeypatch, tmp_path, mirror_rc(null_mirror))
    tf, us = pair(tmp_path, NULL_MAIN)
    same_init(tf, us, env)
    code, out, err = terraform(tf, env, "version", "-json")
    theirs = json.loads(out)
    mine = json.loads(ours(us, "version", "-json")[1])
    assert mine["provider_selections"] == theirs["provider_selections"] == {NULL: "2.1.2"}
    assert mine["platform"] == theirs["platform"] and set(mine) == set(theirs)
    code, out, err = terraform(tf, env, "version")
    lines = ours(us, "version")[1].splitlines()
    assert lines[1:3] == out.splitlines()[1:3]


def test_providers_schema_json_for_the_builtin_terraform_provider(tmp_path: Path, monkeypatch) -> None:
    env = isolate(monkeypatch, tmp_path, "")
    tf, us = pair(tmp_path, 'resource "terraform_data" "a" {}\n')
    assert terraform(tf, env, "init", "-no-color")[0] == 0
    code, out, err = terraform(tf, env, "providers", "schema", "-json")
    theirs = json.loads(out)["provider_schemas"]["terraform.io/builtin/terraform"]
    code2, out2, err2 = ours(us, "providers", "schema", "-json")
    assert code2 == 0, err2
    doc = json.loads(out2)
    assert doc["format_version"] == "1.0"
    mine = doc["provider_schemas"]["terraform.io/builtin/terraform"]
    assert mine["resource_schemas"] == theirs["resource_schemas"]
    assert mine["provider"] == theirs["provider"]
    assert ours(us, "providers", "schema")[0] == 1


def test_invalid_configuration_is_reported_as_terraform_reports_it(tmp_path: Path, monkeypatch) -> None:
    env = isolate(monkeypatch, tmp_path, "")
    tf, us = pair(tmp_path, 'resource "null_resource" {\n}\n')
    code, out, err = terraform(tf, env, "init", "-no-color")
    code2, out2, err2 = ours(us, "init", "-no-color")
    assert (code2, out2) == (code, out)
    # the header Terraform puts before the configuration's own errors (which the loader words)
    head = err[:err.index("Error: Missing name for resource")]
    assert head.startswith("\nError: Terraform encountered problems during initialisation")
    assert err2.startswith(head)


def test_readonly_lock_file_and_no_backend(tmp_path: Path, monkeypatch, null_mirror: Path) -> None:
    env = isolate(monkeypatch, tmp_path, mirror_rc(null_mirror))
    tf, us = pair(tmp_path, NULL_MAIN)
    code, out, err = terraform(tf, env, "init", "-no-color", "-lockfile=readonly")
    assert ours(us, "init", "-no-color", "-lockfile=readonly") == (code, out, err)
    assert code == 1 and not (us / ".terraform.lock.hcl").exists()
    same_init(tf, us, env, "-backend=false", "-input=false")


def test_a_directory_terraform_initialised_stays_usable_offline(tmp_path: Path, monkeypatch, null_mirror: Path) -> None:
    """Terraform installed null from somewhere we cannot reach: the intact installed package is
    reused (and stays the plugin serving it), not replaced by the built-in or refused."""
    from tfconsole.providers.plugin.locate import provider_executable

    env = isolate(monkeypatch, tmp_path, mirror_rc(null_mirror))
    work = tmp_path / "work"
    work.mkdir()
    (work / "main.tf").write_text(NULL_MAIN)
    assert terraform(work, env, "init", "-no-color")[0] == 0
    lock = (work / ".terraform.lock.hcl").read_bytes()
    isolate(monkeypatch, tmp_path, "provider_installation {\n  direct {}\n}\n")
    code, out, err = ours(work, "init", "-no-color")
    assert code == 0, err
    assert "- Using previously-installed hashicorp/null v2.1.2" in out
    assert (work / ".terraform.lock.hcl").read_bytes() == lock
    assert provider_executable(str(work), NULL).endswith("terraform-provider-null_v2.1.2_x4")


def test_an_unchanged_module_manifest_is_not_rewritten(tmp_path: Path) -> None:
    """A warm init leaves .terraform/modules/modules.json alone when its records are the same
    (rewriting a file in place makes the filesystem flush it), and rewrites it when they change."""
    import subprocess
    import sys

    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "main.tf").write_text('output "o" {\n  value = 1\n}\n')
    (tmp_path / "main.tf").write_text('module "a" {\n  source = "./m"\n}\n')
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), CHECKPOINT_DISABLE="1", TF_CLI_CONFIG_FILE=os.devnull)

    def init() -> None:
        p = subprocess.run([sys.executable, "-m", "tfconsole", f"-chdir={tmp_path}", "init", "-no-color"],
                           capture_output=True, text=True, env=env, timeout=300, check=False)
        assert p.returncode == 0, p.stdout + p.stderr

    init()
    manifest = tmp_path / ".terraform" / "modules" / "modules.json"
    first = manifest.stat()
    os.utime(manifest, ns=(first.st_atime_ns, first.st_mtime_ns - 10**9))  # as if written a second ago
    before = manifest.stat().st_mtime_ns
    init()
    assert manifest.stat().st_mtime_ns == before
    (tmp_path / "main.tf").write_text('module "a" {\n  source = "./m"\n}\nmodule "b" {\n  source = "./m"\n}\n')
    init()
    assert [m["Key"] for m in json.loads(manifest.read_text())["Modules"]] == ["", "a", "b"]
