"""The state lock of the local backend, as Terraform 1.15 takes it, so both tools exclude each other.

Terraform (statemgr.Filesystem) opens the state file itself read-write (creating it if needed),
takes a non-blocking fcntl write lock over the whole file, and then writes its lock-info JSON to
``.NAME.lock.info`` beside it (NAME without one leading dot); on unlock it removes the info file,
then drops the lock. It retries a refused lock on the *same open file* until -lock-timeout ends,
reads the state from that file and writes it back in place.

tfconsole takes the same lock on the same file: an open-file-description lock (F_OFD_SETLK), which
conflicts with Terraform's POSIX lock and with our own other descriptors, and is not dropped when
some other descriptor of the file in this process is closed. Its holder's info file is the same
JSON in the same place, and tfconsole removes an info file only if it holds that lock ID.

tfconsole writes the state atomically (temp file, fsync, rename). A rename puts another inode at
the path, but a Terraform waiting for the lock keeps retrying on the inode it opened first, then
reads and writes *that* inode. So `replace()` ends every write with the locked inode back at the
path, holding the new content:

1. the new content goes to a temp file (fsync), which we lock before anyone can see it;
2. the locked inode gets a second name (link), and the temp file is renamed over the path:
   the path now holds the complete new content, atomically;
3. the locked inode, now reachable only by its second name, is rewritten with the same content
   (fsync) and renamed back over the path: atomically again.

A crash at any point leaves a complete state at the path (old or new) and at most a stale temp
name, removed by the next lock holder. The temp inode was at the path only between the two
renames; anyone who opened it then would wait on a dead inode, so before we let go of it, it is
overwritten with a state file that both tools refuse, saying why ("retire"). The same is done to
an empty state file we created and remove at unlock, as Terraform removes it.
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import struct
import time
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Callable

from tfconsole.diags import Diagnostic, Diagnostics, Severity

from .fileio import atomic_write, fsync_dir

__all__ = [
    "LockInfo", "StateLock", "lock_error", "lock_info_path", "LOCK_ERROR_SUMMARY", "RETIRED_STATE",
]

LOCK_ERROR_SUMMARY = "Error acquiring the state lock"
LOCK_ERROR_FOOTER = (
    "Terraform acquires a state lock to protect the state from being written\n"
    "by multiple users at the same time. Please resolve the issue above and try\n"
    "again. For most commands, you can disable locking with the \"-lock=false\"\n"
    "flag, but this is not recommended."
)

# What a waiter on an inode that is no longer the state file reads: a state file both tools refuse
# ("Invalid Terraform version string"), whose version string tells the user what happened.
RETIRED_STATE = (b'{"version": 4, "terraform_version": "0 (this copy of the state file was replaced '
                 b'while waiting for the state lock: run the command again)", "serial": 0, "lineage": ""}\n')

_OFD_SETLK = getattr(fcntl, "F_OFD_SETLK", None)  # Linux 3.15+; elsewhere: a process-wide POSIX lock


def _terraform_version() -> str:
    from .statefile import terraform_version
    return terraform_version()


def lock_info_path(state_path: str) -> str:
    """Terraform's place for the lock info: .NAME.lock.info beside the state (one leading dot of
    NAME dropped)."""
    d, name = os.path.split(state_path)
    if name.startswith("."):
        name = name[1:]
    return os.path.join(d, f".{name}.lock.info")


def _set_lock(fd: int, locked: bool) -> bool:
    """Lock (or unlock) the whole file for writing, without waiting. False: someone holds it."""
    ltype = fcntl.F_WRLCK if locked else fcntl.F_UNLCK
    try:
        if _OFD_SETLK is not None:
            # struct flock: l_type, l_whence, l_start, l_len, l_pid (0 for OFD locks), padded
            fcntl.fcntl(fd, _OFD_SETLK, struct.pack("hhqqi4x", ltype, os.SEEK_SET, 0, 0, 0))
        else:
            fcntl.lockf(fd, (fcntl.LOCK_EX | fcntl.LOCK_NB) if locked else fcntl.LOCK_UN)
    except OSError as exc:
        if locked and exc.errno in (errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


def _same_file(fd: int, path: str) -> bool:
    try:
        a, b = os.fstat(fd), os.stat(path)
    except FileNotFoundError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _write_all(fd: int, data: bytes, sync: bool = True) -> None:
    view = memoryview(data)
    off = 0
    while off < len(data):
        off += os.pwrite(fd, view[off:], off)
    os.ftruncate(fd, len(data))
    if sync:
        os.fsync(fd)


def _fsync_dir(path: str) -> None:
    fsync_dir(path)


# ---------------------------------------------------------------------------
# lock info


def _go_uuid() -> str:
    h = os.urandom(16).hex()  # what secrets.token_hex does, without importing `secrets` (random, hmac)
    return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def _now_rfc3339nano() -> str:
    ns = time.time_ns()
    secs, frac = divmod(ns, 1_000_000_000)
    base = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs))
    f = f"{frac:09d}".rstrip("0")
    return base + (("." + f) if f else "") + "Z"


def _who() -> str:
    """user@host for the lock info. Written out rather than with getpass and socket, which
    cost ~3 ms of start-up for every command that locks: the user as getpass.getuser()
    documents it (LOGNAME, USER, LNAME, USERNAME, then the password database), the host as
    gethostname(2) gives it (the node name of uname(2) on the systems fcntl locking runs on)."""
    user = next((os.environ[k] for k in ("LOGNAME", "USER", "LNAME", "USERNAME") if os.environ.get(k)), "")
    if not user:
        try:
            import pwd

            user = pwd.getpwuid(os.getuid()).pw_name
        except (ImportError, KeyError, OSError):  # no user name is not an error
            user = ""
    try:
        host = os.uname().nodename
    except (AttributeError, OSError):
        host = ""
    return f"{user}@{host}"


@dataclass
class LockInfo:
    """Terraform's statemgr.LockInfo (JSON field names and order as Terraform writes them)."""

    ID: str = ""
    Operation: str = ""
    Info: str = ""
    Who: str = ""
    Version: str = ""
    Created: str = ""
    Path: str = ""

    @classmethod
    def new(cls, operation: str, path: str, info: str = "") -> "LockInfo":
        return cls(_go_uuid(), operation, info, _who(), _terraform_version(), _now_rfc3339nano(), path)

    def to_json(self) -> str:
        return json.dumps({"ID": self.ID, "Operation": self.Operation, "Info": self.Info,
                           "Who": self.Who, "Version": self.Version, "Created": self.Created,
                           "Path": self.Path}, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> "LockInfo | None":
        try:
            d = json.loads(text)
        except ValueError:
            return None
        if not isinstance(d, dict):
            return None
        return cls(**{k: str(d.get(k, "") or "") for k in
                      ("ID", "Operation", "Info", "Who", "Version", "Created", "Path")})

    @classmethod
    def read(cls, path: str) -> "LockInfo | None":
        try:
            with open(path, "rb") as f:
                raw = f.read(1 << 20)
        except OSError:
            return None
        return cls.from_json(raw.decode("utf-8", "replace")) if raw else None

    def created_display(self) -> str:
        """Go's time.Time String() form: 2025-01-02 03:04:05.123456789 +0000 UTC"""
        c = self.Created
        if not c.endswith("Z") or "T" not in c:
            return c
        date, rest = c[:-1].split("T", 1)
        return f"{date} {rest} +0000 UTC"

    def __str__(self) -> str:
        return ("Lock Info:\n"
                f"  ID:        {self.ID}\n"
                f"  Path:      {self.Path}\n"
                f"  Operation: {self.Operation}\n"
                f"  Who:       {self.Who}\n"
                f"  Version:   {self.Version}\n"
                f"  Created:   {self.created_display()}\n"
                f"  Info:      {self.Info}\n")


def lock_error(err: str, info: LockInfo | None) -> Diagnostic:
    """Terraform's "Error acquiring the state lock" diagnostic."""
    msg = err + "\n" + (str(info) if info else "")
    return Diagnostic(Severity.ERROR, LOCK_ERROR_SUMMARY,
                      f"Error message: {msg}\n\n{LOCK_ERROR_FOOTER}")


# ---------------------------------------------------------------------------
# the lock


class StateLock:
    """An exclusive lock on a state file, held as Terraform holds it (see the module docstring).

    state_path: the file written (and locked); read_path: the file read (Terraform's lock info
    names it as Path), when -state and -state-out differ.
    """

    def __init__(self, state_path: str, read_path: str | None = None):
        self.state_path = state_path
        self.read_path = read_path or state_path
        self.path = lock_info_path(state_path)  # the lock-info file
        self._fd: int | None = None
        self._created = False
        self.info: LockInfo | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def _holder(self) -> LockInfo | None:
        for _ in range(5):  # the holder may be between taking the lock and writing its info
            info = LockInfo.read(self.path)
            if info is not None:
                return info
            time.sleep(0.02)
        return None

    def _try(self) -> tuple[bool, LockInfo | None, str]:
        for _ in range(100):  # a holder replaced or removed the file between our open and lock
            existed = os.path.exists(self.state_path)
            fd = os.open(self.state_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                if not _set_lock(fd, True):
                    os.close(fd)
                    return False, self._holder(), os.strerror(errno.EAGAIN).lower()
            except OSError:
                os.close(fd)
                raise
            if _same_file(fd, self.state_path):
                self._fd, self._created = fd, not existed
                return True, None, ""
            os.close(fd)  # a dead inode (retired by its last holder): open the path again
        return False, None, "the state file kept changing while the lock was taken"

    def acquire(self, operation: str = "OperationTypeApply", info: str = "", timeout: float = 0.0,
                on_wait: Callable[[], None] | None = None) -> Diagnostics:
        """Take the lock, retrying until timeout (seconds) ends; on_wait is called once when a
        first attempt was refused and we are going to wait (Terraform then prints "Acquiring
        state lock. This may take a few moments...")."""
        diags = Diagnostics()
        if self._fd is not None:
            return diags
        deadline = time.monotonic() + max(0.0, timeout)
        delay = 0.05
        while True:
            try:
                os.makedirs(os.path.dirname(os.path.abspath(self.state_path)), exist_ok=True)
                ok, other, err = self._try()
            except OSError as exc:
                diags.append(lock_error(f"open {self.state_path}: {(exc.strerror or str(exc)).lower()}", None))
                return diags
            if ok:
                break
            if time.monotonic() >= deadline:
                diags.append(lock_error(err, other))
                return diags
            if on_wait is not None:
                on_wait()
                on_wait = None
            time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
            delay = min(delay * 2, 1.0)
        self.info = LockInfo.new(operation, self.read_path, info)
        try:
            # not synced to disk (nor does Terraform): a crash ends the lock with the process
            atomic_write(self.path, self.info.to_json().encode("utf-8"), durable=False)
        except OSError as exc:
            self.release()
            diags.append(lock_error(f"could not write lock info for {self.read_path!r}: {exc}", None))
        return diags

    def release(self) -> None:
        """Remove our lock info (never another holder's), then let go of the lock, as Terraform."""
        fd = self._fd
        if fd is None:
            return
        mine = self.info.ID if self.info else None
        current = LockInfo.read(self.path)
        if mine and current is not None and current.ID == mine:
            try:
                os.unlink(self.path)
            except OSError:
                pass
        if self._created and _same_file(fd, self.state_path) and os.fstat(fd).st_size == 0:
            try:
                os.unlink(self.state_path)  # created by this lock and never written, as Terraform
            except OSError:
                pass
        self._fd, self.info, self._created = None, None, False
        _retire(fd)

    def read(self) -> bytes:
        """The state file's content, read through the locked descriptor (which is the file at the
        path while we hold the lock). Opening and closing the path instead would drop a POSIX
        lock where open-file-description locks are missing (closing any descriptor of a file
        releases the process's POSIX locks on it)."""
        assert self._fd is not None
        # the whole file in one read when its size holds (a join of 1 MB chunks copied it again)
        size = os.fstat(self._fd).st_size
        first = os.pread(self._fd, size + 1, 0) if size else b""
        if first and len(first) == size:
            return first
        chunks, off = ([first], len(first)) if first else ([], 0)
        while True:
            b = os.pread(self._fd, 1 << 20, off)
            if not b:
                return b"".join(chunks)
            chunks.append(b)
            off += len(b)

    def replace(self, data: bytes) -> None:
        """Write the state file atomically, ending with the locked inode at the path (see the
        module docstring). Raises OSError; the path then still holds a complete state."""
        assert self._fd is not None
        d = os.path.dirname(os.path.abspath(self.state_path))
        prefix = "." + os.path.basename(self.state_path) + "."
        import tempfile  # only a state write needs it

        tmp_fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=d)
        try:
            _write_all(tmp_fd, data)
            _set_lock(tmp_fd, True)  # a fresh inode nobody else can have opened yet
            hold = self._second_name(d, prefix)
        except BaseException:
            os.close(tmp_fd)
            _unlink_quietly(tmp)
            raise
        if hold is None:  # no hard links here: the temp inode becomes the locked one
            try:
                os.replace(tmp, self.state_path)
            except BaseException:
                os.close(tmp_fd)
                _unlink_quietly(tmp)
                raise
            _fsync_dir(d)
            old, self._fd, self._created = self._fd, tmp_fd, False
            _retire(old)
            return
        self._replace_via(hold, tmp, tmp_fd, data, d)

    def _second_name(self, d: str, prefix: str) -> str | None:
        for _ in range(100):
            hold = os.path.join(d, prefix + os.urandom(6).hex() + ".tmp")
            try:
                os.link(self.state_path, hold)
                return hold
            except FileExistsError:
                continue
            except OSError as exc:
                if exc.errno in (errno.EPERM, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
                    return None
                raise
        return None

    def _replace_via(self, hold: str, tmp: str, tmp_fd: int, data: bytes, d: str) -> None:
        assert self._fd is not None
        try:
            os.replace(tmp, self.state_path)
        except BaseException:
            os.close(tmp_fd)
            _unlink_quietly(tmp)
            _unlink_quietly(hold)
            raise
        _fsync_dir(d)
        try:
            _write_all(self._fd, data)
            os.replace(hold, self.state_path)
        except BaseException:
            # the temp inode holds the new state at the path: it becomes the locked one
            _unlink_quietly(hold)
            old, self._fd, self._created = self._fd, tmp_fd, False
            _retire(old)
            raise
        _fsync_dir(d)
        self._created = False
        _retire(tmp_fd)


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _retire(fd: int) -> None:
    """Let go of a locked inode. If it is no longer any file's content (unlinked), whoever waits
    for its lock would read and write a dead copy: overwrite it with a state both tools refuse
    first, so such a waiter stops with a message instead of working on stale state."""
    try:
        if os.fstat(fd).st_nlink == 0:  # no file's content: waiters read it through their own
            _write_all(fd, RETIRED_STATE, sync=False)  # descriptors, and a crash drops it anyway
    except OSError:
        pass
    finally:
        try:
            _set_lock(fd, False)
        except OSError:
            pass
        os.close(fd)
