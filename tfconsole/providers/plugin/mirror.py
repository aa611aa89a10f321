"""Provider packages found in local directories laid out as Terraform lays them out.

A directory (a filesystem mirror, a `-plugin-dir`, the plugin cache, `.terraform/providers`) may
hold packages in two layouts:

    HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/            unpacked: the executable and its files
    HOST/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip     packed

As in Terraform, only the base directory and the OS_ARCH directory may be symbolic links; entries
whose names are not valid hostnames, namespaces, types, versions or platforms are skipped.
"""
from __future__ import annotations

import os
import stat
from tfconsole.records import dataclass  # the standard decorator without its start-up cost

from .provider_addr import DEFAULT_HOST, LEGACY_NAMESPACE, ProviderAddr, parse_part
from .versions import Version, VersionError, parse_version


@dataclass(frozen=True)
class Package:
    addr: ProviderAddr
    version: Version
    platform: str
    location: str  # an unpacked directory or a .zip archive
    packed: bool

    @property
    def filename(self) -> str:
        return f"terraform-provider-{self.addr.type}_{self.version}_{self.platform}.zip"


def _real_dirs(path: str) -> list[str]:
    """Sub-directories that are directories themselves (a walk does not follow links)."""
    try:
        entries = sorted(os.scandir(path), key=lambda e: e.name)
    except OSError:
        return []
    return [e.name for e in entries if e.is_dir(follow_symlinks=False)]


def valid_platform(s: str) -> bool:
    parts = s.split("_")
    return len(parts) == 2 and all(p and not any(c in p for c in " \t\n\r") for p in parts)


def _addr(host: str, namespace: str, type_: str) -> ProviderAddr | None:
    try:
        type_ = parse_part(type_)
        if namespace != LEGACY_NAMESPACE:
            namespace = parse_part(namespace)
        host = host.lower()
        if not host or not all(c.isalnum() or c in ".-:" for c in host):
            return None
    except ValueError:
        return None
    if namespace == LEGACY_NAMESPACE and host != DEFAULT_HOST:
        return None
    return ProviderAddr(host, namespace, type_)


def search(base: str) -> dict[ProviderAddr, list[Package]]:
    """Every package under `base`, each provider's list ordered by platform then version."""
    out: dict[ProviderAddr, list[Package]] = {}
    root = os.path.realpath(base)
    for host in _real_dirs(root):
        for ns in _real_dirs(os.path.join(root, host)):
            for ty in _real_dirs(os.path.join(root, host, ns)):
                addr = _addr(host, ns, ty)
                if addr is None:
                    continue
                found = _type_dir(addr, os.path.join(root, host, ns, ty))
                if found:
                    out.setdefault(addr, []).extend(found)
    for pkgs in out.values():
        pkgs.sort(key=lambda p: (p.platform, p.version))
    return out


def _type_dir(addr: ProviderAddr, path: str) -> list[Package]:
    found: list[Package] = []
    try:
        entries = sorted(os.scandir(path), key=lambda e: e.name)
    except OSError:
        return found
    for e in entries:
        full = os.path.join(path, e.name)
        if e.is_dir(follow_symlinks=False):
            try:
                version = parse_version(e.name)
            except VersionError:
                continue
            for plat in sorted(os.listdir(full)):
                p = os.path.join(full, plat)
                if valid_platform(plat) and os.path.isdir(p):
                    found.append(Package(addr, version, plat, p, False))
            continue
        try:
            if not stat.S_ISREG(os.stat(full).st_mode):
                continue
        except OSError:
            continue
        pkg = _packed(addr, e.name, full)
        if pkg is not None:
            found.append(pkg)
    return found


def _packed(addr: ProviderAddr, filename: str, full: str) -> Package | None:
    norm = filename.lower()
    prefix, suffix = f"terraform-provider-{addr.type}_", ".zip"
    if not norm.startswith(prefix) or not norm.endswith(suffix):
        return None
    info = norm[len(prefix):-len(suffix)].split("_")
    if len(info) < 3:
        return None
    try:
        version = parse_version(info[0])
    except VersionError:
        return None
    plat = f"{info[1]}_{info[2]}"
    if not valid_platform(plat):
        return None
    return Package(addr, version, plat, full, True)


def executable_in(package_dir: str, type_: str) -> str | None:
    """The provider executable in an unpacked package: the first file (by name) called
    terraform-provider-TYPE, optionally followed by "_..." or "...." (a version suffix, ".exe")."""
    try:
        names = sorted(os.listdir(package_dir))
    except OSError:
        return None
    want = "terraform-provider-" + type_
    for name in names:
        full = os.path.join(package_dir, name)
        if os.path.isdir(full) and not os.path.islink(full):
            continue
        if not name.startswith(want):
            continue
        rest = name[len(want):]
        if rest and rest[0] not in "_.":
            continue
        return full
    return None
