"""RootTransformer: a single root vertex."""
from __future__ import annotations

from tfconsole.lang import ast as A
from ..dag import Graph
from ..nodes.values import RootNode
from .base import BuildContext, Transform

class RootTransformer(Transform):
    """A single root: it depends on every vertex nothing else depends on."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        sinks = [v for v in g.vertices() if not g.dependents(v)]
        root = g.add(RootNode())
        for s in sinks:
            g.connect(root, s)
