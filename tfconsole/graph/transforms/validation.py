"""CycleValidationTransformer and SelfReferenceTransformer: graph errors with their members."""
from __future__ import annotations

from tfconsole.diags import SourceRange
from tfconsole.lang import ast as A

from ..dag import Graph
from ..nodes.resource import ResourceNode
from ..nodes.values import LocalNode
from .base import BuildContext, Transform, _all_attrs


class CycleValidationTransformer(Transform):
    """A cycle is an error that names every member: its address, as Terraform does, and (beyond
    Terraform) where in the configuration each one is declared. The summary stays Terraform's;
    the diagnostic has no single subject, the places are in its detail."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        for cyc in g.cycles():
            members = sorted(cyc, key=lambda v: v.name)
            lines = []
            for v in members:
                where = _declared_at(v)
                lines.append(f"  - {v.name}" + (f" ({where.filename}:{where.start.line})" if where else ""))
            b.diags.error("Cycle: " + ", ".join(v.name for v in members),
                          "The configuration contains a dependency cycle between:\n" + "\n".join(lines))


def _declared_at(v: object) -> SourceRange | None:
    """Where the configuration declares what vertex `v` stands for, if it is known."""
    rng = getattr(v, "range", None)
    if isinstance(rng, SourceRange):
        return rng
    for attr in ("rc", "var", "out", "call", "check", "config", "block"):
        rng = getattr(getattr(v, attr, None), "range", None)
        if isinstance(rng, SourceRange):
            return rng
    return None


class SelfReferenceTransformer(Transform):
    """A resource referring to itself is an error of its own (not a cycle)."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        for v in g.vertices():
            if isinstance(v, LocalNode):
                from ..nodes.base import key_for_traversal

                own = (v.module, f"local.{v.local_name}")
                name = v.local_name
                for ref in A.references(v.expr):
                    # only local.<its name> can be its own (key_for_traversal decides, for those)
                    steps = ref.steps
                    if ref.root == "local" and steps and getattr(steps[0], "name", None) == name and \
                            key_for_traversal(v.module, ref) == own:
                        b.diags.error("Self-referencing local value",
                                      f"Local value local.{v.local_name} cannot use its own result as part of its "
                                      "expression.", ref.range)
                        break
            if isinstance(v, ResourceNode):
                own = (v.module, str(v.rc.addr))
                own_root = own[1].split(".", 1)[0]  # what key_for_traversal's key starts with: the root
                exprs = [a.expr for a in _all_attrs(v.rc.body)] + [v.rc.count, v.rc.for_each]

                for e in exprs:
                    if e is None:
                        continue
                    for ref in A.references(e):
                        from ..nodes.base import key_for_traversal

                        if ref.root == own_root and key_for_traversal(v.module, ref) == own:
                            b.diags.error("Self-referential block",
                                          f"Configuration for {v.name} may not refer to itself.", ref.range,
                                          address=v.name)
                            break
