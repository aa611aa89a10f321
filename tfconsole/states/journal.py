"""The state journal: one JSON line per completed change, beside the state file.

An apply appends a record for every change as it completes (``<state>.journal``), so a killed
process loses nothing that completed; the journal is folded into the state file at the end, or
by the next command that holds the lock. Readers overlay it in memory and never change it.

Records (one JSON object per line, the first a header):

* ``{"k": "h", "lineage": L, "serial": N, "v": 1}``   the state the run started from
* ``{"k": "r", "a": ADDR, "p": PROVIDER, "e": EACH, "d"?: DEPOSED, "o": OBJECT|null}``
* ``{"k": "o", "n": NAME, "v": VALUE, "t": TYPE, "s": SENSITIVE}`` or ``{"k": "o", "n": NAME, "x": true}``
* ``{"k": "c", "v": CHECK_RESULTS}``

A journal is data read back from disk: every record is checked before it touches a State. A
torn last line (no newline: the write of a killed process) is dropped silently; any other
malformed record is reported with the journal's path and the line number, never applied.
"""
from __future__ import annotations

import json
import os
import threading
from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from decimal import Decimal
from typing import Any

from tfconsole.fastjson import orjson as _orjson_module  # imported when a record is first written

from tfconsole.addrs import AbsResourceInstance, AddressError, parse_instance
from tfconsole.diags import Diagnostics

from .checks import is_int, json_kind
from .state import ObjectState, OutputState, State
from .statefile import _parse_float, _Where, check_check_results, check_output, object_from_json

__all__ = ["Journal", "JournalReplay", "replay_journal", "CORRUPT_JOURNAL"]

CORRUPT_JOURNAL = "Corrupt state journal record"

_DEC = "__tfconsole_decimal__"


def _json_default(v: Any) -> Any:
    if isinstance(v, Decimal):
        return {_DEC: format(v, "f")}
    if isinstance(v, tuple):
        return list(v)
    raise TypeError(f"cannot encode {type(v).__name__} in the state journal")


# json.dumps with these arguments, made once (json.dumps builds a new encoder per call when
# given any argument, a tenth of a record's cost)
_encode_record = json.JSONEncoder(separators=(",", ":"), default=_json_default).encode


def _record_bytes(rec: dict, floatless: bool | None = None) -> bytes:
    """One journal line. orjson (C, several times faster: records are written under the state's
    lock) for records without floats, which it would write differently (NaN as null); the
    standard encoder for the rest and for what orjson refuses (Decimals, integers beyond 64
    bits, lone surrogates). Both read back to the same record. `floatless`: already known."""
    _orjson = _orjson_module()
    if _orjson is not None and (_floatless(rec) if floatless is None else floatless):
        try:
            return _orjson.dumps(rec, option=_orjson.OPT_APPEND_NEWLINE)
        except TypeError:
            pass
    return (_encode_record(rec) + "\n").encode("utf-8")


def _floatless(v: Any) -> bool:
    t = type(v)
    if t is dict:
        for x in v.values():
            tx = type(x)
            if tx is not str and tx is not int and x is not None and tx is not bool and not _floatless(x):
                return False
        return True
    if t is list or t is tuple:
        for x in v:
            tx = type(x)
            if tx is not str and tx is not int and x is not None and tx is not bool and not _floatless(x):
                return False
        return True
    return t is str or t is int or t is bool or v is None


def _json_hook(d: dict) -> Any:
    if len(d) == 1 and _DEC in d and isinstance(d[_DEC], str):
        try:
            return Decimal(d[_DEC])
        except ArithmeticError:
            return d
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


# ---------------------------------------------------------------------------
# reading


@dataclass
class JournalReplay:
    """What replaying a journal did: records applied, the header's lineage and serial, whether the
    lineage matched, and the line numbers of the records refused as malformed."""

    applied: int = 0
    lineage: str | None = None
    serial: int | None = None
    lineage_ok: bool = True
    bad_lines: list[int] = field(default_factory=list)


class _Bad(Exception):
    """A malformed record (internal to the reader: the reason, reported as a diagnostic)."""


def _field(rec: dict, key: str, kinds: tuple, wanted: str, required: bool = True) -> Any:
    v = rec.get(key)
    if v is None and not required:
        return None
    if not isinstance(v, kinds) or (isinstance(v, bool) and bool not in kinds):
        raise _Bad(f'field "{key}" is {json_kind(v)}, where {wanted} is required')
    return v


def _check_header(rec: dict) -> tuple[str, int | None]:
    lineage = _field(rec, "lineage", (str,), "a string", required=False) or ""
    serial = rec.get("serial")
    if serial is not None and not (is_int(serial) and serial >= 0):
        raise _Bad(f'field "serial" is {json_kind(serial)}, where a non-negative integer is required')
    return lineage, serial


