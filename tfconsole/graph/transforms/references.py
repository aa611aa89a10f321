"""ReferenceTransformer: edges from references and depends_on."""
from __future__ import annotations

from typing import Any
from tfconsole.addrs import Module as ModulePath
from ..dag import Graph
from ..nodes.base import Referenceable, Referencer
from ..nodes.values import ModuleExpandNode
from .base import BuildContext, Transform, _module_of

class ReferenceTransformer(Transform):
    """Edges from every referencer to the vertices its expressions refer to."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        index: dict[tuple, list[Any]] = {}
        by_module: dict[ModulePath, list[Any]] = {}
        for v in g.vertices():
            if isinstance(v, Referenceable):
                for k in v.referenceable_keys():
                    index.setdefault(k, []).append(v)
            mod = _module_of(v)
            if mod is not None and not mod.is_root and not isinstance(v, ModuleExpandNode) or \
                    isinstance(v, ModuleExpandNode) and not v.module.is_root:
                by_module.setdefault(mod if not isinstance(v, ModuleExpandNode) else v.module, []).append(v)

        def inside(path: ModulePath) -> list[Any]:
            # a reference to a whole module (module.m, depends_on = [module.m]) waits for all of it
            out: list[Any] = []
            n = len(path.path)
            for mp, vs in by_module.items():
                if mp.path[:n] == path.path:
                    out.extend(vs)
            return out
        edges: list[tuple[Any, Any]] = []
        for v in g.vertices():
            if not isinstance(v, Referencer):
                continue
            # each key once: a merge over 15 layers x 10 services names each layer 10 times
            for key in dict.fromkeys(v.reference_keys()):
                targets = list(index.get(key, ()))
                mod, name = key
                if name.startswith("module."):
                    targets.extend(inside(mod.child(name[7:])))
                if name.startswith("output."):
                    exp = index.get((ModulePath(mod.path[:-1]), f"module.{mod.path[-1]}"), []) if mod.path else []
                    targets.extend(exp)
                edges.extend((v, t) for t in targets)
        g.connect_many(edges)  # one rustworkx call, in the order connect() would have added them
