"""Import blocks during a plan: which instances of a resource they target, and adopting the
remote object (ImportResourceState, then ReadResource) before the instance is planned.

A resource vertex expands its import blocks (graph/nodes/resource.py ResourceNode.expansion)
after its dependencies, so `id` may refer to variables, locals and data sources. The instance
vertex then plans against the imported object as its prior state, as Terraform does. Import
blocks are read only from the root module: Terraform 1.15 ignores them elsewhere.
"""
from __future__ import annotations

from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import TYPE_CHECKING, Any

from tfconsole.addrs import AbsResourceInstance, InstanceKey, ModuleInstance
from tfconsole.addrs import Module as ModulePath
from tfconsole.config.importto import ImportTo, parse_to
from tfconsole.config.model import Import, Module, ResourceConfig
from tfconsole.diags import Diagnostics
from tfconsole.lang.eval import Scope, evaluate
from tfconsole.lang.types import STRING
from tfconsole.lang.values import (
    ConversionError,
    TList,
    TMap,
    TSet,
    Unknown,
    convert,
    is_null,
    is_wholly_known,
    unmark,
    unmark_deep,
)

from .base import Executable, Node, Referencer, expr_keys

if TYPE_CHECKING:
    from tfconsole.walk.context import Expansion, WalkContext

NOT_FOUND_DETAIL = ("While attempting to import an existing object to \"{addr}\", the provider detected that no "
                    "object exists with the given id. Only pre-existing objects can be imported; check that the id "
                    "is correct and that it is associated with the provider's configured region or endpoint, or "
                    "use \"terraform apply\" to create a new remote object for this resource.")


@dataclass(frozen=True)
class ImportTarget:
    """One instance an import block adopts, with the id (or, for `identity`, the identity's
    JSON data; id is then "") evaluated for it."""

    addr: AbsResourceInstance
    id: str
    block: Import
    identity: Any = None


def identity_text(data: Any) -> str:
    """An identity as Terraform's hooks print it: sorted `name=value` pairs, `<null>` for null
    (tfdiags.ObjectToString)."""
    if data is None:
        return "<null>"
    if not data:
        return "<empty>"
    return ",".join(f"{k}={_identity_value_text(data[k])}" for k in sorted(data))


def _identity_value_text(v: Any) -> str:
    if v is None:
        return "<null>"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ",".join(_identity_value_text(x) for x in v) + "]"
    return str(v)


def blocks_for(root: Module, rc: ResourceConfig) -> list[Import]:
    """The root module's import blocks whose `to` names this resource."""
    out = []
    for imp in root.imports:
        to = parse_to(imp.to)[0]
        if to is not None and _names(to, rc.module, rc):
            out.append(imp)
    return out


def _names(to: ImportTo, module: ModulePath, rc: ResourceConfig) -> bool:
    return (tuple(n for n, _ in to.module_steps) == module.path and to.mode == rc.addr.mode
            and to.type == rc.addr.type and to.name == rc.addr.name)


def missing_targets(root: Module) -> list[tuple[Import, ImportTo]]:
    """Import blocks whose target resource has no configuration."""
    out = []
    for imp in root.imports:
        to = parse_to(imp.to)[0]
        if to is None:
            continue
        mod = root.module_at(ModulePath(tuple(n for n, _ in to.module_steps)))
        if mod is None or not any(_names(to, mod.path, rc) for rc in mod.resources.values()):
            out.append((imp, to))
    return out


CONFIG_GEN_REFUSED = ("The given import block is not compatible with config generation. The -generate-config-out "
                      "option cannot be used with import blocks which use for_each, or resources which use for_each "
                      "or count.")


