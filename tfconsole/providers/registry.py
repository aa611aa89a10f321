"""Maps provider source addresses to provider implementations.

Built-ins register in providers/builtin/__init__.py (BUILTINS); third-party providers register
through the `tfconsole.providers` entry-point group, each entry point loading a Provider
subclass whose `source` names its address.
"""
from __future__ import annotations

from typing import Callable

from .interface import Provider

DEFAULT_REGISTRY = "registry.terraform.io"


def normalize_source(source: str) -> str:
    """hashicorp/random -> registry.terraform.io/hashicorp/random; terraform -> builtin."""
    s = source.strip().lower()
    if s in ("terraform", "terraform.io/builtin/terraform", "builtin/terraform"):
        return "terraform.io/builtin/terraform"
    parts = s.split("/")
    if len(parts) == 1:
        return f"{DEFAULT_REGISTRY}/hashicorp/{parts[0]}"
    if len(parts) == 2:
        return f"{DEFAULT_REGISTRY}/{parts[0]}/{parts[1]}"
    return s


class Registry:
    def __init__(self) -> None:
        self._factories: dict[str, Callable[[], Provider]] = {}
        self._loaded_entry_points = False

    def register(self, source: str, factory: Callable[[], Provider]) -> None:
        self._factories[normalize_source(source)] = factory

    def _load_entry_points(self) -> None:
        if self._loaded_entry_points:
            return
        self._loaded_entry_points = True
        from importlib.metadata import entry_points

        for ep in entry_points(group="tfconsole.providers"):
            try:
                cls = ep.load()
            except Exception:  # noqa: BLE001 - a broken plugin is reported when it is needed
                continue
            source = getattr(cls, "source", "") or ep.name
            self._factories.setdefault(normalize_source(source), cls)

    def has(self, source: str) -> bool:
        self._load_entry_points()
        return normalize_source(source) in self._factories

    def create(self, source: str) -> Provider:
        self._load_entry_points()
        return self._factories[normalize_source(source)]()

    def sources(self) -> list[str]:
        self._load_entry_points()
        return sorted(self._factories)


_REGISTRY: Registry | None = None


def default_registry() -> Registry:
    global _REGISTRY
    if _REGISTRY is None:
        reg = Registry()
        from .builtin import BUILTINS

        for source, factory in BUILTINS.items():
            reg.register(source, factory)
        _REGISTRY = reg
    return _REGISTRY
