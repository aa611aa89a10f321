"""Filesystem state manager: atomic writes, backup, serial/lineage, the state lock, and the
per-change journal that makes every completed resource change durable during an apply.

Files beside the state file ``P`` (all created 0600):

* ``P``                       the state (written atomically: temp file, fsync, rename, fsync dir)
* ``P.backup``                the state as it was before this run's first change (default path)
* ``.P.<random>.tmp``         temp files of atomic writes (a crash may leave one; removed at lock)
* ``P.journal``               one JSON line per completed change since the last full write
* ``.P.lock.info``            the lock: held with flock(2) for the whole run (dies with the
                              process, so a file left by a killed run never blocks), and
                              holding Terraform's lock-info JSON (ID, Operation, Info, Who,
                              Version, Created, Path). Removed on unlock.
"""
from __future__ import annotations

import errno
import fcntl
import getpass
import glob
import json
import os
import secrets
import socket
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from tfconsole.addrs import AbsResourceInstance, AddressError, parse_instance
from tfconsole.diags import Diagnostic, Diagnostics, Severity

from .state import ObjectState, OutputState, State
from .statefile import (
    _parse_float, encode_bytes, object_from_json, read_state, state_body, state_header,
    terraform_version,
)

__all__ = [
    "LockInfo", "StateLock", "StateManager", "Journal", "atomic_write", "lock_error",
    "LOCK_ERROR_SUMMARY",
]

LOCK_ERROR_SUMMARY = "Error acquiring the state lock"
LOCK_ERROR_FOOTER = (
    "Terraform acquires a state lock to protect the state from being written\n"
    "by multiple users at the same time. Please resolve the issue above and try\n"
    "again. For most commands, you can disable locking with the \"-lock=false\"\n"
    "flag, but this is not recommended."
)


def _terraform_version() -> str:
    return terraform_version()


# ---------------------------------------------------------------------------
# atomic writes


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


def remove_stale_temps(path: str) -> None:
    d = os.path.dirname(os.path.abspath(path))
    for p in glob.glob(os.path.join(glob.escape(d), glob.escape(_temp_prefix(path)) + "*.tmp")):
        try:
            os.unlink(p)
        except OSError:
            pass


# ---------------------------------------------------------------------------
# the lock


def _go_uuid() -> str:
    h = secrets.token_hex(16)
    return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def _now_rfc3339nano() -> str:
    ns = time.time_ns()
    secs, frac = divmod(ns, 1_000_000_000)
    base = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs))
    f = f"{frac:09d}".rstrip("0")
    return base + (("." + f) if f else "") + "Z"


def _who() -> str:
    try:
        user = getpass.getuser()
    except Exception:  # noqa: BLE001
        user = ""
    try:
        host = socket.gethostname()
    except OSError:
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


class StateLock:
    """An exclusive lock on a state file, held with flock(2) on its lock-info file.

    flock locks belong to the open file, so they conflict between processes and between
    managers in one process, and the kernel drops them when the holder dies.
    """

    def __init__(self, state_path: str):
        d, b = os.path.split(state_path)
        self.state_path = state_path
        self.path = os.path.join(d, "." + b + ".lock.info")
        self._fd: int | None = None
        self.info: LockInfo | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def _try(self) -> tuple[bool, LockInfo | None, str]:
        while True:
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                    os.close(fd)
                    raise
                info = None
                for _ in range(3):  # the holder may be between flock and writing its info
                    try:
                        raw = os.pread(fd, 65536, 0)
                    except OSError:
                        raw = b""
                    info = LockInfo.from_json(raw.decode("utf-8", "replace")) if raw else None
                    if info is not None:
                        break
                    time.sleep(0.02)
                os.close(fd)
                return False, info, os.strerror(errno.EAGAIN).lower()
            # the holder before us may have unlinked the file after we opened it
            try:
                st, cur = os.fstat(fd), os.stat(self.path)
            except FileNotFoundError:
                os.close(fd)
                continue
            if (st.st_dev, st.st_ino) != (cur.st_dev, cur.st_ino):
                os.close(fd)
                continue
            self._fd = fd
            return True, None, ""

    def acquire(self, operation: str = "OperationTypeApply", info: str = "",
                timeout: float = 0.0) -> Diagnostics:
        diags = Diagnostics()
        if self._fd is not None:
            return diags
        deadline = time.monotonic() + max(0.0, timeout)
        delay = 0.05
        while True:
            ok, other, err = self._try()
            if ok:
                break
            if time.monotonic() >= deadline:
                diags.append(lock_error(err, other))
                return diags
            time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
            delay = min(delay * 2, 1.0)
        self.info = LockInfo.new(operation, self.state_path, info)
        data = self.info.to_json().encode("utf-8")
        assert self._fd is not None
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, data, 0)
        return diags

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            os.unlink(self.path)  # while still holding, so nobody locks the old inode
        except OSError:
            pass
        try:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            os.close(self._fd)
            self._fd = None
            self.info = None


