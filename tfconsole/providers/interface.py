"""The provider interface: schemas, validate, configure, plan, apply, read, import, data read.

Providers see language values (see lang/values.py) with marks removed: dicts of attribute
name -> value, Unknown(type) for "known after apply", None/Null for null. They report
problems as Diagnostics (never raise for user errors). The engine merges configuration and
prior state into the proposed new state before calling plan, as Terraform does.
"""
from __future__ import annotations

import contextvars
from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any

from tfconsole.diags import Diagnostics
from tfconsole.lang.types import DYNAMIC, ListType, MapType, ObjectType, SetType, Type

# The resource instance address a provider call is made for, set by the engine around its calls
# in each worker thread, so a plugin's log lines can be attributed to the resource.
CALLING_RESOURCE: contextvars.ContextVar[str | None] = contextvars.ContextVar("tfconsole_calling_resource",
                                                                             default=None)


@dataclass(frozen=True)
class Attr:
    type: Type
    required: bool = False
    optional: bool = False
    computed: bool = False
    sensitive: bool = False
    force_new: bool = False  # a change forces replacement (RequiresReplace)
    description: str = ""
    write_only: bool = False  # sent to the provider, never stored in plan or state
    deprecated: bool = False
    nested: NestedType | None = None  # protocol 6 nested attributes; `type` is their implied type


@dataclass(frozen=True)
class NestedType:
    """The object type of a protocol-6 nested attribute and how its objects are collected."""

    attributes: dict[str, Attr] = field(default_factory=dict)
    nesting: str = "single"  # "single" | "list" | "set" | "map"

    def object_type(self) -> ObjectType:
        optional = frozenset(k for k, a in self.attributes.items() if a.optional or a.computed)
        return ObjectType.of({k: a.type for k, a in self.attributes.items()}, optional)

    def implied_type(self) -> Type:
        obj = self.object_type()
        return {"single": obj, "list": ListType(obj), "set": SetType(obj), "map": MapType(obj)}[self.nesting]


@dataclass(frozen=True)
class NestedBlock:
    block: BlockSchema
    nesting: str = "list"  # "single" | "group" | "list" | "set" | "map"
    min_items: int = 0
    max_items: int = 0


@dataclass(frozen=True)
class BlockSchema:
    attributes: dict[str, Attr] = field(default_factory=dict)
    blocks: dict[str, NestedBlock] = field(default_factory=dict)

    def implied_type(self) -> ObjectType:
        cached = self.__dict__.get("_implied")
        if cached is not None:
            return cached
        ty = self._implied_type()
        object.__setattr__(self, "_implied", ty)
        return ty

    def _implied_type(self) -> ObjectType:
        attrs: dict[str, Type] = {k: a.type for k, a in self.attributes.items()}
        for name, nb in self.blocks.items():
            inner = nb.block.implied_type()
            if nb.nesting in ("single", "group"):
                attrs[name] = inner
            elif nb.nesting == "set":
                attrs[name] = SetType(inner)
            elif nb.nesting == "map":
                attrs[name] = MapType(inner)
            else:
                attrs[name] = ListType(inner)
        return ObjectType.of(attrs)

    def sensitive_attrs(self) -> set[str]:
        cached = self.__dict__.get("_sensitive")
        if cached is None:
            cached = frozenset(k for k, a in self.attributes.items() if a.sensitive)
            object.__setattr__(self, "_sensitive", cached)
        return cached  # type: ignore[return-value]


@dataclass(frozen=True)
class Schema:
    block: BlockSchema
    version: int = 0


@dataclass(frozen=True)
class IdentitySchema:
    """A managed resource type's identity (Terraform 1.12+): a flat object of primitive or list
    attributes that names the remote object, versioned apart from the resource schema.
    Identities cross the engine as the JSON data state files hold (a dict), None when absent."""

    version: int
    attributes: dict[str, Attr] = field(default_factory=dict)  # required = required_for_import

    def implied_type(self) -> ObjectType:
        return ObjectType.of({k: a.type for k, a in self.attributes.items()})


@dataclass
class PlanRequest:
    type_name: str
    prior: dict[str, Any] | None  # None when creating
    proposed: dict[str, Any]  # config merged with prior computed values
    config: dict[str, Any]
    prior_private: str | None = None
    prior_identity: Any = None  # identity JSON data of the prior object


@dataclass
class PlanResponse:
    planned: dict[str, Any]
    requires_replace: list[tuple] = field(default_factory=list)  # attribute paths
    diags: Diagnostics = field(default_factory=Diagnostics)
    private: str | None = None
    # a provider on the legacy SDK type system: Terraform tolerates its plan inconsistencies
    legacy_type_system: bool = False
    planned_identity: Any = None


@dataclass
class ApplyRequest:
    type_name: str
    prior: dict[str, Any] | None  # None when creating
    planned: dict[str, Any] | None  # None when destroying
    config: dict[str, Any] | None
    private: str | None = None
    planned_identity: Any = None


@dataclass
class ApplyResponse:
    new_state: dict[str, Any] | None
    diags: Diagnostics = field(default_factory=Diagnostics)
    private: str | None = None
    legacy_type_system: bool = False
    new_identity: Any = None


@dataclass
class ImportedObject:
    type_name: str
    state: dict[str, Any]
    private: str | None = None
    identity: Any = None


@dataclass(frozen=True)
class FunctionSignature:
    """A provider-defined function: parameter types, the variadic parameter, the return type."""

    params: tuple[tuple[str, Type, bool, bool], ...]  # (name, type, allow_null, allow_unknown)
    variadic: tuple[str, Type, bool, bool] | None
    returns: Type
    summary: str = ""


