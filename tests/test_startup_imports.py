"""Start-up cost: what a warm `init` and `plan` import, and the small replacements that keep
heavy standard modules out of them (each must give what the module it replaces gives)."""
from __future__ import annotations

import getpass
import json
import os
import platform
import socket
import stat
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tfconsole.providers.plugin.cliconfig import current_platform
from tfconsole.states import locking
from tfconsole.states.fileio import atomic_write, create_temp
from tfconsole.states.state import State, new_deposed_key, random_uuid
from tfconsole.states.statefile import _path_text, read_state_file

CONFIG = """
locals {
  base = { a = { x = 1 }, b = { y = "two" } }
  merged = { for k, v in local.base : k => merge(try(v, {}), { name = upper(k) }) }
}
resource "terraform_data" "r" {
  input = jsonencode(local.merged)
}
output "h" {
  value = sha256(jsonencode(local.merged))
}
"""

# what neither command needs on a configuration like this one (built-in providers only, no
# plan file, nothing installed): each costs 1-5 ms of every run
NOT_AT_START_UP = ("socket", "getpass", "secrets", "tempfile", "shutil", "zipfile", "bz2", "lzma", "logging",
                   "pathlib", "glob", "fnmatch", "orjson", "uuid", "platform", "inspect", "dis",
                   "tokenize", "urllib.parse", "ipaddress", "tfconsole.backends.http", "tfconsole.backends.pg",
                   "datetime")

# what a warm command (every file in the parse cache, its code unchanged) does not load: python-hcl2
# and Lark, nor what locating its grammar took
NOT_WHEN_WARM = ("importlib.util", "hcl2", "lark")

# what a plan with the local backend, built-in providers only (no lock file) and no import
# blocks does not need either
NOT_IN_A_LOCAL_PLAN = ("tfconsole.providers.plugin.lockfile", "tfconsole.providers.plugin.locate",
                       "tfconsole.providers.plugin.versions", "tfconsole.providers.plugin.cliconfig",
                       "tfconsole.plans.planfile")

# Run without `site` (-S), the module search path given explicitly: an editable install's
# `site` imports pathlib and others before tfconsole starts, a regular install's does not.
PROBE = """
import json, sys
sys.path[:0] = json.loads(sys.argv.pop(1))
from tfconsole.command.main import main
rc = main(sys.argv[1:])
print(json.dumps({"rc": rc, "modules": sorted(sys.modules)}), file=sys.stderr)
"""
ROOT = str(Path(__file__).resolve().parent.parent)


def _run(wd: Path, cache: Path, *argv: str) -> dict:
    import site

    env = dict(os.environ, XDG_CACHE_HOME=str(cache), CHECKPOINT_DISABLE="1", TF_CLI_CONFIG_FILE=os.devnull)
    paths = json.dumps([ROOT, *site.getsitepackages()])
    proc = subprocess.run([sys.executable, "-S", "-c", PROBE, paths, f"-chdir={wd}", *argv, "-no-color"],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    last = proc.stderr.strip().splitlines()[-1]
    out = json.loads(last)
    assert out["rc"] in (0, 2), proc.stdout + proc.stderr
    return out


def test_warm_init_and_plan_leave_heavy_modules_unloaded(tmp_path: Path) -> None:
    wd = tmp_path / "wd"
    wd.mkdir()
    (wd / "main.tf").write_text(CONFIG)
    cache = tmp_path / "cache"
    loaded = set(_run(wd, cache, "init")["modules"])  # parses and fills the cache: the runs below are warm
    assert not loaded & {"tempfile", "shutil"}, sorted(loaded & {"tempfile", "shutil"})  # nor the cold one
    _run(wd, cache, "apply", "-auto-approve", "-input=false")  # a state to read
    for argv in (("init",), ("plan", "-input=false")):
        loaded = set(_run(wd, cache, *argv)["modules"])
        assert not loaded & set(NOT_AT_START_UP), (argv, sorted(loaded & set(NOT_AT_START_UP)))
        assert not loaded & set(NOT_WHEN_WARM), (argv, sorted(loaded & set(NOT_WHEN_WARM)))
        # nor does the plan's sha256(): CPython's own SHA-256, not OpenSSL's
        assert not loaded & {"hashlib", "_hashlib"}, (argv, sorted(loaded & {"hashlib", "_hashlib"}))
    assert not loaded & set(NOT_IN_A_LOCAL_PLAN), sorted(loaded & set(NOT_IN_A_LOCAL_PLAN))
    assert (wd / "main.tf").exists() and not (wd / ".terraform.tfstate.lock.info").exists()  # the lock was released


def test_lock_holder_is_getpass_user_at_socket_host() -> None:
    try:
        user = getpass.getuser()
    except Exception:  # noqa: BLE001 - as _who: no user name is ""
        user = ""
    assert locking._who() == f"{user}@{socket.gethostname()}"


def test_lock_holder_user_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for k in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("USER", "someone")
    assert locking._who().startswith("someone@")
    assert locking._who().split("@")[0] == getpass.getuser()
    monkeypatch.setenv("LOGNAME", "first")
    assert locking._who().split("@")[0] == getpass.getuser() == "first"


def test_lock_id_is_uuid_shaped() -> None:
    ids = {locking._go_uuid() for _ in range(200)}
    assert len(ids) == 200
    for i in ids:
        assert str(uuid.UUID(i)) == i


def test_random_uuid_is_version_4() -> None:
    seen = set()
    for _ in range(500):
        s = random_uuid()
        u = uuid.UUID(s)
        assert (u.version, u.variant, str(u)) == (4, uuid.RFC_4122, s)
        seen.add(s)
    assert len(seen) == 500
    for raw in (bytes(16), b"\xff" * 16, bytes(range(16))):
        assert random_uuid(raw) == str(uuid.UUID(bytes=raw, version=4))
    assert State().lineage != State().lineage
    uuid.UUID(State().lineage)
    k = new_deposed_key()
    assert len(k) == 8 and int(k, 16) >= 0


def test_current_platform_matches_platform_module() -> None:
    arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine().lower(), platform.machine().lower())
    osname, _, got_arch = current_platform().partition("_")
    assert osname == platform.system().lower()
    if arch in ("amd64", "arm64"):
        assert got_arch == arch


