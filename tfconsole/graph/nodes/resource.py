"""Resource vertices: the config-level node that expands during the plan walk, the instance
nodes it expands into, orphans, and the apply/destroy instance nodes of the apply graph."""
from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from tfconsole.addrs import AbsResource, AbsResourceInstance, InstanceKey, ModuleInstance, intern_resource
from tfconsole.addrs import Module as ModulePath
from tfconsole.config import dynblock
from tfconsole.config.body import Body
from tfconsole.config.model import CheckRule, ResourceConfig
from tfconsole.diags import SOURCELESS, Diagnostics, SourceRange
from tfconsole.providers.interface import CALLING_RESOURCE  # (the apply sets it itself)
from tfconsole.lang import ast as A
from tfconsole.lang.eval import NOT_FOUND, Scope, evaluate
from tfconsole.lang.types import DYNAMIC, NUMBER, STRING, DynamicType, ListType, MapType, ObjectType, SetType
from tfconsole.lang.values import (
    EPHEMERAL, ConversionError, Null, Sensitive, TList, TMap, TSet, Unknown, contains_ephemeral, contains_marks,
    convert, deep_marks, equal, find_infinity, is_null, is_wholly_known, mark, same_type, sensitive_paths, type_of,
    unmark, unmark_deep,
)
from tfconsole.plans import (
    Action, Importing, REASON_BY_REQUEST, REASON_BY_TRIGGERS, REASON_CANNOT_UPDATE, REASON_TAINTED,
    ResourceInstanceChange,
)
from tfconsole.providers.interface import ApplyRequest, BlockSchema, PlanRequest, Schema
from tfconsole.states.objcodec import (
    decode_object, encode_object, remark, same_state_paths, schema_marks,
)
from tfconsole.plans.objchange import (
    assert_object_compatible, assert_plan_valid, format_error, format_path, write_only_values,
)
from tfconsole.plans.objchange import proposed_new as terraform_proposed_new
from tfconsole.states.state import ObjectState
from tfconsole.walk.context import Expansion, scope_for
from tfconsole.walk.hooks import object_id

from .expansion import ExpandFacts
from .base import (
    DynamicExpandable, Executable, Node, ProviderConsumer, Referenceable, Referencer, RefKey, expr_keys,
    keys_for_traversals,
)

if TYPE_CHECKING:
    from tfconsole.walk.context import WalkContext


# ---------------------------------------------------------------------------
# count / for_each


# Terraform has no limit; tfconsole stops at this many instances of one block, so that
# `count = 1e9` is an error naming the limit instead of a MemoryError.
MAX_INSTANCES = 100_000


def evaluate_expansion(count: A.Expr | None, for_each: A.Expr | None, scope: Scope, what: str,
                       allow_unknown: bool) -> tuple["Expansion | None", Diagnostics]:
    from tfconsole.walk.context import Expansion

    diags = Diagnostics()
    if count is not None:
        v, d = evaluate(count, scope)
        diags.append(d)
        if d.has_errors:
            return None, diags
        v, marked = unmark_deep(v)
        if marked & EPHEMERAL:
            diags.error("Invalid count argument",
                        "The given \"count\" is derived from an ephemeral value, which means that Terraform "
                        "cannot persist it between plan/apply rounds. Use only non-ephemeral values to specify "
                        "the number of resource instances.", count.range)
            return None, diags
        if isinstance(v, Unknown):
            if allow_unknown:
                return Expansion("list", [], unknown=True), diags
            diags.error("Invalid count argument",
                        "The \"count\" value depends on resource attributes that cannot be determined until "
                        "apply, so Terraform cannot predict how many instances will be created. To work around "
                        "this, use the -target argument to first apply only the resources that the count "
                        "depends on.", count.range)
            return None, diags
        if is_null(v):
            diags.error("Invalid count argument",
                        "The given \"count\" argument value is null. An integer is required.", count.range)
            return None, diags
        try:
            n = convert(v, _NUMBER())
        except ConversionError as exc:
            diags.error("Invalid count argument",
                        f"The given \"count\" argument value is unsuitable: {exc.message}.", count.range)
            return None, diags
        if n != int(n):
            diags.error("Invalid count argument", "The given \"count\" argument value is unsuitable: value "
                        "must be a whole number.", count.range)
            return None, diags
        if n < 0:
            diags.error("Invalid count argument", "The given \"count\" argument value is unsuitable: must be "
                        "greater than or equal to zero.", count.range)
            return None, diags
        if n > MAX_INSTANCES:
            diags.error("Invalid count argument", f"The given \"count\" argument value is unsuitable: {n:,.0f} "
                        f"instances; tfconsole supports at most {MAX_INSTANCES:,} instances of one resource or "
                        "module.", count.range)
            return None, diags
        return Expansion("list", list(range(int(n)))), diags
    if for_each is not None:
        v, d = evaluate(for_each, scope)
        diags.append(d)
        if d.has_errors:
            return None, diags
        raw, marked = unmark(v)
        if deep_marks(v) & EPHEMERAL:
            diags.error("Invalid for_each argument",
                        "The given \"for_each\" value is derived from an ephemeral value, which means that "
                        "Terraform cannot persist it between plan/apply rounds. Use only non-ephemeral values to "
                        "specify a resource's instance keys.", for_each.range)
            return None, _annotate(diags, for_each, scope, ephemeral=True)
        if marked or (not isinstance(raw, (dict, TMap)) and _has_marks(raw)):
            diags.error("Invalid for_each argument",
                        "Sensitive values, or values derived from sensitive values, cannot be used as for_each "
                        "arguments. If used, the sensitive value could be exposed as a resource instance key.",
                        for_each.range)
            return None, _annotate(diags, for_each, scope, sensitive=True)
        if isinstance(raw, Unknown):
            if allow_unknown:
                return Expansion("map", [], unknown=True), diags
            diags.error("Invalid for_each argument", _UNKNOWN_SET if isinstance(raw.type, SetType) else _UNKNOWN_MAP,
                        for_each.range)
            return None, _annotate(diags, for_each, scope, unknown=True)
        if is_null(raw):
            diags.error("Invalid for_each argument", "The given \"for_each\" argument value is unsuitable: the "
                        "given \"for_each\" argument value is null. A map, or set of strings is allowed.",
                        for_each.range)
            return None, _annotate(diags, for_each, scope)
        if isinstance(raw, (dict, TMap, TSet)) and len(raw) > MAX_INSTANCES:
            diags.error("Invalid for_each argument", f"The given \"for_each\" argument value is unsuitable: "
                        f"{len(raw):,} elements; tfconsole supports at most {MAX_INSTANCES:,} instances of one "
                        "resource or module.", for_each.range)
            return None, _annotate(diags, for_each, scope)
        if isinstance(raw, (dict, TMap)):
            keys = sorted(raw.keys())
            return Expansion("map", keys, {k: raw[k] for k in keys}), diags
        if isinstance(raw, TSet):
            vals = []
            for item in raw:
                item, m = unmark(item)
                if isinstance(item, Unknown):
                    if allow_unknown:
                        return Expansion("map", [], unknown=True), diags
                    diags.error("Invalid for_each argument", _UNKNOWN_SET, for_each.range)
                    return None, _annotate(diags, for_each, scope, unknown=True)
                if is_null(item):
                    diags.error("Invalid for_each set argument", "The given \"for_each\" argument value is "
                                "unsuitable: \"for_each\" sets must not contain null values.", for_each.range)
                    return None, _annotate(diags, for_each, scope)
                if not isinstance(item, str):
                    diags.error("Invalid for_each set argument",
                                "The given \"for_each\" argument value is unsuitable: \"for_each\" supports sets "
                                f"of strings, but you have provided a set containing type "
                                f"{type_of(item).friendly()}.", for_each.range)
                    return None, _annotate(diags, for_each, scope)
                vals.append(item)
            return Expansion("map", sorted(vals), {k: k for k in vals}), diags
        diags.error("Invalid for_each argument",
                    "The given \"for_each\" argument value is unsuitable: the \"for_each\" argument must be a "
                    f"map, or set of strings, and you have provided a value of type {type_of(raw).friendly()}.",
                    for_each.range)
        return None, _annotate(diags, for_each, scope)
    return Expansion("", [None]), diags


_TARGET_HINT = ("\n\nAlternatively, you could use the -target planning option to first apply only the resources "
                "that the for_each value depends on, and then apply a second time to fully converge.")
_UNKNOWN_SET = ("The \"for_each\" set includes values derived from resource attributes that cannot be determined "
                "until apply, and so Terraform cannot determine the full set of keys that will identify the "
                "instances of this resource.\n\nWhen working with unknown values in for_each, it's better to use a "
                "map value where the keys are defined statically in your configuration and where only the values "
                "contain apply-time results." + _TARGET_HINT)
_UNKNOWN_MAP = ("The \"for_each\" map includes keys derived from resource attributes that cannot be determined "
                "until apply, and so Terraform cannot determine the full set of keys that will identify the "
                "instances of this resource.\n\nWhen working with unknown values in for_each, it's better to define "
                "the map keys statically in your configuration and place apply-time results only in the map "
                "values." + _TARGET_HINT)


def _annotate(diags: Diagnostics, expr: A.Expr, scope: Scope, unknown: bool = False,
              sensitive: bool = False, ephemeral: bool = False) -> Diagnostics:
    """The last diagnostic (about the for_each expression) with what the expression referred
    to, as Terraform annotates it; only errors pay for this."""

    from tfconsole.lang.diagvalues import expression_values

    if diags.items:
        diags.items[-1] = replace(diags.items[-1], values=expression_values(expr, scope, unknown, sensitive, ephemeral))
    return diags


