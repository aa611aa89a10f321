"""TransitiveReductionTransformer: redundant edges removed."""
from __future__ import annotations

from ..dag import Graph
from .base import BuildContext, Transform

class TransitiveReductionTransformer(Transform):
    def transform(self, g: Graph, b: BuildContext) -> None:
        g.transitive_reduction()
