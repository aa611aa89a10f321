"""A provider plugin behind tfconsole's provider interface.

PluginProvider implements providers.interface.Provider over Terraform's plugin protocol, so
the engine treats a plugin and a built-in alike. It starts its process on the first call that
needs one (schemas may come from the cache without a process), converts values to and from
the wire by the resource's schema, carries `private` bytes as the base64 text state files hold,
and turns every failed call into Terraform's diagnostic. Thread-safe: the walker's workers
call it concurrently over one gRPC channel.
"""
from __future__ import annotations

import base64
import threading
from collections.abc import Callable
from typing import Any

from tfconsole import TERRAFORM_VERSION
from tfconsole.diags import Diagnostics
from tfconsole.lang.types import DYNAMIC, Type
from tfconsole.providers.interface import (
    CALLING_RESOURCE,
    ApplyRequest,
    EphemeralOpened,
    ApplyResponse,
    FunctionSignature,
    IdentitySchema,
    ImportedObject,
    PlanRequest,
    PlanResponse,
    Provider,
    ReadResponse,
    Schema,
)

from . import cache, wire
from .client import CallFailed, PluginClient
from .launcher import LaunchError, PluginProcess
from .log import ProviderLog
from .schema import ProviderSchemas, from_response, identities_from_response


def _private_in(text: str | None) -> bytes:
    if not text:
        return b""
    try:
        return base64.b64decode(text, validate=True)
    except ValueError:
        return text.encode()


def _private_out(data: bytes) -> str | None:
    return base64.b64encode(data).decode() if data else None


