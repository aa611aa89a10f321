"""Built-in copies of the hashicorp utility providers, registered by source address.

`BUILTINS` (providers/builtin/__init__.py) merges this map. Each factory takes an optional
`base_dir` (the working directory relative paths resolve against), like TerraformProvider.
"""
from __future__ import annotations

from typing import Callable

from ..interface import Provider
from .external import ExternalProvider
from .http import HTTPProvider
from .local import LocalProvider
from .null import NullProvider
from .random import RandomProvider
from .time import TimeProvider

EXTRA_BUILTINS: dict[str, Callable[[], Provider]] = {
    "registry.terraform.io/hashicorp/random": RandomProvider,
    "registry.terraform.io/hashicorp/null": NullProvider,
    "registry.terraform.io/hashicorp/local": LocalProvider,
    "registry.terraform.io/hashicorp/time": TimeProvider,
    "registry.terraform.io/hashicorp/http": HTTPProvider,
    "registry.terraform.io/hashicorp/external": ExternalProvider,
}
