"""The dependency lock file `.terraform.lock.hcl` and the package hashes it records.

Reading checks what Terraform checks (normalised addresses, versions and constraints, hash
syntax, duplicates) and reports it at file:line; writing produces Terraform's bytes exactly
(header comment, providers sorted, aligned `version`/`constraints`, `hashes` sorted one per line),
atomically. Hashes:

* `h1:` — Go's dirhash "Hash1": for every file of the package (sorted by its slash-separated path
  relative to the package root) a line "<sha256 hex>  <path>\\n"; the SHA-256 of those lines,
  base64, prefixed "h1:". A .zip package hashes its member names and contents the same way, so an
  unpacked package and its archive agree.
* `zh:` — the SHA-256 (hex) of a package's .zip archive, which Terraform records only from signed
  registry checksums. We never create one offline but keep and honour those Terraform wrote.
"""
from __future__ import annotations

import base64
import os
from dataclasses import field
from typing import Any
from tfconsole.records import dataclass  # the standard decorator without its start-up cost

from tfconsole.diags import Diagnostics, SourceRange

from .provider_addr import AddrError, ProviderAddr, parse_source
from .versions import Constraints, Version, VersionError, constraints_string, parse_constraints, parse_version

LOCK_FILE = ".terraform.lock.hcl"
HEADER = ('# This file is maintained automatically by "terraform init".\n'
          "# Manual edits may be lost in future updates.\n")


# ---------------------------------------------------------------------------
# hashes


def _sha256(data: bytes = b"") -> Any:
    import hashlib  # on first use: loading OpenSSL is 2-3 ms that an init without plugins never needs

    return hashlib.sha256(data)


def _summary_hash(entries: list[tuple[str, bytes]]) -> str:
    lines = "".join(f"{digest.hex()}  {name}\n" for name, digest in sorted(entries))
    return "h1:" + base64.b64encode(_sha256(lines.encode("utf-8")).digest()).decode("ascii")


def _file_digest(path: str) -> bytes:
    h = _sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.digest()


