"""Graph transforms: each takes the graph under construction and mutates it.

The builders (graph/builder.py) run them in a fixed order per operation; the order matters
and each builder's list says why each step stands where it does.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from tfconsole.addrs import AbsResourceInstance, AbsResourceInstance as _ARI, Module as ModulePath, ModuleInstance, Resource, parse_target
from tfconsole.config.model import Module
from tfconsole.diags import Diagnostics
from tfconsole.lang import ast as A
from tfconsole.lang.eval import Scope, evaluate
from tfconsole.lang.values import unmark
from tfconsole.plans import Action, Plan, REASON_NO_MODULE, REASON_NO_RESOURCE_CONFIG
from tfconsole.providers.registry import normalize_source
from tfconsole.states.state import State

from ..dag import Graph
from ..nodes.base import Node, ProviderConsumer, Referenceable, Referencer
from ..nodes.resource import (
    ApplyInstanceNode, ApplyResourceNode, DestroyInstanceNode, PlanOrphanNode, ResourceNode,
)
from ..nodes.values import (
    CheckNode, LocalNode, ModuleExpandNode, OutputNode, ProviderNode, RootNode, VariableNode,
)

log = logging.getLogger("tfconsole.graph")


@dataclass
class BuildContext:
    config: Module
    state: State
    diags: Diagnostics = field(default_factory=Diagnostics)
    targets: list[Any] = field(default_factory=list)
    excludes: list[Any] = field(default_factory=list)
    replace: set[AbsResourceInstance] = field(default_factory=set)
    plan: Plan | None = None
    destroy: bool = False
    providers: dict[str, ProviderNode] = field(default_factory=dict)
    resource_nodes: dict[tuple[ModulePath, Resource], Any] = field(default_factory=dict)


class Transform:
    def transform(self, g: Graph, b: BuildContext) -> None:
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__


# ---------------------------------------------------------------------------


class ConfigTransformer(Transform):
    """One vertex per resource/data block, variable, local, output, module call and check."""

    def __init__(self, resources: bool = True, apply: bool = False, destroy_outputs: bool = False):
        self.resources = resources
        self.apply = apply
        self.destroy_outputs = destroy_outputs

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
            if not self.resources:
                continue
            for rc in mod.resources.values():
                node = ApplyResourceNode(rc, "") if self.apply else ResourceNode(rc)
                if not self.apply:
                    node.targets = b.targets
                    node.replace = b.replace
                g.add(node)
                b.resource_nodes[(mod.path, rc.addr)] = node


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
            reason = REASON_NO_RESOURCE_CONFIG if mod_cfg is not None else REASON_NO_MODULE
            for key, inst in rs.instances.items():
                addr = rs.addr.instance(key)
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
    return [_Removed(p, r.from_addr, r.destroy) for p, r in out]


@dataclass
class _Removed:
    module: ModulePath
    from_addr: str
    destroy: bool


def _removed_matches(r: _Removed, addr: AbsResourceInstance) -> bool:
    text = (r.module.prefix() + r.from_addr)
    s = str(addr.abs_resource())
    mod = str(addr.module.module())
    return s.startswith(text) and (len(s) == len(text) or s[len(text)] in ".[") or \
        (mod + ".").startswith(text + ".") or str(addr.config()) == text


def _target_contains(t: Any, addr: AbsResourceInstance) -> bool:
    from tfconsole.addrs import target_contains

    return target_contains(t, addr)


class DiffTransformer(Transform):
    """Apply graph: one vertex per planned change; replacements split into destroy and create."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        assert b.plan is not None
        import uuid

        for ch in b.plan.changes:
            a = ch.action
            if a is Action.NOOP:
                continue
            mod_cfg = b.config.module_at(ch.addr.module.module())
            rc = mod_cfg.resources.get(ch.addr.resource) if mod_cfg else None
            barrier = b.resource_nodes.get((ch.addr.module.module(), ch.addr.resource))
            if a in (Action.CREATE, Action.UPDATE, Action.READ):
                n = ApplyInstanceNode(ch, rc, barrier)
                g.add(n)
                if barrier is not None:
                    barrier.provider_addr = ch.provider
                    g.connect(barrier, n)
            elif a in (Action.DELETE, Action.FORGET):
                g.add(DestroyInstanceNode(ch, rc))
            elif a is Action.DELETE_THEN_CREATE:
                d = g.add(DestroyInstanceNode(ch, rc))
                c = g.add(ApplyInstanceNode(ch, rc, barrier))
                g.connect(c, d)
                if barrier is not None:
                    barrier.provider_addr = ch.provider
                    g.connect(barrier, c)
            elif a is Action.CREATE_THEN_DELETE:
                key = uuid.uuid4().hex[:8]
                c = g.add(ApplyInstanceNode(ch, rc, barrier, deposed_key=key))
                d = g.add(DestroyInstanceNode(ch, rc, deposed_key=key))
                g.connect(d, c)
                if barrier is not None:
                    barrier.provider_addr = ch.provider
                    g.connect(barrier, c)


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


