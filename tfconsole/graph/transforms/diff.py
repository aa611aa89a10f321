"""DiffTransformer: the apply graph's vertices, one per planned change."""
from __future__ import annotations

from tfconsole.plans import Action
from ..dag import Graph
from ..nodes.resource import ApplyInstanceNode, DestroyInstanceNode
from .base import BuildContext, Transform

class DiffTransformer(Transform):
    """Apply graph: one vertex per planned change; replacements split into destroy and create."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        assert b.plan is not None
        import uuid

        # the configuration and barrier of each resource, looked up once: a plan file's changes
        # share their module and resource address objects, so identity finds them (an equal
        # but distinct object only misses the memo)
        found: dict[tuple[int, int], tuple] = {}
        # every vertex here is new, so are its edges: both are added in bulk at the end, in
        # the order one add/connect per change would have made them
        nodes: list = []
        edges: list[tuple] = []  # (dependent, dependency)
        for ch in b.plan.changes:
            a = ch.action
            if a is Action.NOOP and ch.importing is None:
                continue
            key = (id(ch.addr.module), id(ch.addr.resource))
            hit = found.get(key)
            if hit is None or hit[0] is not ch.addr.module or hit[1] is not ch.addr.resource:
                module = ch.addr.module.module()
                mod_cfg = b.config.module_at(module)
                hit = found[key] = (ch.addr.module, ch.addr.resource,
                                    mod_cfg.resources.get(ch.addr.resource) if mod_cfg else None,
                                    b.resource_nodes.get((module, ch.addr.resource)),
                                    b.instances.setdefault((ch.addr.module, ch.addr.resource), {}))
            rc, barrier, instances = hit[2], hit[3], hit[4]
            if a in (Action.CREATE, Action.UPDATE, Action.READ, Action.NOOP):  # NOOP: an import only
                n = instances[ch.addr.key] = ApplyInstanceNode(ch, rc, barrier)
                nodes.append(n)
                if barrier is not None:
                    barrier.provider_addr = ch.provider
                    edges.append((barrier, n))
            elif a in (Action.DELETE, Action.FORGET):
                if rc is None and a is Action.DELETE:  # a `removed` block's destroy-time provisioners
                    from .orphans import removed_config

                    rc = removed_config(b.config, ch.addr)
                nodes.append(DestroyInstanceNode(ch, rc))
            elif a is Action.DELETE_THEN_CREATE:
                d = DestroyInstanceNode(ch, rc)
                c = instances[ch.addr.key] = ApplyInstanceNode(ch, rc, barrier)
                nodes += (d, c)
                edges.append((c, d))
                if barrier is not None:
                    barrier.provider_addr = ch.provider
                    edges.append((barrier, c))
            elif a is Action.CREATE_THEN_DELETE:
                key = uuid.uuid4().hex[:8]
                c = instances[ch.addr.key] = ApplyInstanceNode(ch, rc, barrier, deposed_key=key)
                d = DestroyInstanceNode(ch, rc, deposed_key=key)
                nodes += (c, d)
                edges.append((d, c))
                if barrier is not None:
                    barrier.provider_addr = ch.provider
                    edges.append((barrier, c))
        g.add_many(nodes)
        g.connect_new(edges)
