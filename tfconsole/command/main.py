"""The tfconsole CLI: Terraform's command words and flags.

Every failure is a diagnostic on stderr and a non-zero exit; no traceback reaches the user.
"""
from __future__ import annotations

import gc

# Before anything else is imported: loading tfconsole's ~250 modules makes enough objects for the
# default thresholds to run a dozen collections that each rescan everything imported so far
# (5-8 ms of a warm plan). _tune_gc says why these thresholds.
gc.set_threshold(100_000, 50, 100)

import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
from decimal import Decimal  # noqa: E402
from typing import Any, Callable  # noqa: E402

from tfconsole.diags import Diagnostics  # noqa: E402
from tfconsole.lang.values import dumps_json  # noqa: E402

from .flags import COMMANDS, Args, help_hint, parse, usage  # noqa: E402
from .signals import Interrupts  # noqa: E402

class CLI:
    def __init__(self, stdout: Any = None, stderr: Any = None) -> None:
        self.stdout = stdout or sys.stdout
        self.stderr = stderr or sys.stderr
        self.files: dict[str, str] = {}
        self.color = True
        self._contexts: list[Any] = []
        self.interrupts = Interrupts(self.stderr, self.stdout)
        self.interrupts.before_output = lambda: self.flush_progress(blocking=False)
        self._progress: list[Any] = []  # the CLIHooks whose queued lines go out before other output
        self.json_view: Any = None  # the -json UI stream (jsonui.JSONView), when a command streams one
        self.program = False  # this process is the tfconsole program (not a caller of main())

    def flush_progress(self, blocking: bool = True) -> None:
        """Write the progress lines the walk's hooks still hold (cliview.CLIHook)."""
        for hook in self._progress:
            if hook.pending():
                hook.flush(blocking)

    def out(self, s: str = "") -> None:
        self.flush_progress()
        self.stdout.write(s + "\n")
        self.stdout.flush()

    def diags(self, diags: Diagnostics, warnings_to_stderr: bool = False, legacy_ui: bool = False) -> None:
        """Each diagnostic on its stream; legacy_ui: followed by a blank line, as Terraform's
        commands that still report through its older Ui print them."""
        from .views import format_diagnostic, sort_diagnostics

        if self.json_view is not None:
            return self.json_view.diagnostics(diags)
        self.flush_progress()
        for d in sort_diagnostics(diags):
            stream = self.stderr if d.is_error or warnings_to_stderr else self.stdout
            stream.write(format_diagnostic(d, self.files, color=self.color) + ("\n\n" if legacy_ui else "\n"))
        self.stdout.flush()
        self.stderr.flush()

    # ------------------------------------------------------------------
    def run(self, argv: list[str]) -> int:
        chdir = None
        rest = list(argv)
        while rest and rest[0].startswith("-"):
            a = rest.pop(0)
            if a.startswith("-chdir="):
                chdir = a.split("=", 1)[1]
            elif a in ("-version", "--version", "-v"):
                rest.insert(0, "version")
                break
            elif a in ("-help", "--help", "-h"):
                rest.insert(0, "help")
                break
            else:
                self.stderr.write(f"Error: unknown global option {a}\n")
                return 1
        if chdir:
            if not os.path.isdir(chdir):
                self.stderr.write(f"Error handling -chdir option: chdir {chdir}: no such file or directory\n")
                return 1
            os.chdir(chdir)
        if not rest:
            rest = ["ui"]
        if rest[0] in RAW_COMMANDS:  # fmt and console parse their own flags (goflags), -no-color included
            return RAW_COMMANDS[rest[0]](self, rest[1:])
        # like Terraform, -no-color is taken out of every command's arguments
        if "-no-color" in rest[1:]:
            self.color = False
            rest = [rest[0]] + [x for x in rest[1:] if x != "-no-color"]
        cmd, argv = rest[0], rest[1:]
        if argv and (cmd in ("state", "workspace") and not argv[0].startswith("-") or
                     cmd == "providers" and argv[0] == "schema"):
            cmd, argv = f"{cmd} {argv[0]}", argv[1:]
        spec = COMMANDS.get(cmd)
        handler = getattr(self, "cmd_" + cmd.replace(" ", "_").replace("-", "_"), None) if spec else None
        if spec is None or handler is None:
            self.stderr.write(f"Terraform has no command named \"{cmd}\".\n\nTo see all of tfconsole's top-level "
                              "commands, run:\n  tfconsole -help\n")
            return 1
        a, d = parse(spec, argv)
        if a.help:
            self.stdout.write(usage(spec))
            return 0
        if d.has_errors:
            if spec.legacy_flag_errors:
                self.stderr.write(usage(spec) + f"Error parsing command-line flags: {d.errors()[0].detail}\n\n")
                return 1
            rule = spec.arity if a.arity_error else None
            self.diags(d, legacy_ui=spec.legacy_ui if rule is None or rule.legacy is None else rule.legacy)
            if rule is not None and rule.usage:
                self.stderr.write(usage(spec))
            elif spec.prompts_help():
                self.stderr.write(help_hint(spec))
            return 1
        try:
            return handler(a)
        finally:
            for ctx in self._contexts:  # provider plugins end with the command that started them
                ctx.close()

    # ------------------------------------------------------------------ helpers
    def request(self, a: Args, **kw: Any) -> Any:
        """The operation request a command's flags describe, reporting through a CLIView."""
        from tfconsole.operations import OperationRequest

        from .cliview import CLIView  # with the operations: commands like init need neither

        cli_vars: list[tuple[str, str]] = []
        # -var and -var-file in command-line order: a later one wins
        for k, v in a.ordered:
            if k in ("var", "var-file"):
                cli_vars.append((k, v))
        return OperationRequest(
            working_dir=".", cli_vars=cli_vars, parallelism=max(1, a.value("parallelism", 10)),
            lock=a.value("lock", True), lock_timeout=a.value("lock-timeout", 0.0), state_path=a.value("state", None),
            hooks=[self.json_view.hook] if self.json_view is not None else [] if a.value("json", False) else
            [self._progress_hook()], view=CLIView(self, a),
            dry_run=bool(a.value("dry-run", False)), **kw)

    def _progress_hook(self) -> Any:
        from .cliview import CLIHook

        hook = CLIHook(self.out, self.stdout)
        self._progress.append(hook)
        return hook

    def context(self, a: Args, req: Any = None) -> Any:
        from tfconsole.operations import new_context

        ctx = new_context(req if req is not None else self.request(a))
        self._contexts.append(ctx)
        return ctx

    def load(self, ctx: Any, *, backend: bool = True, init_style: bool = False) -> bool:
        """Load the configuration (and refuse a backend tfconsole does not have, unless
        backend=False: init -backend=false); False after reporting problems."""
        from tfconsole.backends import check_backend

        d = ctx.load_config()
        if backend:
            d.append(check_backend(ctx.backend_root(), init=init_style))
        if backend and not init_style and not d.has_errors:
            from tfconsole.providers.preflight import check_before_operation

            d.append(check_before_operation(ctx.opts.working_dir, ctx.config))
        if ctx.config is not None:
            self.files = {k: v for m in ctx.config.descendants() for k, v in m.files.items()}
        else:
            self._collect_files_for_diags()
        self.diags(d)
        return not d.has_errors

    def open_plan(self, ctx: Any, path: str) -> Any:
        """Read a plan file and load its configuration snapshot into ctx; None after reporting."""
        from tfconsole.plans.planfile import load_plan, load_plan_config

        plan, d = load_plan(path)
        if plan is None:
            self.diags(d)
            return None
        d = load_plan_config(ctx, plan, ".")
        if ctx.config is not None:
            self.files = {k: v for m in ctx.config.descendants() for k, v in m.files.items()}
        self.diags(d)
        return None if d.has_errors else plan

    def _collect_files_for_diags(self) -> None:
        for n in os.listdir("."):
            if n.endswith(".tf"):
                try:
                    self.files[n] = open(n, encoding="utf-8", errors="replace").read()
                except OSError:
                    pass

    def manager(self, ctx: Any, a: Args, operation: str, lock: bool = True) -> Any:
        from tfconsole.backends import UnavailableBackend, backend_for

        backend = backend_for(ctx)
        ctx.opts.workspace = backend.current_workspace()
        if isinstance(backend, UnavailableBackend) and not self.files:
            self._collect_files_for_diags()  # the error quotes the backend block
        mgr = backend.state_manager(lock=lock and a.value("lock", True), lock_timeout=a.value("lock-timeout", 0.0),
                                    operation=operation)
        mgr.on_lock_wait = lambda: self.out("Acquiring state lock. This may take a few moments...")
        return mgr

    def instance_arg(self, a: Args, nargs: int, usage: str) -> Any:
        """The resource instance address a command takes first; None after reporting a problem."""
        from tfconsole.addrs import AddressError, parse_instance

        if len(a.pos) != nargs:
            self.stderr.write(usage + "\n")
            return None
        try:
            return parse_instance(a.pos[0])
        except AddressError as exc:
            self.stderr.write(f"╷\n│ Error: Invalid address\n│\n│ {a.pos[0]}: {exc}\n╵\n")
            return None

    def read_state(self, ctx: Any, a: Args, operation: str, required: bool = False) -> Any:
        """The current state for a read-only command (no lock); None after reporting a problem.
        required: the `state` subcommands, which refuse a workspace with no state at all, as
        Terraform's do."""
        state, ok = self.load_state(self.manager(ctx, a, operation, lock=False), empty=not required)
        if ok and state is None:
            self.stderr.write(NO_STATE)
        return state if ok else None

    def load_state(self, mgr: Any, empty: bool = True) -> tuple[Any, bool]:
        """(state, True), or (None, False) after reporting a problem; a workspace with no state
        yet gives an empty one, or None when not empty."""
        from tfconsole.states.state import State

        st, d = mgr.load()
        self.diags(d, warnings_to_stderr=True)
        if d.has_errors:
            return None, False
        if not empty and not getattr(mgr, "found", True) and st is not None and not (st.resources or st.outputs):
            return None, True  # nothing was there (and no journal left anything)
        return st or State(), True

    def decoder(self) -> Callable:
        from .views import state_decoder

        return state_decoder(self._schema_session())

    def block_finder(self) -> Callable:
        """blocks(addr, provider): the nested blocks `show` draws as blocks."""
        from .views import state_shapes

        return state_shapes(self._schema_session())

    def _schema_session(self) -> Any:
        session = getattr(self, "_session", None)
        if session is None:
            from tfconsole.providers.registry import ProviderSession

            session = self._session = ProviderSession(".")
            self._contexts.append(session)  # closed with the command
        return session

    # ------------------------------------------------------------------ commands
    def cmd_version(self, a: Args) -> int:
        from .init import run_version

        return run_version(self, a)

    def cmd_providers(self, a: Args) -> int:
        from .init import run_providers

        return run_providers(self, a)

    def cmd_get(self, a: Args) -> int:
        from .modules import run_get

        return run_get(self, a)

    def cmd_modules(self, a: Args) -> int:
        from .modules import run_modules

        return run_modules(self, a)

    def cmd_providers_schema(self, a: Args) -> int:
        from .init import run_providers_schema

        return run_providers_schema(self, a)

    def cmd_help(self, a: Args) -> int:
        """Terraform's top-level help, listing the commands tfconsole has (and `ui`, its own)."""
        def rows(names: tuple[str, ...]) -> str:
            return "".join(f"  {n:<13} {HELP_SUMMARIES[n]}\n" for n in names)

        self.out("Usage: tfconsole [global options] <subcommand> [args]\n\n"
                 "The available commands for execution are listed below.\n"
                 "The primary workflow commands are given first, followed by\n"
                 "less common or more advanced commands.\n\n"
                 f"Main commands:\n{rows(MAIN_COMMANDS)}\nAll other commands:\n"
                 f"{rows(tuple(sorted(set(HELP_SUMMARIES) - set(MAIN_COMMANDS))))}\n"
                 "Global options (use these before the subcommand, if any):\n"
                 "  -chdir=DIR    Switch to a different working directory before executing the\n"
                 "                given subcommand.\n"
                 "  -help         Show this help output or the help for a specified subcommand.\n"
                 "  -version      An alias for the \"version\" subcommand.")
        return 0

    def raw_fmt(self, argv: list[str]) -> int:
        from .fmt import FmtCommand

        return FmtCommand(self.stdout, self.stderr).run(argv)

    def raw_console(self, argv: list[str]) -> int:
        from .console import ConsoleCommand

        return ConsoleCommand(self).run(argv)

    def cmd_init(self, a: Args) -> int:
        from .init import run_init

        return run_init(self, a)

    def cmd_validate(self, a: Args) -> int:
        ctx = self.context(a)
        if not self.load(ctx, init_style=True):
            return 1
        from tfconsole.backends import backend_for

        ctx.opts.workspace = backend_for(ctx).current_workspace()  # terraform.workspace while validating
        d = ctx.validate()
        if a.bool("json"):
            from .diagjson import diagnostic_json

            self.out(json.dumps({
                "format_version": "1.0", "valid": not d.has_errors, "error_count": len(d.errors()),
                "warning_count": len(d.warnings()), "diagnostics": [diagnostic_json(x, self.files) for x in d]},
                indent=2, ensure_ascii=False))
            return 1 if d.has_errors else 0
        self.diags(d)
        if d.has_errors:
            return 1
        self.out("Success! The configuration is valid.\n")
        return 0

    def _plan_request(self, a: Args, **kw: Any) -> Any:
        return self.request(a, destroy=a.bool("destroy"), refresh_only=a.bool("refresh-only"),
                            refresh=a.bool("refresh", True), targets=a.all("target"), replace=a.all("replace"),
                            excludes=a.all("exclude"), **kw)

    def cmd_plan(self, a: Args) -> int:
        from tfconsole import operations

        if a.bool("json"):
            from . import jsonops

            return jsonops.plan(self, a)
        req = self._plan_request(a, generate_config_out=a.get("generate-config-out") or "")
        req.context = self.context(a, req)
        res = operations.plan(req)
        if not res.ok:
            return 1
        plan = res.plan
        out = a.get("out")
        for w in res.generated_config_warnings:  # under the plan, as Terraform shows it
            from .views import format_diagnostic

            self.out(format_diagnostic(w, self.files, color=self.color))
        if out:
            from tfconsole.plans.planfile import write_plan

            wd = write_plan(plan, out)
            self.diags(wd)
            if wd.has_errors:
                return 1
        self._plan_next_step(plan, out, res.generated_config_file)
        if a.bool("detailed-exitcode"):
            return 2 if plan.has_changes() else 0
        return 0

    def _plan_next_step(self, plan: Any, out: str | None, generated: str) -> None:
        """What to do next, after a plan with changes (Terraform's PlanNextStep; nothing with
        TF_IN_AUTOMATION set)."""
        if os.environ.get("TF_IN_AUTOMATION") or not plan.has_changes():
            return
        self.out("\n" + "─" * 77)
        if generated:
            import textwrap

            self.out("\n" + textwrap.fill(f"tfconsole has generated configuration and written it to {generated}. "
                                          "Please review the configuration and edit it as necessary before adding "
                                          "it to version control.", 78))
        if out:
            self.out(f"\nSaved the plan to: {out}\n\nTo perform exactly these actions, run the following command "
                     f"to apply:\n    tfconsole apply \"{out}\"")
        else:
            self.out("\nNote: You didn't use the -out option to save this plan, so tfconsole can't\nguarantee to "
                     "take exactly these actions if you run \"tfconsole apply\" now.")

    def cmd_apply(self, a: Args, destroy: bool = False) -> int:
        from tfconsole import operations

        if a.bool("json"):
            from . import jsonops

            return jsonops.apply(self, a, destroy=destroy)
        req = self._plan_request(a)
        req.destroy = req.destroy or destroy
        req.context = self.context(a, req)
        planfile = a.pos[0] if a.pos else None
        if planfile:
            req.plan = self.open_plan(req.context, planfile)
            if req.plan is None:
                return 1
        else:
            req.view.hold_plan_warnings()
        res = operations.apply(req)
        req.view.release_held()
        if not res.ok:
            if res.declined and req.view.answered_no:
                self.out("\nApply cancelled.")
            return 1
        plan = res.plan
        if not planfile and not plan.has_changes() and not plan.refresh_only:
            self._print_outputs(res.state)
            return 0
        add, change, dest = plan.summary()
        if plan.destroy:
            self.out(f"\nDestroy complete! Resources: {dest} destroyed.")
        else:
            imp = plan.imports()
            self.out(f"\nApply complete! Resources: {f'{imp} imported, ' if imp else ''}{add} added, {change} changed, "
                     f"{dest} destroyed.")
        self._print_outputs(res.state)
        return 0

    def _print_outputs(self, state: Any) -> None:
        from .views import format_output_value

        if not state.outputs:
            return
        self.out("\nOutputs:\n")
        for name, o in sorted(state.outputs.items()):
            val = "<sensitive>" if o.sensitive else format_output_value(o.value, o.type)
            self.out(f"{name} = {val}")

    def cmd_destroy(self, a: Args) -> int:
        for flag, detail in (("destroy", "The -destroy option is not valid for \"tfconsole destroy\", because this "
                              "command always runs in destroy mode."),
                             ("refresh-only", "The -refresh-only option is not valid for \"tfconsole destroy\".")):
            if a.bool(flag):
                d = Diagnostics()
                d.error("Invalid mode option", detail)
                self.diags(d)
                return 1
        return self.cmd_apply(a, destroy=True)

    def cmd_state(self, a: Args) -> int:
        self.stderr.write(usage(COMMANDS["state"]))
        return 1

    def cmd_workspace(self, a: Args) -> int:
        self.stderr.write(usage(COMMANDS["workspace"]))
        return 1

    def cmd_refresh(self, a: Args) -> int:
        a.set("refresh-only", True)
        a.set("auto-approve", True)
        if a.bool("json"):
            from . import jsonops

            return jsonops.apply(self, a, refresh=True)
        return self.cmd_apply(a)

    def cmd_show(self, a: Args) -> int:
        from .views import state_json

        ctx = self.context(a)
        if a.pos:
            return self._show_file(a, a.pos[0])
        state = self.read_state(ctx, a, "OperationTypeShow")
        if state is None:
            return 1
        if a.bool("json"):
            self.out(dumps_json(state_json(state, self.decoder()), separators=(",", ":")))
            return 0
        self._show_state(state)
        return 0

    def _show_state(self, state: Any) -> None:
        from .views import render_state_instance

        if state.is_empty() and not state.outputs:
            self.out("No state.")
            return
        from tfconsole.addrs import key_str

        decode, blocks = self.decoder(), self.block_finder()
        # Terraform's order: the root module's resources, then each child module's, depth
        # first; a module after the first to print starts with one more blank line
        shown = sorted(((tuple((n, key_str(k)) for n, k in addr.module.steps), str(addr.resource), addr, inst)
                        for addr, inst in state.all_instances() if inst.current is not None),
                       key=lambda x: (x[0], x[1]))
        module = None
        for i, (steps, _, addr, inst) in enumerate(shown):
            if i:
                self.out("" if steps == module else "\n")
            module = steps
            rs = state.resources[addr.abs_resource()]
            v = decode(addr, rs.provider, inst.current)
            self.out(render_state_instance(addr, v, shape=blocks(addr, rs.provider)))
        if state.outputs:
            self.out("")
        self._print_state_outputs(state)

    def _print_state_outputs(self, state: Any) -> None:
        """`show`'s outputs: drawn as the plan draws values (not as `output` prints them)."""
        from tfconsole.lang.types import type_from_json
        from tfconsole.lang.values import from_json_typed

        from .views import render_value

        if not state.outputs:
            return
        self.out("\nOutputs:\n")
        for name, o in sorted(state.outputs.items()):
            if o.sensitive:
                val = "(sensitive value)"
            else:
                try:
                    val = render_value(from_json_typed(o.value, type_from_json(o.type)), 0, plain=True)
                except (ValueError, TypeError):  # a type that does not fit its value: shown as stored
                    val = render_value(o.value, 0, plain=True)
            self.out(f"{name} = {val}")

    def _show_file(self, a: Args, path: str) -> int:
        """show PLANFILE (or a state file, as Terraform also accepts)."""
        from tfconsole.plans.planfile import PlanFileError, read_plan
        from tfconsole.states.statefile import read_state

        from .views import render_plan, state_json

        try:
            plan = read_plan(path)
        except PlanFileError as exc:
            plan_err = str(exc)
            state, sd = read_state(_read_bounded(path))
            if state is None or sd.has_errors:
                why = f"{sd.errors()[0].summary}: {sd.errors()[0].detail}" if sd.has_errors else "no state"
                d = Diagnostics()
                d.error("Failed to read the given file as a state or plan file",
                        f"State read error: {why}\n\nPlan read error: {plan_err}")
                self.diags(d)
                return 1
            if a.bool("json"):
                self.out(dumps_json(state_json(state, self.decoder()), separators=(",", ":")))
            else:
                self._show_state(state)
            return 0
        if a.bool("json"):
            from tfconsole.providers.registry import ProviderSession

            from .jsonplan import show_plan_json
            from .views import state_decoder

            session = ProviderSession(".")
            self._contexts.append(session)  # closed with the command
            doc = show_plan_json(plan, state_decoder(session), session)
            self.out(dumps_json(doc, separators=(",", ":")))
        else:
            self.out(render_plan(plan, warnings=False).rstrip("\n"))  # show ends at the last line, unlike plan
        return 0

    def _argument_error(self, a: Args, summary: str, detail: str) -> int:
        """A command's own check of its arguments failed: the diagnostic and the pointer to -help."""
        self.diags(Diagnostics().error(summary, detail))
        self.stderr.write(help_hint(a.command))
        return 1

    def cmd_output(self, a: Args) -> int:
        ctx = self.context(a)
        state = self.read_state(ctx, a, "OperationTypeOutput")
        if state is None:
            return 1
        mode = "json" if a.bool("json") else "raw" if a.bool("raw") else "human"
        name = a.pos[0] if a.pos else ""
        if a.bool("json") and a.bool("raw"):
            return self._argument_error(a, "Invalid output format", "The -raw and -json options are mutually-exclusive.")
        if mode == "raw" and not name:
            return self._argument_error(a, "Output name required", "You must give the name of a single output value "
                                        "when using the -raw option.")
        value, d = _output_text(state, name, mode)
        # -json and -raw drop warnings: a script reading standard output must not see them
        self.diags(d if mode == "human" else Diagnostics(d.errors()))
        if value is not None:
            self.stdout.write(value)
        return 1 if d.has_errors else 0

    def cmd_graph(self, a: Args) -> int:
        from .graphviz import to_dot

        if a.value("format") != "dot":
            self.stderr.write(f"Unsupported graph format: {a.value('format')}\n")
            return 1
        ctx = self.context(a)
        kind = a.get("type", "") or ""
        planfile = a.get("plan")
        if planfile:
            plan = self.open_plan(ctx, planfile)
            if plan is None:
                return 1
            g, d = ctx.graph("apply", plan.prior_state, plan)
            self.diags(d)
            self.out(to_dot(g, full=True))
            return 0 if not d.has_errors else 1
        if not self.load(ctx):
            return 1
        state = self.read_state(ctx, a, "OperationTypeGraph")
        if state is None:
            return 1
        gkind = {"plan": "plan", "plan-destroy": "plan-destroy", "apply": "plan", "validate": "validate",
                 "": "plan"}.get(kind, "plan")
        g, d = ctx.graph(gkind, state)
        self.diags(d)
        if d.has_errors:
            return 1
        self.out(to_dot(g, full=bool(kind)))
        return 0

    # ---- state
    def cmd_state_list(self, a: Args) -> int:
        ctx = self.context(a)
        state = self.read_state(ctx, a, "OperationTypeStateList", required=True)
        if state is None:
            return 1
        addrs = sorted((addr for addr, inst in state.all_instances() if inst.current is not None),
                       key=lambda x: (str(x.module), x.resource.mode != "data", x.resource.type, x.resource.name,
                                      _kk(x.key)))
        want_id = a.get("id")
        for addr in addrs:
            s = str(addr)
            if want_id is not None and (state.current(addr).attributes or {}).get("id") != want_id:
                continue
            if a.pos and not any(s == p or s.startswith(p + ".") or s.startswith(p + "[") for p in a.pos):
                continue
            self.out(s)
        return 0

    def cmd_state_show(self, a: Args) -> int:
        from .views import render_state_instance

        addr = self.instance_arg(a, 1, "Exactly one argument expected: the address of a resource instance.")
        if addr is None:
            return 1
        ctx = self.context(a)
        state = self.read_state(ctx, a, "OperationTypeStateShow", required=True)
        if state is None:
            return 1
        obj = state.current(addr)
        if obj is None:
            self.stderr.write("No instance found for the given address!\n\nThis command requires that the address "
                              "references one specific instance.\n")
            return 1
        rs = state.resources[addr.abs_resource()]
        v = self.decoder()(addr, rs.provider, obj)
        self.out(render_state_instance(addr, v, shape=self.block_finder()(addr, rs.provider)))
        return 0

    def _edited(self, res: Any) -> int:
        """A state edit's outcome: its report once the state is written (or for -dry-run)."""
        if res.failed_phase == "no state":
            self.stderr.write(NO_STATE)
        if not res.ok:
            return 1
        for line in res.report:
            self.out(line)
        return 0

    def cmd_state_rm(self, a: Args) -> int:
        from tfconsole import operations

        return self._edited(operations.state_rm(self.request(a), list(a.pos)))

    def cmd_state_mv(self, a: Args) -> int:
        from tfconsole import operations

        return self._edited(operations.state_mv(self.request(a), a.pos[0], a.pos[1]))

    def cmd_state_replace_provider(self, a: Args) -> int:
        from .replace_provider import run

        return run(self, a)

    def cmd_state_pull(self, a: Args) -> int:
        from tfconsole.states.statefile import write_state

        ctx = self.context(a)
        state, ok = self.load_state(self.manager(ctx, a, "OperationTypeStatePull", lock=False), empty=False)
        if not ok:
            return 1
        if state is not None:  # a workspace without state prints nothing, as Terraform's does
            self.stdout.write(write_state(state))
        return 0

    def cmd_state_push(self, a: Args) -> int:
        from tfconsole.states.statefile import read_state

        text = sys.stdin.read() if a.pos[0] == "-" else None
        new, d = read_state(text if text is not None else a.pos[0])
        self.diags(d)
        if d.has_errors or new is None:
            return 1
        from tfconsole import operations

        return self._edited(operations.state_push(self.request(a), new, force=a.bool("force")))

    def _taint(self, a: Args, status: str) -> int:
        from tfconsole import operations

        edit = operations.taint if status == "tainted" else operations.untaint
        return self._edited(edit(self.request(a), a.pos[0], allow_missing=a.bool("allow-missing")))

    def cmd_import(self, a: Args) -> int:
        """tfconsole import ADDR ID: the import operation reads the object through its provider."""
        from tfconsole import operations

        req = self.request(a)
        req.context = self.context(a, req)
        res = operations.import_resource(req, a.pos[0], a.pos[1])
        if not res.ok:
            return 1
        from tfconsole.addrs import parse_instance

        addr = parse_instance(a.pos[0])
        self.out(f"{addr}: Import prepared!\n  Prepared {addr.resource.type} for import\n{addr}: Refreshing "
                 f"state...\n\nImport successful!\n\nThe resources that were imported are shown above. These "
                 "resources are now in\nyour Terraform state and will henceforth be managed by Terraform.")
        return 0

    def cmd_taint(self, a: Args) -> int:
        return self._taint(a, "tainted")

    def cmd_untaint(self, a: Args) -> int:
        return self._taint(a, "ready")

    # ---- workspaces
    def _backend(self, a: Args) -> Any:
        from tfconsole import operations

        b, d = operations.open_backend(self.request(a))
        if b is None:
            self._failed_backend(d)
        return b

    def _failed_backend(self, d: Diagnostics) -> None:
        self._collect_files_for_diags()  # the error quotes the backend block
        self.diags(d)

    def _workspace(self, res: Any) -> bool:
        """Report a workspace operation's problems; True when it succeeded."""
        if res.failed_phase == "backend":
            self._failed_backend(res.diags)
        else:
            self.diags(res.diags)
        return res.ok

    def cmd_force_unlock(self, a: Args) -> int:
        """force-unlock LOCK_ID [-force]: the backend decides (see LocalBackend.force_unlock)."""
        if len(a.pos) != 1:
            self.stdout.write(usage(COMMANDS["force-unlock"]))
            self.stderr.write("Expected a single argument: LOCK_ID\n")
            return 1
        b = self._backend(a)
        if b is None:
            return 1
        err = b.force_unlock(a.pos[0], force=a.bool("force"))
        if err:
            self.stderr.write(err + "\n")
            return 1
        self.out("Terraform state has been successfully unlocked!\n\n"
                 "The state has been unlocked, and Terraform commands should now be able to\n"
                 "obtain a new lock on the remote state.")
        return 0

    def _one_name(self, a: Args) -> bool:
        """workspace new/select/delete take exactly one NAME; otherwise, like Terraform's, the
        usage text and one line."""
        if len(a.pos) == 1:
            return True
        self.stdout.write(usage(a.command))
        self.stderr.write("Expected a single argument: NAME.\n\n")
        return False

    def cmd_workspace_list(self, a: Args) -> int:
        from tfconsole import operations
        from tfconsole.backends import local as L

        if a.pos:
            self.stderr.write("Too many command line arguments. Did you mean to use -chdir?\n")
            return 1

        res = operations.workspace_list(self.request(a))
        if not self._workspace(res):
            return 1
        self.stdout.write(L.list_message(res.report, res.state))
        return 0

    def cmd_workspace_show(self, a: Args) -> int:
        from tfconsole import operations

        res = operations.workspace_current(self.request(a))
        if not self._workspace(res):
            return 1
        self.out(res.state)
        return 0

    def cmd_workspace_new(self, a: Args) -> int:
        from tfconsole import operations
        from tfconsole.backends import local as L

        if not self._one_name(a):
            return 1
        if not self._workspace(operations.workspace_new(self.request(a), a.pos[0])):
            return 1
        self.out(L.created_message(a.pos[0]))
        return 0

    def cmd_workspace_select(self, a: Args) -> int:
        from tfconsole import operations
        from tfconsole.backends import local as L

        if not self._one_name(a):
            return 1
        res = operations.workspace_select(self.request(a), a.pos[0], or_create=a.bool("or-create"))
        if not self._workspace(res):
            return 1
        self.out(L.created_message(a.pos[0]) if res.report else L.switched_message(a.pos[0]))
        return 0

    def cmd_workspace_delete(self, a: Args) -> int:
        from tfconsole import operations
        from tfconsole.backends import local as L

        if not self._one_name(a):
            return 1
        res = operations.workspace_delete(self.request(a), a.pos[0], force=a.bool("force"))
        if not self._workspace(res):
            return 1
        self.out(L.deleted_message(a.pos[0], bool(res.report)))
        return 0

    # ---- the console
    def cmd_ui(self, a: Args) -> int:
        # a directory without .tf files: the console says so and offers the demo (never silently
        # acts on another directory)
        target = "."
        from tfconsole.backends import UnavailableBackend, backend_for
        from tfconsole.core import Context, Options

        b = backend_for(Context(Options(working_dir=target)))
        if isinstance(b, UnavailableBackend):
            self._collect_files_for_diags()
            self.diags(b.diags)
            return 1
        try:
            from tfconsole.tui.app import run_app
        except ImportError as exc:
            self.stderr.write(f"Error: the console is not available: {exc}\n")
            return 1
        return run_app(target, a)