def _module_of(v: Any) -> ModulePath | None:
    if isinstance(v, (DestroyInstanceNode, ApplyInstanceNode, PlanOrphanNode)):
        return v.addr.module.module()
    if isinstance(v, ProviderNode):
        return None
    return getattr(v, "module", None)


class ReferenceTransformer(Transform):
    """Edges from every referencer to the vertices its expressions refer to."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        index: dict[tuple, list[Any]] = {}
        by_module: dict[ModulePath, list[Any]] = {}
        for v in g.vertices():
            if isinstance(v, Referenceable):
                for k in v.referenceable_keys():
                    index.setdefault(k, []).append(v)
            mod = _module_of(v)
            if mod is not None and not mod.is_root and not isinstance(v, ModuleExpandNode) or \
                    isinstance(v, ModuleExpandNode) and not v.module.is_root:
                by_module.setdefault(mod if not isinstance(v, ModuleExpandNode) else v.module, []).append(v)

        def inside(path: ModulePath) -> list[Any]:
            # a reference to a whole module (module.m, depends_on = [module.m]) waits for all of it
            out: list[Any] = []
            n = len(path.path)
            for mp, vs in by_module.items():
                if mp.path[:n] == path.path:
                    out.extend(vs)
            return out
        for v in g.vertices():
            if not isinstance(v, Referencer):
                continue
            for key in v.reference_keys():
                targets = list(index.get(key, ()))
                mod, name = key
                if name.startswith("module."):
                    targets.extend(inside(mod.child(name[7:])))
                if name.startswith("output."):
                    exp = index.get((ModulePath(mod.path[:-1]), f"module.{mod.path[-1]}"), []) if mod.path else []
                    targets.extend(exp)
                for t in targets:
                    if t is not v:
                        g.connect(v, t)
            if isinstance(v, ModuleExpandNode):
                # depends_on of a module call: everything inside waits for those too (via the expander)
                pass


class InstanceReferenceTransformer(Transform):
    """Apply graph: instance vertices reference instance vertices where the reference names one
    (terraform_data.a[count.index] in a counted resource), else the resource's barrier vertex."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        inst_nodes: dict[AbsResourceInstance, Any] = {}
        for v in g.vertices():
            if isinstance(v, ApplyInstanceNode):
                inst_nodes[v.addr] = v
        index: dict[tuple, list[Any]] = {}
        for v in g.vertices():
            if isinstance(v, Referenceable) and not isinstance(v, ResourceNode):
                for k in v.referenceable_keys():
                    index.setdefault(k, []).append(v)
        expansions = _plan_expansions(b.plan)
        inside_all = [t for t in g.vertices() if not isinstance(t, (ProviderNode, RootNode))]
        for v in list(g.vertices()):
            if not isinstance(v, ApplyInstanceNode) or v.rc is None:
                continue
            rc = v.rc
            mod = rc.module
            exprs = [a.expr for a in _all_attrs(rc.body)] + [rc.count, rc.for_each]
            for r in rc.lifecycle.preconditions + rc.lifecycle.postconditions:
                exprs += [r.condition, r.error_message]
            for p in rc.provisioners:
                exprs += [a.expr for a in p.body.attributes.values()]
            mode, each_value = expansions.get(v.addr.abs_resource(), ("", {}))
            scope = Scope(None, count_index=v.addr.key if mode == "list" else None,
                          each=(v.addr.key, each_value.get(v.addr.key)) if mode == "map" else None)
            specific: set[AbsResourceInstance] = set()
            whole: set[tuple] = set()
            for e in exprs:
                if e is not None:
                    _scan_refs(e, mod, v.addr.module, scope, specific, whole, frozenset())
            for t in rc.depends_on:
                from ..nodes.base import key_for_traversal

                k = key_for_traversal(mod, t)
                if k:
                    whole.add(k)
            for addr in specific:
                n = inst_nodes.get(addr)
                if n is not None and n is not v:
                    g.connect(v, n)
            for key in whole:
                for t in index.get(key, ()):
                    if t is not v and t is not v.resource_node:
                        g.connect(v, t)
                mod2, name = key
                if name.startswith("module."):
                    child = mod2.child(name[7:]).path
                    for t in inside_all:
                        tm = _module_of(t)
                        if tm is not None and tm.path[:len(child)] == child and t is not v:
                            g.connect(v, t)


