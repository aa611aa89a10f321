"""A recording proxy provider: serves go-plugin to whoever starts it (Terraform or tfconsole),
starts the real provider named by RECORD_TARGET, forwards every call to it unchanged, and
appends each call with its decoded request and response to a JSON-lines file in RECORD_DIR.

The comparison test runs Terraform and tfconsole through it on the same configuration and
compares what each sent. Serves TLS with its own certificate when the client offers one
(PLUGIN_CLIENT_CERT, as Terraform does), plaintext otherwise (as tfconsole asks).
"""
from __future__ import annotations

import base64
import datetime
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

from tfconsole.providers.plugin.launcher import PluginProcess
from tfconsole.providers.plugin.log import ProviderLog
from tfconsole.providers.plugin.protocol import protocol

# every provider RPC by its wire name, for each version: (wire name, message name)
_RPCS = {
    5: ["GetMetadata", "GetSchema", "PrepareProviderConfig", "ValidateResourceTypeConfig",
        "ValidateDataSourceConfig", "UpgradeResourceState", "GetResourceIdentitySchemas", "Configure",
        "ReadResource", "PlanResourceChange", "ApplyResourceChange", "ImportResourceState", "MoveResourceState",
        "ReadDataSource", "UpgradeResourceIdentity", "ValidateEphemeralResourceConfig", "OpenEphemeralResource", "RenewEphemeralResource",
        "CloseEphemeralResource", "GetFunctions", "CallFunction", "Stop"],
    6: ["GetMetadata", "GetProviderSchema", "ValidateProviderConfig", "ValidateResourceConfig",
        "ValidateDataResourceConfig", "UpgradeResourceState", "GetResourceIdentitySchemas", "ConfigureProvider",
        "ReadResource", "PlanResourceChange", "ApplyResourceChange", "ImportResourceState", "MoveResourceState",
        "ReadDataSource", "UpgradeResourceIdentity", "ValidateEphemeralResourceConfig", "OpenEphemeralResource", "RenewEphemeralResource",
        "CloseEphemeralResource", "GetFunctions", "CallFunction", "StopProvider"],
}


def _plain(v: Any) -> Any:
    """msgpack data as JSON: unknowns as {"unknown": code}, bytes as base64."""
    if isinstance(v, msgpack.ExtType):
        return {"unknown": v.code}
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, bytes):
        return base64.b64encode(v).decode()
    return v


def _decoded(msg: Any) -> Any:
    """A protobuf message as JSON, with DynamicValue msgpack decoded."""
    from google.protobuf.message import Message

    out: dict[str, Any] = {}
    for field, value in msg.ListFields():
        if field.message_type is not None and field.message_type.name == "RawState":
            conv = (lambda rs: {"json": json.loads(rs.json) if rs.json else None, "flatmap": dict(rs.flatmap)})
        elif field.message_type is not None and field.message_type.name == "DynamicValue":
            conv = (lambda dv: _plain(msgpack.unpackb(dv.msgpack, raw=False, strict_map_key=False))
                    if dv.msgpack else None)
        elif field.message_type is not None:
            conv = _decoded
        elif isinstance(value, bytes):
            conv = (lambda b: base64.b64encode(b).decode())
        else:
            conv = (lambda x: x)
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            out[field.name] = {k: (_decoded(v) if isinstance(v, Message) else v) for k, v in value.items()}
        elif field.label == field.LABEL_REPEATED:
            out[field.name] = [conv(x) for x in value]
        else:
            out[field.name] = conv(value)
    return out


class Recorder:
    def __init__(self, target: str, log_dir: str):
        self.real = PluginProcess(target, ProviderLog("recorded"))
        assert self.real.handshake is not None
        self.version = self.real.handshake.protocol_version
        self.proto = protocol(self.version)
        self.log_path = os.path.join(log_dir, f"calls-{os.getpid()}-{time.time_ns()}.jsonl")
        self.lock = threading.Lock()
        self.stopped = threading.Event()

    def record(self, method: str, request: Any, response: Any, error: str | None) -> None:
        entry = {"t": time.time_ns(), "pid": os.getpid(), "method": method, "request": request,
                 "response": response, "error": error}
        with self.lock, open(self.log_path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry, sort_keys=True) + "\n")

    def handler(self, wire: str) -> Any:
        base = "GetProviderSchema" if wire == "GetSchema" else wire
        req_cls = self.proto.message(f"{base}.Request")
        resp_cls = self.proto.message(f"{base}.Response")
        forward = self.real.channel.unary_unary(f"/{self.proto.package}.Provider/{wire}")

        def call(raw: bytes, context: Any) -> bytes:
            error = None
            try:
                out = forward(raw)
            except grpc.RpcError as exc:
                error = exc.code().name
                self.record(wire, _decoded(req_cls.FromString(raw)), None, error)
                context.abort(exc.code(), exc.details() or "")
            self.record(wire, _decoded(req_cls.FromString(raw)), _decoded(resp_cls.FromString(out)), None)
            return out

        return grpc.unary_unary_rpc_method_handler(call)

    def shutdown(self, raw: bytes, context: Any) -> bytes:
        self.stopped.set()
        return b""


def _certificate() -> tuple[bytes, bytes, bytes]:
    """(key PEM, certificate PEM, certificate DER) for "localhost", self-signed."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import NameOID

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return key_pem, cert.public_bytes(serialization.Encoding.PEM), cert.public_bytes(serialization.Encoding.DER)


def main() -> None:
    rec = Recorder(os.environ["RECORD_TARGET"], os.environ["RECORD_DIR"])
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
    handlers = {w: rec.handler(w) for w in _RPCS[rec.version]}
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(f"{rec.proto.package}.Provider", handlers)])
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
        "plugin.GRPCController", {"Shutdown": grpc.unary_unary_rpc_method_handler(rec.shutdown)})])
    sock = os.path.join(tempfile.mkdtemp(dir=os.environ.get("PLUGIN_UNIX_SOCKET_DIR")), "recorder.sock")
    cert_field = ""
    if os.environ.get("PLUGIN_CLIENT_CERT"):
        key_pem, cert_pem, cert_der = _certificate()
        server.add_secure_port(f"unix:{sock}", grpc.ssl_server_credentials([(key_pem, cert_pem)]))
        cert_field = base64.b64encode(cert_der).decode().rstrip("=")
    else:
        server.add_insecure_port(f"unix:{sock}")
    server.start()
    print(f"1|{rec.version}|unix|{sock}|grpc|{cert_field}", flush=True)
    rec.stopped.wait()
    server.stop(grace=0.5)
    rec.real.shutdown()


if __name__ == "__main__":
    main()
