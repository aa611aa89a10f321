"""Folding a journal left by a run that did not finish: one implementation for every state
manager (the filesystem one in manager.py and the remote one in backends/remote.py).

A manager holding the lock recovers: it replays the journal onto the state it just read,
persists the result, and removes the journal (or keeps it aside when it belongs to another
lineage or has malformed records). A reader without the lock only overlays the journal in
memory: a live apply may still be writing it.

The manager supplies `state` (the state just read), `_body` (None when there was no state yet,
so the journal's lineage is the one the run was creating), `journal_path`, `persist(state)` and
`persisted_to` (the words naming where recovered changes were written).
"""
from __future__ import annotations

import os
import time
from typing import Any

from tfconsole.diags import Diagnostics

from .fileio import fsync_dir, read_or_empty
from .journal import Journal, replay_journal
from .state import State

# How many malformed journal records are reported one by one (the rest are counted).
MAX_REPORTED_BAD_RECORDS = 10


class JournalRecovery:
    state: State | None
    _body: Any
    _journal: Journal | None
    journal_path: str

    @property
    def persisted_to(self) -> str:
        raise NotImplementedError

    def persist(self, state: State) -> Diagnostics:
        raise NotImplementedError

    def _replay(self, data: bytes, diags: Diagnostics) -> tuple[State, Any]:
        assert self.state is not None
        recovered = self.state.deep_copy()
        lineage = self.state.lineage if self._body is not None else None
        sub = Diagnostics()
        result = replay_journal(recovered, data, sub, path=self.journal_path, lineage=lineage)
        errors = sub.errors()
        for d in errors[:MAX_REPORTED_BAD_RECORDS]:
            diags.append(d)
        if len(errors) > MAX_REPORTED_BAD_RECORDS:
            diags.error("Corrupt state journal records",
                        f"{len(errors) - MAX_REPORTED_BAD_RECORDS} more malformed records of "
                        f"{self.journal_path} were not applied (lines "
                        f"{', '.join(map(str, result.bad_lines[MAX_REPORTED_BAD_RECORDS:][:20]))}...).")
        return recovered, result

    def _overlay(self, data: bytes) -> Diagnostics:
        """A reader's view: the state with the journal's changes, in memory only."""
        diags = Diagnostics()
        recovered, result = self._replay(data, diags)
        if not result.lineage_ok:
            diags.warning("State journal ignored",
                          f"The state journal {self.journal_path} belongs to a different state "
                          "(lineage mismatch); its changes are not shown.")
            return diags
        self.state = recovered
        return diags

    def _set_aside(self, suffix: str) -> str:
        aside = f"{self.journal_path}.{suffix}-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
        os.replace(self.journal_path, aside)
        fsync_dir(os.path.dirname(os.path.abspath(self.journal_path)))
        return aside

    def _recover(self, data: bytes) -> Diagnostics:
        """Fold a journal left by a run that did not finish (the caller holds the lock)."""
        diags = Diagnostics()
        recovered, result = self._replay(data, diags)
        if not result.lineage_ok:
            stale = self._set_aside("stale")
            diags.warning("State journal ignored",
                          f"The state journal {self.journal_path} belongs to a different state "
                          f"(lineage mismatch); it was moved to {stale} and not applied.")
            return diags
        if result.applied:
            pd = self.persist(recovered)
            if pd.has_errors:
                diags.append(pd)
                return diags
            diags.warning("Recovered state changes from an interrupted run",
                          f"{result.applied} change(s) recorded by a previous run that did not finish "
                          f"were written to {self.persisted_to}.")
        if result.bad_lines:
            kept = self._set_aside("corrupt")
            diags.error("State journal kept aside",
                        f"The state journal {self.journal_path} had {len(result.bad_lines)} malformed "
                        f"record(s), which were not applied; every valid record was. The journal was "
                        f"moved to {kept} for inspection. Check the state (for example with "
                        "\"state list\") before running again.")
            return diags
        os.unlink(self.journal_path)
        fsync_dir(os.path.dirname(os.path.abspath(self.journal_path)))
        return diags

    def fold_journal(self, journal: Journal, state: State | None = None) -> Diagnostics:
        """End of apply: write the full state, then remove the (closed) journal.

        With state=None the journal's records are applied to the manager's current state;
        otherwise `state` (the engine's final state, which already holds every change) is
        written. The journal is removed only after the state is safely written."""
        diags = Diagnostics()
        if state is None:
            state = self.state.deep_copy() if self.state else State()
            replay_journal(state, read_or_empty(journal.path), diags, path=journal.path)
            if diags.has_errors:
                return diags  # the journal stays for the next locked run to recover and report
        diags.append(self.persist(state))
        if not diags.has_errors:
            try:
                os.unlink(journal.path)
            except FileNotFoundError:
                pass
            fsync_dir(os.path.dirname(os.path.abspath(journal.path)))
            if self._journal is journal:
                self._journal = None
        return diags
