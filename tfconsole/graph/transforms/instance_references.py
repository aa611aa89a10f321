"""InstanceReferenceTransformer: apply-graph edges between instances."""
from __future__ import annotations

from typing import Any, Callable
from tfconsole.addrs import AbsResourceInstance, Module as ModulePath, ModuleInstance, Resource
from tfconsole.lang import ast as A
from tfconsole.lang.eval import Scope, evaluate
from tfconsole.lang.values import unmark
from tfconsole.plans import Plan
from ..dag import Graph
from ..nodes.base import Referenceable
from ..nodes.resource import ApplyInstanceNode, ResourceNode
from ..nodes.values import ProviderNode, RootNode
from .base import BuildContext, Transform, _all_attrs, _module_of

class InstanceReferenceTransformer(Transform):
    """Apply graph: instance vertices reference instance vertices where the reference names one
    (terraform_data.a[count.index] in a counted resource), else the resource's barrier vertex."""

    def transform(self, g: Graph, b: BuildContext) -> None:
        instances = b.instances or _instances_by_resource(g)  # (as the diff transform made them)
        index: dict[tuple, list[Any]] = {}
        for v in g.vertices():
            if isinstance(v, Referenceable) and not isinstance(v, ResourceNode):
                for k in v.referenceable_keys():
                    index.setdefault(k, []).append(v)
        planned: list[dict] = []

        def expansions() -> dict:  # the plan's expansions, worked out when an index needs evaluating
            if not planned:
                planned.append(_plan_expansions(b.plan))
            return planned[0]
        inside_all = [t for t in g.vertices() if not isinstance(t, (ProviderNode, RootNode))]
        # what an instance refers to only differs between instances of one resource in one module
        # instance where a reference's index uses count/each: the configuration is scanned once
        # per resource and module instance, and only those indexes are evaluated per instance
        scanned: dict[tuple[int, Any], _Scan] = {}
        pairs: list[tuple[Any, Any]] = []  # (dependent, dependency)
        for v in list(g.vertices()):
            if not isinstance(v, ApplyInstanceNode) or v.rc is None:
                continue
            scan = scanned.get((id(v.rc), v.addr.module))
            if scan is None:
                scan = scanned[(id(v.rc), v.addr.module)] = _scan_config(v)
            specific, named, whole = scan.for_instance(v, expansions)
            for addr in specific:
                n = instances.get((addr.module, addr.resource), _NONE).get(addr.key)
                if n is not None and n is not v:
                    pairs.append((v, n))
            for res, key in named:  # (instances of a resource in v's module instance)
                n = scan.instances_of(res, instances).get(key)
                if n is not None and n is not v:
                    pairs.append((v, n))
            for key in whole:
                for t in index.get(key, ()):
                    if t is not v and t is not v.resource_node:
                        pairs.append((v, t))
                mod2, name = key
                if name.startswith("module."):
                    child = mod2.child(name[7:]).path
                    for t in inside_all:
                        tm = _module_of(t)
                        if tm is not None and tm.path[:len(child)] == child and t is not v:
                            pairs.append((v, t))
        g.connect_many(pairs)


_NONE: dict = {}


def _instances_by_resource(g: Graph) -> dict[tuple, dict[Any, Any]]:
    """The apply graph's instance vertices, by (module instance, resource) then by key: found
    without an address made and hashed per reference. The instances of one resource share
    their module and resource objects, so identity groups them (an equal but distinct object
    only misses the memo)."""
    out: dict[tuple, dict[Any, Any]] = {}
    memo: dict[tuple[int, int], tuple] = {}
    for v in g.g.nodes():
        if isinstance(v, ApplyInstanceNode):
            a = v.addr
            hit = memo.get((id(a.module), id(a.resource)))
            if hit is None or hit[0] is not a.module or hit[1] is not a.resource:
                hit = memo[(id(a.module), id(a.resource))] = (a.module, a.resource,
                                                              out.setdefault((a.module, a.resource), {}))
            hit[2][a.key] = v
    return out


class _Scan:
    """What a resource's configuration in one module instance refers to: instances named by a
    constant index (specific), whole objects (whole), and the references whose index uses
    count.index / each.key (keyed: the traversal, its resource, the names bound around it),
    which name a different instance for each instance."""

    def __init__(self, v: ApplyInstanceNode, specific: set, whole: set, keyed: list) -> None:
        self.mod, self.mi = v.rc.module, v.addr.module
        self.specific, self.whole, self.keyed = specific, whole, keyed
        self.expansion: tuple | None = None  # (mode, each values) of the scan's resource
        self._instances: dict[int, dict] = {}  # id(resource in keyed) -> its instances here

    def instances_of(self, res: Resource, instances: dict) -> dict:
        """The instance vertices of `res` (one of keyed's) in this module instance, by key."""
        got = self._instances.get(id(res))
        if got is None:
            got = self._instances[id(res)] = instances.get((self.mi, res), _NONE)
        return got

    def for_instance(self, v: ApplyInstanceNode, expansions: Callable[[], dict]) -> tuple[set, list, set]:
        """The instances v names (as addresses, and as (resource, key) in v's module instance)
        and the objects it refers to as a whole."""
        if not self.keyed:
            return self.specific, [], self.whole
        key = v.addr.key
        # (the plan's expansion of v's resource has the mode its keys show)
        mode = "" if key is None else ("list" if isinstance(key, int) else "map")
        scope = None
        specific, whole = self.specific, self.whole
        named: list[tuple[Resource, Any]] = []
        for e, res, bound in self.keyed:
            val = _direct_key(e.key, key, mode)
            if val is None:
                if scope is None:
                    if self.expansion is None:  # (all instances of a scan are of one resource)
                        self.expansion = expansions().get(v.addr.abs_resource(), ("", {}))
                    each_value = self.expansion[1]
                    scope = Scope(None, count_index=key if mode == "list" else None,
                                  each=(key, each_value.get(key)) if mode == "map" else None)
                val, d = evaluate(e.key, scope)
                val, _ = unmark(val)
                if d.has_errors:
                    val = None
            if isinstance(val, (int, str)) and not isinstance(val, bool):
                named.append((res, val))
                continue
            # no instance named: what the traversal mentions, as a whole (as for any other)
            if whole is self.whole:
                specific, whole = set(specific), set(whole)
            for c in e.children():
                _scan_refs(c, self.mod, self.mi, specific, whole, bound, [])
        return specific, named, whole


