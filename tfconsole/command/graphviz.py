"""DOT output for `tfconsole graph`, in Terraform's style."""
from __future__ import annotations

from typing import Any


def resources_dot(g: Any) -> str:
    """Terraform's default `graph`: resources only, module resources in clusters, direct edges."""
    import rustworkx as rx

    from tfconsole.graph.nodes.resource import ApplyResourceNode, ResourceNode

    res = [v for v in g.vertices() if isinstance(v, (ResourceNode, ApplyResourceNode))]
    by_module: dict[str, list[Any]] = {}
    for v in res:
        by_module.setdefault(str(v.rc.module), []).append(v)
    order: list[Any] = []
    lines = ["digraph G {", '  rankdir = "RL";', '  node [shape = rect, fontname = "sans-serif"];']
    for v in sorted(by_module.get("", []), key=lambda x: x.name):
        lines.append(f'  "{_esc(v.name)}" [label="{_esc(v.name)}"];')
        order.append(v)
    for mod in sorted(m for m in by_module if m):
        lines += [f'  subgraph "cluster_{_esc(mod)}" {{', f'    label = "{_esc(mod)}"', '    fontname = "sans-serif"']
        for v in sorted(by_module[mod], key=lambda x: x.name):
            lines.append(f'    "{_esc(v.name)}" [label="{_esc(str(v.rc.addr))}"];')
            order.append(v)
        lines.append("  }")
    # resource-level edges: the nearest resources upstream through non-resource vertices
    ids = {id(v): i for i, v in enumerate(order)}
    rg = rx.PyDiGraph()
    rg.add_nodes_from(range(len(order)))
    for v in order:
        seen: set[int] = set()
        stack = list(g.dependencies(v))
        while stack:
            u = stack.pop()
            if id(u) in seen:
                continue
            seen.add(id(u))
            if id(u) in ids:
                rg.add_edge(ids[id(v)], ids[id(u)], None)
            else:
                stack.extend(g.dependencies(u))
    if rg.num_edges():
        reduced, mapping = rx.transitive_reduction(rg)
        inverse = {new: old for old, new in mapping.items()}
        edges = sorted({(inverse[a], inverse[b]) for a, b in reduced.edge_list()},
                       key=lambda e: (e[0], order[e[1]].name))
        for a, b in edges:
            lines.append(f'  "{_esc(order[a].name)}" -> "{_esc(order[b].name)}";')
    lines.append("}")
    return "\n".join(lines)


def to_dot(g: Any, full: bool = False) -> str:
    from tfconsole.graph.nodes.resource import ApplyResourceNode, ResourceNode

    if not full:
        return resources_dot(g)

    def keep(v: Any) -> bool:
        return full or isinstance(v, (ResourceNode, ApplyResourceNode))

    verts = [v for v in g.vertices() if keep(v)]
    lines = ["digraph G {", "  rankdir = \"RL\";", "  node [shape = rect, fontname = \"sans-serif\"];"]
    for v in sorted(verts, key=lambda x: x.name):
        label = v.name
        kind = getattr(v, "kind", "node")
        shape = {"provider": "diamond", "module_expand": "box", "root": "point"}.get(kind)
        extra = f", shape = \"{shape}\"" if shape and full else ""
        lines.append(f"  \"{_esc(label)}\" [label=\"{_esc(label)}\"{extra}];")
    keep_ids = {id(v) for v in verts}
    if full:
        edges = [(a, b) for a, b in g.edges() if id(a) in keep_ids and id(b) in keep_ids]
    else:
        # resources only: connect a resource to the resources among its ancestors it reaches directly
        edges = []
        for v in verts:
            for a in g.ancestors(v):
                if id(a) in keep_ids:
                    edges.append((a, v))
    for dep, dependent in sorted(edges, key=lambda e: (e[1].name, e[0].name)):
        lines.append(f"  \"{_esc(dependent.name)}\" -> \"{_esc(dep.name)}\";")
    lines.append("}")
    return "\n".join(lines)


def _esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')
