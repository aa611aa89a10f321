"""`tfconsole console`: evaluate expressions against the state and configuration.

As Terraform's console: with standard input piped, every line is evaluated in turn, the first
error is reported and ends the run (exit 1), `exit` ends it quietly, and the last line's value
is printed at the end; at a terminal, each value is printed as it is entered and errors do not
end the session. `-plan` evaluates against a fresh plan instead of the current state; `-var`,
`-var-file` and `-state` work as for plan. Values are rendered as Terraform's console renders
them (`format_value`).
"""
from __future__ import annotations

import sys
from typing import IO, Any

from tfconsole.diags import Diagnostics
from tfconsole.lang.types import DynamicType, ListType, MapType, ObjectType, SetType, TupleType, Type
from tfconsole.lang.values import SENSITIVE, Null, TList, TMap, TSet, Unknown, format_number, type_of, unmark

from .diagview import Located, render, terraform_order
from .fmt import write_text
from .goflags import Flag, FlagError, parse, wants_help

# The command's flags, in the form main.py's per-command declarations take.
FLAGS = (
    Flag("state", "string", ""),
    Flag("plan", "bool", False),
    Flag("var", "list"),
    Flag("var-file", "list"),
    Flag("input", "bool", True),
    Flag("compact-warnings", "bool", False),
    Flag("target", "list"),
)

FILENAME = "<console-input>"

USAGE = """\
Usage: tfconsole [global options] console [options]

  Evaluates expressions against the current configuration and state, one per
  line. With standard input piped, the value of the last line is printed; at a
  terminal, each value is printed as it is entered. The state is never changed.

Options:

  -state=path       The state file to read (local backend only).
  -plan             Evaluate against a new plan (as "tfconsole plan" would make)
                    instead of the current state.
  -var 'foo=bar'    Set a variable; can be repeated.
  -var-file=foo     Set variables from a file; terraform.tfvars and *.auto.tfvars
                    are read automatically."""

HELP_TEXT = """\
The console evaluates expressions of the Terraform language against the
current configuration and state: write references (var.name, local.name,
module.name.output, aws_instance.web.id), function calls or any other
expression and press <enter> to see its value.

Type "exit" and press <enter>, or press Control-C or Control-D, to leave."""


# ---------------------------------------------------------------------------
# rendering


def format_value(v: Any, indent: int = 0) -> str:
    """A value as Terraform's console prints it."""
    inner, marked = unmark(v)
    t = type(inner)
    if t is Unknown:
        return "(known after apply)"
    if marked:
        return "(sensitive value)" if marked & SENSITIVE else "(ephemeral value)"
    if inner is None:
        return "null"
    if t is Null:
        return _typed_null(inner.type)
    if t is str:
        return _multiline(inner, indent) or go_quote(inner)
    if t is bool:
        return "true" if inner else "false"
    if t is TList:
        return f"tolist({_sequence(inner, indent)})"
    if t is TSet:
        return f"toset({_sequence(inner, indent)})"
    if t is TMap:
        return f"tomap({_mapping(inner, indent)})"
    if isinstance(inner, dict):
        return _mapping(inner, indent)
    if isinstance(inner, list):
        return _sequence(inner, indent)
    return format_number(inner)


def _typed_null(ty: Type) -> str:
    if isinstance(ty, DynamicType):
        return "null"
    names = {"string": "tostring(null)", "number": "tonumber(null)", "bool": "tobool(null)"}
    if ty.is_primitive():
        return names[ty.friendly()]
    for cls, fn in ((ListType, "tolist"), (SetType, "toset"), (MapType, "tomap")):
        if isinstance(ty, cls):
            return f"{fn}(null) /* of {ty.elem.friendly()} */"  # type: ignore[attr-defined]
    return f"null /* {ty.friendly()} */"


def _multiline(s: str, indent: int) -> str | None:
    lines = s.split("\n")
    if len(lines) < 2:
        return None
    delimiter = "EOT"
    while any(line.strip() == delimiter for line in lines):
        delimiter += "_"
    pad = " " * indent
    body = "".join(f"\n{pad}{line}" for line in lines)
    return f"{'<<-' if indent else '<<'}{delimiter}{body}\n{pad}{delimiter}"


def _mapping(v: dict, indent: int) -> str:
    pad = " " * (indent + 2)
    items = "".join(f"\n{pad}{format_value(k, indent + 2)} = {format_value(v[k], indent + 2)}" for k in sorted(v))
    return "{" + items + ("\n" + " " * indent if v else "") + "}"


