"""Engine operations as the console runs them, on worker threads.

Each function is blocking and headless (no widgets, no textual imports); the app calls them
from `@work(thread=True)` workers and receives plain result objects. The state lock is held
only for the duration of one plan, apply or state edit, and is always released.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable

from tfconsole.core import Context, Options
from tfconsole.diags import Diagnostics
from tfconsole.plans.staleness import check_applicable
from tfconsole.plans import REASON_NO_MODULE, REASON_NO_RESOURCE_CONFIG, REASON_WRONG_REPETITION, Plan
from tfconsole.states.state import State


@dataclass
class PlanOutcome:
    plan: Plan | None
    diags: Diagnostics
    ctx: Context
    files: dict[str, str]
    destroy: bool = False


@dataclass
class ApplyOutcome:
    plan: Plan
    state: State | None
    diags: Diagnostics
    cancelled: bool
    timings: dict[str, tuple[float, float]] = field(default_factory=dict)
    graph: "GraphInfo | None" = None


@dataclass
class StateOutcome:
    state: State | None
    diags: Diagnostics
    files: dict[str, str]
    config: Any = None
    orphans: list[tuple[str, str]] = field(default_factory=list)
    decoded: dict[str, dict[str, Any]] = field(default_factory=dict)  # instance addr -> attributes


@dataclass
class GraphInfo:
    """A walk graph as plain names: vertex -> dependencies / dependents, plus timings."""

    deps: dict[str, list[str]] = field(default_factory=dict)
    dependents: dict[str, list[str]] = field(default_factory=dict)
    timings: dict[str, tuple[float, float]] = field(default_factory=dict)
    kind: str = "plan"


def new_context(working_dir: str, parallelism: int, hooks: list[Any]) -> Context:
    return Context(Options(working_dir=working_dir, parallelism=parallelism), hooks=hooks)


def config_files(ctx: Context, working_dir: str) -> dict[str, str]:
    """Source text by file name, for diagnostics' source lines (even when the config is broken)."""
    if ctx.config is not None:
        return {k: v for m in ctx.config.descendants() for k, v in m.files.items()}
    out: dict[str, str] = {}
    try:
        names = os.listdir(working_dir)
    except OSError:
        return out
    for n in names:
        if n.endswith(".tf"):
            try:
                with open(os.path.join(working_dir, n), encoding="utf-8", errors="replace") as f:
                    out[n] = f.read()
            except OSError:
                pass
    return out


def _locked(ctx: Context, operation: str, fn: Callable[[Any, State], Any], diags: Diagnostics) -> Any:
    mgr = ctx.backend().state_manager(lock=True, operation=operation)
    d = mgr.lock()
    diags.append(d)
    if d.has_errors:
        return None
    try:
        state, d = mgr.load()
        diags.append(d)
        if d.has_errors:
            return None
        return fn(mgr, state or State())
    finally:
        mgr.unlock()


def plan(working_dir: str, parallelism: int, hooks: list[Any], *, destroy: bool = False,
         targets: list[str] | None = None, excludes: list[str] | None = None,
         on_context: Callable[[Context], None] | None = None) -> PlanOutcome:
    ctx = new_context(working_dir, parallelism, hooks)
    if on_context is not None:
        on_context(ctx)
    diags = ctx.load_config()
    files = config_files(ctx, working_dir)
    if diags.has_errors:
        return PlanOutcome(None, diags, ctx, files, destroy)

    def run(_mgr: Any, state: State) -> Plan | None:
        p, d = ctx.plan(state, destroy=destroy, targets=targets or [], excludes=excludes or [])
        diags.append(d)
        return None if d.has_errors else p

    result = _locked(ctx, "OperationTypePlan", run, diags)
    return PlanOutcome(result, diags, ctx, files, destroy)


def open_plan(working_dir: str, path: str, parallelism: int, hooks: list[Any]) -> PlanOutcome:
    """A saved plan file opened for review and apply: the plan, and a context holding the
    configuration snapshot it was made from (never the working directory's current files)."""
    from tfconsole.plans.planfile import load_plan, load_plan_config

    ctx = new_context(working_dir, parallelism, hooks)
    the_plan, diags = load_plan(path)
    if the_plan is None:
        return PlanOutcome(None, diags, ctx, {})
    diags.append(load_plan_config(ctx, the_plan, working_dir))
    files = config_files(ctx, working_dir)
    if diags.has_errors:
        return PlanOutcome(None, diags, ctx, files)
    return PlanOutcome(the_plan, diags, ctx, files, the_plan.destroy)


def apply(ctx: Context, the_plan: Plan) -> ApplyOutcome:
    """Apply exactly the reviewed plan with the context that planned it."""
    diags = Diagnostics()

    def run(mgr: Any, state: State) -> State | None:
        stale = check_applicable(the_plan, state)
        diags.append(stale)
        if stale.has_errors:
            return None
        st, d = ctx.apply(the_plan, mgr)
        diags.append(d)
        return st

    state = _locked(ctx, "OperationTypeApply", run, diags)
    walk = ctx.last_walk
    cancelled = bool(walk is not None and walk.cancelled)
    timings = dict(walk.timings) if walk is not None else {}
    info = graph_info(ctx.last_graph, timings, "apply") if ctx.last_graph is not None else None
    return ApplyOutcome(the_plan, state, diags, cancelled, timings, info)


