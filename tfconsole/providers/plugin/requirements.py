"""Which providers a configuration (and a state) requires, with which version constraints.

Per module, as Terraform gathers them: `required_providers` entries (their constraints in the
strict provider grammar), the provider of every resource and data source, and every provider
block (with its deprecated `version` argument). The tree feeds `tfconsole providers`; the
flattened map feeds `init` and the check that the lock file still fits the configuration.
"""
from __future__ import annotations

import re
from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any

from tfconsole.diags import Diagnostics

from .provider_addr import AddrError, ProviderAddr, implied_provider, parse_source
from .versions import Constraints, VersionError, parse_constraints

Requirements = dict[ProviderAddr, Constraints]


@dataclass
class ModuleRequirements:
    requirements: Requirements = field(default_factory=dict)
    children: dict[str, ModuleRequirements] = field(default_factory=dict)

    def flatten(self) -> Requirements:
        out: Requirements = {}
        merge(out, self.requirements)
        for child in self.children.values():
            merge(out, child.flatten())
        return out


def merge(into: Requirements, more: Requirements) -> None:
    for addr, cs in more.items():
        into[addr] = into.get(addr, Constraints()) + cs


def provider_for_local_name(mod: Any, local: str) -> ProviderAddr:
    """The provider a module's local name stands for (its required_providers entry, else implied)."""
    rp = mod.required_providers.get(local)
    if rp is not None:
        try:
            return parse_source(rp.source)
        except AddrError:
            pass
    return implied_provider(local)


def module_requirements(mod: Any) -> tuple[ModuleRequirements, Diagnostics]:
    diags = Diagnostics()
    reqs: Requirements = {}
    for name, rp in mod.required_providers.items():
        try:
            addr = parse_source(rp.source)
        except AddrError as exc:
            diags.error(exc.summary, exc.detail, rp.range)
            continue
        merge(reqs, {addr: _constraints(rp.version, rp.range, diags)})
    for rc in mod.resources.values():
        addr = provider_for_local_name(mod, rc.provider_local_name)
        reqs.setdefault(addr, Constraints())
    for (name, _alias), pb in mod.providers.items():
        addr = provider_for_local_name(mod, name)
        reqs.setdefault(addr, Constraints())
        if pb.version is not None:
            merge(reqs, {addr: _constraints(pb.version[0], pb.version[1], diags)})
    out = ModuleRequirements(reqs)
    for cname in sorted(mod.children):
        child, d = module_requirements(mod.children[cname])
        diags.append(d)
        out.children[cname] = child
    return out, diags


def _constraints(text: str, rng: Any, diags: Diagnostics) -> Constraints:
    if not text:
        return Constraints()
    try:
        return parse_constraints(text)
    except VersionError as exc:
        diags.error("Invalid version constraint", f"Incorrect version constraint syntax: {exc}.", rng)
        return Constraints()


_STATE_PROVIDER = re.compile(r'provider\["([^"]+)"\]')


def state_requirements(state: Any) -> Requirements:
    """Every provider the state's resources name (without constraints)."""
    out: Requirements = {}
    if state is None:
        return out
    for rs in getattr(state, "resources", {}).values():
        m = _STATE_PROVIDER.search(rs.provider or "")
        if not m:
            continue
        try:
            out.setdefault(parse_source(m.group(1)), Constraints())
        except AddrError:
            continue
    return out
