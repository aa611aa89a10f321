"""A command's settings for the engine's Context: where, which variables, how many parallel
vertices, locking, which workspace. A module of its own so that what only needs the settings
(the operation request, the CLI's start-up) does not import the engine."""
from __future__ import annotations

from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost


@dataclass
class Options:
    working_dir: str = "."
    cli_vars: list[tuple[str, str]] = field(default_factory=list)
    parallelism: int = 10
    lock: bool = True
    lock_timeout: float = 0.0
    state_path: str | None = None
    workspace: str | None = None
