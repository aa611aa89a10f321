"""The transforms that start the two destroy graphs from what is to be destroyed.

DestroyPlanTransformer: a destroy plan has one delete vertex per object in state (current and
deposed), all of them, or with -target the targets and everything in state depending on them.
DestroyChangesTransformer: applying a destroy plan has one destroy vertex per planned delete or
forget. The other steps of both graphs (providers, destroy ordering, root) are the shared ones.
"""
from __future__ import annotations

from tfconsole.addrs import target_contains
from tfconsole.plans import Action
from tfconsole.states.state import State

from ..dag import Graph
from ..nodes.resource import DestroyInstanceNode, PlanOrphanNode
from .base import BuildContext, Transform


class DestroyPlanTransformer(Transform):
    def transform(self, g: Graph, b: BuildContext) -> None:
        selected = destroy_selection(b.state, b.targets)
        for rs in b.state.resources.values():
            for key, inst in rs.instances.items():
                addr = rs.addr.instance(key)
                if selected is not None and addr not in selected:
                    continue
                if inst.current is not None:
                    g.add(PlanOrphanNode(addr, rs.provider, "", rs.addr.resource.mode))
                for dk in inst.deposed:
                    g.add(PlanOrphanNode(addr, rs.provider, "", rs.addr.resource.mode, deposed=dk))


class DestroyChangesTransformer(Transform):
    def transform(self, g: Graph, b: BuildContext) -> None:
        assert b.plan is not None
        for ch in b.plan.changes:
            if ch.action in (Action.DELETE, Action.FORGET):
                mod = b.config.module_at(ch.addr.module.module())
                rc = mod.resources.get(ch.addr.resource) if mod else None
                g.add(DestroyInstanceNode(ch, rc))


def destroy_selection(state: State, targets: list) -> set | None:
    """-target with destroy: the targets plus everything in state that depends on them."""
    if not targets:
        return None
    selected = {a for a, _ in state.all_instances() if any(target_contains(t, a) for t in targets)}
    changed = True
    while changed:
        changed = False
        configs = {str(a.config()) for a in selected}
        for a, inst in state.all_instances():
            if a in selected:
                continue
            objs = ([inst.current] if inst.current else []) + list(inst.deposed.values())
            if any(dep in configs for o in objs for dep in o.dependencies):
                selected.add(a)
                changed = True
    return selected
