"""Built-in copies of the hashicorp utility providers, registered by source address.

`BUILTINS` (providers/builtin/__init__.py) merges this map. Each factory takes an optional
`base_dir` (the working directory relative paths resolve against), like TerraformProvider.
"""
from __future__ import annotations

from importlib import import_module
from typing import Any, Callable

from ..interface import Provider


def _lazy(module: str, name: str) -> Callable[..., Provider]:
    """A factory that imports its provider's module when first called: most configurations use
    none of these, and their modules (TLS, subprocesses, ctypes) cost every command otherwise."""

    def make(*args: Any, **kwargs: Any) -> Provider:
        return getattr(import_module(f"{__package__}.{module}"), name)(*args, **kwargs)

    make.__qualname__ = make.__name__ = name
    return make


EXTRA_BUILTINS: dict[str, Callable[..., Provider]] = {
    "registry.terraform.io/hashicorp/random": _lazy("random", "RandomProvider"),
    "registry.terraform.io/hashicorp/null": _lazy("null", "NullProvider"),
    "registry.terraform.io/hashicorp/local": _lazy("local", "LocalProvider"),
    "registry.terraform.io/hashicorp/time": _lazy("time", "TimeProvider"),
    "registry.terraform.io/hashicorp/http": _lazy("http", "HTTPProvider"),
    "registry.terraform.io/hashicorp/external": _lazy("external", "ExternalProvider"),
}
