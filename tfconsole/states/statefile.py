"""Terraform's v4 JSON state file: read any v4 file, write exactly what Terraform 1.15 writes.

Facts of the format as Terraform 1.15 writes it (checked against real Terraform):

* ``json.MarshalIndent(.., "", "  ")`` plus one trailing ``\\n``; Go's encoder escapes
  ``<``, ``>``, ``&``, U+2028 and U+2029 as ``\\u003c`` ... and writes other non-ASCII raw.
* top level keys in order: version, terraform_version, serial, lineage, outputs, resources,
  check_results (``null`` when there are no checkable objects).
* outputs are a JSON object sorted by name: ``{value, type, sensitive?}`` (sensitive only when
  true).
* resources are sorted by module address string, then mode (so ``data`` sorts before
  ``managed``), then type, then name (all bytewise); ``module`` is omitted for the root module;
  ``each`` is never written by Terraform 1.x (accepted on read).
* instances are sorted: no key first, then int keys numerically, then string keys bytewise;
  the current object before deposed ones (by deposed key).
* instance keys in order: index_key?, status? ("tainted" only), deposed?, schema_version,
  attributes, attributes_flat?, sensitive_attributes (always, ``[]`` when none),
  identity_schema_version (always), identity?, private? (base64 text),
  dependencies? (omitted when empty), create_before_destroy? (only when true).
* sensitive_attributes is a list of paths, each a list of steps
  ``{"type": "get_attr", "value": NAME}`` or ``{"type": "index", "value": {"value": K, "type": T}}``.
* attribute values are cty JSON: object/map keys sorted bytewise, except the dynamic wrapper
  ``{"value": V, "type": T}``; numbers are written in plain decimal notation (never an exponent).
"""
from __future__ import annotations

import base64
import binascii
import dataclasses
import functools
import json
import math
import os
from decimal import Decimal
from json.encoder import encode_basestring  # type: ignore[attr-defined]  # C-accelerated
from typing import Any, Callable
from tfconsole.memo import remember

# orjson: the C encoder for the bulk of a state (attribute values); _data is the reference and the
# fallback. Imported when a state is first written: a command that writes none never loads it
from tfconsole.fastjson import orjson as _orjson_module

from tfconsole.addrs import AbsResource, AddressError, ModuleInstance, Resource, intern_resource, parse_target
from tfconsole.diags import Diagnostics

from .checks import check_cty_type, check_cty_value, check_version_string, is_int, json_kind
from .state import InstanceState, ObjectState, OutputState, ResourceState, State

__all__ = [
    "read_state", "read_state_file", "write_state", "state_body", "state_header",
    "format_number", "object_to_json", "object_from_json", "sensitive_paths", "check_output",
    "check_check_results", "INVALID_FORMAT",
]

STATE_VERSION = 4


def terraform_version() -> str:
    """The Terraform version we write into state files (tfconsole.TERRAFORM_VERSION)."""
    try:
        from tfconsole import TERRAFORM_VERSION
        return TERRAFORM_VERSION
    except ImportError:  # tfconsole/__init__ not run (e.g. a namespace-package install)
        return "1.15.0"


# ---------------------------------------------------------------------------
# numbers


def format_number(n: Any) -> str:
    """cty's JSON text for a number: plain decimal, shortest round-trip digits, no exponent."""
    if type(n) is int:
        return str(n)
    if isinstance(n, Decimal):
        if not n.is_finite():
            raise ValueError(f"cannot encode {n} in JSON")
        return format(n, "f")
    if isinstance(n, float):
        if not math.isfinite(n):
            raise ValueError(f"cannot encode {n} in JSON")
        d = Decimal(repr(n))
        if n.is_integer():
            d = d.to_integral_value()
        return format(d, "f")
    return str(int(n))


def _parse_float(text: str) -> float | Decimal:
    # A float whose text we would write back differently (more digits than a float holds,
    # as cty writes 512-bit numbers) is kept as a Decimal so re-serialisation is exact.
    f = float(text)
    try:
        if format_number(f) == text:
            return f
    except ValueError:
        pass
    return Decimal(text)


def _decode_json(text: str) -> Any:
    return json.loads(text, parse_float=_parse_float)


# ---------------------------------------------------------------------------
# writing


