"""Scopes for evaluating arbitrary expressions against a configuration (the console).

`eval_scope` is Terraform's "eval" walk: variables, locals, module expansions and outputs are
evaluated from the configuration, while resources are never planned or read: their values come
from the state as it is (count instances as a tuple, for_each instances as an object, a resource
missing from state as unknown). `plan_scope` evaluates against a fresh plan instead (the console's
`-plan`). Root variables without a value are unknown rather than an error, as in the console.

Headless; nothing here prints.
"""
from __future__ import annotations

from typing import Any

from tfconsole.addrs import AbsResource, ModuleInstance
from tfconsole.diags import Diagnostics
from tfconsole.graph.builder import build
from tfconsole.graph.nodes.resource import ResourceNode
from tfconsole.graph.nodes.values import CheckNode, ProviderNode
from tfconsole.graph.transforms import (
    BuildContext, ConfigTransformer, CycleValidationTransformer, ModuleExpansionTransformer, ReferenceTransformer,
    RootTransformer, TransitiveReductionTransformer,
)
from tfconsole.lang.eval import EvalError, Scope
from tfconsole.lang.types import DYNAMIC, ObjectType
from tfconsole.lang.values import Unknown
from tfconsole.states.state import State

from .context import Expansion, ModuleData, WalkContext
from .hooks import Hook
from .walker import Walker


def eval_steps() -> list:
    return [
        # 1. Named values, module calls and one vertex per configured resource.
        ConfigTransformer(),
        # 2. Module contents wait for their module's expansion.
        ModuleExpansionTransformer(),
        # 3. Values are computed after what they refer to (resource vertices included: they
        #    publish the resource's value from state).
        ReferenceTransformer(),
        # 4. One root, no cycles, no redundant edges.
        RootTransformer(),
        CycleValidationTransformer(),
        TransitiveReductionTransformer(),
    ]


def with_unset_unknown(ctx: Any) -> dict[str, Any]:
    """The root input values, unset variables without a default being unknown."""
    values = dict(ctx.inputs)
    for name, var in ctx.config.variables.items():
        if name not in values and var.default is None:
            values[name] = Unknown(var.type)
    return values


def eval_scope(ctx: Any, state: State) -> tuple[Scope | None, Diagnostics]:
    """The root module's scope after an eval walk over `ctx.config` (a loaded tfconsole Context)."""
    config = ctx.config
    diags = Diagnostics()
    g, d = build(eval_steps(), BuildContext(config, state), "eval")
    diags.append(d)
    if d.has_errors:
        return None, diags
    wctx = WalkContext(config=config, state=state.deep_copy(), operation="eval", hook=Hook(),
                       working_dir=ctx.opts.working_dir, workspace=ctx.workspace(),
                       input_values=with_unset_unknown(ctx))

    def execute(v: Any) -> Diagnostics:
        if isinstance(v, ResourceNode):
            _publish_resource(wctx, v)
            return Diagnostics()
        if isinstance(v, (CheckNode, ProviderNode)):
            return Diagnostics()  # the eval walk checks nothing and configures no provider
        return v.execute(wctx)

    walker = Walker(execute=execute, expand=lambda v: (None, Diagnostics()), parallelism=ctx.opts.parallelism,
                    hook=Hook())
    res = walker.walk(g, "eval")
    diags.append(res.diags)
    return finished_scope(wctx), diags


class _FinishedData(ModuleData):
    """The root module's values after a walk: a variable or local the walk never set (because
    something it depends on failed) is an error, not an unknown value."""

    def _missing(self, what: str, kind: str, addr: str, rng: Any) -> EvalError:
        return EvalError(f"Reference to uninitialized {what}",
                         f"The {kind} {addr} was not processed by the most recent operation, this likely means the "
                         "previous operation either failed or was incomplete due to targeting.", rng)

    def get_variable(self, name: str, rng: Any) -> Any:
        if self.mod is not None and name in self.mod.variables and (self.mi, name) not in self.ctx.variables:
            raise self._missing("variable", "variable", f"var.{name}", rng)
        return super().get_variable(name, rng)

    def get_local(self, name: str, rng: Any) -> Any:
        if self.mod is not None and name in self.mod.locals and (self.mi, name) not in self.ctx.locals:
            raise self._missing("local value", "local value", f"local.{name}", rng)
        return super().get_local(name, rng)


def finished_scope(wctx: WalkContext) -> Scope:
    return Scope(_FinishedData(wctx, ModuleInstance()), base_dir=wctx.working_dir)


def _publish_resource(wctx: WalkContext, node: ResourceNode) -> None:
    """A configured resource's value from state, shaped by its configuration's repetition."""
    rc = node.rc
    for mi in wctx.instances_of(node.module):
        addr = AbsResource(mi, rc.addr)
        keys: list[Any] = wctx.sync.instance_keys(addr)
        if not keys and (rc.count is not None or rc.for_each is not None):
            continue  # nothing in state: the whole value is unknown
        if rc.count is not None:
            ints = [k for k in keys if isinstance(k, int) and not isinstance(k, bool)]
            wctx.register_resource_expansion(addr, Expansion("list", list(range(max(ints) + 1)) if ints else []))
        elif rc.for_each is not None:
            strs: list[Any] = sorted(k for k in keys if isinstance(k, str))
            wctx.register_resource_expansion(addr, Expansion("map", strs))
        else:
            wctx.register_resource_expansion(addr, Expansion("", [None]))
            if not keys:
                wctx.set_instance_value(addr.instance(None), _unknown_object(wctx, node, rc))
            elif None not in keys:
                wctx.set_instance_value(addr.instance(None), Unknown(DYNAMIC))


def _unknown_object(wctx: WalkContext, node: ResourceNode, rc: Any) -> Any:
    """An object whose every attribute is unknown (a single resource not yet in state)."""
    from tfconsole.graph.transforms import ProviderTransformer

    mod = wctx.config.module_at(node.module)
    local = rc.provider_ref[0] if rc.provider_ref else rc.provider_local_name
    source = ProviderTransformer.source_for(mod, local) if mod is not None else local
    schema = wctx.schema_for(source, rc.addr)
    if schema is None:
        return Unknown(DYNAMIC)
    ty = schema.block.implied_type()
    if isinstance(ty, ObjectType):
        return {name: Unknown(t) for name, t in ty.attrs}
    return Unknown(DYNAMIC)


def plan_scope(ctx: Any, state: State) -> tuple[Scope | None, Diagnostics]:
    """The root module's scope after a plan (refresh included), as `console -plan` evaluates."""
    captured: list[WalkContext] = []
    original = ctx._walk

    def walk(g: Any, wctx: WalkContext, operation: str) -> Any:
        captured.append(wctx)
        return original(g, wctx, operation)

    ctx._walk = walk
    saved = ctx.inputs
    ctx.inputs = with_unset_unknown(ctx)
    try:
        _, diags = ctx.plan(state)
    finally:
        ctx._walk = original
        ctx.inputs = saved
    if not captured:
        return None, diags
    return finished_scope(captured[-1]), diags