def _sequence(v: list, indent: int) -> str:
    pad = " " * (indent + 2)
    items = "".join(f"\n{pad}{format_value(x, indent + 2)}," for x in v)
    return "[" + items + ("\n" + " " * indent if v else "") + "]"


def go_quote(s: str) -> str:
    """Go's strconv.Quote."""
    from tfconsole.config.hclparse import _go_quote

    return _go_quote(s)


def format_type(ty: Type, indent: int = 0) -> str:
    """A type as the console's type() function shows it."""
    pad = "    " * (indent + 1)
    end = "    " * indent
    if isinstance(ty, ObjectType):
        if not ty.attrs:
            return "object({})"
        inner = "".join(f"{pad}{name}: {format_type(t, indent + 1)},\n" for name, t in ty.attrs)
        return "object({\n" + inner + end + "})"
    if isinstance(ty, TupleType):
        if not ty.elems:
            return "tuple([])"
        return "tuple([\n" + "".join(f"{pad}{format_type(t, indent + 1)},\n" for t in ty.elems) + end + "])"
    for cls, word in ((ListType, "list"), (MapType, "map"), (SetType, "set")):
        if isinstance(ty, cls):
            elem = ty.elem  # type: ignore[attr-defined]
            if isinstance(elem, (ObjectType, TupleType)):
                return f"{word}(\n{pad}{format_type(elem, indent + 1)},\n{end})"
            return f"{word}({format_type(elem, indent)})"
    return ty.friendly()


# ---------------------------------------------------------------------------
# the session


class Session:
    """Evaluates one console entry at a time against a scope."""

    def __init__(self, scope: Any) -> None:
        self.scope = scope
        scope.func_context().console = True  # the console-only functions (type) exist here

    def handle(self, line: str) -> tuple[str, bool, list[Located]]:
        """(output, exit requested, errors)"""
        text = line.strip()
        if not text:
            return "", False, []
        if text == "exit":
            return "", True, []
        if text == "help":
            return HELP_TEXT, False, []
        out, errors = self.evaluate(line)
        return out, False, errors

    def evaluate(self, line: str) -> tuple[str, list[Located]]:
        from tfconsole.config.hclparse import parse_expression
        from tfconsole.lang import ast as A
        from tfconsole.lang.eval import evaluate

        _, syntax = parse_expression(line.encode("utf-8", "surrogateescape"), FILENAME)
        if syntax:
            return "", [Located(d.summary, d.detail, d.subject, d.context) for d in syntax]
        try:
            expr = A.parse_expression(line, FILENAME)
        except A.ParseError as exc:
            return "", [Located("Invalid expression", exc.message, exc.range)]
        value, diags = evaluate(expr, self.scope)
        errors = _located(diags)
        if errors:
            return "", errors
        calls = [e for e in expr.walk() if isinstance(e, A.FunctionCall) and e.name == "type"]
        if calls:
            top = expr
            while isinstance(top, A.Parens):
                top = top.inner
            if top is not calls[0] or len(calls) > 1:
                return "", [Located("Invalid use of type function", "The console-only \"type\" function cannot "
                                    "be used as part of an expression.", None)]
            arg, diags = evaluate(calls[0].args[0], self.scope) if calls[0].args else (None, Diagnostics())
            return format_type(type_of(arg)), _located(diags)
        return format_value(value), []


def _located(diags: Diagnostics) -> list[Located]:
    return [Located(d.summary, d.detail, d.subject, None, function_call=d.function_call, values=d.values)
            for d in diags if d.is_error]


# ---------------------------------------------------------------------------
# the command


