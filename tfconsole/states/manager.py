"""Filesystem state manager: atomic writes, backup, serial/lineage, the state lock, and the
per-change journal that makes every completed resource change durable during an apply.

Files beside the state file ``P`` (all created 0600):

* ``P``                       the state (written atomically: temp file, fsync, rename, fsync dir);
                              while a run holds the lock, it is also the locked file (locking.py)
* ``P.backup``                the state as it was before this run's first change (default path)
* ``.P.<random>.tmp``         temp files of atomic writes (a crash may leave one; removed at lock)
* ``P.journal``               one JSON line per completed change since the last full write
                              (journal.py); folded only by a run holding the lock, overlaid in
                              memory by readers
* ``P.journal.corrupt-<ts>``  a journal with malformed records, kept aside for inspection
* ``.P.lock.info``            the lock holder's info (Terraform's lock-info JSON: ID, Operation,
                              Info, Who, Version, Created, Path), removed on unlock
"""
from __future__ import annotations

import os
import threading
import time
from typing import Any, Callable

from tfconsole.diags import Diagnostics

from .fileio import _temp_prefix, atomic_write, read_or_empty, read_or_none
from .journal import Journal
from .locking import LOCK_ERROR_SUMMARY, LockInfo, StateLock, lock_error
from .recovery import JournalRecovery
from .state import State, random_uuid
from .statefile import encode_bytes, read_state, read_state_text, state_body, state_header, terraform_version

__all__ = [
    "LockInfo", "StateLock", "StateManager", "Journal", "atomic_write", "lock_error",
    "LOCK_ERROR_SUMMARY",
]



def _terraform_version() -> str:
    return terraform_version()


# ---------------------------------------------------------------------------
# atomic writes


def remove_stale_temps(path: str) -> None:
    """Remove the temporary files a killed writer of `path` left: PREFIX*.tmp beside it (listed
    without glob, which brings fnmatch and pathlib into every command that takes a lock)."""
    d = os.path.dirname(os.path.abspath(path))
    prefix = _temp_prefix(path)
    try:
        names = os.listdir(d)
    except OSError:
        return
    for name in names:
        if name.startswith(prefix) and name.endswith(".tmp") and len(name) >= len(prefix) + 4:
            try:
                os.unlink(os.path.join(d, name))
            except OSError:
                pass


# ---------------------------------------------------------------------------
# the manager


class _LoadedBody:
    """The state body of a file as load() read it, encoded only if a write needs it.

    A plan never writes, and an apply that changed nothing writes the file's own text back:
    both skip encoding the state they loaded. The raw text after the file's header is the
    body whenever the file is in canonical form (as tfconsole and Terraform write it); for
    any other file, a copy of the state as loaded is encoded on demand (the State handed out
    by load() may be mutated meanwhile; the copy shares its immutable JSON data). Without
    `snapshot` (a plan: it plans on copies of that State and never writes) there is no copy,
    and only the raw text can be found the same: were such a manager to write after all, it
    would write once too often, never once too few.
    """

    def __init__(self, text: str, state: State, snapshot: bool = True):
        # the file's text and where its body starts (-1: not after the canonical header),
        # kept whole rather than sliced: a copy of a large state costs as much as a compare
        self._file = text
        header = state_header(state.terraform_version, state.serial, state.lineage)
        self._body_at = len(header) if text.startswith(header) else -1
        self._snapshot: State | None = state.deep_copy() if snapshot else None
        self._raw_only = not snapshot
        self._text: str | None = None

    @property
    def raw(self) -> str | None:
        """The raw text after the file's header (None: the file does not start with it)."""
        return None if self._body_at < 0 else self._file[self._body_at:]

    def text(self) -> str:
        if self._text is None:
            assert self._snapshot is not None
            self._text = state_body(self._snapshot)
            self._snapshot = None
        return self._text

    def same(self, body: str) -> bool:
        at = self._body_at
        if self._text is None and at >= 0 and len(body) == len(self._file) - at and self._file.startswith(body, at):
            return True
        return not self._raw_only and body == self.text()


def _same_body(known: "str | _LoadedBody", body: str) -> bool:
    return known.same(body) if isinstance(known, _LoadedBody) else known == body


