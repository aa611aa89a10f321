"""Durable file writes for state, journal and lock info: atomic replacement and directory fsync.

Below the manager, the journal and the lock, which all use it; it imports nothing of theirs.
"""
from __future__ import annotations

import os
import tempfile


def fsync_dir(path: str) -> None:
    try:
        fd = os.open(path or ".", os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _temp_prefix(path: str) -> str:
    return "." + os.path.basename(path) + "."


def atomic_write(path: str, data: bytes) -> None:
    """Replace path with data: a reader sees the old or the new content, never a mix, and a
    crash at any point leaves one of the two. The file is created 0600."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(path), suffix=".tmp", dir=d)
    try:
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_dir(d)


def read_or_none(path: str) -> bytes | None:
    """A file's bytes, or None when it does not exist."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def read_or_empty(path: str) -> bytes:
    """A file's bytes, or b"" when it does not exist."""
    data = read_or_none(path)
    return b"" if data is None else data
