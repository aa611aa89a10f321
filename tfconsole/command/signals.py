"""SIGINT and SIGTERM for the CLI, handled alike, as Terraform handles them.

The first signal during a plan or apply walk asks the operation to stop: nothing new is
scheduled, in-flight work finishes, providers are told to stop, the state is saved and the lock
released by the normal path. Outside a walk the first signal unwinds the command (KeyboardInterrupt),
which releases any lock on the way out. A second signal exits at once: everything completed is
already in the state journal and every state write is atomic (temp file + rename), so the next
run recovers it; the kernel drops the lock's flock with the process.
"""
from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

FIRST_MESSAGE = ("\nInterrupt received.\nPlease wait for Terraform to exit or data loss may occur.\n"
                 "Gracefully shutting down...\n")
SECOND_MESSAGE = "\nTwo interrupts received. Exiting immediately. Note that data loss may have occurred.\n"
HANDLED = (signal.SIGINT, signal.SIGTERM)


class Interrupts:
    def __init__(self, stderr: TextIO) -> None:
        self.stderr = stderr
        self.received = 0
        self._operation: Any = None  # the core.Context whose walk is running

    def install(self) -> bool:
        """Take over SIGINT and SIGTERM (only the main thread may); False when not possible."""
        if threading.current_thread() is not threading.main_thread():
            return False
        for sig in HANDLED:
            signal.signal(sig, self._handle)
        return True

    @contextmanager
    def operation(self, ctx: Any) -> Iterator[None]:
        """While the block runs, a first signal cancels ctx instead of unwinding the command."""
        self._operation = ctx
        try:
            yield
        finally:
            self._operation = None

    def _handle(self, signum: int, frame: Any) -> None:
        self.received += 1
        if self.received > 1:
            self._write(SECOND_MESSAGE)
            os._exit(1)
        if self._operation is None:
            raise KeyboardInterrupt
        self._write(FIRST_MESSAGE)
        self._operation.cancel()

    def _write(self, text: str) -> None:
        try:
            self.stderr.write(text)
            self.stderr.flush()
        except (OSError, ValueError):
            pass  # a closed pipe must not turn a clean stop into a crash
