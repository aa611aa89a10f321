"""MissingImportTargetsTransformer: the validate graph's vertices for import blocks whose target
resource has no configuration (graph/nodes/importing.MissingTargetNode), and Terraform's
graph-building error for a target inside a module the configuration does not have."""
from __future__ import annotations

from tfconsole.addrs import Module as ModulePath

from ..dag import Graph
from ..nodes.importing import MissingTargetNode, missing_module_errors, missing_targets
from .base import BuildContext, Transform


class MissingImportTargetsTransformer(Transform):
    """validate: every such target; plan (`plan=True`, after validation passed): those of import
    blocks with for_each, whose keys only the plan knows."""

    def __init__(self, plan: bool = False):
        self.plan = plan

    def transform(self, g: Graph, b: BuildContext) -> None:
        if not b.config.imports or b.destroy:
            return
        if self.plan:
            for imp, to in missing_targets(b.config):
                if imp.for_each is not None:
                    g.add(MissingTargetNode(imp, to))
            return
        errors = missing_module_errors(b.config)
        if errors.has_errors:
            b.diags.extend(errors)
            return
        for imp, to in missing_targets(b.config):
            if b.config.module_at(ModulePath(tuple(n for n, _ in to.module_steps))) is not None:
                g.add(MissingTargetNode(imp, to))
