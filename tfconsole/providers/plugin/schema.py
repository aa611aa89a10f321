"""A provider's schema as the engine sees it, from a GetProviderSchema response.

Converts the protocol's Schema / Block / Attribute / NestedBlock (and, in protocol 6, nested
attribute types) into providers.interface objects, and provider functions into signatures.
Pure conversion: no I/O here.
"""
from __future__ import annotations

import json
from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any

from tfconsole.diags import Diagnostics
from tfconsole.lang.types import DYNAMIC, Type, type_from_json
from tfconsole.providers.interface import (
    Attr,
    BlockSchema,
    FunctionSignature,
    IdentitySchema,
    NestedBlock,
    NestedType,
    Schema,
)

_BLOCK_NESTING = {1: "single", 2: "list", 3: "set", 4: "map", 5: "group"}
_OBJECT_NESTING = {1: "single", 2: "list", 3: "set", 4: "map"}


@dataclass
class ProviderSchemas:
    """Everything GetProviderSchema (and GetResourceIdentitySchemas) told us."""

    provider: Schema = field(default_factory=lambda: Schema(BlockSchema()))
    resources: dict[str, Schema] = field(default_factory=dict)
    data_sources: dict[str, Schema] = field(default_factory=dict)
    ephemeral_resources: dict[str, Schema] = field(default_factory=dict)
    functions: dict[str, FunctionSignature] = field(default_factory=dict)
    provider_meta: Schema | None = None
    plan_destroy: bool = False
    get_provider_schema_optional: bool = False
    move_resource_state: bool = False
    identities: dict[str, IdentitySchema] = field(default_factory=dict)
    diags: Diagnostics = field(default_factory=Diagnostics)


def _type(raw: bytes, where: str) -> Type:
    try:
        return type_from_json(json.loads(raw)) if raw else DYNAMIC
    except ValueError as exc:
        raise SchemaError(f"{where}: invalid type {raw[:80]!r}: {exc}") from exc


class SchemaError(ValueError):
    """The provider sent a schema we cannot understand."""


def attribute(a: Any, where: str) -> Attr:
    nested = None
    if a.HasField("nested_type") if hasattr(a, "nested_type") else False:
        nt = a.nested_type
        nested = NestedType({x.name: attribute(x, f"{where}.{x.name}") for x in nt.attributes},
                            _OBJECT_NESTING.get(nt.nesting, "single"))
        ty = nested.implied_type()
    else:
        ty = _type(a.type, where)
    return Attr(ty, required=a.required, optional=a.optional, computed=a.computed, sensitive=a.sensitive,
                description=a.description, write_only=a.write_only, deprecated=a.deprecated, nested=nested)


def block(b: Any, where: str) -> BlockSchema:
    attrs = {a.name: attribute(a, f"{where}.{a.name}") for a in b.attributes}
    blocks = {}
    for nb in b.block_types:
        nesting = _BLOCK_NESTING.get(nb.nesting)
        if nesting is None:
            raise SchemaError(f"{where}.{nb.type_name}: invalid nesting mode {nb.nesting}")
        blocks[nb.type_name] = NestedBlock(block(nb.block, f"{where}.{nb.type_name}"), nesting,
                                          int(nb.min_items), int(nb.max_items))
    return BlockSchema(attrs, blocks)


def schema(s: Any, where: str) -> Schema:
    return Schema(block(s.block, where), int(s.version))


def function(f: Any, where: str) -> FunctionSignature:
    def param(p: Any) -> tuple[str, Type, bool, bool]:
        return (p.name, _type(p.type, f"{where}({p.name})"), p.allow_null_value, p.allow_unknown_values)

    variadic = param(f.variadic_parameter) if f.HasField("variadic_parameter") else None
    ret = getattr(f, "return")
    return FunctionSignature(tuple(param(p) for p in f.parameters), variadic, _type(ret.type, where), f.summary)


def from_response(resp: Any) -> ProviderSchemas:
    """Convert a GetProviderSchema response; a malformed schema becomes an error diagnostic."""
    from .wire import diagnostics_from_proto

    out = ProviderSchemas(diags=diagnostics_from_proto(resp.diagnostics))
    try:
        out.provider = schema(resp.provider, "provider")
        out.resources = {k: schema(v, k) for k, v in resp.resource_schemas.items()}
        out.data_sources = {k: schema(v, k) for k, v in resp.data_source_schemas.items()}
        out.ephemeral_resources = {k: schema(v, k) for k, v in resp.ephemeral_resource_schemas.items()}
        out.functions = {k: function(v, k) for k, v in resp.functions.items()}
        if resp.HasField("provider_meta"):
            out.provider_meta = schema(resp.provider_meta, "provider_meta")
    except SchemaError as exc:
        out.diags.error("Failed to load plugin schemas", f"The provider sent a schema tfconsole cannot use: {exc}.")
    caps = resp.server_capabilities
    out.plan_destroy = caps.plan_destroy
    out.get_provider_schema_optional = caps.get_provider_schema_optional
    out.move_resource_state = caps.move_resource_state
    return out


def identities_from_response(resp: Any, out: ProviderSchemas) -> None:
    """Add a GetResourceIdentitySchemas response's identity schemas (or its errors) to `out`."""
    from .wire import diagnostics_from_proto

    out.diags.extend(diagnostics_from_proto(resp.diagnostics))
    try:
        out.identities = {
            k: IdentitySchema(int(v.version), {
                a.name: Attr(_type(a.type, f"{k} identity.{a.name}"), required=a.required_for_import,
                             optional=a.optional_for_import, description=a.description)
                for a in v.identity_attributes})
            for k, v in resp.identity_schemas.items()}
    except SchemaError as exc:
        out.diags.error("Failed to load plugin schemas",
                        f"The provider sent an identity schema tfconsole cannot use: {exc}.")
