"""The built-in http provider's data "http", against a real server on 127.0.0.1."""
from __future__ import annotations

import base64
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator

import pytest

from tfconsole.lang.types import STRING
from tfconsole.lang.values import TMap, Unknown
from tfconsole.providers.builtin import _harness as h
from tfconsole.providers.builtin.http import HTTPProvider
from tfconsole.providers.registry import default_registry


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log: list[dict] = []
    fail_first: dict[str, int] = {}

    def log_message(self, *args: object) -> None:  # keep test output quiet
        pass

    def _record(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.log.append({"method": self.command, "path": self.path, "headers": dict(self.headers),
                         "body": body, "time": time.monotonic()})
        return body

    def _send(self, code: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        self._record()
        path = self.path
        if path == "/ok":
            self._send(200, b"hello world", {"Content-Type": "text/plain", "X-Multi": "a"})
        elif path == "/multi":
            self.send_response(200)
            self.send_header("x-dup", "one")
            self.send_header("x-dup", "two")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path == "/404":
            self._send(404, b"not here")
        elif path == "/500":
            self._send(500, b"broken")
        elif path == "/binary":
            self._send(200, b"\xff\xfe\x00bin")
        elif path == "/flaky":
            n = self.fail_first.get(path, 0)
            if n > 0:
                self.fail_first[path] = n - 1
                self._send(502, b"bad gateway")
            else:
                self._send(200, b"recovered")
        elif path == "/slow":
            time.sleep(0.5)
            self._send(200, b"late")
        elif path == "/headers":
            auth = self.headers.get("Authorization", "")
            self._send(200 if auth == "Bearer t0ken" else 403, auth.encode())
        elif path == "/redirect":
            self._send(302, b"", {"Location": "/ok"})
        else:
            self._send(404, b"")

    def do_HEAD(self) -> None:  # noqa: N802
        self.do_GET()

    def do_POST(self) -> None:  # noqa: N802
        body = self._record()
        self._send(200 if body == b"ping" else 400, b"got:" + body)


@pytest.fixture
def server() -> Iterator[str]:
    Handler.log = []
    Handler.fail_first = {}
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}"
    finally:
        srv.shutdown()
        srv.server_close()


@pytest.fixture
def p() -> HTTPProvider:
    return HTTPProvider()


def read(p: HTTPProvider, cfg: dict) -> tuple[dict | None, object]:
    return h.read_data(p, "http", cfg)


def test_registered() -> None:
    assert isinstance(default_registry().create("hashicorp/http"), HTTPProvider)
    schema = HTTPProvider().data_source_schemas()["http"].block
    assert schema.attributes["url"].required
    assert schema.attributes["status_code"].computed
    assert schema.blocks["retry"].nesting == "single"


def test_get_200(p: HTTPProvider, server: str) -> None:
    st, d = read(p, {"url": server + "/ok"})
    assert not d.has_errors
    assert st["status_code"] == 200
    assert st["response_body"] == "hello world" == st["body"]
    assert base64.b64decode(st["response_body_base64"]) == b"hello world"
    assert st["id"] == server + "/ok"
    assert st["response_headers"]["Content-Type"] == "text/plain"
    assert st["response_headers"]["X-Multi"] == "a"
    assert len(Handler.log) == 1 and Handler.log[0]["method"] == "GET"


def test_duplicate_headers_joined(p: HTTPProvider, server: str) -> None:
    st, d = read(p, {"url": server + "/multi"})
    assert st["response_headers"]["X-Dup"] == "one, two"


def test_non_2xx_is_not_an_error(p: HTTPProvider, server: str) -> None:
    st, d = read(p, {"url": server + "/404"})
    assert not d.has_errors
    assert st["status_code"] == 404 and st["response_body"] == "not here"


def test_5xx_gives_up(p: HTTPProvider, server: str) -> None:
    st, d = read(p, {"url": server + "/500"})
    assert st is None
    err = d.errors()[0]
    assert err.summary == "Error making request"
    assert err.detail == (f"Error making request: GET {server}/500 giving up after 1 attempt(s): "
                          "unexpected HTTP status 500 Internal Server Error")
    assert len(Handler.log) == 1


def test_retry_recovers(p: HTTPProvider, server: str) -> None:
    Handler.fail_first["/flaky"] = 2
    st, d = read(p, {"url": server + "/flaky", "retry": {"attempts": 3, "min_delay_ms": 50, "max_delay_ms": 60}})
    assert not d.has_errors, d.items
    assert st["status_code"] == 200 and st["response_body"] == "recovered"
    assert len(Handler.log) == 3
    gaps = [b["time"] - a["time"] for a, b in zip(Handler.log, Handler.log[1:])]
    assert all(g >= 0.045 for g in gaps)


def test_retry_exhausted(p: HTTPProvider, server: str) -> None:
    Handler.fail_first["/flaky"] = 5
    st, d = read(p, {"url": server + "/flaky", "retry": {"attempts": 1, "min_delay_ms": 10, "max_delay_ms": 10}})
    assert st is None
    assert "giving up after 2 attempt(s): unexpected HTTP status 502 Bad Gateway" in d.errors()[0].detail
    assert len(Handler.log) == 2


def test_request_headers_and_method(p: HTTPProvider, server: str) -> None:
    st, _ = read(p, {"url": server + "/headers", "request_headers": TMap({"Authorization": "Bearer t0ken"}, STRING)})
    assert st["status_code"] == 200 and st["response_body"] == "Bearer t0ken"
    st, _ = read(p, {"url": server + "/headers"})
    assert st["status_code"] == 403
    st, _ = read(p, {"url": server + "/anything", "method": "POST", "request_body": "ping"})
    assert st["status_code"] == 200 and st["response_body"] == "got:ping"
    assert Handler.log[-1]["method"] == "POST" and Handler.log[-1]["body"] == b"ping"
    st, _ = read(p, {"url": server + "/ok", "method": "HEAD"})
    assert st["status_code"] == 200 and st["response_body"] == ""


def test_redirect_followed(p: HTTPProvider, server: str) -> None:
    st, _ = read(p, {"url": server + "/redirect"})
    assert st["status_code"] == 200 and st["response_body"] == "hello world"
    assert st["id"] == server + "/redirect"


def test_binary_body_warns(p: HTTPProvider, server: str) -> None:
    st, d = read(p, {"url": server + "/binary"})
    assert [w.summary for w in d.warnings()] == ["Response body is not recognized as UTF-8"]
    assert base64.b64decode(st["response_body_base64"]) == b"\xff\xfe\x00bin"


def test_timeout(p: HTTPProvider, server: str) -> None:
    st, d = read(p, {"url": server + "/slow", "request_timeout_ms": 100})
    assert st is None
    assert d.errors()[0].detail.startswith("request exceeded the specified timeout: 100ms, err: GET ")


def test_connection_refused(p: HTTPProvider) -> None:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    st, d = read(p, {"url": f"http://127.0.0.1:{port}/"})
    assert st is None
    assert d.errors()[0].detail.startswith(f"Error making request: GET http://127.0.0.1:{port}/ giving up after 1 "
                                           "attempt(s):")


def test_validation(p: HTTPProvider) -> None:
    d = p.validate_data_source("http", {"url": "http://x", "method": "PUT"})
    assert d.errors()[0].summary == "Invalid Attribute Value Match"
    assert 'got: "PUT"' in d.errors()[0].detail
    d = p.validate_data_source("http", {"url": "http://x", "insecure": True, "ca_cert_pem": "x"})
    assert d.errors()[0].detail == 'Attribute "insecure" cannot be specified when "ca_cert_pem" is specified'
    d = p.validate_data_source("http", {"url": "http://x", "request_timeout_ms": 0})
    assert "at least 1" in d.errors()[0].detail
    d = p.validate_data_source("http", {"url": "http://x", "retry": {"min_delay_ms": 100, "max_delay_ms": 10}})
    assert d.has_errors
    d = p.validate_data_source("http", {})
    assert d.errors()[0].summary == "Missing required argument"
    d = p.validate_data_source("http", {"url": "http://x", "client_cert_pem": "x"})
    assert 'Attribute "client_key_pem" must be specified' in d.errors()[0].detail


def test_unknown_url_defers(p: HTTPProvider) -> None:
    st, d = p.read_data_source("http", {"url": Unknown(STRING)})
    assert not d.has_errors and isinstance(st["status_code"], Unknown)
