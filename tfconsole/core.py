"""Context: the operations (validate, plan, apply, refresh, graph) = graph builder + walker + hooks.

Headless: used by the CLI and the TUI alike; never imports textual and never prints.
"""
from __future__ import annotations

import copy
import threading
import time
import weakref
from typing import Any, Callable

from tfconsole.addrs import AbsResource, AbsResourceInstance, AddressError, ModuleInstance, parse_target
from tfconsole.config.inputs import collect_inputs
from tfconsole.config.loader import load_config
from tfconsole.config.model import Module
from tfconsole.diags import Diagnostics
from tfconsole.graph.builder import (
    apply_destroy_steps, apply_steps, build, dynamic_expand, plan_destroy_steps, plan_steps, validate_steps,
)
from tfconsole.graph.dag import Graph
from tfconsole.graph.transforms import BuildContext, parse_targets
from tfconsole.lang.values import equal, is_null, to_json_typed, type_of, unmark_deep
from tfconsole.plans import Action, OutputChange, Plan, block_structure, non_legacy
from tfconsole.plans.checks import merged, to_state
from tfconsole.plans.staleness import state_meta
from tfconsole.providers.registry import BUILTIN_ONLY
from tfconsole.states.state import OutputState, State
from tfconsole.options import Options
from tfconsole.walk.context import WalkContext, provider_source_of
from tfconsole.walk.hooks import Hook, Hooks
from tfconsole.walk.walker import Walker, WalkResult


