"""The data encoding of a plan's contents: language values, types, paths and changes as JSON.

Plan files hold values that plain JSON cannot say: "known after apply" (unknown) values of a
type, typed nulls, sensitive marks at any depth, and collections that carry their element
type. Each value is written as JSON, tagged only where JSON alone would be ambiguous:

    null, true/false, "string"         themselves
    integer, finite float             a JSON number (floats keep their ".0")
    {"f": "inf" | "-inf" | "nan"}     a non-finite float
    {"d": "1.5e400"}                  a Decimal (long numbers read from a state file)
    {"N": [MANT, EXP, PREC]}          a language number held as a binary float (lang/numbers.Num):
                                      exactly MANT * 2**EXP (MANT a decimal text, or "inf",
                                      "-inf", "-0") at PREC bits
    {"o": {...}}                      an object (dict)
    {"t": [...]}                      a tuple (list)
    {"l": [...], "e": TYPE}           a list of element type TYPE
    {"s": [...], "e": TYPE}           a set, in its stored order
    {"m": {...}, "e": TYPE}           a map
    {"u": TYPE}                       an unknown value of type TYPE
    {"n": TYPE}                       a null of type TYPE
    {"x": VALUE}                      VALUE marked sensitive

TYPE is cty's JSON type notation (as in state files). Decoding is total over hostile input:
anything that is not exactly this shape raises CodecError, never runs code, and never returns
a half-built value.
"""
from __future__ import annotations

import base64
import json
import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from tfconsole.addrs import AbsResource, AbsResourceInstance, AddressError, parse_instance, parse_target
from tfconsole.lang import numbers as N
from tfconsole.lang.types import BOOL, DYNAMIC, NUMBER, STRING, Type, type_from_json
from tfconsole.lang.values import Null, Sensitive, TList, TMap, TSet, Unknown

from . import Action, Importing, OutputChange, ResourceInstanceChange


class CodecError(ValueError):
    """The data is not a valid encoding; the message says what and where."""


_NON_FINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


# ---------------------------------------------------------------- values

def encode_value(v: Any) -> Any:
    t = type(v)
    if v is None or t is str or t is bool or t is int:
        return v
    if t is float:
        if math.isfinite(v):
            return v
        return {"f": "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")}
    if t is dict:
        return {"o": {k: encode_value(x) for k, x in v.items()}}
    if t is list:
        return {"t": [encode_value(x) for x in v]}
    if t is TList:
        return {"l": [encode_value(x) for x in v], "e": v.etype.to_json()}
    if t is TSet:
        return {"s": [encode_value(x) for x in v], "e": v.etype.to_json()}
    if t is TMap:
        return {"m": {k: encode_value(x) for k, x in v.items()}, "e": v.etype.to_json()}
    if t is Unknown:
        return {"u": v.type.to_json()}
    if t is Null:
        return {"n": v.type.to_json()}
    if t is Sensitive:
        return {"x": encode_value(v.value)}
    if t is N.Num:
        return {"N": _encode_num(v)}
    if isinstance(v, Decimal):
        return {"d": str(v)}
    raise CodecError(f"cannot encode a value of Python type {t.__name__}")


# Types read so far, by their JSON text: a plan repeats each resource type's schema type in every
# one of its changes, and types are immutable, so one decoded type serves them all.
_TYPES: dict[Any, Type] = {}
_PRIMITIVES = {"string": STRING, "number": NUMBER, "bool": BOOL, "dynamic": DYNAMIC}


def decode_type(j: Any, where: str | None = "type") -> Type:
    if type(j) is str:
        t = _PRIMITIVES.get(j)
        if t is not None:
            return t
    else:
        try:
            key = _json_key(j)
        except (TypeError, ValueError, RecursionError):
            key = None
        if key is not None:
            t = _TYPES.get(key)
            if t is None:
                t = _decode_type(j, where)
                if len(_TYPES) > 4096:
                    _TYPES.clear()
                _TYPES[key] = t
            return t
    return _decode_type(j, where)


