"""Provider installation into `.terraform/providers`, as `terraform init` does it, offline.

For every required provider the installer picks the newest version the constraints allow (or the
lock file's selection unless upgrading) among what the CLI configuration's sources offer,
installs it where Terraform would and records it in the locks:

* from an unpacked directory (a filesystem mirror, `-plugin-dir`, the plugin cache): a symbolic
  link to it (a copy where links are impossible);
* from a .zip archive: extracted into place;
* with `plugin_cache_dir`: into the cache first, then linked from there; a cached copy matching
  the lock file is linked without touching the source.

Sources are only local directories. `direct` (a registry) and `network_mirror` are never contacted:
a provider only they could supply is reported as not found, with the ways to provide it. The
plugin cache stands in for `direct`, since Terraform would fill it from there.

Providers tfconsole has built in (Python implementations of hashicorp/random, null, ...) are
served by the built-in whenever no local source offers a plugin for them: no lock entry, no
network, never an error. `terraform.io/builtin/terraform` is built in as in Terraform.

The installer reports progress through `say(code, *params)` (the init view turns codes into
Terraform's lines) and problems as diagnostics with Terraform's texts.
"""
from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost

from tfconsole.diags import Diagnostics

from . import lockfile, mirror
from .cliconfig import Method
from .lockfile import Locks, ProviderLock
from .provider_addr import ProviderAddr
from .versions import Constraints, Version, constraints_string

Say = Callable[..., None]


def data_dir(working_dir: str = ".") -> str:
    """Terraform's per-working-directory data directory (TF_DATA_DIR, else .terraform)."""
    return os.path.join(working_dir, os.environ.get("TF_DATA_DIR") or ".terraform")


def providers_dir(working_dir: str = ".") -> str:
    return os.path.join(data_dir(working_dir), "providers")


class _Served(Exception):
    """A provider left to tfconsole's built-in implementation."""


class InstallError(Exception):
    """One provider's failure; `summary`/`detail` are the diagnostic init shows."""

    def __init__(self, summary: str, detail: str) -> None:
        super().__init__(detail)
        self.summary = summary
        self.detail = detail


# ---------------------------------------------------------------------------
# sources


@dataclass
class Source:
    method: Method
    cache: str = ""  # for `direct`: the plugin cache standing in for the registry
    _found: dict[ProviderAddr, list[mirror.Package]] | None = None

    def _packages(self) -> dict[ProviderAddr, list[mirror.Package]]:
        if self._found is None:
            base = self.method.location if self.method.kind == "filesystem_mirror" else self.cache
            self._found = mirror.search(base) if base and os.path.isdir(base) else {}
        return self._found

    @property
    def local(self) -> bool:
        return self.method.kind == "filesystem_mirror"

    def versions(self, addr: ProviderAddr) -> list[Version]:
        if self.method.kind == "network_mirror":
            return []
        return sorted({p.version for p in self._packages().get(addr, [])})

    def package(self, addr: ProviderAddr, version: Version, platform: str) -> mirror.Package | None:
        for p in self._packages().get(addr, []):
            if p.version == version and p.platform == platform:
                return p
        return None

    def for_display(self, addr: ProviderAddr) -> str:
        if self.method.kind == "direct":
            return f"registry {addr.hostname} (tfconsole does not download from registries)"
        if self.method.kind == "network_mirror":
            return f"{self.method.location} (tfconsole does not download from network mirrors)"
        return self.method.location


def sources_for(methods: list[Method], cache_dir: str = "") -> list[Source]:
    return [Source(m, cache_dir if m.kind == "direct" else "") for m in methods]


# ---------------------------------------------------------------------------
# a directory of installed packages (.terraform/providers, the plugin cache)


class PackageDir:
    def __init__(self, base: str, platform: str) -> None:
        self.base = base
        self.platform = platform

    def installed(self, addr: ProviderAddr, version: Version) -> str | None:
        """The unpacked package directory for this version on this platform, if present."""
        for p in mirror.search(self.base).get(addr, []) if os.path.isdir(self.base) else []:
            if p.version == version and p.platform == self.platform and not p.packed:
                return p.location
        return None

    def target(self, addr: ProviderAddr, version: Version) -> str:
        return os.path.join(self.base, addr.hostname, addr.namespace, addr.type, str(version), self.platform)

    def install(self, pkg: mirror.Package, allowed: tuple[str, ...]) -> str:
        target = self.target(pkg.addr, pkg.version)
        if pkg.packed:
            _check_archive(pkg, allowed)
            if os.path.islink(target):
                raise OSError(f"cannot install package into target directory {target} because it is a symlink.")
            _unzip(pkg.location, target)
        else:
            _link_dir(pkg, target, tuple(h for h in allowed if not h.startswith("zh:")))
        return target


