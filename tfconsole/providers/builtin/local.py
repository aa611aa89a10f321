"""The `local` provider (registry.terraform.io/hashicorp/local).

local_file and local_sensitive_file resources, data local_file and data local_sensitive_file.
Every argument forces replacement. Read removes the object from state when the file is gone or
its SHA-1 no longer matches `id`, so the next plan re-creates it. Relative paths resolve
against the provider's working directory (`base_dir`), as terraform resolves them against the
directory it runs in.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import os
import stat
from typing import Any

from tfconsole.diags import Diagnostics
from tfconsole.lang.types import STRING

from ._framework import A, DataSourceType, FrameworkProvider, ResourceType, exactly_one_of


def _permission_validator(name: str, value: Any, config: dict, diags: Diagnostics) -> None:
    if not isinstance(value, str):
        return
    if len(value) < 3 or len(value) > 4:
        diags.error("Invalid File Permission String Value",
                    f"bad mode permission: string length should be 3 or 4 digits: {value}")
        return
    try:
        mode = int(value, 8)
    except ValueError:
        mode = -1
    if mode < 0 or mode > 0o777 or not all(c in "01234567" for c in value):
        diags.error("Invalid File Permission String Value",
                    f"bad mode permission: string must be expressed in octal numeric notation: {value}")


def _permission_equal(a: str, b: str) -> bool:
    return int(a, 8) == int(b, 8)


def _perm(default: str) -> A:
    return A(STRING, optional=True, computed=True, default=default, force_new=True,
             validators=(_permission_validator,), semantic_equal=_permission_equal)


CHECKSUM_ATTRS = {
    "id": A(STRING, computed=True, description="The hexadecimal encoding of the SHA1 checksum of the file content."),
    "content_md5": A(STRING, computed=True),
    "content_sha1": A(STRING, computed=True),
    "content_sha256": A(STRING, computed=True),
    "content_base64sha256": A(STRING, computed=True),
    "content_sha512": A(STRING, computed=True),
    "content_base64sha512": A(STRING, computed=True),
}


def checksums(content: bytes) -> dict[str, str]:
    sha256 = hashlib.sha256(content).digest()
    sha512 = hashlib.sha512(content).digest()
    sha1 = hashlib.sha1(content).hexdigest()  # noqa: S324 - the provider's id is a SHA-1
    return {
        "id": sha1,
        "content_md5": hashlib.md5(content).hexdigest(),  # noqa: S324
        "content_sha1": sha1,
        "content_sha256": sha256.hex(),
        "content_base64sha256": base64.b64encode(sha256).decode(),
        "content_sha512": sha512.hex(),
        "content_base64sha512": base64.b64encode(sha512).decode(),
    }


def _go_err(exc: OSError, op: str, path: str) -> str:
    """An OSError as Go's *PathError prints ("open x: no such file or directory")."""
    reason = (exc.strerror or str(exc)).lower() if exc.strerror else str(exc)
    return f"{op} {path}: {reason}"


