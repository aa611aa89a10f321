"""Starting real provider executables: the handshake, the TLS choice, schemas, the log, shutdown,
and no provider outliving tfconsole.

Three kinds of provider: the official null 2.1.2 (protocol 5, an older Go), workato 0.16.0 (a
current Go: P-521 / TLS 1.3 if we asked for TLS; handshake, schema and validation only), and
our tfcheck provider on the `tf` framework (protocol 6, always TLS with its own RSA certificate).
"""
from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tfconsole.providers.interface import CALLING_RESOURCE, ApplyRequest, PlanRequest
from tfconsole.providers.plugin import cache
from tfconsole.providers.plugin.adapter import PluginProvider
from tfconsole.providers.plugin.launcher import PluginProcess, wait_gone
from tfconsole.providers.plugin.log import ProviderLog

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TFCONSOLE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_null_serves_plaintext_on_a_private_socket(null_provider: Path) -> None:
    proc = PluginProcess(str(null_provider), ProviderLog("null"))
    try:
        hs = proc.handshake
        assert hs is not None and hs.protocol_version == 5 and hs.network == "unix" and hs.server_cert is None
        sock_dir = os.path.dirname(hs.address)
        assert sock_dir.startswith(proc.socket_dir)  # our directory, even for go-plugin before 1.5
        assert stat.S_IMODE(os.stat(proc.socket_dir).st_mode) == 0o700
        assert any(line.message == "plugin address" for line in proc.log.tail())  # its JSON log line
    finally:
        proc.shutdown()
    assert not _alive(proc.pid) and not os.path.exists(proc.socket_dir)


def test_null_through_the_provider_interface(null_provider: Path, private_cache: Path) -> None:
    p = PluginProvider("registry.terraform.io/hashicorp/null", str(null_provider))
    try:
        schemas = p.resource_schemas()
        assert set(schemas["null_resource"].block.attributes) == {"id", "triggers"}
        assert p.protocol_version == 5 and p.pid is not None
        assert not p.configure({})
        cfg = {"id": None, "triggers": {"a": "1"}}
        plan = p.plan_resource(PlanRequest("null_resource", None, dict(cfg), cfg))
        assert not plan.diags and plan.legacy_type_system and plan.private
        new = p.apply_resource(ApplyRequest("null_resource", None, plan.planned, cfg, plan.private))
        assert not new.diags and new.new_state["id"].isdigit() and dict(new.new_state["triggers"]) == {"a": "1"}
        upgraded, d = p.upgrade_resource_state("null_resource", 0, {"id": "42", "triggers": {"a": "1"}})
        assert not d and upgraded["id"] == "42"
        moved, _, d = p.move_resource_state("registry.terraform.io/hashicorp/null", "null_resource", 0,
                                            {"id": "42"}, "null_resource", None)
        assert moved is None and [x.summary for x in d] == ["Unsupported plugin method"]  # protocol 5.0 lacks it
        assert "plugin.(*GRPCProvider).MoveResourceState" in d.errors()[0].detail
        gone = p.apply_resource(ApplyRequest("null_resource", new.new_state, None, None, new.private))
        assert gone.new_state is None and not gone.diags
    finally:
        p.close()
    assert not _alive(p._process.pid if p._process else 0)
    # the schema is cached by the executable's hash: a new instance needs no process for it
    digest = cache.executable_hash(str(null_provider))
    assert digest and (private_cache / "provider-schemas" / f"{digest}.schema.json").exists()
    assert stat.S_IMODE(os.stat(private_cache / "provider-schemas").st_mode) == 0o700
    assert stat.S_IMODE(os.stat(private_cache / "provider-schemas" / f"{digest}.schema.json").st_mode) == 0o600
    again = PluginProvider("registry.terraform.io/hashicorp/null", str(null_provider))
    assert "null_resource" in again.resource_schemas() and again.pid is None
    again.close()


def test_a_damaged_schema_cache_entry_is_ignored(null_provider: Path, private_cache: Path) -> None:
    digest = cache.executable_hash(str(null_provider))
    cache.store_schema(digest, 5, b"\xff\xff not protobuf")
    p = PluginProvider("registry.terraform.io/hashicorp/null", str(null_provider))
    try:
        assert "null_resource" in p.resource_schemas() and p.pid is not None  # fetched from the process
    finally:
        p.close()


