"""TargetsTransformer and ExcludeTransformer: -target and -exclude."""
from __future__ import annotations

from tfconsole.addrs import AbsResourceInstance as _ARI
from ..dag import Graph
from ..nodes.resource import PlanOrphanNode, ResourceNode
from ..nodes.values import OutputNode
from .base import BuildContext, Transform, _config_target_match, _selects_every_instance, _target_contains

class TargetsTransformer(Transform):
    """-target: keep the targeted resources and everything they depend on."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        if not b.targets:
            return
        keep: set[int] = set()
        seeds = []
        for v in g.vertices():
            if isinstance(v, (ResourceNode,)):
                mod_inst_match = any(_config_target_match(t, v) for t in b.targets)
                if mod_inst_match:
                    seeds.append(v)
            if isinstance(v, PlanOrphanNode):
                seeds.append(v)
        for v in g.vertices():
            if isinstance(v, ResourceNode):
                # only a directly targeted resource narrows to its targeted instances; resources
                # pulled in as dependencies are planned whole
                direct = [t for t in b.targets if _config_target_match(t, v)]
                whole = any(_selects_every_instance(t) for t in direct)
                v.targets = [] if whole else direct
        for s in seeds:
            keep.add(id(s))
            for a in g.ancestors(s):
                keep.add(id(a))
        for v in g.vertices():
            if isinstance(v, OutputNode):
                anc = g.ancestors(v)
                res = [a for a in anc if isinstance(a, ResourceNode)]
                if res and all(id(a) in keep for a in res):
                    keep.add(id(v))
                    keep.update(id(a) for a in anc)
        for v in g.vertices():
            if id(v) not in keep:
                g.remove(v)


class ExcludeTransformer(Transform):
    """-exclude: drop excluded resources (and modules) and everything that depends on them;
    an excluded instance is skipped within its resource's expansion."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        if not b.excludes:
            return
        drop: set[int] = set()
        for v in g.vertices():
            if isinstance(v, ResourceNode):
                whole = [t for t in b.excludes if not isinstance(t, _ARI) and _config_target_match(t, v)]
                if whole:
                    drop.add(id(v))
                    for d in g.descendants(v):
                        if isinstance(d, (ResourceNode, OutputNode)):
                            drop.add(id(d))
                else:
                    v.excludes = [t for t in b.excludes if isinstance(t, _ARI) and _config_target_match(t, v)]
            elif isinstance(v, PlanOrphanNode):
                if any(_target_contains(t, v.addr) for t in b.excludes):
                    drop.add(id(v))
        for v in g.vertices():
            if id(v) in drop:
                g.remove(v)
