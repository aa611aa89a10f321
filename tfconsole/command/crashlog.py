"""The crash log (`~/.tfconsole-crash.log`): where the CLI records a bug it hit.

It must never hold a secret and never grow without end. So an entry records only what code
ran, not what data it ran on: the tfconsole version, the command word, the exception's type
(and those of its causes) and the stack frames (file, line, function, source line of tfconsole
or library code). Exception messages and arguments are withheld, since they can quote any value,
sensitive ones included. The file is owner-only (0600, fixed on every write) and rotated to
`.1` once it passes MAX_BYTES, so the two together stay under 2 * MAX_BYTES.
"""
from __future__ import annotations

import datetime as _dt
import os
import traceback

from tfconsole import __version__

MAX_BYTES = 256 * 1024
MAX_FRAMES = 60  # per exception: enough to see the bug, bounded for a deep recursion


def default_path() -> str:
    return os.path.join(os.path.expanduser("~"), ".tfconsole-crash.log")


def entry(exc: BaseException, command: str) -> str:
    """The log text for exc: types and frames only, never messages or values."""
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    lines = [f"--- {stamp} tfconsole {__version__}, command {command!r}"]
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        frames = traceback.extract_tb(cur.__traceback__)
        if len(frames) > MAX_FRAMES:
            lines.append(f"  ({len(frames) - MAX_FRAMES} outer frames left out)")
            frames = frames[-MAX_FRAMES:]
        for fr in frames:
            lines.append(f'  File "{fr.filename}", line {fr.lineno}, in {fr.name}')
            if fr.line:
                lines.append(f"    {fr.line.strip()}")
        lines.append(f"{type(cur).__module__}.{type(cur).__qualname__} (message withheld: it may quote "
                     "sensitive values)")
        nxt = cur.__cause__ or (None if cur.__suppress_context__ else cur.__context__)
        if nxt is not None:
            lines.append("while handling, or caused by:")
        cur = nxt
    return "\n".join(lines) + "\n"


def record(exc: BaseException, command: str, path: str | None = None) -> str | None:
    """Append an entry for exc; returns the log's path, or None when it could not be written."""
    path = path or default_path()
    text = entry(exc, command).encode("utf-8", "replace")[:MAX_BYTES]
    try:
        _rotate_if_full(path, len(text))
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            os.fchmod(fd, 0o600)  # an older log may have been created 0644
            os.write(fd, text)
        finally:
            os.close(fd)
    except OSError:
        return None
    return path


def _rotate_if_full(path: str, adding: int) -> None:
    try:
        size = os.lstat(path).st_size
    except FileNotFoundError:
        return
    if size + adding > MAX_BYTES:
        os.replace(path, path + ".1")
        os.chmod(path + ".1", 0o600)
