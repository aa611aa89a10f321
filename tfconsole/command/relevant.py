"""The plan's "relevant_attributes": the resource attributes that the plan's changes depend on,
directly or through locals, module variables and module outputs (Terraform's global reference
analysis). Terraform lists them in an order it does not define; we sort them.

Only the configuration and the provider schemas are read; nothing is evaluated.
"""
from __future__ import annotations

from typing import Any

from tfconsole.addrs import ModuleInstance
from tfconsole.config.model import Module
from tfconsole.lang import ast as A
from tfconsole.plans import Action, Plan
from tfconsole.providers.interface import BlockSchema

from .jsonconfig import Ref, Schemas, parse_ref, source_for

# a reference made somewhere: (the module instance it is made in, the reference, the resource
# instance it is made in for count/each, else None)
Found = tuple[ModuleInstance, Ref, Any]


def _module_cfg(root: Module, mi: ModuleInstance) -> Module | None:
    return root.module_at(mi.module())


def _refs_in(expr: A.Expr | None, mi: ModuleInstance, container: Any = None) -> list[Found]:
    if expr is None:
        return []
    out = []
    for t in A.references(expr):
        ref = parse_ref(t)
        if ref is not None:
            out.append((mi, ref, container if ref.kind in ("count", "each") else None))
    return out


def _refs_in_body(body: Any, schema: BlockSchema, mi: ModuleInstance, container: Any) -> list[Found]:
    out: list[Found] = []
    for name, attr in body.attributes.items():
        if name in schema.attributes:
            out += _refs_in(attr.expr, mi, container)
    for b in body.blocks:
        nb = schema.blocks.get(b.type)
        if nb is not None:
            out += _refs_in_body(b.body, nb.block, mi, container)
    return out


class Analyzer:
    def __init__(self, root: Module, schemas: Schemas) -> None:
        self.root = root
        self.schemas = schemas

    def _resource(self, mi: ModuleInstance, res: tuple) -> tuple[Any, Any]:
        from tfconsole.addrs import Resource

        mod = _module_cfg(self.root, mi)
        if mod is None:
            return None, None
        rc = mod.resources.get(Resource(res[0], res[1], res[2]))
        if rc is None:
            return None, None
        schema = self.schemas.resource(source_for(mod, rc.provider_local_name), res[0], res[1])
        return rc, schema

    def from_resource(self, mi: ModuleInstance, res: tuple, remaining: tuple) -> list[Found]:
        rc, schema = self._resource(mi, res)
        if rc is None or schema is None:
            return []
        container = (mi, res)
        body, block = rc.body, schema.block
        for step in remaining:
            name = step.name if isinstance(step, A.AttrStep) else \
                step.key if isinstance(step.key, str) else None
            if name is None:
                break
            if name in block.attributes:
                attr = body.attributes.get(name)
                return _refs_in(attr.expr, mi, container) if attr is not None else []
            nb = block.blocks.get(name)
            if nb is None:
                return []
            found = [b for b in body.blocks if b.type == name]
            out: list[Found] = []
            for b in found:  # a nested block: every reference inside every block of that type
                out += _refs_in_body(b.body, nb.block, mi, container)
            return out
        return _refs_in_body(body, block, mi, container)

    def meta(self, item: Found) -> list[Found]:
        mi, ref, container = item
        mod = _module_cfg(self.root, mi)
        if mod is None:
            return []
        if ref.kind == "var":
            if mi.is_root:
                return []
            caller = mi.parent()
            parent = _module_cfg(self.root, caller)
            call = parent.module_calls.get(mi.steps[-1][0]) if parent is not None else None
            attr = call.body.attributes.get(ref.name) if call is not None else None
            return _refs_in(attr.expr, caller) if attr is not None else []
        if ref.kind == "local":
            loc = mod.locals.get(ref.name)
            return _refs_in(loc.expr, mi) if loc is not None else []
        if ref.kind in ("module_output", "module_call"):
            name = ref.call.split("[", 1)[0][len("module."):] if ref.kind == "module_output" else \
                ref.subject.split("[", 1)[0][len("module."):]
            key = _call_key(ref)
            callee = mi.child(name, key)
            child = _module_cfg(self.root, callee)
            if child is None:
                return []
            names = [ref.name] if ref.kind == "module_output" else list(child.outputs)
            out: list[Found] = []
            for n in names:
                o = child.outputs.get(n)
                if o is not None:
                    out += _refs_in(o.expr, callee)
            return out
        if ref.kind in ("count", "each") and container is not None:
            rc, _ = self._resource(container[0], container[1])
            if rc is None:
                return []
            return _refs_in(rc.for_each if rc.for_each is not None else rc.count, container[0])
        if ref.kind in ("resource", "resource_instance"):
            return self.from_resource(mi, ref.resource, ref.remaining)
        return []

    def validated(self, item: Found) -> tuple[str, list] | None:
        """(resource instance address, attribute path) of a resource reference its schema knows."""
        mi, ref, _ = item
        if ref.kind not in ("resource", "resource_instance"):
            return None
        _rc, schema = self._resource(mi, ref.resource)
        if _rc is None or schema is None:
            return None
        return mi.prefix() + ref.subject, walk_block(schema.block, ref.remaining)

    def contributing(self, start: list[Found]) -> list[tuple[str, list]]:
        found: dict[str, tuple[str, list]] = {}
        visited: set[str] = set()
        pending: dict[str, Found] = {}

        def note(item: Found) -> None:
            v = self.validated(item)
            if v is not None:
                found[v[0] + repr(v[1])] = v

        for item in start:
            note(item)
            pending[_item_key(item)] = item
        while pending:
            key, item = pending.popitem()
            visited.add(key)
            for new in self.meta(item):
                note(new)
                nk = _item_key(new)
                if nk not in visited:
                    pending[nk] = new
        return sorted(found.values(), key=lambda v: (v[0], json_path(v[1])))


