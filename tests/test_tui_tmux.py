"""End-to-end: the console in a real terminal (tmux), driven by keystrokes.

tmux is a test dependency (.ci/run installs it): without it these tests fail, they never skip.
"""
from __future__ import annotations

import re
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

    def wait_for(self, *texts: str, timeout: float = 600.0) -> str:
        """The first screen that shows every one of texts (a live screen catches up in steps:
        statuses repaint at once, a growing graph is laid out again at most once a second)."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if all(text in screen for text in texts):
                return screen
            time.sleep(0.1)
        missing = [text for text in texts if text not in screen]
        raise AssertionError(f"{missing!r} did not appear; screen:\n{screen}")


def test_plan_apply_state_quit_in_tmux(tmp_path: Path) -> None:
    d = tmp_path / "infra"
    d.mkdir()
    (d / "main.tf").write_text(CONFIG)
    t, rc_file = _start(tmp_path, d)
    try:
        screen = t.wait_for("Plan:")  # tfconsole ui plans on open
        assert "Plan: 6 to add, 0 to change, 0 to destroy." in screen
        t.send("a")
        t.wait_for("Apply the reviewed plan?")
        t.send("y")
        screen = t.wait_for("Apply complete!")
        assert "Apply complete! Resources: 6 added, 0 changed, 0 destroyed." in screen
        t.send("s")
        screen = t.wait_for("terraform_data.subnet")
        assert "State" in screen
        _quit(t, rc_file)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", t.session], capture_output=True)
    assert state_addresses(d) == EXPECTED
    assert not (d / ".terraform.tfstate.lock.info").exists()


def _start(tmp_path: Path, d: Path, args: str = "", size: tuple[int, int] = (160, 48)) -> tuple[Tmux, Path]:
    rc_file = tmp_path / "rc"
    session = f"tfconsole-{uuid.uuid4().hex[:8]}"
    # (pytest may export COLUMNS/LINES, which Textual would take over the terminal's own size)
    cmd = (f"unset COLUMNS LINES; {shlex.quote(sys.executable)} -m tfconsole -chdir={shlex.quote(str(d))} ui {args}; "
           f"echo $? > {shlex.quote(str(rc_file))}")
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", str(size[0]), "-y", str(size[1]),
                    "sh", "-c", cmd],
                   check=True)
    return Tmux(session), rc_file


def _wait_re(t: Tmux, pattern: str, timeout: float = 120.0) -> str:
    """The first screen where pattern matches (a row's status word, whatever its number)."""
    rx = re.compile(pattern)
    deadline = time.monotonic() + timeout
    while not rx.search(screen := t.screen()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert rx.search(screen), screen
    return screen


def _type_yes(t: Tmux) -> None:
    """Type yes into the confirmation; keys that arrive before its input has focus (a loaded
    machine) are lost, so while the input still shows empty, type again."""
    for _ in range(20):
        t.send("y", "e", "s", "Enter")
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if "Enter a value" not in t.screen():
                return
            time.sleep(0.1)
    raise AssertionError("the confirmation never took the typed yes")


def _quit(t: Tmux, rc_file: Path) -> None:
    t.send("q")
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and not rc_file.exists():
        time.sleep(0.1)
    assert rc_file.read_text().strip() == "0"


SLEEPS = """resource "time_sleep" "long" {
  create_duration = "8s"
}
resource "terraform_data" "after_long" {
  input = time_sleep.long.id
}
resource "terraform_data" "quick" {
  count = 12
  input = "q-${count.index}"
}
"""


def test_live_graph_during_and_after_apply_in_tmux(tmp_path: Path) -> None:
    """Issue 10 item 2: during an apply g shows the walk's graph with live status words, in
    dependency layers; after it, the critical path."""
    d = tmp_path / "infra"
    d.mkdir()
    (d / "main.tf").write_text(SLEEPS)
    t, rc_file = _start(tmp_path, d)
    try:
        t.wait_for("Plan:")
        t.send("a")
        t.wait_for("Apply the reviewed plan?")
        t.send("y")
        t.send("g")
        # "waiting on" names only what is still pending (the provider is done by then)
        screen = t.wait_for("terraform_data.after_long (create)  waiting on time_sleep.long",
                            "time_sleep.long (create)  running", "── depth 1", "live",
                            "terraform_data.quick[10] (create)")
        # natural order: quick[10] after quick[9]
        assert screen.index("terraform_data.quick[9] (create)") < screen.index("terraform_data.quick[10] (create)")
        t.wait_for("Critical path")
        screen = t.wait_for("★ time_sleep.long (create)  done")
        assert "★ terraform_data.after_long (create)" in screen
        _quit(t, rc_file)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", t.session], capture_output=True)


SHARDS = """variable "shards" {
  type    = number
  default = 3
}
resource "terraform_data" "shard" {
  count = var.shards
  input = "shard ${count.index}"
}
resource "terraform_data" "keep" {}
"""


def test_orphans_with_var_and_destroy_marked_in_tmux(tmp_path: Path) -> None:
    """Issue 10 item 3: `ui -var` reaches the orphans view without a tfvars file, the orphans
    come from the state (no plan needed), and D destroys exactly the marked one."""
    d = tmp_path / "infra"
    d.mkdir()
    (d / "main.tf").write_text(SHARDS)
    subprocess.run([sys.executable, "-m", "tfconsole", f"-chdir={d}", "apply", "-auto-approve"], check=True,
                   capture_output=True)
    t, rc_file = _start(tmp_path, d, "-var shards=1")
    try:
        t.wait_for("Plan:")
        t.send("o")
        screen = t.wait_for("terraform_data.shard[2]")
        assert "terraform_data.shard[1]" in screen and "count index" in screen
        assert "terraform_data.keep" not in screen.split("Orphans", 1)[1].split("╰", 1)[0]
        t.send("j")
        t.send("Space")
        t.send("D")
        screen = t.wait_for("Enter a value")  # the typed confirmation's empty input
        assert "Destroy all remote objects" not in screen and "Targets: terraform_data.shard[2]" in screen
        _type_yes(t)
        t.wait_for("Apply complete! Resources: 0 added, 0 changed, 1 destroyed.")
        _quit(t, rc_file)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", t.session], capture_output=True)
    assert state_addresses(d) == {"terraform_data.shard[0]", "terraform_data.shard[1]", "terraform_data.keep"}


def test_review_terraform_plan_read_only_at_80x24_in_tmux(tmp_path: Path) -> None:
    """`tfconsole ui -plan=FILE` on the JSON of a plan real Terraform made: reviewed read-only
    at 80x24 (apply refused, secrets hidden); a bad file gets a message, not a traceback."""
    from test_tui_review import AFTER, BEFORE, SECRETS
    from tfrun import terraform, tf_env

    d = tmp_path / "infra"
    d.mkdir()
    tf_env(str(tmp_path))
    for config, args in ((BEFORE, ["apply", "-auto-approve", "-input=false"]),
                         (AFTER, ["plan", "-out=p.tfplan", "-input=false"])):
        (d / "main.tf").write_text(config)
        code, _out, err = terraform(args, str(d))
        assert code == 0, err
    code, js, err = terraform(["show", "-json", "p.tfplan"], str(d))
    assert code == 0, err
    (d / "p.json").write_text(js)
    (d / "bad.json").write_bytes(b"\x80\x04K\x01.")
    state = (d / "terraform.tfstate").read_bytes()
    t, rc_file = _start(tmp_path, d, "-plan=p.json", size=(80, 24))
    try:
        screen = t.wait_for("read-only", "Plan: 1 to import, 2 to add, 2 to change, 2 to destroy.")
        assert "p.json" in screen.splitlines()[0]  # the header names what was opened
        assert "terraform_data.gone" in screen and "import" in screen
        t.send("a")
        screen = t.wait_for("does not apply it")
        assert "Apply the reviewed plan?" not in screen
        for key in ("j", "j", "j", "j", "j"):  # walk the rows: the detail pane shows each change
            t.send(key)
            screen = t.screen()
            assert not any(s in screen for s in SECRETS), screen
        t.send(":")
        t.wait_for("plan | apply | destroy")  # the command line has the keys now (not the views)
        t.send("open bad.json", "Enter")
        screen = t.wait_for("Cannot open the plan")
        assert "Traceback" not in screen
        _quit(t, rc_file)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", t.session], capture_output=True)
    assert (d / "terraform.tfstate").read_bytes() == state


def test_apply_at_80x24_in_tmux(tmp_path: Path) -> None:
    """Issue 10 item 16: at 80x24 the header keeps the directory and workspace, the empty
    diagnostics pane takes no rows, and rows keep their status words during and after an apply."""
    d = tmp_path / "infra"
    d.mkdir()
    (d / "main.tf").write_text(SLEEPS)
    t, rc_file = _start(tmp_path, d, size=(80, 24))
    try:
        screen = t.wait_for("Plan:")
        assert "Diagnostics" not in screen  # nothing to show: no empty pane
        assert "infra · workspace default" in screen.splitlines()[0]
        t.send("a")
        t.wait_for("Apply the reviewed plan?")
        t.send("y")
        t.wait_for("apply…")
        # something runs (the header counts it, in whichever of its forms fits 80 columns):
        # then `>` has a running instance to bring into view
        _wait_re(t, r"(, |▶)[1-9]\d*/\d+|\b[1-9]\d* running")
        t.send(">")  # the next running instance: into view
        # the row is narrower than its label and status: the label gives way ("time_sleep.…")
        screen = _wait_re(t, r"\+ time_sleep\.\S*  running \d")
        assert re.search(r"infra · (ws|workspace) default$", screen.splitlines()[0].rstrip()), screen
        t.wait_for("Apply complete!")
        # (the summary can be painted a moment before the row's final status)
        screen = _wait_re(t, r"\+ time_sleep\.long  done \d+\.\ds")
        assert all(len(line) <= 80 for line in screen.splitlines())
        _quit(t, rc_file)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", t.session], capture_output=True)