def test_create_temp_is_private_exclusive_and_distinct(tmp_path: Path) -> None:
    fd1, p1 = create_temp(str(tmp_path), ".x.", ".tmp")
    fd2, p2 = create_temp(str(tmp_path), ".x.", ".tmp")
    try:
        assert p1 != p2 and os.path.dirname(p1) == str(tmp_path)
        assert os.path.basename(p1).startswith(".x.") and p1.endswith(".tmp")
        assert stat.S_IMODE(os.fstat(fd1).st_mode) == 0o600
        assert not os.get_inheritable(fd1)
        os.write(fd1, b"data")
    finally:
        os.close(fd1)
        os.close(fd2)
    assert Path(p1).read_bytes() == b"data"
    # atomic_write through it: content replaced whole, the file private, no temporary left
    target = tmp_path / "state.json"
    atomic_write(str(target), b"one")
    atomic_write(str(target), b"two")
    assert target.read_bytes() == b"two" and stat.S_IMODE(target.stat().st_mode) == 0o600
    assert sorted(x.name for x in tmp_path.iterdir() if x.name.startswith(".state.json.")) == []


def test_create_temp_does_not_follow_a_planted_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    names = iter([b"\x00" * 6, b"\x01" * 6])
    (tmp_path / (".x." + (b"\x00" * 6).hex() + ".tmp")).symlink_to(victim)
    monkeypatch.setattr(os, "urandom", lambda n: next(names))
    fd, p = create_temp(str(tmp_path), ".x.", ".tmp")  # the planted name exists: the next one is used
    os.close(fd)
    assert p.endswith((b"\x01" * 6).hex() + ".tmp") and victim.read_text() == "keep"


def test_graph_steps_logged_at_debug_when_logging_is_configured(tmp_path: Path) -> None:
    """The builder imports no `logging`, yet a program that configures it still gets the graph
    after every transform at debug level (and nothing when it does not ask for debug)."""
    probe = """
import logging, sys
level = logging.DEBUG if sys.argv[1] == "debug" else logging.INFO
logging.basicConfig(level=level, stream=sys.stderr, format="LOG %(name)s %(message)s")
from tfconsole.command.main import main
sys.exit(main(sys.argv[2:]))
"""
    wd = tmp_path / "wd"
    wd.mkdir()
    (wd / "main.tf").write_text('resource "terraform_data" "a" {}\n')
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), TF_CLI_CONFIG_FILE=os.devnull)
    outs = {}
    for level in ("debug", "info"):
        p = subprocess.run([sys.executable, "-c", probe, level, f"-chdir={wd}", "plan", "-input=false", "-no-color"],
                           capture_output=True, text=True, env=env, timeout=300, check=False)
        assert p.returncode == 0, p.stdout + p.stderr
        outs[level] = p.stderr
    assert "LOG tfconsole.graph plan graph after" in outs["debug"]
    assert "terraform_data.a" in outs["debug"]
    assert "graph after" not in outs["info"]


@pytest.mark.parametrize("text", ["terraform.tfstate", "/abs/dir/x.tfstate", "rel/dir/x", "../up/x", "a/../b", ".hidden",
                                  "./x", "a//b", "a/./b", "a/", "a/.", ".", "//net/x", "///x", "x/..", "..", "a b/c"])
def test_state_path_text_is_what_pathlib_prints(text: str) -> None:
    assert _path_text(text) == str(Path(text))
    assert _path_text(Path(text)) == str(Path(text))