def test_tf_framework_provider_insists_on_tls(tfcheck_provider: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFCHECK_STORE", str(tmp_path / "store"))
    p = PluginProvider("registry.terraform.io/tfconsole/tfcheck", str(tfcheck_provider))
    try:
        s = p.schemas()
        assert not s.diags, s.diags.items  # GetResourceIdentitySchemas answered UNIMPLEMENTED: tolerated
        assert p._process.handshake.server_cert  # its own certificate, which we trusted
        assert p.protocol_version == 6 and "tfcheck_thing" in s.resources and "shout" in s.functions
        assert s.resources["tfcheck_thing"].block.attributes["secret"].sensitive
        assert not p.configure({"store": None})
        cfg = {"id": None, "name": "n", "size": 2, "tags": None, "zone": None, "secret": None, "delay": None,
               "label": None}
        token = CALLING_RESOURCE.set("tfcheck_thing.a")
        try:
            plan = p.plan_resource(PlanRequest("tfcheck_thing", None, dict(cfg), cfg))
            new = p.apply_resource(ApplyRequest("tfcheck_thing", None, plan.planned, cfg, plan.private))
        finally:
            CALLING_RESOURCE.reset(token)
        assert new.new_state["label"] == "n-2" and (tmp_path / "store" / f"{new.new_state['id']}.json").exists()
        deadline = time.monotonic() + 5
        while not p.log.for_resource("tfcheck_thing.a") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [ln.message for ln in p.log.for_resource("tfcheck_thing.a")] == ["creating n"]
        value, d = p.call_function("shout", ["hi"])
        assert value == "HI!" and not d
        value, d = p.call_function("shout", [])
        assert value is None and d.has_errors
    finally:
        p.close()


def test_current_go_provider_handshake_schema_and_validation(workato_provider: Path) -> None:
    """A provider built with a current Go: with no client certificate offered it serves
    plaintext, which is what lets grpcio talk to it at all."""
    p = PluginProvider("registry.terraform.io/local/workato", str(workato_provider))
    try:
        s = p.schemas()
        assert not s.diags.has_errors and p.protocol_version == 6
        assert p._process.handshake.server_cert is None
        assert s.resources and s.provider.block.attributes
        name = min(s.resources)
        attrs = s.resources[name].block.attributes
        config = {k: None for k in attrs}
        for k in s.resources[name].block.blocks:
            config[k] = [] if s.resources[name].block.blocks[k].nesting in ("list", "set") else None
        d = p.validate_resource(name, config)
        assert all(x.summary != "Plugin did not respond" for x in d)  # the provider answered
        d = p.validate_resource("no_such_type", {})
        assert d.has_errors and "does not support" in d.errors()[0].detail
    finally:
        p.close()


def test_no_provider_outlives_a_killed_tfconsole(null_provider: Path, tmp_path: Path) -> None:
    """kill -9 of the process that started a provider (from a thread that has since ended)
    kills the provider too: the parent-death signal is armed by the long-lived launcher thread."""
    script = textwrap.dedent(f"""
        import sys, threading, time
        sys.path.insert(0, {str(ROOT)!r})
        from tfconsole.providers.plugin.launcher import PluginProcess
        from tfconsole.providers.plugin.log import ProviderLog
        box = []
        t = threading.Thread(target=lambda: box.append(PluginProcess({str(null_provider)!r}, ProviderLog("n"))))
        t.start(); t.join()   # the thread that asked for the provider is gone
        print(box[0].pid, flush=True)
        time.sleep(60)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        pid = int(child.stdout.readline())
        time.sleep(0.3)
        assert _alive(pid)  # outlives the thread that asked for it
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
        assert wait_gone(pid, 10) or not _alive(pid)
    finally:
        if child.poll() is None:
            child.kill()


def test_a_provider_that_cannot_start_is_a_diagnostic(tmp_path: Path) -> None:
    bad = tmp_path / "terraform-provider-bad"
    bad.write_text("#!/bin/sh\necho 'not a plugin' >&2\nexit 3\n")
    bad.chmod(0o755)
    p = PluginProvider("registry.terraform.io/x/bad", str(bad))
    d = p.schema_diagnostics()
    assert d.has_errors and "exited before completing the handshake (exit status 3)" in d.errors()[0].detail
    assert "not a plugin" in d.errors()[0].detail
    assert p.configure({}).has_errors
    p.close()
    json.dumps([x.detail for x in d])  # plain text


# Providers are started while channels to other providers are busy: gRPC's fork handlers must
# not run in the child we fork (they left about 2 % of children failing inside gRPC before exec,
# the "epoll_wait error: Bad file descriptor" seen as a provider dying at start-up).
FORK_WHILE_BUSY = textwrap.dedent("""
    import os, threading
    from concurrent import futures
    from tfconsole.providers.plugin.launcher import _popen  # what tfconsole loads before grpc
    import grpc

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
        "t.S", {"E": grpc.unary_unary_rpc_method_handler(lambda req, ctx: req)})])
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    call = grpc.insecure_channel(f"127.0.0.1:{port}").unary_unary("/t.S/E")
    done = threading.Event()

    def busy():
        while not done.is_set():
            call(b"x")

    threading.Thread(target=busy, daemon=True).start()
    call(b"warm")
    failed = 0
    for _ in range(300):
        p = _popen(["/bin/true"], dict(os.environ), None)
        _out, err = p.communicate()
        failed += bool(p.returncode or err)
    done.set()
    print("failed", failed)
""")


def test_children_forked_while_grpc_is_busy_start_cleanly() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRPC_")}
    proc = subprocess.run([sys.executable, "-c", FORK_WHILE_BUSY], capture_output=True, text=True,
                          timeout=600, env=env)
    assert "failed 0" in proc.stdout, (proc.stdout, proc.stderr[-2000:])
