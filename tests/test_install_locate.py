"""Which executable serves a provider source after init, and the checks an operation makes first
(Terraform's "Inconsistent dependency lock file"), plus schemas of built-in providers."""
from __future__ import annotations

import json
from pathlib import Path

from _install_util import PLATFORM, isolate, mirror_rc, ours, put_unpacked, terraform

from tfconsole.command.views import format_diagnostic
from tfconsole.config.loader import load_config
from tfconsole.providers.plugin.locate import (
    check_installed,
    check_selections,
    provider_executable,
)
from tfconsole.providers.preflight import schema_of
from tfconsole.providers.plugin.requirements import module_requirements

THING = "example.com/test/thing"


def _setup(tmp_path: Path, monkeypatch, constraint: str = "~> 1.0") -> tuple[Path, dict[str, str]]:
    mirror = tmp_path / "mirror"
    for v in ("1.0.0", "1.1.0"):
        put_unpacked(mirror, THING, v, f"#!/bin/sh\necho {v}\n".encode())
    env = isolate(monkeypatch, tmp_path, mirror_rc(mirror))
    work = tmp_path / "work"
    work.mkdir()
    (work / "main.tf").write_text('terraform {\n  required_providers {\n    thing = { source = "example.com/test/thing", '
                                  f'version = "{constraint}" }}\n  }}\n}}\n')
    return work, env


def test_provider_executable_follows_the_lock_file(tmp_path: Path, monkeypatch) -> None:
    work, _ = _setup(tmp_path, monkeypatch)
    assert provider_executable(str(work), THING) is None  # nothing selected yet
    assert ours(work, "init", "-no-color")[0] == 0
    exe = provider_executable(str(work), THING)
    assert exe == str(work / ".terraform/providers" / THING / "1.1.0" / PLATFORM / "terraform-provider-thing_v1.1.0")
    assert provider_executable(str(work), "registry.terraform.io/hashicorp/null") is None
    assert not check_installed(str(work))


def test_missing_package_is_reported_unless_a_builtin_serves_it(tmp_path: Path, monkeypatch) -> None:
    work, _ = _setup(tmp_path, monkeypatch)
    assert ours(work, "init", "-no-color")[0] == 0
    import shutil

    shutil.rmtree(work / ".terraform")
    detail = list(check_installed(str(work)))[0].detail
    assert f"  - {THING}: there is no package for {THING} 1.1.0 cached in .terraform/providers" in detail
    assert not check_installed(str(work), {THING})


def test_inconsistent_lock_file_as_terraform_reports_it(tmp_path: Path, monkeypatch) -> None:
    work, env = _setup(tmp_path, monkeypatch)
    assert ours(work, "init", "-no-color")[0] == 0
    (work / "main.tf").write_text((work / "main.tf").read_text().replace("~> 1.0", ">= 2.0").replace(
        "  }\n}", '    other = { source = "example.com/test/other" }\n  }\n}'))
    code, out, err = terraform(work, env, "plan", "-no-color")
    assert code == 1
    root, _ = load_config(str(work))
    reqs = module_requirements(root)[0].flatten()
    diags = check_selections(str(work), reqs)
    assert format_diagnostic(list(diags)[0], color=False).strip() == err.strip()


def test_schema_of_builtins(tmp_path: Path, monkeypatch) -> None:
    isolate(monkeypatch, tmp_path, "")
    doc = schema_of(str(tmp_path), "registry.terraform.io/hashicorp/random")
    assert doc is not None
    rid = doc["resource_schemas"]["random_id"]["block"]
    assert rid["attributes"]["byte_length"]["required"] is True
    assert rid["attributes"]["byte_length"]["type"] == "number"
    assert rid["description_kind"] == "plain"
    assert schema_of(str(tmp_path), "registry.terraform.io/acme/unknown") is None
    (tmp_path / "main.tf").write_text('resource "random_id" "a" {\n  byte_length = 2\n}\n')
    code, out, err = ours(tmp_path, "providers", "schema", "-json")
    assert code == 0, err
    assert json.loads(out)["provider_schemas"]["registry.terraform.io/hashicorp/random"] == doc
    assert out.strip() == json.dumps(json.loads(out), separators=(",", ":"), ensure_ascii=False)  # Go's compact form
