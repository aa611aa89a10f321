"""The "configuration" section of `show -json PLANFILE` and the plan's "relevant_attributes",
as Terraform 1.15 writes them (its JSON output format, "configuration representation").

Expressions are described, never evaluated against anything: an expression without
references or function calls gives its constant value, any other the references it makes
(each multi-step reference also shortened step by step, as Terraform lists them). Which
arguments count comes from the provider's schema, so `dynamic` blocks and unknown arguments
are left out as Terraform leaves them out. This module only reads the configuration model.
"""
from __future__ import annotations

import json
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any

from tfconsole.config.model import Module
from tfconsole.lang import ast as A
from tfconsole.providers.interface import BlockSchema, NestedBlock

BUILTIN = "terraform.io/builtin/terraform"
_SIMPLE_ROOTS = {"var", "local", "path", "terraform", "count", "each", "self"}


# ------------------------------------------------------------------ references (addrs.ParseRef)

@dataclass(frozen=True)
class Ref:
    """A reference split as Terraform splits it: the referenced object and the steps after it.
    kind: var | local | path | terraform | count | each | self | module_call | module_output |
    resource (no key) | resource_instance."""

    kind: str
    subject: str
    remaining: tuple
    name: str = ""  # var/local/module call/output name
    call: str = ""  # module.NAME (with its key) for module outputs; the resource without key
    resource: Any = None  # (mode, type, name, key) for resources


def _attr_names(steps: tuple, n: int) -> list[str] | None:
    names = []
    for s in steps[:n]:
        if not isinstance(s, A.AttrStep):
            return None
        names.append(s.name)
    return names if len(names) == n else None


def _key_text(key: Any) -> str:
    return "[" + (json.dumps(key, ensure_ascii=False) if isinstance(key, str) else str(key)) + "]"


def parse_ref(t: A.ScopeTraversal) -> Ref | None:
    """The subject and remaining steps of a traversal, or None when it refers to nothing
    Terraform knows (an iterator symbol, an unknown root)."""
    root, steps = t.root, t.steps
    if root in _SIMPLE_ROOTS:
        if root == "self":
            return Ref("self", "self", steps)
        names = _attr_names(steps, 1)
        if names is None:
            return None
        return Ref(root, f"{root}.{names[0]}", steps[1:], name=names[0])
    if root == "module":
        names = _attr_names(steps, 1)
        if names is None:
            return None
        call, rest = f"module.{names[0]}", steps[1:]
        key = None
        if rest and isinstance(rest[0], A.IndexStep):
            key, rest = rest[0].key, rest[1:]
            call += _key_text(key)
        if rest and isinstance(rest[0], A.AttrStep):
            return Ref("module_output", f"{call}.{rest[0].name}", rest[1:], name=rest[0].name, call=call)
        unkeyed = f"module.{names[0]}" if key is not None else ""
        return Ref("module_call", call, rest, name=names[0], call=unkeyed)
    mode, head = "managed", [root]
    if root in ("data", "ephemeral"):
        names = _attr_names(steps, 2)
        if names is None:
            return None
        mode, head, steps = root, names, steps[2:]
    else:
        names = _attr_names(steps, 1)
        if names is None:
            return None
        head, steps = [root, names[0]], steps[1:]
    base = ("" if mode == "managed" else mode + ".") + ".".join(head)
    if steps and isinstance(steps[0], A.IndexStep):
        key = steps[0].key
        return Ref("resource_instance", base + _key_text(key), steps[1:], call=base,
                   resource=(mode, head[0], head[1], key))
    return Ref("resource", base, steps, resource=(mode, head[0], head[1], None))


def steps_text(steps: tuple) -> str:
    out = []
    for s in steps:
        if isinstance(s, A.AttrStep):
            out.append("." + s.name)
        elif isinstance(s.key, str):
            out.append("[" + json.dumps(s.key, ensure_ascii=False) + "]")
        else:
            out.append(f"[{s.key}]")
    return "".join(out)


def reference_strings(expr: A.Expr) -> list[str]:
    """Terraform's "references": each reference with its remaining steps dropped one by one,
    then the object it names (and the resource or module call without its key)."""
    out: list[str] = []
    for t in A.references(expr):
        ref = parse_ref(t)
        if ref is None:
            continue
        rem = ref.remaining
        while rem:
            out.append(ref.subject + steps_text(rem))
            rem = rem[:-1]
        out.append(ref.subject)
        if ref.kind in ("resource_instance", "module_output") or (ref.kind == "module_call" and ref.call):
            out.append(ref.call)
    return out