class MissingTargetNode(Node, Referencer, Executable):
    """The validate walk's vertex for an import block whose target resource has no configuration
    (Terraform adds one too, to see whether configuration could be generated for it). Its checks,
    in Terraform's order, stop at the first error: a target outside the root module cannot be
    generated; a keyed target or an import with for_each cannot either; with for_each, each
    evaluated key is checked against a resource that uses neither count nor for_each."""

    kind = "import"

    def __init__(self, imp: Import, to: ImportTo):
        self.imp, self.to = imp, to
        self.module = ModulePath()
        self.name = f"import {to.static_text() or to.resource_text()} (no configuration)"
        self._keys = expr_keys(ModulePath(), imp.id, imp.for_each)

    def reference_keys(self) -> list[Any]:
        return self._keys

    def execute(self, ctx: "WalkContext") -> Diagnostics:
        from tfconsole.walk.context import ModuleData

        imp, to, diags = self.imp, self.to, Diagnostics()
        if ctx.refresh_only or ctx.destroy_mode:  # they take no imports
            return diags
        if to.module_steps:
            return diags.error("Configuration for import target does not exist",
                               f"Resource {to.resource_text()} not found. Only resources within the root module "
                               "are eligible for config generation.", imp.to_range)
        if to.static_text() is not None and (to.key is not None or imp.for_each is not None):
            return diags.error("Configuration for import target does not exist", CONFIG_GEN_REFUSED, imp.to_range)
        root = Scope(ModuleData(ctx, ModuleInstance()), base_dir=ctx.working_dir)
        for each in _each_pairs(imp, root, diags, allow_unknown=ctx.operation == "validate"):
            scope = Scope(ModuleData(ctx, ModuleInstance()), each=each, base_dir=ctx.working_dir)
            addr = _resolve(to, scope, imp, diags)
            if addr is not None:
                diags.extend(_check_key_kind(None, addr.key, imp))
            if not diags.has_errors and imp.id is not None:
                _evaluate_id(imp, scope, diags, allow_unknown=True)
            if diags.has_errors:
                break
        return diags


def missing_module_errors(root: Module) -> Diagnostics:
    """Terraform's graph-building check: an import target inside a module the configuration does
    not have is an error before anything is validated."""
    diags = Diagnostics()
    for imp, to in missing_targets(root):
        if root.module_at(ModulePath(tuple(n for n, _ in to.module_steps))) is None:
            diags.error("Configuration for import target does not exist",
                        f"The configuration for the given import target {to.resource_text()} does not exist. All "
                        "target instances must have an associated configuration to be imported.", imp.to_range)
    return diags


def no_config_error(imp: Import, to: ImportTo) -> Diagnostics:
    return Diagnostics().error(
        "Configuration for import target does not exist",
        f"The configuration for the given import target {to.static_text() or to.resource_text()} does not exist. "
        "If you wish to automatically generate config for this resource, use the -generate-config-out option "
        "within terraform plan. Otherwise, make sure the target resource exists within your configuration. For "
        "example:\n\n  terraform plan -generate-config-out=generated.tf", imp.to_range)


def expand(ctx: WalkContext, rc: ResourceConfig, blocks: list[Import], expansions: dict[Any, Expansion],
           provider_addr: str = "") -> tuple[dict[AbsResourceInstance, ImportTarget], Diagnostics]:
    """Every instance the blocks target that is not in state yet, with its id or identity.
    `expansions`: the resource's count/for_each per module instance, to refuse targets it does
    not declare; `provider_addr`: the resource's provider (its identity schema)."""
    from tfconsole.walk.context import ModuleData

    diags = Diagnostics()
    out: dict[AbsResourceInstance, ImportTarget] = {}
    root = ModuleInstance()
    for imp in blocks:
        to = parse_to(imp.to)[0]
        assert to is not None  # the loader refused the block otherwise
        for each in _each_pairs(imp, Scope(ModuleData(ctx, root), base_dir=ctx.working_dir), diags):
            scope = Scope(ModuleData(ctx, root), each=each, base_dir=ctx.working_dir)
            addr = _resolve(to, scope, imp, diags)
            if addr is None:
                continue
            diags.extend(_check_key_kind(rc, addr.key, imp))
            identity = None
            if imp.id is None:
                import_id, identity = "", _evaluate_identity(ctx, rc, imp, scope, diags, provider_addr)
                if identity is None:
                    continue
            else:
                import_id = _evaluate_id(imp, scope, diags)
            if diags.has_errors or import_id is None:
                continue
            exp = expansions.get(addr.abs_resource())
            if exp is None or not exp.has_key(addr.key):
                diags.error("Configuration for import target does not exist",
                            f"The configuration for the given import {addr} does not exist. All target instances "
                            "must have an associated configuration to be imported.")
                continue
            if ctx.sync.current(addr) is None:  # already managed: the block has nothing to do
                out[addr] = ImportTarget(addr, import_id, imp, identity)
    return out, diags