def graph_info(g: Any, timings: dict[str, tuple[float, float]] | None = None, kind: str = "plan") -> GraphInfo:
    info = GraphInfo(timings=dict(timings or {}), kind=kind)
    for v in g.vertices():
        info.deps[v.name] = sorted(d.name for d in g.dependencies(v))
        info.dependents[v.name] = sorted(d.name for d in g.dependents(v))
    return info


def build_graph(working_dir: str) -> tuple[GraphInfo | None, Diagnostics]:
    ctx = new_context(working_dir, 1, [])
    diags = ctx.load_config()
    if diags.has_errors:
        return None, diags
    mgr = ctx.backend().state_manager(lock=False)
    state, d = mgr.load()
    diags.append(d)
    g, d = ctx.graph("plan", state or State())
    diags.append(d)
    return graph_info(g), diags


def load_state(working_dir: str) -> StateOutcome:
    """Read the state (no lock: a read-only snapshot), the config, and find orphans."""
    ctx = new_context(working_dir, 1, [])
    diags = ctx.load_config()
    files = config_files(ctx, working_dir)
    mgr = ctx.backend().state_manager(lock=False)
    state, d = mgr.load()
    diags.append(d)
    out = StateOutcome(state, diags, files, ctx.config)
    if state is None:
        return out
    out.decoded = decode_state(state)
    if ctx.config is not None:
        out.orphans = find_orphans(ctx.config, state)
    return out


def decode_state(state: State) -> dict[str, dict[str, Any]]:
    """Instance address -> attribute JSON as stored (already plain data)."""
    out: dict[str, dict[str, Any]] = {}
    for addr, inst in state.all_instances():
        if inst.current is not None:
            out[str(addr)] = dict(inst.current.attributes or {})
    return out


def find_orphans(config: Any, state: State) -> list[tuple[str, str]]:
    """State instances the configuration no longer declares, with Terraform's delete reason."""
    out: list[tuple[str, str]] = []
    for addr, inst in state.all_instances():
        if inst.current is None:
            continue
        mod = config.module_at(addr.module.module())
        if mod is None:
            out.append((str(addr), f"{REASON_NO_MODULE}: module {addr.module} is not in the configuration"))
            continue
        rc = mod.resources.get(addr.resource)
        if rc is None:
            out.append((str(addr), f"{REASON_NO_RESOURCE_CONFIG}: no resource block for {addr.resource}"))
            continue
        key = addr.key
        if key is None and (rc.count is not None or rc.for_each is not None):
            out.append((str(addr), f"{REASON_WRONG_REPETITION}: the resource now uses count or for_each"))
        elif isinstance(key, int) and rc.count is None:
            out.append((str(addr), f"{REASON_WRONG_REPETITION}: instance key [{key}] but no count"))
        elif isinstance(key, str) and rc.for_each is None:
            out.append((str(addr), f"{REASON_WRONG_REPETITION}: instance key [\"{key}\"] but no for_each"))
    return out


def edit_state(working_dir: str, fn: Callable[[State, Diagnostics], bool], operation: str = "OperationTypeState"
               ) -> Diagnostics:
    """Lock, load, let fn mutate the state (it returns whether to persist), persist, unlock."""
    ctx = new_context(working_dir, 1, [])
    diags = Diagnostics()
    # the config only chooses the backend; a broken config must not block state edits
    ctx.load_config()

    def run(mgr: Any, state: State) -> None:
        if fn(state, diags) and not diags.has_errors:
            diags.append(mgr.persist(state))

    _locked(ctx, operation, run, diags)
    return diags


def set_status(working_dir: str, addr_text: str, status: str) -> Diagnostics:
    from tfconsole.addrs import AddressError, parse_instance

    def fn(state: State, diags: Diagnostics) -> bool:
        try:
            addr = parse_instance(addr_text)
        except AddressError as exc:
            diags.error("Invalid address", str(exc))
            return False
        obj = state.current(addr)
        if obj is None:
            diags.error("No such resource instance", f"There is no resource instance in the state with the "
                        f"address {addr}.")
            return False
        if status == "ready" and obj.status != "tainted":
            diags.error("Resource instance is not tainted",
                        f"Resource instance {addr} is not currently tainted, and so it cannot be untainted.")
            return False
        obj.status = status
        return True

    return edit_state(working_dir, fn)


def forget(working_dir: str, addrs: list[str]) -> Diagnostics:
    """state rm: drop the instances from state without destroying them."""
    from tfconsole.addrs import AddressError, parse_target, target_contains

    def fn(state: State, diags: Diagnostics) -> bool:
        removed = 0
        for text in addrs:
            try:
                t = parse_target(text)
            except AddressError as exc:
                diags.error("Invalid address", f"{text}: {exc}")
                return False
            for addr, _inst in list(state.all_instances()):
                if target_contains(t, addr):
                    state.set_current(addr, None, state.resources[addr.abs_resource()].provider)
                    removed += 1
        if removed == 0:
            diags.error("Invalid target address", "No matching objects found.")
            return False
        return True

    return edit_state(working_dir, fn)
