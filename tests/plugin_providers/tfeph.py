"""tfeph: a small protocol-6 provider with an ephemeral resource and a write-only attribute,
for the ephemeral tests (the PyPI `tf` framework has neither).

It speaks the plugin protocol directly: message classes from tfconsole's own protocol
definitions, msgpack values, go-plugin's handshake line, TLS with its own certificate. Real Terraform is one of its
clients in the tests, so a mistake in those definitions shows up as Terraform failing.

  provider "tfeph" { token = "..." }   the token is appended to configured.log in the store
  ephemeral "tfeph_secret" "x" {       value = "eph-<name>"; renew = true asks for a renew one
    name  = "..."                      second after opening; open/renew/close each append a
    renew = false                      line to calls.log (with the private data they got)
  }
  resource "tfeph_sink" "x" {          id = "sink-<name>"; the write-only secret_wo it received
    name      = "..."                  is written to sink-<name>.txt, never returned; delay
    secret_wo = "..."                  (seconds) slows its create down
    delay     = 0
  }

Every call is appended to rpc.log (method, pid, time; the configuration for Open and Configure),
so the tests see the calls each tool makes without a proxy in between. The store directory is
TFEPH_STORE (else the working directory). Run by
tests/plugin_support.py through an executable wrapper; never imported by tfconsole.
"""
from __future__ import annotations

import base64
import json
import os
import sys
import tempfile
import threading
import time
from concurrent import futures
from typing import Any


import grpc
import msgpack

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tfconsole.providers.plugin.protocol import protocol  # noqa: E402

P = protocol(6)
UNKNOWN = msgpack.ExtType(0, b"\x00")
_LOCK = threading.Lock()


def _store() -> str:
    path = os.environ.get("TFEPH_STORE") or "."
    os.makedirs(path, exist_ok=True)
    return path


def _log(name: str, line: str) -> None:
    with _LOCK, open(os.path.join(_store(), name), "a", encoding="utf-8") as fh:
        fh.write(line + "\n")


def _attr(name: str, ty: str, **flags: bool) -> Any:
    return P.message("Schema.Attribute")(name=name, type=json.dumps(ty).encode(), **flags)


def _schema(*attrs: Any) -> Any:
    return P.message("Schema")(version=0, block=P.message("Schema.Block")(attributes=list(attrs)))


PROVIDER = _schema(_attr("token", "string", optional=True, sensitive=True))
SINK = _schema(_attr("id", "string", computed=True), _attr("name", "string", required=True),
               _attr("secret_wo", "string", optional=True, write_only=True),
               _attr("delay", "number", optional=True))
SECRET = _schema(_attr("name", "string", required=True), _attr("renew", "bool", optional=True),
                 _attr("value", "string", computed=True, sensitive=True))


def _value(dv: Any) -> Any:
    return msgpack.unpackb(dv.msgpack, raw=False) if dv.msgpack else json.loads(dv.json or b"null")


def _dv(v: Any) -> Any:
    return P.message("DynamicValue")(msgpack=msgpack.packb(v, use_bin_type=True))