def _each_pairs(imp: Import, scope: Scope, diags: Diagnostics, allow_unknown: bool = False) -> list[tuple | None]:
    """(each.key, each.value) for every element of for_each (maps, sets, lists); [None] without it.
    `allow_unknown` (the validate walk): an unknown for_each gives no pairs and no error."""
    if imp.for_each is None:
        return [None]
    v, d = evaluate(imp.for_each, scope)
    diags.extend(d)
    if d.has_errors:
        return []
    v, _ = unmark(v)
    if allow_unknown and (isinstance(v, Unknown) or not is_wholly_known(v)):
        return []
    if isinstance(v, Unknown) or not is_wholly_known(v):
        diags.error("Invalid for_each argument", "The \"for_each\" value of an import block depends on values that "
                    "cannot be determined until apply.", imp.for_each.range)
        return []
    if is_null(v):
        diags.error("Invalid for_each argument", "The given \"for_each\" argument value is unsuitable: the given "
                    "\"for_each\" argument value is null. A map, set of strings, or list is allowed.",
                    imp.for_each.range)
        return []
    if isinstance(v, (dict, TMap)):
        return [(k, x) for k, x in sorted(v.items())]
    if isinstance(v, TSet):
        return [(unmark(x)[0], x) for x in v]
    if isinstance(v, (list, TList)):
        return [(i, x) for i, x in enumerate(v)]
    diags.error("Invalid for_each argument", "The given \"for_each\" argument value is unsuitable: a map, set of "
                "strings, or list is allowed.", imp.for_each.range)
    return []


def _resolve(to: ImportTo, scope: Scope, imp: Import, diags: Diagnostics) -> AbsResourceInstance | None:
    """The instance address, its expression keys evaluated in the block's (each) scope."""
    from tfconsole.addrs import Resource

    keys: list[InstanceKey] = []
    for key in to.keys():
        if key is None or key[0] == "lit":
            keys.append(None if key is None else key[1])
            continue
        v, d = evaluate(key[1], scope)
        diags.extend(d)
        v = unmark_deep(v)[0] if not d.has_errors else None
        if isinstance(v, bool) or not isinstance(v, (str, int)) or (isinstance(v, int) and v < 0):
            if not d.has_errors:
                diags.error("Invalid import 'to' expression", "An instance key must be a known string or a "
                            "whole number.", key[1].range or imp.to_range)
            return None
        keys.append(v)
    steps = tuple((n, k) for (n, _), k in zip(to.module_steps, keys))
    return AbsResourceInstance(ModuleInstance(steps), Resource(to.mode, to.type, to.name), keys[-1])


def _check_key_kind(rc: ResourceConfig | None, key: InstanceKey, imp: Import) -> Diagnostics:
    """Terraform's check that the key suits the resource's count / for_each (None: a resource
    without configuration, which has neither)."""
    d = Diagnostics()
    each, count = rc is not None and rc.for_each is not None, rc is not None and rc.count is not None
    if isinstance(key, str):
        why = None if each else "The target resource does not use for_each."
    elif isinstance(key, int):
        why = None if count else "The target resource does not use count."
    else:
        why = "The target resource is using for_each." if each else \
            "The target resource is using count." if count else None
    if why:
        d.error("Invalid import 'to' expression", why, imp.to_range)
    return d


def validate_blocks(ctx: WalkContext, rc: ResourceConfig, blocks: list[Import], provider_addr: str) -> Diagnostics:
    """The validate walk's checks of the import blocks aimed at a resource, as Terraform's: the
    target's key against the resource's count / for_each, the `id` (unknown allowed, but not
    empty or null) and the `identity` object (its schema's attributes, of their types). Blocks
    with for_each are checked at plan."""
    from tfconsole.walk.context import ModuleData

    diags = Diagnostics()
    for imp in blocks:
        if imp.for_each is not None:
            continue
        to = parse_to(imp.to)[0]
        if to is not None and (to.key is None or to.key[0] == "lit"):
            diags.extend(_check_key_kind(rc, None if to.key is None else to.key[1], imp))
        scope = Scope(ModuleData(ctx, ModuleInstance()), base_dir=ctx.working_dir)
        if imp.id is not None:
            _evaluate_id(imp, scope, diags, allow_unknown=True)
        if imp.identity is not None:
            _evaluate_identity(ctx, rc, imp, scope, diags, provider_addr, allow_unknown=True)
    return diags