def _NUMBER() -> Any:

    return NUMBER


def _has_marks(v: Any) -> bool:

    return contains_marks(v)


# ---------------------------------------------------------------------------
# configuration bodies against schemas


def evaluate_body(body: Body, schema: BlockSchema, scope: Scope, block_range: SourceRange | None,
                  addr: str, ephemeral_ok: bool = False) -> tuple[dict[str, Any], Diagnostics]:
    """The body's value against the schema. Unless ephemeral_ok (provider and ephemeral
    resource configurations), an ephemeral value is refused outside write-only attributes:
    everything else is persisted in the plan and in state."""
    layout = _body_layout(body, schema)
    if layout is None:
        return _evaluate_body(body, schema, scope, block_range, addr, ephemeral_ok)
    diags = Diagnostics()
    out: dict[str, Any] = {}
    for name, attr, s in layout[0]:
        out[name] = _attribute_value(name, attr, s, scope, addr, ephemeral_ok, diags)
    out.update(layout[1])
    return out, diags


def _attribute_value(name: str, attr: Any, s: Any, scope: Scope, addr: str, ephemeral_ok: bool,
                     diags: Diagnostics) -> Any:
    """An attribute's value converted to its schema type (Unknown after an error, reported)."""
    v, d = evaluate(attr.expr, scope)
    if d:
        diags.extend(_with_addr(d, addr))
        if d.has_errors:
            return Unknown(s.type)
    if not ephemeral_ok and not s.write_only and contains_marks(v) and contains_ephemeral(v):
        from tfconsole.diags import error

        diags.append(replace(error(
            "Invalid use of ephemeral value",
            f"Ephemeral values are not valid for \"{name}\", because it is not a write-only attribute and must "
            "be persisted to state.", attr.expr.range or attr.range, address=addr), context="with"))
        return Unknown(s.type)
    try:
        return convert(v, s.type)
    except ConversionError as exc:
        diags.error("Incorrect attribute value type",
                    f"Inappropriate value for attribute \"{name}\": {exc.message}.", attr.range, address=addr)
        return Unknown(s.type)


# (id(body), id(schema)) -> (body, schema, layout): see _body_layout. The body and schema are
# kept so their ids are not reused while cached; bounded, as providers may build schemas anew.
_LAYOUTS: dict[tuple[int, int], tuple[Any, Any, Any]] = {}


def _body_layout(body: Body, schema: BlockSchema) -> tuple[list[tuple[str, Any, Any]], dict[str, Any]] | None:
    """What evaluating a body against a schema decides without evaluating anything, worked out
    once per (body, schema) instead of once per instance: the attributes to evaluate (name,
    attribute, schema attribute) and the nulls of the schema's attributes the body leaves out.
    None when the body needs the general path: nested blocks (in the body or the schema),
    attributes the schema refuses, or a required attribute missing (each is reported there)."""
    known = _LAYOUTS.get((id(body), id(schema)))
    if known is not None and known[0] is body and known[1] is schema:
        return known[2]
    layout: Any = None
    attrs = schema.attributes
    if not body.blocks and not schema.blocks and all(
            name in attrs and not (attrs[name].computed and not attrs[name].optional and not attrs[name].required)
            for name in body.attributes) and not any(
            s.required for name, s in attrs.items() if name not in body.attributes):
        layout = ([(name, attr, attrs[name]) for name, attr in body.attributes.items()],
                  {name: Null(s.type) if not isinstance(s.type, DynamicType) else None
                   for name, s in attrs.items() if name not in body.attributes})
    if len(_LAYOUTS) >= 4096:
        _LAYOUTS.clear()
    _LAYOUTS[(id(body), id(schema))] = (body, schema, layout)
    return layout


def _evaluate_body(body: Body, schema: BlockSchema, scope: Scope, block_range: SourceRange | None,
                   addr: str, ephemeral_ok: bool = False) -> tuple[dict[str, Any], Diagnostics]:
    """evaluate_body's general path: every diagnostic a body can earn, nested blocks too."""
    diags = Diagnostics()
    out: dict[str, Any] = {}
    for name, attr in body.attributes.items():
        s = schema.attributes.get(name)
        if s is None:
            if name in schema.blocks:
                diags.error("Unsupported argument", f"An argument named \"{name}\" is not expected here. Did you "
                            f"mean to define a block of type \"{name}\"?", attr.name_range, address=addr)
            else:
                diags.error("Unsupported argument", f"An argument named \"{name}\" is not expected here.",
                            attr.name_range, address=addr)
            continue
        if s.computed and not s.optional and not s.required:
            diags.error("Invalid Configuration for Read-Only Attribute",
                        f"Cannot set value for this attribute as the provider has marked it as read-only. Remove "
                        f"the configuration line setting the value.", attr.range, address=addr)
            continue
        out[name] = _attribute_value(name, attr, s, scope, addr, ephemeral_ok, diags)
    for name, s in schema.attributes.items():
        if name in out:
            continue
        if s.required:
            diags.error("Missing required argument",
                        f"The argument \"{name}\" is required, but no definition was found.", block_range,
                        address=addr)
        out[name] = Null(s.type) if not isinstance(s.type, DynamicType) else None
    if body.blocks:
        generated, d = dynblock.expand(body, scope, addr, schema.blocks)
        diags.extend(d)
    else:
        generated = []
    for g in generated:
        if g.type not in schema.blocks:
            diags.error("Unsupported block type", f"Blocks of type \"{g.type}\" are not expected here.",
                        g.range, address=addr)
    for name, nb in schema.blocks.items():
        blocks = [g for g in generated if g.type == name]
        inner_ty = nb.block.implied_type()
        if any(g.unknown for g in blocks):  # a dynamic block over a collection not known yet
            out[name] = Unknown(dict(schema.implied_type().attrs)[name])
            continue
        vals = []
        for g in blocks:
            v, d = evaluate_body(g.body, nb.block, g.scope, g.range, addr, ephemeral_ok)
            diags.extend(d)
            if g.marks:  # a marked for_each marks each attribute set in the generated block
                # (HCL marks the block too, but Terraform's plan keeps the attributes' marks only)
                v = {k: mark(x, g.marks) if k in g.body.attributes else x for k, x in v.items()}
            vals.append(v)
        if nb.nesting == "single":
            out[name] = vals[0] if vals else Null(inner_ty)
        elif nb.nesting == "set":
            # a set cannot hold marked elements: their marks move to the set (as cty's do)
            clean = [unmark_deep(x) for x in vals]
            marks = 0
            for _, m in clean:
                marks |= m
            out[name] = mark(TSet([c for c, _ in clean], inner_ty), marks) if marks else TSet(vals, inner_ty)
        else:
            out[name] = TList(vals, inner_ty)
        if nb.min_items and len(vals) < nb.min_items:
            diags.error("Insufficient " + name + " blocks",
                        f"At least {nb.min_items} \"{name}\" blocks are required.", block_range, address=addr)
        if nb.max_items and len(vals) > nb.max_items:
            diags.error("Too many " + name + " blocks",
                        f"No more than {nb.max_items} \"{name}\" blocks are allowed", blocks[nb.max_items].range,
                        address=addr)
    return out, diags


def _with_addr(d: Diagnostics, addr: str, rng: SourceRange | None = None) -> Diagnostics:
    """Name the address on every diagnostic; a provider's diagnostic without a source range
    points at the resource block (as Terraform's "with ADDR, on FILE line N" does)."""
    if not d:
        # nothing to name: the empty collection itself (every caller only reads the result)
        return d if d is not None else Diagnostics()

    return Diagnostics([x if x.context == SOURCELESS else
                        replace(x, address=x.address or addr, subject=x.subject or rng,
                                context="with" if x.subject is None else x.context) for x in d])


def _proposed(provider: Any, block: BlockSchema, prior: dict[str, Any] | None, config: dict[str, Any]) -> Any:
    """The proposed new state: Terraform's exact rules for a plugin, the built-ins' own otherwise."""
    if provider.wire_protocol:

        return terraform_proposed_new(block, prior, config)
    return proposed_new(block, prior, config)


def _quote(s: str) -> str:
    import json

    return json.dumps(s, ensure_ascii=False)


def _planned_valid(provider: Any, schema: Schema, prior: Any, config: Any, resp: Any, addr_s: str) -> Diagnostics:
    """Terraform's AssertPlanValid; a provider on the legacy SDK is tolerated, as Terraform does."""
    diags = Diagnostics()
    if not provider.wire_protocol:
        return diags

    for path in write_only_values(schema.block, resp.planned):
        diags.error("Provider produced invalid plan",
                    f"Provider {_quote(f'provider[{_quote(provider.source)}]')} returned a value for the write-only "
                    f"attribute \"{addr_s}{format_path(path)}\" during planning. Write-only attributes cannot be "
                    "read back from the provider. This is a bug in the provider, which should be reported in the "
                    "provider's own issue tracker.", address=addr_s)
    if diags.has_errors or resp.legacy_type_system:
        return diags
    for err in assert_plan_valid(schema.block, prior, config, resp.planned):
        diags.error("Provider produced invalid plan",
                    f"Provider {_quote(provider.source)} planned an invalid value for "
                    f"{format_error(err, addr_s)}.\n\nThis is a bug in the provider, which should be reported in "
                    "the provider's own issue tracker.", address=addr_s)
    return diags


