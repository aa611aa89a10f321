"""Configuration generated for import targets (`plan -generate-config-out=FILE`).

Terraform's documented behaviour for providers that do not generate configuration themselves:
the imported object's values become arguments, in attribute-name order, leaving out what a
configuration cannot set (computed-only attributes, a provider-set optional `id`, deprecated
attributes and blocks, empty optional strings, computed attributes that are null); sensitive
attributes are written as `null # sensitive`; a string holding a JSON object or array is written
as `jsonencode(...)` of its value. The result is laid out as `terraform fmt` would (hclfmt).
"""
from __future__ import annotations

import json
import re
from typing import Any

from tfconsole.lang.values import TList, TMap, TSet, format_number, is_null, unmark_deep

FILE_HEADER = ("# __generated__ by Terraform\n"
               "# Please review these resources and move them into your main configuration files.\n")

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def file_entry(import_id: str, block: str) -> str:
    """One resource's part of the generated file (after FILE_HEADER)."""
    head = "\n# __generated__ by Terraform" + (f" from {json.dumps(import_id, ensure_ascii=False)}"
                                              if import_id else "")
    return f"{head}\n{block}\n"


def resource_body(schema: Any, state: dict[str, Any], provider_line: str | None) -> str:
    """The arguments and blocks of a resource block for `state` (a value of `schema`'s type)."""
    plain = unmark_deep(state)[0]
    value = _legacy_config(schema, plain, top=True)
    out: list[str] = []
    if provider_line:
        out.append(f"  provider = {provider_line}\n")
    _attributes(schema.attributes, value, 2, out)
    _blocks(schema.blocks, value, 2, out)
    return "".join(out)


def resource_block(type_name: str, name: str, body: str) -> str:
    """`resource "T" "N" { body }` in canonical layout."""
    return format_hcl(f"resource {json.dumps(type_name)} {json.dumps(name)} {{\n{body}}}")


def format_hcl(text: str) -> str:
    from .hclfmt import format_source
    from .hclparse import parse_config

    parsed = parse_config(text.encode(), "generated.tf")
    if parsed.diags:  # never expected: what we write is valid HCL; keep it readable regardless
        return text
    return format_source(parsed).decode()


# ---------------------------------------------------------------- what a configuration can set

def _legacy_config(schema: Any, v: Any, top: bool = False) -> Any:
    """The state value with what no configuration sets made null (Terraform's
    ExtractLegacyConfigFromState rules), through nested blocks and nested attributes."""
    if not isinstance(v, dict):
        return v
    out = dict(v)
    for name, a in schema.attributes.items():
        x = out.get(name)
        if x is None or is_null(x):
            continue
        if a.deprecated or (a.computed and not a.optional) or (top and name == "id" and a.computed and a.optional):
            out[name] = None
        elif isinstance(x, str) and a.optional and x == "":
            out[name] = None
        elif a.nested is not None:
            out[name] = _each_element(x, lambda e, n=a.nested: _nested_legacy(n, e))
    for name, nb in schema.blocks.items():
        x = out.get(name)
        if x is None or is_null(x):
            continue
        if getattr(nb.block, "deprecated", False):
            out[name] = None
        else:
            out[name] = _each_element(x, lambda e, b=nb.block: _legacy_config(b, e))
    return out


def _nested_legacy(nested: Any, v: Any) -> Any:
    from tfconsole.providers.interface import BlockSchema

    return _legacy_config(BlockSchema(attributes=nested.attributes), v)


def _each_element(x: Any, fn: Any) -> Any:
    """fn over a nested object, or over each object of a collection of them (only written out
    afterwards: plain dicts and lists will do)."""
    if isinstance(x, TMap):
        return {k: fn(e) for k, e in x.items()}
    if isinstance(x, dict):
        return fn(x)
    if isinstance(x, (list, TList, TSet)):
        return [fn(e) for e in x]
    return x


# ---------------------------------------------------------------- writing