@dataclass
class ReadResponse:
    new_state: dict[str, Any] | None  # None: the object no longer exists
    diags: Diagnostics = field(default_factory=Diagnostics)
    private: str | None = None
    new_identity: Any = None


@dataclass
class EphemeralOpened:
    """What opening an ephemeral resource gave: its value (never stored), the provider's
    private data for renew and close, and when (unix seconds) the provider wants a renew."""

    result: dict[str, Any] | None
    private: bytes | None = None
    renew_at: float | None = None
    diags: Diagnostics = field(default_factory=Diagnostics)
    deferred: int | None = None  # the provider deferred opening it: Deferred.Reason (result is None)


class Provider:
    """Base class for built-in providers. Subclasses set `type_name` and `source`.

    A plugin (providers/plugin/adapter.py) implements the same class over Terraform's plugin
    protocol, so the engine never needs to know which kind it is talking to."""

    type_name: str = ""
    source: str = ""  # e.g. "registry.terraform.io/hashicorp/random"
    # True for a provider behind Terraform's plugin protocol: stored objects pass through
    # upgrade_resource_state before they are read, and the engine builds proposed new states
    # and checks planned and applied objects exactly as Terraform does
    wire_protocol: bool = False

    def provider_schema(self) -> Schema:
        return Schema(BlockSchema())

    def resource_schemas(self) -> dict[str, Schema]:
        return {}

    def data_source_schemas(self) -> dict[str, Schema]:
        return {}

    def ephemeral_resource_schemas(self) -> dict[str, Schema]:
        return {}

    def configure(self, config: dict[str, Any]) -> Diagnostics:
        return Diagnostics()

    # ephemeral resources: opened during plan and apply, never stored, closed when done
    def validate_ephemeral_resource(self, type_name: str, config: dict[str, Any]) -> Diagnostics:
        return Diagnostics()

    def open_ephemeral_resource(self, type_name: str, config: dict[str, Any]) -> EphemeralOpened:
        return EphemeralOpened(None, diags=Diagnostics().error(
            "Ephemeral resources not supported", f"The provider {self.source} has no ephemeral resources."))

    def renew_ephemeral_resource(self, type_name: str,
                                 private: bytes | None) -> tuple[float | None, bytes | None, Diagnostics]:
        """(next renew time or None, new private data, diagnostics)."""
        return None, private, Diagnostics()

    def close_ephemeral_resource(self, type_name: str, private: bytes | None) -> Diagnostics:
        return Diagnostics()

    def validate_resource(self, type_name: str, config: dict[str, Any]) -> Diagnostics:
        return Diagnostics()

    def validate_data_source(self, type_name: str, config: dict[str, Any]) -> Diagnostics:
        return Diagnostics()

    def plan_resource(self, req: PlanRequest) -> PlanResponse:
        return PlanResponse(planned=req.proposed)

    def apply_resource(self, req: ApplyRequest) -> ApplyResponse:
        raise NotImplementedError

    def read_resource(self, type_name: str, state: dict[str, Any], private: str | None,
                      identity: Any = None) -> ReadResponse:
        return ReadResponse(new_state=state, private=private, new_identity=identity)

    def identity_schemas(self) -> dict[str, IdentitySchema]:
        """Managed resource types that have an identity (GetResourceIdentitySchemas)."""
        return {}

    def upgrade_resource_identity(self, type_name: str, version: int,
                                  raw: Any) -> tuple[Any, Diagnostics]:
        """A stored identity (JSON data written at identity schema `version`) as identity data
        of the current identity schema."""
        return raw, Diagnostics()

    def import_resource(self, type_name: str, id_: str) -> tuple[dict[str, Any] | None, Diagnostics]:
        d = Diagnostics()
        d.error("Resource Import Not Implemented", f"{type_name} does not support import.")
        return None, d

    def import_resource_state(self, type_name: str, id_: str,
                              identity: Any = None) -> tuple[list[ImportedObject], Diagnostics]:
        """Every object the import produced (ImportResourceState may return several), by id or,
        for a type with an identity schema, by identity (JSON data)."""
        if identity is not None:
            return [], Diagnostics().error("Resource Import Not Implemented",
                                           f"{type_name} cannot be imported by identity.")
        value, diags = self.import_resource(type_name, id_)
        return ([ImportedObject(type_name, value)] if value is not None else []), diags

    def upgrade_resource_state(self, type_name: str, version: int,
                               attributes: dict[str, Any]) -> tuple[dict[str, Any] | None, Diagnostics]:
        """A stored object (its state-file attributes, written at schema `version`) as a value of
        the current schema."""
        from tfconsole.lang.values import from_json_typed

        schema = self.resource_schemas()[type_name]
        return from_json_typed(attributes, schema.block.implied_type()), Diagnostics()

    def functions(self) -> dict[str, FunctionSignature]:
        """Provider-defined functions, called as provider::NAME::FUNCTION(...)."""
        return {}

    def call_function(self, name: str, args: list[Any]) -> tuple[Any, Diagnostics]:
        d = Diagnostics()
        d.error("Call to unknown function", f"The provider has no function named \"{name}\".")
        return None, d

    def stop(self) -> Diagnostics:
        """Ask the provider to abandon in-flight work (StopProvider); calls already running return."""
        return Diagnostics()

    def read_data_source(self, type_name: str, config: dict[str, Any]) -> tuple[dict[str, Any] | None, Diagnostics]:
        raise NotImplementedError

    def close(self) -> None:
        """Release anything the provider holds (HTTP clients, processes)."""


DYNAMIC_ATTR = Attr(DYNAMIC, optional=True)
