"""plan / apply / destroy / refresh with `-json`: the operations with Terraform's JSON UI stream.

The same steps as the human commands in main.py (load, lock, plan, approve, apply), with every
word going to the JSON view: the version first, the engine's hook calls as hook messages,
diagnostics as diagnostic messages, then the plan's changes, the summary and the outputs, in
Terraform's order. Nothing here prints human text.
"""
from __future__ import annotations

from typing import Any

from tfconsole.diags import Diagnostics

from .flags import Args
from .jsonui import JSONView


def start(cli: Any) -> JSONView:
    """Switch the CLI to the JSON UI: diagnostics and hooks go to the view from now on."""
    view = JSONView(cli.stdout, lambda: cli.files)
    cli.json_view = view
    view.version()
    return view


def _manager(cli: Any, view: JSONView, ctx: Any, a: Args, operation: str) -> Any:
    mgr = cli.manager(ctx, a, operation)
    mgr.on_lock_wait = lambda: view.log("Acquiring state lock. This may take a few moments...")
    return mgr


def plan(cli: Any, a: Args) -> int:
    view = start(cli)
    ctx = cli.context(a)
    if not cli.load(ctx):
        return 1
    mgr = _manager(cli, view, ctx, a, "OperationTypePlan")
    with _locked(cli, mgr) as ok:
        if not ok:
            return 1
        p, rc = _plan(cli, view, a, ctx, mgr)
        if p is None:
            return rc
        out = a.get("out")
        if out:
            from tfconsole.plans.planfile import write_plan

            wd = write_plan(p, out)
            cli.diags(wd)
            if wd.has_errors:
                return 1
    if a.bool("detailed-exitcode"):
        return 2 if p.has_changes() else 0
    return 0


def _plan(cli: Any, view: JSONView, a: Args, ctx: Any, mgr: Any, destroy: bool = False,
          held: Diagnostics | None = None) -> tuple[Any, int]:
    """Plan and report it, then its diagnostics (an errored plan's changes come before its
    errors, as Terraform writes them). With `held`, warnings of a successful plan are kept
    there instead: apply reports them with its own at the end."""
    state, ok = cli.load_state(mgr)
    if not ok:
        return None, 1
    with cli.interrupts.operation(ctx):
        p, d = ctx.plan(state, destroy=destroy or a.bool("destroy"), refresh_only=a.bool("refresh-only"),
                        refresh=a.bool("refresh", True), targets=a.all("target"), replace=a.all("replace"),
                        excludes=a.all("exclude"))
    if p is not None and (not d.has_errors or p.changes):
        view.plan(p)
    if held is not None and not d.has_errors:
        held.extend(d)
    else:
        cli.diags(d)
    if d.has_errors:
        return None, 1
    return p, 0


def apply(cli: Any, a: Args, destroy: bool = False, refresh: bool = False) -> int:
    """apply / destroy / refresh -json. Without a plan file, -auto-approve is required (the
    stream cannot ask), as Terraform requires it."""
    view = start(cli)
    planfile = a.pos[0] if a.pos else None
    if not planfile and not a.bool("auto-approve"):
        d = Diagnostics()
        d.error("Plan file or auto-approve required", "Terraform cannot ask for interactive approval when -json is "
                "set. You can either apply a saved plan file, or enable the -auto-approve option.")
        cli.diags(d)
        return 1
    ctx = cli.context(a)
    held = Diagnostics()
    if planfile:
        p = cli.open_plan(ctx, planfile)
        if p is None:
            return 1
    elif not cli.load(ctx):
        return 1
    mgr = _manager(cli, view, ctx, a, "OperationTypeApply")
    with _locked(cli, mgr) as ok:
        if not ok:
            return 1
        if planfile:
            if not _applicable(cli, mgr, p):
                return 1
            view.saved_plan(p)
        else:
            p, rc = _plan_quietly(cli, a, ctx, mgr, destroy) if refresh else \
                _plan(cli, view, a, ctx, mgr, destroy, held)
            if p is None:
                return rc
        if p.has_changes() or p.refresh_only:
            with cli.interrupts.operation(ctx):
                state, d = ctx.apply(p, mgr)
        else:
            state, d = mgr.state, Diagnostics()
        if p.targets and not d.has_errors:
            d.append(targeted_apply_warning())
        cli.diags(held.extend(d))
        if d.has_errors:
            return 1
        if not refresh:
            counts = view.hook.counts
            view.change_summary({"add": counts["add"], "change": counts["change"], "import": counts["import"],
                                 "remove": counts["remove"], "action_invocation": 0,
                                 "operation": "destroy" if p.destroy else "apply"})
        if not p.destroy and state is not None:
            view.outputs(state)
    return 0


def _plan_quietly(cli: Any, a: Args, ctx: Any, mgr: Any, destroy: bool) -> tuple[Any, int]:
    """refresh: the refresh-only plan is applied without being shown (Terraform's refresh
    command reports only the refresh hooks and the outputs)."""
    state, ok = cli.load_state(mgr)
    if not ok:
        return None, 1
    with cli.interrupts.operation(ctx):
        p, d = ctx.plan(state, destroy=False, refresh_only=True, refresh=True, targets=a.all("target"),
                        replace=[], excludes=a.all("exclude"))
    cli.diags(d)
    if d.has_errors:
        return None, 1
    return p, 0


def targeted_apply_warning() -> Any:
    from tfconsole.diags import warning

    return warning("Applied changes may be incomplete", "The plan was created with the -target option in effect, so "
                   "some changes requested in the configuration may have been ignored and the output values may not "
                   "be fully updated. Run the following command to verify that no other changes are pending:\n    "
                   "terraform plan\n\nNote that the -target option is not suitable for routine use, and is "
                   "provided only for exceptional situations such as recovering from errors or mistakes, or when "
                   "Terraform specifically suggests to use it as part of an error message.")


def _applicable(cli: Any, mgr: Any, p: Any) -> bool:
    from tfconsole.plans.staleness import check_applicable

    st, ok = cli.load_state(mgr)
    if not ok:
        return False
    sd = check_applicable(p, st)
    cli.diags(sd)
    return not sd.has_errors


__all__ = ["apply", "plan", "start"]


class _locked:
    """The state lock held for a block; its refusal is reported through the CLI (the JSON view)."""

    def __init__(self, cli: Any, mgr: Any):
        self.cli = cli
        self.mgr = mgr
        self.ok = False

    def __enter__(self) -> bool:
        d = self.mgr.lock()
        self.cli.diags(d)
        self.ok = not d.has_errors
        return self.ok

    def __exit__(self, *exc: Any) -> None:
        if self.ok:
            self.mgr.unlock()