class StateManager(JournalRecovery):
    """Reads and persists one state file (Terraform's statemgr.Filesystem, made crash-safe).

    path: state to read; out_path: where to write (default path, -state-out);
    backup_path: None for ``<out_path>.backup``, "" or "-" to disable (-backup=-).

    Only a manager holding the lock changes files: load() then folds a journal left by a
    killed run into the state. Without the lock, load() overlays the journal in memory and
    changes nothing (a live apply may be writing it).
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
        self._lock = StateLock(self.out_path, read_path=self.path)
        self._mutex = threading.RLock()
        self.state: State | None = None
        self._serial = 0
        self._body: str | _LoadedBody | None = None  # body of the last read/written snapshot
        self._initial_bytes: bytes = b""      # the file as read by load(), for the backup
        self._initial_body: str | _LoadedBody | None = None
        self._backup_written = False
        self._journal: Journal | None = None
        self.on_lock_wait: Callable[[], None] | None = None  # a refused first attempt, waiting

    @property
    def persisted_to(self) -> str:
        return self.out_path

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
                                   self.lock_timeout if timeout is None else timeout, self.on_lock_wait)
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
    def _read_files(self) -> tuple[bytes, bytes | None]:
        """The state file's bytes and the journal's (None: no journal), as one consistent pair.

        Under the lock nobody else writes either. Without it, a writer may fold the journal or
        rewrite the state between our two reads: read again until the state file is the same
        before and after (a fold replaces the state file before it removes the journal)."""
        def sig() -> tuple | None:
            try:
                st = os.stat(self.path)
            except FileNotFoundError:
                return None
            return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

        if self.locked:
            data = self._lock.read() if self.path == self.out_path else read_or_empty(self.path)
            return data, read_or_none(self.journal_path)
        for attempt in range(50):
            before = sig()
            data = read_or_empty(self.path)
            journal = read_or_none(self.journal_path)
            if sig() == before:
                return data, journal
            time.sleep(0.01 * (attempt + 1))
        return data, journal

    def load(self) -> tuple[State | None, Diagnostics]:
        """Read the state (a new empty State, serial 0, when there is none) with the changes of
        a journal left beside it: folded into the state file when this manager holds the lock,
        overlaid in memory otherwise. The returned State is the manager's own `state`."""
        with self._mutex:
            diags = Diagnostics()
            try:
                data, journal = self._read_files()
            except OSError as exc:
                diags.error("Failed to load state", f"Error reading {self.path}: {exc.strerror or exc}.")
                return None, diags
            try:
                text: str | None = data.decode("utf-8")  # once: read here, kept by _LoadedBody
            except UnicodeDecodeError:
                text = None
            state, rd = read_state(data, source=self.path) if text is None else \
                read_state_text(text, source=self.path)
            diags.append(rd)
            if rd.has_errors:
                return None, diags
            self.found = state is not None  # a snapshot existed (Terraform's "state" commands need one)
            if state is None:
                state = State(serial=0)
                self._body = None
            else:
                # a plan changes nothing in the State it is handed (it plans on copies) and never
                # writes it, unless a journal left beside it is folded in below: no copy then
                self._body = _LoadedBody(text or "", state,
                                         snapshot=journal is not None or self.operation != "OperationTypePlan")
            self._serial = state.serial
            self._initial_bytes = data if data and not data.isspace() else b""  # (strip would copy it)
            self._initial_body = self._body
            self._backup_written = False
            self.state = state
            if journal is not None:
                diags.append(self._recover(journal) if self.locked else self._overlay(journal))
            return (None if diags.has_errors else self.state), diags

    # ---- writing
    def _write_out(self, data: bytes) -> None:
        if self._lock.held:
            self._lock.replace(data)  # keeps the locked file at the path (a waiting Terraform's)
        else:
            atomic_write(self.out_path, data)

    def persist(self, state: State) -> Diagnostics:
        """Write state if its content changed since the last read/write (serial + 1).

        Sets state.serial/lineage/terraform_version to what was written. The first change
        in this manager's life first saves the state as loaded to the backup path.
        """
        with self._mutex:
            diags = Diagnostics()
            body = state_body(state)
            if not state.lineage:
                state.lineage = random_uuid()
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
                self._write_out(encode_bytes(text))
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
            self._write_out(encode_bytes(text))
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
