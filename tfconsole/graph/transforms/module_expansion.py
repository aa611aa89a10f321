"""ModuleExpansionTransformer: module contents wait for their module's expansion."""
from __future__ import annotations

from tfconsole.addrs import Module as ModulePath
from ..dag import Graph
from ..nodes.values import ModuleExpandNode
from .base import BuildContext, Transform, _module_of

class ModuleExpansionTransformer(Transform):
    """Everything inside a module waits for that module's expansion (and its call's depends_on)."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        expanders: dict[ModulePath, ModuleExpandNode] = {}
        for v in g.vertices():
            if isinstance(v, ModuleExpandNode):
                expanders[v.child_path] = v
        for v in g.vertices():
            mod = _module_of(v)
            if mod is None or mod.is_root:
                continue
            if isinstance(v, ModuleExpandNode) and v.child_path == mod:
                continue
            exp = expanders.get(mod)
            if exp is not None and exp is not v:
                g.connect(v, exp)
        # nested: a child's expander waits for its parent's expander
        for path, exp in expanders.items():
            parent_path = ModulePath(path.path[:-1])
            if not parent_path.is_root and parent_path in expanders:
                g.connect(exp, expanders[parent_path])
