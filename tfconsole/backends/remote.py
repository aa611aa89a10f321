"""The state manager of a remote backend (http, pg): the state lives on a server, changes are
journaled locally while the server's lock is held.

A backend supplies a *client* for one workspace (get / put / delete the state's bytes, lock /
unlock with Terraform's lock-info JSON); RemoteStateManager gives it the same interface as the
filesystem StateManager, so every command works unchanged on any backend.

Durability (Terraform persists remote state at most every 20 s, so a crash loses up to 20 s of
work): an apply appends every completed change to a journal under the data directory,
``.terraform/remote-journal/<type>-<store hash>/<workspace>.journal`` (never a state file in the working
directory), pushes the state to the server every PUSH_INTERVAL seconds while it runs and at the
end, and removes the journal once the final state is on the server. A run killed mid-apply
leaves the journal; the next run that takes the lock folds it into the remote state before
anything else (records are absolute: replaying one that was already pushed changes nothing).

A killed holder can also leave the server's lock behind (an http lock outlives its holder; a pg
advisory lock does not). While it holds a remote lock a run keeps an fcntl lock on
``<workspace>.lock.json`` (its lock info) beside the journal; when the server refuses us and that
file names the server's holder but nobody holds the file's lock, the holder was a tfconsole run
in this directory that died: its lock is released (with its own lock info) and taken again.
"""
from __future__ import annotations

import fcntl
import os
import threading
import time
import zlib
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any, Callable, Protocol

from tfconsole.diags import Diagnostics
from tfconsole.states.journal import Journal, replay_journal
from tfconsole.states.locking import LockInfo, lock_error
from tfconsole.states.fileio import atomic_write, read_or_none
from tfconsole.states.recovery import JournalRecovery
from tfconsole.states.state import State, random_uuid
from tfconsole.states.statefile import encode_bytes, read_state, state_body, state_header, terraform_version

JOURNAL_DIR = "remote-journal"
PUSH_INTERVAL_ENV = "TFCONSOLE_REMOTE_PUSH_INTERVAL"
PUSH_INTERVAL = 5.0  # seconds between pushes of a running apply's changes


@dataclass
class LockAttempt:
    """One try to take a server's lock: ok, or the error text, the holder's info (when the
    server says who) and whether trying again can help (a held lock, not bad credentials)."""

    ok: bool
    message: str = ""
    holder: LockInfo | None = None
    retry: bool = True


class RemoteClient(Protocol):
    """One workspace's state on a server (Terraform's remote.Client, with a lock)."""

    label: str  # names the state in messages

    def get(self) -> tuple[bytes | None, Diagnostics]: ...
    def put(self, data: bytes) -> Diagnostics: ...
    def lock(self, info: LockInfo) -> LockAttempt: ...
    def unlock(self, info: LockInfo) -> Diagnostics: ...
    def close(self) -> None: ...


def journal_dir(working_dir: str, data_dir: str, kind: str, identity: str) -> str:
    """Where a backend's journals live: one directory per state store (backend type and a hash of
    what identifies the store, e.g. the http address), so a journal is never folded into another
    store's state after the backend is reconfigured."""
    d = data_dir if os.path.isabs(data_dir) else os.path.join(working_dir or ".", data_dir)
    return os.path.join(d, JOURNAL_DIR, f"{kind}-{zlib.crc32(identity.encode('utf-8')):08x}")


def push_interval() -> float:
    try:
        return max(0.05, float(os.environ.get(PUSH_INTERVAL_ENV, "") or PUSH_INTERVAL))
    except ValueError:
        return PUSH_INTERVAL