# ---------------------------------------------------------------------------
# journal records

_DEC = "__tfconsole_decimal__"


def _json_default(v: Any) -> Any:
    if isinstance(v, Decimal):
        return {_DEC: format(v, "f")}
    if isinstance(v, tuple):
        return list(v)
    raise TypeError(f"cannot encode {type(v).__name__} in the state journal")


def _json_hook(d: dict) -> Any:
    if len(d) == 1 and _DEC in d:
        return Decimal(d[_DEC])
    return d


def _obj_plain(o: ObjectState) -> dict:
    d: dict[str, Any] = {"schema_version": o.schema_version, "attributes": o.attributes,
                         "sensitive_attributes": o.sensitive_attributes,
                         "identity_schema_version": o.identity_schema_version}
    if o.status and o.status != "ready":
        d["status"] = o.status
    if o.attributes_flat is not None:
        d["attributes_flat"] = o.attributes_flat
    if o.identity is not None:
        d["identity"] = o.identity
    if o.private:
        d["private"] = o.private
    if o.dependencies:
        d["dependencies"] = o.dependencies
    if o.create_before_destroy:
        d["create_before_destroy"] = True
    return d


def apply_journal_lines(state: State, data: bytes, diags: Diagnostics,
                        lineage: str | None = None) -> tuple[int, bool]:
    """Apply journal records to state in order. A torn last line is ignored.

    lineage: the lineage the journal must belong to (None: any; the state then takes the
    journal's lineage). Returns (records applied, lineage matched)."""
    lines = data.split(b"\n")
    # the last element is b"" when the file ends with a newline, else a torn partial record
    complete, tail = lines[:-1], lines[-1]
    n = 0
    for i, line in enumerate(complete):
        if not line.strip():
            continue
        try:
            rec = json.loads(line, object_hook=_json_hook, parse_float=_parse_float)
        except ValueError:
            diags.warning("Corrupt state journal record",
                          f"Record {i + 1} of the state journal could not be parsed and was skipped.")
            continue
        kind = rec.get("k") if isinstance(rec, dict) else None
        if kind == "h":
            jl = rec.get("lineage")
            if lineage is not None and jl not in (None, "", lineage):
                return n, False
            if lineage is None and isinstance(jl, str) and jl:
                state.lineage = jl
            continue
        if kind == "r":
            try:
                addr = parse_instance(rec["a"])
            except (AddressError, KeyError, TypeError):
                diags.warning("Corrupt state journal record",
                              f"Record {i + 1} of the state journal has an invalid address.")
                continue
            od = rec.get("o")
            obj = None
            if od is not None:
                obj = object_from_json(od, str(addr), diags)
                if obj is None:
                    continue
            provider = rec.get("p") or ""
            dk = rec.get("d")
            if dk:
                state.set_deposed(addr, dk, obj, provider)
            else:
                state.set_current(addr, obj, provider, rec.get("e") or None)
            n += 1
        elif kind == "o":
            name = rec.get("n")
            if rec.get("x"):
                state.outputs.pop(name, None)
            else:
                state.outputs[name] = OutputState(rec.get("v"), rec.get("t"), bool(rec.get("s")))
            n += 1
        elif kind == "c":
            state.check_results = rec.get("v")
            n += 1
    del tail  # a partial write from a killed process: never reported as written
    return n, True


