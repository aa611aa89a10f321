"""Terraform's plugin protocol (tfplugin5 and tfplugin6) as protobuf message classes.

The messages are written here in a compact notation of our own, from the protocol's documented
message names and field numbers, and compiled at import into descriptors in a private pool
(descriptor_pb2 + message_factory). Only what the engine uses is declared: a provider's extra
fields are skipped by protobuf as unknown fields, and a call the provider lacks answers
UNIMPLEMENTED, which the client handles.

Notation, one message or enum per line:

    [5|6] Name.Path   field:type=N ...          a message (nested names use dots)
    [5|6] enum Name   LABEL=N ...               an enum
    type: scalar | Message | *T (repeated) | ?T (proto3 optional) | {K,V} (map)
    field:type=N/oneofname                      member of a oneof

A leading 5 or 6 limits the line to that protocol version. Messages whose names differ between
versions are both declared, each under its version.

This module must not open connections or know about processes: it only defines messages.
"""
from __future__ import annotations

from functools import cache
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_SPEC = """
DynamicValue                msgpack:bytes=1 json:bytes=2
Diagnostic                  severity:Diagnostic.Severity=1 summary:string=2 detail:string=3 attribute:AttributePath=4
enum Diagnostic.Severity    INVALID=0 ERROR=1 WARNING=2
FunctionError               text:string=1 function_argument:?int64=2
AttributePath               steps:*AttributePath.Step=1
AttributePath.Step          attribute_name:string=1/selector element_key_string:string=2/selector element_key_int:int64=3/selector
5 Stop
5 Stop.Request
5 Stop.Response             Error:string=1
6 StopProvider
6 StopProvider.Request
6 StopProvider.Response     Error:string=1
RawState                    json:bytes=1 flatmap:{string,string}=2
enum StringKind             PLAIN=0 MARKDOWN=1
Timestamp                   seconds:int64=1 nanos:int32=2
ResourceIdentitySchema      version:int64=1 identity_attributes:*ResourceIdentitySchema.IdentityAttribute=2
ResourceIdentitySchema.IdentityAttribute  name:string=1 type:bytes=2 required_for_import:bool=3 optional_for_import:bool=4 description:string=5
ResourceIdentityData        identity_data:DynamicValue=1
Schema                      version:int64=1 block:Schema.Block=2
5 Schema.Block              version:int64=1 attributes:*Schema.Attribute=2 block_types:*Schema.NestedBlock=3 description:string=4 description_kind:StringKind=5 deprecated:bool=6 deprecation_message:string=7
6 Schema.Block              version:int64=1 attributes:*Schema.Attribute=2 block_types:*Schema.NestedBlock=3 description:string=4 description_kind:StringKind=5 deprecated:bool=6 deprecation_message:string=7 computed:bool=8
5 Schema.Attribute          name:string=1 type:bytes=2 description:string=3 required:bool=4 optional:bool=5 computed:bool=6 sensitive:bool=7 description_kind:StringKind=8 deprecated:bool=9 write_only:bool=10 deprecation_message:string=11
6 Schema.Attribute          name:string=1 type:bytes=2 nested_type:Schema.Object=10 description:string=3 required:bool=4 optional:bool=5 computed:bool=6 sensitive:bool=7 description_kind:StringKind=8 deprecated:bool=9 write_only:bool=11 deprecation_message:string=12
Schema.NestedBlock          type_name:string=1 block:Schema.Block=2 nesting:Schema.NestedBlock.NestingMode=3 min_items:int64=4 max_items:int64=5
enum Schema.NestedBlock.NestingMode  INVALID=0 SINGLE=1 LIST=2 SET=3 MAP=4 GROUP=5
6 Schema.Object             attributes:*Schema.Attribute=1 nesting:Schema.Object.NestingMode=3 min_items:int64=4 max_items:int64=5
6 enum Schema.Object.NestingMode  INVALID=0 SINGLE=1 LIST=2 SET=3 MAP=4
Function                    parameters:*Function.Parameter=1 variadic_parameter:Function.Parameter=2 return:Function.Return=3 summary:string=4 description:string=5 description_kind:StringKind=6 deprecation_message:string=7
Function.Parameter          name:string=1 type:bytes=2 allow_null_value:bool=3 allow_unknown_values:bool=4 description:string=5 description_kind:StringKind=6
Function.Return             type:bytes=1
5 ServerCapabilities        plan_destroy:bool=1 get_provider_schema_optional:bool=2 move_resource_state:bool=3 generate_resource_config:bool=4
6 ServerCapabilities        plan_destroy:bool=1 get_provider_schema_optional:bool=2 move_resource_state:bool=3 generate_resource_config:bool=4
5 ClientCapabilities        deferral_allowed:bool=1 write_only_attributes_allowed:bool=2
6 ClientCapabilities        deferral_allowed:bool=1 write_only_attributes_allowed:bool=2 store_planned_private:bool=3 computed_blocks_allowed:bool=4
Deferred                    reason:Deferred.Reason=1
enum Deferred.Reason        UNKNOWN=0 RESOURCE_CONFIG_UNKNOWN=1 PROVIDER_CONFIG_UNKNOWN=2 ABSENT_PREREQ=3

GetMetadata
GetMetadata.Request
GetMetadata.Response        server_capabilities:ServerCapabilities=1 diagnostics:*Diagnostic=2 data_sources:*GetMetadata.TypeName=3 resources:*GetMetadata.TypeName=4 functions:*GetMetadata.FunctionName=5 ephemeral_resources:*GetMetadata.TypeName=6
GetMetadata.TypeName        type_name:string=1
GetMetadata.FunctionName    name:string=1
GetProviderSchema
GetProviderSchema.Request
GetProviderSchema.Response  provider:Schema=1 resource_schemas:{string,Schema}=2 data_source_schemas:{string,Schema}=3 diagnostics:*Diagnostic=4 provider_meta:Schema=5 server_capabilities:ServerCapabilities=6 functions:{string,Function}=7 ephemeral_resource_schemas:{string,Schema}=8
GetResourceIdentitySchemas
GetResourceIdentitySchemas.Request
GetResourceIdentitySchemas.Response  identity_schemas:{string,ResourceIdentitySchema}=1 diagnostics:*Diagnostic=2
UpgradeResourceIdentity
UpgradeResourceIdentity.Request   type_name:string=1 version:int64=2 raw_identity:RawState=3
UpgradeResourceIdentity.Response  upgraded_identity:ResourceIdentityData=1 diagnostics:*Diagnostic=2
5 PrepareProviderConfig
5 PrepareProviderConfig.Request   config:DynamicValue=1
5 PrepareProviderConfig.Response  prepared_config:DynamicValue=1 diagnostics:*Diagnostic=2
6 ValidateProviderConfig
6 ValidateProviderConfig.Request  config:DynamicValue=1
6 ValidateProviderConfig.Response diagnostics:*Diagnostic=2
UpgradeResourceState
UpgradeResourceState.Request   type_name:string=1 version:int64=2 raw_state:RawState=3
UpgradeResourceState.Response  upgraded_state:DynamicValue=1 diagnostics:*Diagnostic=2
5 ValidateResourceTypeConfig
5 ValidateResourceTypeConfig.Request   type_name:string=1 config:DynamicValue=2 client_capabilities:ClientCapabilities=3
5 ValidateResourceTypeConfig.Response  diagnostics:*Diagnostic=1
6 ValidateResourceConfig
6 ValidateResourceConfig.Request   type_name:string=1 config:DynamicValue=2 client_capabilities:ClientCapabilities=3
6 ValidateResourceConfig.Response  diagnostics:*Diagnostic=1
5 ValidateDataSourceConfig
5 ValidateDataSourceConfig.Request   type_name:string=1 config:DynamicValue=2
5 ValidateDataSourceConfig.Response  diagnostics:*Diagnostic=1
6 ValidateDataResourceConfig
6 ValidateDataResourceConfig.Request   type_name:string=1 config:DynamicValue=2
6 ValidateDataResourceConfig.Response  diagnostics:*Diagnostic=1
ValidateEphemeralResourceConfig
ValidateEphemeralResourceConfig.Request   type_name:string=1 config:DynamicValue=2
ValidateEphemeralResourceConfig.Response  diagnostics:*Diagnostic=1
5 Configure
5 Configure.Request   terraform_version:string=1 config:DynamicValue=2 client_capabilities:ClientCapabilities=3
5 Configure.Response  diagnostics:*Diagnostic=1
6 ConfigureProvider
6 ConfigureProvider.Request   terraform_version:string=1 config:DynamicValue=2 client_capabilities:ClientCapabilities=3
6 ConfigureProvider.Response  diagnostics:*Diagnostic=1
ReadResource
ReadResource.Request   type_name:string=1 current_state:DynamicValue=2 private:bytes=3 provider_meta:DynamicValue=4 client_capabilities:ClientCapabilities=5 current_identity:ResourceIdentityData=6
ReadResource.Response  new_state:DynamicValue=1 diagnostics:*Diagnostic=2 private:bytes=3 deferred:Deferred=4 new_identity:ResourceIdentityData=5
PlanResourceChange
5 PlanResourceChange.Request   type_name:string=1 prior_state:DynamicValue=2 proposed_new_state:DynamicValue=3 config:DynamicValue=4 prior_private:bytes=5 provider_meta:DynamicValue=6 client_capabilities:ClientCapabilities=7 prior_identity:ResourceIdentityData=8
6 PlanResourceChange.Request   type_name:string=1 prior_state:DynamicValue=2 proposed_new_state:DynamicValue=3 config:DynamicValue=4 prior_private:bytes=5 provider_meta:DynamicValue=6 client_capabilities:ClientCapabilities=7 prior_identity:ResourceIdentityData=8 planned_private:bytes=9
PlanResourceChange.Response  planned_state:DynamicValue=1 requires_replace:*AttributePath=2 planned_private:bytes=3 diagnostics:*Diagnostic=4 legacy_type_system:bool=5 deferred:Deferred=6 planned_identity:ResourceIdentityData=7
ApplyResourceChange
ApplyResourceChange.Request   type_name:string=1 prior_state:DynamicValue=2 planned_state:DynamicValue=3 config:DynamicValue=4 planned_private:bytes=5 provider_meta:DynamicValue=6 planned_identity:ResourceIdentityData=7
ApplyResourceChange.Response  new_state:DynamicValue=1 private:bytes=2 diagnostics:*Diagnostic=3 legacy_type_system:bool=4 new_identity:ResourceIdentityData=5
ImportResourceState
ImportResourceState.Request   type_name:string=1 id:string=2 client_capabilities:ClientCapabilities=3 identity:ResourceIdentityData=4
ImportResourceState.ImportedResource  type_name:string=1 state:DynamicValue=2 private:bytes=3 identity:ResourceIdentityData=4
ImportResourceState.Response  imported_resources:*ImportResourceState.ImportedResource=1 diagnostics:*Diagnostic=2 deferred:Deferred=3
MoveResourceState
MoveResourceState.Request   source_provider_address:string=1 source_type_name:string=2 source_schema_version:int64=3 source_state:RawState=4 target_type_name:string=5 source_private:bytes=6 source_identity:RawState=7 source_identity_schema_version:int64=8
MoveResourceState.Response  target_state:DynamicValue=1 diagnostics:*Diagnostic=2 target_private:bytes=3 target_identity:ResourceIdentityData=4
ReadDataSource
ReadDataSource.Request   type_name:string=1 config:DynamicValue=2 provider_meta:DynamicValue=3 client_capabilities:ClientCapabilities=4
ReadDataSource.Response  state:DynamicValue=1 diagnostics:*Diagnostic=2 deferred:Deferred=3
OpenEphemeralResource
OpenEphemeralResource.Request   type_name:string=1 config:DynamicValue=2 client_capabilities:ClientCapabilities=3
OpenEphemeralResource.Response  diagnostics:*Diagnostic=1 renew_at:?Timestamp=2 result:DynamicValue=3 private:?bytes=4 deferred:Deferred=5
RenewEphemeralResource
RenewEphemeralResource.Request   type_name:string=1 private:?bytes=2
RenewEphemeralResource.Response  diagnostics:*Diagnostic=1 renew_at:?Timestamp=2 private:?bytes=3
CloseEphemeralResource
CloseEphemeralResource.Request   type_name:string=1 private:?bytes=2
CloseEphemeralResource.Response  diagnostics:*Diagnostic=1
GetFunctions
GetFunctions.Request
GetFunctions.Response   functions:{string,Function}=1 diagnostics:*Diagnostic=2
CallFunction
CallFunction.Request    name:string=1 arguments:*DynamicValue=2
CallFunction.Response   result:DynamicValue=1 error:FunctionError=2
"""

