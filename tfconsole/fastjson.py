"""orjson, loaded where it is first used.

orjson (a C JSON codec, several times faster than the standard one) writes state files, journal
records, plan files and cache entries. Importing it also loads uuid, platform and dataclasses
(2-10 ms), which a command that writes none of those (a plan, an init with everything cached)
never needs, so the modules that use it ask for it here when they write. Imports nothing from
tfconsole.
"""
from __future__ import annotations

from typing import Any

_ORJSON: Any = False  # False: not asked for yet; None: not installed


def orjson() -> Any:
    """The orjson module, or None where it is not installed (only speed differs then)."""
    global _ORJSON
    if _ORJSON is False:
        try:
            import orjson as module
        except ImportError:  # pragma: no cover - a dependency
            module = None
        _ORJSON = module
    return _ORJSON
