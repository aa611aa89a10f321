"""gRPC calls to a running provider, in either protocol version, with Terraform's error texts.

Callers name RPCs by their protocol-6 names; the client maps them to version 5 where they
differ. Every call is registered with the provider's log while in flight (for attributing log
lines to resources) and counted, so cancellation can wait for in-flight calls. A failed call
becomes a diagnostic as Terraform words it ("Plugin did not respond" when the provider is gone),
never an exception past this module.
"""
from __future__ import annotations

import subprocess
import threading
from typing import Any

import grpc

from tfconsole.diags import Diagnostics

from .launcher import PluginProcess
from .protocol import Protocol, protocol


class CallFailed(Exception):
    """A call did not produce a response; `diags` says why in Terraform's words."""

    def __init__(self, diags: Diagnostics, code: Any = None):
        super().__init__("; ".join(d.summary for d in diags))
        self.diags = diags
        self.code = code


class PluginClient:
    def __init__(self, process: PluginProcess, provider: str):
        assert process.handshake is not None
        self.process = process
        self.provider = provider
        self.proto: Protocol = protocol(process.handshake.protocol_version)
        self._stubs: dict[str, Any] = {}
        self._idle = threading.Condition()
        self._running = 0
        self.crashed = False

    @property
    def version(self) -> int:
        return self.proto.version

    def message(self, name: str) -> Any:
        return self.proto.message(name)

    def request(self, rpc: str, **fields: Any) -> Any:
        return self.proto.rpc(rpc)[1](**fields)

    def call(self, rpc: str, request: Any, *, resource: str | None = None, type_name: str | None = None,
             timeout: float | None = None) -> Any:
        stub = self._stubs.get(rpc)
        if stub is None:
            path, req_cls, resp_cls = self.proto.rpc(rpc)
            stub = self._stubs[rpc] = self.process.channel.unary_unary(
                path, request_serializer=req_cls.SerializeToString, response_deserializer=resp_cls.FromString)
        token = self.process.log.begin_call(rpc, resource, type_name)
        with self._idle:
            self._running += 1
        try:
            return stub(request, timeout=timeout)
        except grpc.RpcError as exc:
            raise CallFailed(self._error(rpc, exc), exc.code()) from None
        except ValueError as exc:  # a closed channel
            raise CallFailed(self._gone(rpc, str(exc))) from None
        finally:
            self.process.drain_stderr()  # lines written during the call belong to it
            self.process.log.end_call(token)
            with self._idle:
                self._running -= 1
                if self._running == 0:
                    self._idle.notify_all()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until no call is in flight (after StopProvider, during cancellation)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._running == 0, timeout=timeout)

    def _method(self, rpc: str) -> str:
        pkg = "plugin" if self.proto.version == 5 else "plugin6"
        return f"{pkg}.(*GRPCProvider).{rpc}"

    def _error(self, rpc: str, exc: grpc.RpcError) -> Diagnostics:
        code = exc.code()
        if code == grpc.StatusCode.UNAVAILABLE or not self.process.alive():
            return self._gone(rpc, "")
        diags = Diagnostics()
        name = self._method(rpc)
        if code == grpc.StatusCode.CANCELLED:
            diags.error("Request cancelled", f"The {name} request was cancelled.")
        elif code == grpc.StatusCode.UNIMPLEMENTED:
            diags.error("Unsupported plugin method", f"The {name} method is not supported by this plugin.")
        else:
            diags.error("Plugin error", f"The plugin returned an unexpected error from {name}: "
                        f"rpc error: code = {_code_name(code)} desc = {exc.details()}")
        return diags

    def _gone(self, rpc: str, why: str) -> Diagnostics:
        self.crashed = True
        if self.process.proc is not None:
            try:  # a crashed provider is usually reaped within moments: say how it ended
                self.process.proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                pass
        how = self.process.exit_description() or "stopped responding"
        diags = Diagnostics()
        diags.error("Plugin did not respond",
                    f"The plugin encountered an error, and failed to respond to the {self._method(rpc)} call. "
                    f"The plugin logs may contain more details.\n\nThe provider {self.provider} "
                    f"(process {self.process.pid}) {how}.")
        return diags


def _code_name(code: Any) -> str:
    name = getattr(code, "name", str(code))
    return "".join(p.capitalize() for p in name.split("_"))