def _constant(expr: A.Expr) -> tuple[bool, Any]:
    """(True, JSON) when the expression evaluates without any context, as Terraform tries."""
    if any(isinstance(e, A.FunctionCall) for e in expr.walk()) or A.references(expr):
        return False, None
    from tfconsole.config.model import static_value
    from tfconsole.lang.values import is_wholly_known, to_json_plain, unmark_deep

    try:
        v = static_value(expr)
    except Exception:  # noqa: BLE001 - any failure means "not a constant", as for Terraform
        return False, None
    if not is_wholly_known(v):
        return False, None
    return True, to_json_plain(unmark_deep(v)[0])


def expression_json(expr: A.Expr | None) -> dict:
    if expr is None:
        return {}
    out: dict[str, Any] = {}
    ok, value = _constant(expr)
    if ok:
        out["constant_value"] = value
    refs = reference_strings(expr)
    if refs:
        out["references"] = refs
    return out


def body_expressions(body: Any, schema: BlockSchema | None) -> dict:
    """The arguments and nested blocks of a body that the schema declares."""
    if schema is None:
        return {}
    ret: dict[str, Any] = {}
    for name, attr in body.attributes.items():
        if name in schema.attributes:
            ret[name] = expression_json(attr.expr)
    for b in body.blocks:
        nb: NestedBlock | None = schema.blocks.get(b.type)
        if nb is None:
            continue
        inner = body_expressions(b.body, nb.block)
        if nb.nesting in ("single", "group"):
            ret[b.type] = inner
        elif nb.nesting == "map":
            ret.setdefault(b.type, {})[b.labels[0] if b.labels else ""] = inner
        else:
            ret.setdefault(b.type, []).append(inner)
    return dict(sorted(ret.items()))


def _any_schema(names: list[str]) -> BlockSchema:
    from tfconsole.lang.types import DYNAMIC
    from tfconsole.providers.interface import Attr

    return BlockSchema(attributes={n: Attr(DYNAMIC, optional=True) for n in names})


# ------------------------------------------------------------------ schemas

class Schemas:
    """Provider, resource and provisioner schemas by provider source, from a ProviderSession."""

    def __init__(self, session: Any) -> None:
        self.session = session

    def resource(self, source: str, mode: str, type_: str) -> Any:
        try:
            got = self.session.schemas(source) if self.session is not None else None
        except Exception:  # noqa: BLE001 - a provider that cannot start or answer: no schema
            return None
        if got is None:
            return None
        return got[0 if mode == "managed" else 1].get(type_)

    def provider(self, source: str) -> BlockSchema | None:
        try:
            p = self.session.for_schemas(source) if self.session is not None else None
            return p.provider_schema().block if p is not None else None
        except Exception:  # noqa: BLE001 - a provider that cannot start or answer: no expressions
            return None

    @staticmethod
    def provisioner(type_: str) -> BlockSchema | None:
        from tfconsole.providers.builtin.provisioners import PROVISIONER_SCHEMAS

        s = PROVISIONER_SCHEMAS.get(type_)
        return getattr(s, "block", s)


def source_for(mod: Module, local: str) -> str:
    from tfconsole.providers.registry import normalize_source

    rp = mod.required_providers.get(local)
    if rp is not None and rp.source:
        return normalize_source(rp.source)
    if local == "terraform":
        return BUILTIN
    return normalize_source(f"hashicorp/{local}")


def _version_string(texts: list[str]) -> str:
    from tfconsole.providers.plugin.versions import VersionError, constraints_string, parse_constraints

    try:
        return constraints_string(parse_constraints(", ".join(texts)))
    except (VersionError, ValueError):
        return ", ".join(texts)


# ------------------------------------------------------------------ provider_config

def _key(name: str, module_addr: str) -> str:
    return f"{module_addr}:{name}" if module_addr else name


