"""`console` at a terminal (a pseudo-terminal here): each entry's value is printed as it is entered,
an error does not end the session, an entry with unclosed brackets continues on the next line
(prompt ": "), and `exit` or end of input ends the session with exit status 0. Also: the console
never writes the state and releases its lock."""
from __future__ import annotations

import os
import pty
import select
import subprocess
import time
from pathlib import Path

import pytest

from tfdiff import TOOL

CONFIG = 'locals {\n  word = "value"\n}\n'


class Terminal:
    def __init__(self, cwd: Path) -> None:
        master, slave = pty.openpty()
        self.master = master
        self.proc = subprocess.Popen([TOOL, "console", "-no-color"], stdin=slave, stdout=slave, stderr=slave,
                                     cwd=cwd, close_fds=True)
        os.close(slave)
        self.seen = b""

    def expect(self, text: bytes, limit: float = 120.0) -> bytes:
        """Read until `text` appears (the limit only stops a hung test; it asserts nothing)."""
        deadline = time.monotonic() + limit
        while text not in self.seen:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{text!r} never appeared; got {self.seen!r}")
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"{text!r} never appeared before the end; got {self.seen!r}")
                self.seen += chunk
        before, _, self.seen = self.seen.partition(text)
        return before

    def send(self, line: str) -> None:
        os.write(self.master, line.encode())

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=120)
        finally:
            os.close(self.master)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "main.tf").write_text(CONFIG)
    return tmp_path


def test_console_interactive_session(workdir: Path) -> None:
    term = Terminal(workdir)
    term.expect(b"> ")
    term.send("local.word\n")
    assert b'"value"' in term.expect(b"> ")
    term.send("nosuch.thing\n")
    assert b"Reference to undeclared resource" in term.expect(b"> ")
    term.send("[\n")
    term.expect(b": ")
    term.send("1,\n")
    term.expect(b": ")
    term.send("]\n")
    out = term.expect(b"> ")
    assert b"[\r\n  1,\r\n]" in out
    term.send("exit\n")
    assert term.close() == 0


def test_console_interactive_end_of_input(workdir: Path) -> None:
    term = Terminal(workdir)
    term.expect(b"> ")
    term.send("\x04")
    assert term.close() == 0


def test_console_leaves_state_untouched_and_unlocked(workdir: Path) -> None:
    (workdir / "res.tf").write_text('resource "terraform_data" "r" {\n  input = local.word\n}\n')
    p = subprocess.run([TOOL, "apply", "-auto-approve", "-no-color"], cwd=workdir, capture_output=True, timeout=300, check=False)
    assert p.returncode == 0, p.stderr
    data = (workdir / "terraform.tfstate").read_bytes()
    p = subprocess.run([TOOL, "console"], cwd=workdir, input=b"terraform_data.r.output\n", capture_output=True,
                       timeout=300, check=False)
    assert p.returncode == 0 and p.stdout == b'"value"\n'
    assert (workdir / "terraform.tfstate").read_bytes() == data
    assert not (workdir / ".terraform.tfstate.lock.info").exists()


def test_console_holds_the_state_lock_while_it_runs(workdir: Path) -> None:
    (workdir / "res.tf").write_text('resource "terraform_data" "r" {\n  input = local.word\n}\n')
    p = subprocess.run([TOOL, "apply", "-auto-approve", "-no-color"], cwd=workdir, capture_output=True, timeout=300, check=False)
    assert p.returncode == 0, p.stderr
    first = subprocess.Popen([TOOL, "console", "-no-color"], cwd=workdir, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert first.stdin is not None
        first.stdin.write(b"1\n")
        first.stdin.flush()
        for _ in range(2400):  # a hang guard (up to ~2 min), not a timing requirement
            if (workdir / ".terraform.tfstate.lock.info").exists():
                break
            assert first.poll() is None, "the first console exited before it took the lock"
            time.sleep(0.05)
        else:
            pytest.fail("the first console never took the lock")
        second = subprocess.run([TOOL, "console", "-no-color"], cwd=workdir, input=b"1\n", capture_output=True,
                                timeout=300, check=False)
        assert second.returncode == 1 and b"Error acquiring the state lock" in second.stderr
    finally:
        out, _ = first.communicate(timeout=300)
    assert first.returncode == 0 and out == b"1\n"
    assert not (workdir / ".terraform.tfstate.lock.info").exists()