def _plan_expansions(plan: Plan | None) -> dict:
    out: dict = {}
    if plan is None:
        return out
    for ch in plan.changes:
        key = ch.addr.key
        mode = "" if key is None else ("list" if isinstance(key, int) else "map")
        ent = out.setdefault(ch.addr.abs_resource(), (mode, {}))
        if mode == "map":
            ent[1][key] = getattr(ch, "each_value", key)
    return out


def _all_attrs(body: Any) -> list[Any]:
    out = list(body.attributes.values())
    for blk in body.blocks:
        out.extend(_all_attrs(blk.body))
    return out


_NON_RESOURCE_ROOTS = {"var", "local", "module", "count", "each", "path", "terraform", "self"}


def _scan_refs(e: A.Expr, mod: ModulePath, mi: ModuleInstance, scope: Scope, specific: set, whole: set,
               bound: frozenset) -> None:
    from ..nodes.base import key_for_traversal

    if isinstance(e, A.RelativeTraversal) and e.key is not None and isinstance(e.source, A.ScopeTraversal):
        src = e.source
        res = _resource_of(src)
        if res is not None and src.root not in bound and len(src.steps) == (2 if res.mode == "data" else 1):
            refs = A.references(e.key)
            if all(r.root in ("count", "each") for r in refs):
                val, d = evaluate(e.key, scope)
                val, _ = unmark(val)
                if not d.has_errors and isinstance(val, (int, str)) and not isinstance(val, bool):
                    specific.add(AbsResourceInstance(mi, res, val))
                    return
    if isinstance(e, A.ScopeTraversal):
        if e.root in bound:
            return
        res = _resource_of(e)
        if res is not None:
            n = 2 if res.mode == "data" else 1
            if len(e.steps) > n and isinstance(e.steps[n], A.IndexStep):
                specific.add(AbsResourceInstance(mi, res, e.steps[n].key))
                return
        k = key_for_traversal(mod, e)
        if k is not None:
            whole.add(k)
        return
    if isinstance(e, (A.ForExpr, A.TemplateFor)):
        _scan_refs(e.coll, mod, mi, scope, specific, whole, bound)
        inner = bound | {e.val_var} | ({e.key_var} if e.key_var else set())
        for c in e.children():
            if c is not e.coll:
                _scan_refs(c, mod, mi, scope, specific, whole, inner)
        return
    for c in e.children():
        _scan_refs(c, mod, mi, scope, specific, whole, bound)


def _resource_of(t: A.ScopeTraversal) -> Resource | None:
    if t.root in _NON_RESOURCE_ROOTS or not t.steps or not isinstance(t.steps[0], A.AttrStep):
        return None
    if t.root == "data":
        if len(t.steps) >= 2 and isinstance(t.steps[1], A.AttrStep):
            return Resource("data", t.steps[0].name, t.steps[1].name)
        return None
    return Resource("managed", t.root, t.steps[0].name)


