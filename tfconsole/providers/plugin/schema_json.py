"""Provider schemas in the JSON form of `terraform providers schema -json`, byte for byte.

Terraform writes this with Go's encoding/json: compact, struct fields in declaration order, map
keys sorted, empty optional fields left out, and `<`, `>`, `&`, U+2028 and U+2029 escaped. The
input is any tfconsole Provider (built-in, or a plugin adapter exposing the same interface);
optional schema details (descriptions, deprecation, write-only, nested attribute types) are read
when the schema objects carry them.
"""
from __future__ import annotations

from typing import Any

FORMAT_VERSION = "1.0"


def _kind(obj: Any) -> str:
    return "markdown" if getattr(obj, "description_kind", "plain") == "markdown" else "plain"


def _attribute(a: Any) -> dict:
    out: dict[str, Any] = {}
    nested = getattr(a, "nested_type", None)
    if nested is None and getattr(a, "type", None) is not None:
        out["type"] = a.type.to_json()
    if nested is not None:
        out["nested_type"] = {"attributes": {k: _attribute(v) for k, v in sorted(nested.attributes.items())},
                              "nesting_mode": nested.nesting}
    if getattr(a, "description", ""):
        out["description"] = a.description
    out["description_kind"] = _kind(a)
    for flag in ("deprecated",):
        if getattr(a, flag, False):
            out[flag] = True
    if getattr(a, "deprecation_message", ""):
        out["deprecation_message"] = a.deprecation_message
    for flag in ("required", "optional", "computed", "sensitive", "write_only"):
        if getattr(a, flag, False):
            out[flag] = True
    return out


def _block(b: Any) -> dict:
    out: dict[str, Any] = {}
    if b.attributes:
        out["attributes"] = {k: _attribute(v) for k, v in sorted(b.attributes.items())}
    if b.blocks:
        out["block_types"] = {k: _block_type(v) for k, v in sorted(b.blocks.items())}
    if getattr(b, "description", ""):
        out["description"] = b.description
    out["description_kind"] = _kind(b)
    if getattr(b, "deprecated", False):
        out["deprecated"] = True
    if getattr(b, "deprecation_message", ""):
        out["deprecation_message"] = b.deprecation_message
    return out


def _block_type(nb: Any) -> dict:
    out: dict[str, Any] = {"nesting_mode": nb.nesting, "block": _block(nb.block)}
    if nb.min_items:
        out["min_items"] = nb.min_items
    if nb.max_items:
        out["max_items"] = nb.max_items
    return out


def _schema(s: Any) -> dict:
    if s is None or getattr(s, "block", None) is None:
        return {"version": 0}
    return {"version": s.version, "block": _block(s.block)}


def provider_json(provider: Any) -> dict:
    """One entry of `provider_schemas`."""
    out: dict[str, Any] = {"provider": _schema(provider.provider_schema())}
    for key, schemas in (("resource_schemas", provider.resource_schemas()),
                         ("data_source_schemas", provider.data_source_schemas()),
                         ("ephemeral_resource_schemas", _optional(provider, "ephemeral_resource_schemas"))):
        if schemas:
            out[key] = {k: _schema(v) for k, v in sorted(schemas.items())}
    functions = _optional(provider, "functions_json")
    if functions:
        out["functions"] = dict(sorted(functions.items()))
    return out


def _optional(provider: Any, name: str) -> dict:
    fn = getattr(provider, name, None)
    return fn() if callable(fn) else {}


def providers_json(schemas: dict[str, dict]) -> str:
    """The whole document for `providers schema -json`."""
    doc: dict[str, Any] = {"format_version": FORMAT_VERSION}
    if schemas:
        doc["provider_schemas"] = dict(sorted(schemas.items()))
    return go_json(doc)


_GO_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "<": "\\u003c", ">": "\\u003e",
               "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _go_string(s: str) -> str:
    out = []
    for ch in s:
        esc = _GO_ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def go_json(v: Any) -> str:
    """Compact JSON as Go's encoding/json writes it (dicts keep their order: build them ordered)."""
    if isinstance(v, str):
        return _go_string(v)
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v) if v != int(v) else str(int(v))
    if isinstance(v, dict):
        return "{" + ",".join(f"{_go_string(str(k))}:{go_json(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(go_json(x) for x in v) + "]"
    raise TypeError(f"cannot encode {type(v).__name__}")