class Context:
    def __init__(self, options: Options, hooks: list[Hook] | None = None) -> None:
        self.opts = options
        self.hook = Hooks(hooks or [])
        self.config: Module | None = None
        self.inputs: dict[str, Any] = {}
        self._walker: Walker | None = None
        self._walk_ctx: WalkContext | None = None
        self._root_module: Module | None = None
        self._cancelled = False
        self.last_walk: WalkResult | None = None
        self.last_graph: Graph | None = None
        # the providers of this command: one plugin process per provider configuration, kept
        # from plan to apply and shut down by close() (or when the context is collected)
        from tfconsole.providers.registry import ProviderSession

        self.providers = ProviderSession(options.working_dir, hook=self.hook)
        self._provider_crash: Any = None
        me = weakref.ref(self)  # the session must not keep its context alive

        def crashed(provider: Any) -> None:
            ctx = me()
            if ctx is not None:
                ctx._provider_crashed(provider)

        self.providers.on_crash = crashed
        weakref.finalize(self, _close_in_background, self.providers)

    def close(self) -> None:
        """Shut down the provider processes this context started."""
        self.providers.close()

    def _provider_crashed(self, provider: Any) -> None:
        """A plugin died mid-walk: nothing else can be planned or applied through it, so stop
        scheduling; in-flight work finishes and every completed change stays in state."""
        self._provider_crash = provider
        if self._walker is not None:
            self._walker.cancel()

    # ---------------------------------------------------------------- loading
    def load_config(self, config_dir: str | None = None) -> Diagnostics:
        cfg, diags = load_config(config_dir or self.opts.working_dir)
        if config_dir is None or config_dir == self.opts.working_dir:
            self._root_module = cfg
        if diags.has_errors:
            return diags
        self.config = cfg
        assert cfg is not None
        vals, d = collect_inputs(cfg, self.opts.working_dir, self.opts.cli_vars)
        diags.append(d)
        self.inputs = vals
        return diags

    def backend_root(self) -> Module | None:
        """The root module, for its backend block: loaded if this command has not (state
        commands), and used even when other parts of the configuration have errors."""
        if self.config is not None:
            return self.config
        if self._root_module is None:
            self._root_module, _ = load_config(self.opts.working_dir)
        return self._root_module

    def workspace(self) -> str:
        """terraform.workspace: the workspace whose state the caller loaded (the operations layer
        sets it from the backend before walking; the Context never opens a backend)."""
        return self.opts.workspace or "default"

    def cancel(self) -> None:
        """Stop scheduling new work; in-flight vertices finish and state is saved. In-process
        providers that can abort in-flight requests (a `stop()` method) are told to at once;
        every running plugin gets StopProvider, from a thread (a plugin may be slow to answer)."""
        self._cancelled = True
        if self._walker is not None:
            self._walker.cancel()
        wctx = self._walk_ctx
        for p in list(wctx.providers.values()) if wctx is not None else []:
            stop = getattr(p, "stop", None)
            if callable(stop) and not getattr(p, "wire_protocol", False):
                stop()
        threading.Thread(target=self.providers.stop_all, name="stop-providers", daemon=True).start()

    # ---------------------------------------------------------------- graph
    def _build(self, steps: list, b: BuildContext, name: str) -> tuple[Graph, Diagnostics]:
        g, d = build(steps, b, name)
        self.last_graph = g
        return g, d

    def graph(self, kind: str, state: State, plan: Plan | None = None) -> tuple[Graph, Diagnostics]:
        assert self.config is not None
        if kind == "apply" and plan is not None:
            b = BuildContext(self.config, plan.prior_state or state, plan=plan)
            return self._build(apply_steps(), b, "apply")
        if kind == "validate":
            return self._build(validate_steps(), BuildContext(self.config, state), "validate")
        b = BuildContext(self.config, state, destroy=(kind == "plan-destroy"))
        return self._build(plan_steps(), b, kind)

    def _walk(self, g: Graph, ctx: WalkContext, operation: str) -> WalkResult:
        from tfconsole.graph.nodes.base import DynamicExpandable

        def expand(v: Any) -> Any:  # (most vertices never expand: no call into the builder for them)
            return dynamic_expand(v, ctx) if isinstance(v, DynamicExpandable) else None

        walker = Walker(execute=lambda v: v.execute(ctx), expand=expand,
                        parallelism=self.opts.parallelism, hook=self.hook,
                        cpu_only=computes_only_memo(ctx))
        self._walker = walker
        self._walk_ctx = ctx
        if self._cancelled:
            walker.cancel()
        res = walker.walk(g, operation)
        # ephemeral resources a failed or cancelled walk never reached the close of
        from tfconsole.graph.nodes.ephemeral import close_all

        res.diags.extend(close_all(ctx))
        self.last_walk = res
        return res

    # ---------------------------------------------------------------- validate
    def validate(self) -> Diagnostics:
        """Static checks (references, resource arguments against provider schemas) plus the graph
        (cycles, self references, provider resolution); evaluates nothing."""
        assert self.config is not None
        from tfconsole.config.validate import validate_module_tree
        from tfconsole.graph.transforms import ProviderTransformer

        def schema_for(mod: Module, rc: Any) -> Any:
            local = rc.provider_ref[0] if rc.provider_ref else rc.provider_local_name
            source = ProviderTransformer.source_for(mod, local)
            schemas = self.providers.schemas(source)
            if schemas is None:
                return None
            return (schemas[0] if rc.addr.mode == "managed" else schemas[1]).get(rc.addr.type)

        diags = validate_module_tree(self.config, schema_for)
        g, d = self.graph("validate", State())
        diags.append(d)
        if diags.has_errors:
            return diags
        # evaluate everything once with unknown inputs, as Terraform's validate walk does
        res = self._validate_walk(g, quiet=False)
        seen = {(x.summary, x.detail, str(x.subject)) for x in diags}
        for x in res.diags:
            key = (x.summary, x.detail, str(x.subject))
            if key not in seen:
                seen.add(key)
                diags.append(x)
        return diags

    def _validate_walk(self, g: Graph, quiet: bool) -> WalkResult:
        """The validate walk; provider plugins validate each configuration in it (Validate*Config)."""
        assert self.config is not None
        ctx = WalkContext(session=self.providers, config=self.config, state=State(), operation="validate",
                          hook=Hook(), working_dir=self.opts.working_dir, workspace=self.workspace())
        if not quiet:
            return self._walk(g, ctx, "validate")
        from tfconsole.graph.nodes.base import DynamicExpandable

        def expand(v: Any) -> Any:  # (most vertices never expand: no call into the builder for them)
            return dynamic_expand(v, ctx) if isinstance(v, DynamicExpandable) else None

        walker = Walker(execute=lambda v: v.execute(ctx), expand=expand,
                        parallelism=self.opts.parallelism, hook=Hook(),
                        cpu_only=lambda v: computes_only(v, ctx))
        return walker.walk(g, "validate")

    def _uses_plugins(self) -> bool:
        """Does any resource of the configuration belong to a provider plugin?"""
        from tfconsole.graph.transforms import ProviderTransformer

        assert self.config is not None
        for mod in self.config.descendants():
            locals_ = {rc.provider_ref[0] if rc.provider_ref else rc.provider_local_name
                       for rc in mod.resources.values()}
            if any(self.providers.is_plugin(ProviderTransformer.source_for(mod, local)) for local in locals_):
                return True
        return False

    def _validate_for_plugins(self) -> Diagnostics:
        """Terraform validates the configuration, with its providers, before every plan. tfconsole
        does the same when a provider plugin is involved (the built-ins validate in the plan)."""
        if not self._uses_plugins():
            return Diagnostics()
        return self._validation_errors()

    def _validation_errors(self) -> Diagnostics:
        """The errors of Terraform's validate walk (unknown inputs, nothing read or planned)."""
        g, d = self.graph("validate", State())
        if d.has_errors:
            return d
        res = self._validate_walk(g, quiet=True)
        return Diagnostics(res.diags.errors())

    # ---------------------------------------------------------------- plan
    def plan(self, state: State, *, destroy: bool = False, refresh_only: bool = False, refresh: bool = True,
             targets: list[str] | None = None, replace: list[str] | None = None,
             excludes: list[str] | None = None, _validated: bool = False,
             generate_config_out: str = "", _imports_ready: bool = False) -> tuple[Plan, Diagnostics]:
        assert self.config is not None
        if self.config.imports and not destroy and not refresh_only and not _imports_ready:
            from tfconsole.graph.nodes.importing import with_import_targets

            return with_import_targets(self.config, generate_config_out, lambda: self.plan(
                state, refresh=refresh, targets=targets, replace=replace, excludes=excludes, _validated=_validated,
                _imports_ready=True), validate=self._validation_errors)
        diags = Diagnostics()
        # the state as the previous run left it: the State handed in, which a plan never changes
        # (moves, refresh and the walk change the copies below) and its callers do not change
        # while the plan lives, so not a third copy (a 20,000-object copy is ~20 ms)
        prev_run = state
        prior = state.deep_copy()
        moved_from = self._apply_moves(prior, diags)
        tgt = parse_targets(list(targets or []), diags)
        rep_addrs: set[AbsResourceInstance] = set()
        for r in replace or []:
            try:
                t = parse_target(r)
            except AddressError as exc:
                diags.error("Invalid replace address", f"-replace={r}: {exc}")
                continue
            if isinstance(t, AbsResource):
                t = t.instance(None)
            if not isinstance(t, AbsResourceInstance):
                diags.error("Invalid replace address", f"-replace={r}: a resource instance address is required.")
                continue
            rep_addrs.add(t)
        exc = parse_targets(list(excludes or []), diags, "-exclude")
        if not diags.has_errors and not _validated:
            vd = self._validate_for_plugins()
            if vd.has_errors:  # Terraform reports validation's errors alone, without "Planning failed"
                return Plan(errored=True, validation_failed=True), diags.append(vd)
        if diags.has_errors:
            return Plan(errored=True), diags
        if destroy and refresh and not prior.is_empty():
            # Terraform refreshes before planning a destroy: a normal plan, whose changes are
            # dropped and whose refreshed state is the destroy plan's prior state
            pre, d = self.plan(state, refresh=True, targets=targets, excludes=excludes, _validated=True)
            diags.append(Diagnostics(d.errors()))
            if d.has_errors or pre.prior_state is None:
                return Plan(errored=True), diags
            prior = pre.prior_state.deep_copy()
        plan = Plan(destroy=destroy, refresh_only=refresh_only, targets=list(targets or []),
                    replace=list(replace or []), excludes=list(excludes or []))
        plan.timestamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())  # datetime's import: 1 ms
        plan.config_files = self._config_snapshot()
        plan.config_root = self._snapshot_root(plan.config_files)
        plan.prior_state_meta = state_meta(state)
        plan.variables, plan.apply_time_variables = self._plan_variables()
        plan.prev_run_state = prev_run
        working = prior.deep_copy()
        ctx = WalkContext(session=self.providers, config=self.config, state=working, operation="plan", hook=self.hook,
                          working_dir=self.opts.working_dir, workspace=self.workspace(), input_values=self.inputs)
        ctx.refresh = refresh
        ctx.refresh_only = refresh_only
        ctx.destroy_mode = destroy
        ctx.moved_from = moved_from
        ctx.refreshed = prior
        if destroy:
            # a destroy plan first refreshes and evaluates like a normal plan (quietly), then plans
            # every instance in state for deletion
            return self._plan_destroy(prior, plan, ctx, tgt, diags)
        b = BuildContext(self.config, working, targets=tgt, replace=rep_addrs, excludes=exc)
        g, d = self._build(plan_steps(), b, "plan")
        diags.append(d)
        if diags.has_errors:
            plan.errored = True
            return plan, diags
        res = self._walk(g, ctx, "plan")
        if res.diags.has_errors and not res.cancelled and not _validated and not self._uses_plugins():
            # Terraform validates before planning: when validation fails, its errors are all it
            # reports. Without plugins tfconsole skips that walk, so it runs it only now, when the
            # plan failed, to report what Terraform would
            vd = self._validation_errors()
            if vd.has_errors:
                return Plan(errored=True, validation_failed=True), vd
        diags.append(res.diags)
        if res.cancelled and self._provider_crash is None:
            diags.error("Operation cancelled", "The plan was interrupted before it finished.")
        for r in rep_addrs:
            if working.current(r) is None and not any(c.addr == r for c in ctx.changes.values()):
                diags.warning("Replace target not found",
                              f"The -replace={r} option names an instance that does not exist in state.")
        if tgt or exc:
            diags.warning("Resource targeting is in effect",
                          "You are creating a plan with the -target option, which means that the result of this "
                          "plan may not represent all of the changes requested by the current configuration.\n\n"
                          "The -target option is not for routine use, and is provided only for exceptional "
                          "situations such as recovering from errors or mistakes, or when Terraform specifically "
                          "suggests to use it as part of an error message.")
        self._finish_plan(plan, ctx, prior)
        plan.errored = diags.has_errors
        return plan, diags

    def _plan_destroy(self, prior: State, plan: Plan, ctx: WalkContext, tgt: list, diags: Diagnostics) -> tuple[Plan, Diagnostics]:
        assert self.config is not None
        b = BuildContext(self.config, prior, targets=tgt, destroy=True)
        g, d = self._build(plan_destroy_steps(), b, "plan-destroy")
        diags.append(d)
        if diags.has_errors:
            plan.errored = True
            return plan, diags
        ctx.refresh = False
        res = self._walk(g, ctx, "plan-destroy")
        diags.append(res.diags)
        self._finish_plan(plan, ctx, prior)
        # outputs are all removed by a whole destroy (a targeted one leaves them alone)
        plan.output_changes = []
        for name, out in ([] if tgt else prior.outputs.items()):
            plan.output_changes.append(OutputChange(name, Action.DELETE, _output_value(out), None, out.sensitive))
        plan.errored = diags.has_errors
        return plan, diags

    def _finish_plan(self, plan: Plan, ctx: WalkContext, prior: State) -> None:
        plan.changes = sorted(ctx.changes.values(), key=_change_sort_keys())
        # per schema, what the plan renderer needs of it: the write-only attributes, whether it is
        # legacy-shaped, its nested blocks (computed once: a plan may hold 20,000 changes, and
        # looked up once per provider and resource)
        render_facts: dict[int, tuple[list[str], bool, dict]] = {}
        by_resource: dict[tuple[str, Any], tuple[list[str], bool, dict] | None] = {}
        for ch in plan.changes:
            facts = by_resource.get((ch.provider, ch.addr.resource), render_facts)
            if facts is render_facts:
                facts = by_resource[(ch.provider, ch.addr.resource)] = _render_facts(
                    ctx.schema_for(ch.provider, ch.addr.resource), render_facts)
            if facts is None:
                ch.write_only = []
                continue
            wo, ch.legacy, ch.blocks = facts
            ch.write_only = list(wo) if ch.mode == "managed" else []
        plan.expansions = {ra: (e.mode, list(e.keys)) for ra, e in ctx.resource_expansions.items() if not e.unknown}
        plan.drift = list(ctx.drift)
        plan.prior_state = prior
        plan.checks = ctx.checks.to_json()
        if plan.destroy:
            return
        # root output changes
        if plan.targets and not ctx.root_outputs:
            return
        for name, (value, sensitive) in sorted(ctx.root_outputs.items()):
            old = prior.outputs.get(name)
            before = _output_value(old) if old else None
            if old is None and is_null(unmark_deep(value)[0]):
                action = Action.NOOP  # null before and after: Terraform plans no change (and lists none)
            elif old is None:
                action = Action.CREATE
            elif _same_output(before, value):
                action = Action.NOOP
            else:
                action = Action.UPDATE
            plan.output_changes.append(OutputChange(name, action, before, value, sensitive))
        if not plan.targets and not plan.excludes:
            # a declared output that has no value failed (its precondition or its expression): the
            # plan has errors and says nothing about it, as Terraform's does
            declared = self.config.outputs if self.config is not None else {}
            for name, old in prior.outputs.items():
                if name not in ctx.root_outputs and name not in declared:
                    plan.output_changes.append(OutputChange(name, Action.DELETE, _output_value(old), None,
                                                            old.sensitive))

    def _apply_moves(self, state: State, diags: Diagnostics) -> dict[AbsResourceInstance, AbsResourceInstance]:
        """moved blocks: rename objects in the prior state; returns new address -> previous address."""
        moved: dict[AbsResourceInstance, AbsResourceInstance] = {}
        if self.config is None:
            return moved
        for mod, mi, mv in self._moves(state):
            if True:
                try:
                    src = _in_module(mi, parse_target(mv.from_addr))
                    dst = _in_module(mi, parse_target(mv.to_addr))
                except AddressError as exc:
                    diags.error("Invalid \"moved\" address", str(exc), mv.range)
                    continue
                if isinstance(src, AbsResource) and isinstance(dst, AbsResource):
                    rs = state.resources.get(src)
                    if rs is None or dst in state.resources:
                        continue
                    del state.resources[src]
                    rs.addr = dst
                    state.resources[dst] = rs
                    for key in rs.instances:
                        moved[dst.instance(key)] = src.instance(key)
                elif isinstance(src, (AbsResource, AbsResourceInstance)) and \
                        isinstance(dst, (AbsResource, AbsResourceInstance)):
                    # into or out of count/for_each: a resource without a key is its no-key instance
                    if isinstance(src, AbsResource):
                        src = src.instance(None)
                    if isinstance(dst, AbsResource):
                        dst = dst.instance(None)
                    obj = state.current(src)
                    if obj is None or state.current(dst) is not None:
                        continue
                    prov = state.resources[src.abs_resource()].provider
                    state.set_current(src, None, prov)
                    state.set_current(dst, obj, prov)
                    moved[dst] = src
                elif isinstance(src, ModuleInstance) and isinstance(dst, ModuleInstance):
                    for ra in list(state.resources):
                        if ra.module.steps[: len(src.steps)] == src.steps:
                            rs = state.resources.pop(ra)
                            new_mod = ModuleInstance(dst.steps + ra.module.steps[len(src.steps):])
                            rs.addr = AbsResource(new_mod, ra.resource)
                            state.resources[rs.addr] = rs
                            for key in rs.instances:
                                moved[rs.addr.instance(key)] = ra.instance(key)
                else:
                    diags.error("Invalid \"moved\" addresses",
                                "The \"from\" and \"to\" addresses must be of the same kind.", mv.range)
        return moved

    def _moves(self, state: State) -> Any:
        """Each moved block with every module instance (in state) of the module declaring it. A
        generator: the instances of a module are looked up after its parents' moves are applied."""
        assert self.config is not None
        for mod in self.config.descendants():
            if not mod.moved:
                continue
            instances = {ra.module for ra in state.resources if ra.module.module() == mod.path}
            if mod.path.is_root:
                instances = {ModuleInstance()}
            for mi in sorted(instances, key=str):
                for mv in mod.moved:
                    yield (mod, mi, mv)

    def _config_snapshot(self) -> dict[str, str]:
        out: dict[str, str] = {}
        if self.config is None:
            return out
        for mod in self.config.descendants():
            out.update(mod.files)
        return out

    def _snapshot_root(self, files: dict[str, str]) -> str:
        import os
        import posixpath

        if not any(posixpath.normpath(p.replace(os.sep, "/")).startswith("..") for p in files):
            return ""  # every module inside the root (snapshot_root's answer), without loading the plan file code
        from tfconsole.plans.planfile import PlanFileError, snapshot_root

        try:
            return snapshot_root(list(files), self.config.dir if self.config is not None else ".")
        except PlanFileError:
            return ""  # such a plan cannot be saved; write_plan says why

    def _plan_variables(self) -> tuple[dict[str, Any], list[str]]:
        """The values a plan keeps, and the names of the ephemeral variables set (never kept)."""
        assert self.config is not None
        eph = {n for n, v in self.config.variables.items() if v.ephemeral}
        return ({k: v for k, v in self.inputs.items() if k not in eph},
                sorted(k for k in self.inputs if k in eph))

    def _apply_variables(self, plan: Plan) -> tuple[dict[str, Any], Diagnostics]:
        """The plan's values plus the ephemeral ones given now: exactly those set at plan time
        must be set again (Terraform's rule for a saved plan)."""
        assert self.config is not None
        diags = Diagnostics()
        values = dict(plan.variables)
        for name, var in sorted(self.config.variables.items()):
            if not var.ephemeral:
                continue
            if name in plan.apply_time_variables and name not in self.inputs:
                diags.error("No value for required variable",
                            f"The ephemeral input variable \"{name}\" was set during the plan phase, and so must "
                            "also be set during the apply phase.")
            elif name in self.inputs and name not in plan.apply_time_variables:
                diags.error("Ephemeral variable was not set during planning",
                            f"The ephemeral input variable \"{name}\" was not set during the planning phase, and "
                            "so must remain unset during the apply phase.")
            elif name in self.inputs:
                values[name] = self.inputs[name]
        return values, diags

    # ---------------------------------------------------------------- apply
    def apply(self, plan: Plan, manager: Any) -> tuple[State, Diagnostics]:
        """Apply exactly `plan`. `manager` is the locked StateManager; each completed change is
        journaled as it happens and folded into the state file at the end (or on cancel)."""
        assert self.config is not None
        diags = Diagnostics()
        base = (plan.prior_state or State()).deep_copy()
        if plan.refresh_only:
            self._write_outputs(base, plan, None)
            diags.append(manager.persist(base))
            return base, diags
        inputs, d = self._apply_variables(plan)
        if d.has_errors:
            return base, d
        journal = manager.open_journal()
        ctx = WalkContext(session=self.providers, config=self.config, state=base, operation="apply", hook=self.hook,
                          working_dir=self.opts.working_dir, workspace=self.workspace(),
                          input_values=inputs, journal=journal)
        ctx.destroy_mode = plan.destroy
        # expansions as planned: instance addresses are fixed by the plan
        for ra, e in _planned_expansions(plan).items():
            ctx.register_resource_expansion(ra, e)
        if plan.destroy:
            g, d = self._destroy_graph(plan, base)
        else:
            b = BuildContext(self.config, base, plan=plan)
            g, d = self._build(apply_steps(), b, "apply")
        diags.append(d)
        if diags.has_errors:
            journal.close()
            return base, diags
        # for_each each.value: recompute from the configuration as the instances are applied
        res = self._walk(g, ctx, "apply")
        diags.append(res.diags)
        if res.cancelled and self._provider_crash is None:
            diags.error("Operation cancelled", "The apply was interrupted; state was saved with every change that "
                        "completed.")
        self._write_outputs(base, plan, ctx)
        for name in list(base.outputs):
            journal.record_output(name, base.outputs[name])
        # the check results the state keeps: the plan's, with what the apply evaluated again
        ctx.sync.set_check_results(None if plan.destroy else to_state(merged(plan.checks, ctx.checks.to_json())))
        diags.append(journal.fold(base))
        return base, diags

    def _destroy_graph(self, plan: Plan, state: State) -> tuple[Graph, Diagnostics]:
        assert self.config is not None
        b = BuildContext(self.config, state, plan=plan, destroy=True)
        return self._build(apply_destroy_steps(), b, "apply-destroy")

    def _write_outputs(self, state: State, plan: Plan, ctx: WalkContext | None) -> None:
        if plan.destroy:
            if not plan.targets:
                state.outputs.clear()
            return
        if ctx is None:
            return
        if plan.targets and not ctx.root_outputs:
            return
        # a targeted (or excluding) plan changes only the outputs it planned: those whose every
        # resource dependency is in the plan (Terraform's rule); the others keep their old values
        planned = {o.name for o in plan.output_changes} if plan.targets or plan.excludes else None
        keep = set()
        for name, (value, sensitive) in ctx.root_outputs.items():
            if planned is not None and name not in planned:
                continue
            clean, marked = unmark_deep(value)
            from tfconsole.lang.values import is_null, is_wholly_known

            if is_null(clean) or not is_wholly_known(clean):
                state.outputs.pop(name, None)
                continue
            ty = type_of(clean)
            state.outputs[name] = OutputState(to_json_typed(clean, ty), ty.to_json(), sensitive or marked)
            keep.add(name)
        if not plan.targets and not plan.excludes:
            for name in list(state.outputs):
                if name not in keep:
                    del state.outputs[name]


