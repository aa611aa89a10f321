"""Durable file writes for state, journal and lock info: atomic replacement and directory fsync.

Below the manager, the journal and the lock, which all use it; it imports nothing of theirs.
"""
from __future__ import annotations

import os


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


def create_temp(directory: str, prefix: str, suffix: str) -> tuple[int, str]:
    """A new file of mode 0600 under a random name in `directory`, opened for writing: the
    guarantees of tempfile.mkstemp (created exclusively, not following a link, not inherited
    by child processes) without importing tempfile (shutil, random: ~4 ms of the start-up of
    every command that takes a lock). OSError when it cannot be made."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) \
        | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        name = os.path.join(directory, prefix + os.urandom(6).hex() + suffix)
        try:
            return os.open(name, flags, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no unused temporary name in {directory}")


def _temp_prefix(path: str) -> str:
    return "." + os.path.basename(path) + "."


def atomic_write(path: str, data: bytes, durable: bool = True) -> None:
    """Replace path with data: a reader sees the old or the new content, never a mix, and a
    crash at any point leaves one of the two (durable=False: a crash may leave neither, for
    what a crash makes moot anyway, such as a lock's info). The file is created 0600."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = create_temp(d, _temp_prefix(path), ".tmp")
    try:
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
            if durable:
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
    if durable:
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
