"""When the console's cyclic garbage collector may walk the whole heap: only while nobody types.

A 10,000-instance plan with its state and trees is several hundred thousand objects. A full
(oldest-generation) collection walks all of them holding the GIL: 0.1-0.6 s of CPU measured at
10,000 instances. Left to its thresholds it starts whenever some allocation tips the count - in
a key's handler, in a repaint, in the worker thread that reads the state for the State view -
and every key waits for it. So, for the console's whole life:

- automatic full collections are off (the oldest generation's threshold is out of reach); the
  young generations are collected as usual (a few milliseconds each, measured);
- an operation's start unfreezes the heap, so what it turns into garbage can be found later;
- a full collection runs only when no operation runs and no key has come for `idle` seconds:
  once after each operation, and as a sweep when the young generations have promoted as much as
  would have started one automatically; its survivors are frozen (`gc.freeze`), so the next
  sweep walks only what came after.

Textual-free: the app calls `key()`, `operation(busy)` and, from a periodic timer, `tick()`.
"""
from __future__ import annotations

import gc
import time
from typing import Callable

OUT_OF_REACH = 1 << 30  # the oldest generation's threshold: never reached
YOUNG = (700, 10)  # CPython's own young thresholds (a CLI run raises them; the console needs short pauses)
SWEEP_AFTER = 10  # young collections of the middle generation between idle sweeps (CPython's default)


class HeapPolicy:
    def __init__(self, idle: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.idle = idle
        self.clock = clock
        self.busy = False
        self.pending = False  # an operation ended since the last full collection
        self.last_key = float("-inf")
        self.collections = 0  # full collections run by this policy (for tests and benchmarks)
        self._saved: tuple[int, int, int] | None = None

    def start(self) -> None:
        if self._saved is None:
            self._saved = gc.get_threshold()
            gc.set_threshold(*YOUNG, OUT_OF_REACH)

    def stop(self) -> None:
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None
        gc.unfreeze()

    def key(self) -> None:
        self.last_key = self.clock()

    def operation(self, busy: bool) -> None:
        if busy and not self.busy:
            gc.unfreeze()  # (moves nothing now: the full collection after it sees these again)
        elif self.busy and not busy:
            self.pending = True
        self.busy = busy

    def tick(self) -> bool:
        """Collect now if it is time and nobody is typing; True when a collection ran."""
        if self.busy or self._saved is None or self.clock() - self.last_key < self.idle:
            return False
        if not self.pending and gc.get_count()[2] < SWEEP_AFTER:
            return False
        self.pending = False
        gc.collect()
        gc.freeze()
        self.collections += 1
        return True
