"""Version constraints: unit cases, then Terraform's own choices (differential): which version
`init` selects and how it normalises constraints in the lock file, and which required_version
constraints it rejects."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _install_util import isolate, mirror_rc, ours, put_unpacked, terraform, terraform_version

from tfconsole.providers.plugin.versions import (
    Version,
    VersionError,
    constraints_string,
    parse_constraints,
    parse_loose,
    parse_version,
)

AVAILABLE = ["0.9.0", "1.0.0", "1.2.0", "1.2.5", "1.3.0", "2.0.0-beta1", "2.0.0", "2.1.0-rc1", "2.1.0", "3.0.0"]


def allowed(spec: str) -> list[str]:
    cs = parse_constraints(spec)
    return [s for s in AVAILABLE if cs.allows(parse_version(s))]


@pytest.mark.parametrize("spec,want", [
    ("~> 1.2", ["1.2.0", "1.2.5", "1.3.0"]),
    ("~> 1.2.0", ["1.2.0", "1.2.5"]),
    ("~> 1", ["1.0.0", "1.2.0", "1.2.5", "1.3.0"]),
    (">= 1.2, < 2.0.0", ["1.2.0", "1.2.5", "1.3.0"]),
    ("> 1.2.5, <= 2.0.0", ["1.3.0", "2.0.0"]),
    ("!= 1.2.5, ~> 1.2", ["1.2.0", "1.3.0"]),
    ("1.2", ["1.2.0"]),
    ("= 2.0.0-beta1", ["2.0.0-beta1"]),
    (">= 2.0.0-beta1", ["2.0.0", "2.1.0", "3.0.0"]),  # a prerelease only where = names it
    ("2.1.0-rc1, >= 2.1.0-rc1", ["2.1.0-rc1"]),
    ("< 1", ["0.9.0"]),
])
def test_provider_constraints_select(spec: str, want: list[str]) -> None:
    assert allowed(spec) == want


@pytest.mark.parametrize("spec,norm", [
    ("~>1.2", "~> 1.2"), (">=1.0,<2", ">= 1.0.0, < 2.0.0"), ("~> 1", "~> 1.0"), ("1.2", "1.2.0"),
    ("< 2, >= 1.0, >= 1.0.0", ">= 1.0.0, < 2.0.0"), ("!= 1.5.0, ~> 1.0.3, > 1.0", "> 1.0.0, ~> 1.0.3, != 1.5.0"),
    ("= 2.0.0-beta1", "2.0.0-beta1"),
])
def test_constraints_string_normalises(spec: str, norm: str) -> None:
    assert constraints_string(parse_constraints(spec)) == norm


@pytest.mark.parametrize("spec,message", [
    (">=  1.0", 'invalid specification ">=  1.0": only one space is expected after the operator ">="'),
    ("v1.0", 'invalid specification "v1.0": a "v" prefix should not be used when specifying versions'),
    ("1.2.3.4", 'invalid specification "1.2.3.4": too many numbered portions; only three are allowed (major, '
                "minor, patch)"),
    ("=> 1.0", 'invalid specification "=> 1.0": invalid constraint operator "=>"; did you mean ">="?'),
    ("1.* ", "invalid specification \"1.*\": can't use wildcard for minor number; omit segments that should be "
             "unconstrained"),
    ("1.0 2.0", 'missing comma after "1.0"'),
])
def test_strict_syntax_errors(spec: str, message: str) -> None:
    with pytest.raises(VersionError) as exc:
        parse_constraints(spec)
    assert str(exc.value) == message


def test_version_ordering_and_exact_parsing() -> None:
    vs = [parse_version(s) for s in ["1.0.0", "1.0.0-rc.10", "1.0.0-rc.2", "1.0.0-beta", "0.9.9", "1.0.0-rc.a"]]
    assert [str(v) for v in sorted(vs)] == ["0.9.9", "1.0.0-beta", "1.0.0-rc.2", "1.0.0-rc.10", "1.0.0-rc.a",
                                            "1.0.0"]
    assert parse_version("1.2") == Version(1, 2, 0)
    for bad in (">= 1.0", "v1.0", "1.0, 2.0", " 1.0"):
        with pytest.raises(VersionError):
            parse_version(bad)


@pytest.mark.parametrize("spec,ok", [
    ("~> 0", True), ("~> 1", True), ("~> 1.14", True), ("~> 1.14.0", False), (">= 1.15, < 2", True),
    ("v1.15.0", True), (">=   1.0", True), ("< 1.15.0.1", True), ("= 1.15", True), ("!= 1.15.0", False),
])
def test_core_constraints(spec: str, ok: bool) -> None:
    assert parse_loose(spec).allows(parse_version("1.15.0"), core=True) is ok


def test_loose_grammar_rejects_what_terraform_rejects() -> None:
    for bad in ("~>", ">= one", "1.0 || 2.0", "1..0"):
        with pytest.raises(VersionError):
            parse_loose(bad)


# ---------------------------------------------------------------------------
# differential: Terraform's init decides which version each constraint selects

DIFF_SPECS = ["~> 1.2", "~> 1.2.0", "~> 1", ">= 1.2, < 2.0.0", "> 1.2.5, <= 2.0.0", "!= 1.3.0, ~> 1.2", "1.2",
              "2.0.0-beta1", ">= 2.0.0-beta1", "< 1", ">=1.0,<3", "~> 2.0", "~>2.1.0, != 2.1.0", "> 3"]


def _workspaces(tmp_path: Path, monkeypatch, specs: list[str]) -> tuple[dict[str, str], Path, Path]:
    """A mirror with every AVAILABLE version of providers p0..pN, one per constraint, and two working
    directories requiring them: one for Terraform, one for tfconsole."""
    mirror = tmp_path / "mirror"
    for i in range(len(specs)):
        for v in AVAILABLE:
            put_unpacked(mirror, f"example.com/test/p{i}", v, f"#!/bin/sh\necho p{i} {v}\n".encode())
    env = isolate(monkeypatch, tmp_path, mirror_rc(mirror))
    lines = [f'    p{i} = {{ source = "example.com/test/p{i}", version = "{s}" }}' for i, s in enumerate(specs)]
    main = "terraform {\n  required_providers {\n" + "\n".join(lines) + "\n  }\n}\n"
    for who in ("tf", "us"):
        (tmp_path / who).mkdir()
        (tmp_path / who / "main.tf").write_text(main)
    return env, tmp_path / "tf", tmp_path / "us"


def test_init_selects_versions_as_terraform_does(tmp_path: Path, monkeypatch) -> None:
    env, tf, us = _workspaces(tmp_path, monkeypatch, DIFF_SPECS)
    code, out, err = terraform(tf, env, "init", "-no-color")
    code2, out2, err2 = ours(us, "init", "-no-color")
    assert code == code2 == 1  # "> 3" matches nothing
    assert _errors(err) == _errors(err2)
    assert _installed(out) == _installed(out2)
    assert sorted(_finding(out)) == sorted(_finding(out2))


def _installed(out: str) -> list[str]:
    return sorted(re.findall(r"- Installed (\S+ v\S+)", out))


def _finding(out: str) -> list[str]:
    return re.findall(r"- Finding .*", out)


def _errors(err: str) -> list[str]:
    return sorted(" ".join(b.split()) for b in re.split(r"\n(?=Error: )", err.strip()) if b.strip())


def test_lock_file_constraints_match_terraform(tmp_path: Path, monkeypatch) -> None:
    """The lock file (constraints normalised, hashes) is the same bytes as Terraform's."""
    specs = [s for s in DIFF_SPECS if s not in ("> 3", "~>2.1.0, != 2.1.0")]  # both match nothing
    env, _, _ = _workspaces(tmp_path, monkeypatch, specs)
    assert terraform(tmp_path / "tf", env, "init", "-no-color")[0] == 0
    assert ours(tmp_path / "us", "init", "-no-color")[0] == 0
    assert (tmp_path / "us" / ".terraform.lock.hcl").read_bytes() == (tmp_path / "tf" / ".terraform.lock.hcl").read_bytes()