# go-plugin's controller service: Shutdown(Empty) returns (Empty).
_CONTROLLER_SPEC = """
Empty
"""

# The RPC names of each protocol version; the engine speaks in the left-hand (version 6) names.
RPC_NAMES: dict[int, dict[str, str]] = {
    5: {
        "GetProviderSchema": "GetSchema", "ValidateProviderConfig": "PrepareProviderConfig",
        "ValidateResourceConfig": "ValidateResourceTypeConfig",
        "ValidateDataResourceConfig": "ValidateDataSourceConfig", "ConfigureProvider": "Configure",
        "StopProvider": "Stop",
    },
    6: {},
}

# RPC name -> the message whose Request/Response it uses (when the names differ).
_RPC_MESSAGE = {"GetSchema": "GetProviderSchema"}

_SCALARS = {
    "string": descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
    "bytes": descriptor_pb2.FieldDescriptorProto.TYPE_BYTES,
    "bool": descriptor_pb2.FieldDescriptorProto.TYPE_BOOL,
    "int64": descriptor_pb2.FieldDescriptorProto.TYPE_INT64,
    "int32": descriptor_pb2.FieldDescriptorProto.TYPE_INT32,
}


def _parse(spec: str, version: int | None) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(messages, enums): full dotted name -> its field/label tokens, for one version."""
    messages: dict[str, list[str]] = {}
    enums: dict[str, list[str]] = {}
    for raw in spec.strip().splitlines():
        words = raw.split()
        if not words:
            continue
        if words[0] in ("5", "6"):
            if version is not None and int(words[0]) != version:
                continue
            words = words[1:]
        if words[0] == "enum":
            enums[words[1]] = words[2:]
        else:
            messages[words[0]] = words[1:]
    return messages, enums


class _Builder:
    """Builds one FileDescriptorProto from the parsed notation."""

    def __init__(self, package: str, messages: dict[str, list[str]], enums: dict[str, list[str]]):
        self.package = package
        self.messages = messages
        self.enums = enums
        self.file = descriptor_pb2.FileDescriptorProto(name=f"tfconsole/{package}.proto", package=package,
                                                       syntax="proto3")
        self.protos: dict[str, Any] = {}

    def build(self) -> descriptor_pb2.FileDescriptorProto:
        for name in sorted(self.messages, key=lambda n: n.count(".")):
            self._message_proto(name)
        for name in sorted(self.enums, key=lambda n: n.count(".")):
            self._enum(name)
        for name, tokens in self.messages.items():
            for tok in tokens:
                self._field(name, tok)
        return self.file

    def _container(self, name: str) -> Any:
        parent = name.rpartition(".")[0]
        return self.file if not parent else self._message_proto(parent)

    def _message_proto(self, name: str) -> Any:
        got = self.protos.get(name)
        if got is None:
            holder = self._container(name)
            got = (holder.message_type if holder is self.file else holder.nested_type).add()
            got.name = name.rpartition(".")[2]
            self.protos[name] = got
        return got

    def _enum(self, name: str) -> None:
        holder = self._container(name)
        enum = holder.enum_type.add()
        enum.name = name.rpartition(".")[2]
        for tok in self.enums[name]:
            label, _, num = tok.partition("=")
            enum.value.add(name=label, number=int(num))

    def _field(self, owner: str, tok: str) -> None:
        fname, _, rest = tok.partition(":")
        ftype, _, num = rest.rpartition("=")
        num, _, oneof = num.partition("/")
        msg = self._message_proto(owner)
        field = msg.field.add(name=fname, number=int(num), json_name=fname)
        field.label = descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL
        if ftype.startswith("*"):
            field.label = descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
            ftype = ftype[1:]
        elif ftype.startswith("?"):
            ftype = ftype[1:]
            field.proto3_optional = True
            oneof = "_" + fname
        elif ftype.startswith("{"):
            key, value = ftype[1:-1].split(",")
            entry = self._map_entry(msg, fname, key, value)
            field.label = descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
            ftype = f"{owner}.{entry}"
        self._set_type(field, ftype)
        if oneof:
            names = [o.name for o in msg.oneof_decl]
            if oneof not in names:
                msg.oneof_decl.add(name=oneof)
                names.append(oneof)
            field.oneof_index = names.index(oneof)

    def _map_entry(self, msg: Any, fname: str, key: str, value: str) -> str:
        entry_name = "".join(p.capitalize() for p in fname.split("_")) + "Entry"
        entry = msg.nested_type.add(name=entry_name)
        entry.options.map_entry = True
        for i, (n, t) in enumerate((("key", key), ("value", value)), start=1):
            f = entry.field.add(name=n, number=i, json_name=n,
                                label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
            self._set_type(f, t)
        return entry_name

    def _set_type(self, field: Any, ftype: str) -> None:
        if ftype in _SCALARS:
            field.type = _SCALARS[ftype]
        elif ftype in self.enums:
            field.type = descriptor_pb2.FieldDescriptorProto.TYPE_ENUM
            field.type_name = f".{self.package}.{ftype}"
        else:
            field.type = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
            field.type_name = f".{self.package}.{ftype}"


class Protocol:
    """The message classes of one protocol version, looked up by dotted name."""

    def __init__(self, version: int, pool: descriptor_pool.DescriptorPool):
        self.version = version
        self.package = f"tfplugin{version}"
        self._pool = pool
        self._classes: dict[str, Any] = {}

    def message(self, name: str) -> Any:
        cls = self._classes.get(name)
        if cls is None:
            desc = self._pool.FindMessageTypeByName(f"{self.package}.{name}")
            cls = self._classes[name] = message_factory.GetMessageClass(desc)
        return cls

    def rpc(self, name: str) -> tuple[str, Any, Any]:
        """(method path, request class, response class) of an RPC given by its version-6 name."""
        wire = RPC_NAMES[self.version].get(name, name)
        base = _RPC_MESSAGE.get(wire, wire)
        return (f"/{self.package}.Provider/{wire}", self.message(f"{base}.Request"),
                self.message(f"{base}.Response"))


@cache
def _pool() -> descriptor_pool.DescriptorPool:
    pool = descriptor_pool.DescriptorPool()
    for version in (5, 6):
        messages, enums = _parse(_SPEC, version)
        pool.Add(_Builder(f"tfplugin{version}", messages, enums).build())
    messages, enums = _parse(_CONTROLLER_SPEC, None)
    pool.Add(_Builder("plugin", messages, enums).build())
    return pool


@cache
def protocol(version: int) -> Protocol:
    if version not in (5, 6):
        raise ValueError(f"unsupported plugin protocol version {version}")
    return Protocol(version, _pool())


@cache
def controller_empty() -> Any:
    return message_factory.GetMessageClass(_pool().FindMessageTypeByName("plugin.Empty"))


SHUTDOWN_METHOD = "/plugin.GRPCController/Shutdown"