def _decode_type(j: Any, where: str | None) -> Type:
    try:
        return type_from_json(j)
    except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
        raise CodecError(f"{where}: invalid type {_short(j)}: {exc}") from None


# A text naming a JSON value exactly (dict key order kept: two orders of one object name one
# type, so at worst the cache misses); the C encoder, made once.
_json_key: Any = json.JSONEncoder(separators=(",", ":"), check_circular=False, allow_nan=False).encode
try:
    from orjson import dumps as _json_key  # the same role, five times faster (bytes, not text)
except ImportError:  # pragma: no cover - orjson is a dependency; without it only speed differs
    pass


# Locations in the messages below ("where") are built only when something is wrong: the fast
# pass decodes with where=None, and only when it fails is the input decoded again with
# locations, to raise the located error (decoding is pure, so the second pass fails the same way).

def decode_value(j: Any, where: str = "value") -> Any:
    try:
        return _value(j, None)
    except CodecError:
        return _value(j, where)


def _value(j: Any, where: str | None) -> Any:
    t = type(j)
    if j is None or t is str or t is bool or t is int or t is float:
        return j
    if t is not dict or len(j) not in (1, 2):
        raise CodecError(f"{where}: not an encoded value: {_short(j)}")
    if len(j) == 2:
        return _decode_collection(j, where)
    (tag, body), = j.items()
    if tag == "o":
        if where is None:
            return {k: _value(x, None) for k, x in _object(body, where).items()}
        return {k: _value(x, f"{where}.{k}") for k, x in _object(body, where).items()}
    if tag == "t":
        if where is None:
            return [_value(x, None) for x in _array(body, where)]
        return [_value(x, f"{where}[{i}]") for i, x in enumerate(_array(body, where))]
    if tag == "u":
        return Unknown(decode_type(body, where))
    if tag == "n":
        return Null(decode_type(body, where))
    if tag == "x":
        inner = _value(body, where)
        if type(inner) is Sensitive:
            raise CodecError(f"{where}: a sensitive mark directly inside another")
        return Sensitive(inner)
    if tag == "f" and body in _NON_FINITE:
        return _NON_FINITE[body]
    if tag == "N":
        return _decode_num(body, where)
    if tag == "d" and type(body) is str and len(body) <= 1000:
        try:
            d = Decimal(body)
        except InvalidOperation:
            d = Decimal("nan")
        if d.is_finite():
            return d
    raise CodecError(f"{where}: not an encoded value: {_short(j)}")


_MAX_PREC = 1 << 16          # go-cty's numbers carry 512 bits; products grow a little beyond
_MAX_EXP = 1 << 40


def _encode_num(v: Any) -> list:
    f = v.f
    prec = f.precision
    if N.gmpy2.is_infinite(f):
        return ["inf" if f > 0 else "-inf", 0, prec]
    if f == 0:
        return ["-0" if N.gmpy2.is_signed(f) else "0", 0, prec]
    mant, exp = f.as_mantissa_exp()
    return [str(mant), int(exp), prec]