def _str(s: str) -> str:
    e = encode_basestring(s)
    if "<" in e or ">" in e or "&" in e or "\u2028" in e or "\u2029" in e:
        e = (e.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
             .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
    return e


def _go_escapes(text: str) -> str:
    """Go's extra escapes, applied to a whole JSON text at once: these characters can only
    occur inside strings, never in JSON's structure, numbers or literals."""
    if "<" in text or ">" in text or "&" in text or "\u2028" in text or "\u2029" in text:
        text = (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
                .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
    return text


go_escapes = _go_escapes  # for the commands that print Terraform's JSON (output -json)


def _data(v: Any, ind: str, out: list[str]) -> None:
    """Encode cty JSON data (attributes, output values and types) as Go's MarshalIndent does.

    Object keys are sorted bytewise, as cty marshals them, except the dynamic-value wrapper
    {"value", "type"} which cty writes in that order. Strings are encoded without Go's extra
    escapes: the caller applies _go_escapes to the whole text. Scalars inside objects and
    arrays are encoded inline (this is the hot loop of writing a large state).
    """
    t = type(v)
    if t is str:
        out.append(encode_basestring(v))
    elif t is dict:
        if not v:
            out.append("{}")
            return
        if len(v) == 2 and next(iter(v)) == "value" and "type" in v:
            items: Any = v.items()
        else:
            items = sorted(v.items())
        inner = ind + "  "
        sep = "{\n" + inner
        nxt = ",\n" + inner
        append = out.append
        for k, x in items:
            tx = type(x)
            if tx is str:
                append(sep + encode_basestring(k) + ": " + encode_basestring(x))
            elif x is None:
                append(sep + encode_basestring(k) + ": null")
            elif tx is bool:
                append(sep + encode_basestring(k) + (": true" if x else ": false"))
            elif tx is int:
                append(sep + encode_basestring(k) + ": " + str(x))
            else:
                append(sep + encode_basestring(k) + ": ")
                _data(x, inner, out)
            sep = nxt
        append("\n" + ind + "}")
    elif t is list or t is tuple:
        if not v:
            out.append("[]")
            return
        inner = ind + "  "
        sep = "[\n" + inner
        nxt = ",\n" + inner
        append = out.append
        for x in v:
            tx = type(x)
            if tx is str:
                append(sep + encode_basestring(x))
            elif x is None:
                append(sep + "null")
            elif tx is bool:
                append(sep + ("true" if x else "false"))
            elif tx is int:
                append(sep + str(x))
            else:
                append(sep)
                _data(x, inner, out)
            sep = nxt
        append("\n" + ind + "]")
    elif v is None:
        out.append("null")
    elif v is True:
        out.append("true")
    elif v is False:
        out.append("false")
    elif t is int or t is float or isinstance(v, (int, float, Decimal)):
        out.append(format_number(v))
    else:
        raise TypeError(f"cannot encode {type(v).__name__} in state JSON")


_SCALARS = frozenset({str, int, bool, type(None)})


def _plain(v: Any) -> bool:
    """Does orjson write v exactly as _data does? Yes when every dict's keys are strings already
    in _data's order (sorted, or the {"value", "type"} wrapper as it stands) and no float or
    Decimal occurs (cty's number format is not orjson's). Integers beyond 64 bits, non-string
    keys and lone surrogates make orjson raise, which sends the value to _data as well."""
    t = type(v)
    if t is dict:
        keys = tuple(v)
        # the answer for a dict's keys, remembered: a state's objects of one type share them
        ordered = _KEYS_IN_ORDER.get(keys)
        if ordered is None:
            ordered = remember(_KEYS_IN_ORDER, keys, _keys_in_order(keys, v))
        if not ordered:
            return False
        for x in v.values():
            if type(x) not in _SCALARS and not _plain(x):
                return False
        return True
    if t is list or t is tuple:
        for x in v:
            if type(x) not in _SCALARS and not _plain(x):
                return False
        return True
    return t in _SCALARS


_KEYS_IN_ORDER: dict[tuple, bool] = {}


def _keys_in_order(keys: tuple, v: dict) -> bool:
    """Are a dict's keys in _data's order: sorted, or the {"value", "type"} wrapper?"""
    if len(keys) == 2 and keys[0] == "value" and "type" in v:
        return True
    try:
        return list(keys) == sorted(keys)
    except TypeError:
        return False


def _data_fast(v: Any, ind: str, out: list[str]) -> None:
    """_data through orjson (C) when that gives the same text; the Go escapes are applied to
    the whole text afterwards either way. orjson indents from column 0, so the nesting
    indentation is added after every newline (newlines only occur between tokens)."""
    _orjson = _orjson_module()
    if _orjson is not None and (type(v) is dict or type(v) is list) and v and _plain(v):
        try:
            text = _orjson.dumps(v, option=_orjson.OPT_INDENT_2).decode("utf-8")
        except TypeError:
            pass
        else:
            out.append(text.replace("\n", "\n" + ind) if ind else text)
            return
    _data(v, ind, out)


def _struct(pairs: list[tuple[str, Any]], ind: str, out: list[str]) -> None:
    """Encode an ordered struct: values that are _Raw are encoded as data, others as data too
    (structs never need sorting themselves)."""
    inner = ind + "  "
    sep = "{\n"
    for k, x in pairs:
        out.append(sep)
        out.append(inner)
        out.append(encode_basestring(k))
        out.append(": ")
        if type(x) is _Struct:
            _struct(x.pairs, inner, out)
        elif type(x) is _StructList:
            _struct_list(x.items, inner, out)
        else:
            _data_fast(x, inner, out)
        sep = ",\n"
    out.append("\n")
    out.append(ind)
    out.append("}")


def _struct_list(items: list[Any], ind: str, out: list[str]) -> None:
    if not items:
        out.append("[]")
        return
    inner = ind + "  "
    sep = "[\n"
    for x in items:
        out.append(sep)
        out.append(inner)
        if type(x) is _Struct:
            _struct(x.pairs, inner, out)
        elif type(x) is _StructList:
            _struct_list(x.items, inner, out)
        else:
            _data(x, inner, out)
        sep = ",\n"
    out.append("\n")
    out.append(ind)
    out.append("]")


class _Struct:
    __slots__ = ("pairs",)

    def __init__(self, pairs: list[tuple[str, Any]]):
        self.pairs = pairs


class _StructList:
    __slots__ = ("items",)

    def __init__(self, items: list[Any]):
        self.items = items


def _step_json(step: Any) -> Any:
    if isinstance(step, dict) and "type" in step and "value" in step and len(step) == 2:
        return _Struct([("type", step["type"]), ("value", step["value"])])
    return step


def object_to_json(obj: ObjectState) -> list[tuple[str, Any]]:
    """The ordered (key, value) pairs of an instance object from schema_version on."""
    pairs: list[tuple[str, Any]] = [("schema_version", obj.schema_version)]
    if obj.attributes_flat is not None and obj.attributes is None:
        pairs.append(("attributes_flat", obj.attributes_flat))
    else:
        pairs.append(("attributes", obj.attributes if obj.attributes is not None else {}))
        if obj.attributes_flat is not None:
            pairs.append(("attributes_flat", obj.attributes_flat))
    pairs.append(("sensitive_attributes",
                  _StructList([_StructList([_step_json(s) for s in p]) if isinstance(p, list) else p
                               for p in obj.sensitive_attributes])))
    pairs.append(("identity_schema_version", obj.identity_schema_version))
    if obj.identity is not None:
        pairs.append(("identity", obj.identity))
    if obj.private:
        pairs.append(("private", obj.private))
    if obj.dependencies:
        pairs.append(("dependencies", sorted(set(obj.dependencies))))
    if obj.create_before_destroy:
        pairs.append(("create_before_destroy", True))
    return pairs


def _instance_sort_key(key: Any, deposed: str) -> tuple:
    if key is None:
        return (0, 0, "", deposed)
    if isinstance(key, int):
        return (1, key, "", deposed)
    return (2, 0, key, deposed)


def _resource_pairs(rs: ResourceState) -> _Struct | None:
    instances: list[tuple[tuple, _Struct]] = []
    for key, inst in rs.instances.items():
        objs: list[tuple[str, ObjectState]] = []
        if inst.current is not None:
            objs.append(("", inst.current))
        for dk, o in inst.deposed.items():
            objs.append((dk, o))
        for dk, o in objs:
            pairs: list[tuple[str, Any]] = []
            if key is not None:
                pairs.append(("index_key", key))
            if o.status and o.status != "ready":
                pairs.append(("status", o.status))
            if dk:
                pairs.append(("deposed", dk))
            pairs.extend(object_to_json(o))
            instances.append((_instance_sort_key(key, dk), _Struct(pairs)))
    if not instances:
        return None  # Terraform prunes resources without instance objects
    instances.sort(key=lambda p: p[0])
    addr = rs.addr
    head: list[tuple[str, Any]] = []
    if not addr.module.is_root:
        head.append(("module", str(addr.module)))
    head += [("mode", addr.resource.mode), ("type", addr.resource.type),
             ("name", addr.resource.name), ("provider", rs.provider),
             ("instances", _StructList([s for _, s in instances]))]
    return _Struct(head)


def _check_results(cr: Any) -> Any:
    if not cr:
        return None
    out = []
    for agg in cr:
        if not isinstance(agg, dict):
            out.append(agg)
            continue
        objs = agg.get("objects")
        objs_out: Any = None
        if objs is not None:
            objs_out = []
            for o in objs:
                if not isinstance(o, dict):
                    objs_out.append(o)
                    continue
                p = [("object_addr", o.get("object_addr", "")), ("status", o.get("status", "unknown"))]
                if o.get("failure_messages"):
                    p.append(("failure_messages", list(o["failure_messages"])))
                objs_out.append(_Struct(p))
            objs_out = _StructList(objs_out)
        out.append(_Struct([("object_kind", agg.get("object_kind", "")),
                            ("config_addr", agg.get("config_addr", "")),
                            ("status", agg.get("status", "unknown")),
                            ("objects", objs_out)]))
    return _StructList(out)


def state_header(terraform_version: str, serial: int, lineage: str) -> str:
    return ('{\n  "version": 4,\n  "terraform_version": ' + _str(terraform_version)
            + ',\n  "serial": ' + str(int(serial)) + ',\n  "lineage": ' + _str(lineage) + ",\n")


def state_body(state: State) -> str:
    """Everything after the lineage line: what changes when the state's content changes."""
    outputs: list[tuple[str, _Struct]] = []
    for name in sorted(state.outputs):
        o = state.outputs[name]
        pairs: list[tuple[str, Any]] = [("value", o.value), ("type", o.type)]
        if o.sensitive:
            pairs.append(("sensitive", True))
        outputs.append((name, _Struct(pairs)))
    ordered = sorted(state.resources.items(), key=lambda p: (str(p[0].module), p[0].resource.mode,
                                                            p[0].resource.type, p[0].resource.name))
    cr = _check_results(state.check_results)
    fast = _body_direct(outputs, ordered, cr)
    if fast is not None:
        return _go_escapes(fast)
    resources = [st for st in (_resource_pairs(rs) for _, rs in ordered) if st is not None]
    out: list[str] = []
    if outputs:
        out.append('  "outputs": {')
        sep = "\n"
        for name, st in outputs:
            out.append(sep + "    " + encode_basestring(name) + ": ")
            _struct(st.pairs, "    ", out)
            sep = ",\n"
        out.append("\n  },\n")
    else:
        out.append('  "outputs": {},\n')
    out.append('  "resources": ')
    _struct_list(resources, "  ", out)
    out.append(',\n  "check_results": ')
    if type(cr) is _StructList:
        _struct_list(cr.items, "  ", out)
    else:
        _data(cr, "  ", out)
    out.append("\n}\n")
    return _go_escapes("".join(out))


class _NotPlain(Exception):
    """A value orjson would not write as _data does."""


def _tree(x: Any) -> Any:
    """The struct tree as plain dicts and lists (dicts keep the structs' field order), when
    every data value in it is one orjson writes exactly as _data does; else _NotPlain."""
    t = type(x)
    if t is _Struct:
        return {k: _tree(v) for k, v in x.pairs}
    if t is _StructList:
        return [_tree(i) for i in x.items]
    if t in _SCALARS or ((t is dict or t is list) and _plain(x)):
        return x
    raise _NotPlain


def _leaf(x: Any) -> Any:
    """A data value as it goes into the orjson document: itself when orjson writes it as _data
    does, else _NotPlain (as _tree does for a value)."""
    t = type(x)
    if t in _SCALARS or ((t is dict or t is list) and _plain(x)):
        return x
    raise _NotPlain


def _object_tree(key: Any, dk: str, o: ObjectState) -> dict[str, Any]:
    """One instance object as the orjson document holds it: the fields and order of
    _resource_pairs + object_to_json, built directly (the structs cost as much as the rest of
    a 20,000-instance state write). The scalar fields are checked inline (_leaf's test), as
    this runs for every object of the state."""
    d: dict[str, Any] = {}
    if key is not None:
        d["index_key"] = key if type(key) in _SCALARS else _leaf(key)
    if o.status and o.status != "ready":
        d["status"] = _leaf(o.status)
    if dk:
        d["deposed"] = _leaf(dk)
    sv = o.schema_version
    d["schema_version"] = sv if type(sv) is int else _leaf(sv)
    attrs, flat = o.attributes, o.attributes_flat
    if flat is not None and attrs is None:
        d["attributes_flat"] = _leaf(flat)
    else:
        if attrs is None:
            d["attributes"] = {}
        elif o.plain_attributes is attrs or (type(attrs) is dict and _plain(attrs)):
            d["attributes"] = attrs
        else:
            d["attributes"] = _leaf(attrs)
        if flat is not None:
            d["attributes_flat"] = _leaf(flat)
    sens = o.sensitive_attributes
    d["sensitive_attributes"] = [[_step_tree(s) for s in p] if isinstance(p, list) else _leaf(p)
                                 for p in sens] if sens else []
    isv = o.identity_schema_version
    d["identity_schema_version"] = isv if type(isv) is int else _leaf(isv)
    if o.identity is not None:
        d["identity"] = _leaf(o.identity)
    if o.private:
        d["private"] = _leaf(o.private)
    if o.dependencies:
        d["dependencies"] = _leaf(sorted(set(o.dependencies)))
    if o.create_before_destroy:
        d["create_before_destroy"] = True
    return d


def _step_tree(step: Any) -> Any:
    if isinstance(step, dict) and "type" in step and "value" in step and len(step) == 2:
        return {"type": _leaf(step["type"]), "value": _leaf(step["value"])}
    return _leaf(step)


def _resource_tree(rs: ResourceState) -> dict[str, Any] | None:
    instances: list[tuple[tuple, dict[str, Any]]] = []
    for key, inst in rs.instances.items():
        if inst.current is not None:
            instances.append((_instance_sort_key(key, ""), _object_tree(key, "", inst.current)))
        for dk, o in inst.deposed.items():
            instances.append((_instance_sort_key(key, dk), _object_tree(key, dk, o)))
    if not instances:
        return None  # Terraform prunes resources without instance objects
    instances.sort(key=lambda p: p[0])
    addr = rs.addr
    d: dict[str, Any] = {}
    if not addr.module.is_root:
        d["module"] = str(addr.module)
    d["mode"], d["type"], d["name"] = addr.resource.mode, addr.resource.type, addr.resource.name
    d["provider"] = _leaf(rs.provider)
    d["instances"] = [t for _, t in instances]
    return d


def _body_direct(outputs: list[tuple[str, _Struct]], resources: list[tuple[AbsResource, ResourceState]],
                 cr: Any) -> str | None:
    """state_body's text from one orjson call over the whole document (the per-field encoder
    walk was most of an apply's state write), or None when some value needs that walk: the
    same layout, as orjson's two-space indentation is MarshalIndent's."""
    _orjson = _orjson_module()
    if _orjson is None:
        return None
    try:
        trees = (_resource_tree(rs) for _, rs in resources)
        doc = {"outputs": {name: _tree(st) for name, st in outputs},
               "resources": [t for t in trees if t is not None],
               "check_results": _tree(cr)}
        text = _orjson.dumps(doc, option=_orjson.OPT_INDENT_2).decode("utf-8")
    except (_NotPlain, TypeError, RecursionError):
        return None
    return text[2:] + "\n"  # after the document's opening "{\n": the lines the header does not hold


def write_state(state: State) -> str:
    """The v4 state file text of state, byte for byte as Terraform 1.15 writes it."""
    return state_header(state.terraform_version, state.serial, state.lineage) + state_body(state)


def encode_bytes(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # lone surrogates: Go writes U+FFFD for invalid UTF-8
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace").encode("utf-8")


# ---------------------------------------------------------------------------
# reading
#
# Every field is checked for its JSON kind before it is used: a state file is data from disk,
# and a wrongly typed field must be refused here, with the file, the field and the address
# named, not accepted to crash a plan later. Summaries are Terraform's where Terraform has one.

INVALID_FORMAT = "Invalid state file format"
INVALID_METADATA = "Invalid resource instance metadata in state"


class _Where:
    """Where in which file a value was read, for diagnostics."""

    __slots__ = ("source", "field", "addr")

    def __init__(self, source: str = "", field: str = "", addr: str = ""):
        self.source, self.field, self.addr = source, field, addr

    def at(self, step: str | int, addr: str | None = None) -> "_Where":
        f = f"{self.field}[{step}]" if isinstance(step, int) else (
            f"{self.field}.{step}" if self.field else step)
        return _Where(self.source, f, self.addr if addr is None else addr)

    def invalid(self, diags: Diagnostics, problem: str) -> None:
        src = f" {self.source}" if self.source else ""
        of = f" (of {self.addr})" if self.addr else ""
        diags.error(INVALID_FORMAT, f'The state file{src} field "{self.field}"{of} has an invalid value: '
                                    f"{problem}.")

    def wrong_kind(self, diags: Diagnostics, value: Any, wanted: str) -> None:
        self.invalid(diags, f"{json_kind(value)}, where {wanted} is required")


def _optional(d: dict, key: str, kinds: tuple, where: _Where, diags: Diagnostics, wanted: str,
              default: Any = None) -> tuple[bool, Any]:
    """d[key] when absent/null is default; otherwise it must be one of kinds (bools are never
    integers here). Returns (ok, value)."""
    v = d.get(key)
    if v is None:
        return True, default
    if isinstance(v, kinds) and not (isinstance(v, bool) and bool not in kinds):
        return True, v
    where.at(key).wrong_kind(diags, v, wanted)
    return False, None


def sensitive_paths(raw: Any) -> tuple[list[list[dict]] | None, str | None]:
    """Normalise a sensitive_attributes value to the current form: a list of paths, each a
    list of {"type": "get_attr"|"index", "value": ...} steps. Returns (paths, error)."""
    if raw is None:
        return [], None
    if not isinstance(raw, list):
        return None, "sensitive_attributes must be a JSON array"
    # A flat list of steps (a single path written without its enclosing array) is accepted.
    if raw and all(isinstance(s, dict) and "type" in s for s in raw):
        raw = [raw]
    paths: list[list[dict]] = []
    for p in raw:
        if isinstance(p, dict) and isinstance(p.get("path"), list):
            p = p["path"]  # {"path": [...], "marks": [...]} form
        if not isinstance(p, list):
            return None, "each sensitive attribute path must be a JSON array of steps"
        steps = []
        for s in p:
            if not isinstance(s, dict) or "type" not in s:
                return None, "invalid path step in sensitive_attributes"
            ty = s.get("type")
            if ty == "get_attr":
                if not isinstance(s.get("value"), str):
                    return None, "Failed to unmarshal get attr step name: value is not a string"
            elif ty == "index":
                if "value" not in s:
                    return None, "Failed to unmarshal index step key: missing value"
            else:
                return None, f'Unsupported path step type "{ty}"'
            steps.append({"type": ty, "value": s["value"]})
        paths.append(steps)
    return paths, None


@functools.lru_cache(maxsize=4096)
def _dependency_error(dep: str) -> str | None:
    """Why dep is not a resource address (None: it is). Cached: a state repeats the same few."""
    try:
        t = parse_target(dep)
    except AddressError as exc:
        return f"{json.dumps(dep)} is not a resource address: {exc}"
    if not isinstance(t, AbsResource):
        return f"{json.dumps(dep)} is not a resource address"
    return None


def _check_dependencies(deps: list, where: _Where, diags: Diagnostics) -> bool:
    for i, dep in enumerate(deps):
        if not isinstance(dep, str):
            where.at("dependencies").at(i).wrong_kind(diags, dep, "a resource address string")
            return False
        err = _dependency_error(dep)
        if err:
            where.at("dependencies").at(i).invalid(diags, err)
            return False
    return True


def _check_private(private: str, where: _Where, diags: Diagnostics) -> bool:
    if not _base64_ok(private):
        where.at("private").invalid(diags, "not base64-encoded data")
        return False
    return True


def _nonneg_int(v: Any) -> bool:
    return v is None or (type(v) is int and v >= 0)


def _fields_look_right(d: dict) -> bool:
    """The common case, checked without allocating: every field of the right JSON kind.
    (Anything else goes through _object_fields, which says what is wrong.)"""
    g = d.get
    a, f, i, p, c, deps = (g("attributes"), g("attributes_flat"), g("identity"), g("private"),
                           g("create_before_destroy"), g("dependencies"))
    return ((a is None or type(a) is dict) and (i is None or type(i) is dict)
            and (p is None or (type(p) is str and _base64_ok(p))) and (c is None or type(c) is bool)
            and (type(g("status", "")) is str) and _nonneg_int(g("schema_version"))
            and _nonneg_int(g("identity_schema_version"))
            and (f is None or (type(f) is dict and all(type(x) is str for x in f.values())))
            and (deps is None or (type(deps) is list and _deps_look_right(deps))))


# dependency addresses already found valid: the instances of a resource repeat one list, a
# state a few hundred addresses; a set test in C instead of one cached parse call per entry
_GOOD_DEPS: set[str] = set()


def _deps_look_right(deps: list) -> bool:
    try:
        if _GOOD_DEPS.issuperset(deps):
            return True
    except TypeError:  # an unhashable entry: not a string
        return False
    for x in deps:
        if type(x) is not str or _dependency_error(x) is not None:
            return False
    if len(_GOOD_DEPS) > 65536:
        _GOOD_DEPS.clear()
    _GOOD_DEPS.update(deps)
    return True


def _base64_ok(text: str) -> bool:
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _object_fields(d: dict, where: _Where, diags: Diagnostics) -> dict | None:
    """The typed fields of an instance object, or None after reporting the first bad one."""
    out: dict[str, Any] = {}
    for key, kinds, wanted, default in (
            ("status", (str,), "a string", ""),
            ("attributes", (dict,), "a JSON object", None),
            ("attributes_flat", (dict,), "a JSON object of strings", None),
            ("schema_version", (int,), "a non-negative integer", 0),
            ("identity_schema_version", (int,), "a non-negative integer", 0),
            ("identity", (dict,), "a JSON object", None),
            ("private", (str,), "a base64 string", None),
            ("dependencies", (list,), "an array of resource addresses", []),
            ("create_before_destroy", (bool,), "a boolean", False)):
        ok, v = _optional(d, key, kinds, where, diags, wanted, default)
        if not ok:
            return None
        if key.endswith("schema_version") and v < 0:
            where.at(key).invalid(diags, f"{v} is negative")
            return None
        out[key] = v
    flat = out["attributes_flat"]
    if flat is not None and not all(isinstance(x, str) for x in flat.values()):
        where.at("attributes_flat").invalid(diags, "every value of attributes_flat must be a string")
        return None
    if not _check_dependencies(out["dependencies"], where, diags):
        return None
    if out["private"] is not None and not _check_private(out["private"], where, diags):
        return None
    return out


def object_from_json(d: Any, where: str | Callable[[], str], diags: Diagnostics, *, source: str = "",
                     field: str | Callable[[], str] = "") -> ObjectState | None:
    """An ObjectState from an instance object of a state file (or a journal record), after
    checking every field's type; None after reporting the first problem.

    where: the instance address (for messages); source/field: the file and the JSON path
    (where and field may be functions: they are only needed when something is wrong)."""
    if type(d) is dict and _fields_look_right(d):
        f: dict | None = d
    else:
        w = _Where(source, _text(field) or "object", _text(where))
        if not isinstance(d, dict):
            w.wrong_kind(diags, d, "a JSON object")
            return None
        f = _object_fields(d, w, diags)
        if f is None:
            return None
    return _object(d, f, where, diags)


def _text(v: str | Callable[[], str]) -> str:
    return v if isinstance(v, str) else v()


def _object(d: dict, f: dict, where: str | Callable[[], str], diags: Diagnostics) -> ObjectState | None:
    status = f.get("status") or ""
    if status not in ("", "tainted"):
        diags.error(INVALID_METADATA, f'Instance {_text(where)} has invalid status "{status}".')
        return None
    paths, perr = sensitive_paths(d.get("sensitive_attributes"))
    if perr is not None:
        diags.error("Error unmarshaling path steps", f"Instance {_text(where)}: {perr}.")
        return None
    attrs, flat = f.get("attributes"), f.get("attributes_flat")
    if attrs is None and flat is None:
        attrs = {}
    return ObjectState(
        attributes=attrs,
        status="tainted" if status == "tainted" else "ready",
        schema_version=f.get("schema_version") or 0,
        sensitive_attributes=paths,  # type: ignore[arg-type]
        private=f.get("private") or None,
        dependencies=list(f.get("dependencies") or ()),
        create_before_destroy=bool(f.get("create_before_destroy")),
        identity=f.get("identity"),
        identity_schema_version=f.get("identity_schema_version") or 0,
        attributes_flat=flat,
    )


def check_output(name: str, o: Any, where: _Where, diags: Diagnostics) -> OutputState | None:
    """A root output value of a state file (or journal record), its type and value checked."""
    w = where.at(name)
    if not isinstance(o, dict):
        w.wrong_kind(diags, o, "a JSON object")
        return None
    if "type" not in o:
        diags.error("Invalid output value type in state",
                    f'The state file has an invalid type specification for output "{name}".')
        return None
    terr = check_cty_type(o["type"])
    if terr:
        diags.error("Invalid output value type in state",
                    f'The state file has an invalid type specification for output "{name}": {terr}.')
        return None
    verr = check_cty_value(o.get("value"), o["type"])
    if verr:
        diags.error("Invalid output value saved in state",
                    f'The state file has an invalid value for output "{name}": {verr}.')
        return None
    ok, sensitive = _optional(o, "sensitive", (bool,), w, diags, "a boolean", False)
    return OutputState(o.get("value"), o["type"], sensitive) if ok else None


def check_check_results(cr: Any, where: _Where, diags: Diagnostics) -> bool:
    """check_results: null, or an array of {object_kind, config_addr, status, objects}."""
    if cr is None:
        return True
    if not isinstance(cr, list):
        where.wrong_kind(diags, cr, "an array")
        return False
    for i, agg in enumerate(cr):
        w = where.at(i)
        if not isinstance(agg, dict):
            w.wrong_kind(diags, agg, "a JSON object")
            return False
        for key in ("object_kind", "config_addr", "status"):
            if not _optional(agg, key, (str,), w, diags, "a string")[0]:
                return False
        ok, objs = _optional(agg, "objects", (list,), w, diags, "an array", [])
        if not ok:
            return False
        for j, o in enumerate(objs):
            wo = w.at("objects").at(j)
            if not isinstance(o, dict):
                wo.wrong_kind(diags, o, "a JSON object")
                return False
            for key in ("object_addr", "status"):
                if not _optional(o, key, (str,), wo, diags, "a string")[0]:
                    return False
            ok, msgs = _optional(o, "failure_messages", (list,), wo, diags, "an array of strings", [])
            if not ok:
                return False
            if not all(isinstance(m, str) for m in msgs):
                wo.at("failure_messages").invalid(diags, "every failure message must be a string")
                return False
    return True


def _parse_module(text: str) -> ModuleInstance:
    t = parse_target(text)
    if not isinstance(t, ModuleInstance):
        raise AddressError(f"Invalid module instance address {text!r}")
    return t


def _json_error_detail(exc: json.JSONDecodeError, source: str) -> str:
    src = f" {source}" if source else ""
    return (f"The state file{src} could not be parsed as JSON: {exc.msg} at line {exc.lineno}, "
            f"column {exc.colno} (byte offset {exc.pos}).")


def _src_is_path(src: Any) -> bool:
    return isinstance(src, os.PathLike) or (isinstance(src, str) and bool(src.strip())
                                            and src.lstrip()[0] not in "{[" and "\n" not in src)


def read_state(src: str | bytes | os.PathLike, source: str = "") -> tuple[State | None, Diagnostics]:
    """Parse a state file from its text or from a path.

    src is a path if it is a PathLike, or a one-line str not starting with '{' or '['; any
    other str, and bytes, are the file's text (source: the file's name, for diagnostics).

    Empty input (an empty or whitespace-only file) is "no state": returns (None, no diags).
    On errors returns (None, diags) with a clear diagnostic, never raises for bad input.
    """
    diags = Diagnostics()
    if _src_is_path(src):
        path = _path_text(src)
        source = source or path
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return None, diags
        except OSError as exc:
            diags.error("Failed to load state", f"Error reading {path}: {exc.strerror or exc}.")
            return None, diags
        text_src: str | bytes = data
    else:
        text_src = src  # type: ignore[assignment]
    src_name = f" {source}" if source else ""
    if isinstance(text_src, bytes):
        try:
            text = text_src.decode("utf-8")
        except UnicodeDecodeError as exc:
            diags.error("Failed to load state",
                        f"The state file{src_name} is not valid UTF-8 (at byte offset {exc.start}).")
            return None, diags
    else:
        text = text_src
    return read_state_text(text, source)


def read_state_text(text: str, source: str = "") -> tuple[State | None, Diagnostics]:
    """read_state of a state file's decoded text (for a reader that keeps the text too)."""
    diags = Diagnostics()
    src_name = f" {source}" if source else ""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text or text.isspace():
        return None, diags
    try:
        raw = _decode_json(text)
    except json.JSONDecodeError as exc:
        diags.error("Failed to load state", _json_error_detail(exc, source))
        return None, diags
    except (ValueError, RecursionError) as exc:
        diags.error("Failed to load state", f"The state file{src_name} could not be parsed as JSON: {exc}.")
        return None, diags
    if not isinstance(raw, dict):
        diags.error("Failed to load state", f"The state file{src_name} must contain a JSON object.")
        return None, diags
    return state_from_json(raw, diags, source=source)


def read_state_file(path: str | os.PathLike) -> tuple[State | None, Diagnostics]:
    return read_state(_PathArg(_path_text(path)))


class _PathArg(str):
    """A str that read_state takes as a path whatever it looks like (as it took a Path)."""

    def __fspath__(self) -> str:
        return str.__str__(self)


def _path_text(src: str | os.PathLike) -> str:
    """str(pathlib.Path(src)), without importing pathlib (and urllib.parse, ipaddress, fnmatch
    behind it) into every command that reads a state: on POSIX a path with no empty or "."
    component and no trailing slash is already what Path prints; anything else goes through
    pathlib."""
    text = os.fspath(src)
    if isinstance(text, str) and os.name == "posix" and text and "//" not in text and "/./" not in text \
            and not text.startswith("./") and not text.endswith(("/", "/.")) and text != ".":
        return text
    from pathlib import Path

    return str(Path(text))


def _check_version(raw: dict, diags: Diagnostics) -> bool:
    if "version" not in raw:
        diags.error("Unsupported state file format",
                    'The state file does not have a "version" attribute, which is required to '
                    "identify the format version.")
        return False
    version = raw["version"]
    if not is_int(version):
        diags.error("Unsupported state file format",
                    f"The state file has an invalid format version {json.dumps(version)}.")
        return False
    if version < 4:
        diags.error("Unsupported state file format",
                    f"The state file uses format version {version}, written by Terraform 0.11 or "
                    "earlier, which tfconsole cannot read. Upgrade it first by running any "
                    "Terraform version from 0.12 to 1.x against it (for example "
                    '"terraform refresh"), which rewrites it in format version 4.')
        return False
    if version > 4:
        diags.error("Unsupported state file format",
                    f"The state file uses format version {version}, which is not supported by "
                    f"Terraform {terraform_version()}. This state file was created by a newer version "
                    "of Terraform.")
        return False
    return True


def _state_header(raw: dict, where: _Where, diags: Diagnostics) -> State | None:
    ok, tfv = _optional(raw, "terraform_version", (str,), where, diags, "a string", "")
    if not ok:
        return None
    if check_version_string(tfv):
        diags.error("Invalid Terraform version string",
                    f"State file claims to have been written by Terraform version {json.dumps(tfv)}, "
                    "which is not a valid version string.")
        return None
    ok, serial = _optional(raw, "serial", (int,), where, diags, "a non-negative integer", 0)
    if not ok:
        return None
    if serial < 0:
        where.at("serial").invalid(diags, f"{serial} is negative")
        return None
    ok, lineage = _optional(raw, "lineage", (str,), where, diags, "a string", "")
    if not ok:
        return None
    return State(serial=serial, lineage=lineage, terraform_version=tfv)


def state_from_json(raw: dict, diags: Diagnostics | None = None,
                    source: str = "") -> tuple[State | None, Diagnostics]:
    """The State of a decoded v4 document, every field checked; (None, diags) when any is bad.
    source names the file in every diagnostic."""
    diags = diags if diags is not None else Diagnostics()
    sub = Diagnostics()
    state = _state_from_json(raw, sub, source)
    for d in sub:
        if source and source not in d.detail:
            d = dataclasses.replace(d, detail=f"{d.detail}\n\nState file: {source}")
        diags.append(d)
    return (None if diags.has_errors else state), diags


def _state_from_json(raw: dict, diags: Diagnostics, source: str) -> State | None:
    if not _check_version(raw, diags):
        return None
    top = _Where(source)
    state = _state_header(raw, top, diags)
    if state is None:
        return None
    ok, resources = _optional(raw, "resources", (list,), top, diags, "an array", [])
    if not ok:
        return None
    for i, rs in enumerate(resources):
        _read_resource(state, rs, top.at("resources").at(i), diags)
    ok, outputs = _optional(raw, "outputs", (dict,), top, diags, "a JSON object", {})
    if not ok:
        return None
    for oname, o in outputs.items():
        out = check_output(oname, o, top.at("outputs"), diags)
        if out is not None:
            state.outputs[oname] = out
    cr = raw.get("check_results")
    if check_check_results(cr, top.at("check_results"), diags):
        state.check_results = cr
    return state


def _resource_addr(rs: dict, where: _Where, diags: Diagnostics) -> AbsResource | None:
    mode, rtype, name = rs.get("mode"), rs.get("type"), rs.get("name")
    if mode not in ("managed", "data"):
        diags.error("Invalid resource mode in state",
                    f"State contains a resource with mode {json.dumps(mode)} "
                    f"({json.dumps(rtype)} {json.dumps(name)}) which is not supported.")
        return None
    if not isinstance(rtype, str) or not isinstance(name, str) or not rtype or not name:
        diags.error("Invalid resource in state",
                    f"State contains a {mode} resource without a valid type and name.")
        return None
    ok, module_text = _optional(rs, "module", (str,), where, diags, "a module address string", "")
    if not ok:
        return None
    try:
        module = _parse_module(module_text) if module_text else ModuleInstance()
    except AddressError as exc:
        diags.error("Invalid module address in state",
                    f"State contains the invalid module address {json.dumps(module_text)}: {exc}.")
        return None
    return intern_resource(AbsResource(module, Resource(mode, rtype, name)))  # (see intern_resource)


def _read_resource(state: State, rs: Any, where: _Where, diags: Diagnostics) -> None:
    if not isinstance(rs, dict):
        where.wrong_kind(diags, rs, "a JSON object")
        return
    raddr = _resource_addr(rs, where, diags)
    if raddr is None:
        return
    where = _Where(where.source, where.field, str(raddr))
    provider = rs.get("provider")
    if not isinstance(provider, str) or not provider:
        diags.error("Invalid provider address in state",
                    f"Resource {raddr} has no valid provider configuration address.")
        return
    ok, each = _optional(rs, "each", (str,), where, diags, '"list", "map" or nothing', "")
    if ok and each not in ("", "list", "map"):
        where.at("each").invalid(diags, f'{json.dumps(each)} is not "list" or "map"')
        return
    ok2, instances = _optional(rs, "instances", (list,), where, diags, "an array", [])
    if not (ok and ok2):
        return
    res = state.resources.get(raddr)
    if res is None:
        res = state.resources[raddr] = ResourceState(raddr, provider, each)
    for j, inst in enumerate(instances):
        _read_instance(res, inst, where, j, diags)
    # an instance entry created only for a rejected object
    for k in [k for k, i in res.instances.items() if i.is_empty()]:
        del res.instances[k]
    if not res.each and res.instances:
        # Terraform 1.x does not write "each": derive it from the instance keys
        k0 = next(iter(res.instances))
        res.each = "" if k0 is None else ("list" if isinstance(k0, int) else "map")


def _instance_key(inst: dict, raddr: AbsResource, diags: Diagnostics) -> tuple[bool, Any]:
    key = inst.get("index_key")
    if isinstance(key, bool) or not (key is None or isinstance(key, (int, str, float, Decimal))):
        diags.error("Invalid resource instance metadata in state",
                    f"Resource {raddr} has an instance with the invalid instance key {json.dumps(key)}.")
        return False, None
    if isinstance(key, (float, Decimal)):
        if not math.isfinite(key):
            diags.error(INVALID_METADATA, f"Resource {raddr} has an instance with the invalid instance "
                                          f"key {key}.")
            return False, None
        key = int(key)  # as Terraform: a JSON number key is an integer key
    return True, key


def _read_instance(res: ResourceState, inst: Any, rwhere: _Where, j: int, diags: Diagnostics) -> None:
    raddr = res.addr
    if type(inst) is not dict:
        rwhere.at("instances").at(j).wrong_kind(diags, inst, "a JSON object")
        return
    ok, key = _instance_key(inst, raddr, diags)
    if not ok:
        return
    def field() -> str:  # the JSON path, made only for a message (not for every instance read)
        return f"{rwhere.field}.instances[{j}]"

    dk = inst.get("deposed")
    if dk is None:
        dk = ""
    if type(dk) is not str:
        _Where(rwhere.source, field(), str(raddr.instance(key))).at("deposed").wrong_kind(
            diags, dk, "a deposed key string")
        return
    obj = object_from_json(inst, lambda: str(raddr.instance(key)), diags, source=rwhere.source, field=field)
    if obj is None:
        return
    istate = res.instances.get(key)
    if istate is None:
        istate = res.instances[key] = InstanceState()
    if dk:
        if len(dk) != 8:
            diags.error(INVALID_METADATA, f"Instance {raddr.instance(key)} has an object with deposed key "
                                          f"{json.dumps(dk)}, which is not correctly formatted.")
        elif dk in istate.deposed:
            diags.error("Duplicate resource instance in state",
                        f'Instance {raddr.instance(key)} deposed object "{dk}" appears multiple times in the '
                        "state file.")
        else:
            istate.deposed[dk] = obj
    elif istate.current is not None:
        diags.error("Duplicate resource instance in state",
                    f"Instance {raddr.instance(key)} appears multiple times in the state file.")
    else:
        istate.current = obj