def test_read_state_file_takes_any_text_as_a_path(tmp_path: Path) -> None:
    odd = tmp_path / "{not json"
    assert read_state_file(str(odd)) == (None, read_state_file(str(odd))[1]) and not read_state_file(str(odd))[1]
    odd.write_text("")
    state, diags = read_state_file(str(odd))
    assert state is None and not diags.has_errors


def test_stale_temporaries_are_removed_and_nothing_else(tmp_path: Path) -> None:
    from tfconsole.states.manager import remove_stale_temps

    target = tmp_path / "terraform.tfstate"
    keep = [".terraform.tfstate.tmp", "terraform.tfstate.x.tmp", ".terraform.tfstate.x.tmpx", "other.tmp",
            ".terraform.tfstatex.tmp"]
    gone = [".terraform.tfstate.abc.tmp", ".terraform.tfstate..tmp"]
    for n in keep + gone:
        (tmp_path / n).write_text("x")
    remove_stale_temps(str(target))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(keep)


def test_graph_debug_log_while_another_thread_imports_logging(monkeypatch: pytest.MonkeyPatch) -> None:
    """`logging` may be in sys.modules half-executed (a provider plugin's client imports it on a
    walker thread while another thread builds a graph): the builder then logs nothing instead of
    failing with "partially initialized module 'logging' has no attribute 'getLogger'"."""
    import types
    from importlib.machinery import ModuleSpec

    from tfconsole.graph import builder

    half = types.ModuleType("logging")
    half.__spec__ = ModuleSpec("logging", None)
    half.__spec__._initializing = True  # type: ignore[attr-defined] - as the import machinery marks it
    monkeypatch.setitem(sys.modules, "logging", half)
    assert builder._debug_log() is None
    half.__spec__._initializing = False  # type: ignore[attr-defined] - names still missing
    assert builder._debug_log() is None


def test_preflight_names_the_lock_file_as_the_lock_file_module_does() -> None:
    from tfconsole.providers import preflight
    from tfconsole.providers.plugin import lockfile

    assert preflight.LOCK_FILE == lockfile.LOCK_FILE


def test_dataclasses_work_with_inspect_imported_on_first_use() -> None:
    """tfconsole imports dataclasses without inspect (a stand-in while it imports): a standard
    dataclass without a docstring still gets its signature as one, which loads the real inspect;
    anything importing inspect gets the real module."""
    probe = """
import sys, types
import tfconsole
import dataclasses
assert "inspect" not in sys.modules, "inspect loaded with tfconsole"

@dataclasses.dataclass
class Plain:
    x: int
    y: str = "a"

import inspect
assert type(inspect) is types.ModuleType and sys.modules["inspect"] is inspect
assert inspect.signature(Plain) is not None and dataclasses.inspect is inspect
print(Plain.__doc__)
"""
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Plain(x: int, y: str = 'a')"


def test_backends_loaded_on_demand_are_there_when_asked_for() -> None:
    """http and pg register when first asked for: by type, in the list of types, by schema."""
    probe = """
import sys
from tfconsole import backends
assert "tfconsole.backends.http" not in sys.modules and "tfconsole.backends.pg" not in sys.modules
assert "nosuch" not in backends.BACKENDS and backends.BACKEND_SCHEMAS.get("nosuch") is None
assert "http" in backends.BACKENDS and "tfconsole.backends.http" in sys.modules
assert "address" in backends.BACKEND_SCHEMAS["http"]
assert backends.BACKEND_SCHEMAS.get("pg") and "tfconsole.backends.pg" in sys.modules
print(sorted(backends.BACKENDS))
"""
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['http', 'local', 'pg']"


def test_a_command_without_plugins_starts_no_thread(tmp_path: Path) -> None:
    """Built-in providers only: no worker pool for the walk (its vertices only compute) and no
    thread at exit to shut plugins down (there are none)."""
    (tmp_path / "main.tf").write_text(CONFIG)
    probe = """
import atexit, json, sys, threading
started = []
real = threading.Thread.start
def start(self):
    started.append(self.name)
    return real(self)
threading.Thread.start = start
atexit.register(lambda: print(json.dumps(started), file=sys.stderr))  # runs after tfconsole's own
from tfconsole.command.main import main
main(sys.argv[1:])
"""
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), CHECKPOINT_DISABLE="1", TF_CLI_CONFIG_FILE=os.devnull)
    for argv in (["init"], ["plan", "-input=false"]):
        p = subprocess.run([sys.executable, "-c", probe, f"-chdir={tmp_path}", *argv, "-no-color"],
                           capture_output=True, text=True, env=env, timeout=300, check=False)
        assert p.returncode == 0, p.stderr
        assert json.loads(p.stderr.strip().splitlines()[-1]) == [], (argv, p.stderr[-500:])