def _decode_num(body: Any, where: str | None) -> Any:
    if not (type(body) is list and len(body) == 3 and type(body[0]) is str and type(body[1]) is int
            and type(body[2]) is int and 2 <= body[2] <= _MAX_PREC and abs(body[1]) <= _MAX_EXP
            and len(body[0]) <= body[2] // 3 + 2):
        raise CodecError(f"{where}: not an encoded number: {_short(body)}")
    mant, exp, prec = body
    if mant in ("inf", "-inf", "-0", "0"):
        return N.Num(N.mpfr(mant, prec))
    try:
        m = int(mant)
    except ValueError:
        raise CodecError(f"{where}: not an encoded number: {_short(body)}") from None
    if m.bit_length() > prec:
        raise CodecError(f"{where}: not an encoded number: {_short(body)}")
    with N._ctx(prec):
        return N.Num(N.gmpy2.mul_2exp(N.mpfr(m, prec), exp))


def _decode_collection(j: dict, where: str | None) -> Any:
    etype = decode_type(j.get("e"), where)
    if "l" in j:
        return TList([_value(x, _at(where, i)) for i, x in enumerate(_array(j["l"], where))], etype)
    if "s" in j:
        items = [_value(x, _at(where, i)) for i, x in enumerate(_array(j["s"], where))]
        return TSet(items, etype, ordered=True)
    if "m" in j:
        return TMap({k: _value(x, None if where is None else f"{where}.{k}")
                     for k, x in _object(j["m"], where).items()}, etype)
    raise CodecError(f"{where}: not an encoded value: {_short(j)}")


def _at(where: str | None, i: int) -> str | None:
    return None if where is None else f"{where}[{i}]"


def _object(body: Any, where: str | None) -> dict:
    if type(body) is not dict:
        raise CodecError(f"{where}: expected an object, got {_short(body)}")
    return body


def _array(body: Any, where: str | None) -> list:
    if type(body) is not list:
        raise CodecError(f"{where}: expected an array, got {_short(body)}")
    return body


def _short(j: Any) -> str:
    text = repr(j)
    return text if len(text) <= 60 else text[:57] + "..."


# ---------------------------------------------------------------- fields

def field(d: Any, key: str, kinds: type | tuple[type, ...], where: str | None, *, optional: bool = False) -> Any:
    """d[key] checked to be of the given JSON kind(s) (bool is never taken for int)."""
    if type(d) is dict:  # the common case first: present and of the kind (a plan has 15 per change)
        t = type(d.get(key))
        if t is kinds or (type(kinds) is tuple and t in kinds):
            return d[key]
    if type(d) is not dict:
        raise CodecError(f"{where}: expected an object")
    if key not in d:
        if optional:
            return None
        raise CodecError(f"{where}: missing \"{key}\"")
    v = d[key]
    if v is None and optional:
        return None
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    if type(v) not in kinds:
        raise CodecError(f"{where}.{key}: expected {' or '.join(k.__name__ for k in kinds)}, got {_short(v)}")
    return v


def strings(d: Any, key: str, where: str | None) -> list[str]:
    items = field(d, key, list, where)
    if any(type(x) is not str for x in items):
        raise CodecError(f"{where}.{key}: expected a list of strings")
    return list(items)


def encode_path(p: tuple) -> list:
    return list(p)


def decode_path(j: Any, where: str | None) -> tuple:
    if type(j) is not list or any(type(s) not in (str, int) for s in j):
        raise CodecError(f"{where}: a path is a list of strings and integers, got {_short(j)}")
    return tuple(j)


def decode_instance(text: Any, where: str | None) -> AbsResourceInstance:
    if type(text) is not str:
        raise CodecError(f"{where}: expected a resource instance address")
    try:
        return parse_instance(text)
    except AddressError as exc:
        raise CodecError(f"{where}: invalid resource instance address {text!r}: {exc}") from None


def decode_resource(text: Any, where: str | None) -> AbsResource:
    try:
        t = parse_target(text) if type(text) is str else None
    except AddressError as exc:
        raise CodecError(f"{where}: invalid resource address {text!r}: {exc}") from None
    if not isinstance(t, AbsResource):
        raise CodecError(f"{where}: expected a resource address, got {_short(text)}")
    return t


_ACTIONS = {a.value: a for a in Action}


def decode_action(j: Any, where: str | None) -> Action:
    try:
        return _ACTIONS[j]
    except (KeyError, TypeError):
        pass
    raise CodecError(f"{where}: unknown action {_short(j)}")


# ---------------------------------------------------------------- changes

def encode_change(ch: ResourceInstanceChange) -> dict:
    """A change as plan file data. Fields holding their default (null; an empty list or
    object, false, 0 or "" where the field's default is that) are left out and read back as
    that default; each_value and the identities keep 0, "" and {}, which are values there.
    Most changes of a large plan are plain creates, updates or no-ops, and the defaults were
    half of every change's bytes (a 20,000-instance plan's document: 12.9 MB, now 7.1 MB),
    decoded again by every apply of it."""
    out = {"addr": str(ch.addr), "provider": ch.provider,
           "schema_type": ch.schema_type.to_json() if ch.schema_type is not None else None}
    out.update(_change_body(ch))
    return out


def _change_body(ch: ResourceInstanceChange) -> dict:
    """encode_change's fields other than the address, provider and schema type."""
    out = {"action": ch.action.value, "after": encode_value(ch.after)}
    if ch.before is not None:
        out["before"] = encode_value(ch.before)
    if ch.prev_run_addr is not None:
        out["prev_run_addr"] = str(ch.prev_run_addr)
    if ch.deposed is not None:
        out["deposed"] = ch.deposed
    if ch.replace_paths:
        out["replace_paths"] = [encode_path(p) for p in ch.replace_paths]
    if ch.reason is not None:
        out["reason"] = ch.reason
    if ch.private is not None:
        out["private"] = _encode_private(ch.private)
    if ch.create_before_destroy:
        out["create_before_destroy"] = True
    if ch.sensitive_paths:
        out["sensitive_paths"] = [encode_path(p) for p in ch.sensitive_paths]
    if ch.each_value is not None:
        out["each_value"] = encode_value(ch.each_value)
    if ch.importing is not None:
        out["importing"] = {"id": ch.importing.id, "identity": ch.importing.identity}
    for name in ("before_identity", "after_identity"):
        if getattr(ch, name) is not None:
            out[name] = getattr(ch, name)
    if ch.blocks:
        out["blocks"] = ch.blocks
    if ch.identity_version:
        out["identity_version"] = ch.identity_version
    if ch.generated_config:
        out["generated_config"] = ch.generated_config
    if ch.import_private is not None:
        out["import_private"] = _encode_private(ch.import_private)
    if ch.write_only:
        out["write_only"] = list(ch.write_only)
    if ch.legacy:
        out["legacy"] = True
    return out


def decode_change(j: Any, where: str) -> ResourceInstanceChange:
    try:
        if type(j) is dict and _PLAIN_CHANGE.issuperset(j):
            return _plain_change(j)
        return _change(j, None)
    except CodecError:
        return _change(j, where)  # again, for the error with its location


# the fields of a change with every other field at its default (a create, update or no-op)
_PLAIN_CHANGE = frozenset(("addr", "action", "provider", "before", "after", "schema_type"))


def _plain_change(j: dict) -> ResourceInstanceChange:
    """_change for a change holding only _PLAIN_CHANGE's fields, with the same checks and
    without the calls that read the others (a large plan is almost all such changes)."""
    addr, provider, st = j.get("addr"), j.get("provider"), j.get("schema_type")
    if type(addr) is not str or type(provider) is not str or (st is not None and type(st) not in (list, str)):
        raise CodecError("a field of the wrong kind")
    before, after = j.get("before"), j.get("after")
    before = None if before is None else _value(before, None)
    after = None if after is None else _value(after, None)
    if (before is not None and type(before) is not dict) or (after is not None and type(after) is not dict):
        raise CodecError("expected an object value")
    return ResourceInstanceChange(addr=decode_instance(addr, None), action=decode_action(j.get("action"), None),
                                  provider=provider, before=before, after=after,
                                  schema_type=decode_type(st, None) if st is not None else None)


# ---------------------------------------------------------------- runs of changes (format 3)
#
# A large plan's changes come resource by resource, each repeating its resource's address
# prefix, provider and schema type (half of a 20,000-instance plan's bytes, parsed again and
# decoded per change by every apply of it). Version 3 stores the changes as runs of
# consecutive changes of one resource, provider and schema type: those written once per run,
# each change as its instance key and encode_change's other fields. The order of the changes
# is kept exactly.

def encode_change_runs(changes: list[ResourceInstanceChange]) -> list[dict]:
    runs: list[dict] = []
    last: tuple | None = None
    bodies: list[dict] = []
    for ch in changes:
        a = ch.addr
        st = ch.schema_type
        if last is None or a.module != last[0] or a.resource != last[1] or ch.provider != last[2] or \
                not (st is last[3] or st == last[3]):
            last = (a.module, a.resource, ch.provider, st)
            bodies = []
            runs.append({"resource": str(a.abs_resource()), "provider": ch.provider,
                         "schema_type": st.to_json() if st is not None else None, "changes": bodies})
        body = _change_body(ch)
        if a.key is not None:
            body["key"] = a.key
        bodies.append(body)
    return runs


def decode_change_runs(runs: Any, where: str) -> list[ResourceInstanceChange]:
    """The changes of encode_change_runs's runs, in their order; CodecError naming the run and
    change of anything malformed."""
    out: list[ResourceInstanceChange] = []
    for i, run in enumerate(_array(runs, where)):
        w = f"{where}[{i}]"
        ra = decode_resource(field(run, "resource", str, w), w + ".resource")
        provider = field(run, "provider", str, w)
        st = field(run, "schema_type", (list, str), w, optional=True)
        schema_type = decode_type(st, w + ".schema_type") if st is not None else None
        module, resource = ra.module, ra.resource
        for j, body in enumerate(field(run, "changes", list, w)):
            if type(body) is not dict:
                raise CodecError(f"{w}.changes[{j}]: expected an object, got {_short(body)}")
            key = body.get("key")
            if not (key is None or type(key) is int or type(key) is str):
                raise CodecError(f"{w}.changes[{j}].key: expected a number or a string, got {_short(key)}")
            addr = AbsResourceInstance(module, resource, key)
            if _PLAIN_BODY.issuperset(body):
                out.append(_plain_body(body, addr, provider, schema_type, f"{w}.changes[{j}]"))
                continue
            j_full = {k: v for k, v in body.items() if k != "key"}
            j_full.update(addr=str(addr), provider=provider, schema_type=st)
            out.append(decode_change(j_full, f"{w}.changes[{j}]"))
    return out


# the fields of a change in a run with every other field at its default
_PLAIN_BODY = frozenset(("key", "action", "before", "after", "each_value"))


def _plain_body(j: dict, addr: AbsResourceInstance, provider: str, schema_type: Type | None,
                where: str) -> ResourceInstanceChange:
    try:
        before, after, each = j.get("before"), j.get("after"), j.get("each_value")
        before = None if before is None else _value(before, None)
        after = None if after is None else _value(after, None)
        each = None if each is None else _value(each, None)
    except CodecError:
        before, after, each = (_value(j.get(k), f"{where}.{k}") for k in ("before", "after", "each_value"))
    for name, v in (("before", before), ("after", after)):
        if v is not None and type(v) is not dict:
            raise CodecError(f"{where}.{name}: expected an object value")
    return ResourceInstanceChange(addr=addr, action=decode_action(j.get("action"), f"{where}.action"),
                                  provider=provider, before=before, after=after, schema_type=schema_type,
                                  each_value=each)


def _in(where: str | None, suffix: str) -> str | None:
    return None if where is None else where + suffix


def _change(j: Any, where: str | None) -> ResourceInstanceChange:
    addr = decode_instance(field(j, "addr", str, where), _in(where, ".addr"))
    if where is not None:
        where = f"{where} ({addr})"
    before = _value(j.get("before"), _in(where, ".before"))
    after = _value(j.get("after"), _in(where, ".after"))
    for name, v in (("before", before), ("after", after)):
        if v is not None and type(v) is not dict:
            raise CodecError(f"{where}.{name}: expected an object value")
    st = field(j, "schema_type", (list, str), where, optional=True)
    prev = field(j, "prev_run_addr", str, where, optional=True)
    # the fields encode_change leaves out when they hold their default
    replace_paths = field(j, "replace_paths", list, where, optional=True)
    sensitive_paths = field(j, "sensitive_paths", list, where, optional=True)
    blocks = field(j, "blocks", dict, where, optional=True)
    return ResourceInstanceChange(
        addr=addr, action=decode_action(j.get("action"), _in(where, ".action")),
        provider=field(j, "provider", str, where), before=before, after=after,
        schema_type=decode_type(st, _in(where, ".schema_type")) if st is not None else None,
        prev_run_addr=decode_instance(prev, _in(where, ".prev_run_addr")) if prev is not None else None,
        deposed=field(j, "deposed", str, where, optional=True),
        replace_paths=[decode_path(p, _in(where, ".replace_paths")) for p in replace_paths] if replace_paths else [],
        reason=field(j, "reason", str, where, optional=True),
        private=_decode_private(j.get("private"), _in(where, ".private")),
        create_before_destroy=field(j, "create_before_destroy", bool, where, optional=True) or False,
        sensitive_paths=([decode_path(p, _in(where, ".sensitive_paths")) for p in sensitive_paths]
                         if sensitive_paths else []),
        each_value=_value(j.get("each_value"), _in(where, ".each_value")),
        importing=_decode_importing(j.get("importing"), _in(where, ".importing")),
        generated_config=field(j, "generated_config", str, where, optional=True) or "",
        import_private=_decode_private(j.get("import_private"), _in(where, ".import_private")),
        write_only=_names(field(j, "write_only", list, where, optional=True) or [], _in(where, ".write_only")),
        before_identity=field(j, "before_identity", dict, where, optional=True),
        blocks=_blocks(blocks, _in(where, ".blocks")) if blocks else {},
        after_identity=field(j, "after_identity", dict, where, optional=True),
        identity_version=field(j, "identity_version", int, where, optional=True) or 0,
        legacy=field(j, "legacy", bool, where, optional=True) or False,
    )


def _decode_importing(j: Any, where: str | None) -> Importing | None:
    if j is None:
        return None
    return Importing(field(j, "id", str, where), field(j, "identity", dict, where, optional=True))


def _blocks(j: dict, where: str | None) -> dict[str, Any]:
    """A change's nested block structure (plans.block_structure), checked to be that shape."""
    for name, desc in j.items():
        if (type(desc) is not dict or desc.get("nesting") not in ("single", "group", "list", "set", "map")
                or type(desc.get("blocks")) is not dict):
            raise CodecError(f"{where}.{name}: expected a nested block description")
        _names(desc.get("write_only") if type(desc.get("write_only")) is list else [None], f"{where}.{name}")
        if type(desc.get("non_legacy", False)) is not bool:
            raise CodecError(f"{where}.{name}: expected a nested block description")
        _blocks(desc["blocks"], f"{where}.{name}.blocks")
    return j


def _names(items: list, where: str | None) -> list[str]:
    if any(type(x) is not str for x in items):
        raise CodecError(f"{where}: expected a list of attribute names")
    return items


def _encode_private(p: Any) -> Any:
    """Provider private data: a string, or bytes (plugin providers) as base64."""
    if isinstance(p, (bytes, bytearray)):
        return {"b": base64.b64encode(bytes(p)).decode("ascii")}
    return p


def _decode_private(j: Any, where: str | None) -> Any:
    if j is None or type(j) is str:
        return j
    if type(j) is dict and set(j) == {"b"} and type(j["b"]) is str:
        try:
            return base64.b64decode(j["b"], validate=True)
        except ValueError:
            pass
    raise CodecError(f"{where}: expected a string or {{\"b\": base64}}")


def encode_output_change(oc: OutputChange) -> dict:
    return {"name": oc.name, "action": oc.action.value, "before": encode_value(oc.before),
            "after": encode_value(oc.after), "sensitive": oc.sensitive}


def decode_output_change(j: Any, where: str) -> OutputChange:
    name = field(j, "name", str, where)
    where = f"{where} (output {name})"
    return OutputChange(name, decode_action(j.get("action"), where + ".action"),
                        decode_value(j.get("before"), where + ".before"),
                        decode_value(j.get("after"), where + ".after"), field(j, "sensitive", bool, where))
