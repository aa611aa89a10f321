"""ProviderValuesTransformer: what provider configurations refer to, in the destroy graphs."""
from __future__ import annotations

from typing import Any

from ..dag import Graph
from ..nodes.base import Referenceable
from ..nodes.values import ProviderNode
from .base import BuildContext, Transform
from .config import ConfigTransformer
from .module_expansion import ModuleExpansionTransformer
from .providers import ProviderTransformer
from .references import ReferenceTransformer


class ProviderValuesTransformer(Transform):
    """A destroy has no configuration vertices, yet its providers are configured from variables,
    locals, module outputs or ephemeral resources as in a plan. This brings in exactly those
    vertices and everything they need in turn (an ephemeral resource's own provider included),
    and nothing else of the configuration."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        scratch = Graph()
        sb = BuildContext(b.config, b.state, diags=b.diags)
        ConfigTransformer(resources=False, ephemeral=True).transform(scratch, sb)
        ModuleExpansionTransformer().transform(scratch, sb)
        ReferenceTransformer().transform(scratch, sb)
        by_key: dict[tuple, list[Any]] = {}
        for v in scratch.vertices():
            if isinstance(v, Referenceable):
                for k in v.referenceable_keys():
                    by_key.setdefault(k, []).append(v)
        taken: set[int] = set()
        for _ in range(len(scratch) + 1):  # each round may bring in an ephemeral resource's provider
            wanted = {k for p in g.vertices() if isinstance(p, ProviderNode) for k in p.reference_keys()}
            roots = [v for k in wanted for v in by_key.get(k, ())]
            keep = {id(v): v for r in roots for v in [r, *scratch.ancestors(r)] if id(v) not in taken}
            if not keep:
                return
            taken.update(keep)
            for v in keep.values():
                g.add(v)
            for dep, dependent in scratch.edges():
                if id(dep) in taken and id(dependent) in taken:
                    g.connect(dependent, dep)
            ProviderTransformer().transform(g, b)
