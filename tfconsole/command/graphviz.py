"""DOT output for `tfconsole graph`, in Terraform's style."""
from __future__ import annotations

from typing import Any


def to_dot(g: Any, full: bool = False) -> str:
    from tfconsole.graph.nodes.resource import ApplyResourceNode, ResourceNode

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
