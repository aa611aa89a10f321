"""The operations, run in this process over any backend's state manager (OpenTofu's local
backend: internal/backend/local/backend_plan.go, backend_apply.go, backend_local.go).

Each operation opens the configured backend, builds the Context, takes the lock through the
backend's state manager (lock / load / persist / open_journal / unlock), runs, and always
releases the lock. A remote backend (http, pg) takes part by handing out its own state manager
from `state_manager(...)`; nothing here knows where the state lives.

Every rule the CLI and the console share lives below this module or in it, once: the
stale-plan rule (plans.staleness.check_applicable, applied here before every apply of an
earlier plan), the state edits (rules.py), the orphans (graph/orphans.py) and import.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tfconsole.diags import Diagnostics
from tfconsole.plans.staleness import check_applicable
from tfconsole.states.state import State

from . import rules
from .request import OperationRequest, OperationResult

# the lock-info Operation names Terraform writes
PLAN, APPLY, STATE_EDIT, IMPORT = "OperationTypePlan", "OperationTypeApply", "OperationTypeState", "OperationTypeImport"


def new_context(req: OperationRequest) -> Any:
    """The Context an operation walks with (its hooks are the request's)."""
    from dataclasses import fields

    from tfconsole.core import Context, Options

    opts = Options(**{f.name: getattr(req, f.name) for f in fields(Options)})
    opts.cli_vars = list(opts.cli_vars)
    opts.parallelism = max(1, opts.parallelism)
    return Context(opts, hooks=list(req.hooks))


def _context(req: OperationRequest, res: OperationResult) -> Any:
    ctx = req.context if req.context is not None else new_context(req)
    res.context = ctx
    req.view.context_ready(ctx)
    return ctx


def load_configuration(ctx: Any, req: OperationRequest, res: OperationResult) -> bool:
    """Load the configuration and its input variables, and refuse a backend tfconsole lacks and
    plugins that do not match the lock file."""
    from tfconsole.backends import check_backend

    d = ctx.load_config()
    d.append(check_backend(ctx.backend_root()))
    if not d.has_errors:  # Terraform refuses missing or changed plugins before any operation
        from tfconsole.providers.preflight import check_before_operation

        d.append(check_before_operation(ctx.opts.working_dir, ctx.config))
    res.diags.append(d)
    req.view.diagnostics(d, "config")
    if d.has_errors:
        res.failed_phase = "config"
    return not d.has_errors


def state_manager(ctx: Any, req: OperationRequest, operation: str, *, lock: bool = True) -> Any:
    """The workspace's state manager from the configured backend (backends.BACKENDS: local,
    or whatever a remote backend registers). The walk's terraform.workspace is fixed to the
    workspace whose state it works on."""
    from tfconsole.backends import backend_for

    backend = backend_for(ctx)
    workspace = req.workspace or backend.current_workspace()
    ctx.opts.workspace = workspace
    mgr = backend.state_manager(workspace, lock=lock and req.lock, lock_timeout=req.lock_timeout,
                                operation=operation)
    mgr.on_lock_wait = req.view.lock_waiting
    return mgr


def _report(req: OperationRequest, res: OperationResult, d: Diagnostics, phase: str) -> bool:
    """Record and show one phase's diagnostics; False (and the phase recorded) on errors."""
    res.diags.append(d)
    req.view.diagnostics(d, phase)
    if d.has_errors:
        res.failed_phase = phase
    return not d.has_errors


@contextmanager
def locked_state(ctx: Any, req: OperationRequest, res: OperationResult, operation: str) -> Iterator[Any]:
    """Yields (manager, state) with the lock held, or None when the lock or the state could not
    be had (the reason is in res). The lock is released however the block ends."""
    mgr = state_manager(ctx, req, operation)
    if not _report(req, res, mgr.lock(), "lock"):
        yield None
        return
    try:
        state, d = mgr.load()
        yield (mgr, state or State()) if _report(req, res, d, "state") else None
    finally:
        mgr.unlock()


def read_state(ctx: Any, req: OperationRequest, res: OperationResult, operation: str) -> State | None:
    """The current state without the lock (a read-only snapshot); None after a problem."""
    state, d = state_manager(ctx, req, operation, lock=False).load()
    return (state or State()) if _report(req, res, d, "state") else None


def _walk(req: OperationRequest, ctx: Any, fn: Callable[[], Any]) -> Any:
    req.view.walk_started(ctx)
    try:
        return fn()
    finally:
        req.view.walk_ended(ctx)


def _distinct(diags: Diagnostics) -> Diagnostics:
    """The diagnostics without repeats (same severity, summary, detail, place and address)."""
    seen: set[tuple] = set()
    out = Diagnostics()
    for d in diags:
        key = (d.is_error, d.summary, d.detail, str(d.subject), getattr(d, "address", None))
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def _make_plan(ctx: Any, req: OperationRequest, res: OperationResult, state: State, *,
               once: bool = False) -> Any:
    """Plan, then show it and its diagnostics in Terraform's order: a plan first and then its
    warnings; an errored plan's partial changes (plan_failed) and then its errors. `once`: the
    plan command shows identical diagnostics once (Terraform's plan does; its apply does not)."""
    plan, d = _walk(req, ctx, lambda: ctx.plan(state, destroy=req.destroy, refresh_only=req.refresh_only,
                                                 refresh=req.refresh, targets=req.targets, replace=req.replace,
                                                 excludes=req.excludes, generate_config_out=req.generate_config_out))
    if once:
        d = _distinct(d)
    if d.has_errors:
        req.view.plan_failed(plan)
        _report(req, res, d, "plan")
        return None
    res.plan = plan
    req.view.plan_ready(plan)
    _report(req, res, d, "plan")
    return plan


# ---------------------------------------------------------------- plan / apply / destroy / refresh

def plan(req: OperationRequest) -> OperationResult:
    """Plan (normal, -destroy or -refresh-only) under the lock; the state is not changed."""
    from .generated import check_generate_target, write_generated_config

    res = OperationResult()
    ctx = _context(req, res)
    if req.generate_config_out and not _report(req, res, check_generate_target(req.generate_config_out), "config"):
        return res
    if not load_configuration(ctx, req, res):
        return res
    with locked_state(ctx, req, res, PLAN) as held:
        if held is not None:
            plan = _make_plan(ctx, req, res, held[1], once=True)
            if plan is not None and req.generate_config_out:
                wrote, d = write_generated_config(plan, req.generate_config_out)
                # its warning belongs under the plan: the view that shows the plan prints it
                if _report(req, res, Diagnostics(d.errors()), "plan") and wrote:
                    res.generated_config_file = req.generate_config_out
                    res.generated_config_warnings = Diagnostics([x for x in d if not x.is_error])
    return res


def apply(req: OperationRequest) -> OperationResult:
    """Apply: req.plan (made earlier, with req.context) once the stale-plan rule allows it, or
    a new plan (destroy / refresh-only as the request says) once the view confirms it."""
    res = OperationResult(plan=req.plan)
    ctx = _context(req, res)
    if req.plan is None and not load_configuration(ctx, req, res):
        return res
    with locked_state(ctx, req, res, APPLY) as held:
        if held is None:
            return res
        mgr, state = held
        res.state = state
        the_plan = req.plan
        if the_plan is None:
            the_plan = _make_plan(ctx, req, res, state)
            if the_plan is None:
                return res
            if not the_plan.has_changes() and not the_plan.refresh_only:
                return res  # nothing to do: the state stays as it is
            if not req.view.confirm(the_plan):
                res.declined = True
                return res
        elif not _report(req, res, check_applicable(the_plan, state), "stale"):
            return res
        else:
            req.view.applying_saved_plan(the_plan)
        new_state, d = _walk(req, ctx, lambda: ctx.apply(the_plan, mgr))
        if the_plan.targets and not d.has_errors:
            d.append(rules.targeted_apply_warning())
        res.state = new_state
        walk = ctx.last_walk
        res.cancelled = bool(walk is not None and walk.cancelled)
        _report(req, res, d, "apply")
    return res


def destroy(req: OperationRequest) -> OperationResult:
    req.destroy = True
    return apply(req)


def refresh(req: OperationRequest) -> OperationResult:
    req.refresh_only = True
    return apply(req)


# ---------------------------------------------------------------- state edits

def edit_state(req: OperationRequest, edit: Callable[[State], rules.Edit], operation: str = STATE_EDIT,
               needs_state: bool = False) -> OperationResult:
    """Lock, load, edit, write (unless the edit changed nothing, failed, or req.dry_run), unlock.
    The edit's report goes into the result only once its state is written. needs_state: a
    workspace that has no state at all fails in the "no state" phase (Terraform's `state rm`,
    `mv` and `replace-provider` refuse it) and the edit is not called."""
    res = OperationResult()
    ctx = _context(req, res)
    if ctx.config is None:
        # the configuration only chooses the backend: a broken one must not block a state edit
        ctx.load_config()
    with locked_state(ctx, req, res, operation) as held:
        if held is None:
            return res
        mgr, state = held
        if needs_state and not getattr(mgr, "found", True) and not (state.resources or state.outputs):
            return res.fail("no state")
        e = edit(state)
        if not _report(req, res, e.diags, "edit"):
            return res
        if e.changed and not req.dry_run and not _report(req, res, mgr.persist(state), "write"):
            return res
        res.state = state
        res.report = e.report
    return res


def taint(req: OperationRequest, addr: str, *, allow_missing: bool = False) -> OperationResult:
    return edit_state(req, lambda s: rules.set_status(s, addr, "tainted", allow_missing=allow_missing))


def untaint(req: OperationRequest, addr: str, *, allow_missing: bool = False) -> OperationResult:
    return edit_state(req, lambda s: rules.set_status(s, addr, "ready", allow_missing=allow_missing))


def state_rm(req: OperationRequest, addrs: list[str]) -> OperationResult:
    return edit_state(req, lambda s: rules.remove(s, addrs, dry_run=req.dry_run), needs_state=True)


def state_mv(req: OperationRequest, src: str, dst: str) -> OperationResult:
    return edit_state(req, lambda s: rules.move(s, src, dst, dry_run=req.dry_run), needs_state=True)


def state_push(req: OperationRequest, new: State, *, force: bool = False) -> OperationResult:
    return edit_state(req, lambda s: rules.push(s, new, force=force))


def orphans(req: OperationRequest) -> OperationResult:
    """The state (unlocked snapshot) and its orphans judged from the configuration."""
    res = OperationResult()
    ctx = _context(req, res)
    d = ctx.load_config()
    res.diags.append(d)
    state = read_state(ctx, req, res, "OperationTypeShow")
    res.state = state
    if state is not None and ctx.config is not None:
        res.orphans = rules.find_orphans(ctx.config, state)
    return res