class ProviderTransformer(Transform):
    """One vertex per provider configuration in use; consumers depend on theirs."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        for v in list(g.vertices()):
            pa = None
            if isinstance(v, (PlanOrphanNode,)):
                pa = v.provider_addr
            elif isinstance(v, (ApplyInstanceNode, DestroyInstanceNode)):
                pa = v.change.provider
            elif isinstance(v, ProviderConsumer):
                mod, local, alias = v.provider_ref()
                node = self.resolve(g, b, mod, local, alias, getattr(v, "rc", None))
                if node is None:
                    continue
                if isinstance(v, ResourceNode):
                    v.provider_addr = node.addr
                if isinstance(v, ApplyResourceNode) and not v.provider_addr:
                    v.provider_addr = node.addr
                g.connect(v, node)
                continue
            if pa:
                node = b.providers.get(pa) or self.from_addr(g, b, pa)
                g.connect(v, node)

    def from_addr(self, g: Graph, b: BuildContext, addr: str) -> ProviderNode:
        from tfconsole.walk.context import provider_source_of

        source = provider_source_of(addr)
        module = ModulePath()
        alias = None
        rest = addr[addr.find('"]') + 2:]
        if rest.startswith("."):
            alias = rest[1:]
        if addr.startswith("module."):
            parts = addr[: addr.find("provider[")].rstrip(".").split(".")
            module = ModulePath(tuple(parts[i + 1] for i in range(0, len(parts), 2)))
        block = None
        mod_cfg = b.config.module_at(module)
        if mod_cfg is not None:
            for (name, al), pb in mod_cfg.providers.items():
                if al == alias and self.source_for(mod_cfg, name) == source:
                    block = pb
        local = source.rsplit("/", 1)[-1]
        node = ProviderNode(module, local, alias, source, block)
        node.addr = addr
        node.name = addr
        b.providers[addr] = node
        g.add(node)
        return node

    @staticmethod
    def source_for(mod: Module, local: str) -> str:
        rp = mod.required_providers.get(local)
        if rp is not None:
            return normalize_source(rp.source)
        if local == "terraform":
            return "terraform.io/builtin/terraform"
        return normalize_source(f"hashicorp/{local}")

    def resolve(self, g: Graph, b: BuildContext, mod: ModulePath, local: str, alias: str | None,
                rc: Any) -> ProviderNode | None:
        # walk up through module calls: explicit `providers` maps, then implicit inheritance
        path = mod
        while True:
            mod_cfg = b.config.module_at(path)
            if mod_cfg is None:
                return None
            if (local, alias) in mod_cfg.providers:
                return self._node(g, b, path, local, alias, mod_cfg)
            if path.is_root:
                if alias is not None:
                    b.diags.error("Provider configuration not present",
                                  f"To work with {rc.addr if rc else local} its original provider configuration at "
                                  f"provider[\"{self.source_for(mod_cfg, local)}\"].{alias} is required, but it has "
                                  "been removed.", rc.provider_range if rc else None)
                    return None
                return self._node(g, b, path, local, None, mod_cfg)
            parent = b.config.module_at(ModulePath(path.path[:-1]))
            call = parent.module_calls.get(path.path[-1]) if parent else None
            key = local + (f".{alias}" if alias else "")
            if call is not None and key in call.providers:
                local, alias = call.providers[key]
            elif alias is not None:
                b.diags.error("Provider configuration not present",
                              f"Module {path} requires provider configuration {key}, which must be passed in "
                              "the module call's providers argument.", call.range if call else None)
                return None
            path = ModulePath(path.path[:-1])

    def _node(self, g: Graph, b: BuildContext, path: ModulePath, local: str, alias: str | None,
              mod_cfg: Module) -> ProviderNode:
        source = self.source_for(mod_cfg, local)
        addr = path.prefix() + f'provider["{source}"]' + (f".{alias}" if alias else "")
        node = b.providers.get(addr)
        if node is None:
            node = ProviderNode(path, local, alias, source, mod_cfg.providers.get((local, alias)))
            b.providers[addr] = node
            g.add(node)
        return node


class AttachDependenciesTransformer(Transform):
    """Each resource learns the resources it transitively depends on (stored in state)."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        for v in g.vertices():
            if isinstance(v, (ResourceNode, ApplyResourceNode)):
                deps = set()
                for a in g.ancestors(v):
                    if isinstance(a, (ResourceNode, ApplyResourceNode)) and a.rc.addr.mode == "managed":
                        deps.add(a.name)
                v.dependencies = sorted(deps)
        # create_before_destroy is inherited by everything a create_before_destroy resource depends on
        for v in g.vertices():
            if isinstance(v, ResourceNode) and v.rc.lifecycle.create_before_destroy:
                for a in g.ancestors(v):
                    if isinstance(a, ResourceNode):
                        a.force_cbd = True