def _resource_record(state: State, rec: dict, where: _Where, diags: Diagnostics) -> None:
    a = _field(rec, "a", (str,), "a resource instance address")
    try:
        addr = parse_instance(a)
    except AddressError as exc:
        raise _Bad(f"{json.dumps(a)} is not a resource instance address: {exc}") from None
    provider = _field(rec, "p", (str,), "a provider configuration address")
    if not provider:
        raise _Bad('field "p" is empty, where a provider configuration address is required')
    each = _field(rec, "e", (str,), '"", "list" or "map"', required=False) or ""
    if each not in ("", "list", "map"):
        raise _Bad(f'field "e" is {json.dumps(each)}, where "", "list" or "map" is required')
    dk = _field(rec, "d", (str,), "an 8-character deposed key", required=False)
    if dk is not None and len(dk) != 8:
        raise _Bad(f'field "d" is {json.dumps(dk)}, where an 8-character deposed key is required')
    obj = None
    if rec.get("o") is not None:
        sub = Diagnostics()
        obj = object_from_json(rec["o"], str(addr), sub, source=where.source, field=where.field + ".o")
        if obj is None:
            raise _Bad("; ".join(f"{d.summary}: {d.detail}" for d in sub.errors()) or "invalid object")
    if dk:
        state.set_deposed(addr, dk, obj, provider)
    else:
        state.set_current(addr, obj, provider, each or None)


def _output_record(state: State, rec: dict, where: _Where) -> None:
    name = _field(rec, "n", (str,), "an output name")
    if rec.get("x") is True:
        state.outputs.pop(name, None)
        return
    sub = Diagnostics()
    out = check_output(name, {"value": rec.get("v"), "type": rec.get("t"), "sensitive": rec.get("s")},
                       where, sub)
    if out is None:
        raise _Bad("; ".join(f"{d.summary}: {d.detail}" for d in sub.errors()))
    state.outputs[name] = out


def _apply_record(state: State, rec: Any, where: _Where, diags: Diagnostics,
                  lineage: str | None, result: JournalReplay) -> bool:
    """Apply one record; False when the journal belongs to another state (stop there)."""
    if not isinstance(rec, dict):
        raise _Bad(f"the record is {json_kind(rec)}, where a JSON object is required")
    kind = rec.get("k")
    if kind == "h":
        jl, serial = _check_header(rec)
        result.lineage, result.serial = jl or None, serial
        if lineage is not None and jl not in ("", lineage):
            result.lineage_ok = False
            return False
        if lineage is None and jl:
            state.lineage = jl
        return True
    if kind == "r":
        _resource_record(state, rec, where, diags)
    elif kind == "o":
        _output_record(state, rec, where)
    elif kind == "c":
        sub = Diagnostics()
        if not check_check_results(rec.get("v"), where.at("v"), sub):
            raise _Bad("; ".join(d.detail for d in sub.errors()))
        state.check_results = rec.get("v")
    else:
        raise _Bad(f'unknown record kind {json.dumps(kind)}')
    result.applied += 1
    return True


def replay_journal(state: State, data: bytes, diags: Diagnostics, *, path: str = "",
                   lineage: str | None = None) -> JournalReplay:
    """Apply the journal's records to state, in order, checking each first.

    A torn last line (no trailing newline) is the write a killed process did not finish: it is
    dropped silently. Every other malformed record is refused with an error naming the journal
    and its line, and not applied; the records around it are. lineage: the lineage the journal
    must belong to (None: any; the state then takes the journal's lineage)."""
    result = JournalReplay()
    lines = data.split(b"\n")
    # the last element is b"" when the file ends with a newline, else a torn partial record
    for i, line in enumerate(lines[:-1]):
        if not line.strip():
            continue
        where = _Where(path or "state journal", f"line {i + 1}")
        try:
            try:
                rec = json.loads(line, object_hook=_json_hook, parse_float=_parse_float)
            except (ValueError, RecursionError) as exc:
                raise _Bad(f"not a JSON record ({exc})") from None
            if not _apply_record(state, rec, where, diags, lineage, result):
                return result
        except _Bad as bad:
            result.bad_lines.append(i + 1)
            named = f" {path}" if path else ""
            diags.error(CORRUPT_JOURNAL,
                        f"Line {i + 1} of the state journal{named} is malformed and was not applied: {bad}.")
    return result


# ---------------------------------------------------------------------------
# writing


class Journal:
    """Append-only log of completed changes, beside the state file (``<state>.journal``).

    record()/record_output() each append one JSON line with a single write(2) (looping only
    on a short write); no fsync per record, so a killed process keeps every record whose
    write returned. sync() fsyncs; fold() writes the full state atomically and removes the
    journal. Thread-safe.
    """

    def __init__(self, manager: Any, path: str, lineage: str, serial: int):
        self.manager = manager
        self.path = path
        self._lock = threading.Lock()
        self._fd: int | None = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC,
                                       0o600)
        self.records = 0
        if os.fstat(self._fd).st_size == 0:
            self._append({"k": "h", "lineage": lineage, "serial": serial, "v": 1})
            from .fileio import fsync_dir

            fsync_dir(os.path.dirname(os.path.abspath(path)))

    @property
    def closed(self) -> bool:
        return self._fd is None

    def _append(self, rec: dict, floatless: bool | None = None) -> None:
        data = _record_bytes(rec, floatless)
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
        if obj is None:
            rec["o"] = None
            self._append(rec)
            return
        o = rec["o"] = _obj_plain(obj)
        attrs = o["attributes"]
        if obj.plain_attributes is not attrs:
            self._append(rec)
            return
        # the attributes are known floatless and the record's own fields are texts: only the
        # object's other JSON data is looked at
        floatless = (type(provider) is str and type(obj.schema_version) is int
                     and type(obj.identity_schema_version) is int and _floatless(obj.sensitive_attributes)
                     and _floatless(obj.identity) and _floatless(obj.attributes_flat))
        self._append(rec, floatless)

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
        """End of apply: write the full state and remove the journal (see StateManager.fold)."""
        self.close()
        return self.manager.fold_journal(self, state)

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
