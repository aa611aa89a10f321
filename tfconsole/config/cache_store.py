"""The user's tfconsole cache directory and its JSON entries: where the parse cache
(parse_cache.py) and the grammar tables (hcl_tables.py) keep what they computed.

An entry is data, never code: JSON only. The directory is `$XDG_CACHE_HOME/tfconsole` (or
`~/.cache/tfconsole`), mode 0700 and owned by the user, with files of mode 0600; a directory or
file owned by someone else, or writable by others, is not used. Every failure (no home, a
read-only disk, a planted file) only means nothing is cached.

Knows nothing of what it stores: it imports nothing from the parser, so the parser's own
modules may use it.
"""
from __future__ import annotations

import json
import os
import stat
import sys
import time
import zlib
from typing import Any

from tfconsole.fastjson import orjson

MAX_ENTRY_BYTES = 64 * 1024 * 1024  # an entry bigger than this is not read
# Pruned when an entry is written: entries unused for this long go, and beyond these totals the
# least recently used go (a read marks an entry used, at most once a day).
MAX_AGE_S = 30 * 86400
MAX_ENTRIES = 2000
MAX_TOTAL_BYTES = 512 * 1024 * 1024
_DAY = 86400


# An entry is a JSON object whose last member is "crc": the CRC-32 of the bytes before it. A
# reader checks it before anything else: a damaged or half-made entry is a miss, even where its
# damage would only show when a part of it is decoded late (parse_cache decodes an attribute's
# expression when first used). It guards against damage, not forgery (see the module docstring
# for who may write here).
_SEAL = b',"crc":"%08x"}'
_SEAL_LEN = len(_SEAL % 0)


def seal(data: bytes) -> bytes:
    """`data` (a JSON object with at least one member) with its checksum as the last member."""
    if not data.endswith(b"}") or data == b"{}":
        raise ValueError("only a non-empty JSON object is sealed")
    body = data[:-1]
    return body + _SEAL % zlib.crc32(body)


def unseal(data: bytes) -> bytes | None:
    """`data` when its checksum holds, else None."""
    if len(data) <= _SEAL_LEN:
        return None
    body, tail = data[:-_SEAL_LEN], data[-_SEAL_LEN:]
    try:
        ok = tail == _SEAL % zlib.crc32(body)
    except (TypeError, ValueError):
        return None
    return data if ok else None


def cache_dir(create: bool = True) -> str | None:
    """The tfconsole cache directory, made 0700 if need be; None when there is no safe one."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(base):  # the XDG spec: a relative value is ignored
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    path = os.path.join(base, "tfconsole")
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        if not create:
            return None
        try:
            os.makedirs(base, mode=0o700, exist_ok=True)
            os.mkdir(path, 0o700)
            st = os.lstat(path)
        except OSError:
            return None
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        return None
    if stat.S_IMODE(st.st_mode) != 0o700:
        try:
            os.chmod(path, 0o700)
        except OSError:
            return None
    return path


def _entry_path(kind: str, key: str, create: bool) -> str | None:
    d = cache_dir(create)
    if d is None or not key.isalnum() or not kind.isalnum():
        return None
    return os.path.join(d, f"{kind}-{key}.json")


def read_json(kind: str, key: str) -> Any:
    """The JSON document stored under (kind, key), or None: missing, not ours, not 0600, too big,
    or not JSON."""
    path = _entry_path(kind, key, create=False)
    if path is None:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if (not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) & 0o077
                or st.st_size > MAX_ENTRY_BYTES):
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_ENTRY_BYTES + 1)
        if time.time() - st.st_mtime > _DAY:
            os.utime(fd)  # used: keeps it from being pruned as stale
    except OSError:
        return None
    finally:
        os.close(fd)
    data = unseal(data)
    if data is None:
        return None
    try:
        return _loads(data)
    except (ValueError, RecursionError):
        return None


# orjson decodes an entry in about 60 % of json's time (3.7 us less per KB) but importing it costs
# ~2 ms (it loads uuid and platform): it pays from about half a megabyte, or once loaded anyway
ORJSON_FROM_BYTES = 512 * 1024


def _loads(data: bytes) -> Any:
    oj = orjson() if len(data) >= ORJSON_FROM_BYTES or "orjson" in sys.modules else None
    return oj.loads(data) if oj is not None else json_loads(data)


def json_loads(data: bytes) -> Any:
    """json.loads taking what orjson.loads takes: no NaN or Infinity (entries never hold them)."""
    return json.loads(data, parse_constant=_no_constant)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def write_json(kind: str, key: str, doc: Any) -> bool:
    """Store `doc` under (kind, key): a 0600 file written to a temporary name and renamed, so a
    reader never sees half an entry. False (and nothing left behind) on any failure."""
    path = _entry_path(kind, key, create=True)
    if path is None:
        return False
    oj = orjson()
    try:
        data = seal(oj.dumps(doc) if oj is not None else
                    json.dumps(doc, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode())
    except (ValueError, TypeError, RecursionError, UnicodeError):  # orjson's errors are TypeErrors
        return False
    tmp = None
    try:
        from tfconsole.states.fileio import create_temp  # mkstemp's guarantees, without tempfile's imports

        fd, tmp = create_temp(os.path.dirname(path), f".{kind}-", ".tmp")
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o600)
            f.write(data)
        os.replace(tmp, path)
        prune(os.path.dirname(path))
        return True
    except OSError:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        return False


def remove_entry(kind: str, key: str) -> None:
    """Remove the entry stored under (kind, key), if any (one found malformed)."""
    path = _entry_path(kind, key, create=False)
    if path is not None:
        try:
            os.unlink(path)
        except OSError:
            pass


def prune(directory: str) -> int:
    """Remove stale entries (and temporary files left by a killed writer); returns how many."""
    now = time.time()
    entries = []
    removed = 0
    try:
        with os.scandir(directory) as it:
            for de in it:
                if not de.name.endswith((".json", ".tmp")) or not de.is_file(follow_symlinks=False):
                    continue
                st = de.stat(follow_symlinks=False)
                if de.name.endswith(".tmp"):
                    stale = now - st.st_mtime > 3600
                else:
                    stale = now - st.st_mtime > MAX_AGE_S
                    if not stale:
                        entries.append((st.st_mtime, st.st_size, de.path))
                if stale and _unlink(de.path):
                    removed += 1
    except OSError:
        return removed
    total = sum(e[1] for e in entries)
    entries.sort()
    while entries and (len(entries) > MAX_ENTRIES or total > MAX_TOTAL_BYTES):
        _, size, path = entries.pop(0)
        total -= size
        if _unlink(path):
            removed += 1
    return removed


def _unlink(path: str) -> bool:
    try:
        os.unlink(path)
        return True
    except OSError:
        return False
