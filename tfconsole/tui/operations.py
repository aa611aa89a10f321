"""Engine operations as the console runs them, on worker threads.

Each function is blocking and headless (no widgets, no textual imports); the app calls them
from `@work(thread=True)` workers and receives plain result objects. Every one of them is a thin
caller of the operations layer (tfconsole/operations), the same functions the CLI calls: the
lock, the stale-plan rule, taint, state rm and the orphans are written there, once.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable

from tfconsole import operations
from tfconsole.core import Context
from tfconsole.diags import Diagnostics
from tfconsole.operations import OperationRequest, OperationView
from tfconsole.plans import Action, Plan
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
    applied: bool = True  # the apply walk ran (False: refused before it, e.g. a stale plan)


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
    return operations.new_context(_request(working_dir, parallelism, hooks))


def _request(working_dir: str, parallelism: int = 1, hooks: list[Any] | None = None,
             view: OperationView | None = None, **kw: Any) -> OperationRequest:
    return OperationRequest(working_dir=working_dir, parallelism=parallelism, hooks=list(hooks or []),
                            view=view or OperationView(), **kw)


class _ContextView(OperationView):
    """Hands the context to the app as soon as it exists (so `x` can cancel the walk)."""

    def __init__(self, on_context: Callable[[Context], None] | None) -> None:
        self.on_context = on_context

    def context_ready(self, ctx: Any) -> None:
        if self.on_context is not None:
            self.on_context(ctx)


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


def plan(working_dir: str, parallelism: int, hooks: list[Any], *, destroy: bool = False,
         targets: list[str] | None = None, excludes: list[str] | None = None,
         on_context: Callable[[Context], None] | None = None, cli_vars: list[tuple[str, str]] | None = None,
         refresh_only: bool = False, replace: list[str] | None = None) -> PlanOutcome:
    """A plan as `terraform plan` makes it: -var / -var-file pairs in command-line order
    ("var", "k=v") / ("var-file", PATH), -destroy, -refresh-only, -target, -exclude, -replace."""
    req = _request(working_dir, parallelism, hooks, _ContextView(on_context), destroy=destroy,
                   targets=list(targets or []), excludes=list(excludes or []), cli_vars=list(cli_vars or []),
                   refresh_only=refresh_only, replace=list(replace or []))
    res = operations.plan(req)
    ctx = res.context
    return PlanOutcome(res.plan if res.ok else None, res.diags, ctx, config_files(ctx, working_dir), destroy)


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
    """Apply exactly the reviewed plan with the context that planned it (refused when the
    state changed since: the operation's stale-plan rule)."""
    req = _request(ctx.opts.working_dir, ctx.opts.parallelism, plan=the_plan, context=ctx)
    res = operations.apply(req)
    walk = ctx.last_walk if res.failed_phase in (None, "apply") else None
    timings = dict(walk.timings) if walk is not None else {}
    info = graph_info(ctx.last_graph, timings, "apply") if ctx.last_graph is not None else None
    state = res.state if res.failed_phase in (None, "apply") else None
    return ApplyOutcome(the_plan, state, res.diags, res.cancelled, timings, info,
                        applied=res.failed_phase in (None, "apply"))


def graph_info(g: Any, timings: dict[str, tuple[float, float]] | None = None, kind: str = "plan") -> GraphInfo:
    info = GraphInfo(timings=dict(timings or {}), kind=kind)
    for v in g.vertices():
        info.deps[v.name] = sorted(d.name for d in g.dependencies(v))
        info.dependents[v.name] = sorted(d.name for d in g.dependents(v))
    return info


def build_graph(working_dir: str, cli_vars: list[tuple[str, str]] | None = None
                ) -> tuple[GraphInfo | None, Diagnostics]:
    req = _request(working_dir, cli_vars=list(cli_vars or []))
    ctx = operations.new_context(req)
    diags = ctx.load_config()
    if diags.has_errors:
        return None, diags
    res = operations.OperationResult()
    state = operations.read_state(ctx, req, res, "OperationTypeGraph")
    diags.append(res.diags)
    g, d = ctx.graph("plan", state or State())
    diags.append(d)
    return graph_info(g), diags


def load_state(working_dir: str, cli_vars: list[tuple[str, str]] | None = None,
               evaluate: bool = False) -> StateOutcome:
    """Read the state (no lock: a read-only snapshot), the config, and find orphans.

    Without `evaluate`, the orphans judged from the configuration alone (no resource block, no
    module). With it, also those only evaluation finds - an index beyond count, a key not in
    for_each, a module instance gone - from a plan of the current state and configuration with
    the console's variables (no refresh, no lock, nothing kept): the same rule the plan's
    deletes follow, never a stale earlier plan."""
    req = _request(working_dir, cli_vars=list(cli_vars or []))
    res = operations.orphans(req)
    ctx = res.context
    out = StateOutcome(res.state, res.diags, config_files(ctx, working_dir), ctx.config)
    if res.state is None:
        return out
    out.decoded = decode_state(res.state)
    out.orphans = list(res.orphans)
    if evaluate and ctx.config is not None:
        out.orphans.extend(_evaluated_orphans(req, {a for a, _ in out.orphans}, out.diags))
    return out


def _evaluated_orphans(req: OperationRequest, known: set[str], diags: Diagnostics) -> list[tuple[str, str]]:
    probe = OperationRequest(working_dir=req.working_dir, cli_vars=list(req.cli_vars), refresh=False,
                             lock=False, parallelism=req.parallelism)
    res = operations.plan(probe)
    if not res.ok or res.plan is None:
        diags.append(res.diags)
        return []
    return [(ch.address, ch.reason) for ch in res.plan.changes
            if ch.action is Action.DELETE and (ch.reason or "").startswith("delete_because")
            and ch.address not in known and not ch.deposed]


def decode_state(state: State) -> dict[str, dict[str, Any]]:
    """Instance address -> attribute JSON as stored (already plain data)."""
    out: dict[str, dict[str, Any]] = {}
    for addr, inst in state.all_instances():
        if inst.current is not None:
            out[str(addr)] = dict(inst.current.attributes or {})
    return out


def find_orphans(config: Any, state: State) -> list[tuple[str, str]]:
    """State instances the configuration no longer declares, with Terraform's delete reason."""
    return operations.find_orphans(config, state)


def set_status(working_dir: str, addr_text: str, status: str) -> Diagnostics:
    """taint ("tainted") / untaint ("ready"): the operation the CLI's taint and untaint run."""
    req = _request(working_dir)
    res = operations.taint(req, addr_text) if status == "tainted" else operations.untaint(req, addr_text)
    return res.diags


def forget(working_dir: str, addrs: list[str]) -> Diagnostics:
    """state rm: drop the instances from state without destroying them."""
    return operations.state_rm(_request(working_dir), list(addrs)).diags


def review_plan(path: str) -> tuple[Any, Diagnostics]:
    """A plan opened read-only for review (Terraform's plan JSON, tfconsole's plan file or its
    JSON): (models.plan_json.ReviewPlan, no diagnostics), or (None, the error saying why)."""
    from .models.plan_json import PlanOpenError, open_plan as open_review

    diags = Diagnostics()
    try:
        return open_review(path), diags
    except PlanOpenError as exc:
        diags.error("Cannot open the plan for review", str(exc))
        return None, diags
