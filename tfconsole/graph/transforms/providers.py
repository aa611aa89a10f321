"""ProviderTransformer: provider configuration vertices and their consumers."""
from __future__ import annotations

from typing import Any
from tfconsole.addrs import Module as ModulePath
from tfconsole.config.model import Module
from tfconsole.providers.registry import normalize_source
from ..dag import Graph
from ..nodes.base import ProviderConsumer, Referenceable
from ..nodes.ephemeral import EphemeralResourceNode
from ..nodes.resource import ApplyInstanceNode, ApplyResourceNode, DestroyInstanceNode, PlanOrphanNode, ResourceNode
from ..nodes.values import ProviderNode
from .base import BuildContext, Transform

class ProviderTransformer(Transform):
    """One vertex per provider configuration in use; consumers depend on theirs."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        pairs: list[tuple[Any, Any]] = []  # (consumer, provider), connected in one call
        for v in list(g.vertices()):
            pa = None
            if isinstance(v, (PlanOrphanNode,)):
                pa = v.provider_addr
            elif isinstance(v, (ApplyInstanceNode, DestroyInstanceNode)):
                pa = v.change.provider
            elif isinstance(v, ProviderConsumer):
                mod, local, alias = v.provider_ref()
                node = self.resolve(g, b, mod, local, alias, getattr(v, "rc", None))
                if node is None:
                    continue
                if isinstance(v, (ResourceNode, EphemeralResourceNode)):
                    v.provider_addr = node.addr
                if isinstance(v, ApplyResourceNode) and not v.provider_addr:
                    v.provider_addr = node.addr
                pairs.append((v, node))
                continue
            if pa:
                node = b.providers.get(pa) or self.from_addr(g, b, pa)
                pairs.append((v, node))
        g.connect_many(pairs)
        self._connect_references(g, b)

    @staticmethod
    def _connect_references(g: Graph, b: BuildContext) -> None:
        """Provider vertices are made here, after the reference edges: a provider configured
        from other values (variables, an ephemeral resource) waits for them."""
        wanted = {k for p in b.providers.values() for k in p.reference_keys()}
        if not wanted:
            return
        for v in g.vertices():
            if isinstance(v, Referenceable):
                for k in v.referenceable_keys():
                    if k in wanted:
                        for p in b.providers.values():
                            if k in p.reference_keys() and p is not v:
                                g.connect(p, v)

    def from_addr(self, g: Graph, b: BuildContext, addr: str) -> ProviderNode:
        from tfconsole.walk.context import provider_source_of

        source = provider_source_of(addr)
        module = ModulePath()
        alias = None
        rest = addr[addr.find('"]') + 2:]
        if rest.startswith("."):
            alias = rest[1:]
        if addr.startswith("module."):
            parts = addr[: addr.find("provider[")].rstrip(".").split(".")
            module = ModulePath(tuple(parts[i + 1] for i in range(0, len(parts), 2)))
        block = None
        mod_cfg = b.config.module_at(module)
        if mod_cfg is not None:
            for (name, al), pb in mod_cfg.providers.items():
                if al == alias and self.source_for(mod_cfg, name) == source:
                    block = pb
        local = source.rsplit("/", 1)[-1]
        node = ProviderNode(module, local, alias, source, block)
        node.addr = addr
        node.name = addr
        b.providers[addr] = node
        g.add(node)
        return node

    @staticmethod
    def source_for(mod: Module, local: str) -> str:
        rp = mod.required_providers.get(local)
        if rp is not None:
            return normalize_source(rp.source)
        if local == "terraform":
            return "terraform.io/builtin/terraform"
        return normalize_source(f"hashicorp/{local}")

    def resolve(self, g: Graph, b: BuildContext, mod: ModulePath, local: str, alias: str | None,
                rc: Any) -> ProviderNode | None:
        # walk up through module calls: explicit `providers` maps, then implicit inheritance
        path = mod
        while True:
            mod_cfg = b.config.module_at(path)
            if mod_cfg is None:
                return None
            if (local, alias) in mod_cfg.providers:
                return self._node(g, b, path, local, alias, mod_cfg)
            if path.is_root:
                if alias is not None:
                    b.diags.error("Provider configuration not present",
                                  f"To work with {rc.addr if rc else local} its original provider configuration at "
                                  f"provider[\"{self.source_for(mod_cfg, local)}\"].{alias} is required, but it has "
                                  "been removed.", rc.provider_range if rc else None)
                    return None
                return self._node(g, b, path, local, None, mod_cfg)
            parent = b.config.module_at(ModulePath(path.path[:-1]))
            call = parent.module_calls.get(path.path[-1]) if parent else None
            key = local + (f".{alias}" if alias else "")
            if call is not None and key in call.providers:
                local, alias = call.providers[key]
            elif alias is not None:
                b.diags.error("Provider configuration not present",
                              f"Module {path} requires provider configuration {key}, which must be passed in "
                              "the module call's providers argument.", call.range if call else None)
                return None
            path = ModulePath(path.path[:-1])

    def _node(self, g: Graph, b: BuildContext, path: ModulePath, local: str, alias: str | None,
              mod_cfg: Module) -> ProviderNode:
        source = self.source_for(mod_cfg, local)
        addr = path.prefix() + f'provider["{source}"]' + (f".{alias}" if alias else "")
        node = b.providers.get(addr)
        if node is None:
            node = ProviderNode(path, local, alias, source, mod_cfg.providers.get((local, alias)))
            b.providers[addr] = node
            g.add(node)
        return node