def _check_archive(pkg: mirror.Package, allowed: tuple[str, ...]) -> None:
    if allowed and not lockfile.package_matches(pkg.location, allowed):
        raise OSError(f"the current package for {pkg.addr} {pkg.version} doesn't match any of the checksums "
                      "previously recorded in the dependency lock file; for more information: "
                      "https://developer.hashicorp.com/terraform/language/files/dependency-lock#checksum-verification")


def _link_dir(pkg: mirror.Package, target: str, allowed: tuple[str, ...]) -> None:
    source = os.path.abspath(pkg.location)
    new = os.path.abspath(target)
    if new == source or _same_entry(new, source):
        raise OSError(f"cannot install existing provider directory {target} to itself")
    if allowed and not lockfile.package_matches(source, allowed):
        raise OSError(f"the local package for {pkg.addr} {pkg.version} doesn't match any of the checksums "
                      "previously recorded in the dependency lock file (this might be because the available "
                      "checksums are for packages targeting different platforms); for more information: "
                      "https://developer.hashicorp.com/terraform/language/files/dependency-lock#checksum-verification")
    _remove(new)
    os.makedirs(os.path.dirname(new), mode=0o755, exist_ok=True)
    try:
        os.symlink(source, new)
    except OSError:
        import shutil

        shutil.copytree(source, new, symlinks=True)


def _same_entry(a: str, b: str) -> bool:
    """The same directory entry, links not followed (a link to the package is not the package)."""
    try:
        sa, sb = os.lstat(a), os.lstat(b)
    except FileNotFoundError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def _remove(path: str) -> None:
    if os.path.islink(path) or os.path.isfile(path):
        os.unlink(path)
    elif os.path.isdir(path):
        import shutil

        shutil.rmtree(path)


def _unzip(archive: str, target: str) -> None:
    """Extract a provider archive; entries may not leave the target or be links (data, not code)."""
    # zipfile and shutil (with bz2, lzma behind them, ~4 ms) only when something is installed:
    # every command reads this module to find installed providers
    import shutil
    import zipfile

    with zipfile.ZipFile(archive) as z:
        for info in z.infolist():
            name = info.filename
            parts = name.replace("\\", "/").split("/")
            if name.startswith("/") or ".." in parts:
                raise OSError(f"entry contains '..': {name}")
            mode = info.external_attr >> 16 if info.create_system == 3 else 0
            if stat.S_ISLNK(mode):
                raise OSError(f"entry is a symbolic link, which provider packages may not contain: {name}")
            dest = os.path.join(target, *[p for p in parts if p])
            if name.endswith("/"):
                os.makedirs(dest, mode=0o755, exist_ok=True)
                continue
            os.makedirs(os.path.dirname(dest), mode=0o755, exist_ok=True)
            perm = (mode & 0o7777) if info.create_system == 3 else (0o444 if info.external_attr & 1 else 0o666)
            with z.open(info) as src, open(dest, "wb") as out:
                shutil.copyfileobj(src, out)
            os.chmod(dest, perm or 0o644)


# ---------------------------------------------------------------------------
# the installer


@dataclass
class Result:
    locks: Locks
    diags: Diagnostics = field(default_factory=Diagnostics)
    builtin: set[ProviderAddr] = field(default_factory=set)  # served by tfconsole's built-ins
    incomplete: list[str] = field(default_factory=list)  # providers locked with local hashes only


