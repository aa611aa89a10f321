"""plan / apply / destroy / refresh with `-json`: the shared operations with Terraform's JSON UI.

The operations layer (tfconsole/operations) runs them exactly as for the human commands; this
module only gives it a view that writes Terraform's JSON UI messages: the version first, the
engine's hook calls as hook messages, diagnostics as diagnostic messages, then the plan's
changes, the summary and the outputs, in Terraform's order. Nothing here prints human text.
"""
from __future__ import annotations

from typing import Any

from tfconsole.diags import Diagnostics

from .flags import Args
from .jsonui import JSONView
from .cliview import CLIView


def start(cli: Any) -> JSONView:
    """Switch the CLI to the JSON UI: diagnostics and hooks go to the view from now on."""
    view = JSONView(cli.stdout, lambda: cli.files)
    cli.json_view = view
    cli.interrupts.say = lambda text, kind: view.log(text)  # Terraform logs its interrupt words on the stream
    view.version()
    return view


class JSONOperationView(CLIView):
    """An operation's progress as JSON UI messages. Signals and diagnostics work as for the
    human CLI (cli.diags writes to the JSON stream once it is switched); what differs is what
    a plan shows, and that an apply keeps its plan's warnings to report them with its own."""

    def __init__(self, cli: Any, a: Args, stream: JSONView, *, show_plan: bool = True):
        super().__init__(cli, a)
        self.stream = stream
        self.show_plan = show_plan

    def lock_waiting(self) -> None:
        self.stream.log("Acquiring state lock. This may take a few moments...")

    def plan_ready(self, plan: Any) -> None:
        if self.show_plan:
            self.stream.plan(plan)

    def plan_failed(self, plan: Any) -> None:
        # an errored plan's changes come before its errors, as Terraform writes them
        if self.show_plan and plan is not None and plan.changes:
            self.stream.plan(plan)

    def applying_saved_plan(self, plan: Any) -> None:
        self.stream.saved_plan(plan)

    def confirm(self, plan: Any) -> bool:
        self.approved_up_front()
        return True  # -json requires a plan file or -auto-approve (checked before the operation)


def plan(cli: Any, a: Args) -> int:
    from tfconsole import operations

    stream = start(cli)
    req = cli._plan_request(a, generate_config_out=a.get("generate-config-out") or "")
    req.view = JSONOperationView(cli, a, stream)
    req.context = cli.context(a, req)
    res = operations.plan(req)
    if not res.ok:
        return 1
    if res.generated_config_warnings:  # under the plan, as Terraform reports them
        w = Diagnostics()
        for d in res.generated_config_warnings:
            w.append(d)
        cli.diags(w)
    out = a.get("out")
    if out:
        from tfconsole.plans.planfile import write_plan

        wd = write_plan(res.plan, out)
        cli.diags(wd)
        if wd.has_errors:
            return 1
    if a.bool("detailed-exitcode"):
        return 2 if res.plan.has_changes() else 0
    return 0


def apply(cli: Any, a: Args, destroy: bool = False, refresh: bool = False) -> int:
    """apply / destroy / refresh -json. Without a plan file, -auto-approve is required (the
    stream cannot ask), as Terraform requires it."""
    from tfconsole import operations

    stream = start(cli)
    planfile = a.pos[0] if a.pos else None
    if not planfile and not a.bool("auto-approve"):
        d = Diagnostics()
        d.error("Plan file or auto-approve required", "Terraform cannot ask for interactive approval when -json is "
                "set. You can either apply a saved plan file, or enable the -auto-approve option.")
        cli.diags(d)
        return 1
    req = cli._plan_request(a)
    req.destroy = req.destroy or destroy
    # refresh reports only its refresh hooks and the outputs, never the refresh-only plan
    view = JSONOperationView(cli, a, stream, show_plan=not refresh)
    if not planfile:
        view.hold_plan_warnings()
    req.view = view
    req.context = cli.context(a, req)
    if planfile:
        req.plan = cli.open_plan(req.context, planfile)
        if req.plan is None:
            return 1
    res = operations.apply(req)
    view.release_held()
    if not res.ok:
        return 1
    if not refresh:
        counts = stream.hook.counts
        stream.change_summary({"add": counts["add"], "change": counts["change"], "import": counts["import"],
                               "remove": counts["remove"], "action_invocation": 0,
                               "operation": "destroy" if res.plan.destroy else "apply"})
    if not res.plan.destroy and res.state is not None:
        stream.outputs(res.state)
    return 0


__all__ = ["JSONOperationView", "apply", "plan", "start"]
