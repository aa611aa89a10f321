"""Which vertices a real plan runs on the walking thread (pure evaluation) and which on worker
threads (anything that may wait: provisioners, data sources, other providers)."""
from __future__ import annotations

import threading
from pathlib import Path

from tfconsole.core import Context, Options
from tfconsole.states.state import State
from tfconsole.walk.hooks import Hook

CONFIG = """
locals {
  n = 2
}
resource "terraform_data" "pure" {
  count = local.n
  input = "x${count.index}"
}
resource "terraform_data" "with_provisioner" {
  input = terraform_data.pure[0].output
  provisioner "local-exec" {
    command = "true"
  }
}
resource "random_id" "other_provider" {
  byte_length = 2
}
output "o" {
  value = terraform_data.pure[*].input
}
"""


class Threads(Hook):
    def __init__(self) -> None:
        self.on: dict[str, str] = {}

    def vertex_started(self, name: str) -> None:
        self.on[name] = threading.current_thread().name


def test_pure_vertices_run_inline_and_waiting_ones_on_workers(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(CONFIG)
    rec = Threads()
    ctx = Context(Options(working_dir=str(tmp_path), parallelism=4), hooks=[rec])
    try:
        assert not ctx.load_config().has_errors
        _plan, d = ctx.plan(State())
        assert not d.has_errors, [x.detail for x in d]
    finally:
        ctx.close()
    here = threading.current_thread().name
    inline = {n for n, t in rec.on.items() if t == here}
    pooled = {n for n, t in rec.on.items() if t != here}
    assert {"terraform_data.pure[0]", "terraform_data.pure[1]", "local.n", "output.o"} <= inline, rec.on
    assert "terraform_data.with_provisioner" in pooled, rec.on
    assert "random_id.other_provider" in pooled, rec.on