class ConsoleCommand:
    def __init__(self, cli: Any, stdin: IO[str] | None = None) -> None:
        self.cli = cli  # the CLI: output streams, configuration loading and its diagnostics view
        self.stdout = cli.stdout
        self.stderr = cli.stderr
        self.stdin = stdin or sys.stdin
        self.color = True

    def show(self, diags: list[Located]) -> None:
        for d in sorted(diags, key=terraform_order):
            write_text(self.stderr, render(d, {}, self.color) + "\n")

    def run(self, argv: list[str]) -> int:
        if wants_help(argv):
            self.stdout.write(USAGE + "\n")
            return 0
        self.color = "-no-color" not in argv
        try:
            opts, args, self.color = parse(argv, FLAGS)
        except FlagError as exc:
            self.show([Located("Failed to parse command-line flags", str(exc), None)])
            return 1
        if args:
            self.show([Located("Too many command line arguments", "The console command does not expect any "
                               "positional arguments. Did you mean to use -chdir?", None)])
            return 1
        return self.session(opts)

    def session(self, opts: dict[str, Any]) -> int:
        from tfconsole.core import Context, Options

        cli_vars = [(k, v) for k, v in opts["__order__"] if k in ("var", "var-file")]
        ctx = Context(Options(working_dir=".", cli_vars=cli_vars, state_path=opts["state"] or None))
        self.cli.color = self.color
        if not self.cli.load(ctx):
            return 1
        from tfconsole.backends import backend_for

        backend = backend_for(ctx)
        ctx.opts.workspace = backend.current_workspace()  # terraform.workspace in the expressions
        mgr = backend.state_manager(lock=True, lock_timeout=0.0, operation="console")
        d = mgr.lock()
        if d.has_errors:
            self.show_engine(d)
            return 1
        try:
            return self._with_state(ctx, mgr, opts)
        finally:
            mgr.unlock()

    def _with_state(self, ctx: Any, mgr: Any, opts: dict[str, Any]) -> int:
        from tfconsole.states.state import State
        from tfconsole.walk.evalscope import eval_scope, plan_scope

        state, d = mgr.load()
        loaded = Diagnostics().append(d)
        if d.has_errors:
            self.show_engine(loaded)
            return 1
        if opts["plan"]:
            # -target is accepted but, as in Terraform's console, does not narrow the plan
            scope, d = plan_scope(ctx, state or State())
        else:
            scope, d = eval_scope(ctx, state or State())
        loaded.append(d)
        if scope is None:
            self.show_engine(loaded)
            return 1
        self.show_engine(loaded)
        if loaded.has_errors:
            warning = Located("Due to the problems above, some expressions may produce unexpected results.", "",
                              None, error=False)
            write_text(self.stdout, render(warning, {}, self.color) + "\n")
        session = Session(scope)
        if self.stdin.isatty():
            return self.interactive(session)
        return self.piped(session)

    def show_engine(self, diags: Diagnostics) -> None:
        """Engine diagnostics (configuration, state, the eval walk) in the CLI's usual form."""
        self.cli.diags(diags)

    def piped(self, session: Session) -> int:
        last = ""
        lines = getattr(self.stdin, "buffer", None) or self.stdin
        for raw in lines:
            if isinstance(raw, bytes):
                raw = raw.decode("utf-8", "surrogateescape")
            out, done, errors = session.handle(raw.strip())
            if errors:
                self.show(errors)
                return 1
            if done:
                return 0
            last = out
        write_text(self.stdout, last + "\n")
        return 0

    def interactive(self, session: Session) -> int:
        try:
            import readline  # noqa: F401 - line editing and history for input()
        except ImportError:
            pass
        lines: list[str] = []
        while True:
            try:
                line = input(": " if lines else "> ")
            except EOFError:
                return 0
            except KeyboardInterrupt:
                if lines:
                    lines = []
                    self.stdout.write("(multi-line entry canceled)\n")
                    continue
                return 0
            lines.append(line)
            if entry_could_continue(lines):
                continue
            out, done, errors = session.handle("\n".join(lines) + "\n")
            lines = []
            if errors:
                self.show(errors)
            if done:
                return 0
            self.stdout.write(out + "\n")
            self.stdout.flush()


def entry_could_continue(lines: list[str]) -> bool:
    """Whether an interactive entry has unclosed brackets, so the next line continues it."""
    from tfconsole.config.hclparse import check_tokens
    from tfconsole.config.hclscan import Tok, scan

    if not lines or not lines[-1].strip():
        return False
    src = ("\n".join(lines) + "\n").encode()
    toks = scan(src, "")
    if check_tokens(toks, ""):
        return False
    openers = {Tok.OBRACE, Tok.OBRACK, Tok.OPAREN, Tok.OHEREDOC, Tok.TEMPLATE_INTERP, Tok.TEMPLATE_CONTROL}
    closes = {Tok.CBRACE: (Tok.OBRACE,), Tok.CBRACK: (Tok.OBRACK,), Tok.CPAREN: (Tok.OPAREN,),
              Tok.CHEREDOC: (Tok.OHEREDOC,), Tok.TEMPLATE_SEQ_END: (Tok.TEMPLATE_INTERP, Tok.TEMPLATE_CONTROL)}
    stack: list[Tok] = []
    for t in toks:
        if t.type in openers:
            stack.append(t.type)
        elif t.type in closes and (not stack or stack.pop() not in closes[t.type]):
            return False
    return bool(stack)
