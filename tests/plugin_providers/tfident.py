"""tfident: a small protocol-6 provider with resource identities, a write-only attribute inside
a nested block and an ephemeral resource that defers, for the identity tests.

Built like tfeph (tests/plugin_providers/tfeph.py, whose helpers it uses): message classes from
tfconsole's own protocol definitions, msgpack values, TLS with its own certificate. Real
Terraform is one of its clients, so a mistake in those definitions shows as Terraform failing.

  resource "tfident_thing" "x" {       a "remote" object kept as thing-<name>.json in the store;
    name   = "..."                     id = "thing-<name>"; region defaults to "eu"
    region = "..."                     identity (version 1): {name, region}; name is required
    note   = "..."                     for import, region optional
    auth {                             the write-only password_wo it receives at apply is
      user        = "..."              appended to wo-<name>.txt, never returned
      password_wo = "..."
    }
    tag { key = "..." value = "..." }  a set block
    opts { level = 1 token_wo = "..." } a single block with a write-only attribute (logged too)
  }
  data "tfident_lookup" "x" {          answers with result = "found-<name>"; a list block
    name = "..."                       filter { key, values } and a single block mode { strict,
  }                                    pin (sensitive) }
  ephemeral "tfident_later" "x" {      answers OpenEphemeralResource with `deferred` (reason
    name   = "..."                     RESOURCE_CONFIG_UNKNOWN) when defer is true
    defer  = true
  }

Import by id takes "name" or "name/region". An identity stored at version 0 ({"thing": name})
is upgraded by UpgradeResourceIdentity. Every call is appended to ident.log in the store
(TFEPH_STORE) with what matters of its request, so the tests compare the calls each tool makes.
"""
from __future__ import annotations

import json
import os
from typing import Any

# tfeph sets gRPC's poll strategy before importing grpc (see there why)
from plugin_providers.tfeph import P, UNKNOWN, _attr, _dv, _log, _store, _value, serve  # isort: skip

import grpc
from msgpack import ExtType

IDENTITY_VERSION = 1


def _block(*attrs: Any, blocks: tuple = ()) -> Any:
    return P.message("Schema.Block")(attributes=list(attrs), block_types=list(blocks))


SCOPE = P.message("Schema.NestedBlock")(
    type_name="scope", nesting=P.message("Schema.NestedBlock").NestingMode.Value("LIST"),
    block=_block(_attr("name", "string", required=True)))
AUTH = P.message("Schema.NestedBlock")(
    type_name="auth", nesting=P.message("Schema.NestedBlock").NestingMode.Value("LIST"), max_items=1,
    block=_block(_attr("user", "string", optional=True), _attr("password_wo", "string", optional=True,
                                                               write_only=True), blocks=(SCOPE,)))
NB = P.message("Schema.NestedBlock")
TAG = NB(type_name="tag", nesting=NB.NestingMode.Value("SET"),
         block=_block(_attr("key", "string", required=True), _attr("value", "string", optional=True)))
OPTS = NB(type_name="opts", nesting=NB.NestingMode.Value("SINGLE"),
          block=_block(_attr("level", "number", optional=True), _attr("token_wo", "string", optional=True,
                                                                       write_only=True)))
THING = P.message("Schema")(version=0, block=_block(
    _attr("id", "string", computed=True), _attr("name", "string", required=True),
    _attr("region", "string", optional=True, computed=True), _attr("note", "string", optional=True),
    blocks=(AUTH, TAG, OPTS)))
LATER = P.message("Schema")(version=0, block=_block(
    _attr("name", "string", required=True), _attr("defer", "bool", optional=True),
    _attr("value", "string", computed=True)))
FILTER = NB(type_name="filter", nesting=NB.NestingMode.Value("LIST"),
           block=_block(_attr("key", "string", required=True), _attr("values", ["list", "string"], optional=True)))
MODE = NB(type_name="mode", nesting=NB.NestingMode.Value("SINGLE"),
          block=_block(_attr("strict", "bool", optional=True), _attr("pin", "string", optional=True,
                                                                      sensitive=True)))
LOOKUP = P.message("Schema")(version=0, block=_block(
    _attr("name", "string", required=True), _attr("result", "string", computed=True),
    blocks=(FILTER, MODE)))
PROVIDER = P.message("Schema")(version=0, block=_block())