def hash_dir(path: str) -> str:
    """h1: of an unpacked package directory (symlinked entries are followed when read, as Go does)."""
    root = os.path.realpath(path)
    entries: list[tuple[str, bytes]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        # os.walk lists a symlink to a directory among dirnames; Go's walk treats it as a file
        for name in list(dirnames):
            if os.path.islink(os.path.join(dirpath, name)):
                dirnames.remove(name)
                filenames.append(name)
        dirnames.sort()
        for name in filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if "\n" in rel:
                raise OSError("dirhash: filenames with newlines are not supported")
            entries.append((rel, _file_digest(full)))
    return _summary_hash(entries)


def hash_zip(path: str) -> str:
    """h1: of a .zip package, from its members."""
    entries: list[tuple[str, bytes]] = []
    import zipfile  # here: with bz2/lzma/shutil behind it, ~3 ms of every command's start-up

    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            h = _sha256()
            with z.open(info) as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
            entries.append((info.filename, h.digest()))
    return _summary_hash(entries)


def hash_zip_legacy(path: str) -> str:
    """zh: of a .zip package: the archive's own SHA-256."""
    return "zh:" + _file_digest(os.path.realpath(path)).hex()


def package_matches(location: str, allowed: list[str] | tuple[str, ...]) -> bool:
    """Whether a package (a directory, or a .zip archive) matches any of the recorded hashes;
    `zh:` hashes can only match an archive."""
    is_zip = os.path.isfile(location)
    h1 = zh = None
    for want in allowed:
        if want.startswith("h1:"):
            if h1 is None:
                h1 = hash_zip(location) if is_zip else hash_dir(location)
            if h1 == want:
                return True
        elif want.startswith("zh:") and is_zip:
            if zh is None:
                zh = hash_zip_legacy(location)
            if zh == want:
                return True
    return False


def preferred_hashes(hashes: tuple[str, ...]) -> tuple[str, ...]:
    """The hashes of schemes this release understands (others are kept but not checked)."""
    return tuple(h for h in hashes if h.startswith(("h1:", "zh:")))


# ---------------------------------------------------------------------------
# the lock model


@dataclass(frozen=True)
class ProviderLock:
    addr: ProviderAddr
    version: Version
    constraints: Constraints = field(default_factory=Constraints)
    hashes: tuple[str, ...] = ()

    @staticmethod
    def new(addr: ProviderAddr, version: Version, constraints: Constraints, hashes: list[str]) -> ProviderLock:
        return ProviderLock(addr, version, constraints, tuple(sorted(set(hashes))))


@dataclass
class Locks:
    providers: dict[ProviderAddr, ProviderLock] = field(default_factory=dict)

    def get(self, addr: ProviderAddr) -> ProviderLock | None:
        return self.providers.get(addr)

    def set(self, lock: ProviderLock) -> None:
        self.providers[lock.addr] = lock

    def remove(self, addr: ProviderAddr) -> None:
        self.providers.pop(addr, None)

    def copy(self) -> Locks:
        return Locks(dict(self.providers))

    def empty(self) -> bool:
        return not self.providers

    def same_selections(self, other: Locks) -> bool:
        """Terraform's notion of "changed": providers, versions and hashes (not constraints)."""
        if self.providers.keys() != other.providers.keys():
            return False
        return all(lk.version == other.providers[a].version and lk.hashes == other.providers[a].hashes
                   for a, lk in self.providers.items())


# ---------------------------------------------------------------------------
# writing


def _hcl_string(s: str) -> str:
    out = s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    out = out.replace("\t", "\\t").replace("${", "$${").replace("%{", "%%{")
    return f'"{out}"'


def render(locks: Locks) -> str:
    parts = [HEADER]
    for addr in sorted(locks.providers):
        lk = locks.providers[addr]
        attrs = [("version", _hcl_string(str(lk.version)))]
        cs = constraints_string(lk.constraints)
        if cs:
            attrs.append(("constraints", _hcl_string(cs)))
        width = max(len(k) for k, _ in attrs)
        body = "".join(f"  {k.ljust(width)} = {v}\n" for k, v in attrs)
        if lk.hashes:
            # a multi-line value ends the alignment group, so `hashes` keeps a single space
            body += "  hashes = [\n" + "".join(f"    {_hcl_string(h)},\n" for h in lk.hashes) + "  ]\n"
        parts.append(f'\nprovider {_hcl_string(str(addr))} {{\n{body}}}\n')
    return "".join(parts)


def save(locks: Locks, path: str) -> Diagnostics:
    """Write atomically (temporary file, fsync, rename) with mode 0644, as Terraform does."""
    diags = Diagnostics()
    data = render(locks).encode("utf-8")
    directory = os.path.dirname(os.path.abspath(path))
    try:
        import tempfile  # only writing the lock file needs it

        fd, tmp = tempfile.mkstemp(prefix=".terraform.lock.", dir=directory)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    except OSError as exc:
        diags.error("Failed to update dependency lock file",
                    f"Error while writing new dependency lock information to {path}: {exc}.")
    return diags


# ---------------------------------------------------------------------------
# reading


def load(path: str, display: str = LOCK_FILE) -> tuple[Locks, Diagnostics]:
    """The lock file at `path`; a missing file is an empty set of locks."""
    diags = Diagnostics()
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        return Locks(), diags
    except OSError as exc:
        diags.error("Failed to read dependency lock file", f"Error reading {display}: {exc}.")
        return Locks(), diags
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        diags.error("Invalid character encoding", "All input files must be UTF-8 encoded. Ensure that UTF-8 "
                    "encoding is selected in your editor.")
        return Locks(), diags
    return parse(text, display)


def parse(text: str, filename: str = LOCK_FILE) -> tuple[Locks, Diagnostics]:
    from tfconsole.config.body import parse_file

    locks = Locks()
    body, diags = parse_file(text, filename)
    if body is None:
        return locks, diags
    for name, attr in body.attributes.items():
        diags.error("Unsupported argument", f'An argument named "{name}" is not expected here.', attr.range)
    seen: dict[ProviderAddr, SourceRange] = {}
    warned_module = False
    for block in body.blocks:
        if block.type == "module":
            if not warned_module:
                from tfconsole import TERRAFORM_VERSION

                diags.warning("Dependency locks for modules are not yet supported",
                              f"Terraform v{TERRAFORM_VERSION} only supports dependency locks for providers, not "
                              "for modules. This configuration may be intended for a later version of Terraform "
                              "that also supports dependency locks for modules.", block.range)
                warned_module = True
            continue
        if block.type != "provider":
            diags.error("Unsupported block type", f'Blocks of type "{block.type}" are not expected here.',
                        block.range)
            continue
        if len(block.labels) != 1:
            diags.error("Missing name for provider" if not block.labels else "Extraneous label for provider",
                        "A provider block in a lock file needs exactly one label: the source address.",
                        block.range)
            continue
        lock = _provider_block(block, diags)
        if lock is None:
            continue
        if lock.addr in seen:
            diags.error("Duplicate provider lock", f"This lockfile already declared a lock for provider "
                        f"{lock.addr} at {seen[lock.addr]}.", block.range)
            continue
        seen[lock.addr] = block.range
        locks.set(lock)
    return locks, diags


def _provider_block(block, diags: Diagnostics) -> ProviderLock | None:  # type: ignore[no-untyped-def]
    raw_addr = block.labels[0]
    try:
        addr = parse_source(raw_addr)
    except AddrError:
        diags.error("Invalid provider source address", "The provider source address for a provider lock must be "
                    'a valid, fully-qualified address of the form "hostname/namespace/type".', block.range)
        return None
    if not addr.lockable:
        detail = (f"Cannot lock a version for built-in provider {addr}. Built-in providers are bundled inside "
                  "Terraform itself, so you can't select a version for them independently of the Terraform release "
                  "you are currently running." if addr.is_builtin else
                  f"Provider source address {addr} is a special provider that is not eligible for dependency "
                  "locking.")
        diags.error("Invalid provider source address", detail, block.range)
        return None
    if str(addr) != raw_addr:
        diags.error("Non-normalized provider source address", "The provider source address for this provider lock "
                    f'must be written as "{addr}", the fully-qualified and normalized form.', block.range)
        return None
    attrs = block.body.attributes
    for name, attr in attrs.items():
        if name not in ("version", "constraints", "hashes"):
            diags.error("Unsupported argument", f'An argument named "{name}" is not expected here.', attr.range)
    for b in block.body.blocks:
        diags.error("Unsupported block type", f'Blocks of type "{b.type}" are not expected here.', b.range)
    version = _version_attr(addr, attrs.get("version"), block, diags)
    constraints = _constraints_attr(addr, attrs.get("constraints"), diags)
    hashes = _hashes_attr(attrs.get("hashes"), diags)
    if version is None:
        return None
    return ProviderLock(addr, version, constraints, tuple(hashes))


def _string(attr, diags: Diagnostics) -> str | None:  # type: ignore[no-untyped-def]
    from tfconsole.config.model import static_value

    try:
        v = static_value(attr.expr)
    except ValueError as exc:
        diags.error("Invalid expression", str(exc), attr.range)
        return None
    if not isinstance(v, str):
        diags.error("Incorrect attribute value type", "Inappropriate value for attribute "
                    f'"{attr.name}": string required.', attr.range)
        return None
    return v


def _version_attr(addr: ProviderAddr, attr, block, diags: Diagnostics) -> Version | None:  # type: ignore[no-untyped-def]
    if attr is None:
        diags.error("Missing required argument", 'The argument "version" is required, but no definition was '
                    "found.", block.range)
        return None
    raw = _string(attr, diags)
    if raw is None:
        return None
    try:
        version = parse_version(raw)
    except VersionError as exc:
        diags.error("Invalid provider version number", f"The selected version number for provider {addr} is "
                    f"invalid: {exc}.", attr.range)
        return None
    if str(version) != raw:
        diags.error("Invalid provider version number", f"The selected version number for provider {addr} must be "
                    f'written in normalized form: "{version}".', attr.range)
    return version


def _constraints_attr(addr: ProviderAddr, attr, diags: Diagnostics) -> Constraints:  # type: ignore[no-untyped-def]
    if attr is None:
        return Constraints()
    raw = _string(attr, diags)
    if raw is None:
        return Constraints()
    try:
        cs = parse_constraints(raw)
    except VersionError as exc:
        diags.error("Invalid provider version constraints", f"The recorded version constraints for provider "
                    f"{addr} are invalid: {exc}.", attr.range)
        return Constraints()
    if constraints_string(cs) != raw:
        diags.error("Invalid provider version constraints", f"The recorded version constraints for provider "
                    f'{addr} must be written in normalized form: "{constraints_string(cs)}".', attr.range)
    return cs


def _hashes_attr(attr, diags: Diagnostics) -> list[str]:  # type: ignore[no-untyped-def]
    from tfconsole.config.model import static_value

    if attr is None:
        return []
    try:
        v = static_value(attr.expr)
    except ValueError as exc:
        diags.error("Invalid expression", str(exc), attr.range)
        return []
    if not isinstance(v, (list, tuple)):
        diags.error("Invalid expression", "A static list expression is required.", attr.range)
        return []
    if not v:
        diags.error("Invalid provider hash set", 'The "hashes" argument must either be omitted or contain at '
                    "least one hash value.", attr.range)
        return []
    out = []
    for h in v:
        if not isinstance(h, str):
            diags.error("Incorrect attribute value type", "Inappropriate value for attribute \"hashes\": element "
                        "must be a string.", attr.range)
            continue
        if h.find(":") < 1:
            diags.error("Invalid provider hash string", f'Cannot interpret "{h}" as a provider hash: hash string '
                        "must start with a scheme keyword followed by a colon.", attr.range)
            continue
        out.append(h)
    return out
