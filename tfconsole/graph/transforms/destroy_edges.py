"""DestroyEdgeTransformer: destroys in reverse dependency order."""
from __future__ import annotations

from ..dag import Graph
from ..nodes.resource import ApplyInstanceNode, DestroyInstanceNode
from .base import BuildContext, Transform

class DestroyEdgeTransformer(Transform):
    """Destroys run in reverse dependency order; create_before_destroy destroys wait for creates."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        destroys: dict[str, list[DestroyInstanceNode]] = {}
        deps_of: dict[int, set[str]] = {}
        creates: list[ApplyInstanceNode] = []
        vertices = g.vertices()
        if not any(isinstance(v, DestroyInstanceNode) for v in vertices):
            return  # (nothing is destroyed: no edge to add)
        for v in vertices:
            if isinstance(v, DestroyInstanceNode):
                destroys.setdefault(str(v.addr.config()), []).append(v)
                inst = b.state.instance(v.addr)
                obj = None
                if inst is not None:
                    obj = inst.deposed.get(v.deposed_key) if v.deposed_key else inst.current
                deps = set(obj.dependencies if obj else [])
                node = b.resource_nodes.get((v.addr.module.module(), v.addr.resource))
                if node is not None:
                    deps |= set(getattr(node, "dependencies", []))
                deps_of[id(v)] = deps
            elif isinstance(v, ApplyInstanceNode):
                creates.append(v)
        for v in list(destroys.values()):
            for d in v:
                for dep in deps_of[id(d)]:
                    for target in destroys.get(dep, ()):
                        if target is not d:
                            g.connect(target, d)  # destroy the dependency after its dependent
        # a create_before_destroy object is destroyed after dependents moved to the new one
        for c in creates:
            deps = set(getattr(c.resource_node, "dependencies", []) if c.resource_node else [])
            for dep in deps:
                for target in destroys.get(dep, ()):
                    if target.deposed_key:
                        g.connect(target, c)
