"""What the console sees of a provider plugin through the hooks: its state changes and its log
lines, each attributed to the resource whose call produced it."""
from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from plugin_support import make_workspace

from tfconsole.core import Context, Options
from tfconsole.states.state import State
from tfconsole.walk.hooks import Hook


class Recorder(Hook):
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.status: list[tuple[str, str]] = []
        self.lines: list[tuple[str, str | None, str, str]] = []

    def provider_status(self, provider: str, status: str) -> None:
        with self.lock:
            self.status.append((provider, status))

    def provider_log(self, provider: str, resource: str | None, level: str, message: str) -> None:
        with self.lock:
            self.lines.append((provider, resource, level, message))


def test_provider_status_and_log_reach_the_hooks(tmp_path: Path, tfcheck_provider: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    ws = make_workspace(tmp_path, tfcheck=tfcheck_provider)
    ws.write("""
terraform {
  required_providers {
    tfcheck = { source = "tfconsole/tfcheck" }
  }
}
resource "tfcheck_thing" "one" {
  name = "one"
}
resource "tfcheck_thing" "two" {
  name = "two-${tfcheck_thing.one.id}"
}
""")
    for k, v in ws.env().items():
        monkeypatch.setenv(k, v)
    rec = Recorder()
    ctx = Context(Options(working_dir=str(ws.dir)), hooks=[rec])
    try:
        assert not ctx.load_config().has_errors
        plan, d = ctx.plan(State())
        assert not d.has_errors, [x.detail for x in d]
        from tfconsole.backends import backend_for

        mgr = backend_for(ctx).state_manager(lock=True, operation="OperationTypeApply")
        assert not mgr.lock().has_errors
        try:
            mgr.load()
            _, d = ctx.apply(plan, mgr)
        finally:
            mgr.unlock()
        assert not d.has_errors, [x.detail for x in d]
    finally:
        ctx.close()
    name = 'provider["registry.terraform.io/tfconsole/tfcheck"]'
    assert (name, "started") in rec.status and (name, "configured") in rec.status
    created = {(r, m) for p, r, level, m in rec.lines if p == name and m.startswith("creating")}
    assert ("tfcheck_thing.one", "creating one") in created
    assert any(r == "tfcheck_thing.two" and m.startswith("creating two-") for r, m in created), rec.lines
    json.dumps(rec.lines)