def _identity_schema() -> Any:
    ia = P.message("ResourceIdentitySchema.IdentityAttribute")
    return P.message("ResourceIdentitySchema")(version=IDENTITY_VERSION, identity_attributes=[
        ia(name="name", type=b'"string"', required_for_import=True),
        ia(name="region", type=b'"string"', optional_for_import=True)])


def _identity(name: Any, region: Any) -> Any:
    return P.message("ResourceIdentityData")(identity_data=_dv({"name": name, "region": region}))


def _remote(name: str) -> str:
    return os.path.join(_store(), f"thing-{name}.json")


def _read_remote(name: str) -> dict[str, Any] | None:
    try:
        with open(_remote(name), encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        return None


def _state(remote: dict[str, Any], auth: list | None = None) -> dict[str, Any]:
    auth = [dict(a, password_wo=None) for a in (auth if auth is not None else remote.get("auth") or [])]
    opts = remote.get("opts")
    return {"id": f"thing-{remote['name']}", "name": remote["name"], "region": remote["region"],
            "note": remote.get("note"), "auth": auth, "tag": remote.get("tag") or [],
            "opts": dict(opts, token_wo=None) if opts else None}


def _ident_value(data: Any) -> Any:
    return _value(data.identity_data) if data is not None and data.HasField("identity_data") else None


class TfIdent:
    def GetProviderSchema(self, req: Any) -> Any:
        return {"provider": PROVIDER, "resource_schemas": {"tfident_thing": THING},
                "ephemeral_resource_schemas": {"tfident_later": LATER},
                "data_source_schemas": {"tfident_lookup": LOOKUP},
                "server_capabilities": P.message("ServerCapabilities")()}

    def GetResourceIdentitySchemas(self, req: Any) -> Any:
        return {"identity_schemas": {"tfident_thing": _identity_schema()}}

    def UpgradeResourceIdentity(self, req: Any) -> Any:
        raw = json.loads(req.raw_identity.json or b"null") or {}
        _log("ident.log", json.dumps({"call": "upgrade_identity", "version": req.version, "raw": raw}))
        return {"upgraded_identity": _identity(raw.get("thing"), "eu")}

    def ValidateProviderConfig(self, req: Any) -> Any:
        return {}

    def ConfigureProvider(self, req: Any) -> Any:
        return {}

    def ValidateResourceConfig(self, req: Any) -> Any:
        return {}

    def ValidateEphemeralResourceConfig(self, req: Any) -> Any:
        return {}

    def UpgradeResourceState(self, req: Any) -> Any:
        return {"upgraded_state": _dv(json.loads(req.raw_state.json))}

    def ImportResourceState(self, req: Any) -> Any:
        ident = _ident_value(req.identity)
        if ident is not None:
            name, region = ident.get("name"), ident.get("region")
        else:
            name, _, region = req.id.partition("/")
        _log("ident.log", json.dumps({"call": "import", "id": req.id, "identity": ident}))
        remote = _read_remote(name)
        if remote is None or (region and remote["region"] != region):
            return {"diagnostics": [P.message("Diagnostic")(
                severity=1, summary="Cannot import non-existent remote object",
                detail=f"No thing named {name!r} in region {region or 'any'}.")]}
        imported = P.message("ImportResourceState.ImportedResource")(
            type_name=req.type_name, state=_dv(_state(remote)), identity=_identity(name, remote["region"]))
        return {"imported_resources": [imported]}

    def ReadResource(self, req: Any) -> Any:
        current = _value(req.current_state)
        _log("ident.log", json.dumps({"call": "read", "name": current and current.get("name"),
                                      "identity": _ident_value(req.current_identity)}))
        remote = _read_remote(current["name"]) if current else None
        if remote is None:
            return {"new_state": _dv(None), "private": req.private}
        state = _state(remote, current.get("auth"))
        return {"new_state": _dv(state), "private": req.private,
                "new_identity": _identity(remote["name"], remote["region"])}

    def PlanResourceChange(self, req: Any) -> Any:
        proposed, config = _value(req.proposed_new_state), _value(req.config)
        _log("ident.log", json.dumps({"call": "plan", "name": (proposed or _value(req.prior_state))["name"],
                                      "prior_identity": _ident_value(req.prior_identity),
                                      "password_wo": [a.get("password_wo") for a in (config or {}).get("auth") or []]}))
        if proposed is None:
            return {"planned_state": req.proposed_new_state}
        prior = _value(req.prior_state)
        same = bool(prior) and prior.get("name") == proposed["name"]
        planned = dict(proposed, auth=[dict(a, password_wo=None) for a in proposed.get("auth") or []])
        if proposed.get("opts"):
            planned["opts"] = dict(proposed["opts"], token_wo=None)
        planned["id"] = prior["id"] if same else UNKNOWN
        if planned.get("region") is None:
            planned["region"] = prior["region"] if same else "eu"
        out: dict[str, Any] = {"planned_state": _dv(planned)}
        if prior and not same:
            step = P.message("AttributePath.Step")(attribute_name="name")
            out["requires_replace"] = [P.message("AttributePath")(steps=[step])]
        if not isinstance(proposed["name"], ExtType) and not isinstance(planned["region"], ExtType):
            out["planned_identity"] = _identity(proposed["name"], planned["region"])
        return out

    def ApplyResourceChange(self, req: Any) -> Any:
        planned, prior = _value(req.planned_state), _value(req.prior_state)
        _log("ident.log", json.dumps({"call": "apply", "name": (planned or prior)["name"],
                                      "planned_identity": _ident_value(req.planned_identity)}))
        if planned is None:
            if prior:
                os.remove(_remote(prior["name"]))
            return {"new_state": req.planned_state}
        config = _value(req.config)
        for a in config.get("auth") or []:
            _log(f"wo-{planned['name']}.txt", f"password_wo={a.get('password_wo')}")
        if (config.get("opts") or {}).get("token_wo"):
            _log(f"wo-{planned['name']}.txt", f"token_wo={config['opts']['token_wo']}")
        remote = {"name": planned["name"], "region": planned["region"], "note": planned.get("note"),
                  "auth": [dict(a, password_wo=None) for a in planned.get("auth") or []],
                  "tag": planned.get("tag") or [], "opts": planned.get("opts")}
        with open(_remote(planned["name"]), "w", encoding="utf-8") as fh:
            json.dump(remote, fh)
        # note = "unknown-identity" makes a broken provider: an identity with an unknown value
        region = UNKNOWN if remote["note"] == "unknown-identity" else remote["region"]
        return {"new_state": _dv(_state(remote)), "new_identity": _identity(remote["name"], region)}

    def OpenEphemeralResource(self, req: Any) -> Any:
        config = _value(req.config)
        _log("ident.log", json.dumps({"call": "open", "name": config["name"], "defer": config.get("defer"),
                                      "deferral_allowed": req.client_capabilities.deferral_allowed}))
        if config.get("defer"):
            deferred = P.message("Deferred")(reason=P.message("Deferred").Reason.Value("RESOURCE_CONFIG_UNKNOWN"))
            return {"deferred": deferred}
        return {"result": _dv(dict(config, value=f"later-{config['name']}"))}

    def CloseEphemeralResource(self, req: Any) -> Any:
        _log("ident.log", json.dumps({"call": "close"}))
        return {}

    def ValidateDataResourceConfig(self, req: Any) -> Any:
        return {}

    def ReadDataSource(self, req: Any) -> Any:
        config = _value(req.config)
        _log("ident.log", json.dumps({"call": "read_data", "name": config["name"]}))
        return {"state": _dv(dict(config, result=f"found-{config['name']}"))}

    def StopProvider(self, req: Any) -> Any:
        return {}

    def handler(self, rpc: str) -> Any:
        _, req_cls, resp_cls = P.rpc(rpc)
        impl = getattr(self, rpc)

        def call(raw: bytes, context: Any) -> bytes:
            return resp_cls(**impl(req_cls.FromString(raw))).SerializeToString()

        return grpc.unary_unary_rpc_method_handler(call)



RPCS = ["GetProviderSchema", "GetResourceIdentitySchemas", "UpgradeResourceIdentity", "ValidateProviderConfig",
        "ConfigureProvider", "ValidateResourceConfig", "ValidateEphemeralResourceConfig", "UpgradeResourceState",
        "ImportResourceState", "ReadResource", "PlanResourceChange", "ApplyResourceChange",
        "OpenEphemeralResource", "CloseEphemeralResource", "ValidateDataResourceConfig", "ReadDataSource",
        "StopProvider"]


def main() -> None:
    provider = TfIdent()
    serve({r: provider.handler(r) for r in RPCS}, "tfident")


if __name__ == "__main__":
    main()
