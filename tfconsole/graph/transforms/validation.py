"""CycleValidationTransformer and SelfReferenceTransformer: graph errors with their members."""
from __future__ import annotations

from tfconsole.lang import ast as A
from ..dag import Graph
from ..nodes.resource import ResourceNode
from ..nodes.values import LocalNode
from .base import BuildContext, Transform, _all_attrs

class CycleValidationTransformer(Transform):
    """A cycle is an error that names every member."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        for cyc in g.cycles():
            names = sorted(v.name for v in cyc)
            b.diags.error("Cycle: " + ", ".join(names),
                          "The configuration contains a dependency cycle between: " + ", ".join(names) + ".")


class SelfReferenceTransformer(Transform):
    """A resource referring to itself is an error of its own (not a cycle)."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        for v in g.vertices():
            if isinstance(v, LocalNode):
                from ..nodes.base import key_for_traversal

                for ref in A.references(v.expr):
                    if key_for_traversal(v.module, ref) == (v.module, f"local.{v.local_name}"):
                        b.diags.error("Self-referencing local value",
                                      f"Local value local.{v.local_name} cannot use its own result as part of its "
                                      "expression.", ref.range)
                        break
            if isinstance(v, ResourceNode):
                own = (v.module, str(v.rc.addr))
                exprs = [a.expr for a in _all_attrs(v.rc.body)] + [v.rc.count, v.rc.for_each]
                from ..nodes.base import expr_keys

                for e in exprs:
                    if e is None:
                        continue
                    for ref in A.references(e):
                        from ..nodes.base import key_for_traversal

                        if key_for_traversal(v.module, ref) == own:
                            b.diags.error("Self-referential block",
                                          f"Configuration for {v.name} may not refer to itself.", ref.range,
                                          address=v.name)
                            break
