"""The built-in local provider: local_file, local_sensitive_file and their data sources."""
from __future__ import annotations

import base64
import hashlib
import os
import stat
from pathlib import Path

import pytest

from tfconsole.lang.types import STRING
from tfconsole.lang.values import Unknown
from tfconsole.providers.builtin import _harness as h
from tfconsole.providers.builtin.local import LocalProvider
from tfconsole.providers.registry import default_registry


@pytest.fixture
def p(tmp_path: Path) -> LocalProvider:
    return LocalProvider(base_dir=str(tmp_path))


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_registered() -> None:
    assert isinstance(default_registry().create("hashicorp/local"), LocalProvider)


def test_schema(p: LocalProvider) -> None:
    a = p.resource_schemas()["local_file"].block.attributes
    assert a["filename"].required and a["filename"].force_new
    assert a["sensitive_content"].sensitive and not a["content"].sensitive
    assert a["content_sha256"].computed and not a["content_sha256"].optional
    s = p.resource_schemas()["local_sensitive_file"].block.attributes
    assert s["content"].sensitive and s["content_base64"].sensitive and "sensitive_content" not in s
    d = p.data_source_schemas()["local_sensitive_file"].block.attributes
    assert d["content"].sensitive and d["content"].computed


def test_create_relative_to_base_dir(p: LocalProvider, tmp_path: Path) -> None:
    plan = h.plan(p, "local_file", None, {"filename": "sub/dir/out.txt", "content": "hello\n"})
    assert plan.planned["id"] == Unknown(STRING)
    assert plan.planned["file_permission"] == "0777" and plan.planned["directory_permission"] == "0777"
    st = h.create(p, "local_file", {"filename": "sub/dir/out.txt", "content": "hello\n"})
    target = tmp_path / "sub" / "dir" / "out.txt"
    assert target.read_bytes() == b"hello\n"
    data = b"hello\n"
    assert st["id"] == hashlib.sha1(data).hexdigest() == st["content_sha1"]
    assert st["content_md5"] == hashlib.md5(data).hexdigest()
    assert st["content_sha256"] == hashlib.sha256(data).hexdigest()
    assert st["content_base64sha256"] == base64.b64encode(hashlib.sha256(data).digest()).decode()
    assert st["content_sha512"] == hashlib.sha512(data).hexdigest()
    assert st["content_base64sha512"] == base64.b64encode(hashlib.sha512(data).digest()).decode()
    assert st["filename"] == "sub/dir/out.txt"  # as configured, not resolved