def _call_key(ref: Ref) -> Any:
    text = ref.call if ref.kind == "module_output" else ref.subject
    if "[" not in text:
        return None
    import json

    return json.loads(text[text.index("[") + 1:-1])


def _item_key(item: Found) -> str:
    mi, ref, container = item
    where = str(mi) if container is None else f"{container[0].prefix()}{container[1]}"
    return f"{where}({ref.kind}){ref.subject}{ref.remaining!r}"


def json_path(path: list) -> str:
    import json

    return json.dumps(path)


def walk_block(block: BlockSchema, steps: tuple) -> list:
    """The steps of a reference that the schema can follow (globalref's walkBlock), as JSON."""
    if not steps:
        return []
    s = steps[0]
    name = s.name if isinstance(s, A.AttrStep) else str(s.key) if not isinstance(s.key, bool) else None
    if name is None:
        return []
    attr = block.attributes.get(name)
    if attr is not None:
        return [name] + walk_type(attr.type, steps[1:])
    nb = block.blocks.get(name)
    if nb is not None:
        rest = steps[1:]
        if nb.nesting in ("single", "group"):
            return [name] + walk_block(nb.block, rest)
        if not rest or nb.nesting == "set":
            return [name]
        key = _index_key(rest[0], nb.nesting == "list")
        if key is None:
            return [name]
        return [name, key] + walk_block(nb.block, rest[1:])
    return []


def _index_key(step: Any, integer: bool) -> Any:
    if isinstance(step, A.AttrStep):
        if not integer:
            return step.name
        try:
            return int(step.name)
        except ValueError:
            return None
    if integer:
        return step.key if isinstance(step.key, int) and not isinstance(step.key, bool) else None
    return step.key if isinstance(step.key, str) else str(step.key)


def walk_type(ty: Any, steps: tuple) -> list:
    from tfconsole.lang.types import ListType, MapType, ObjectType, TupleType

    if not steps:
        return []
    if isinstance(ty, ListType):
        key = _index_key(steps[0], True)
        return [] if key is None else [key] + walk_type(ty.elem, steps[1:])
    if isinstance(ty, MapType):
        key = _index_key(steps[0], False)
        return [] if key is None else [key] + walk_type(ty.elem, steps[1:])
    if isinstance(ty, ObjectType):
        s = steps[0]
        name = s.name if isinstance(s, A.AttrStep) else s.key if isinstance(s.key, str) else None
        attrs = dict(ty.attrs)
        if name is None or name not in attrs:
            return []
        return [name] + walk_type(attrs[name], steps[1:])
    if isinstance(ty, TupleType):
        key = _index_key(steps[0], True)
        if key is None or not 0 <= key < len(ty.elems):
            return []
        return [key] + walk_type(ty.elems[key], steps[1:])
    return []


def relevant_attributes(plan: Plan, root: Module, schemas: Schemas) -> list[dict]:
    an = Analyzer(root, schemas)
    start: list[Found] = []
    for ch in plan.changes:
        if ch.action is Action.NOOP:
            continue
        res = ch.addr.resource
        start += an.from_resource(ch.addr.module, (res.mode, res.type, res.name, None), ())
    # outputs of child modules are not kept in state, so the plan always "creates" them
    instances: set[ModuleInstance] = set()
    for ch in plan.changes:
        mi = ch.addr.module
        while not mi.is_root:
            instances.add(mi)
            mi = mi.parent()
    for mi in sorted(instances, key=str):
        mod = _module_cfg(root, mi)
        for o in (mod.outputs.values() if mod is not None else ()):
            start += _refs_in(o.expr, mi)
    for oc in plan.output_changes:
        if oc.action is Action.NOOP:
            continue
        o = root.outputs.get(oc.name)
        if o is not None:
            start += _refs_in(o.expr, ModuleInstance())
    return [{"resource": r, "attribute": p} for r, p in an.contributing(start)]