def _evaluate_identity(ctx: WalkContext, rc: ResourceConfig, imp: Import, scope: Scope,
                       diags: Diagnostics, provider_addr: str, allow_unknown: bool = False) -> dict[str, Any] | None:
    """The `identity` object as JSON data of the resource type's identity schema (Terraform's
    evaluateImportIdentityExpression: the schema's import attributes, optional ones optional)."""
    from tfconsole.lang.types import ObjectType
    from tfconsole.lang.values import to_json_typed

    assert imp.identity is not None
    rng = imp.identity.range
    provider = ctx.providers.get(provider_addr)
    ischema = provider.identity_schemas().get(rc.addr.type) if provider is not None else None
    if ischema is None:
        diags.error("Invalid import identity argument", f"The provider for {rc.addr} does not support importing "
                    f"resources of type \"{rc.addr.type}\" by identity.", rng)
        return None
    plain = _known_value(imp.identity, scope, diags, "identity", "identity", allow_unknown)
    if plain is None:
        return None
    ty = ischema.implied_type()
    config_ty = ObjectType.of(ty.attr_types, frozenset(k for k, a in ischema.attributes.items() if not a.required))
    try:
        value = convert(plain, config_ty)
    except ConversionError as exc:
        from tfconsole.lang.funcs import conversion_message

        diags.error("Incorrect value type", f"Invalid expression value: {conversion_message(exc, plain)}.", rng)
        return None
    return to_json_typed(value, ty) if not allow_unknown else None


def _known_value(expr: Any, scope: Scope, diags: Diagnostics, arg: str, noun: str,
                 allow_unknown: bool = False) -> Any:
    """The value of an import block's `id` or `identity`, unmarked (it only goes to the
    provider), or None after an error: it must be known (unless allow_unknown) and not null."""
    v, d = evaluate(expr, scope)
    diags.extend(d)
    if d.has_errors:
        return None
    plain = unmark_deep(v)[0]
    if is_null(plain):
        diags.error(f"Invalid import {arg} argument", f"The import {noun} cannot be null.", expr.range)
        return None
    if not allow_unknown and not is_wholly_known(plain):
        diags.error(f"Invalid import {arg} argument", f"The import block \"{arg}\" argument depends on resource "
                    "attributes that cannot be determined until apply, so Terraform cannot plan to import this "
                    "resource.", expr.range)
        return None
    return plain


def _evaluate_id(imp: Import, scope: Scope, diags: Diagnostics, allow_unknown: bool = False) -> str | None:
    plain = _known_value(imp.id, scope, diags, "id", "ID", allow_unknown)
    if plain is None or not is_wholly_known(plain):
        return None
    rng = imp.id.range
    try:
        s = convert(plain, STRING)
    except ConversionError:
        diags.error("Invalid import id argument", "The import ID value is unsuitable: not a string.", rng)
        return None
    if s == "":
        diags.error("Invalid import id argument", "The import ID value evaluates to an empty string, please provide "
                    "a non-empty value.", rng)
        return None
    return str(s)


def import_object(ctx: WalkContext, provider: Any, schema: Any, target: ImportTarget, provider_addr: str,
                  each_mode: str) -> tuple[dict[str, Any] | None, Any, Any, Diagnostics]:
    """(the imported object as read back, its private data, its identity, diagnostics):
    ImportResourceState (by id or identity) then ReadResource, as the plan's prior object; it
    joins the plan's prior state."""
    from tfconsole.states.objcodec import encode_object, remark
    from tfconsole.states.state import ObjectState
    from tfconsole.walk.hooks import object_id

    diags = Diagnostics()
    addr = target.addr
    addr_s, type_name = str(addr), addr.resource.type
    if target.identity is not None:
        ctx.hook.pre_plan_import(addr_s, target.id, identity=identity_text(target.identity))
        objs, d = provider.import_resource_state(type_name, target.id, identity=target.identity)
    else:
        ctx.hook.pre_plan_import(addr_s, target.id)
        objs, d = provider.import_resource_state(type_name, target.id)
    diags.extend(d)
    if d.has_errors:
        return None, None, None, diags
    if len(objs) != 1 or objs[0].state is None:
        what = "returned multiple resource instance states. This is not currently supported." if objs else \
            "returned no instance states."
        diags.error("Multiple import states not supported" if objs else "Import returned no resources",
                    f"While attempting to import with ID {target.id}, the provider{' ' if objs else ''}{what}")
        return None, None, None, diags
    if target.identity is not None and objs[0].identity is None:
        # providers must return an identity when importing by identity (Terraform's plain error)
        from dataclasses import replace

        from tfconsole.diags import SOURCELESS, error

        diags.append(replace(error(f"import of {addr} didn't return an identity", ""), context=SOURCELESS))
        return None, None, None, diags
    ctx.hook.pre_refresh(addr_s, object_id(objs[0].state))
    if objs[0].identity is not None:
        resp = provider.read_resource(type_name, objs[0].state, objs[0].private, identity=objs[0].identity)
    else:
        resp = provider.read_resource(type_name, objs[0].state, objs[0].private)
    diags.extend(resp.diags)
    ctx.hook.post_refresh(addr_s, object_id(resp.new_state))
    if resp.diags.has_errors:
        return None, None, None, diags
    if resp.new_state is None:
        diags.error("Cannot import non-existent remote object", NOT_FOUND_DETAIL.format(addr=addr))
        return None, None, None, diags
    value = remark(resp.new_state, [], schema)
    if ctx.refreshed_sync is not None:
        attrs, sens = encode_object(value, schema)
        obj = ObjectState(attributes=attrs, schema_version=schema.version, sensitive_attributes=sens,
                          private=resp.private, **identity_fields(provider, type_name, resp.new_identity))
        ctx.refreshed_sync.set_current(addr, obj, provider_addr, each_mode)
    return value, resp.private, resp.new_identity, diags