class PluginProvider(Provider):
    """One provider process (started on demand) for one provider configuration."""

    wire_protocol = True

    def __init__(self, source: str, executable: str, *, name: str | None = None, cwd: str | None = None,
                 on_launch: Callable[[PluginProvider], None] | None = None,
                 on_crash: Callable[[PluginProvider], None] | None = None):
        self.source = source
        self.type_name = source.rsplit("/", 1)[-1]
        self.executable = executable
        self.name = name or f'provider["{source}"]'
        self.cwd = cwd
        self.log = ProviderLog(self.name)
        self.status = "not started"  # starting | running | configured | failed | crashed | stopped
        self._on_launch = on_launch
        self._on_crash = on_crash
        self._lock = threading.RLock()
        self._client: PluginClient | None = None
        self._process: PluginProcess | None = None
        self._schemas: ProviderSchemas | None = None
        self._start_diags: Diagnostics | None = None
        self._digest = cache.executable_hash(executable)
        self.walk_operation = "plan"  # Terraform 1.15 allows deferrals in the calls of its apply walk
        self.configured_with: dict[str, Any] | None = None

    # ------------------------------------------------------------------ process and schemas
    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    @property
    def protocol_version(self) -> int | None:
        if self._client is not None:
            return self._client.version
        return cache.cached_version(self._digest) if self._digest else None

    def _started(self) -> PluginClient:
        """The client of the running process, starting it (and loading schemas) if needed."""
        with self._lock:
            if self._client is not None:
                return self._client
            if self._start_diags is not None:
                raise CallFailed(self._start_diags)
            self.status = "starting"
            try:
                self._process = PluginProcess(self.executable, self.log, cwd=self.cwd)
            except LaunchError as exc:
                self.status = "failed"
                self._start_diags = Diagnostics().error(
                    "Failed to load plugin schemas" if self._schemas is None else "Failed to start provider",
                    f"Could not load the schema for provider {self.source}: failed to instantiate provider "
                    f"\"{self.source}\" to obtain schema: {exc}.")
                raise CallFailed(self._start_diags) from None
            self._client = PluginClient(self._process, self.source)
            self.status = "running"
            if self._on_launch is not None:
                self._on_launch(self)
            self._load_schemas_from(self._client)
            return self._client

    def _load_schemas_from(self, client: PluginClient) -> None:
        """GetProviderSchema (+ identity schemas), unless the cached schema says it is optional."""
        if self._schemas is not None and self._schemas.get_provider_schema_optional:
            return
        resp = self._call(client, "GetProviderSchema", client.request("GetProviderSchema"))
        schemas = from_response(resp)
        ident_bytes = None
        try:
            ident = client.call("GetResourceIdentitySchemas", client.request("GetResourceIdentitySchemas"))
            identities_from_response(ident, schemas)
            ident_bytes = ident.SerializeToString()
        except CallFailed as exc:
            import grpc

            if exc.code != grpc.StatusCode.UNIMPLEMENTED:  # older providers lack the call
                schemas.diags.extend(exc.diags)
        self._schemas = schemas
        if self._digest and not schemas.diags.has_errors:
            cache.store_schema(self._digest, client.version, resp.SerializeToString(), ident_bytes)

    def schemas(self) -> ProviderSchemas:
        """The provider's schemas: from the cache when this executable's are there, else from
        the process (started for it)."""
        with self._lock:
            if self._schemas is None and self._digest:
                self._schemas = _cached_schemas(self._digest)
            if self._schemas is None:
                try:
                    self._started()
                except CallFailed as exc:
                    self._schemas = ProviderSchemas(diags=exc.diags)
            assert self._schemas is not None
            return self._schemas

    def schema_diagnostics(self) -> Diagnostics:
        return self.schemas().diags

    def provider_schema(self) -> Schema:
        return self.schemas().provider

    def resource_schemas(self) -> dict[str, Schema]:
        return self.schemas().resources

    def data_source_schemas(self) -> dict[str, Schema]:
        return self.schemas().data_sources

    def ephemeral_resource_schemas(self) -> dict[str, Schema]:
        return self.schemas().ephemeral_resources

    def functions(self) -> dict[str, FunctionSignature]:
        return self.schemas().functions

    def identity_schemas(self) -> dict[str, IdentitySchema]:
        return self.schemas().identities

    # ------------------------------------------------------------------ identities
    def _identity_in(self, client: PluginClient, type_name: str, data: Any) -> dict[str, Any]:
        """Request fields for an identity (JSON data): {} when there is none to send."""
        ischema = self.schemas().identities.get(type_name)
        if data is None or ischema is None:
            return {}
        from tfconsole.lang.values import from_json_typed

        ty = ischema.implied_type()
        return {"identity_data": self._dv(client, from_json_typed(data, ty), ty)}

    def _identity_out(self, holder: Any, field: str, type_name: str, diags: Diagnostics,
                      planned: bool = False) -> Any:
        """The identity a response carries, as JSON data (None when it has none); an identity
        with unknown values is Terraform's "Provider produced invalid identity", except in a
        plan, where a new object's identity may be unknown (and is then not carried)."""
        if not holder.HasField(field) or not getattr(holder, field).HasField("identity_data"):
            return None
        ischema = self.schemas().identities.get(type_name)
        if ischema is None:
            return None
        from tfconsole.lang.values import is_null, is_wholly_known, to_json_typed

        ty = ischema.implied_type()
        value = self._decode(getattr(holder, field).identity_data, ty, "resource identity", diags)
        if value is None or is_null(value):
            return None
        if not is_wholly_known(value):
            if planned:
                return None
            from dataclasses import replace

            from tfconsole.diags import SOURCELESS, error

            diags.append(replace(error(
                "Provider produced invalid identity",
                f"Provider \"{self.source}\" returned an identity with unknown values for "
                f"{CALLING_RESOURCE.get() or type_name}. \n\nThis is a bug in the provider, which should be "
                "reported in the provider's own issue tracker."), context=SOURCELESS))
            return None
        return to_json_typed(value, ty)

    def upgrade_resource_identity(self, type_name: str, version: int, raw: Any) -> tuple[Any, Diagnostics]:
        raw_json = wire.encode_json(raw) if raw is not None else b""
        resp, diags = self._rpc("UpgradeResourceIdentity", lambda c: {
            "type_name": type_name, "version": version, "raw_identity": c.message("RawState")(json=raw_json)},
            type_name=type_name)
        if resp is None or diags.has_errors:
            return None, diags
        return self._identity_out(resp, "upgraded_identity", type_name, diags), diags

    # ------------------------------------------------------------------ calls
    def _call(self, client: PluginClient, rpc: str, request: Any, *, resource: str | None = None,
              type_name: str | None = None) -> Any:
        try:
            return client.call(rpc, request, resource=resource, type_name=type_name)
        except CallFailed:
            if client.crashed:
                self.status = "crashed"
                if self._on_crash is not None:
                    self._on_crash(self)
            raise

    def _rpc(self, rpc: str, build: Callable[[PluginClient], dict[str, Any]], *, resource: str | None = None,
             type_name: str | None = None) -> tuple[Any, Diagnostics]:
        """(response, diagnostics) of one call; the response is None when the call failed.
        `build` makes the request's fields once the process is running."""
        resource = resource or CALLING_RESOURCE.get()
        try:
            client = self._started()
            request = client.request(rpc, **build(client))
            resp = self._call(client, rpc, request, resource=resource, type_name=type_name)
        except CallFailed as exc:
            return None, Diagnostics(list(exc.diags))
        except (TypeError, ValueError) as exc:  # a value that does not fit the schema
            return None, Diagnostics().error("Failed to encode a value for the provider",
                                             f"tfconsole could not encode the {rpc} request for {self.source}: {exc}.")
        diags = wire.diagnostics_from_proto(resp.diagnostics) if hasattr(resp, "diagnostics") else Diagnostics()
        return resp, diags

    @staticmethod
    def _dv(client: PluginClient, value: Any, ty: Type) -> Any:
        return client.message("DynamicValue")(msgpack=wire.encode(value, ty))

    def _caps(self, client: PluginClient) -> Any:
        return client.message("ClientCapabilities")(write_only_attributes_allowed=True,
                                                    deferral_allowed=self.walk_operation == "apply")

    def _resource_type(self, type_name: str, data: bool = False) -> tuple[Type | None, Diagnostics]:
        schemas = self.schemas().data_sources if data else self.schemas().resources
        s = schemas.get(type_name)
        if s is None:
            kind = "data source" if data else "resource type"
            return None, Diagnostics().error("Invalid resource type" if not data else "Invalid data source",
                                             f"The provider {self.source} does not support {kind} \"{type_name}\".")
        return s.block.implied_type(), Diagnostics()

    def _decode(self, dv: Any, ty: Type, what: str, diags: Diagnostics) -> Any:
        try:
            return wire.dynamic_value(dv, ty)
        except (ValueError, TypeError, KeyError) as exc:
            diags.error("Provider produced invalid object",
                        f"Provider \"{self.source}\" sent a {what} that tfconsole cannot decode: {exc}.")
            return None

    # ------------------------------------------------------------------ provider
    def validate_provider_config(self, config: dict[str, Any]) -> Diagnostics:
        ty = self.provider_schema().block.implied_type()
        _, diags = self._rpc("ValidateProviderConfig", lambda c: {"config": self._dv(c, config, ty)})
        return diags

    def configure(self, config: dict[str, Any]) -> Diagnostics:
        """ValidateProviderConfig then ConfigureProvider, as Terraform's plan and apply walks do."""
        diags = Diagnostics()
        diags.extend(self.schemas().diags)
        if not diags.has_errors:
            diags.extend(self.validate_provider_config(config))
        if not diags.has_errors:
            ty = self.provider_schema().block.implied_type()
            _, d = self._rpc("ConfigureProvider", lambda c: {
                "terraform_version": TERRAFORM_VERSION, "config": self._dv(c, config, ty),
                "client_capabilities": self._caps(c)})
            diags.extend(d)
        if self.status != "crashed":
            self.status = "failed" if diags.has_errors else "configured"
        return diags

    def stop(self) -> Diagnostics:
        with self._lock:
            client = self._client
        if client is None or client.crashed:
            return Diagnostics()
        try:
            resp = client.call("StopProvider", client.request("StopProvider"), timeout=10)
        except CallFailed as exc:
            return exc.diags
        if resp.Error:
            return Diagnostics().error("Failed to stop provider", resp.Error)
        return Diagnostics()

    def wait_idle(self, timeout: float | None = None) -> bool:
        client = self._client
        return True if client is None else client.wait_idle(timeout)

    def close(self) -> None:
        with self._lock:
            process, self._process, self._client = self._process, None, None
            if process is not None and self.status != "crashed":
                self.status = "stopped"
        if process is not None:
            process.shutdown()

    # ------------------------------------------------------------------ resources
    def validate_resource(self, type_name: str, config: dict[str, Any]) -> Diagnostics:
        ty, diags = self._resource_type(type_name)
        if ty is None:
            return diags
        _, d = self._rpc("ValidateResourceConfig", lambda c: {
            "type_name": type_name, "config": self._dv(c, config, ty), "client_capabilities": self._caps(c)},
            type_name=type_name)
        return d

    def validate_data_source(self, type_name: str, config: dict[str, Any]) -> Diagnostics:
        ty, diags = self._resource_type(type_name, data=True)
        if ty is None:
            return diags
        _, d = self._rpc("ValidateDataResourceConfig", lambda c: {
            "type_name": type_name, "config": self._dv(c, config, ty)}, type_name=type_name)
        return d

    def upgrade_resource_state(self, type_name: str, version: int,
                               attributes: dict[str, Any]) -> tuple[dict[str, Any] | None, Diagnostics]:
        ty, diags = self._resource_type(type_name)
        if ty is None:
            return None, diags
        raw = wire.encode_json(attributes)
        resp, diags = self._rpc("UpgradeResourceState", lambda c: {
            "type_name": type_name, "version": version, "raw_state": c.message("RawState")(json=raw)},
            type_name=type_name)
        if resp is None or diags.has_errors:
            return None, diags
        if not resp.HasField("upgraded_state"):
            return None, diags
        return self._decode(resp.upgraded_state, ty, "upgraded state", diags), diags

    def _identity_field(self, c: PluginClient, name: str, type_name: str, data: Any) -> dict[str, Any]:
        fields = self._identity_in(c, type_name, data)
        return {name: c.message("ResourceIdentityData")(**fields)} if fields else {}

    def read_resource(self, type_name: str, state: dict[str, Any], private: str | None,
                      identity: Any = None) -> ReadResponse:
        ty, diags = self._resource_type(type_name)
        if ty is None:
            return ReadResponse(state, diags, private, identity)
        resp, diags = self._rpc("ReadResource", lambda c: {
            "type_name": type_name, "current_state": self._dv(c, state, ty), "private": _private_in(private),
            "client_capabilities": self._caps(c),
            **self._identity_field(c, "current_identity", type_name, identity)}, type_name=type_name)
        if resp is None:
            return ReadResponse(state, diags, private, identity)
        new = self._decode(resp.new_state, ty, "refreshed state", diags)
        # as Terraform's refresh: the object keeps only the identity the provider returned
        return ReadResponse(_none_if_null(new), diags, _private_out(resp.private),
                            self._identity_out(resp, "new_identity", type_name, diags))

    def plan_resource(self, req: PlanRequest) -> PlanResponse:
        ty, diags = self._resource_type(req.type_name)
        if ty is None:
            return PlanResponse(req.proposed, diags=diags)
        resp, diags = self._rpc("PlanResourceChange", lambda c: {
            "type_name": req.type_name, "prior_state": self._dv(c, req.prior, ty),
            "proposed_new_state": self._dv(c, req.proposed, ty), "config": self._dv(c, req.config, ty),
            "prior_private": _private_in(req.prior_private), "client_capabilities": self._caps(c),
            **self._identity_field(c, "prior_identity", req.type_name, req.prior_identity)},
            type_name=req.type_name)
        if resp is None:
            return PlanResponse(req.proposed, diags=diags)
        planned = self._decode(resp.planned_state, ty, "planned state", diags)
        return PlanResponse(_none_if_null(planned) if planned is not None else req.proposed,
                            [tuple(wire.path_from_proto(p)) for p in resp.requires_replace], diags,
                            _private_out(resp.planned_private), resp.legacy_type_system,
                            self._identity_out(resp, "planned_identity", req.type_name, diags, planned=True))

    def apply_resource(self, req: ApplyRequest) -> ApplyResponse:
        ty, diags = self._resource_type(req.type_name)
        if ty is None:
            return ApplyResponse(None, diags)
        resp, diags = self._rpc("ApplyResourceChange", lambda c: {
            "type_name": req.type_name, "prior_state": self._dv(c, req.prior, ty),
            "planned_state": self._dv(c, req.planned, ty), "config": self._dv(c, req.config, ty),
            "planned_private": _private_in(req.private),
            **self._identity_field(c, "planned_identity", req.type_name, req.planned_identity)},
            type_name=req.type_name)
        if resp is None:
            return ApplyResponse(None, diags)
        new = self._decode(resp.new_state, ty, "new state", diags)
        return ApplyResponse(_none_if_null(new), diags, _private_out(resp.private), resp.legacy_type_system,
                             self._identity_out(resp, "new_identity", req.type_name, diags))

    def import_resource_state(self, type_name: str, id_: str,
                              identity: Any = None) -> tuple[list[ImportedObject], Diagnostics]:
        ty, diags = self._resource_type(type_name)
        if ty is None:
            return [], diags
        resp, diags = self._rpc("ImportResourceState", lambda c: {
            "type_name": type_name, "id": id_, "client_capabilities": self._caps(c),
            **self._identity_field(c, "identity", type_name, identity)},
            type_name=type_name)
        out: list[ImportedObject] = []
        for imp in (resp.imported_resources if resp is not None else ()):
            ity, d = self._resource_type(imp.type_name or type_name)
            if ity is None:
                diags.extend(d)
                continue
            value = self._decode(imp.state, ity, "imported object", diags)
            if value is not None and not wire.is_null_value(value):
                ident = self._identity_out(imp, "identity", imp.type_name or type_name, diags)
                out.append(ImportedObject(imp.type_name or type_name, value, _private_out(imp.private), ident))
        return out, diags

    def import_resource(self, type_name: str, id_: str) -> tuple[dict[str, Any] | None, Diagnostics]:
        objs, diags = self.import_resource_state(type_name, id_)
        return (objs[0].state if objs else None), diags

    # ------------------------------------------------------------------ ephemeral resources
    def _ephemeral_type(self, type_name: str) -> tuple[Type | None, Diagnostics]:
        s = self.schemas().ephemeral_resources.get(type_name)
        if s is None:
            return None, Diagnostics().error(
                "Invalid ephemeral resource type",
                f"The provider {self.source} does not support ephemeral resource type \"{type_name}\".")
        return s.block.implied_type(), Diagnostics()

    def validate_ephemeral_resource(self, type_name: str, config: dict[str, Any]) -> Diagnostics:
        ty, diags = self._ephemeral_type(type_name)
        if ty is None:
            return diags
        _, d = self._rpc("ValidateEphemeralResourceConfig", lambda c: {
            "type_name": type_name, "config": self._dv(c, config, ty)}, type_name=type_name)
        return d

    def open_ephemeral_resource(self, type_name: str, config: dict[str, Any]) -> EphemeralOpened:
        ty, diags = self._ephemeral_type(type_name)
        if ty is None:
            return EphemeralOpened(None, diags=diags)
        # Terraform 1.15 offers no capability with this call (no deferral, whatever the walk)
        resp, diags = self._rpc("OpenEphemeralResource", lambda c: {
            "type_name": type_name, "config": self._dv(c, config, ty),
            "client_capabilities": c.message("ClientCapabilities")()}, type_name=type_name)
        if resp is None or diags.has_errors:
            return EphemeralOpened(None, diags=diags)
        if resp.HasField("deferred"):
            return EphemeralOpened(None, diags=diags, deferred=int(resp.deferred.reason))
        result = self._decode(resp.result, ty, "ephemeral resource result", diags)
        private = resp.private if resp.HasField("private") else None
        return EphemeralOpened(result, private, _renew_at(resp), diags)

    def renew_ephemeral_resource(self, type_name: str,
                                 private: bytes | None) -> tuple[float | None, bytes | None, Diagnostics]:
        fields: dict[str, Any] = {"type_name": type_name}
        if private is not None:
            fields["private"] = private
        resp, diags = self._rpc("RenewEphemeralResource", lambda c: fields, type_name=type_name)
        if resp is None:
            return None, private, diags
        return _renew_at(resp), (resp.private if resp.HasField("private") else private), diags

    def close_ephemeral_resource(self, type_name: str, private: bytes | None) -> Diagnostics:
        fields: dict[str, Any] = {"type_name": type_name}
        if private is not None:
            fields["private"] = private
        _, diags = self._rpc("CloseEphemeralResource", lambda c: fields, type_name=type_name)
        return diags

    def read_data_source(self, type_name: str,
                         config: dict[str, Any]) -> tuple[dict[str, Any] | None, Diagnostics]:
        ty, diags = self._resource_type(type_name, data=True)
        if ty is None:
            return None, diags
        resp, diags = self._rpc("ReadDataSource", lambda c: {
            "type_name": type_name, "config": self._dv(c, config, ty), "client_capabilities": self._caps(c)},
            type_name=type_name)
        if resp is None:
            return None, diags
        return _none_if_null(self._decode(resp.state, ty, "data source result", diags)), diags

    def move_resource_state(self, source_provider: str, source_type: str, source_version: int,
                            attributes: dict[str, Any], target_type: str, private: str | None,
                            ) -> tuple[dict[str, Any] | None, str | None, Diagnostics]:
        """MoveResourceState: an object of another resource type (maybe another provider)
        as an object of target_type."""
        ty, diags = self._resource_type(target_type)
        if ty is None:
            return None, None, diags
        raw = wire.encode_json(attributes)
        resp, diags = self._rpc("MoveResourceState", lambda c: {
            "source_provider_address": source_provider, "source_type_name": source_type,
            "source_schema_version": source_version, "source_state": c.message("RawState")(json=raw),
            "target_type_name": target_type, "source_private": _private_in(private)}, type_name=target_type)
        if resp is None or diags.has_errors:
            return None, None, diags
        value = self._decode(resp.target_state, ty, "moved state", diags)
        return _none_if_null(value), _private_out(resp.target_private), diags

    # ------------------------------------------------------------------ functions
    def call_function(self, name: str, args: list[Any]) -> tuple[Any, Diagnostics]:
        sig = self.functions().get(name)
        diags = Diagnostics()
        if sig is None:
            return None, diags.error("Call to unknown function",
                                     f"The provider {self.source} has no function named \"{name}\".")
        types = [p[1] for p in sig.params]
        if len(args) < len(types) or (sig.variadic is None and len(args) > len(types)):
            return None, diags.error("Invalid function argument",
                                     f"Function \"{name}\" expects {len(types)} argument(s), got {len(args)}.")
        types += [sig.variadic[1] if sig.variadic else DYNAMIC] * (len(args) - len(types))
        resp, diags = self._rpc("CallFunction", lambda c: {
            "name": name, "arguments": [self._dv(c, a, t) for a, t in zip(args, types)]})
        if resp is None:
            return None, diags
        if resp.HasField("error"):
            text = resp.error.text
            if resp.error.HasField("function_argument"):
                text = f"Invalid value for argument {resp.error.function_argument + 1}: {text}"
            return None, diags.error("Error in function call",
                                     f"Call to function \"provider::{self.type_name}::{name}\" failed: {text}.")
        return self._decode(resp.result, sig.returns, "function result", diags), diags


def _renew_at(resp: Any) -> float | None:
    """The response's renew_at as unix seconds, None when the provider wants no renew."""
    if not resp.HasField("renew_at"):
        return None
    ts = resp.renew_at
    if ts.seconds == 0 and ts.nanos == 0:
        return None
    return ts.seconds + ts.nanos / 1e9


def _none_if_null(v: Any) -> Any:
    return None if wire.is_null_value(v) else v


def _cached_schemas(digest: str) -> ProviderSchemas | None:
    version = cache.cached_version(digest)
    data = cache.load_schema(digest, version) if version else None
    if data is None or version is None:
        return None
    from .protocol import protocol

    try:
        resp = protocol(version).message("GetProviderSchema.Response").FromString(data)
    except Exception:  # noqa: BLE001 - a damaged cache entry is ignored (protobuf's DecodeError)
        return None
    schemas = from_response(resp)
    ident = cache.load_identity(digest, version)
    if ident is not None:
        try:
            identities_from_response(protocol(version).message("GetResourceIdentitySchemas.Response")
                                     .FromString(ident), schemas)
        except Exception:  # noqa: BLE001 - a damaged cache entry is ignored (protobuf's DecodeError)
            return None
    return None if schemas.diags.has_errors else schemas
