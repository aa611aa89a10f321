"""Built-in providers, by source address."""
from __future__ import annotations

from typing import Callable

from ..interface import Provider
from .terraform import TerraformProvider

BUILTINS: dict[str, Callable[[], Provider]] = {
    "terraform.io/builtin/terraform": TerraformProvider,
}

try:  # providers written in their own modules register here as they land
    from .extra import EXTRA_BUILTINS

    BUILTINS.update(EXTRA_BUILTINS)
except ImportError:
    pass