class _Marker:
    """``<workspace>.lock.json``: the remote lock this run holds, fcntl-locked while it is held."""

    def __init__(self, path: str):
        self.path = path
        self._fd: int | None = None

    def hold(self, info: LockInfo) -> None:
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return  # another run here holds it; the server's lock is what excludes us both
        data = info.to_json().encode("utf-8")
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
        os.fsync(fd)
        self._fd = fd

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            os.unlink(self.path)
        except OSError:
            pass
        os.close(self._fd)
        self._fd = None

    def dead_holder(self) -> LockInfo | None:
        """The lock info a run that died here left (None when the file is absent or its run lives)."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return None
        try:
            return LockInfo.from_json(os.pread(fd, 1 << 20, 0).decode("utf-8", "replace"))
        finally:
            os.close(fd)


class RemoteStateManager(JournalRecovery):
    """Reads, locks and persists one workspace's state through a RemoteClient (the interface of
    states.manager.StateManager: lock/unlock/close, load, persist, write_raw, open_journal)."""

    remote = True

    def __init__(self, client: RemoteClient, journal_path: str, *, lock: bool = True,
                 lock_timeout: float = 0.0, operation: str = "OperationTypeApply", lock_path: str = ""):
        self.client = client
        self.path = None  # no local state file
        self.lock_enabled = lock
        self.lock_timeout = lock_timeout
        self.operation = operation
        self.lock_path = lock_path  # the Path of our lock info (Terraform's, per backend)
        self.journal_path = journal_path
        self._marker = _Marker(journal_path[:-len(".journal")] + ".lock.json")
        self._mutex = threading.RLock()
        self.info: LockInfo | None = None
        self.state: State | None = None
        self._serial = 0
        self._body: str | None = None
        self._journal: Journal | None = None
        self._pusher: _Pusher | None = None
        self.on_lock_wait: Callable[[], None] | None = None

    @property
    def persisted_to(self) -> str:
        return self.client.label

    # ---- lock
    @property
    def locked(self) -> bool:
        return self.info is not None

    def lock(self, operation: str | None = None, info: str | None = None,
             timeout: float | None = None) -> Diagnostics:
        diags = Diagnostics()
        if not self.lock_enabled or self.info is not None:
            return diags
        mine = LockInfo.new(operation or self.operation, self.lock_path, info or "")
        deadline = time.monotonic() + max(0.0, self.lock_timeout if timeout is None else timeout)
        delay, on_wait, took_over = 0.2, self.on_lock_wait, False
        while True:
            att = self.client.lock(mine)
            if att.ok:
                break
            if not took_over and att.holder is not None and self._take_over(att.holder):
                took_over = True
                continue
            if not att.retry or time.monotonic() >= deadline:
                diags.append(lock_error(att.message, att.holder))
                return diags
            if on_wait is not None:
                on_wait()
                on_wait = None
            time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
            delay = min(delay * 2, 2.0)
        self.info = mine
        self._marker.hold(mine)
        return diags

    def _take_over(self, holder: LockInfo) -> bool:
        """Release a lock left on the server by a run here that died (see the module docstring)."""
        dead = self._marker.dead_holder()
        if dead is None or not dead.ID or dead.ID != holder.ID:
            return False
        return not self.client.unlock(dead).has_errors

    def unlock(self) -> None:
        self._stop_pusher()
        if self._journal is not None:
            self._journal.close()
            self._journal = None
        if self.info is not None:
            self.client.unlock(self.info)
            self.info = None
            self._marker.release()

    def close(self) -> None:
        self.unlock()
        self.client.close()

    def __enter__(self) -> "RemoteStateManager":
        d = self.lock()
        if d.has_errors:
            from tfconsole.diags import DiagnosticsError
            raise DiagnosticsError(d)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ---- reading
    def load(self) -> tuple[State | None, Diagnostics]:
        """The server's state (an empty State, serial 0, when there is none), with a journal left
        by a killed run folded in and pushed (holding the lock) or overlaid in memory (not)."""
        with self._mutex:
            data, diags = self.client.get()
            if diags.has_errors:
                return None, diags
            state, rd = read_state(data or b"", source=self.client.label)
            diags.append(rd)
            if rd.has_errors:
                return None, diags
            self._body = None if state is None else state_body(state)
            self.found = state is not None  # a snapshot existed (Terraform's "state" commands need one)
            state = state or State(serial=0)
            self._serial = state.serial
            self.state = state
            journal = read_or_none(self.journal_path)
            if journal is not None:
                diags.append(self._recover(journal) if self.locked else self._overlay(journal))
            return (None if diags.has_errors else self.state), diags

    # ---- writing
    def persist(self, state: State) -> Diagnostics:
        """Push state if its content changed since the last read/push (serial + 1)."""
        with self._mutex:
            diags = Diagnostics()
            body = state_body(state)
            if not state.lineage:
                state.lineage = random_uuid()
            if self._body is not None and self._body == body:
                state.serial = self._serial
                self.state = state
                return diags
            serial, tfv = self._serial + 1, terraform_version()
            diags.append(self.client.put(encode_bytes(state_header(tfv, serial, state.lineage) + body)))
            if diags.has_errors:
                return diags
            state.serial, state.terraform_version = serial, tfv
            self._serial, self._body, self.state = serial, body, state
            return diags

    def write_raw(self, text: str) -> Diagnostics:
        return self.client.put(encode_bytes(text))

    # ---- journal
    def open_journal(self) -> Journal:
        with self._mutex:
            if self._journal is not None and not self._journal.closed:
                return self._journal
            os.makedirs(os.path.dirname(self.journal_path), exist_ok=True)
            st = self.state or State()
            self._journal = Journal(self, self.journal_path, st.lineage, self._serial)
            self._pusher = _Pusher(self, self._journal, push_interval())
            return self._journal

    def push_journal(self, journal: Journal) -> Diagnostics:
        """Push the last pushed state with the journal's records so far (a running apply)."""
        with self._mutex:
            data = read_or_none(journal.path)
            if data is None or self.state is None:
                return Diagnostics()
            sub = Diagnostics()
            state = self.state.deep_copy()
            result = replay_journal(state, data, sub, path=journal.path)
            if sub.has_errors or not result.lineage_ok:
                return sub
            return self.persist(state)

    def _stop_pusher(self) -> None:
        if self._pusher is not None:
            self._pusher.stop()
            self._pusher = None

    def fold_journal(self, journal: Journal, state: State | None = None) -> Diagnostics:
        """End of apply: stop the periodic pushes, push the final state, remove the journal."""
        self._stop_pusher()
        return super().fold_journal(journal, state)


class _Pusher:
    """Pushes a running apply's journaled changes to the server every `interval` seconds."""

    def __init__(self, manager: RemoteStateManager, journal: Journal, interval: float):
        self.manager, self.journal, self.interval = manager, journal, interval
        self._stop = threading.Event()
        self._pushed = 0
        self._thread = threading.Thread(target=self._run, name="remote-state-push", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            n = self.journal.records
            if n != self._pushed:
                self.manager.push_journal(self.journal)  # a failure is retried next time
                self._pushed = n

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join()


__all__ = ["LockAttempt", "RemoteClient", "RemoteStateManager", "journal_dir", "atomic_write"]
