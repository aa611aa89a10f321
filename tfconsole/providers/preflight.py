"""What a command checks about its providers before it runs, and built-in provider schemas.

These need both the provider registry (which sources are built in) and plugins/locate.py (what
`init` installed), so they sit above both: locate.py knows nothing of the registry, and the
registry asks locate.py only which executable serves a source.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, cast

from tfconsole.diags import Diagnostics

from .registry import default_registry, normalize_source

__all__ = ["builtin_sources", "check_before_operation", "schema_of"]

# plugin/lockfile.LOCK_FILE, named here so that a working directory without a lock file (built-in
# providers only) is checked without loading the lock file's parser, the version parser and the
# plugin locator (a dozen modules, ~3 ms of every plan); tests/test_startup_imports.py checks both
LOCK_FILE = ".terraform.lock.hcl"


def builtin_sources() -> set[str]:
    """Every source a built-in provider can serve, normalised."""
    return {normalize_source(s) for s in default_registry().sources()}


class _ServedInProcess:
    """The sources a built-in serves, asked one at a time: checking a configuration's few
    sources this way scans the installed distributions for provider entry points (15 ms, and
    importlib.metadata's import) only for a source no built-in has."""

    def __contains__(self, source: object) -> bool:
        return isinstance(source, str) and default_registry().has(source)


def _builtin_provider(working_dir: str, source: str) -> Any:
    reg = default_registry()
    return reg.create(source) if reg.has(source) else None


# Which Provider object answers `schema_of`: the built-ins (tests may swap it).
schema_provider: Callable[[str, str], Any] = _builtin_provider


def schema_of(working_dir: str, source: str) -> dict | None:
    """One provider's schema as `providers schema -json` prints it, or None if nothing serves it."""
    from .plugin.schema_json import provider_json

    provider = schema_provider(working_dir, source)
    if provider is None:
        return None
    try:
        return provider_json(provider)
    finally:
        provider.close()


def check_before_operation(working_dir: str, config: Any) -> Diagnostics:
    """What Terraform checks before plan, apply, refresh, import and console: the lock file's
    providers are installed and unchanged, and (once a lock file exists) it selects a version
    meeting the configuration's constraints for every plugin provider. Built-in sources may be
    served in-process when nothing is installed for them."""
    if not os.path.lexists(os.path.join(working_dir, LOCK_FILE)):
        return Diagnostics()  # no lock file: nothing is selected, so nothing can be missing or changed
    from .plugin.locate import check_installed, check_selections
    from .plugin.requirements import module_requirements

    builtins = cast(set[str], _ServedInProcess())  # the checks below only ask `in`
    diags = check_installed(working_dir, builtins)
    if diags.has_errors or config is None or not os.path.exists(os.path.join(working_dir, LOCK_FILE)):
        return diags
    mreqs, d = module_requirements(config)
    if d.has_errors:
        return diags
    return diags.append(check_selections(working_dir, mreqs.flatten(), builtins))