class DestroyEdgeTransformer(Transform):
    """Destroys run in reverse dependency order; create_before_destroy destroys wait for creates."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        destroys: dict[str, list[DestroyInstanceNode]] = {}
        deps_of: dict[int, set[str]] = {}
        creates: list[ApplyInstanceNode] = []
        for v in g.vertices():
            if isinstance(v, DestroyInstanceNode):
                destroys.setdefault(str(v.addr.config()), []).append(v)
                inst = b.state.instance(v.addr)
                obj = None
                if inst is not None:
                    obj = inst.deposed.get(v.deposed_key) if v.deposed_key else inst.current
                deps = set(obj.dependencies if obj else [])
                node = b.resource_nodes.get((v.addr.module.module(), v.addr.resource))
                if node is not None:
                    deps |= set(getattr(node, "dependencies", []))
                deps_of[id(v)] = deps
            elif isinstance(v, ApplyInstanceNode):
                creates.append(v)
        for v in list(destroys.values()):
            for d in v:
                for dep in deps_of[id(d)]:
                    for target in destroys.get(dep, ()):
                        if target is not d:
                            g.connect(target, d)  # destroy the dependency after its dependent
        # a create_before_destroy object is destroyed after dependents moved to the new one
        for c in creates:
            deps = set(getattr(c.resource_node, "dependencies", []) if c.resource_node else [])
            for dep in deps:
                for target in destroys.get(dep, ()):
                    if target.deposed_key:
                        g.connect(target, c)


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


def _selects_every_instance(t: Any) -> bool:
    """A target naming a resource or module with no instance keys anywhere selects all instances."""
    from tfconsole.addrs import AbsResource, ModuleInstance as MI

    if isinstance(t, MI):
        return all(k is None for _, k in t.steps)
    if isinstance(t, AbsResource):
        return all(k is None for _, k in t.module.steps)
    return False


def _config_target_match(t: Any, v: ResourceNode) -> bool:
    from tfconsole.addrs import AbsResource, AbsResourceInstance as ARI, ModuleInstance as MI

    mod = v.rc.module
    if isinstance(t, MI):
        names = tuple(n for n, _ in t.steps)
        return mod.path[: len(names)] == names
    if isinstance(t, (AbsResource, ARI)):
        return t.resource == v.rc.addr and tuple(n for n, _ in t.module.steps) == mod.path
    return False


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


class RootTransformer(Transform):
    """A single root: it depends on every vertex nothing else depends on."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        sinks = [v for v in g.vertices() if not g.dependents(v)]
        root = g.add(RootNode())
        for s in sinks:
            g.connect(root, s)


class TransitiveReductionTransformer(Transform):
    def transform(self, g: Graph, b: BuildContext) -> None:
        g.transitive_reduction()


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


def parse_targets(texts: list[str], diags: Diagnostics, flag: str = "-target") -> list[Any]:
    from tfconsole.addrs import AddressError

    out = []
    for t in texts:
        try:
            out.append(parse_target(t))
        except AddressError as exc:
            diags.error("Invalid target address", f"{flag}={t}: {exc}")
    return out


__all__ = [
    "BuildContext", "Transform", "ConfigTransformer", "OrphanResourceTransformer", "DiffTransformer",
    "ModuleExpansionTransformer", "ReferenceTransformer", "InstanceReferenceTransformer", "ProviderTransformer",
    "AttachDependenciesTransformer", "DestroyEdgeTransformer", "TargetsTransformer", "RootTransformer",
    "TransitiveReductionTransformer", "ExcludeTransformer", "CycleValidationTransformer", "SelfReferenceTransformer", "parse_targets",
    "Node", "Referenceable",
]
