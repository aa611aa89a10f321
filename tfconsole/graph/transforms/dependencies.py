"""AttachDependenciesTransformer: each resource learns what it depends on."""
from __future__ import annotations

from ..dag import Graph
from ..nodes.resource import ApplyInstanceNode, ApplyResourceNode, ResourceNode
from .base import BuildContext, Transform

class AttachDependenciesTransformer(Transform):
    """Each resource learns the resources it transitively depends on (stored in state). Data
    resources count too: Terraform 1.15 lists them (tests/test_plugin_differential.py)."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        resources = [v for v in g.g.nodes() if isinstance(v, (ResourceNode, ApplyResourceNode))]
        if len(resources) <= _FEW:
            # a few resources of many instances (the flat apply graph): each resource's ancestors
            # searched by rustworkx, instead of a set per vertex
            _few_resource_dependencies(g, resources)
        else:
            found = _resource_ancestors(g)
            for v in resources:
                if found is None:  # a cycle: the cycle check reports it; walk ancestors one by one
                    deps = {n for n in map(_resource_name, g.ancestors(v)) if n is not None}
                else:
                    deps = set(found[g.idx(v)])
                deps.discard(v.name)
                v.dependencies = sorted(deps)
        # create_before_destroy is inherited by everything a create_before_destroy resource depends on
        for v in resources:
            if isinstance(v, ResourceNode) and v.rc.lifecycle.create_before_destroy:
                for a in g.ancestors(v):
                    if isinstance(a, ResourceNode):
                        a.force_cbd = True


_FEW = 8  # resources for which an ancestor search each costs less than the pass over every vertex


def _few_resource_dependencies(g: Graph, resources: list) -> None:
    """Each resource's `dependencies`: the resources any of its ancestors stands for, its vertices
    grouped by the resource they stand for and each group tested against the ancestors once."""
    import rustworkx as rx

    groups: dict[str, list[int]] = {}
    names: dict[tuple, str] = {}
    for i, v in zip(g.g.node_indices(), g.g.nodes()):
        if isinstance(v, ApplyInstanceNode):
            key = (v.addr.module, v.addr.resource)
            name = names.get(key)
            if name is None:
                name = names[key] = str(v.addr.config())
        else:
            name = _resource_name(v)
        if name is not None:
            groups.setdefault(name, []).append(i)
    for v in resources:
        anc = rx.ancestors(g.g, g.idx(v))
        v.dependencies = sorted(n for n, idxs in groups.items() if n != v.name and not anc.isdisjoint(idxs))


def _resource_name(v: object) -> str | None:
    """The resource a vertex stands for in `dependencies`, if any. An apply graph's reference
    to one instance goes to that instance's vertex, not its resource's barrier: the resource is
    a dependency all the same."""
    if isinstance(v, (ResourceNode, ApplyResourceNode)):
        return v.name
    if isinstance(v, ApplyInstanceNode):
        return str(v.addr.config())
    return None


def _resource_ancestors(g: Graph) -> dict[int, frozenset[str]] | None:
    """For every vertex index, the resources among its ancestors, in one pass in topological
    order (each vertex unions what its dependencies carry), instead of an ancestor search per
    resource. Equal sets are shared, so memory stays near the number of distinct sets. None
    when the graph has a cycle."""
    import rustworkx as rx

    try:
        order = rx.topological_sort(g.g)
    except rx.DAGHasCycle:
        return None
    empty: frozenset[str] = frozenset()
    interned: dict[frozenset[str], frozenset[str]] = {empty: empty}
    own: dict[int, str | None] = {}
    out: dict[int, frozenset[str]] = {}
    names: dict[tuple, str] = {}  # an apply graph's instances name their resource: printed once each
    for n in order:
        acc: set[str] = set()
        for p in g.g.predecessor_indices(n):
            acc |= out[p]
            name = own[p]
            if name is not None:
                acc.add(name)
        fs = frozenset(acc)
        out[n] = interned.setdefault(fs, fs)
        v = g.g[n]
        if isinstance(v, ApplyInstanceNode):
            key = (v.addr.module, v.addr.resource)
            name = names.get(key)
            if name is None:
                name = names[key] = str(v.addr.config())
            own[n] = name
        else:
            own[n] = _resource_name(v)
    return out

