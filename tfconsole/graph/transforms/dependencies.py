"""AttachDependenciesTransformer: each resource learns what it depends on."""
from __future__ import annotations

from ..dag import Graph
from ..nodes.resource import ApplyInstanceNode, ApplyResourceNode, ResourceNode
from .base import BuildContext, Transform

class AttachDependenciesTransformer(Transform):
    """Each resource learns the resources it transitively depends on (stored in state). Data
    resources count too: Terraform 1.15 lists them (tests/test_plugin_differential.py)."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        for v in g.vertices():
            if isinstance(v, (ResourceNode, ApplyResourceNode)):
                deps = set()
                for a in g.ancestors(v):
                    if isinstance(a, (ResourceNode, ApplyResourceNode)):
                        deps.add(a.name)
                    elif isinstance(a, ApplyInstanceNode):
                        # an apply graph's reference to one instance goes to that instance's
                        # vertex, not its resource's barrier: the resource is a dependency all the same
                        deps.add(str(a.addr.config()))
                deps.discard(v.name)
                v.dependencies = sorted(deps)
        # create_before_destroy is inherited by everything a create_before_destroy resource depends on
        for v in g.vertices():
            if isinstance(v, ResourceNode) and v.rc.lifecycle.create_before_destroy:
                for a in g.ancestors(v):
                    if isinstance(a, ResourceNode):
                        a.force_cbd = True
