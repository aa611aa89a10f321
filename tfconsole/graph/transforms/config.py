"""ConfigTransformer: a vertex per configuration object."""
from __future__ import annotations

from tfconsole.addrs import Module as ModulePath
from ..dag import Graph
from ..nodes.ephemeral import EphemeralResourceNode
from ..nodes.resource import ApplyResourceNode, ResourceNode
from ..nodes.values import CheckNode, LocalNode, ModuleExpandNode, OutputNode, VariableNode
from .base import BuildContext, Transform

class ConfigTransformer(Transform):
    """One vertex per resource/data block, variable, local, output, module call and check."""

    def __init__(self, resources: bool = True, apply: bool = False, destroy_outputs: bool = False,
                 ephemeral: bool | None = None):
        self.resources = resources
        self.apply = apply
        self.destroy_outputs = destroy_outputs
        self.ephemeral = resources if ephemeral is None else ephemeral  # ephemeral resource blocks

    def transform(self, g: Graph, b: BuildContext) -> None:
        for mod in b.config.descendants():
            parent = b.config.module_at(ModulePath(mod.path.path[:-1])) if not mod.path.is_root else None
            call = parent.module_calls.get(mod.path.path[-1]) if parent else None
            for v in mod.variables.values():
                g.add(VariableNode(mod.path, v, call))
            for loc in mod.locals.values():
                g.add(LocalNode(mod.path, loc.name, loc.expr, loc.range))
            for out in mod.outputs.values():
                g.add(OutputNode(mod.path, out, destroy=self.destroy_outputs))
            for c in mod.module_calls.values():
                if c.name in mod.children:
                    g.add(ModuleExpandNode(mod.path, c))
            for chk in mod.checks.values():
                g.add(CheckNode(mod.path, chk))
            if call is not None:
                # inputs the child does not declare
                for aname, attr in call.body.attributes.items():
                    if aname not in mod.variables:
                        b.diags.error("Unsupported argument",
                                      f"An argument named \"{aname}\" is not expected here.", attr.name_range)
            if self.ephemeral:
                for rc in mod.ephemeral_resources.values():
                    g.add(EphemeralResourceNode(rc))
            if not self.resources:
                continue
            for rc in mod.resources.values():
                node = ApplyResourceNode(rc, "") if self.apply else ResourceNode(rc)
                if not self.apply:
                    node.targets = b.targets
                    node.replace = b.replace
                    if b.config.imports:
                        from ..nodes.importing import blocks_for

                        node.imports = blocks_for(b.config, rc)
                g.add(node)
                b.resource_nodes[(mod.path, rc.addr)] = node
