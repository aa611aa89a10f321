"""The lock file: h1/zh hashes (checked against the hashes real Terraform records), reading with
Terraform's diagnostics, and writing Terraform's bytes."""
from __future__ import annotations

import hashlib
import re
import zipfile
from pathlib import Path

from _install_util import PLATFORM, isolate, mirror_rc, put_packed, put_unpacked, terraform

from tfconsole.providers.plugin import lockfile
from tfconsole.providers.plugin.lockfile import Locks, ProviderLock
from tfconsole.providers.plugin.provider_addr import parse_source
from tfconsole.providers.plugin.versions import parse_constraints, parse_version


def test_h1_of_a_single_file_follows_the_documented_definition(tmp_path: Path) -> None:
    (tmp_path / "terraform-provider-x").write_bytes(b"hello")
    line = f"{hashlib.sha256(b'hello').hexdigest()}  terraform-provider-x\n".encode()
    import base64

    want = "h1:" + base64.b64encode(hashlib.sha256(line).digest()).decode()
    assert lockfile.hash_dir(str(tmp_path)) == want


def test_h1_and_zh_agree_with_terraform(tmp_path: Path, monkeypatch) -> None:
    """A package of several files, unpacked and packed: Terraform's lock file records the same h1
    for both layouts, and so do we."""
    unpacked, packed = tmp_path / "unpacked", tmp_path / "packed"
    d = put_unpacked(unpacked, "example.com/test/multi", "1.0.0", b"#!/bin/sh\nexit 0\n")
    (d / "docs").mkdir()
    (d / "docs" / "README.txt").write_text("readme\n")
    (d / "LICENSE").write_text("license text\n")
    z = put_packed(packed, "example.com/test/zipped", "1.0.0", b"#!/bin/sh\nexit 1\n")
    with zipfile.ZipFile(z, "a") as zf:
        zf.writestr("docs/README.txt", "readme\n")
    env = isolate(monkeypatch, tmp_path, mirror_rc(unpacked, packed))
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "main.tf").write_text('terraform {\n  required_providers {\n'
                                 '    multi = { source = "example.com/test/multi" }\n'
                                 '    zipped = { source = "example.com/test/zipped" }\n  }\n}\n')
    code, out, err = terraform(cfg, env, "init", "-no-color")
    assert code == 0, err
    locks, diags = lockfile.load(str(cfg / ".terraform.lock.hcl"))
    assert not diags
    multi = locks.get(parse_source("example.com/test/multi"))
    zipped = locks.get(parse_source("example.com/test/zipped"))
    assert multi.hashes == (lockfile.hash_dir(str(d)),)
    assert zipped.hashes == (lockfile.hash_zip(str(z)),)
    installed = cfg / ".terraform" / "providers" / "example.com" / "test" / "zipped" / "1.0.0" / PLATFORM
    assert lockfile.hash_dir(str(installed)) == zipped.hashes[0]
    # zh: is the archive's sha256; it matches the archive and never an unpacked directory
    zh = "zh:" + hashlib.sha256(z.read_bytes()).hexdigest()
    assert lockfile.hash_zip_legacy(str(z)) == zh
    assert lockfile.package_matches(str(z), [zh]) and not lockfile.package_matches(str(installed), [zh])


def test_workato_mirror_hash_matches_terraform(tmp_path: Path, monkeypatch, workato_mirror: str) -> None:
    """A real multi-platform mirror (Go binaries of 25 MB): the lock entry Terraform writes equals ours."""
    from _install_util import ours

    env = isolate(monkeypatch, tmp_path, mirror_rc(Path(workato_mirror)))
    main = 'terraform {\n  required_providers {\n    workato = { source = "local/workato", version = "~> 0.16" }\n  }\n}\n'
    for who in ("tf", "us"):
        (tmp_path / who).mkdir()
        (tmp_path / who / "main.tf").write_text(main)
    assert terraform(tmp_path / "tf", env, "init", "-no-color")[0] == 0
    code, out, err = ours(tmp_path / "us", "init", "-no-color")
    assert code == 0, err
    assert (tmp_path / "us" / ".terraform.lock.hcl").read_bytes() == (tmp_path / "tf" / ".terraform.lock.hcl").read_bytes()
    link = tmp_path / "us" / ".terraform/providers/registry.terraform.io/local/workato/0.16.0" / PLATFORM
    assert link.is_symlink() and (tmp_path / "tf" / ".terraform/providers/registry.terraform.io/local/workato/0.16.0"
                                  / PLATFORM).readlink() == link.readlink()


