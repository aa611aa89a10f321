"""The log of one provider process: its stderr (and stray stdout), line by line, attributed to
the resource instance whose call was in flight when the line arrived.

Go providers write hclog JSON lines ({"@level", "@message", "@timestamp", "@module", fields...});
older ones and other languages write text (hclog's "[INFO]  message: k=v", or anything). A
line is attributed to a resource when exactly one call for a resource is in flight, or when the
line's tf_resource_type / tf_rpc fields narrow the in-flight calls to one (with none in flight,
the calls that ended in the last half second stand in: the line may be read only after the
call's answer). Kept in a bounded
buffer; listeners (the hooks) receive each line as it arrives.

Never raises into the reader thread: a listener failing is ignored.
"""
from __future__ import annotations

import contextlib
import itertools
import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any

RECENT_SECONDS = 0.5
_TEXT_LEVEL = re.compile(r"\[(TRACE|DEBUG|INFO|WARN|WARNING|ERROR)\]")


@dataclass(frozen=True)
class LogLine:
    time: float
    level: str  # trace | debug | info | warn | error | "" (unknown)
    message: str
    resource: str | None = None  # the resource instance address the line belongs to
    rpc: str | None = None  # the call in flight it was attributed to
    fields: dict[str, Any] = field(default_factory=dict)
    stream: str = "stderr"


@dataclass
class _Call:
    resource: str | None
    rpc: str
    type_name: str | None


Listener = Callable[[str, LogLine], None]


class ProviderLog:
    """Lines of one provider process, with the calls in flight used to attribute them."""

    def __init__(self, provider: str, max_lines: int = 20_000):
        self.provider = provider
        self.lines: deque[LogLine] = deque(maxlen=max_lines)
        self._calls: dict[int, _Call] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._listeners: list[Listener] = []
        # calls that ended moments ago: a line the provider wrote during a call may be read
        # only after the call's answer arrived
        self._recent: deque[tuple[float, _Call]] = deque(maxlen=64)

    def add_listener(self, fn: Listener) -> None:
        self._listeners.append(fn)

    # ---- calls in flight
    def begin_call(self, rpc: str, resource: str | None, type_name: str | None) -> int:
        with self._lock:
            token = next(self._ids)
            self._calls[token] = _Call(resource, rpc, type_name)
            return token

    def end_call(self, token: int) -> None:
        with self._lock:
            call = self._calls.pop(token, None)
            if call is not None and call.resource:
                self._recent.append((time.monotonic(), call))

    def in_flight(self) -> int:
        with self._lock:
            return len(self._calls)

    # ---- lines
    def feed(self, raw: str, stream: str = "stderr") -> LogLine | None:
        raw = raw.rstrip("\r\n")
        if not raw.strip():
            return None
        level, message, fields = parse_line(raw)
        with self._lock:
            call = self._attribute(fields)
            line = LogLine(time.time(), level, message, call.resource if call else None,
                           call.rpc if call else None, fields, stream)
            self.lines.append(line)
        for fn in self._listeners:
            with contextlib.suppress(Exception):  # a UI bug must not stop the log reader
                fn(self.provider, line)
        return line

    def _attribute(self, fields: dict[str, Any]) -> _Call | None:
        rtype, rpc = fields.get("tf_resource_type"), fields.get("tf_rpc")

        def narrow(calls: list[_Call]) -> list[_Call]:
            if len(calls) > 1 and (rtype or rpc):
                calls = [c for c in calls if (not rtype or c.type_name == rtype) and (not rpc or c.rpc == rpc)]
            return calls

        calls = narrow([c for c in self._calls.values() if c.resource])
        if not calls:
            horizon = time.monotonic() - RECENT_SECONDS
            calls = narrow([c for t, c in self._recent if t >= horizon])
        # several calls for one resource (its plan just ended, its apply runs) still name it
        return calls[-1] if calls and len({c.resource for c in calls}) == 1 else None

    def for_resource(self, address: str) -> list[LogLine]:
        with self._lock:
            return [ln for ln in self.lines if ln.resource == address]

    def tail(self, n: int = 20) -> list[LogLine]:
        with self._lock:
            return list(self.lines)[-n:]


def parse_line(raw: str) -> tuple[str, str, dict[str, Any]]:
    """(level, message, fields) of one line: hclog JSON, or text with an optional [LEVEL]."""
    if raw.startswith("{"):
        try:
            obj = json.loads(raw)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            level = str(obj.pop("@level", "")).lower()
            message = str(obj.pop("@message", ""))
            obj.pop("@timestamp", None)
            return level, message, obj
    m = _TEXT_LEVEL.search(raw)
    level = m.group(1).lower() if m else ""
    if level == "warning":
        level = "warn"
    return level, raw, {}