def test_permissions(p: LocalProvider, tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        h.create(p, "local_file", {"filename": "d1/d2/f", "content": "x", "file_permission": "0640",
                                   "directory_permission": "0750"})
    finally:
        os.umask(old)
    assert mode(tmp_path / "d1/d2/f") == 0o640
    assert mode(tmp_path / "d1/d2") == 0o750
    assert mode(tmp_path / "d1") == 0o750
    old = os.umask(0)
    try:
        h.create(p, "local_sensitive_file", {"filename": "s/secret", "content": "pw"})
    finally:
        os.umask(old)
    assert mode(tmp_path / "s/secret") == 0o700 and mode(tmp_path / "s") == 0o700


def test_permission_validation(p: LocalProvider) -> None:
    d = p.validate_resource("local_file", {"filename": "f", "content": "x", "file_permission": "999"})
    assert d.errors()[0].summary == "Invalid File Permission String Value"
    assert "octal" in d.errors()[0].detail
    d = p.validate_resource("local_file", {"filename": "f", "content": "x", "file_permission": "07777"})
    assert "3 or 4 digits" in d.errors()[0].detail


def test_permission_semantic_equality(p: LocalProvider) -> None:
    st = h.create(p, "local_file", {"filename": "f", "content": "x", "file_permission": "0644"})
    resp = h.plan(p, "local_file", st, {"filename": "f", "content": "x", "file_permission": "644"})
    assert resp.requires_replace == []
    resp = h.plan(p, "local_file", st, {"filename": "f", "content": "x", "file_permission": "0600"})
    assert resp.requires_replace == [("file_permission",)]


def test_content_sources(p: LocalProvider, tmp_path: Path) -> None:
    st = h.create(p, "local_file", {"filename": "b64", "content_base64": base64.b64encode(b"\x00\xffbin").decode()})
    assert (tmp_path / "b64").read_bytes() == b"\x00\xffbin"
    assert st["id"] == hashlib.sha1(b"\x00\xffbin").hexdigest()
    (tmp_path / "src.txt").write_text("from source")
    h.create(p, "local_file", {"filename": "copy", "source": "src.txt"})
    assert (tmp_path / "copy").read_text() == "from source"
    h.create(p, "local_file", {"filename": "sens", "sensitive_content": "s3cret"})
    assert (tmp_path / "sens").read_text() == "s3cret"
    with pytest.raises(h.ProviderError, match="Create local file error"):
        h.create(p, "local_file", {"filename": "bad", "content_base64": "%%%"})
    with pytest.raises(h.ProviderError, match="no such file or directory"):
        h.create(p, "local_file", {"filename": "bad2", "source": "missing.txt"})


def test_exactly_one_content(p: LocalProvider) -> None:
    d = p.validate_resource("local_file", {"filename": "f"})
    assert d.errors()[0].summary == "Invalid Attribute Combination"
    assert d.errors()[0].detail.startswith("No attribute specified when one (and only one) of [")
    d = p.validate_resource("local_file", {"filename": "f", "content": "a", "source": "b"})
    assert d.errors()[0].detail.startswith("2 attributes specified")
    d = p.validate_resource("local_file", {"filename": "f", "content": Unknown(STRING)})
    assert not d.has_errors
    d = p.validate_resource("local_file", {"filename": "f", "sensitive_content": "x"})
    assert [w.summary for w in d.warnings()] == ["Attribute Deprecated"]
    d = p.validate_resource("local_file", {"content": "x"})
    assert d.errors()[0].summary == "Missing required argument"


def test_noop_and_replace_on_change(p: LocalProvider, tmp_path: Path) -> None:
    cfg = {"filename": "f.txt", "content": "one"}
    st = h.create(p, "local_file", cfg)
    assert h.read(p, "local_file", st) == st
    assert h.apply_config(p, "local_file", st, cfg).action == "noop"
    ch = h.apply_config(p, "local_file", st, {"filename": "f.txt", "content": "two"})
    assert ch.action == "replace" and ch.plan.requires_replace == [("content",)]
    assert ch.plan.planned["id"] == Unknown(STRING)
    assert (tmp_path / "f.txt").read_text() == "two"
    assert ch.state["id"] == hashlib.sha1(b"two").hexdigest()
    ch2 = h.apply_config(p, "local_file", ch.state, {"filename": "g.txt", "content": "two"})
    assert ch2.action == "replace"
    assert not (tmp_path / "f.txt").exists() and (tmp_path / "g.txt").read_text() == "two"


def test_drift_deleted(p: LocalProvider, tmp_path: Path) -> None:
    cfg = {"filename": "f.txt", "content": "keep"}
    st = h.create(p, "local_file", cfg)
    (tmp_path / "f.txt").unlink()
    assert h.read(p, "local_file", st) is None
    # the engine then plans a create, which writes the file again
    st2 = h.create(p, "local_file", cfg)
    assert (tmp_path / "f.txt").read_text() == "keep" and st2["id"] == st["id"]


def test_drift_edited(p: LocalProvider, tmp_path: Path) -> None:
    st = h.create(p, "local_sensitive_file", {"filename": "f.txt", "content": "orig"})
    (tmp_path / "f.txt").write_text("edited outside")
    assert h.read(p, "local_sensitive_file", st) is None
    (tmp_path / "f.txt").write_text("orig")
    assert h.read(p, "local_sensitive_file", st) == st


def test_delete(p: LocalProvider, tmp_path: Path) -> None:
    st = h.create(p, "local_file", {"filename": "f.txt", "content": "x"})
    h.destroy(p, "local_file", st)
    assert not (tmp_path / "f.txt").exists()
    h.destroy(p, "local_file", st)  # already gone: not an error


def test_overwrites_existing(p: LocalProvider, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("previous content that is longer")
    h.create(p, "local_file", {"filename": "f.txt", "content": "new"})
    assert (tmp_path / "f.txt").read_text() == "new"


def test_absolute_filename(p: LocalProvider, tmp_path: Path) -> None:
    target = tmp_path / "abs" / "x.txt"
    st = h.create(p, "local_file", {"filename": str(target), "content": "abs"})
    assert target.read_text() == "abs" and st["filename"] == str(target)


def test_data_local_file(p: LocalProvider, tmp_path: Path) -> None:
    (tmp_path / "in.bin").write_bytes(b"text \xff\xfe")
    st, d = h.read_data(p, "local_file", {"filename": "in.bin"})
    assert not d.has_errors
    assert st["content"] == "text \ufffd\ufffd"
    assert base64.b64decode(st["content_base64"]) == b"text \xff\xfe"
    assert st["id"] == hashlib.sha1(b"text \xff\xfe").hexdigest()
    assert st["content_sha512"] == hashlib.sha512(b"text \xff\xfe").hexdigest()
    st, d = h.read_data(p, "local_sensitive_file", {"filename": "in.bin"})
    assert st["content_md5"] == hashlib.md5(b"text \xff\xfe").hexdigest()
    st, d = h.read_data(p, "local_file", {"filename": "nope"})
    assert st is None and d.errors()[0].summary == "Read local file data source error"
    assert "no such file or directory" in d.errors()[0].detail