class Journal:
    """Append-only log of completed changes, beside the state file (``<state>.journal``).

    record()/record_output() each append one JSON line with a single write(2) (looping only
    on a short write); no fsync per record, so a killed process keeps every record whose
    write returned. sync() fsyncs; fold() writes the full state atomically and removes the
    journal. Thread-safe.
    """

    def __init__(self, manager: "StateManager", path: str, lineage: str, serial: int):
        self.manager = manager
        self.path = path
        self._lock = threading.Lock()
        self._fd: int | None = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC,
                                       0o600)
        self.records = 0
        if os.fstat(self._fd).st_size == 0:
            self._append({"k": "h", "lineage": lineage, "serial": serial, "v": 1})
            fsync_dir(os.path.dirname(os.path.abspath(path)))

    @property
    def closed(self) -> bool:
        return self._fd is None

    def _append(self, rec: dict) -> None:
        data = (json.dumps(rec, separators=(",", ":"), default=_json_default) + "\n").encode("utf-8")
        with self._lock:
            if self._fd is None:
                raise ValueError("state journal is closed")
            n = os.write(self._fd, data)
            while n < len(data):  # short write (e.g. disk nearly full): finish the line
                n += os.write(self._fd, data[n:])
            self.records += 1

    def record(self, addr: AbsResourceInstance, obj: ObjectState | None, provider: str,
               each: str = "", deposed_key: str | None = None) -> None:
        """Persist one completed change of a resource instance object (None: removed)."""
        rec: dict[str, Any] = {"k": "r", "a": str(addr), "p": provider, "e": each or ""}
        if deposed_key:
            rec["d"] = deposed_key
        rec["o"] = None if obj is None else _obj_plain(obj)
        self._append(rec)

    def record_output(self, name: str, out: OutputState | None) -> None:
        if out is None:
            self._append({"k": "o", "n": name, "x": True})
        else:
            self._append({"k": "o", "n": name, "v": out.value, "t": out.type, "s": bool(out.sensitive)})

    def record_check_results(self, check_results: Any) -> None:
        self._append({"k": "c", "v": check_results})

    def sync(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.fsync(self._fd)

    def close(self) -> None:
        """fsync and close, keeping the file (it is replayed by the next load)."""
        with self._lock:
            if self._fd is not None:
                try:
                    os.fsync(self._fd)
                finally:
                    os.close(self._fd)
                    self._fd = None

    def fold(self, state: State | None = None) -> Diagnostics:
        """End of apply: write the full state and remove the journal.

        With state=None the journal's records are applied to the manager's current state;
        otherwise state (the engine's final state, which already holds every change) is
        written. The journal is removed only after the state is safely written.
        """
        self.close()
        diags = Diagnostics()
        if state is None:
            state = self.manager.state.deep_copy() if self.manager.state else State()
            try:
                with open(self.path, "rb") as f:
                    data = f.read()
            except FileNotFoundError:
                data = b""
            apply_journal_lines(state, data, diags)
        diags.append(self.manager.persist(state))
        if not diags.has_errors:
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass
            fsync_dir(os.path.dirname(os.path.abspath(self.path)))
            if self.manager._journal is self:
                self.manager._journal = None
        return diags

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# ---------------------------------------------------------------------------
# the manager


class _LoadedBody:
    """The state body of a file as load() read it, encoded only if a write needs it.

    A plan never writes, and an apply that changed nothing writes the file's own text back:
    both skip encoding the state they loaded. The raw text after the file's header is the
    body whenever the file is in canonical form (as tfconsole and Terraform write it); for
    any other file, a copy of the state as loaded is encoded on demand (the State handed out
    by load() may be mutated meanwhile; the copy shares its immutable JSON data).
    """

    def __init__(self, data: bytes, state: State):
        self.raw: str | None = None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = ""
        header = state_header(state.terraform_version, state.serial, state.lineage)
        if text.startswith(header):
            self.raw = text[len(header):]
        self._snapshot: State | None = state.deep_copy()
        self._text: str | None = None

    def text(self) -> str:
        if self._text is None:
            assert self._snapshot is not None
            self._text = state_body(self._snapshot)
            self._snapshot = None
        return self._text

    def same(self, body: str) -> bool:
        if self._text is None and self.raw is not None and body == self.raw:
            return True
        return body == self.text()


def _same_body(known: "str | _LoadedBody", body: str) -> bool:
    return known.same(body) if isinstance(known, _LoadedBody) else known == body


class StateManager:
    """Reads and persists one state file (Terraform's statemgr.Filesystem, made crash-safe).

    path: state to read; out_path: where to write (default path, -state-out);
    backup_path: None for ``<out_path>.backup``, "" or "-" to disable (-backup=-).
    """

    def __init__(self, path: str, *, out_path: str | None = None, backup_path: str | None = None,
                 lock: bool = True, lock_timeout: float = 0.0,
                 operation: str = "OperationTypeApply", lock_info: str = ""):
        self.path = os.fspath(path)
        self.out_path = os.fspath(out_path) if out_path else self.path
        if backup_path is None:
            backup_path = self.out_path + ".backup"
        self.backup_path = "" if backup_path in ("", "-") else os.fspath(backup_path)
        self.lock_enabled = lock
        self.lock_timeout = lock_timeout
        self.operation = operation
        self.lock_info = lock_info
        self.journal_path = self.out_path + ".journal"
        self._lock = StateLock(self.out_path)
        self._mutex = threading.RLock()
        self.state: State | None = None
        self._serial = 0
        self._body: str | _LoadedBody | None = None  # body of the last read/written snapshot
        self._initial_bytes: bytes = b""      # the file as read by load(), for the backup
        self._initial_body: str | _LoadedBody | None = None
        self._backup_written = False
        self._journal: Journal | None = None

    # ---- lock
    @property
    def locked(self) -> bool:
        return self._lock.held

    @property
    def lock_file(self) -> str:
        return self._lock.path

    def lock(self, operation: str | None = None, info: str | None = None,
             timeout: float | None = None) -> Diagnostics:
        if not self.lock_enabled:
            return Diagnostics()
        diags = self._lock.acquire(operation or self.operation,
                                   self.lock_info if info is None else info,
                                   self.lock_timeout if timeout is None else timeout)
        if not diags.has_errors:
            remove_stale_temps(self.out_path)
            if self.backup_path:
                remove_stale_temps(self.backup_path)
        return diags

    def unlock(self) -> None:
        self._lock.release()

    def __enter__(self) -> "StateManager":
        diags = self.lock()
        if diags.has_errors:
            from tfconsole.diags import DiagnosticsError
            raise DiagnosticsError(diags)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None
        self.unlock()

    # ---- reading
    def load(self) -> tuple[State | None, Diagnostics]:
        """Read the state (a new empty State, serial 0, when there is none). If a journal
        left by a killed run exists, its records are replayed and folded into the state
        file. The returned State is the manager's own `state` (no copy is made)."""
        with self._mutex:
            diags = Diagnostics()
            try:
                with open(self.path, "rb") as f:
                    data = f.read()
            except FileNotFoundError:
                data = b""
            except OSError as exc:
                diags.error("Failed to load state", f"Error reading {self.path}: {exc.strerror or exc}.")
                return None, diags
            state, rd = read_state(data)
            diags.append(rd)
            if rd.has_errors:
                return None, diags
            if state is None:
                state = State(serial=0)
                self._body = None
            else:
                self._body = _LoadedBody(data, state)
            self._serial = state.serial
            self._initial_bytes = data if data.strip() else b""
            self._initial_body = self._body
            self._backup_written = False
            self.state = state
            if os.path.exists(self.journal_path):
                diags.append(self._recover())
            return self.state, diags

    def _recover(self) -> Diagnostics:
        diags = Diagnostics()
        assert self.state is not None
        try:
            with open(self.journal_path, "rb") as f:
                data = f.read()
        except OSError as exc:
            diags.error("Failed to read the state journal", f"Error reading {self.journal_path}: {exc}.")
            return diags
        recovered = self.state.deep_copy()
        # with no state file yet, the journal's lineage is the one the run was creating
        lineage = self.state.lineage if self._body is not None else None
        n, ok = apply_journal_lines(recovered, data, diags, lineage=lineage)
        if not ok:
            stale = self.journal_path + f".stale-{int(time.time())}"
            os.replace(self.journal_path, stale)
            diags.warning("State journal ignored",
                          f"The state journal {self.journal_path} belongs to a different state "
                          f"(lineage mismatch); it was moved to {stale} and not applied.")
            return diags
        if n:
            diags.append(self.persist(recovered))
            if diags.has_errors:
                return diags
            diags.warning("Recovered state changes from an interrupted run",
                          f"{n} change(s) recorded by a previous run that did not finish were "
                          f"written to {self.out_path}.")
        os.unlink(self.journal_path)
        fsync_dir(os.path.dirname(os.path.abspath(self.journal_path)))
        return diags

    # ---- writing
    def persist(self, state: State) -> Diagnostics:
        """Write state if its content changed since the last read/write (serial + 1).

        Sets state.serial/lineage/terraform_version to what was written. The first change
        in this manager's life first saves the state as loaded to the backup path.
        """
        with self._mutex:
            diags = Diagnostics()
            body = state_body(state)
            if not state.lineage:
                state.lineage = str(uuid.uuid4())
            if self._body is not None and _same_body(self._body, body):
                state.serial = self._serial
                self.state = state
                return diags
            serial = self._serial + 1
            tfv = _terraform_version()
            text = state_header(tfv, serial, state.lineage) + body
            try:
                if (self.backup_path and not self._backup_written and self._initial_bytes
                        and not (self._initial_body is not None and _same_body(self._initial_body, body))):
                    atomic_write(self.backup_path, self._initial_bytes)
                    self._backup_written = True
                atomic_write(self.out_path, encode_bytes(text))
            except OSError as exc:
                diags.error("Failed to save state",
                            f"Error writing {self.out_path}: {exc.strerror or exc}.")
                return diags
            state.serial = serial
            state.terraform_version = tfv
            self._serial = serial
            self._body = body
            self.state = state
            return diags

    def write_raw(self, text: str) -> Diagnostics:
        """Write state file text as given (state push): no serial handling."""
        diags = Diagnostics()
        try:
            atomic_write(self.out_path, encode_bytes(text))
        except OSError as exc:
            diags.error("Failed to save state", f"Error writing {self.out_path}: {exc.strerror or exc}.")
        return diags

    # ---- journal
    def open_journal(self) -> Journal:
        """Start journaling changes of an apply against the loaded state."""
        with self._mutex:
            if self._journal is not None and not self._journal.closed:
                return self._journal
            st = self.state or State()
            self._journal = Journal(self, self.journal_path, st.lineage, self._serial)
            return self._journal