def _kk(k: Any) -> tuple:
    if k is None:
        return (0, 0, "")
    if isinstance(k, int):
        return (1, k, "")
    return (2, 0, k)


def _read_bounded(path: str) -> bytes:
    """A file's bytes for trying it as a state file: at most a plan document's limit."""
    from tfconsole.plans.planfile import MAX_DOCUMENT_BYTES

    try:
        with open(path, "rb") as fh:
            return fh.read(MAX_DOCUMENT_BYTES)
    except OSError:
        return b""


def _tune_gc() -> None:
    """A CLI run is one short-lived process whose large values (state, plan, instance values)
    are acyclic and freed by reference counting; the cyclic collector's default thresholds
    make it rescan the whole growing heap again and again (a third of a 20,000-instance plan).
    Collect young objects rarely and old ones almost never."""
    import gc

    gc.set_threshold(100_000, 50, 100)


def _output_text(state: Any, name: str, mode: str) -> tuple[str | None, Diagnostics]:
    """What `output [-json|-raw] [NAME]` prints, by Terraform's rules: for text and -raw an
    empty set of outputs is a warning before anything else; -raw prints one string, number or
    bool as is, without a newline."""
    from tfconsole.lang.types import type_from_json
    from tfconsole.states.statefile import go_escapes

    from .views import format_output_value, outputs_json

    d, outputs = Diagnostics(), state.outputs
    if mode != "json" and not outputs:
        return None, d.warning("No outputs found", NO_OUTPUTS)
    if mode == "json" and not name:
        return go_escapes(dumps_json(outputs_json(state), indent=2, ensure_ascii=False)) + "\n", d
    o = outputs.get(name) if name else None
    if name and o is None:
        return None, d.error(f"Output \"{name}\" not found", MISSING_OUTPUT)
    if o is None:
        return "".join(f"{k} = {'<sensitive>' if v.sensitive else format_output_value(v.value, v.type)}\n"
                       for k, v in sorted(outputs.items())), d
    if mode == "json":
        return go_escapes(dumps_json(o.value, separators=(",", ":"), ensure_ascii=False)) + "\n", d
    if mode == "human":
        return format_output_value(o.value, o.type) + "\n", d
    if o.value is None:
        return None, d.error("Unsupported value for raw output", f"The value for output value \"{name}\" is null, "
                             "so -raw mode cannot print it.")
    if isinstance(o.value, (str, int, float, bool, Decimal)):
        return o.value if isinstance(o.value, str) else dumps_json(o.value), d
    return None, d.error("Unsupported value for raw output", f"The -raw option only supports strings, numbers, and "
                         f"boolean values, but output value \"{name}\" is {type_from_json(o.type).friendly()}.\n\n"
                         "Use the -json option for machine-readable representations of output values that have "
                         "complex types.")


