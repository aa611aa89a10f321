"""Finding the installed provider executable for a source, and checking installations.

`provider_executable(working_dir, source)` answers which program serves a provider source:

1. a `dev_overrides` entry in the CLI configuration wins over everything (callers show
   `dev_override_warnings()`, Terraform's warning, once per run);
2. otherwise the package `init` installed for the lock file's selected version:
   `.terraform/providers/HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/terraform-provider-TYPE*`,
   only if it still matches the lock file's hashes;
3. otherwise None: the caller serves a built-in provider or reports the source as missing.

Because None also covers "installed but changed", an operation must first call
`check_installed()` (Terraform's "Required plugins are not installed") and
`check_selections()` ("Inconsistent dependency lock file"), so that a tampered or missing plugin
is refused rather than silently replaced by a built-in.

What needs the provider registry too (the checks before an operation, which exempt built-in
sources, and `schema_of`) lives in providers/preflight.py, above both.
"""
from __future__ import annotations

import os
import threading

from tfconsole.diags import Diagnostics

from . import cliconfig, lockfile, mirror
from .install import PackageDir, data_dir, providers_dir
from .provider_addr import AddrError, ProviderAddr, parse_source
from .requirements import Requirements

_HASH_CACHE: dict[tuple, str] = {}
_LOCK = threading.Lock()


def _addr(source: str) -> ProviderAddr | None:
    s = source.strip()
    if s.lower() in ("terraform.io/builtin/terraform", "builtin/terraform"):
        return None
    try:
        return parse_source(s)
    except AddrError:
        return None


def _cli_config() -> cliconfig.CLIConfig:
    cfg, _ = cliconfig.load()
    return cfg


def _lock_path(working_dir: str) -> str:
    return os.path.join(working_dir, lockfile.LOCK_FILE)


def _dir_hash(path: str) -> str:
    """h1: of a package directory, remembered per (path, size and mtime of every file)."""
    real = os.path.realpath(path)
    stamp = []
    for dirpath, _dirs, files in os.walk(real):
        for f in sorted(files):
            try:
                st = os.stat(os.path.join(dirpath, f))
            except OSError:
                continue
            stamp.append((f, st.st_size, st.st_mtime_ns, st.st_ino))
    key = (real, tuple(stamp))
    with _LOCK:
        if key in _HASH_CACHE:
            return _HASH_CACHE[key]
    h = lockfile.hash_dir(real)
    with _LOCK:
        _HASH_CACHE[key] = h
    return h


def _matches(package_dir: str, hashes: tuple[str, ...]) -> bool:
    wanted = [h for h in lockfile.preferred_hashes(hashes) if h.startswith("h1:")]
    if not lockfile.preferred_hashes(hashes):
        return True  # nothing recorded that this release can check
    return _dir_hash(package_dir) in wanted


def provider_executable(working_dir: str, source: str) -> str | None:
    """The executable serving `source` (e.g. registry.terraform.io/hashicorp/null), or None."""
    addr = _addr(source)
    if addr is None:
        return None
    cfg = _cli_config()
    override = cfg.dev_overrides.get(addr)
    if override is not None:
        return mirror.executable_in(override, addr.type)
    locks, d = lockfile.load(_lock_path(working_dir))
    lock = locks.get(addr) if not d.has_errors else None
    if lock is None:
        return None
    pkg = PackageDir(providers_dir(working_dir), cliconfig.current_platform()).installed(addr, lock.version)
    if pkg is None or not _matches(pkg, lock.hashes):
        return None
    return mirror.executable_in(pkg, addr.type)


def dev_override_warnings() -> Diagnostics:
    """Terraform's warning for a run (plan, apply, ...) while dev_overrides are in effect."""
    return cliconfig.dev_override_warning(_cli_config(), at_init=False)


def check_installed(working_dir: str, builtin_sources: frozenset[str] | set[str] = frozenset()) -> Diagnostics:
    """Every provider the lock file selects must be installed and unchanged, as Terraform checks
    before any operation. Sources in `builtin_sources` (normalised) may instead be served by a
    built-in when nothing is installed for them; a changed package is refused regardless."""
    diags = Diagnostics()
    locks, d = lockfile.load(_lock_path(working_dir))
    if d.has_errors:
        return d
    cfg = _cli_config()
    where = os.path.relpath(providers_dir(working_dir), working_dir)
    target = PackageDir(providers_dir(working_dir), cliconfig.current_platform())
    problems = []
    for addr in sorted(locks.providers):
        lock = locks.providers[addr]
        if addr in cfg.dev_overrides:
            continue
        pkg = target.installed(addr, lock.version)
        if pkg is None:
            if str(addr) not in builtin_sources:
                problems.append(f"{addr}: there is no package for {addr} {lock.version} cached in {where}")
            continue
        if not _matches(pkg, lock.hashes):
            problems.append(f"{addr}: the cached package for {addr} {lock.version} (in {where}) does not match any "
                            "of the checksums recorded in the dependency lock file")
    if problems:
        diags.error("Required plugins are not installed", "The installed provider plugins are not consistent with "
                    "the packages selected in the dependency lock file:" + "".join(f"\n  - {p}" for p in problems) +
                    "\n\nTerraform uses external plugins to integrate with a variety of different infrastructure "
                    "services. To download the plugins required for this configuration, run:\n  terraform init")
    return diags


def check_selections(working_dir: str, reqs: Requirements, builtin_sources: frozenset[str] | set[str] = frozenset()
                     ) -> Diagnostics:
    """The lock file must select a version meeting the configuration's constraints for every
    required plugin provider (Terraform's "Inconsistent dependency lock file")."""
    from .versions import constraints_string

    diags = Diagnostics()
    locks, d = lockfile.load(_lock_path(working_dir))
    if d.has_errors:
        return d
    cfg = _cli_config()
    errs = []
    for addr, cs in reqs.items():
        if not addr.lockable or addr in cfg.dev_overrides:
            continue
        lock = locks.get(addr)
        if lock is None:
            if str(addr) not in builtin_sources:
                errs.append(f"provider {addr}: required by this configuration but no version is selected")
            continue
        if not cs.allows(lock.version):
            now, then = constraints_string(cs), constraints_string(lock.constraints)
            errs.append(f'provider {addr}: locked version selection {lock.version} doesn\'t match the updated '
                        f'version constraints "{now}"' if now != then else
                        f'provider {addr}: version constraints "{now}" don\'t match the locked version selection '
                        f"{lock.version}")
    if errs:
        hint = ("To make the initial dependency selections that will initialize the dependency lock file, run:\n"
                "  terraform init" if locks.empty() else
                "To update the locked dependency selections to match a changed configuration, run:\n"
                "  terraform init -upgrade")
        diags.error("Inconsistent dependency lock file", "The following dependency selections recorded in the lock "
                    "file are inconsistent with the current configuration:" +
                    "".join(f"\n  - {e}" for e in sorted(errs)) + f"\n\n{hint}")
    return diags


__all__ = [
    "check_installed",
    "check_selections",
    "data_dir",
    "dev_override_warnings",
    "provider_executable",
]