def _planned_expansions(plan: Plan) -> dict[AbsResource, Any]:
    """Each resource's instance keys (and for_each values) as the plan's changes fix them, plus
    the resources the plan expanded to no instances (references see an empty collection)."""
    from tfconsole.walk.context import Expansion

    # grouped by the address's module and resource objects, which the changes of one resource
    # share (their hashes are cached): an AbsResource made and hashed per change, and a set of
    # (resource, key) pairs, cost 40-90 ms on a 20,000-instance apply
    groups: dict[tuple[Any, Any], tuple[AbsResource, Any, set]] = {}
    for ch in plan.changes:
        if ch.deposed or ch.action is Action.DELETE or ch.action is Action.FORGET:
            continue
        a = ch.addr
        key = a.key
        group = groups.get((a.module, a.resource))
        if group is None:
            mode = "" if key is None else ("list" if isinstance(key, int) else "map")
            group = groups[(a.module, a.resource)] = (a.abs_resource(), Expansion(mode, []), set())
        _, e, seen = group
        if key not in seen:
            seen.add(key)
            e.keys.append(key)
            if isinstance(key, str):
                e.each_values[key] = ch.each_value
    exps = {ra: e for ra, e, _ in groups.values()}
    for ra, (mode, keys) in getattr(plan, "expansions", {}).items():
        if ra not in exps and not keys:
            exps[ra] = Expansion(mode, [])  # zero instances: references see an empty collection
    return exps