@dataclass
class Installer:
    working_dir: str
    sources: list[Source]
    platform: str
    cache_dir: str = ""
    cache_may_break_lock: bool = False
    python_builtins: frozenset[ProviderAddr] = frozenset()
    core_builtin_types: frozenset[str] = frozenset({"terraform"})
    say: Say = lambda *a: None
    incomplete: list[str] = field(default_factory=list)  # locked with local hashes only, over all runs

    def ensure(self, locks: Locks, reqs: dict[ProviderAddr, Constraints], upgrade: bool = False) -> Result:
        """Terraform's EnsureProviderVersions, in its three passes: built-ins and lock conflicts,
        version selection, installation."""
        res = Result(locks.copy())
        self.say("pending")
        might_need: dict[ProviderAddr, ProviderLock | None] = {}
        for addr in sorted(reqs):
            try:
                if addr.is_builtin:
                    self._core_builtin(addr, reqs[addr])
                else:
                    might_need[addr] = self._check_lock(addr, reqs[addr], res, upgrade)
            except InstallError as exc:
                res.diags.error(exc.summary, exc.detail)
            except _Served:
                pass
        need: dict[ProviderAddr, Version] = {}
        for addr, lock in might_need.items():
            try:
                version = self._select(addr, reqs[addr], lock, res)
            except InstallError as exc:
                res.diags.error(exc.summary, exc.detail)
                continue
            if version is not None:
                need[addr] = version
        target = PackageDir(providers_dir(self.working_dir), self.platform)
        cache = PackageDir(self.cache_dir, self.platform) if self.cache_dir else None
        for addr, version in need.items():
            try:
                self._install(addr, version, reqs[addr], res, target, cache)
            except InstallError as exc:
                res.diags.error(exc.summary, exc.detail)
        for addr in list(res.locks.providers):
            if addr not in reqs:
                res.locks.remove(addr)
        self.incomplete += res.incomplete
        return res

    def _check_lock(self, addr: ProviderAddr, cs: Constraints, res: Result, upgrade: bool) -> ProviderLock | None:
        """The lock file's selection for this provider, if it still meets the constraints."""
        lock = None if upgrade else res.locks.get(addr)
        if lock is None or cs.allows(lock.version):
            return lock
        if self._serve_builtin(addr, res, "its lock file selection does not meet the constraints"):
            raise _Served()
        self.say("reusing", addr)
        raise _query_failed(addr, f"locked provider {addr} {lock.version} does not match configured version "
                            f"constraint {constraints_string(cs)}; must use terraform init -upgrade to allow "
                            "selection of new versions")

    def _core_builtin(self, addr: ProviderAddr, cs: Constraints) -> None:
        if addr.type not in self.core_builtin_types:
            err = f'this Terraform release has no built-in provider named "{addr.type}"'
        elif cs:
            err = "built-in providers do not support explicit version constraints"
        else:
            self.say("builtin", addr, False)
            return
        raise InstallError("Invalid dependency on built-in provider", f"Cannot use {addr.for_display()}: {err}.")

    def _serve_builtin(self, addr: ProviderAddr, res: Result, why: str = "") -> bool:
        """Serve a source tfconsole has built in when no plugin can be installed for it."""
        if addr not in self.python_builtins:
            return False
        self.say("builtin", addr, True)
        if why:
            res.diags.warning("Using the built-in provider", f"tfconsole serves {addr.for_display()} with its built-in "
                              f"provider: a plugin for it is available locally but {why}.")
        res.builtin.add(addr)
        return True

    def _select(self, addr: ProviderAddr, cs: Constraints, lock: ProviderLock | None, res: Result) -> Version | None:
        handling = [s for s in self.sources if s.method.can_handle(addr)]
        available = sorted({v for s in handling for v in s.versions(addr)})
        if not available and lock is not None and self._still_installed(lock):
            # only a registry could list it, but the selected package is installed and intact
            # (a directory Terraform initialised online): keep using it offline
            available = [lock.version]
        if addr in self.python_builtins and not available:
            self._serve_builtin(addr, res)
            return None
        acceptable = [v for v in available if (v == lock.version if lock else cs.allows(v))]
        if not acceptable and addr in self.python_builtins:
            why = (f"the previously-selected version {lock.version} is not among them" if lock else
                   f"none of its versions ({', '.join(map(str, available))}) match {constraints_string(cs)!r}")
            self._serve_builtin(addr, res, why)
            return None
        if lock is not None:
            self.say("reusing", addr)
        elif cs:
            self.say("finding", addr, constraints_string(cs))
        else:
            self.say("finding_latest", addr)
        if not available:
            raise _not_found(addr, handling)
        if not acceptable:
            if lock is not None:
                raise _query_failed(addr, f"the previously-selected version {lock.version} is no longer available")
            raise _query_failed(addr, f"no available releases match the given constraints {constraints_string(cs)}")
        return max(acceptable)

    def _still_installed(self, lock: ProviderLock) -> bool:
        preferred = lockfile.preferred_hashes(lock.hashes)
        pkg = PackageDir(providers_dir(self.working_dir), self.platform).installed(lock.addr, lock.version)
        return bool(pkg and preferred and lockfile.package_matches(pkg, preferred))

    def _install(self, addr: ProviderAddr, version: Version, cs: Constraints, res: Result, target: PackageDir,
                 cache: PackageDir | None) -> None:
        lock = res.locks.get(addr)
        preferred = lockfile.preferred_hashes(lock.hashes) if lock and lock.version == version else ()
        installed = target.installed(addr, version)
        if installed and preferred and lockfile.package_matches(installed, preferred):
            self.say("already_installed", addr, version)
            return
        if cache is not None and self._link_cached(addr, version, cs, preferred, res, target, cache):
            return
        pkg = self._package(addr, version)
        self.say("installing", addr, version)
        dest = cache if cache is not None else target
        try:
            where = dest.install(pkg, preferred)
            if cache is not None:
                where = target.install(mirror.Package(addr, version, self.platform, where, False), ())
        except OSError as exc:
            raise InstallError("Failed to install provider",
                               f"Error while installing {addr.for_display()} v{version}: {exc}") from None
        if mirror.executable_in(where, addr.type) is None:
            raise InstallError("Failed to install provider", f"Error while installing {addr.for_display()} v{version}: "
                               "provider binary not found: could not find executable file starting with "
                               f"terraform-provider-{addr.type}")
        new_hash = lockfile.hash_dir(where)
        res.locks.set(ProviderLock.new(addr, version, cs, [new_hash, *preferred]))
        if not preferred or (new_hash,) == tuple(preferred):
            res.incomplete.append(addr.for_display())
        self.say("installed", addr, version)

    def _link_cached(self, addr: ProviderAddr, version: Version, cs: Constraints, preferred: tuple[str, ...],
                     res: Result, target: PackageDir, cache: PackageDir) -> bool:
        cached = cache.installed(addr, version)
        if cached is None:
            return False
        ok = bool(preferred) and lockfile.package_matches(cached, preferred)
        if not ok and not self.cache_may_break_lock and not self._cache_is_only_source(addr, version):
            return False
        self.say("using_cache", addr, version)
        if mirror.executable_in(cached, addr.type) is None:
            raise InstallError("Failed to install provider from shared cache", f"Error while importing "
                               f"{addr.for_display()} v{version} from the shared cache directory: provider binary not "
                               f"found: could not find executable file starting with terraform-provider-{addr.type}.")
        try:
            target.install(mirror.Package(addr, version, self.platform, cached, False), preferred)
        except OSError as exc:
            raise InstallError("Failed to install provider from shared cache", f"Error while importing "
                               f"{addr.for_display()} v{version} from the shared cache directory: {exc}.") from None
        new_hash = lockfile.hash_dir(cached)
        res.locks.set(ProviderLock.new(addr, version, cs, [*preferred, new_hash]))
        if not preferred or (new_hash,) == tuple(preferred):
            res.incomplete.append(addr.for_display())
        return True

    def _cache_is_only_source(self, addr: ProviderAddr, version: Version) -> bool:
        """Offline, a version only the cache holds (standing in for the registry) is linked from it."""
        return not any(s.local and s.package(addr, version, self.platform) for s in self.sources
                       if s.method.can_handle(addr))

    def _package(self, addr: ProviderAddr, version: Version) -> mirror.Package:
        for s in self.sources:
            if s.method.can_handle(addr) and s.local:
                pkg = s.package(addr, version, self.platform)
                if pkg is not None:
                    return pkg
        raise InstallError("Incompatible provider version", f"Provider {addr} v{version} does not have a package "
                           f"available for your current platform, {self.platform}.\n\nProvider releases are separate "
                           "from Terraform CLI releases, so not all providers are available for all platforms. Other "
                           "versions of this provider may have different platforms supported.")


