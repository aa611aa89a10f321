"""The expand steps: a resource vertex's instance subgraph, built from what its expansion found
(nodes/expansion.ExpandFacts) when the walk reached it.

ExpandInstancesTransformer adds a vertex per instance (skipped when -target / -exclude leave it
out); ExpandOrphansTransformer adds a delete for every instance in state that the expansion no
longer produces (a count index or for_each key gone, a module instance gone), with the reason
from graph/orphans.py; ValidateInstancesTransformer adds validate's one representative instance
per module instance.
"""
from __future__ import annotations

from tfconsole.addrs import target_contains

from .. import orphans as orphan_rules
from ..dag import Graph
from ..nodes.expansion import ExpandFacts
from ..nodes.resource import (
    PlanDataInstanceNode, PlanInstanceNode, PlanOrphanNode, PlanSkippedInstance, ValidateInstanceNode,
)


class ExpandInstancesTransformer:
    def transform(self, g: Graph, e: ExpandFacts) -> None:
        node = e.node
        kind = PlanDataInstanceNode if node.rc.addr.mode == "data" else PlanInstanceNode
        targets, excludes = node.targets, node.excludes
        for abs_res, exp in e.instances:
            for key in exp.keys:
                addr = abs_res.instance(key)
                if (targets or excludes) and (
                        (targets and not any(target_contains(t, addr) for t in targets))
                        or any(target_contains(t, addr) for t in excludes)):
                    g.add(PlanSkippedInstance(node, addr, exp))
                else:
                    g.add(kind(node, addr, exp))

    def __repr__(self) -> str:
        return type(self).__name__


class ExpandOrphansTransformer:
    def transform(self, g: Graph, e: ExpandFacts) -> None:
        node = e.node
        mode = node.rc.addr.mode

        def wanted(addr: object) -> bool:
            return not node.targets or any(target_contains(t, addr) for t in node.targets)

        for abs_res, exp in e.instances:
            provider, keys = e.in_state.get(abs_res, (None, []))
            live = set(exp.keys)
            for key in keys:
                if key in live:  # (before making its address: most keys in state are live)
                    continue
                addr = abs_res.instance(key)
                if not wanted(addr):
                    continue
                reason = orphan_rules.orphan_reason(key, module_declared=True, resource_declared=True, mode=exp.mode)
                g.add(PlanOrphanNode(addr, provider or node.provider_addr, reason or "", mode))
        for ra, provider, instances in e.gone:
            for key, has_current in instances:
                addr = ra.instance(key)
                if not has_current or not wanted(addr):
                    continue
                reason = orphan_rules.orphan_reason(key, module_declared=True, resource_declared=True,
                                                    module_instance_live=False)
                g.add(PlanOrphanNode(addr, provider, reason or "", mode))

    def __repr__(self) -> str:
        return type(self).__name__


class ValidateInstancesTransformer:
    def transform(self, g: Graph, e: ExpandFacts) -> None:
        for abs_res, rep in e.instances:
            g.add(ValidateInstanceNode(e.node, abs_res.instance(None), rep))

    def __repr__(self) -> str:
        return type(self).__name__