NO_OUTPUTS = ("The state file either has no outputs defined, or all the defined outputs are empty. Please define "
              "an output in your configuration with the `output` keyword and run `terraform refresh` for it to "
              "become available. If you are using interpolation, please verify the interpolated value is not "
              "empty. You can use the `terraform console` command to assist.")
MISSING_OUTPUT = ("The output variable requested could not be found in the state file. If you recently added this "
                  "to your configuration, be sure to run `terraform apply`, since the state won't be updated with "
                  "new output variables until that command is run.")
NO_STATE = ("No state file was found!\n\nState management commands require a state file. Run this command\n"
            "in a directory where Terraform has been run or use the -state flag\nto point the command to a "
            "specific state location.\n")

RAW_COMMANDS: dict[str, Callable[[CLI, list[str]], int]] = {"fmt": CLI.raw_fmt, "console": CLI.raw_console}

# `tfconsole -help`: Terraform's summary line of each command tfconsole has, plus its own `ui`
MAIN_COMMANDS = ("init", "validate", "plan", "apply", "destroy", "ui")
HELP_SUMMARIES = {
    "init": "Prepare your working directory for other commands",
    "validate": "Check whether the configuration is valid",
    "plan": "Show changes required by the current configuration",
    "apply": "Create or update infrastructure",
    "destroy": "Destroy previously-created infrastructure",
    "ui": "Open the operations console (the default without a command)",
    "console": "Try Terraform expressions at an interactive command prompt",
    "fmt": "Reformat your configuration in the standard style",
    "force-unlock": "Release a stuck lock on the current workspace",
    "get": "Install or upgrade remote Terraform modules",
    "graph": "Generate a Graphviz graph of the steps in an operation",
    "import": "Associate existing infrastructure with a Terraform resource",
    "modules": "Show all declared modules in a working directory",
    "output": "Show output values from your root module",
    "providers": "Show the providers required for this configuration",
    "refresh": "Update the state to match remote systems",
    "show": "Show the current state or a saved plan",
    "state": "Advanced state management",
    "taint": "Mark a resource instance as not fully functional",
    "untaint": "Remove the 'tainted' state from a resource instance",
    "version": "Show the current Terraform version",
    "workspace": "Workspace management",
}