def _close_in_background(session: Any) -> None:
    """Shut a collected context's providers down without blocking whoever collected it. With
    no plugin process running, closing waits for nothing: done here, without a thread (whose
    start every command's exit waited for)."""
    if not session.has_plugins():
        session.close()  # its lock is re-entrant: safe where the collecting thread holds it
        return
    threading.Thread(target=session.close, name="close-providers", daemon=True).start()


def _in_module(mi: ModuleInstance, t: Any) -> Any:
    """An address written inside a module, made absolute for one instance of that module."""
    if isinstance(t, ModuleInstance):
        return ModuleInstance(mi.steps + t.steps)
    if isinstance(t, AbsResourceInstance):
        return AbsResourceInstance(ModuleInstance(mi.steps + t.module.steps), t.resource, t.key)
    return AbsResource(ModuleInstance(mi.steps + t.module.steps), t.resource)


# built-in providers whose calls wait (a sleep, the network, a subprocess): their vertices run
# beside the others, as a plugin's do
_WAITING_BUILTINS = frozenset(("time", "http", "external"))


def computes_only(v: Any, ctx: WalkContext) -> bool:
    """Whether a vertex only computes, so the walker runs it in turn with the other such
    vertices: values, outputs, module expansions, and the resource vertices of in-process
    providers that do not wait (no plugin call, no provisioner, no sleep, network or
    subprocess). Anything not known to be so keeps a thread of its own."""
    if isinstance(v, _value_kinds()):
        return True
    if getattr(v, "kind", None) == "provider":
        # configuring terraform.io/builtin/terraform (never a plugin) only evaluates its block
        return getattr(v, "source", None) in BUILTIN_ONLY
    provider_addr = getattr(v, "provider_addr", None) or getattr(getattr(v, "parent", None), "provider_addr", None) \
        or getattr(getattr(v, "change", None), "provider", None)
    rc = getattr(v, "rc", None) or getattr(getattr(v, "parent", None), "rc", None)
    addr = getattr(v, "addr", None)
    # a resource vertex (rc, no addr) only evaluates count / for_each and expands
    rtype = addr.resource.type if addr is not None else rc.addr.type if rc is not None else None
    if not provider_addr or rtype is None:
        return False
    if rc is not None and rc.provisioners:
        return False
    if rtype == "terraform_remote_state":  # reads a backend: maybe over the network
        return False
    provider = ctx.providers.get(provider_addr)
    if provider is None or getattr(provider, "wire_protocol", True):
        return False
    return provider_source_of(provider_addr).rsplit("/", 1)[-1] not in _WAITING_BUILTINS


