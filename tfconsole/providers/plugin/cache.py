"""Provider schemas cached between commands, keyed by the SHA-256 of the provider executable.

A cache entry is data only: a small JSON document holding the protocol version and the
serialized GetProviderSchema and GetResourceIdentitySchemas responses (protobuf bytes, parsed as
messages, never executed; the second absent when the provider lacks the call).
Files are written atomically with mode 0600 in a 0700 directory; a directory that is not
private to us is not used. Hashing a large executable is remembered per (path, size, mtime,
inode), so an unchanged binary is hashed once.

Location: $TFCONSOLE_CACHE_DIR, else $XDG_CACHE_HOME/tfconsole, else ~/.cache/tfconsole,
then /provider-schemas.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import stat
import tempfile
import threading
from typing import Any

_FORMAT = 2  # 2: with the identity schemas
_hash_lock = threading.Lock()
_hash_memo: dict[tuple, str] = {}


def cache_dir() -> str:
    base = os.environ.get("TFCONSOLE_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "tfconsole")
    return os.path.join(base, "provider-schemas")


def _private_dir(path: str) -> bool:
    """Create the directory 0700 if needed; True only if it is ours and private."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.stat(path)
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        return False
    if st.st_mode & 0o077:
        try:
            os.chmod(path, 0o700)
        except OSError:
            return False
    return True


def executable_hash(path: str) -> str | None:
    """SHA-256 of the file, remembered per (path, size, mtime, inode) on disk and in memory."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = (os.path.realpath(path), st.st_size, st.st_mtime_ns, st.st_ino)
    with _hash_lock:
        got = _hash_memo.get(key)
    if got:
        return got
    memo_name = hashlib.sha256(json.dumps(list(key)).encode()).hexdigest() + ".hash.json"
    memo = _read_json(memo_name)
    if memo and memo.get("key") == list(key) and isinstance(memo.get("sha256"), str):
        digest = memo["sha256"]
    else:
        h = hashlib.sha256()
        try:
            with open(path, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
        except OSError:
            return None
        digest = h.hexdigest()
        _write_json(memo_name, {"format": _FORMAT, "key": list(key), "sha256": digest})
    with _hash_lock:
        _hash_memo[key] = digest
    return digest


def load_schema(digest: str, version: int) -> bytes | None:
    """The cached GetProviderSchema response bytes for this executable and protocol version."""
    doc = _read_json(f"{digest}.schema.json")
    if not doc or doc.get("format") != _FORMAT or doc.get("protocol") != version:
        return None
    try:
        return base64.b64decode(doc["schema"], validate=True)
    except (KeyError, ValueError, TypeError):
        return None


def load_identity(digest: str, version: int) -> bytes | None:
    """The cached GetResourceIdentitySchemas response bytes, None when the provider lacks the call."""
    doc = _read_json(f"{digest}.schema.json")
    if not doc or doc.get("format") != _FORMAT or doc.get("protocol") != version or not doc.get("identity"):
        return None
    try:
        return base64.b64decode(doc["identity"], validate=True)
    except (ValueError, TypeError):
        return None


def cached_version(digest: str) -> int | None:
    doc = _read_json(f"{digest}.schema.json")
    v = doc.get("protocol") if doc else None
    return v if v in (5, 6) else None


def store_schema(digest: str, version: int, response_bytes: bytes, identity_bytes: bytes | None = None) -> None:
    _write_json(f"{digest}.schema.json", {"format": _FORMAT, "protocol": version,
                                          "schema": base64.b64encode(response_bytes).decode(),
                                          "identity": base64.b64encode(identity_bytes).decode()
                                          if identity_bytes is not None else None})


def _read_json(name: str) -> dict[str, Any] | None:
    d = cache_dir()
    path = os.path.join(d, name)
    try:
        st = os.stat(path)
        if st.st_uid != os.getuid() or st.st_size > (512 << 20):
            return None
        with open(path, "rb") as fh:
            doc = json.loads(fh.read())
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def _write_json(name: str, doc: dict[str, Any]) -> None:
    d = cache_dir()
    if not _private_dir(d):
        return
    try:
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")  # created 0600
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(doc, fh)
        os.replace(tmp, os.path.join(d, name))
    except OSError:
        try:
            os.unlink(tmp)
        except (OSError, UnboundLocalError):
            pass