def main(argv: list[str] | None = None) -> int:
    rc = _main(argv)
    if argv is None:
        _leave_heap_alone()
    return rc


def _leave_heap_alone() -> None:
    """The program is about to exit: freeze the heap so the interpreter's last cyclic collection
    skips it. That collection walks every object still alive (a 2,000-instance plan: 100,000
    objects, 0.2 s CPU, a sixth of the command) only to free memory the exit returns anyway.
    Exit handlers, stream flushes and the rest of a normal exit still run. Only for the program
    itself (argv from sys.argv): a caller that runs main() in its own process keeps collecting."""
    import gc

    gc.freeze()


def _main(argv: list[str] | None) -> int:
    _tune_gc()
    cli = CLI()
    cli.program = argv is None
    cli.interrupts.install()
    try:
        return cli.run(list(sys.argv[1:] if argv is None else argv))
    except KeyboardInterrupt:
        sys.stderr.write("\nInterrupted.\n")
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:  # noqa: BLE001 - last line of defence: a bug, reported without a traceback
        from .crashlog import record

        argv_ = list(sys.argv[1:] if argv is None else argv)
        command = next((x for x in argv_ if not x.startswith("-")), "ui")
        command = command if command in COMMANDS or command in RAW_COMMANDS else "(unknown)"  # never an argument: it could be a secret
        log = record(exc, command)
        where = f"The details were written to {log}." if log else "The details could not be written to a log."
        # the exception's message is not shown: it may quote a sensitive value
        sys.stderr.write(f"╷\n│ Error: Internal error\n│\n│ tfconsole hit a bug ({type(exc).__name__}). {where}\n╵\n")
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