def computes_only_memo(ctx: WalkContext) -> Callable[[Any], bool]:
    """computes_only for one walk, remembered per resource configuration and provider once its
    provider is there (the answer cannot change after that; asked for every instance vertex)."""
    known: dict[tuple, bool] = {}

    def cpu_only(v: Any) -> bool:
        rc = getattr(v, "rc", None)
        provider_addr = (getattr(v, "provider_addr", None)
                         or getattr(getattr(v, "change", None), "provider", None))
        if rc is None or not provider_addr or not hasattr(v, "addr"):
            return computes_only(v, ctx)
        key = (type(v), id(rc), provider_addr, v.addr.resource.type)
        got = known.get(key)
        if got is None:
            got = computes_only(v, ctx)
            if ctx.providers.get(provider_addr) is not None:
                known[key] = got
        return got

    return cpu_only


_VALUE_KINDS: tuple = ()


def _value_kinds() -> tuple:
    """The vertex classes of values (imported once: computes_only runs for every vertex)."""
    global _VALUE_KINDS
    if not _VALUE_KINDS:
        from tfconsole.graph.nodes.values import LocalNode, ModuleExpandNode, OutputNode, RootNode, VariableNode

        _VALUE_KINDS = (LocalNode, VariableNode, OutputNode, ModuleExpandNode, RootNode)
    return _VALUE_KINDS