def _final_plan_consistent(provider: Any, schema: Schema, ch: ResourceInstanceChange, prior: Any, presp: Any,
                           addr_s: str) -> Diagnostics:
    """The plan made again at apply time, with everything learned so far, must keep what the
    reviewed plan promised ("Provider produced inconsistent final plan")."""
    diags = Diagnostics()
    if not provider.wire_protocol:
        return diags

    planned_before = unmark_deep(ch.after)[0] if ch.after is not None else None
    if ch.action is Action.UPDATE and prior is None:
        diags.error("Provider produced inconsistent final plan",
                    f"When expanding the plan for {addr_s} to include new values learned so far during apply, "
                    f"provider {_quote(provider.source)} changed the planned action from Update to Create.\n\n"
                    "This is a bug in the provider, which should be reported in the provider's own issue tracker.",
                    address=addr_s)
    for err in assert_object_compatible(schema.block, planned_before, presp.planned):
        diags.error("Provider produced inconsistent final plan",
                    f"When expanding the plan for {addr_s} to include new values learned so far during apply, "
                    f"provider {_quote(provider.source)} produced an invalid new value for {format_error(err)}."
                    "\n\nThis is a bug in the provider, which should be reported in the provider's own issue "
                    "tracker.", address=addr_s)
    return diags


def _applied_valid(provider: Any, schema: Schema, action: Action, planned: Any, resp: Any,
                   addr_s: str) -> Diagnostics:
    """What Terraform checks of ApplyResourceChange's answer, with its texts."""
    diags = Diagnostics()
    new = resp.new_state
    if new is None:
        if not resp.diags.has_errors:
            verb = "Create" if action is not Action.UPDATE else "Update"
            diags.error("Provider returned invalid result object after apply",
                        f"After applying a {verb} plan, the provider returned a null object for {addr_s}. Only "
                        "destroying should always produce a null value, so this is always a bug in the provider "
                        "and should be reported in the provider's own repository.", address=addr_s)
        return diags
    for path in _unknown_paths(new):

        diags.error("Provider returned invalid result object after apply",
                    f"After the apply operation, the provider still indicated an unknown value for "
                    f"{addr_s}{format_path(path)}. All values must be known after apply, so this is always a bug "
                    "in the provider and should be reported in the provider's own repository. Terraform will "
                    "still save the other known object values in the state.", address=addr_s)
    if diags.has_errors or resp.diags.has_errors or not provider.wire_protocol:
        return diags

    name = f"provider[{_quote(provider.source)}]"
    for path in write_only_values(schema.block, new):
        diags.error("Provider produced invalid object",
                    f"Provider {_quote(name)} returned a value for the write-only attribute \"{addr_s}"
                    f"{format_path(path)}\" after apply. Write-only attributes cannot be read back from the "
                    "provider. This is a bug in the provider, which should be reported in the provider's own "
                    "issue tracker.", address=addr_s)
    if diags.has_errors or resp.legacy_type_system:
        return diags
    for err in assert_object_compatible(schema.block, planned, new):
        diags.error("Provider produced inconsistent result after apply",
                    f"When applying changes to {addr_s}, provider {_quote(name)} produced an unexpected new "
                    f"value: {format_error(err)}.\n\nThis is a bug in the provider, which should be reported in "
                    "the provider's own issue tracker.", address=addr_s)
    return diags


def _unknown_paths(v: Any, path: tuple = ()) -> list[tuple]:
    v, _ = unmark(v)
    if isinstance(v, Unknown):
        return [path]
    if isinstance(v, dict):
        return [p for k, x in v.items() for p in _unknown_paths(x, path + (k,))]
    if isinstance(v, list) and not isinstance(v, TSet):
        return [p for i, x in enumerate(v) for p in _unknown_paths(x, path + (i,))]
    if isinstance(v, TSet) and not is_wholly_known(v):
        return [path]
    return []


def _unknown_as_null(v: Any) -> Any:
    if isinstance(v, Unknown):
        return Null(v.type)
    if isinstance(v, TMap):
        return TMap({k: _unknown_as_null(x) for k, x in v.items()}, v.etype)
    if isinstance(v, dict):
        return {k: _unknown_as_null(x) for k, x in v.items()}
    if isinstance(v, TSet):
        return TSet([_unknown_as_null(x) for x in v], v.etype)
    if isinstance(v, TList):
        return TList([_unknown_as_null(x) for x in v], v.etype)
    if isinstance(v, list):
        return [_unknown_as_null(x) for x in v]
    return v


def required_replaces(prior: Any, planned: Any, paths: list[tuple]) -> list[tuple]:
    """The provider's requires_replace paths whose value actually changes (Terraform's
    getRequiredReplaces): an unchanged attribute never forces a replacement."""
    out = []
    for path in paths:
        before, after = _at_path(prior, path), _at_path(planned, path)
        if before is NOT_FOUND and after is NOT_FOUND:
            continue
        before = None if before is NOT_FOUND else before
        after = None if after is NOT_FOUND else after
        if isinstance(unmark(before)[0], Unknown) or isinstance(unmark(after)[0], Unknown) or \
                not equal(unmark_deep(before)[0], unmark_deep(after)[0]):
            out.append(path)
    return out


def _at_path(v: Any, path: tuple) -> Any:
    for step in path:
        v, _ = unmark(v)
        if isinstance(v, dict):
            if step not in v:
                return NOT_FOUND
            v = v[step]
        elif isinstance(v, list) and isinstance(step, int) and not isinstance(v, TSet):
            if not 0 <= step < len(v):
                return NOT_FOUND
            v = v[step]
        elif v is None or isinstance(v, (Null, Unknown)):
            return v
        else:
            return NOT_FOUND
    return v


def for_resource(execute: Any) -> Any:
    """Run an instance vertex with its address as the resource its provider calls are made for
    (a plugin attributes its log lines to it)."""
    from functools import wraps

    from tfconsole.providers.interface import CALLING_RESOURCE

    @wraps(execute)
    def run(self: Any, ctx: "WalkContext") -> Diagnostics:
        token = CALLING_RESOURCE.set(str(self.addr))
        try:
            return execute(self, ctx)
        finally:
            CALLING_RESOURCE.reset(token)

    return run


