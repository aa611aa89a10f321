"""Third-party providers load through the `tfconsole.providers` entry-point group."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tfconsole.providers.interface import ApplyRequest, PlanRequest
from tfconsole.providers.registry import Registry

PLUGIN = Path(__file__).parent / "plugin_example"


def _forget_plugin_modules() -> None:
    for name in list(sys.modules):
        if name.startswith("tfconsole_provider_example"):
            del sys.modules[name]


@pytest.fixture
def clean_modules():
    _forget_plugin_modules()
    yield
    _forget_plugin_modules()


def _exercise(reg: Registry) -> None:
    assert reg.has("example/example")
    assert "registry.terraform.io/example/example" in reg.sources()
    p = reg.create("example/example")
    assert type(p).__name__ == "ExampleProvider"
    assert "example_thing" in p.resource_schemas()
    cfg = {"name": "widget", "size": 3}
    plan = p.plan_resource(PlanRequest("example_thing", None, {**cfg, "id": None, "label": None}, cfg))
    st = p.apply_resource(ApplyRequest("example_thing", None, plan.planned, cfg)).new_state
    assert st["label"] == "widget-3" and st["id"]
    rep = p.plan_resource(PlanRequest("example_thing", st, {**st, "name": "other"}, {"name": "other", "size": 3}))
    assert rep.requires_replace == [("name",)]


def test_entry_point_from_dist_info(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_modules) -> None:
    """A dist-info with entry_points.txt on sys.path (what an installed wheel leaves behind)."""
    site = tmp_path / "site"
    shutil.copytree(PLUGIN / "src" / "tfconsole_provider_example", site / "tfconsole_provider_example")
    info = site / "tfconsole_provider_example-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tfconsole-provider-example\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text(
        "[tfconsole.providers]\nexample/example = tfconsole_provider_example:ExampleProvider\n")
    assert not Registry().has("example/example")  # not visible before it is on the path
    monkeypatch.syspath_prepend(str(site))
    _exercise(Registry())


def test_broken_plugin_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    info = site / "broken_plugin-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[tfconsole.providers]\nbroken/broken = no_such_module_xyz:Nope\n")
    monkeypatch.syspath_prepend(str(site))
    reg = Registry()
    assert not reg.has("broken/broken")


def test_pip_installed_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_modules) -> None:
    """Build and install the example package with pip (no network: no build isolation, no deps)."""
    target = tmp_path / "target"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
         "--target", str(target), str(PLUGIN)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path)
    # setuptools and wheel are test dependencies (pyproject's test extra): without them this fails
    assert proc.returncode == 0, proc.stderr
    assert list(target.glob("tfconsole_provider_example-*.dist-info/entry_points.txt"))
    monkeypatch.syspath_prepend(str(target))
    _exercise(Registry())