def _requirements(mod: Module) -> dict[str, list[str]]:
    """Provider source -> version constraints of this module alone (ProviderRequirementsShallow)."""
    reqs: dict[str, list[str]] = {}
    for local, rp in mod.required_providers.items():
        reqs.setdefault(source_for(mod, local), [])
        if rp.version:
            reqs[source_for(mod, local)].append(rp.version)
    for (local, _alias), pb in mod.providers.items():
        reqs.setdefault(source_for(mod, local), [])
        if pb.version:
            reqs[source_for(mod, local)].append(pb.version[0])
    for rc in list(mod.resources.values()) + list(mod.ephemeral_resources.values()):
        reqs.setdefault(source_for(mod, rc.provider_local_name), [])
    return reqs


def _source_key(start: str, full_name: str, m: dict[str, dict]) -> str:
    """The provider configuration a passed or inherited one finally stands for."""
    found, key = "", start
    while key:
        parent = m.get(key)
        if parent is None or parent["full_name"] != full_name:
            break
        found, key = key, parent.get("_parent", "")
    return found


def _provider_configs(mod: Module, parent: Module | None, parent_addr: str, addr: str, schemas: Schemas,
                      m: dict[str, dict]) -> None:
    reqs = _requirements(mod)

    def entry(name: str, fqn: str, versioned: bool, alias: str | None = None) -> dict:
        e: dict[str, Any] = {"name": name, "full_name": fqn}
        if alias:
            e["alias"] = alias
        if versioned and reqs.get(fqn):
            e["version_constraint"] = _version_string(reqs[fqn])
        if addr:
            e["module_address"] = addr
        return e

    for (local, alias), pb in mod.providers.items():
        fqn = source_for(mod, local)
        e = entry(local, fqn, True, alias)
        exprs = body_expressions(pb.body, schemas.provider(fqn))
        if exprs:
            e["expressions"] = exprs
        m[_key(f"{local}.{alias}" if alias else local, addr)] = e
    for local in mod.required_providers:
        key = _key(local, addr)
        if key in m:
            continue
        e = entry(local, source_for(mod, local), True)
        if parent is not None:
            e["_parent"] = _source_key(_key(local, parent_addr), e["full_name"], m)
        m[key] = e
    for fqn in reqs:
        type_ = fqn.rsplit("/", 1)[-1]
        key = _key(type_, addr)
        if key in m:
            continue
        e = entry(type_, fqn, False)
        if parent is not None:
            e["_parent"] = _source_key(_key(type_, parent_addr), fqn, m)
        m[key] = e
    for name, call in mod.module_calls.items():
        child = mod.children.get(name)
        if child is None:
            continue
        child_addr = _key_join(addr, name)
        for in_child, (p_local, p_alias) in call.providers.items():
            c_local = in_child.split(".", 1)[0]
            e = {"name": in_child, "full_name": source_for(child, c_local), "module_address": child_addr}
            e["_parent"] = _source_key(_key(f"{p_local}.{p_alias}" if p_alias else p_local, addr),
                                       e["full_name"], m)
            m[_key(in_child, child_addr)] = e
        _provider_configs(child, mod, addr, child_addr, schemas, m)


def _key_join(addr: str, name: str) -> str:
    return f"{addr}.module.{name}" if addr else f"module.{name}"


# ------------------------------------------------------------------ modules

def _depends_on(items: list[A.ScopeTraversal]) -> list[str]:
    out = []
    for t in items:
        ref = parse_ref(t)
        if ref is not None:
            out.append(ref.subject)
    return out


def _variable_default(var: Any) -> tuple[bool, Any]:
    if var.default is None:
        return False, None
    from tfconsole.config.model import static_value
    from tfconsole.lang.values import convert, to_json_plain, unmark_deep

    try:
        v = static_value(var.default)
        v = convert(v, var.type)
    except Exception:  # noqa: BLE001 - an invalid default was reported when the plan was made
        return False, None
    return True, to_json_plain(unmark_deep(v)[0])


