"""OrphanResourceTransformer: resources in state with no configuration."""
from __future__ import annotations

from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any
from tfconsole.addrs import AbsResourceInstance, Module as ModulePath
from tfconsole.config.model import Module
from tfconsole.plans import REASON_NO_RESOURCE_CONFIG
from ..dag import Graph
from .. import orphans as orphan_rules
from ..nodes.resource import PlanOrphanNode
from .base import BuildContext, Transform, _target_contains

class OrphanResourceTransformer(Transform):
    """Resources in state with no configuration (resource or whole module removed)."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        removed = _removed_blocks(b.config)
        for rs in b.state.resources.values():
            mod_cfg = b.config.module_at(rs.addr.module.module())
            if mod_cfg is not None and rs.addr.resource in mod_cfg.resources:
                # deposed objects of configured resources are orphans too
                for key, inst in rs.instances.items():
                    for dk in inst.deposed:
                        g.add(PlanOrphanNode(rs.addr.instance(key), rs.provider, REASON_NO_RESOURCE_CONFIG,
                                             rs.addr.resource.mode, deposed=dk))
                continue
            for key, inst in rs.instances.items():
                addr = rs.addr.instance(key)
                reason = orphan_rules.orphan_reason(key, module_declared=mod_cfg is not None, resource_declared=False)
                assert reason is not None
                if b.targets and not any(_target_contains(t, addr) for t in b.targets):
                    continue
                forget = any(_removed_matches(r, addr) and not r.destroy for r in removed)
                if inst.current is not None:
                    g.add(PlanOrphanNode(addr, rs.provider, reason, rs.addr.resource.mode, forget=forget))
                for dk in inst.deposed:
                    g.add(PlanOrphanNode(addr, rs.provider, reason, rs.addr.resource.mode, deposed=dk))


def _removed_blocks(config: Module) -> list[Any]:
    out = []
    for m in config.descendants():
        for r in m.removed:
            out.append((m.path, r))
    return [_Removed(p, r.from_addr, r.destroy, r.provisioners, r.range) for p, r in out]


@dataclass
class _Removed:
    module: ModulePath
    from_addr: str
    destroy: bool
    provisioners: list[Any] = field(default_factory=list)
    range: Any = None


def removed_config(config: Module, addr: AbsResourceInstance) -> Any:
    """For an instance a `removed` block destroys: a configuration carrying that block's
    destroy-time provisioners (None when no such block has any)."""
    from tfconsole.config.body import Body
    from tfconsole.config.model import ResourceConfig

    for r in _removed_blocks(config):
        if r.destroy and r.provisioners and _removed_matches(r, addr):
            return ResourceConfig(addr.resource, addr.module.module(), Body(), provisioners=r.provisioners,
                                  range=r.range)
    return None


def _removed_matches(r: _Removed, addr: AbsResourceInstance) -> bool:
    text = (r.module.prefix() + r.from_addr)
    s = str(addr.abs_resource())
    mod = str(addr.module.module())
    return s.startswith(text) and (len(s) == len(text) or s[len(text)] in ".[") or \
        (mod + ".").startswith(text + ".") or str(addr.config()) == text