def _output_value(out: OutputState | None) -> Any:
    if out is None:
        return None
    from tfconsole.lang.types import type_from_json
    from tfconsole.lang.values import from_json_typed, mark

    try:
        v = from_json_typed(out.value, type_from_json(out.type))
    except (ValueError, TypeError):
        v = out.value
    return mark(v) if out.sensitive else v


def _same_output(a: Any, b: Any) -> bool:
    ua, _ = unmark_deep(a)
    ub, _ = unmark_deep(b)
    from tfconsole.lang.values import is_wholly_known

    if not is_wholly_known(ub):
        return False
    if not equal(ua, ub):
        return False
    try:
        return type_of(ua) == type_of(ub)
    except TypeError:
        return True


def _change_sort_keys() -> Callable[[Any], tuple]:
    """The sort key of changes in Terraform's address order: shorter module paths first, then
    module steps, data before managed, type, name, instance key (no key, then numbers, then
    strings), deposed last. The part naming the resource is made once per resource (and, one
    object, compares by identity between its instances)."""
    prefixes: dict[AbsResource, tuple] = {}

    def key(ch: Any) -> tuple:
        a = ch.addr
        ra = a.abs_resource()
        prefix = prefixes.get(ra)
        if prefix is None:
            steps = tuple((n, _key_order(k)) for n, k in a.module.steps)
            prefix = prefixes[ra] = (len(steps), steps, a.resource.mode != "data", a.resource.type,
                                     a.resource.name)
        return (prefix, _key_order(a.key), ch.deposed or "")

    return key


def _render_facts(schema: Any, known: dict[int, tuple[list[str], bool, dict]]) -> tuple[list[str], bool, dict] | None:
    """What the plan renderer needs of a schema (see _finish_plan), once per schema object."""
    if schema is None:
        return None
    facts = known.get(id(schema))
    if facts is None:
        block = schema.block
        facts = known[id(schema)] = (
            sorted(n for n, a in block.attributes.items() if a.write_only), not non_legacy(block),
            block_structure(block) if block.blocks else {})
    return facts


def _key_order(key: Any) -> tuple:
    if key is None:
        return (0, 0, "")
    if isinstance(key, int):
        return (1, key, "")
    return (2, 0, key)


def plan_copy(plan: Plan) -> Plan:
    return copy.deepcopy(plan)