CORE_SPECS = ["~> 0", "~> 1", "~> 1.15", "~> 1.15.0", "~> 1.14.0", ">= 1.15, < 2", "< 1.15", "!= 1.15.0",
              "v1.15", ">= 1.0.0, <= 1.14.9", "= 1.15", "~> 2.0", "< 1.15.0.1", ">=1.2.3", "> 1.15.0"]


def test_required_version_as_terraform_checks_it(tmp_path: Path, monkeypatch) -> None:
    """Each constraint in its own terraform block: Terraform's validate names the lines it rejects."""
    from tfconsole.config.loader import check_core_version, load_config

    env = isolate(monkeypatch, tmp_path)
    d = tmp_path / "cfg"
    d.mkdir()
    (d / "main.tf").write_text("".join(f'terraform {{\n  required_version = "{s}"\n}}\n' for s in CORE_SPECS))
    code, out, err = terraform(d, env, "validate", "-json")
    theirs = sorted(diag["range"]["start"]["line"] for diag in json.loads(out)["diagnostics"]
                    if diag["summary"] == "Unsupported Terraform Core version")
    version = terraform_version(env, tmp_path)
    root, _ = load_config(str(d))
    mine = check_core_version(root, version)
    assert sorted(x.subject.start.line for x in mine) == theirs
    assert theirs, "some constraints must fail"
    detail = next(diag["detail"] for diag in json.loads(out)["diagnostics"])
    assert [x.detail for x in mine][0] == detail


def test_required_version_error_text_on_the_cli(tmp_path: Path, monkeypatch) -> None:
    isolate(monkeypatch, tmp_path)
    (tmp_path / "main.tf").write_text('terraform {\n  required_version = ">= 9.0"\n}\n')
    code, out, err = ours(tmp_path, "init", "-no-color")
    assert code == 1
    assert "Error: Unsupported Terraform Core version" in err
    assert "on main.tf line 2, in terraform:" in err
    assert "does not support Terraform version 1.15" in err
