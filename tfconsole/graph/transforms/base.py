"""Shared pieces of the transforms: the build context, the Transform base and small helpers."""
from __future__ import annotations

from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any
from tfconsole.addrs import AbsResourceInstance, Module as ModulePath, ModuleInstance, Resource, parse_target
from tfconsole.config.model import Module
from tfconsole.diags import Diagnostics
from tfconsole.lang import ast as A
from tfconsole.plans import Plan
from tfconsole.states.state import State
from ..dag import Graph
from ..nodes.resource import ApplyInstanceNode, DestroyInstanceNode, PlanOrphanNode, ResourceNode
from ..nodes.values import ProviderNode



@dataclass
class BuildContext:
    config: Module
    state: State
    diags: Diagnostics = field(default_factory=Diagnostics)
    targets: list[Any] = field(default_factory=list)
    excludes: list[Any] = field(default_factory=list)
    replace: set[AbsResourceInstance] = field(default_factory=set)
    plan: Plan | None = None
    destroy: bool = False
    providers: dict[str, ProviderNode] = field(default_factory=dict)
    resource_nodes: dict[tuple[ModulePath, Resource], Any] = field(default_factory=dict)
    # the apply graph's instance vertices by (module instance, resource), then key (DiffTransformer)
    instances: dict[tuple[ModuleInstance, Resource], dict[Any, Any]] = field(default_factory=dict)


class Transform:
    def transform(self, g: Graph, b: BuildContext) -> None:
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__


def _module_of(v: Any) -> ModulePath | None:
    if isinstance(v, (DestroyInstanceNode, ApplyInstanceNode, PlanOrphanNode)):
        return v.addr.module.module()
    if isinstance(v, ProviderNode):
        return None
    return getattr(v, "module", None)


def _all_attrs(body: Any) -> list[Any]:
    out = list(body.attributes.values())
    for blk in body.blocks:
        out.extend(_all_attrs(blk.body))
    return out


def _target_contains(t: Any, addr: AbsResourceInstance) -> bool:
    from tfconsole.addrs import target_contains

    return target_contains(t, addr)


def _selects_every_instance(t: Any) -> bool:
    """A target naming a resource or module with no instance keys anywhere selects all instances."""
    from tfconsole.addrs import AbsResource, ModuleInstance as MI

    if isinstance(t, MI):
        return all(k is None for _, k in t.steps)
    if isinstance(t, AbsResource):
        return all(k is None for _, k in t.module.steps)
    return False


def _config_target_match(t: Any, v: ResourceNode) -> bool:
    from tfconsole.addrs import AbsResource, AbsResourceInstance as ARI, ModuleInstance as MI

    mod = v.rc.module
    if isinstance(t, MI):
        names = tuple(n for n, _ in t.steps)
        return mod.path[: len(names)] == names
    if isinstance(t, (AbsResource, ARI)):
        return t.resource == v.rc.addr and tuple(n for n, _ in t.module.steps) == mod.path
    return False


def parse_targets(texts: list[str], diags: Diagnostics, flag: str = "-target") -> list[Any]:
    from tfconsole.addrs import AddressError

    out = []
    for t in texts:
        try:
            out.append(parse_target(t))
        except AddressError as exc:
            diags.error("Invalid target address", f"{flag}={t}: {exc}")
    return out