class TfEph:
    def GetProviderSchema(self, req: Any) -> Any:
        return {"provider": PROVIDER, "resource_schemas": {"tfeph_sink": SINK},
                "ephemeral_resource_schemas": {"tfeph_secret": SECRET},
                "server_capabilities": P.message("ServerCapabilities")()}

    def ValidateProviderConfig(self, req: Any) -> Any:
        return {}

    def ConfigureProvider(self, req: Any) -> Any:
        token = _value(req.config).get("token")
        _log("configured.log", f"token={token}")
        return {}

    def ValidateResourceConfig(self, req: Any) -> Any:
        return {}

    def ValidateEphemeralResourceConfig(self, req: Any) -> Any:
        return {}

    def UpgradeResourceState(self, req: Any) -> Any:
        return {"upgraded_state": _dv(json.loads(req.raw_state.json))}

    def ReadResource(self, req: Any) -> Any:
        return {"new_state": req.current_state, "private": req.private}

    def PlanResourceChange(self, req: Any) -> Any:
        proposed = _value(req.proposed_new_state)
        if proposed is None:
            return {"planned_state": req.proposed_new_state}
        prior = _value(req.prior_state)
        planned = dict(proposed, secret_wo=None)
        planned["id"] = prior["id"] if prior and prior.get("name") == proposed["name"] else UNKNOWN
        out: dict[str, Any] = {"planned_state": _dv(planned)}
        if prior and prior.get("name") != proposed["name"]:
            step = P.message("AttributePath.Step")(attribute_name="name")
            out["requires_replace"] = [P.message("AttributePath")(steps=[step])]
        return out

    def ApplyResourceChange(self, req: Any) -> Any:
        planned = _value(req.planned_state)
        if planned is None:
            return {"new_state": req.planned_state}
        config = _value(req.config)
        if planned.get("delay"):
            time.sleep(float(planned["delay"]))
        _log(f"sink-{planned['name']}.txt", f"secret_wo={config.get('secret_wo')}")
        _log("calls.log", f"apply sink {planned['name']}")
        return {"new_state": _dv(dict(planned, id=f"sink-{planned['name']}", secret_wo=None))}

    def OpenEphemeralResource(self, req: Any) -> Any:
        config = _value(req.config)
        name = config["name"]
        _log("calls.log", f"open {name}")
        out: dict[str, Any] = {"result": _dv(dict(config, value=f"eph-{name}")), "private": f"priv-{name}".encode()}
        if config.get("renew"):
            now = time.time() + 1
            out["renew_at"] = P.message("Timestamp")(seconds=int(now), nanos=int((now % 1) * 1e9))
        return out

    def RenewEphemeralResource(self, req: Any) -> Any:
        _log("calls.log", f"renew {req.private.decode()}")
        return {"private": req.private}

    def CloseEphemeralResource(self, req: Any) -> Any:
        _log("calls.log", f"close {req.private.decode()}")
        return {}

    def StopProvider(self, req: Any) -> Any:
        return {}

    def handler(self, rpc: str) -> Any:
        _, req_cls, resp_cls = P.rpc(rpc)
        impl = getattr(self, rpc)

        def call(raw: bytes, context: Any) -> bytes:
            req = req_cls.FromString(raw)
            config = _value(req.config) if rpc in ("OpenEphemeralResource", "ConfigureProvider") else None
            out = resp_cls(**impl(req)).SerializeToString()
            # every call as it completes, with the configuration it carried where that matters
            _log("rpc.log", json.dumps({"t": time.time_ns(), "pid": os.getpid(), "method": rpc, "config": config}))
            return out

        return grpc.unary_unary_rpc_method_handler(call)



RPCS = ["GetProviderSchema", "ValidateProviderConfig", "ConfigureProvider", "ValidateResourceConfig",
        "ValidateEphemeralResourceConfig", "UpgradeResourceState", "ReadResource", "PlanResourceChange",
        "ApplyResourceChange", "OpenEphemeralResource", "RenewEphemeralResource", "CloseEphemeralResource",
        "StopProvider"]


def serve(handlers: dict[str, Any], name: str) -> None:
    """Serve protocol 6 with these method handlers until go-plugin's Shutdown (shared by the
    hand-written test providers)."""
    from plugin_providers.recorder import _certificate

    stopped = threading.Event()

    def shutdown(raw: bytes, context: Any) -> bytes:
        stopped.set()
        return b""

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler("tfplugin6.Provider", handlers)])
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
        "plugin.GRPCController", {"Shutdown": grpc.unary_unary_rpc_method_handler(shutdown)})])
    sock = os.path.join(tempfile.mkdtemp(dir=os.environ.get("PLUGIN_UNIX_SOCKET_DIR")), f"{name}.sock")
    # always TLS with its own certificate, as providers written with the `tf` framework serve
    # (a plaintext unix-socket server was seen aborting at start-up now and then)
    key_pem, cert_pem, cert_der = _certificate()
    server.add_secure_port(f"unix:{sock}", grpc.ssl_server_credentials([(key_pem, cert_pem)]))
    cert_field = base64.b64encode(cert_der).decode().rstrip("=")
    server.start()
    print(f"1|6|unix|{sock}|grpc|{cert_field}", flush=True)
    stopped.wait()
    server.stop(grace=0.5)


def main() -> None:
    provider = TfEph()
    serve({r: provider.handler(r) for r in RPCS}, "tfeph")


if __name__ == "__main__":
    main()