TERRAFORM_WRITTEN = '''# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "registry.terraform.io/hashicorp/aws" {
  version     = "5.31.0"
  constraints = ">= 4.0.0, ~> 5.0"
  hashes = [
    "h1:ltxyuBWIy9cq0kIKDJH1jeWJy/y7XJLjS4QrsQK4plA=",
    "zh:0cdb9c2083bf0902442384f7309367791e4640581652dda456f2d6d7abf0de8d",
    "zh:2fe4884cb9642f48a5889f8dff8f5f511418a18537a9dfa77ada3bcdad391e4e",
  ]
}

provider "registry.terraform.io/hashicorp/null" {
  version = "3.2.2"
  hashes = [
    "h1:zT1ZbegaAYHwQa+QwIFugArWikRJI9dqohj8xb0GY88=",
  ]
}

provider "tfe.example.com/acme/widget" {
  version = "0.1.0-beta.2"
}
'''


def test_terraform_lock_file_round_trips_byte_for_byte() -> None:
    locks, diags = lockfile.parse(TERRAFORM_WRITTEN)
    assert not diags
    assert lockfile.render(locks) == TERRAFORM_WRITTEN
    aws = locks.get(parse_source("hashicorp/aws"))
    assert str(aws.version) == "5.31.0" and len(aws.hashes) == 3


def test_render_sorts_providers_and_hashes_and_aligns() -> None:
    locks = Locks()
    for src, ver, cs, hashes in [("hashicorp/null", "2.1.2", "~> 2.1", ["h1:b=", "h1:a="]),
                                 ("example.com/a/b", "1.0.0", "", ["zh:00", "h1:c="])]:
        locks.set(ProviderLock.new(parse_source(src), parse_version(ver), parse_constraints(cs), hashes))
    text = lockfile.render(locks)
    assert text.index('provider "example.com/a/b"') < text.index('provider "registry.terraform.io/hashicorp/null"')
    assert '  version     = "2.1.2"\n  constraints = "~> 2.1"\n  hashes = [\n    "h1:a=",\n    "h1:b=",\n  ]\n' in text
    assert '  version = "1.0.0"\n  hashes = [\n    "h1:c=",\n    "zh:00",\n  ]\n}\n' in text


def test_save_is_atomic_and_0644(tmp_path: Path) -> None:
    locks, _ = lockfile.parse(TERRAFORM_WRITTEN)
    path = tmp_path / ".terraform.lock.hcl"
    assert not lockfile.save(locks, str(path))
    assert path.read_text() == TERRAFORM_WRITTEN
    assert path.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == [".terraform.lock.hcl"]


def test_invalid_lock_files_report_terraforms_errors_at_their_lines() -> None:
    bad = ('provider "hashicorp/null" {\n  version = "1.0.0"\n}\n'
           'provider "registry.terraform.io/hashicorp/a" {\n  version = "v1.0"\n}\n'
           'provider "registry.terraform.io/hashicorp/b" {\n  version = "1.0"\n}\n'
           'provider "registry.terraform.io/hashicorp/c" {\n  version = "1.0.0"\n  constraints = ">=1.0"\n'
           '  hashes = ["nocolon"]\n}\n'
           'provider "registry.terraform.io/hashicorp/c" {\n  version = "1.0.0"\n}\n'
           'provider "terraform.io/builtin/terraform" {\n  version = "1.0.0"\n}\n'
           'module "x" {\n}\n')
    locks, diags = lockfile.parse(bad)
    got = [(d.summary, d.subject.start.line, d.is_error) for d in diags]
    assert ("Non-normalized provider source address", 1, True) in got
    assert ("Invalid provider version number", 5, True) in got
    assert ("Invalid provider version number", 8, True) in got  # "1.0" is not normalised
    assert ("Invalid provider version constraints", 12, True) in got
    assert ("Invalid provider hash string", 13, True) in got
    assert ("Duplicate provider lock", 15, True) in got
    assert ("Invalid provider source address", 18, True) in got
    assert ("Dependency locks for modules are not yet supported", 21, False) in got
    details = " ".join(d.detail for d in diags)
    assert 'must be written as "registry.terraform.io/hashicorp/null"' in details
    assert re.search(r'must be written in normalized form: ">= 1\.0\.0"', details)
