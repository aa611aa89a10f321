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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

FIRST_MESSAGE = ("\nInterrupt received.\nPlease wait for Terraform to exit or data loss may occur.\n"
                 "Gracefully shutting down...\n")
SECOND_MESSAGE = "\nTwo interrupts received. Exiting immediately. Note that data loss may have occurred.\n"
HANDLED = (signal.SIGINT, signal.SIGTERM)


STOPPING_MESSAGE = "Stopping operation..."


class Interrupts:
    """`say(text, kind)` tells the user: kind "interrupted" / "fatal" (Terraform writes them to
    stderr) or "stopping" (stdout). The JSON UI swaps it for log messages on its stream."""

    def __init__(self, stderr: TextIO, stdout: TextIO | None = None) -> None:
        self.stderr = stderr
        self.stdout = stdout
        self.received = 0
        self._operation: Any = None  # the core.Context whose walk is running
        self.say: Callable[[str, str], None] = self._write_human
        self.before_output: Callable[[], None] | None = None  # writes what the CLI still holds

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
            self._say(SECOND_MESSAGE, "fatal")
            self._flush_stdout()  # progress lines still buffered (cliview.CLIHook) go out first
            os._exit(1)
        if self._operation is None:
            raise KeyboardInterrupt
        self._say(FIRST_MESSAGE, "interrupted")
        self._say(STOPPING_MESSAGE, "stopping")
        self._operation.cancel()

    def _say(self, text: str, kind: str) -> None:
        try:
            self.say(text, kind)
        except (OSError, ValueError):
            pass  # a closed pipe must not turn a clean stop into a crash

    def _flush_stdout(self) -> None:
        try:
            if self.before_output is not None:
                self.before_output()
            if self.stdout is not None:
                self.stdout.flush()
        except (OSError, ValueError, RuntimeError):
            pass  # closed, broken, or being written by the code this signal interrupted

    def _write_human(self, text: str, kind: str) -> None:
        stream = self.stdout if kind == "stopping" and self.stdout is not None else self.stderr
        self._flush_stdout()  # buffered progress lines come before the message, as printed
        stream.write(text if kind != "stopping" else text + "\n")
        stream.flush()