def proposed_new(schema: BlockSchema, prior: dict[str, Any] | None, config: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, s in schema.attributes.items():
        cv = config.get(name)
        if s.computed and is_null(cv):
            if prior is not None:
                out[name] = prior.get(name)
            else:
                out[name] = Unknown(s.type)
        else:
            out[name] = cv
    for name in schema.blocks:
        out[name] = config.get(name)
    return out


def value_paths_equal(a: Any, b: Any) -> bool:
    if a is b:  # a refresh that returned the stored object itself (the built-in providers do)
        return True
    ua, _ = unmark_deep(a)
    ub, _ = unmark_deep(b)
    if not equal(ua, ub):
        return False

    try:
        return is_null(ua) or same_type(ua, ub)
    except TypeError:
        return False


def apply_ignore_changes(config: dict[str, Any], prior: dict[str, Any] | None, ignore: Any,
                         schema: BlockSchema) -> dict[str, Any]:
    if prior is None or not ignore:
        return config
    out = dict(config)
    if ignore == "all":
        for k in schema.attributes:
            if not (schema.attributes[k].computed and not schema.attributes[k].optional):
                out[k] = prior.get(k)
        return out
    for path in ignore:
        if not path:
            continue
        head = path[0]
        if len(path) == 1 or _index_on_object(out.get(head), path[1:]):
            # Terraform cannot apply an index step to an object value and keeps the whole attribute
            out[head] = prior.get(head)
        else:
            cur, pv = out.get(head), prior.get(head)
            out[head] = _set_path(cur, path[1:], _get_path(pv, path[1:]))
    return out


def _index_on_object(v: Any, path: tuple) -> bool:
    from tfconsole.config.model import IndexKey

    for p in path:
        v, _ = unmark(v)
        if isinstance(p, IndexKey) and type(v) is dict:
            return True
        if isinstance(v, (dict, TMap)):
            v = v.get(p)
        else:
            return False
    return False


def _get_path(v: Any, path: tuple) -> Any:
    for p in path:
        v, _ = unmark(v)
        if isinstance(v, (dict, TMap)):
            v = v.get(p)
        elif isinstance(v, (list, TList)) and isinstance(p, int) and 0 <= p < len(v):
            v = v[p]
        else:
            return NOT_FOUND
    return v


def _set_path(v: Any, path: tuple, new: Any) -> Any:
    if new is NOT_FOUND:
        if isinstance(v, (dict, TMap)) and len(path) == 1 and path[0] in v:
            c = dict(v)
            del c[path[0]]
            return TMap(c, v.etype) if isinstance(v, TMap) else c
        return v
    if not path:
        return new
    if isinstance(v, TMap):
        c = dict(v)
        c[path[0]] = _set_path(c.get(path[0]), path[1:], new)
        return TMap(c, v.etype)
    if isinstance(v, dict):
        c = dict(v)
        c[path[0]] = _set_path(c.get(path[0]), path[1:], new)
        return c
    return v


def _infinity_diag(addr_s: str, rc: Any) -> Any:
    from tfconsole.diags import error

    return error(f"failed to encode {addr_s} in state: failed to serialize value: cannot serialize infinity as "
                 "JSON", "", rc.range if rc is not None else None, address=addr_s)


def check_rules(rules: list[CheckRule], scope: Scope, summary: str, addr: str,
                report: Any = None) -> Diagnostics:
    """Evaluate conditions; report(status, message) is told each one's result when given."""
    from .conditions import judge

    diags = Diagnostics()
    if not rules:  # most resources: nothing to evaluate (asked at every instance)
        return diags
    for rule in rules:
        status, message, d = judge(rule, scope, summary, address=addr)
        diags.extend(d)
        if report is not None:
            report(status, message) if status == "fail" else report(status)
    return diags


def check_reporter(ctx: Any, addr: Any) -> Any:
    """report(status, message) recording into the walk's check results for a resource instance."""
    # the addresses are worked out at the first report: most resources have no conditions, and
    # an apply asks for a reporter at every instance
    addrs: list[tuple[dict, dict]] = []

    def report(status: str, message: str | None = None) -> None:
        if not addrs:
            from tfconsole.plans.checks import resource_addrs

            addrs.append(resource_addrs(addr))
        static, dynamic = addrs[0]
        ctx.checks.report(static, dynamic, status, message)
    return report


def record_plan_postconditions(ctx: Any, rc: Any, addr: Any, exp: Any, planned: Any) -> Diagnostics:
    """Terraform evaluates postconditions at plan time against the planned object: record what
    they give (unknown while the values they read are not known yet) and report a failure, which
    fails the plan as it does Terraform's."""

    if not rc.lifecycle.postconditions:
        return Diagnostics()
    scope = scope_for(ctx, addr.module, key=addr.key, expansion=exp, self_value=planned)
    return check_rules(rc.lifecycle.postconditions, scope, "Resource postcondition failed", str(addr),
                       check_reporter(ctx, addr))


# ---------------------------------------------------------------------------
# plan graph vertices


class ResourceNode(Node, Executable, DynamicExpandable, Referenceable, Referencer, ProviderConsumer):
    """A resource or data block (config level). Walking it evaluates count/for_each in each
    instance of its module and expands into instance vertices plus count/for_each orphans."""

    kind = "resource"

    def __init__(self, rc: ResourceConfig, provider_addr: str = ""):
        self.rc = rc
        self.module = rc.module
        self.name = rc.module.prefix() + str(rc.addr)
        self.provider_addr = provider_addr
        self.dependencies: list[str] = []  # config resources this depends on (for state)
        self.targets: list[Any] = []
        self.excludes: list[Any] = []
        self.force_cbd = False  # a create_before_destroy dependent forces it onto this resource
        self.replace: set[AbsResourceInstance] = set()
        self.destroy_plan = False
        self.imports: list[Any] = []  # the root module's import blocks targeting this resource
        self.import_targets: dict[AbsResourceInstance, Any] = {}  # set by the plan's expansion

    def referenceable_keys(self) -> list[RefKey]:
        key = str(self.rc.addr)
        return [(self.module, key)]

    def reference_keys(self) -> list[RefKey]:
        rc = self.rc
        exprs = [a.expr for a in _all_attrs(rc.body)]
        exprs += [rc.count, rc.for_each]
        for r in rc.lifecycle.preconditions + rc.lifecycle.postconditions:
            exprs += [r.condition, r.error_message]
        exprs += list(rc.lifecycle.replace_triggered_by)
        keys = [k for k in expr_keys(self.module, *exprs) if k != (self.module, str(rc.addr))]
        keys.extend(keys_for_traversals(self.module, rc.depends_on))
        for imp in self.imports:  # import blocks are evaluated in the root module
            keys.extend(k for k in expr_keys(ModulePath(), imp.id, imp.identity, imp.for_each)
                        if k != (self.module, str(rc.addr)))
        return keys

    def provider_ref(self) -> tuple[ModulePath, str, str | None]:
        ref = self.rc.provider_ref
        if ref:
            return (self.module, ref[0], ref[1])
        return (self.module, self.rc.provider_local_name, None)

    @property
    def cbd(self) -> bool:
        return self.rc.lifecycle.create_before_destroy or self.force_cbd

    _plan_facts: "_PlanFacts | None" = None

    def plan_facts(self, ctx: "WalkContext") -> "_PlanFacts":
        """Its instances' shared facts for this walk (made by the first instance that asks;
        two threads asking at once make equal ones, and either is kept)."""
        facts = self._plan_facts
        if facts is None or facts.ctx is not ctx:
            facts = self._plan_facts = _PlanFacts(ctx, self)
        return facts

    def execute(self, ctx: "WalkContext") -> Diagnostics:
        return Diagnostics()

    def expansion(self, ctx: "WalkContext") -> tuple[ExpandFacts | None, Diagnostics]:
        """Evaluate count / for_each in every instance of the module and register the result;
        the facts for the expand steps: instances, keys still in state, removed module instances."""

        if ctx.operation == "validate":
            return self._validate_expansion(ctx)
        diags = Diagnostics()
        rc = self.rc
        facts = ExpandFacts(self)
        for mi in ctx.instances_of(self.module):
            abs_res = intern_resource(AbsResource(mi, rc.addr))
            exp, d = evaluate_expansion(rc.count, rc.for_each, scope_for(ctx, mi), str(abs_res),
                                        allow_unknown=False)
            diags.extend(_with_addr(d, str(abs_res)))
            if exp is None:
                continue
            ctx.register_resource_expansion(abs_res, exp)
            facts.instances.append((abs_res, exp))
            facts.in_state[abs_res] = (ctx.sync.provider_of(abs_res), ctx.sync.instance_keys(abs_res))
        if self.imports and not (ctx.refresh_only or ctx.destroy_mode):
            from .importing import expand

            self.import_targets, d = expand(ctx, rc, self.imports, dict(facts.instances), self.provider_addr)
            diags.extend(d)
        live_modules = set(ctx.instances_of(self.module))
        facts.gone = ctx.sync.resources_where(lambda ra: ra.module not in live_modules,
                                              resource=rc.addr, module=self.module)
        return facts, diags

    def _validate_expansion(self, ctx: "WalkContext") -> tuple[ExpandFacts | None, Diagnostics]:
        """validate: one representative instance per module instance, with unknown keys and inputs."""

        diags = Diagnostics()
        rc = self.rc
        facts = ExpandFacts(self, validate=True)
        for mi in ctx.instances_of(self.module):
            abs_res = intern_resource(AbsResource(mi, rc.addr))
            exp, d = evaluate_expansion(rc.count, rc.for_each, scope_for(ctx, mi), str(abs_res),
                                        allow_unknown=True)
            diags.extend(d)
            if exp is None:
                continue
            rep = Expansion(exp.mode, [None], unknown=True) if exp.mode else Expansion("", [None])
            ctx.register_resource_expansion(abs_res, Expansion(exp.mode, [], unknown=True) if exp.mode else exp)
            facts.instances.append((abs_res, rep))
        if self.imports and self.provider_addr:
            from .importing import validate_blocks

            diags.extend(validate_blocks(ctx, rc, self.imports, self.provider_addr))
        return facts, diags


class _InstanceNode(Node, Executable):
    """What the instance vertices of an expanded resource share: the resource vertex they came
    from, their address and the expansion (count/for_each) that produced them."""

    kind = "instance"
    suffix = ""

    def __init__(self, parent: ResourceNode, addr: AbsResourceInstance, exp: "Expansion"):
        self.parent = parent
        self.addr = addr
        self.exp = exp
        self.name = str(addr) + self.suffix


class ValidateInstanceNode(_InstanceNode):
    """Evaluates a resource's arguments against its schema with unknown inputs (validate)."""

    suffix = " (validate)"

    def execute(self, ctx: "WalkContext") -> Diagnostics:

        diags = Diagnostics()
        rc = self.parent.rc
        if rc.generated:  # its configuration is made from the imported object, during the plan
            return diags
        schema = ctx.schema_for(self.parent.provider_addr, rc.addr) if self.parent.provider_addr else None
        scope = scope_for(ctx, self.addr.module, key=None, expansion=self.exp)
        if schema is None:
            for a in _all_attrs(rc.body):
                _, d = evaluate(a.expr, scope)
                diags.extend(d)
            return diags
        config, d = evaluate_body(rc.body, schema.block, scope, rc.range, str(self.addr.abs_resource()))
        diags.extend(d)
        ctx.set_instance_value(self.addr, Unknown(schema.block.implied_type()))
        provider = ctx.providers.get(self.parent.provider_addr)
        if provider is not None and provider.wire_protocol and not d.has_errors:
            # a plugin validates the configuration (with its unknowns) in the validate walk
            clean = unmark_deep(config)[0]
            check = provider.validate_resource if rc.addr.mode == "managed" else provider.validate_data_source
            diags.extend(_with_addr(check(rc.addr.type, clean), str(self.addr.abs_resource()), rc.range))
        return diags


_NOT_RESOURCES = frozenset({"count", "each", "var", "local", "path", "terraform", "module", "self", "data"})


def _all_attrs(body: Body) -> list[Any]:
    out = list(body.attributes.values())
    for b in body.blocks:
        out.extend(_all_attrs(b.body))
    return out


class PlanSkippedInstance(_InstanceNode):
    """An instance outside -target: keeps its prior value visible to references."""

    suffix = " (untargeted)"

    def execute(self, ctx: "WalkContext") -> Diagnostics:
        return Diagnostics()


class _PlanFacts:
    """What every instance of one resource shares in one plan walk, looked up once per resource
    rather than once per instance: its provider, schemas and what they decide (whether a stored
    object can carry marks, which checks a no-op change needs). A 20,000-instance resource asked
    each of these 20,000 times."""

    __slots__ = ("ctx", "provider", "schema", "ischema", "identity_version", "implied", "schema_marks",
                 "sensitive_noop_check")

    def __init__(self, ctx: "WalkContext", node: "ResourceNode") -> None:
        self.ctx = ctx
        self.provider = provider = ctx.providers.get(node.provider_addr)
        self.schema = schema = provider.resource_schemas().get(node.rc.addr.type) if provider is not None else None
        self.ischema = ischema = provider.identity_schemas().get(node.rc.addr.type) if schema is not None else None
        self.identity_version = ischema.version if ischema is not None else 0
        if schema is not None:
            block = schema.block
            self.implied = block.implied_type()
            self.schema_marks = schema_marks(schema)  # may_mark's schema half
            self.sensitive_noop_check = bool(block.sensitive_attrs() or block.blocks)


class PlanInstanceNode(_InstanceNode):

    @for_resource
    def execute(self, ctx: "WalkContext") -> Diagnostics:

        diags = Diagnostics()
        parent = self.parent
        rc = parent.rc
        addr = self.addr
        addr_s = str(addr)
        f = parent.plan_facts(ctx)
        provider, schema = f.provider, f.schema
        if provider is None:
            return diags.error("Provider not configured", f"The provider {parent.provider_addr} for {addr_s} is not "
                               "available.", rc.range, address=addr_s)
        if schema is None:
            return diags.error("Invalid resource type",
                               f"The provider {parent.provider_addr} does not support resource type "
                               f"\"{rc.addr.type}\".", rc.range, address=addr_s)
        ctx.hook.pre_diff(addr_s)
        obj = ctx.sync.current(addr)
        prior = None
        tainted = False
        prior_private = obj.private if obj is not None else None
        importing = parent.import_targets.get(addr) if obj is None and parent.import_targets else None
        body, imported_private, prior_identity = rc.body, None, None
        if importing is not None:
            prior, prior_private, prior_identity, body, d = self._import(ctx, provider, schema, importing)
            imported_private = prior_private
            diags.extend(_with_addr(d, addr_s, rc.range))
            if prior is None or d.has_errors:
                return diags
        if obj is not None:
            got = self._stored_prior(ctx, f, obj, addr_s, diags)
            if got is None:
                return diags
            prior, prior_private, prior_identity = got
            tainted = obj.status == "tainted"
        scope = scope_for(ctx, addr.module, key=addr.key, expansion=self.exp)
        config, d = evaluate_body(body, schema.block, scope, rc.range, addr_s)
        diags.extend(d)
        if d.has_errors:
            return diags
        # most configurations hold no sensitive or ephemeral value: one walk to find none
        # spares the walks that would remove or record marks
        config_marked = contains_marks(config)
        clean_config = unmark_deep(config)[0] if config_marked else config
        vd = provider.validate_resource(rc.addr.type, clean_config)
        if vd:
            diags.extend(_with_addr(vd, addr_s, rc.range))
            if diags.has_errors:
                return diags
        if rc.lifecycle.preconditions:
            diags.extend(check_rules(rc.lifecycle.preconditions, scope, "Resource precondition failed", addr_s,
                                     check_reporter(ctx, addr)))
            if diags.has_errors:
                return diags
        if ctx.refresh_only:
            if prior is not None:
                ctx.set_instance_value(addr, prior)
            ctx.record_change(ResourceInstanceChange(addr, Action.NOOP, parent.provider_addr, prior, prior,
                                                     f.implied))
            return diags
        if rc.lifecycle.ignore_changes and prior is not None:
            config = apply_ignore_changes(config, prior, rc.lifecycle.ignore_changes, schema.block)
            config_marked = contains_marks(config)
            clean_config = unmark_deep(config)[0] if config_marked else config
        config_marks = sensitive_paths(config) if config_marked else []
        # a stored object is marked only by its sensitive paths and the schema (refreshed or not)
        prior_marked = prior is not None and ((bool(obj.sensitive_attributes) or f.schema_marks)
                                              if obj is not None and importing is None else contains_marks(prior))
        clean_prior = unmark_deep(prior)[0] if prior_marked else prior
        replace_reason = None
        if prior is not None and tainted:
            replace_reason = REASON_TAINTED
        elif prior is not None and parent.replace and addr in parent.replace:
            replace_reason = REASON_BY_REQUEST
        elif prior is not None and rc.lifecycle.replace_triggered_by:
            if self._triggered(ctx, scope):
                replace_reason = REASON_BY_TRIGGERS
        planned = self._plan(ctx, f, prior, clean_prior, clean_config, replace_reason,
                             prior_private if (obj or importing) and not tainted else None, prior_identity,
                             addr_s, diags)
        if planned is None:
            return diags
        action, planned, planned_private, planned_identity, replace_paths, replace_reason = planned
        if action.is_replace and rc.lifecycle.prevent_destroy:
            diags.error("Instance cannot be destroyed",
                        f"Resource {addr_s} has lifecycle.prevent_destroy set, but the plan calls for this "
                        "resource to be destroyed. To avoid this error and continue with the plan, either disable "
                        "lifecycle.prevent_destroy or reduce the scope of the plan using the -target flag.",
                        rc.range, address=addr_s)
            return diags
        # marked only when the configuration or the schema marks anything (remark is a no-op otherwise)
        after = remark(planned, config_marks, schema) if config_marks or f.schema_marks else planned
        if action is Action.NOOP and obj is not None and importing is None and \
                (config_marks or obj.sensitive_attributes or f.sensitive_noop_check) \
                and not same_state_paths(after, obj.sensitive_attributes, schema):
            action = Action.UPDATE  # only what is sensitive changes: state must record it (Terraform's rule)
        change = ResourceInstanceChange(
            addr=addr, action=action, provider=parent.provider_addr, before=prior, after=after,
            schema_type=f.implied, replace_paths=replace_paths if action.is_replace else [],
            reason=replace_reason, private=planned_private,
            create_before_destroy=parent.cbd,
            prev_run_addr=ctx.moved_from.get(addr) if ctx.moved_from else None,
            each_value=self.exp.each_values.get(addr.key) if self.exp.mode == "map" else None,
            importing=(Importing(importing.id, prior_identity if importing.identity is not None else None)
                       if importing is not None else None),
            import_private=imported_private,
            generated_config=self._generated if importing is not None and rc.generated else "",
            before_identity=prior_identity if prior is not None else None, after_identity=planned_identity,
            identity_version=f.identity_version,
        )
        ctx.record_change(change)
        ctx.set_instance_value(addr, after)
        if action is not Action.DELETE and after is not None and rc.lifecycle.postconditions:
            diags.extend(record_plan_postconditions(ctx, rc, addr, self.exp, after))
        ctx.hook.post_diff(addr_s, action.value)
        return diags

    def _stored_prior(self, ctx: "WalkContext", f: _PlanFacts, obj: ObjectState, addr_s: str,
                      diags: Diagnostics) -> tuple[Any, Any, Any] | None:
        """The stored object as this plan's prior (decoded, upgraded by a plugin, refreshed
        unless -refresh=false or tainted), its private data and identity; None after an error
        (reported in diags)."""
        provider, schema, addr, rc = f.provider, f.schema, self.addr, self.parent.rc
        prior, d = ctx.read_stored(provider, addr, obj, schema)
        prior_identity = None
        if prior is not None and not d.has_errors:
            if obj.identity_schema_version == f.identity_version:  # (stored_identity's own first test)
                prior_identity = obj.identity
            else:
                prior_identity, d2 = ctx.stored_identity(provider, addr, obj)
                d.extend(d2)
        if d:
            diags.extend(_with_addr(d, addr_s, rc.range))
        if prior is None or d.has_errors:
            return None
        prior_private = obj.private
        if not ctx.refresh or obj.status == "tainted":
            return prior, prior_private, prior_identity
        hint = _id_hint(prior)
        ctx.hook.pre_refresh(addr_s, hint)
        prior_marked = bool(obj.sensitive_attributes) or f.schema_marks  # may_mark, its schema half known
        sent = unmark_deep(prior)[0] if prior_marked else prior
        resp = provider.read_resource(rc.addr.type, sent, obj.private, **_identity_kw(prior_identity))
        if resp.diags:
            diags.extend(_with_addr(resp.diags, addr_s, rc.range))
        ctx.hook.post_refresh(addr_s, hint if resp.new_state is prior else _id_hint(resp.new_state))
        if resp.diags.has_errors:
            return None
        new_prior = remark(resp.new_state, sensitive_paths(prior), schema) if prior_marked else resp.new_state
        if new_prior is None or not value_paths_equal(new_prior, prior):
            ctx.record_drift(addr, self.parent.provider_addr, prior, new_prior, schema)
        prior = new_prior
        if provider.wire_protocol:  # the refreshed object carries the private data ReadResource returned
            prior_private = resp.private
            prior_identity = resp.new_identity
        ctx.refreshed_object(addr, self.parent.provider_addr, prior, schema, obj, private=prior_private,
                             identity=(prior_identity, f.identity_version))
        return prior, prior_private, prior_identity

    def _plan(self, ctx: "WalkContext", f: _PlanFacts, prior: Any, clean_prior: Any, clean_config: Any,
              replace_reason: str | None, private: Any, prior_identity: Any, addr_s: str,
              diags: Diagnostics) -> tuple[Action, Any, Any, Any, list, str | None] | None:
        """The provider's plan and the action it means: (action, planned object, private data,
        identity, the paths forcing a replacement, the reason); None after an error (in diags)."""
        provider, schema, rc = f.provider, f.schema, self.parent.rc
        plan_prior = None if replace_reason else clean_prior
        proposed = _proposed(provider, schema.block, plan_prior, clean_config)
        resp = provider.plan_resource(PlanRequest(rc.addr.type, plan_prior, proposed, clean_config, private,
                                                  prior_identity if plan_prior is not None else None))
        if resp.diags:
            diags.extend(_with_addr(resp.diags, addr_s, rc.range))
            if resp.diags.has_errors:
                return None
        if provider.wire_protocol:  # (_planned_valid holds a built-in provider to nothing)
            diags.extend(_planned_valid(provider, schema, plan_prior, clean_config, resp, addr_s))
            if diags.has_errors:
                return None
        planned = resp.planned
        # (only a built-in provider returns the prior object itself, and its prior came from state
        # JSON or its own import, which hold no infinity)
        if planned is not plan_prior and find_infinity(planned):
            # Terraform's plan fails here too: it cannot write the planned object to its state
            diags.append(_infinity_diag(addr_s, rc))
            return None
        replace_paths = required_replaces(clean_prior, planned, list(resp.requires_replace)) \
            if plan_prior is not None and resp.requires_replace else []
        planned_private, planned_identity = resp.private, resp.planned_identity
        cbd = self.parent.cbd
        if prior is None:
            action = Action.CREATE
        elif replace_reason:
            action = Action.CREATE_THEN_DELETE if cbd else Action.DELETE_THEN_CREATE
        elif replace_paths:
            action = Action.CREATE_THEN_DELETE if cbd else Action.DELETE_THEN_CREATE
            replace_reason = REASON_CANNOT_UPDATE
            # re-plan as a create so computed attributes become unknown (Terraform passes the
            # first plan's private data along)
            proposed = _proposed(provider, schema.block, None, clean_config)
            resp2 = provider.plan_resource(PlanRequest(rc.addr.type, None, proposed, clean_config, resp.private))
            if resp2.diags.has_errors:
                diags.extend(_with_addr(resp2.diags, addr_s, rc.range))
                return None
            diags.extend(_planned_valid(provider, schema, None, clean_config, resp2, addr_s))
            if diags.has_errors:
                return None
            planned, planned_private, planned_identity = resp2.planned, resp2.private, resp2.planned_identity
        elif value_paths_equal(planned, clean_prior):
            action = Action.NOOP
        else:
            action = Action.UPDATE
        return action, planned, planned_private, planned_identity, replace_paths, replace_reason

    _generated = ""

    def _import(self, ctx: "WalkContext", provider: Any, schema: Schema, target: Any
                ) -> tuple[Any, Any, Any, Body, Diagnostics]:
        """An import block's object as this instance's prior object (and, for a resource with
        generated configuration, that configuration as the body to plan against)."""
        from .importing import generated_body, import_object

        rc = self.parent.rc
        value, private, identity, diags = import_object(ctx, provider, schema, target, self.parent.provider_addr,
                                                        self.exp.mode)
        body = rc.body
        if value is not None and not diags.has_errors and rc.generated:
            self._generated, gen, d = generated_body(rc, schema, value, target.block)
            diags.extend(d)
            body = gen if gen is not None else body
        return value, private, identity, body, diags

    def _triggered(self, ctx: "WalkContext", scope: Scope) -> bool:
        for e in self.parent.rc.lifecycle.replace_triggered_by:
            for ref in A.references(e):
                if ref.root in ("count", "each", "var", "local", "path", "terraform", "module", "self"):
                    continue
                if not ref.steps:
                    continue
                from tfconsole.addrs import Resource

                if ref.root == "data":
                    continue
                res = Resource("managed", ref.root, ref.steps[0].name)  # type: ignore[union-attr]
                key: Any = "__all__"
                rest = ref.steps[1:]
                if rest and isinstance(rest[0], A.IndexStep):
                    key = rest[0].key
                    rest = rest[1:]
                elif isinstance(e, A.RelativeTraversal) and e.key is not None:
                    kv, d = evaluate(e.key, scope)
                    if not d.has_errors:
                        key = unmark(kv)[0]
                with ctx.lock:
                    changes = [c for (a, dk), c in ctx.changes.items()
                               if a.resource == res and a.module == self.addr.module
                               and (key == "__all__" or a.key == key)]
                for c in changes:
                    if c.action in (Action.UPDATE, Action.DELETE_THEN_CREATE, Action.CREATE_THEN_DELETE,
                                    Action.CREATE):
                        if rest and c.before is not None and c.after is not None:
                            b = _walk_steps(c.before, rest)
                            a = _walk_steps(c.after, rest)
                            if not isinstance(unmark(a)[0], Unknown) and value_paths_equal(b, a):
                                continue
                        return True
        return False


def _walk_steps(v: Any, steps: tuple) -> Any:
    """Follow attribute/index steps into a value; None where the path does not exist."""
    for st in steps:
        v, _ = unmark(v)
        if isinstance(v, Unknown):
            return v
        key = st.name if isinstance(st, A.AttrStep) else st.key
        if isinstance(v, dict):
            v = v.get(key)
        elif isinstance(v, list) and isinstance(key, int) and 0 <= key < len(v):
            v = v[key]
        else:
            return None
    return v


def _id_hint(v: dict[str, Any] | None, or_name: bool = False) -> str | None:
    """What the hooks show of an object ([id=...]): Terraform's ObjectValueID(OrName)."""

    return object_id(v, or_name)


class PlanDataInstanceNode(_InstanceNode):

    @for_resource
    def execute(self, ctx: "WalkContext") -> Diagnostics:
        diags = self._execute(ctx)
        if self.parent.rc.check_scope and diags.has_errors:
            # a data source scoped to a check block reports problems as warnings
            from dataclasses import replace

            from tfconsole.diags import Severity

            return Diagnostics([replace(d, severity=Severity.WARNING) for d in diags])
        return diags

    def _execute(self, ctx: "WalkContext") -> Diagnostics:

        diags = Diagnostics()
        rc = self.parent.rc
        addr, addr_s = self.addr, str(self.addr)
        provider = ctx.providers.get(self.parent.provider_addr)
        if provider is None:
            return diags.error("Provider not configured", f"No provider for {addr_s}.", rc.range, address=addr_s)
        schema = provider.data_source_schemas().get(rc.addr.type)
        if schema is None:
            return diags.error("Invalid data source",
                               f"The provider {self.parent.provider_addr} does not support data source "
                               f"\"{rc.addr.type}\".", rc.range, address=addr_s)
        scope = scope_for(ctx, addr.module, key=addr.key, expansion=self.exp)
        config, d = evaluate_body(rc.body, schema.block, scope, rc.range, addr_s)
        diags.extend(d)
        if d.has_errors:
            return diags
        marks = sensitive_paths(config)
        clean, _ = unmark_deep(config)
        diags.extend(_with_addr(provider.validate_data_source(rc.addr.type, clean), addr_s, rc.range if rc is not None else None))
        if diags.has_errors:
            return diags
        diags.extend(check_rules(rc.lifecycle.preconditions, scope, "Resource precondition failed", addr_s,
                                 check_reporter(ctx, addr)))
        if diags.has_errors:
            return diags
        depends_pending = self._depends_pending(ctx)
        if not is_wholly_known(clean) or depends_pending:
            planned = proposed_new(schema.block, None, clean)
            after = remark(planned, marks, schema)
            reason = "read_because_dependency_pending" if depends_pending and is_wholly_known(clean) else \
                "read_because_config_unknown"
            ctx.record_change(ResourceInstanceChange(addr, Action.READ, self.parent.provider_addr, None, after,
                                                     schema.block.implied_type(), reason=reason))
            ctx.set_instance_value(addr, after)
            return diags.extend(record_plan_postconditions(ctx, rc, addr, self.exp, after))
        ctx.hook.pre_refresh(addr_s, None)
        result, d = provider.read_data_source(rc.addr.type, clean)
        diags.extend(_with_addr(d, addr_s, rc.range))
        ctx.hook.post_refresh(addr_s, _id_hint(result))
        if d.has_errors or result is None:
            if not d.has_errors:
                diags.error("Provider produced null object", f"The data source {addr_s} returned no result.",
                            rc.range, address=addr_s)
            return diags
        value = remark(result, marks, schema)
        diags.extend(check_rules(rc.lifecycle.postconditions, scope_for(ctx, addr.module, key=addr.key,
                                 expansion=self.exp, self_value=value), "Resource postcondition failed", addr_s,
                                 check_reporter(ctx, addr)))
        ctx.set_instance_value(addr, value)
        ctx.store_data_result(addr, self.parent.provider_addr, value, schema, self.exp.mode)
        ctx.record_change(ResourceInstanceChange(addr, Action.NOOP, self.parent.provider_addr, value, value,
                                                 schema.block.implied_type(),
                                                 each_value=self.exp.each_values.get(addr.key)
                                                 if self.exp.mode == "map" else None))
        return diags

    def _depends_pending(self, ctx: "WalkContext") -> bool:
        """Does a resource this data source depends on have a change planned? Its depends_on
        counts, and so does every managed resource its arguments refer to (Terraform treats
        those references as implied depends_on)."""
        rc = self.parent.rc
        prefixes = [t.text() for t in rc.depends_on if t.root not in ("module", "var", "local")]
        for a in _all_attrs(rc.body):
            for ref in A.references(a.expr):
                if ref.root in _NOT_RESOURCES or not ref.steps or not isinstance(ref.steps[0], A.AttrStep):
                    continue
                prefixes.append(f"{ref.root}.{ref.steps[0].name}")
        if not prefixes:
            return False
        with ctx.lock:
            for (a, _), c in ctx.changes.items():
                if a.module != self.addr.module or c.action in (Action.NOOP, Action.READ):
                    continue
                name = str(a.resource)
                if any(name == p or name.startswith(p + "[") or name.startswith(p + ".") for p in prefixes):
                    return True
        return False


class PlanOrphanNode(Node, Executable, ProviderConsumer):
    """An instance in state with no configuration: planned for destroy (or forget)."""

    kind = "orphan"

    def __init__(self, addr: AbsResourceInstance, provider_addr: str, reason: str, mode: str = "managed",
                 forget: bool = False, deposed: str | None = None):
        self.addr = addr
        self.provider_addr = provider_addr
        self.reason = reason
        self.mode = mode
        self.forget = forget
        self.deposed = deposed
        self.module = addr.module.module()
        self.name = str(addr) + (f" (deposed {deposed})" if deposed else "") + " (orphan)"

    def provider_ref(self) -> tuple[ModulePath, str, str | None]:
        return (ModulePath(), "", None)

    @for_resource
    def execute(self, ctx: "WalkContext") -> Diagnostics:
        diags = Diagnostics()
        addr = self.addr
        obj = ctx.sync.deposed(addr, self.deposed) if self.deposed else ctx.sync.current(addr)
        if obj is None:
            return diags
        if self.mode == "data":
            # data sources leave state without a planned action
            ctx.forget_data(addr)
            return diags
        schema = ctx.schema_for(self.provider_addr, addr.resource)
        if schema is None:
            return diags.error("Provider not available",
                               f"{addr} is in state with provider {self.provider_addr}, which is not available.",
                               address=str(addr))

        provider = ctx.providers.get(self.provider_addr)
        if provider is not None:
            prior, d = ctx.read_stored(provider, addr, obj, schema)
            diags.extend(_with_addr(d, str(addr)))
            if prior is None:
                return diags
        else:
            prior = decode_object(obj.attributes, schema, obj.sensitive_attributes)
        # an object a removed block forgets is not read again (Terraform does not refresh it)
        if provider is not None and ctx.refresh and not self.deposed and not ctx.destroy_mode and not self.forget:
            ctx.hook.pre_refresh(str(addr), _id_hint(prior))
            resp = provider.read_resource(addr.resource.type, unmark_deep(prior)[0], obj.private,
                                          **_identity_kw(obj.identity))
            ctx.hook.post_refresh(str(addr), _id_hint(resp.new_state))
            diags.extend(_with_addr(resp.diags, str(addr)))
            if resp.new_state is None:
                ctx.refreshed_object(addr, self.provider_addr, None, schema, obj)
                return diags
            prior = remark(resp.new_state, sensitive_paths(prior), schema)
        if ctx.refresh_only:
            return diags
        action = Action.FORGET if self.forget else Action.DELETE
        ctx.record_change(ResourceInstanceChange(addr, action, self.provider_addr, prior, None,
                                                 schema.block.implied_type(), reason=self.reason if not
                                                 ctx.destroy_mode else None, deposed=self.deposed))
        ctx.hook.post_diff(str(addr), action.value)
        return diags


# ---------------------------------------------------------------------------
# apply graph vertices


class ApplyResourceNode(Node, Executable, Referenceable, Referencer, ProviderConsumer):
    """Config-level barrier in the apply graph: done when every instance change of the resource
    is applied, so whole-resource references wait for all of them."""

    kind = "resource"

    def __init__(self, rc: ResourceConfig, provider_addr: str):
        self.rc = rc
        self.module = rc.module
        self.provider_addr = provider_addr
        self.name = rc.module.prefix() + str(rc.addr)
        self.dependencies: list[str] = []

    def referenceable_keys(self) -> list[RefKey]:
        return [(self.module, str(self.rc.addr))]

    def reference_keys(self) -> list[RefKey]:
        return []

    def provider_ref(self) -> tuple[ModulePath, str, str | None]:
        ref = self.rc.provider_ref
        if ref:
            return (self.module, ref[0], ref[1])
        return (self.module, self.rc.provider_local_name, None)

    def execute(self, ctx: "WalkContext") -> Diagnostics:
        return Diagnostics()


_APPLY_VERBS = {Action.CREATE: "create", Action.UPDATE: "update", Action.READ: "read", Action.NOOP: "import"}


class ApplyInstanceNode(Node, Executable):
    """Create, update, replace-create, or deferred data read of one instance."""

    kind = "apply"

    def __init__(self, change: ResourceInstanceChange, rc: ResourceConfig | None, resource_node: ApplyResourceNode,
                 deposed_key: str | None = None):
        self.change = change
        self.rc = rc
        self.resource_node = resource_node
        self.addr = change.addr
        self.module = change.addr.module.module()
        self.deposed_key = deposed_key  # CBD: where the old object is moved before creating
        self.addr_s = str(change.addr)
        self.name = f"{self.addr_s} ({_APPLY_VERBS.get(change.action, 'create')})"

    def execute(self, ctx: "WalkContext") -> Diagnostics:
        # for_resource's job, with the address text made once
        token = CALLING_RESOURCE.set(self.addr_s)
        try:
            return self._execute(ctx)
        finally:
            CALLING_RESOURCE.reset(token)

    def _execute(self, ctx: "WalkContext") -> Diagnostics:
        diags = Diagnostics()
        ch = self.change
        rc = self.rc
        addr, addr_s = self.addr, self.addr_s
        provider = ctx.providers.get(ch.provider)
        if rc is None and not (ch.importing is not None and ch.action is Action.NOOP and provider is not None):
            # (an import that changes nothing needs no configuration: a plan that generated it)
            return diags.error("Configuration missing", f"No configuration for {addr_s}.", address=addr_s)
        if provider is None:
            return diags.error("Provider not configured", f"No provider for {addr_s}.", address=addr_s)
        with ctx.lock:
            exp = ctx.resource_expansions.get(addr.abs_resource())
        if rc is None:
            self._store_imported(ctx, provider.resource_schemas()[addr.resource.type], exp)
            ctx.set_instance_value(addr, ch.before)
            return diags
        if rc.for_each is not None and exp is not None and exp.mode == "map":
            exp = _apply_time_each(ctx, addr.abs_resource(), rc, exp)
        scope = scope_for(ctx, addr.module, key=addr.key, expansion=exp)
        if ch.action is Action.READ:
            schema = provider.data_source_schemas()[addr.resource.type]
            config, d = evaluate_body(rc.body, schema.block, scope, rc.range, addr_s)
            diags.extend(d)
            if d.has_errors:
                return diags
            marks = sensitive_paths(config)
            diags.extend(check_rules(rc.lifecycle.preconditions, scope, "Resource precondition failed", addr_s,
                                     check_reporter(ctx, addr)))
            if diags.has_errors:
                return diags
            ctx.hook.pre_apply(addr_s, "read", None)
            t0 = time.monotonic()
            result, d = provider.read_data_source(addr.resource.type, unmark_deep(config)[0])
            diags.extend(_with_addr(d, addr_s, rc.range))
            ctx.hook.post_apply(addr_s, "read", time.monotonic() - t0, None if not d.has_errors else "failed",
                                _id_hint(result) if not d.has_errors else None)
            if d.has_errors or result is None:
                return diags
            value = remark(result, marks, schema)
            # conditions that were unknown at plan time are checked now
            post_scope = scope_for(ctx, addr.module, key=addr.key, expansion=exp, self_value=value)
            diags.extend(check_rules(rc.lifecycle.postconditions, post_scope, "Resource postcondition failed",
                                     addr_s, check_reporter(ctx, addr)))
            if diags.has_errors:
                return diags
            ctx.set_instance_value(addr, value)
            ctx.store_data_result(addr, ch.provider, value, schema, exp.mode if exp else "")
            return diags
        schema = provider.resource_schemas()[addr.resource.type]
        if ch.importing is not None:  # the plan's prior state may hold it already: stored again, unchanged
            self._store_imported(ctx, schema, exp)
            if ch.action is Action.NOOP:
                ctx.set_instance_value(addr, ch.before)
                return diags
        config, d = evaluate_body(rc.body, schema.block, scope, rc.range, addr_s)
        if d:
            diags.extend(d)
            if d.has_errors:
                return diags
        if rc.lifecycle.preconditions:
            diags.extend(check_rules(rc.lifecycle.preconditions, scope, "Resource precondition failed",
                                     addr_s, check_reporter(ctx, addr)))
            if diags.has_errors:
                return diags
        # the current object matters to an update and to a create that deposes it first
        obj = ctx.sync.current(addr) if ch.action is Action.UPDATE or self.deposed_key else None
        prior, prior_identity = None, None
        if ch.action is Action.UPDATE and obj is not None:
            prior, d = ctx.read_stored(provider, addr, obj, schema)
            if not d.has_errors:
                prior_identity, d2 = ctx.stored_identity(provider, addr, obj)
                d.extend(d2)
            diags.extend(_with_addr(d, addr_s, rc.range))
            if d.has_errors:
                return diags
        if provider.wire_protocol:  # Terraform validates again before the final plan
            diags.extend(_with_addr(provider.validate_resource(addr.resource.type, unmark_deep(config)[0]),
                                    addr_s, rc.range))
            if diags.has_errors:
                return diags
        config = apply_ignore_changes(config, prior if prior is not None else ch.before, rc.lifecycle.ignore_changes,
                                      schema.block)
        marks = sensitive_paths(config)
        clean_config, _ = unmark_deep(config)
        clean_prior = unmark_deep(prior)[0] if prior is not None else None
        proposed = _proposed(provider, schema.block, clean_prior, clean_config)
        presp = provider.plan_resource(PlanRequest(addr.resource.type, clean_prior, proposed, clean_config,
                                                   obj.private if obj and prior is not None else None,
                                                   prior_identity))
        if presp.diags:
            diags.extend(_with_addr(presp.diags, addr_s, rc.range if rc is not None else None))
            if presp.diags.has_errors:
                return diags
        if find_infinity(presp.planned):
            # refused before anything is created (the plan refuses it already; a plan file made
            # elsewhere could still carry one)
            diags.append(_infinity_diag(addr_s, rc))
            return diags
        if provider.wire_protocol:  # (the checks of a plugin's answers)
            diags.extend(_planned_valid(provider, schema, clean_prior, clean_config, presp, addr_s))
            diags.extend(_final_plan_consistent(provider, schema, ch, clean_prior, presp, addr_s))
            if diags.has_errors:
                return diags
        if provider.wire_protocol and ch.action is Action.UPDATE and value_paths_equal(presp.planned, clean_prior):
            return diags  # with the values learned during apply, the update became a no-op
        if self.deposed_key and obj is not None:
            ctx.depose(addr, self.deposed_key, ch.provider)
        action = "create" if ch.action is not Action.UPDATE else "update"
        ctx.hook.pre_apply(addr_s, action, _id_hint(prior, or_name=True))
        t0 = time.monotonic()
        resp = provider.apply_resource(ApplyRequest(addr.resource.type, clean_prior, presp.planned, clean_config,
                                                    presp.private, presp.planned_identity))
        elapsed = time.monotonic() - t0
        if resp.diags:
            diags.extend(_with_addr(resp.diags, addr_s, rc.range if rc is not None else None))
        d = _applied_valid(provider, schema, ch.action, presp.planned, resp, addr_s)
        if d:
            diags.extend(d)
        if resp.new_state is None:
            ctx.hook.post_apply(addr_s, action, elapsed, "failed", None)
            return diags
        if d and not is_wholly_known(resp.new_state):  # (an unknown value is one of d's errors)
            # Terraform keeps the known values (unknowns saved as null) and reports the error
            resp.new_state = _unknown_as_null(resp.new_state)
        value = remark(resp.new_state, marks, schema)
        failed = resp.diags.has_errors or d.has_errors
        provisioning = ch.action is not Action.UPDATE and bool(rc.provisioners) and not failed
        # An object whose creation-time provisioners have not finished is recorded tainted: a
        # crash while they run leaves it to be replaced, not kept half set up (Terraform, which
        # persists state later, would lose the object instead). Success untaints it below.
        status = "tainted" if (failed and ch.action is not Action.UPDATE) or provisioning else "ready"
        identity = (resp.new_identity, _identity_version(provider, addr.resource.type))
        ctx.save_object(addr, ch.provider, value, schema, status, resp.private, self.resource_node.dependencies,
                        rc.lifecycle.create_before_destroy or ch.create_before_destroy, exp.mode if exp else "",
                        identity)
        ctx.set_instance_value(addr, value)
        if failed:
            ctx.hook.post_apply(addr_s, action, elapsed, "failed", None)
            return diags
        # creation-time provisioners
        if ch.action is not Action.UPDATE and rc.provisioners:
            pd = ctx.run_provisioners(addr, rc, value, when_destroy=False)
            if pd.has_errors:
                ctx.save_object(addr, ch.provider, value, schema, "tainted", resp.private,
                                self.resource_node.dependencies, rc.lifecycle.create_before_destroy,
                                exp.mode if exp else "", identity)
                diags.extend(pd)
                ctx.hook.post_apply(addr_s, action, elapsed, "provisioner failed", _id_hint(value))
                return diags
            diags.extend(pd)
            ctx.save_object(addr, ch.provider, value, schema, "ready", resp.private, self.resource_node.dependencies,
                            rc.lifecycle.create_before_destroy or ch.create_before_destroy, exp.mode if exp else "",
                            identity)
        if rc.lifecycle.postconditions:
            post_scope = scope_for(ctx, addr.module, key=addr.key, expansion=exp, self_value=value)
            diags.extend(check_rules(rc.lifecycle.postconditions, post_scope, "Resource postcondition failed",
                                     addr_s, check_reporter(ctx, addr)))
        ctx.hook.post_apply(addr_s, action, time.monotonic() - t0, None if not diags.has_errors else "failed",
                            _id_hint(value))
        return diags


    def _store_imported(self, ctx: "WalkContext", schema: Schema, exp: Any) -> None:
        """The object an import block adopted goes into state before any change to it (Terraform's
        "Importing... / Import complete")."""
        ch = self.change
        from .importing import identity_text

        addr_s, import_id = str(self.addr), ch.importing.id if ch.importing else ""
        by_identity = ch.importing is not None and ch.importing.identity is not None
        ident = {"identity": identity_text(ch.importing.identity)} if by_identity and ch.importing else {}
        ctx.hook.pre_apply_import(addr_s, import_id, **ident)
        ctx.save_object(self.addr, ch.provider, ch.before, schema, "ready", ch.import_private,
                        self.resource_node.dependencies if self.resource_node else [],
                        ch.create_before_destroy, exp.mode if exp else "", (ch.before_identity, ch.identity_version))
        ctx.hook.post_apply_import(addr_s, import_id, **ident)


def _apply_time_each(ctx: "WalkContext", ra: AbsResource, rc: ResourceConfig, exp: "Expansion") -> "Expansion":
    """each.value as it is at apply time: for_each values may have been unknown during the plan.
    Evaluated once per resource (all instances wait for the for_each references) and cached."""

    with ctx.lock:
        cache = ctx.__dict__.setdefault("_apply_each_cache", {})
        got = cache.get(ra)
    if got is not None:
        return got
    fresh, d = evaluate_expansion(None, rc.for_each, scope_for(ctx, ra.module), str(ra), allow_unknown=True)
    result = exp
    if fresh is not None and not d.has_errors and not fresh.unknown:
        result = Expansion("map", list(exp.keys), {k: fresh.each_values.get(k, exp.each_values.get(k))
                                                    for k in exp.keys})
    with ctx.lock:
        cache[ra] = result
    return result


class DestroyInstanceNode(Node, Executable):
    kind = "destroy"

    def __init__(self, change: ResourceInstanceChange, rc: ResourceConfig | None, deposed_key: str | None = None):
        self.change = change
        self.rc = rc
        self.addr = change.addr
        self.module = change.addr.module.module()
        self.deposed_key = deposed_key or change.deposed
        self.name = f"{change.addr} (destroy{' deposed' if self.deposed_key else ''})"

    @for_resource
    def execute(self, ctx: "WalkContext") -> Diagnostics:

        diags = Diagnostics()
        ch = self.change
        addr, addr_s = self.addr, str(self.addr)
        if ch.action is Action.FORGET:
            ctx.save_raw(addr, None, ch.provider)
            return diags
        provider = ctx.providers.get(ch.provider)
        if provider is None:
            return diags.error("Provider not configured", f"No provider for {addr_s}.", address=addr_s)
        obj = ctx.sync.deposed(addr, self.deposed_key) if self.deposed_key else ctx.sync.current(addr)
        if obj is None:
            return diags
        schema = provider.resource_schemas().get(addr.resource.type)
        if schema is None:
            return diags.error("Invalid resource type", f"The provider {ch.provider} does not support resource "
                               f"type \"{addr.resource.type}\".", address=addr_s)
        prior, d = ctx.read_stored(provider, addr, obj, schema)
        diags.extend(_with_addr(d, addr_s))
        if prior is None:
            return diags
        if provider.wire_protocol and ch.before is not None:
            prior = ch.before  # Terraform destroys the object the plan showed
        shown = addr_s + (f" (deposed object {self.deposed_key})" if self.deposed_key else "")
        ctx.hook.pre_apply(shown, "delete", _id_hint(prior, or_name=True))
        t0 = time.monotonic()
        # destroy-time provisioners run after "Destroying..." (Terraform's order), never for a tainted object
        if self.rc is not None and obj.status != "tainted" and any(p.when_destroy for p in self.rc.provisioners):
            pd = ctx.run_provisioners(addr, self.rc, prior, when_destroy=True)
            diags.extend(pd)
            if pd.has_errors:
                ctx.hook.post_apply(shown, "delete", time.monotonic() - t0, "failed", None)
                return diags
        # the destroy half of a replacement carries the private data of the plan (as Terraform's
        # apply sends the change's), a plain destroy the stored object's
        private = ch.private if provider.wire_protocol and ch.action.is_replace else obj.private
        resp = provider.apply_resource(ApplyRequest(addr.resource.type, unmark_deep(prior)[0], None, None, private))
        diags.extend(_with_addr(resp.diags, addr_s, self.rc.range if self.rc is not None else None))
        if resp.new_state is not None and not resp.diags.has_errors:
            diags.error("Provider returned invalid result object after apply",
                        f"After applying a Delete plan, the provider returned a non-null object for {addr_s}. "
                        "Destroying should always produce a null value, so this is always a bug in the provider "
                        "and should be reported in the provider's own repository. Terraform will still save this "
                        "errant object in the state for debugging and recovery.", address=addr_s)
            resp.diags = diags
        ctx.hook.post_apply(shown, "delete", time.monotonic() - t0, "failed" if resp.diags.has_errors else None,
                            _id_hint(prior))
        if resp.diags.has_errors:
            return diags
        if self.deposed_key:
            ctx.remove_deposed(addr, self.deposed_key, ch.provider)
        else:
            ctx.save_raw(addr, None, ch.provider)
            if ch.action is Action.DELETE:
                ctx.set_instance_value(addr, None)
        return diags


__all__ = [
    "ResourceNode", "PlanInstanceNode", "PlanDataInstanceNode", "PlanOrphanNode", "PlanSkippedInstance",
    "ApplyResourceNode", "ApplyInstanceNode", "DestroyInstanceNode", "evaluate_expansion", "evaluate_body",
    "encode_object", "STRING", "DYNAMIC", "ListType", "MapType", "ObjectType", "Sensitive", "mark",
    "InstanceKey", "ModuleInstance", "ObjectState",
]


def _identity_kw(identity: Any) -> dict[str, Any]:
    """read_resource's identity argument, only when there is one (a built-in provider's
    read_resource may predate the argument)."""
    return {"identity": identity} if identity is not None else {}


def _identity_version(provider: Any, type_name: str) -> int:
    ischema = provider.identity_schemas().get(type_name)
    return ischema.version if ischema is not None else 0
