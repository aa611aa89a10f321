"""End-to-end: the console in a real terminal (tmux), driven by keystrokes.

tmux is a test dependency (.ci/run installs it): without it these tests fail, they never skip.
"""
from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from test_tui_helpers import state_addresses



@pytest.fixture(autouse=True)
def _tmux_is_installed() -> None:
    assert shutil.which("tmux"), "tmux is a test dependency: install it (e.g. apt-get install tmux)"

CONFIG = """\
resource "terraform_data" "net" {
  input = "10.0.0.0/16"
}

resource "terraform_data" "subnet" {
  count = 3
  input = "${terraform_data.net.output}-${count.index}"
}

resource "terraform_data" "app" {
  for_each = toset(["api", "web"])
  input    = each.key
}
"""

EXPECTED = {"terraform_data.net", "terraform_data.subnet[0]", "terraform_data.subnet[1]",
            "terraform_data.subnet[2]", 'terraform_data.app["api"]', 'terraform_data.app["web"]'}


class Tmux:
    def __init__(self, session: str) -> None:
        self.session = session

    def run(self, *args: str) -> str:
        return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout

    def send(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.session, *keys)

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.session)

    def wait_for(self, text: str, timeout: float = 600.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} did not appear; screen:\n{screen}")


def test_plan_apply_state_quit_in_tmux(tmp_path: Path) -> None:
    d = tmp_path / "infra"
    d.mkdir()
    (d / "main.tf").write_text(CONFIG)
    rc_file = tmp_path / "rc"
    session = f"tfconsole-{uuid.uuid4().hex[:8]}"
    cmd = (f"{shlex.quote(sys.executable)} -m tfconsole -chdir={shlex.quote(str(d))} ui; "
           f"echo $? > {shlex.quote(str(rc_file))}")
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "120", "-y", "40", "sh", "-c", cmd],
                   check=True)
    t = Tmux(session)
    try:
        t.wait_for("Press p to plan")
        t.send("p")
        screen = t.wait_for("Plan:")
        assert "Plan: 6 to add, 0 to change, 0 to destroy." in screen
        t.send("a")
        t.wait_for("Apply the reviewed plan?")
        t.send("y")
        screen = t.wait_for("Apply complete!")
        assert "Apply complete! Resources: 6 added, 0 changed, 0 destroyed." in screen
        t.send("s")
        screen = t.wait_for("terraform_data.subnet")
        assert "State" in screen
        t.send("q")
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and not rc_file.exists():
            time.sleep(0.1)
        assert rc_file.read_text().strip() == "0"
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    assert state_addresses(d) == EXPECTED
    assert not (d / ".terraform.tfstate.lock.info").exists()
