"""The CLI as a program: what its process does around a command (not what the command does)."""
from __future__ import annotations

import gc
import sys

import pytest

from tfconsole.command import main as cli_main


def test_the_program_freezes_its_heap_before_exit_and_an_in_process_caller_does_not(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    frozen: list[int] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(gc.get_count()[0]))
    monkeypatch.setattr(sys, "argv", ["tfconsole", "version"])
    assert cli_main.main() == 0          # as the console script calls it
    assert len(frozen) == 1
    assert cli_main.main(["version"]) == 0  # as a test or an embedding program calls it
    assert len(frozen) == 1
    assert capsys.readouterr().out.count("Terraform v1.15") == 2  # both ran the command itself


def test_the_program_freezes_what_it_loaded_before_a_walk(monkeypatch: pytest.MonkeyPatch, tmp_path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {\n  input = "x"\n}\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    frozen: list[bool] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    paused: list[bool] = []
    monkeypatch.setattr(gc, "disable", lambda: paused.append(True))
    monkeypatch.setattr(gc, "enable", lambda: paused.append(False))
    assert cli_main.main(["plan", "-input=false"]) == 0
    assert frozen == [] and paused == []  # a caller of main() keeps its collector
    monkeypatch.setattr(sys, "argv", ["tfconsole", "plan", "-input=false"])
    assert cli_main.main() == 0
    assert len(frozen) == 3               # before and after the plan's walk, and at exit
    assert paused == [True, False]        # collection paused for the walk, then on again
    assert capsys.readouterr().out.count("1 to add, 0 to change, 0 to destroy") == 2


def test_a_plan_loads_no_library_its_configuration_does_not_use(tmp_path) -> None:
    """YAML, the regex engines, gmpy2 (and the importlib.metadata it loads) and the utility
    providers' modules load when a configuration uses them, not on every command (each costs
    every command 10-30 ms of start-up)."""
    import json
    import subprocess

    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {\n  input = upper("x")\n}\n')
    probe = ("import json, sys\nfrom tfconsole.command.main import main\n"
             "rc = main(['plan', '-input=false', '-no-color'])\n"
             "print(json.dumps([rc, sorted(sys.modules)]))\n")
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TF_CLI_CONFIG_FILE": "",
                              "XDG_CACHE_HOME": str(tmp_path / "cache")}, timeout=120)
    rc, modules = json.loads(out.stdout.strip().splitlines()[-1])
    assert rc == 0, out.stderr
    assert "tfconsole.providers.builtin.terraform" in modules  # the probe did plan
    unused = {"yaml", "regex", "re2", "gmpy2", "importlib.metadata", "tfconsole.providers.builtin.random",
              "tfconsole.providers.builtin.http", "tfconsole.providers.builtin.external"}
    assert unused.isdisjoint(modules), sorted(unused & set(modules))


def test_lazily_loaded_functions_and_providers_still_work() -> None:
    from tfconsole.lang.funcs import call_function
    from tfconsole.providers.registry import default_registry

    assert call_function("yamldecode", ["a: [1, x]"]) == {"a": [1, "x"]}
    assert call_function("yamlencode", [{"a": "b"}]) == "\"a\": \"b\"\n"
    assert call_function("regex", ["[a-z]+", "12abc3"]) == "abc"
    assert call_function("length", ["e\u0301x"]) == 2  # grapheme clusters, through the regex module
    from tfconsole.lang import numbers as N

    assert str(call_function("pow", [2, N.parse("0.5")])) == "1.4142135623730951"  # gmpy2's fma
    assert str(N.POS_INF) == "+Inf" and N.parse("-inf") is N.NEG_INF and str(N.div(1, 0)) == "+Inf"

    reg = default_registry()
    assert reg.has("registry.terraform.io/hashicorp/random")
    assert type(reg.create("registry.terraform.io/hashicorp/random")).__name__ == "RandomProvider"
    assert not reg.has("registry.terraform.io/example/nothing-by-this-name")


class _Recording:
    """A stream that records what reached it by each flush."""

    def __init__(self) -> None:
        import threading

        self.buffer: list[str] = []
        self.flushed: list[str] = []
        self.flush_seen = threading.Event()

    def write(self, s: str) -> int:
        self.buffer.append(s)
        return len(s)

    def flush(self) -> None:
        self.flushed.extend(self.buffer)
        self.buffer.clear()
        self.flush_seen.set()


def test_progress_lines_are_flushed_together_soon_after_they_are_written() -> None:
    from tfconsole.command.cliview import CLIHook

    stream = _Recording()
    hook = CLIHook(lambda s: None, stream)
    for i in range(200):
        hook.pre_refresh(f"terraform_data.a[{i}]", f"id-{i}")
    assert stream.flushed == []  # no flush per line
    assert stream.flush_seen.wait(30)  # one flush, shortly after
    assert "".join(stream.flushed) == "".join(f"terraform_data.a[{i}]: Refreshing state... [id=id-{i}]\n"
                                              for i in range(200))


def test_progress_lines_of_many_threads_all_come_out_before_what_the_cli_prints_next() -> None:
    """Worker threads only queue their lines; anything the CLI writes afterwards (the plan, a
    diagnostic, an interrupt message on stdout) comes after every line queued before it."""
    import io
    import threading

    from tfconsole.command.main import CLI

    out = io.StringIO()
    cli = CLI(out, io.StringIO())
    hook = cli._progress_hook()

    def work(t: int) -> None:
        for i in range(300):
            hook.pre_refresh(f"terraform_data.t{t}[{i}]", None)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    cli.out("Plan: 0 to add")
    cli.interrupts.say = cli.interrupts._write_human
    hook.pre_refresh("terraform_data.last", None)
    cli.interrupts._say("Stopping operation...", "stopping")
    lines = out.getvalue().splitlines()
    assert len(lines) == 8 * 300 + 3
    assert lines[8 * 300:] == ["Plan: 0 to add", "terraform_data.last: Refreshing state...", "Stopping operation..."]
    for t in range(8):  # each thread's lines in the order it wrote them
        mine = [ln for ln in lines if ln.startswith(f"terraform_data.t{t}[")]
        assert mine == [f"terraform_data.t{t}[{i}]: Refreshing state..." for i in range(300)]


def test_an_interrupt_message_follows_the_progress_lines_already_written() -> None:
    import io

    from tfconsole.command.signals import Interrupts

    out, err = _Recording(), io.StringIO()
    out.write("terraform_data.a: Creating...\n")
    Interrupts(err, out)._say("Interrupt received.", "interrupted")
    assert out.flushed == ["terraform_data.a: Creating...\n"] and err.getvalue() == "Interrupt received."
