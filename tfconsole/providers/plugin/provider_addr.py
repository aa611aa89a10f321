"""Provider source addresses as Terraform parses, normalises and prints them.

`hashicorp/null` -> registry.terraform.io/hashicorp/null; `String()` is the fully-qualified form the
lock file and state use, `for_display()` drops the default registry host (what `init` prints).
The built-in `terraform` provider lives at terraform.io/builtin/terraform.
"""
from __future__ import annotations

import re
from tfconsole.records import dataclass  # the standard decorator without its start-up cost

DEFAULT_HOST = "registry.terraform.io"
BUILTIN_HOST = "terraform.io"
BUILTIN_NAMESPACE = "builtin"
LEGACY_NAMESPACE = "-"

_PART = re.compile(r"^[^\W_](?:[^\W_]|-(?!-))*$")  # letters and digits, single inner dashes


class AddrError(ValueError):
    def __init__(self, summary: str, detail: str) -> None:
        super().__init__(detail)
        self.summary = summary
        self.detail = detail


@dataclass(frozen=True, order=True)
class ProviderAddr:
    hostname: str
    namespace: str
    type: str

    def __str__(self) -> str:
        return f"{self.hostname}/{self.namespace}/{self.type}"

    def for_display(self) -> str:
        if self.hostname == DEFAULT_HOST:
            return f"{self.namespace}/{self.type}"
        return str(self)

    @property
    def is_builtin(self) -> bool:
        return self.hostname == BUILTIN_HOST and self.namespace == BUILTIN_NAMESPACE

    @property
    def is_legacy(self) -> bool:
        return self.namespace == LEGACY_NAMESPACE

    @property
    def lockable(self) -> bool:
        return not (self.is_builtin or self.is_legacy)


def parse_part(given: str) -> str:
    """A namespace or type: letters, digits and single dashes, no dots; compared in lower case."""
    if not given:
        raise ValueError("must have at least one character")
    if "." in given:
        raise ValueError("dots are not allowed")
    if "--" in given:
        raise ValueError("cannot use multiple consecutive dashes")
    if not _PART.match(given) or given.endswith("-"):
        raise ValueError("must contain only letters, digits, and dashes, and may not use leading or trailing "
                         "dashes")
    return given.lower()


def _hostname(given: str) -> str:
    host, _, port = given.partition(":")
    if not host or not all(_PART.match(x) or x.isdigit() for x in host.split(".")) or (port and not port.isdigit()):
        raise ValueError("hostname contains invalid characters")
    host = host.lower()
    return host if not port or port == "443" else f"{host}:{port}"


_FORMAT = 'The "source" attribute must be in the format "[hostname/][namespace/]name"'


def parse_source(given: str) -> ProviderAddr:
    """A `source` string (1 to 3 slash-separated parts); raises AddrError with Terraform's words."""
    parts = given.split("/")
    if len(parts) > 3 or any(p == "" for p in parts):
        raise AddrError("Invalid provider source string", _FORMAT)
    try:
        type_ = parse_part(parts[-1])
    except ValueError as exc:
        raise AddrError("Invalid provider type",
                        f'Invalid provider type "{parts[-1]}" in source "{given}": {exc}"') from None
    namespace, host = "hashicorp", DEFAULT_HOST
    if len(parts) >= 2:
        if parts[-2] == LEGACY_NAMESPACE:
            namespace = LEGACY_NAMESPACE
        else:
            try:
                namespace = parse_part(parts[-2])
            except ValueError as exc:
                raise AddrError("Invalid provider namespace",
                                f'Invalid provider namespace "{parts[-2]}" in source "{given}": {exc}"') from None
    if len(parts) == 3:
        try:
            host = _hostname(parts[0])
        except ValueError as exc:
            raise AddrError("Invalid provider source hostname",
                            f'Invalid provider source hostname namespace "{parts[0]}" in source "{given}": '
                            f'{exc}"') from None
    if namespace == LEGACY_NAMESPACE and host != DEFAULT_HOST:
        raise AddrError("Invalid provider namespace", 'The legacy provider namespace "-" can be used only with '
                        f"hostname {DEFAULT_HOST}.")
    addr = ProviderAddr(host, namespace, type_)
    if type_.startswith("terraform-"):
        raise _redundant_prefix(addr)
    return addr


def _redundant_prefix(addr: ProviderAddr) -> AddrError:
    if addr.type.startswith("terraform-provider-"):
        suggested = addr.type[len("terraform-provider-"):]
        try:
            parse_part(suggested)
        except ValueError:
            pass
        else:
            better = ProviderAddr(addr.hostname, addr.namespace, suggested)
            return AddrError("Invalid provider type", f'Provider source "{addr.for_display()}" has a type with the '
                             'prefix "terraform-provider-", which isn\'t valid. Although that prefix is often used '
                             "in the names of version control repositories for Terraform providers, provider "
                             f'source strings should not include it.\n\nDid you mean "{better.for_display()}"?')
    return AddrError("Invalid provider type", f'Provider source "{addr}" has a type with the prefix "terraform-", '
                     "which isn't allowed because it would be redundant to name a Terraform provider with that "
                     "prefix. If you are the author of this provider, rename it to not include the prefix.")


def implied_provider(local_name: str) -> ProviderAddr:
    """The provider a resource type prefix or an undeclared local name stands for."""
    if local_name == "terraform":
        return ProviderAddr(BUILTIN_HOST, BUILTIN_NAMESPACE, "terraform")
    return ProviderAddr(DEFAULT_HOST, "hashicorp", local_name)


def normalise(source: str) -> str:
    """A source string in its fully-qualified form; unparsable strings come back lower-cased."""
    s = source.strip()
    if s.lower() in ("terraform.io/builtin/terraform", "builtin/terraform"):
        return "terraform.io/builtin/terraform"
    try:
        return str(parse_source(s))
    except AddrError:
        return s.lower()
