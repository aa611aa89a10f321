"""RootTransformer: a single root vertex."""
from __future__ import annotations

from tfconsole.lang import ast as A
from ..dag import Graph
from ..nodes.values import RootNode
from .base import BuildContext, Transform

class RootTransformer(Transform):
    """A single root: it depends on every vertex nothing else depends on."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        gg = g.g
        sinks = [gg[i] for i in gg.node_indices() if not gg.out_degree(i)]
        root = g.add(RootNode())
        g.connect_new([(root, s) for s in sinks])  # a new vertex's edges are new