def _query_failed(addr: ProviderAddr, err: str) -> InstallError:
    return InstallError("Failed to query available provider packages", f"Could not retrieve the list of available "
                        f"versions for provider {addr.for_display()}: {err}\n\nTo see which modules are currently "
                        f"depending on {addr.for_display()} and what versions are specified, run the following "
                        "command:\n    terraform providers")


def _not_found(addr: ProviderAddr, handling: list[Source]) -> InstallError:
    listed = "\n".join(f"  - {s.for_display(addr)}" for s in handling)
    d = addr.for_display()
    ways = (f"\n\ntfconsole installs providers only from local directories and never downloads. Provide {d} in "
            "one of these ways:\n"
            f"  - a filesystem mirror: provider_installation {{ filesystem_mirror {{ path = \"DIR\" }} }} in the CLI "
            "configuration (TF_CLI_CONFIG_FILE or ~/.terraformrc)\n"
            "  - tfconsole init -plugin-dir=DIR\n"
            f"  - provider_installation {{ dev_overrides {{ \"{d}\" = \"DIR\" }} }} for a provider you build "
            "yourself\n"
            f"where DIR holds {addr}/VERSION/OS_ARCH/terraform-provider-{addr.type}* or "
            f"{addr}/terraform-provider-{addr.type}_VERSION_OS_ARCH.zip.")
    return InstallError("Failed to query available provider packages", f"Could not retrieve the list of available "
                        f"versions for provider {d}: provider {addr} was not found in any of the search "
                        f"locations\n\n{listed}{ways}")
