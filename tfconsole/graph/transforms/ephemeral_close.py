"""EphemeralCloseTransformer: a close vertex per ephemeral resource, after all its dependents."""
from __future__ import annotations

from ..dag import Graph
from ..nodes.ephemeral import EphemeralCloseNode, EphemeralResourceNode
from .base import BuildContext, Transform


class EphemeralCloseTransformer(Transform):
    """Terraform closes an ephemeral resource once nothing that uses it can still run: the close
    vertex waits for the opener and everything that depends on it, directly or not (a provider
    configured from it, and that provider's resources)."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        for opener in [v for v in g.vertices() if isinstance(v, EphemeralResourceNode)]:
            users = g.descendants(opener)
            close = g.add(EphemeralCloseNode(opener))
            g.connect(close, opener)
            for u in users:
                g.connect(close, u)