def _attributes(attrs: dict[str, Any], value: Any, indent: int, out: list[str]) -> None:
    pad = " " * indent
    for name in sorted(attrs):
        a = attrs[name]
        val = value.get(name) if isinstance(value, dict) else None
        null = val is None or is_null(val)
        if (a.computed and null) or a.deprecated:
            continue
        if a.nested is not None:
            _nested_attribute(name, a, val, indent, out)
            continue
        if a.sensitive:
            out.append(f"{pad}{name} = null # sensitive\n")
            continue
        out.append(f"{pad}{name} = {_value_text(val, indent, json_strings=True)}\n")


def _nested_attribute(name: str, a: Any, val: Any, indent: int, out: list[str]) -> None:
    pad = " " * indent
    nesting = a.nested.nesting
    if a.sensitive:
        out.append(f"{pad}{name} = {'[]' if nesting in ('list', 'set') else '{}'} # sensitive\n")
        return
    if val is None or is_null(val):
        out.append(f"{pad}{name} = null\n")
        return
    if nesting == "single":
        out.append(f"{pad}{name} = {{\n")
        _attributes(a.nested.attributes, val, indent + 2, out)
        out.append("}\n")
    elif nesting in ("list", "set"):
        out.append(f"{pad}{name} = [\n")
        for e in val:
            out.append(f"{pad}  {{\n")
            _attributes(a.nested.attributes, e, indent + 4, out)
            out.append(f"{pad}  }},\n")
        out.append(f"{pad}]\n")
    else:
        out.append(f"{pad}{name} = {{\n")
        for k in sorted(val):
            out.append(f"{pad}  {_key(k)} = {{\n")
            _attributes(a.nested.attributes, val[k], indent + 4, out)
            out.append(f"{pad}  }}\n")
        out.append(f"{pad}}}\n")


def _blocks(blocks: dict[str, Any], value: Any, indent: int, out: list[str]) -> None:
    pad = " " * indent
    for name in sorted(blocks):
        nb = blocks[name]
        val = value.get(name) if isinstance(value, dict) else None
        if val is None or is_null(val):
            continue
        if nb.nesting in ("single", "group"):
            items: list[tuple[str, Any]] = [("", val)]
        elif nb.nesting == "map":
            items = [(f" {json.dumps(k, ensure_ascii=False)}", val[k]) for k in sorted(val)]
        else:
            items = [("", e) for e in val]
        for label, e in items:
            out.append(f"{pad}{name}{label} {{\n")
            _attributes(nb.block.attributes, e, indent + 2, out)
            _blocks(nb.block.blocks, e, indent + 2, out)
            out.append(f"{pad}}}\n")


def _value_text(v: Any, indent: int, json_strings: bool = False) -> str:
    """A value as HCL tokens, as HCL's writer renders one (lists inline, maps one key a line)."""
    if v is None or is_null(v):
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        if json_strings:
            decoded = _json_container(v)
            if decoded is not _NOT_JSON:
                return f"jsonencode({_value_text(decoded, indent)})"
        from .hclfmt import escape_quoted

        return f"\"{escape_quoted(v)}\""
    if isinstance(v, (dict, TMap)):
        if not v:
            return "{}"
        pad = " " * (indent + 2)
        keys = sorted(v)
        lines = [f"{pad}{_key(k)} = {_value_text(v[k], indent + 2)}" for k in keys]
        return "{\n" + "\n".join(lines) + "\n" + " " * indent + "}"
    if isinstance(v, (list, tuple, TList, TSet)):
        return "[" + ", ".join(_value_text(e, indent) for e in v) + "]"
    return format_number(v)


_NOT_JSON = object()


def _json_container(s: str) -> Any:
    """A string holding a JSON object or array: its value (numbers exact); else _NOT_JSON."""
    from decimal import Decimal

    st = s.strip()
    if not st or st[0] not in "{[":
        return _NOT_JSON
    try:
        return json.loads(st, parse_float=Decimal, object_pairs_hook=dict)
    except ValueError:
        return _NOT_JSON


def _key(k: str) -> str:
    return k if _IDENT.match(k) else json.dumps(k, ensure_ascii=False)
