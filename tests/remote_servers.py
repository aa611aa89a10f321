"""Real servers for the remote-backend tests: an HTTP state server (stdlib http.server) and a
throwaway PostgreSQL cluster (Debian's postgresql package).

StateServer speaks the protocol Terraform's http backend uses and records every request:
GET returns the state (404 before the first POST); POST stores it, refused with 409 when the
state is locked and `?ID=` is not the lock's ID, and with 400 when Content-MD5 does not match;
LOCK stores the lock-info body or answers 423 with the holder's; UNLOCK releases the lock (an
empty body: force-unlock) or answers 409 with the holder's when the IDs differ. With a
username, every request must carry that Basic auth (else 401).

pg_cluster starts `initdb` + `pg_ctl` as the postgres user (initdb refuses root) in a private
directory, on a free loopback port with a private socket directory; it is stopped at the end of
the session. A cluster that cannot be started FAILS the tests that need it (never a skip).
"""
from __future__ import annotations

import base64
import glob
import hashlib
import json
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator
from urllib.parse import parse_qs, urlsplit

import pytest


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: Any  # email.message.Message: names are case-insensitive (Go sends Content-Md5)
    body: bytes


@dataclass
class StateServer:
    username: str = ""
    password: str = ""
    states: dict[str, bytes] = field(default_factory=dict)
    locks: dict[str, bytes] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    tls: Any = None  # an ssl.SSLContext (server side): serve https, e.g. requiring client certificates

    def __post_init__(self) -> None:
        self.mutex = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _handle(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else b""
                url = urlsplit(self.path)
                req = Request(self.command, url.path, parse_qs(url.query), self.headers, body)
                with server.mutex:
                    server.requests.append(req)
                    code, out = server.answer(req)
                self.send_response(code)
                self.send_header("Content-Length", str(len(out)))
                if out:
                    self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(out)

            do_GET = do_POST = do_LOCK = do_UNLOCK = do_DELETE = do_PUT = _handle

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if self.tls is not None:
            self.httpd.socket = self.tls.wrap_socket(self.httpd.socket, server_side=True)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base(self) -> str:
        scheme = "https" if self.tls is not None else "http"
        return f"{scheme}://127.0.0.1:{self.httpd.server_address[1]}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def answer(self, req: Request) -> tuple[int, bytes]:
        if self.username:
            want = "Basic " + base64.b64encode(f"{self.username}:{self.password}".encode()).decode()
            if req.headers.get("Authorization") != want:
                return 401, b""
        key = req.path.rsplit("/", 1)[0] if req.method in ("LOCK", "UNLOCK") else req.path
        held = self.locks.get(key)
        if req.method == "GET":
            return (200, self.states[key]) if key in self.states else (404, b"")
        if req.method in ("POST", "PUT"):
            md5 = base64.b64encode(hashlib.md5(req.body).digest()).decode()
            if req.headers.get("Content-MD5") != md5:
                return 400, b""
            if held is not None and req.query.get("ID", [""])[0] != json.loads(held)["ID"]:
                return 409, held
            self.states[key] = req.body
            return 200, b""
        if req.method == "DELETE":
            self.states.pop(key, None)
            return 200, b""
        if req.method == "LOCK":
            if held is not None:
                return 423, held
            self.locks[key] = req.body
            return 200, b""
        if req.method == "UNLOCK":
            if held is None:
                return 200, b""
            if req.body and json.loads(req.body).get("ID") != json.loads(held)["ID"]:
                return 409, held
            del self.locks[key]
            return 200, b""
        return 405, b""

    def config(self, path: str = "/state/main") -> str:
        auth = f'    username = "{self.username}"\n    password = "{self.password}"\n' if self.username else ""
        return (f'terraform {{\n  backend "http" {{\n    address = "{self.base}{path}"\n'
                f'    lock_address = "{self.base}{path}/lock"\n    unlock_address = "{self.base}{path}/lock"\n'
                f'{auth}    retry_wait_min = 0\n    retry_max = 1\n  }}\n}}\n')


@pytest.fixture
def state_server() -> Iterator[StateServer]:
    s = StateServer(username="alice", password="s3cret-" + secrets.token_hex(4))
    try:
        yield s
    finally:
        s.stop()


# ---------------------------------------------------------------------------
# PostgreSQL


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pg_bin() -> str:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        pytest.fail("PostgreSQL is not installed (Debian's postgresql package: /usr/lib/postgresql/*/bin); "
                    ".ci/run installs it")
    return os.path.dirname(found[-1])


@dataclass
class PgCluster:
    port: int
    root: str

    def dsn(self, db: str = "postgres") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{db}?sslmode=disable"

    def new_database(self) -> str:
        import psycopg

        name = "t_" + secrets.token_hex(6)
        with psycopg.connect(self.dsn(), autocommit=True) as c:
            c.execute(f'CREATE DATABASE "{name}"')
        return self.dsn(name)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    bindir = _pg_bin()
    root = tempfile.mkdtemp(prefix="tfc-pg-")
    as_user: list[str] = []
    if os.geteuid() == 0:
        pw = pwd.getpwnam("postgres")
        os.chown(root, pw.pw_uid, pw.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    data, sock, log = os.path.join(root, "data"), os.path.join(root, "sock"), os.path.join(root, "log")

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([*as_user, *argv], capture_output=True, text=True, timeout=300, cwd=root)

    r = run(os.path.join(bindir, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8",
            "--no-sync")
    if r.returncode != 0:
        pytest.fail(f"initdb failed: {r.stderr[-2000:]}")
    run("mkdir", "-p", sock)
    port = _free_port()
    opts = f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off"
    r = run(os.path.join(bindir, "pg_ctl"), "-D", data, "-o", opts, "-l", log, "-w", "-t", "120", "start")
    if r.returncode != 0:
        text = open(log).read()[-2000:] if os.path.exists(log) else ""
        shutil.rmtree(root, ignore_errors=True)
        pytest.fail(f"PostgreSQL did not start: {r.stdout[-1000:]} {r.stderr[-1000:]} {text}")
    try:
        yield PgCluster(port, root)
    finally:
        run(os.path.join(bindir, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop")
        shutil.rmtree(root, ignore_errors=True)


def pg_config(dsn: str, schema: str = "") -> str:
    extra = f'    schema_name = "{schema}"\n' if schema else ""
    return f'terraform {{\n  backend "pg" {{\n    conn_str = "{dsn}"\n{extra}  }}\n}}\n'