def identity_fields(provider: Any, type_name: str, identity: Any) -> dict[str, Any]:
    """ObjectState's identity fields for an object of this type: the identity (JSON data, None
    when the provider returned none) and the type's identity schema version (0 without one)."""
    ischema = provider.identity_schemas().get(type_name)
    return {"identity": identity, "identity_schema_version": ischema.version if ischema is not None else 0}


def generated_body(rc: ResourceConfig, schema: Any, value: dict[str, Any], block: Import
                   ) -> tuple[str, Any, Diagnostics]:
    """(the resource block generated from the imported object, its body to plan against, diags)."""
    from tfconsole.config.body import parse_file
    from tfconsole.config.genconfig import resource_block, resource_body

    provider_line = None
    ref = block.provider_ref
    if ref is not None and (ref[0] != rc.addr.type.split("_", 1)[0] or ref[1]):
        provider_line = ref[0] + (f".{ref[1]}" if ref[1] else "")
    text = resource_block(rc.addr.type, rc.addr.name, resource_body(schema.block, value, provider_line))
    filename = rc.range.filename if rc.range is not None else "generated.tf"
    parsed, diags = parse_file(text, filename)
    if parsed is None or diags.has_errors or not parsed.blocks:
        return text, None, diags
    from tfconsole.config.loader import _without

    return text, _without(parsed.blocks[0].body, ("provider",)), diags


def with_import_targets(root: Module, generate_config_out: str, plan: Any,
                        validate: Any) -> tuple[Any, Diagnostics]:
    """Run `plan` once every import block's target has configuration: a target without any is
    an error, unless -generate-config-out asks for it to be generated (a synthetic resource,
    planned with configuration made from the imported object, removed again afterwards).
    `validate` gives the validate walk's errors, reported alone when a target has none."""
    import os

    from tfconsole.addrs import Resource
    from tfconsole.config.body import Body
    from tfconsole.diags import SourceRange
    from tfconsole.plans import Plan

    diags = Diagnostics()
    added: list[Resource] = []
    missing = missing_targets(root)
    if missing:
        # Terraform validates before it plans: the validate walk's checks of these targets
        # (graph/nodes/importing.MissingTargetNode) are all it reports when they fail
        vd = validate()
        if vd.has_errors:
            return Plan(errored=True, validation_failed=True), vd
    for imp, to in missing:
        res = Resource(to.mode, to.type, to.name)
        if imp.for_each is not None:
            continue  # its keys are checked in the plan walk (MissingTargetNode)
        if not generate_config_out or to.module_steps or to.key is not None:
            diags.extend(no_config_error(imp, to))
        elif res not in root.resources:
            rng = SourceRange(os.path.basename(generate_config_out), imp.range.start, imp.range.end)
            root.resources[res] = ResourceConfig(res, ModulePath(), Body(), provider_ref=imp.provider_ref,
                                                 range=rng, generated=True)
            added.append(res)
    if diags.has_errors:
        return Plan(errored=True), diags
    try:
        result, d = plan()
    finally:
        for res in added:
            root.resources.pop(res, None)
    return result, diags.append(d)