def _scan_config(v: ApplyInstanceNode) -> _Scan:
    rc = v.rc
    mod = rc.module
    exprs = [a.expr for a in _all_attrs(rc.body)] + [rc.count, rc.for_each]
    for r in rc.lifecycle.preconditions + rc.lifecycle.postconditions:
        exprs += [r.condition, r.error_message]
    for p in rc.provisioners:
        exprs += [a.expr for a in p.body.attributes.values()]
    specific: set[AbsResourceInstance] = set()
    whole: set[tuple] = set()
    keyed: list[tuple] = []
    for e in exprs:
        if e is not None:
            _scan_refs(e, mod, v.addr.module, specific, whole, frozenset(), keyed)
    for t in rc.depends_on:
        from ..nodes.base import key_for_traversal

        k = key_for_traversal(mod, t)
        if k:
            whole.add(k)
    return _Scan(v, specific, whole, keyed)


def _direct_key(e: A.Expr, key: Any, mode: str) -> Any:
    """The instance key an index of exactly `count.index` (counted) or `each.key` (for_each)
    names, read from the instance's key as evaluating it would give; None for any other
    index (evaluated). Most keyed references are these, and a 20,000-instance apply graph
    evaluated one per instance."""
    if type(e) is A.ScopeTraversal and len(e.steps) == 1 and type(e.steps[0]) is A.AttrStep:
        name = e.steps[0].name
        if (mode == "list" and e.root == "count" and name == "index") or \
                (mode == "map" and e.root == "each" and name == "key"):
            return key
    return None


def _plan_expansions(plan: Plan | None) -> dict:
    out: dict = {}
    if plan is None:
        return out
    # grouped by the module and resource objects the changes of one resource share (hashes
    # cached), not by an AbsResource made per change
    by_parts: dict[tuple, tuple] = {}
    for ch in plan.changes:
        key = ch.addr.key
        parts = (ch.addr.module, ch.addr.resource)
        ent = by_parts.get(parts)
        if ent is None:
            mode = "" if key is None else ("list" if isinstance(key, int) else "map")
            ent = by_parts[parts] = out.setdefault(ch.addr.abs_resource(), (mode, {}))
        if isinstance(key, str):
            ent[1][key] = getattr(ch, "each_value", key)
    return out


_NO_INSTANCE = Scope(None)  # a constant index is evaluated without count / each

_NON_RESOURCE_ROOTS = {"var", "local", "module", "count", "each", "path", "terraform", "self"}


def _scan_refs(e: A.Expr, mod: ModulePath, mi: ModuleInstance, specific: set, whole: set,
               bound: frozenset, keyed: list[tuple]) -> None:
    from ..nodes.base import key_for_traversal

    if isinstance(e, A.RelativeTraversal) and e.key is not None and isinstance(e.source, A.ScopeTraversal):
        src = e.source
        res = _resource_of(src)
        if res is not None and src.root not in bound and len(src.steps) == (2 if res.mode == "data" else 1):
            refs = A.references(e.key)
            if all(r.root in ("count", "each") for r in refs):
                if refs:
                    keyed.append((e, res, bound))  # the instance this names depends on count.index / each.key
                    return
                val, d = evaluate(e.key, _NO_INSTANCE)
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
        _scan_refs(e.coll, mod, mi, specific, whole, bound, keyed)
        inner = bound | {e.val_var} | ({e.key_var} if e.key_var else set())
        for c in e.children():
            if c is not e.coll:
                _scan_refs(c, mod, mi, specific, whole, inner, keyed)
        return
    for c in e.children():
        _scan_refs(c, mod, mi, specific, whole, bound, keyed)


def _resource_of(t: A.ScopeTraversal) -> Resource | None:
    # an ephemeral resource has one vertex for all its instances: referenced as a whole
    if t.root in _NON_RESOURCE_ROOTS or t.root == "ephemeral" or not t.steps or \
            not isinstance(t.steps[0], A.AttrStep):
        return None
    if t.root == "data":
        if len(t.steps) >= 2 and isinstance(t.steps[1], A.AttrStep):
            return Resource("data", t.steps[0].name, t.steps[1].name)
        return None
    return Resource("managed", t.root, t.steps[0].name)