def _resources(mod: Module, addr: str, schemas: Schemas) -> list[dict]:
    out = []
    for rc in list(mod.resources.values()):
        local = rc.provider_local_name
        pkey = rc.provider_ref[0] + (f".{rc.provider_ref[1]}" if rc.provider_ref[1] else "") \
            if rc.provider_ref else local
        r: dict[str, Any] = {"address": str(rc.addr), "mode": rc.addr.mode, "type": rc.addr.type,
                             "name": rc.addr.name, "provider_config_key": _key(pkey, addr)}
        if rc.provisioners:
            r["provisioners"] = []
            for p in rc.provisioners:
                pj: dict[str, Any] = {"type": p.type}
                exprs = body_expressions(p.body, schemas.provisioner(p.type))
                if exprs:
                    pj["expressions"] = exprs
                r["provisioners"].append(pj)
        schema = schemas.resource(source_for(mod, local), rc.addr.mode, rc.addr.type)
        exprs = body_expressions(rc.body, schema.block if schema is not None else None)
        if exprs:
            r["expressions"] = exprs
        r["schema_version"] = schema.version if schema is not None else 0
        if rc.count is not None:
            r["count_expression"] = expression_json(rc.count)
        elif rc.for_each is not None:
            r["for_each_expression"] = expression_json(rc.for_each)
        if rc.depends_on:
            r["depends_on"] = _depends_on(rc.depends_on)
        out.append(r)
    # managed resources first, then data resources, each by address (as Terraform 1.15 lists them)
    return sorted(out, key=lambda r: (r["mode"] != "managed", r["address"]))


def module_json(mod: Module, addr: str, schemas: Schemas) -> dict:
    out: dict[str, Any] = {}
    outputs = {}
    for name, o in sorted(mod.outputs.items()):
        oj: dict[str, Any] = {}
        if o.sensitive:
            oj["sensitive"] = True
        oj["expression"] = expression_json(o.expr)
        if o.depends_on:
            oj["depends_on"] = _depends_on(o.depends_on)
        if o.description:
            oj["description"] = o.description
        outputs[name] = oj
    if outputs:
        out["outputs"] = outputs
    resources = _resources(mod, addr, schemas)
    if resources:
        out["resources"] = resources
    calls = {}
    for name, call in sorted(mod.module_calls.items()):
        child = mod.children.get(name)
        if child is None:
            calls[name] = {}
            continue
        cj: dict[str, Any] = {"source": call.source}
        exprs = body_expressions(call.body, _any_schema(list(child.variables)))
        if exprs:
            cj["expressions"] = exprs
        if call.count is not None:
            cj["count_expression"] = expression_json(call.count)
        elif call.for_each is not None:
            cj["for_each_expression"] = expression_json(call.for_each)
        cj["module"] = module_json(child, _key_join(addr, name), schemas)
        version = getattr(call, "version", "")
        if version:
            cj["version_constraint"] = version
        if call.depends_on:
            cj["depends_on"] = _depends_on(call.depends_on)
        calls[name] = cj
    if calls:
        out["module_calls"] = calls
    variables = {}
    for name, var in sorted(mod.variables.items()):
        vj: dict[str, Any] = {}
        has, default = _variable_default(var)
        if has:
            vj["default"] = default
        if var.description:
            vj["description"] = var.description
        if var.sensitive:
            vj["sensitive"] = True
        variables[name] = vj
    if variables:
        out["variables"] = variables
    return out


def _normalize_keys(module: dict, m: dict[str, dict]) -> None:
    for r in module.get("resources", []):
        pc = m.get(r["provider_config_key"])
        if pc is not None and pc.get("_parent") in m:
            r["provider_config_key"] = pc["_parent"]
    for call in module.get("module_calls", {}).values():
        if "module" in call:
            _normalize_keys(call["module"], m)


def config_json(root: Module, schemas: Schemas) -> dict:
    """The whole "configuration" object."""
    m: dict[str, dict] = {}
    _provider_configs(root, None, "", "", schemas, m)
    root_module = module_json(root, "", schemas)
    _normalize_keys(root_module, m)
    # configurations passed or inherited from a parent are listed once, under the parent's key
    pcs = {k: {f: x for f, x in v.items() if f != "_parent"}
           for k, v in sorted(m.items()) if not v.get("_parent")}
    out: dict[str, Any] = {}
    if pcs:
        out["provider_config"] = pcs
    out["root_module"] = root_module
    return out


def root_variable_defaults(root: Module) -> dict[str, Any]:
    """Declared defaults of the root module's variables (the plan's "variables" lists them)."""
    out = {}
    for name, var in root.variables.items():
        has, default = _variable_default(var)
        if has:
            out[name] = default
    return out
