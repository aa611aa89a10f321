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

import json
import math
import os
from decimal import Decimal
from json.encoder import encode_basestring  # type: ignore[attr-defined]  # C-accelerated
from pathlib import Path
from typing import Any

from tfconsole.addrs import AbsResource, AddressError, ModuleInstance, Resource, parse_target
from tfconsole.diags import Diagnostics

from .state import InstanceState, ObjectState, OutputState, ResourceState, State

__all__ = [
    "read_state", "read_state_file", "write_state", "state_body", "state_header",
    "format_number", "object_to_json", "object_from_json", "sensitive_paths",
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
            _data(x, inner, out)
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
    out: list[str] = []
    # outputs
    if state.outputs:
        out.append('  "outputs": {')
        sep = "\n"
        for name in sorted(state.outputs):
            o = state.outputs[name]
            pairs: list[tuple[str, Any]] = [("value", o.value), ("type", o.type)]
            if o.sensitive:
                pairs.append(("sensitive", True))
            out.append(sep + "    " + encode_basestring(name) + ": ")
            _struct(pairs, "    ", out)
            sep = ",\n"
        out.append("\n  },\n")
    else:
        out.append('  "outputs": {},\n')
    # resources
    rlist: list[tuple[tuple, _Struct]] = []
    for addr, rs in state.resources.items():
        s = _resource_pairs(rs)
        if s is not None:
            rlist.append(((str(addr.module), addr.resource.mode, addr.resource.type,
                           addr.resource.name), s))
    rlist.sort(key=lambda p: p[0])
    out.append('  "resources": ')
    _struct_list([s for _, s in rlist], "  ", out)
    out.append(',\n  "check_results": ')
    cr = _check_results(state.check_results)
    if type(cr) is _StructList:
        _struct_list(cr.items, "  ", out)
    else:
        _data(cr, "  ", out)
    out.append("\n}\n")
    return _go_escapes("".join(out))


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


def _err(diags: Diagnostics, summary: str, detail: str) -> None:
    diags.error(summary, detail)


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


def object_from_json(d: dict, where: str, diags: Diagnostics) -> ObjectState | None:
    """An ObjectState from an instance object of the file (or a journal record)."""
    status = d.get("status") or ""
    if status not in ("", "tainted"):
        _err(diags, "Invalid resource instance metadata in state",
             f'Instance {where} has invalid status "{status}".')
        return None
    attrs = d.get("attributes")
    flat = d.get("attributes_flat")
    if attrs is None and flat is None:
        attrs = {}
    if flat is not None and not isinstance(flat, dict):
        _err(diags, "Invalid resource instance metadata in state",
             f"Instance {where} has invalid attributes_flat.")
        return None
    paths, perr = sensitive_paths(d.get("sensitive_attributes"))
    if perr is not None:
        _err(diags, "Error unmarshaling path steps", f"Instance {where}: {perr}.")
        return None
    schema_version = d.get("schema_version", 0)
    if not isinstance(schema_version, int) or isinstance(schema_version, bool) or schema_version < 0:
        _err(diags, "Invalid resource instance metadata in state",
             f"Instance {where} has invalid schema_version {schema_version!r}.")
        return None
    deps = d.get("dependencies") or []
    if not isinstance(deps, list) or not all(isinstance(x, str) for x in deps):
        _err(diags, "Invalid resource instance metadata in state",
             f"Instance {where} has invalid dependencies.")
        return None
    private = d.get("private")
    if private is not None and not isinstance(private, str):
        _err(diags, "Invalid resource instance metadata in state",
             f"Instance {where} has invalid private data.")
        return None
    isv = d.get("identity_schema_version", 0) or 0
    return ObjectState(
        attributes=attrs,
        status="tainted" if status == "tainted" else "ready",
        schema_version=schema_version,
        sensitive_attributes=paths,  # type: ignore[arg-type]
        private=private or None,
        dependencies=list(deps),
        create_before_destroy=bool(d.get("create_before_destroy", False)),
        identity=d.get("identity"),
        identity_schema_version=int(isv) if isinstance(isv, (int, float)) else 0,
        attributes_flat=flat,
    )


def _parse_module(text: str) -> ModuleInstance:
    t = parse_target(text)
    if not isinstance(t, ModuleInstance):
        raise AddressError(f"Invalid module instance address {text!r}")
    return t


def _json_error_detail(exc: json.JSONDecodeError) -> str:
    return (f"The state file could not be parsed as JSON: {exc.msg} at line {exc.lineno}, "
            f"column {exc.colno} (byte offset {exc.pos}).")


def read_state(src: str | bytes | os.PathLike) -> tuple[State | None, Diagnostics]:
    """Parse a state file from its text or from a path.

    src is a path if it is a PathLike, or a one-line str not starting with '{' or '['; any
    other str, and bytes, are the file's text.

    Empty input (an empty or whitespace-only file) is "no state": returns (None, no diags).
    On errors returns (None, diags) with a clear diagnostic, never raises for bad input.
    """
    diags = Diagnostics()
    if isinstance(src, os.PathLike) or (isinstance(src, str) and src.strip()
                                         and src.lstrip()[0] not in "{[" and "\n" not in src):
        path = Path(src)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None, diags
        except OSError as exc:
            diags.error("Failed to load state", f"Error reading {path}: {exc.strerror or exc}.")
            return None, diags
        text_src: str | bytes = data
    else:
        text_src = src
    if isinstance(text_src, bytes):
        try:
            text = text_src.decode("utf-8")
        except UnicodeDecodeError as exc:
            diags.error("Failed to load state",
                        f"The state file is not valid UTF-8 (at byte offset {exc.start}).")
            return None, diags
    else:
        text = text_src
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        return None, diags
    try:
        raw = _decode_json(text)
    except json.JSONDecodeError as exc:
        diags.error("Failed to load state", _json_error_detail(exc))
        return None, diags
    except (ValueError, RecursionError) as exc:
        diags.error("Failed to load state", f"The state file could not be parsed as JSON: {exc}.")
        return None, diags
    if not isinstance(raw, dict):
        diags.error("Failed to load state", "The state file must contain a JSON object.")
        return None, diags
    return state_from_json(raw, diags)


def read_state_file(path: str | os.PathLike) -> tuple[State | None, Diagnostics]:
    return read_state(Path(path))


def state_from_json(raw: dict, diags: Diagnostics | None = None) -> tuple[State | None, Diagnostics]:
    diags = diags if diags is not None else Diagnostics()
    TERRAFORM_VERSION = terraform_version()

    if "version" not in raw:
        diags.error("Unsupported state file format",
                    'The state file does not have a "version" attribute, which is required to '
                    "identify the format version.")
        return None, diags
    version = raw["version"]
    if not isinstance(version, int) or isinstance(version, bool):
        diags.error("Unsupported state file format",
                    f"The state file has an invalid format version {json.dumps(version)}.")
        return None, diags
    if version < 4:
        diags.error("Unsupported state file format",
                    f"The state file uses format version {version}, written by Terraform 0.11 or "
                    "earlier, which tfconsole cannot read. Upgrade it first by running any "
                    "Terraform version from 0.12 to 1.x against it (for example "
                    '"terraform refresh"), which rewrites it in format version 4.')
        return None, diags
    if version > 4:
        diags.error("Unsupported state file format",
                    f"The state file uses format version {version}, which is not supported by "
                    f"Terraform {TERRAFORM_VERSION}. This state file was created by a newer version "
                    "of Terraform.")
        return None, diags

    tfv = raw.get("terraform_version", "")
    if tfv is None:
        tfv = ""
    if not isinstance(tfv, str):
        diags.error("Invalid Terraform version string",
                    f"State file claims to have been written by Terraform version {json.dumps(tfv)}, "
                    "which is not a valid version string.")
        return None, diags
    serial = raw.get("serial", 0) or 0
    if not isinstance(serial, int) or isinstance(serial, bool) or serial < 0:
        diags.error("Failed to load state", f'The state file has an invalid "serial" {json.dumps(serial)}.')
        return None, diags
    lineage = raw.get("lineage", "") or ""
    if not isinstance(lineage, str):
        diags.error("Failed to load state", 'The state file has an invalid "lineage".')
        return None, diags

    state = State(serial=serial, lineage=lineage, terraform_version=tfv)
    resources = raw.get("resources") or []
    if not isinstance(resources, list):
        diags.error("Failed to load state", 'The state file\'s "resources" must be a JSON array.')
        return None, diags

    for rs in resources:
        if not isinstance(rs, dict):
            diags.error("Failed to load state", "Each resource in the state file must be a JSON object.")
            continue
        mode = rs.get("mode")
        rtype = rs.get("type")
        name = rs.get("name")
        if mode not in ("managed", "data"):
            diags.error("Invalid resource mode in state",
                        f"State contains a resource with mode {json.dumps(mode)} "
                        f"({json.dumps(rtype)} {json.dumps(name)}) which is not supported.")
            continue
        if not isinstance(rtype, str) or not isinstance(name, str) or not rtype or not name:
            diags.error("Invalid resource in state",
                        f"State contains a {mode} resource without a valid type and name.")
            continue
        module_text = rs.get("module") or ""
        try:
            module = _parse_module(module_text) if module_text else ModuleInstance()
        except AddressError as exc:
            diags.error("Invalid module address in state",
                        f"State contains the invalid module address {json.dumps(module_text)}: {exc}.")
            continue
        provider = rs.get("provider")
        if not isinstance(provider, str) or not provider:
            diags.error("Invalid provider address in state",
                        f"Resource {AbsResource(module, Resource(mode, rtype, name))} has no valid "
                        "provider configuration address.")
            continue
        raddr = AbsResource(module, Resource(mode, rtype, name))
        each = rs.get("each") or ""
        if raddr in state.resources:
            res = state.resources[raddr]
        else:
            res = state.resources[raddr] = ResourceState(raddr, provider, each if isinstance(each, str) else "")
        instances = rs.get("instances") or []
        if not isinstance(instances, list):
            diags.error("Failed to load state", f"Resource {raddr} has invalid instances.")
            continue
        for inst in instances:
            if not isinstance(inst, dict):
                diags.error("Failed to load state", f"Resource {raddr} has an invalid instance.")
                continue
            key = inst.get("index_key")
            if isinstance(key, bool) or not (key is None or isinstance(key, (int, str, float, Decimal))):
                diags.error("Invalid resource instance metadata in state",
                            f"Resource {raddr} has an instance with the invalid instance key "
                            f"{json.dumps(key)}.")
                continue
            if isinstance(key, (float, Decimal)):
                key = int(key)
            iaddr = raddr.instance(key)
            obj = object_from_json(inst, str(iaddr), diags)
            if obj is None:
                continue
            dk = inst.get("deposed") or ""
            istate = res.instances.setdefault(key, InstanceState())
            if dk:
                if not isinstance(dk, str) or len(dk) != 8:
                    diags.error("Invalid resource instance metadata in state",
                                f"Instance {iaddr} has an object with deposed key {json.dumps(dk)}, "
                                "which is not correctly formatted.")
                    continue
                if dk in istate.deposed:
                    diags.error("Duplicate resource instance in state",
                                f'Instance {iaddr} deposed object "{dk}" appears multiple times in '
                                "the state file.")
                    continue
                istate.deposed[dk] = obj
            else:
                if istate.current is not None:
                    diags.error("Duplicate resource instance in state",
                                f"Instance {iaddr} appears multiple times in the state file.")
                    continue
                istate.current = obj
        # an instance entry created only for a rejected object
        for k in [k for k, i in res.instances.items() if i.is_empty()]:
            del res.instances[k]
        if not res.each and res.instances:
            # Terraform 1.x does not write "each": derive it from the instance keys
            k0 = next(iter(res.instances))
            res.each = "" if k0 is None else ("list" if isinstance(k0, int) else "map")

    outputs = raw.get("outputs") or {}
    if not isinstance(outputs, dict):
        diags.error("Failed to load state", 'The state file\'s "outputs" must be a JSON object.')
        return None, diags
    for oname, o in outputs.items():
        if not isinstance(o, dict) or "type" not in o:
            diags.error("Invalid output value type in state",
                        f'The state file has an invalid type specification for output "{oname}".')
            continue
        state.outputs[oname] = OutputState(o.get("value"), o["type"], bool(o.get("sensitive", False)))

    cr = raw.get("check_results")
    if cr is not None and not isinstance(cr, list):
        diags.error("Failed to load state", 'The state file\'s "check_results" must be a JSON array.')
    else:
        state.check_results = cr
    if diags.has_errors:
        return None, diags
    return state, diags