class _FileResource(ResourceType):
    content_attrs: list[str] = []
    err_summary = "Create local file error"

    def validate(self, config: dict[str, Any], diags: Diagnostics) -> None:
        exactly_one_of(self.content_attrs, config, diags)

    def _content(self, planned: dict[str, Any]) -> bytes:
        if planned.get("sensitive_content") is not None:
            return planned["sensitive_content"].encode("utf-8")
        if planned.get("content_base64") is not None:
            text = planned["content_base64"]
            try:
                return base64.b64decode(text.encode("ascii"), validate=True)
            except (binascii.Error, ValueError, UnicodeEncodeError):
                raise ValueError(f"illegal base64 data at input byte {_first_bad_b64(text)}") from None
        if planned.get("source") is not None:
            src = planned["source"]
            try:
                with open(self.p.path(src), "rb") as fh:
                    return fh.read()
            except OSError as exc:
                raise ValueError(_go_err(exc, "open", src)) from None
        return (planned.get("content") or "").encode("utf-8")

    def create(self, planned: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        try:
            content = self._content(planned)
        except ValueError as exc:
            diags.error(self.err_summary,
                        f"An unexpected error occurred while parsing local file content\n\n+Original Error: {exc}")
            return None
        filename = planned["filename"]
        dest = self.p.path(filename)
        dest_dir = os.path.dirname(dest) or "."
        if not os.path.exists(dest_dir):
            try:
                _mkdir_all(dest_dir, int(planned.get("directory_permission") or "0777", 8))
            except OSError as exc:
                diags.error(self.err_summary,
                            "An unexpected error occurred while creating file directory\n\n+"
                            f"Original Error: {_go_err(exc, 'mkdir', os.path.dirname(filename))}")
                return None
        mode = int(planned.get("file_permission") or "0777", 8)
        try:
            # as os.WriteFile: the mode (before umask) applies when the file is created
            fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
            with os.fdopen(fd, "wb") as fh:
                fh.write(content)
        except OSError as exc:
            diags.error(self.err_summary, "An unexpected error occurred while writing the file\n\n+"
                        f"Original Error: {_go_err(exc, 'open', filename)}")
            return None
        state = dict(planned)
        state.update(checksums(content))
        return state

    def read(self, state: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        filename = state.get("filename") or ""
        path = self.p.path(filename)
        if not os.path.exists(path):
            return None
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            diags.error("Read local file error" if self.name == "local_file" else "Read local sensitive file error",
                        "An unexpected error occurred while reading the file\n\n+"
                        f"Original Error: {_go_err(exc, 'open', filename)}")
            return state
        if hashlib.sha1(data).hexdigest() != state.get("id"):  # noqa: S324
            return None
        return state

    def delete(self, prior: dict[str, Any], diags: Diagnostics) -> None:
        try:
            os.remove(self.p.path(prior.get("filename") or ""))
        except OSError:
            pass


def _first_bad_b64(text: str) -> int:
    alphabet = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    for i, ch in enumerate(text):
        if ch not in alphabet:
            if ch == "=":
                return i if len(text) % 4 else i
            return i
    return len(text) - len(text) % 4


def _mkdir_all(path: str, mode: int) -> None:
    """os.MkdirAll: every directory created gets `mode` (before umask)."""
    missing = []
    p = os.path.abspath(path)
    while not os.path.exists(p):
        missing.append(p)
        parent = os.path.dirname(p)
        if parent == p:
            break
        p = parent
    if os.path.exists(p) and not os.path.isdir(p):
        raise NotADirectoryError(20, "not a directory", p)
    for d in reversed(missing):
        try:
            os.mkdir(d, mode)
        except FileExistsError:
            if not os.path.isdir(d):
                raise


class LocalFile(_FileResource):
    name = "local_file"
    content_attrs = ["content", "sensitive_content", "content_base64", "source"]
    attrs = {
        "filename": A(STRING, required=True, force_new=True),
        "content": A(STRING, optional=True, force_new=True),
        "content_base64": A(STRING, optional=True, force_new=True),
        "source": A(STRING, optional=True, force_new=True),
        "file_permission": _perm("0777"),
        "directory_permission": _perm("0777"),
        "sensitive_content": A(STRING, optional=True, sensitive=True, force_new=True,
                               deprecated="Use the `local_sensitive_file` resource instead"),
        **CHECKSUM_ATTRS,
    }


class LocalSensitiveFile(_FileResource):
    name = "local_sensitive_file"
    content_attrs = ["content", "content_base64", "source"]
    err_summary = "Create local sensitive file error"
    attrs = {
        "filename": A(STRING, required=True, force_new=True),
        "content": A(STRING, optional=True, sensitive=True, force_new=True),
        "content_base64": A(STRING, optional=True, sensitive=True, force_new=True),
        "source": A(STRING, optional=True, force_new=True),
        "file_permission": _perm("0700"),
        "directory_permission": _perm("0700"),
        **CHECKSUM_ATTRS,
    }


class _FileDataSource(DataSourceType):
    def read(self, config: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        filename = config["filename"]
        try:
            with open(self.p.path(filename), "rb") as fh:
                content = fh.read()
        except OSError as exc:
            diags.error("Read local file data source error",
                        f"The file at given path cannot be read.\n\n+Original Error: {_go_err(exc, 'open', filename)}")
            return None
        state = {"filename": filename,
                 "content": content.decode("utf-8", errors="replace"),
                 "content_base64": base64.b64encode(content).decode()}
        state.update(checksums(content))
        return state


class LocalFileData(_FileDataSource):
    name = "local_file"
    attrs = {
        "filename": A(STRING, required=True),
        "content": A(STRING, computed=True),
        "content_base64": A(STRING, computed=True),
        **CHECKSUM_ATTRS,
    }


class LocalSensitiveFileData(_FileDataSource):
    name = "local_sensitive_file"
    attrs = {
        "filename": A(STRING, required=True),
        "content": A(STRING, computed=True, sensitive=True),
        "content_base64": A(STRING, computed=True, sensitive=True),
        **CHECKSUM_ATTRS,
    }


class LocalProvider(FrameworkProvider):
    type_name = "local"
    source = "registry.terraform.io/hashicorp/local"
    resource_types = (LocalFile, LocalSensitiveFile)
    data_source_types = (LocalFileData, LocalSensitiveFileData)


def file_mode(path: str) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)
