"""Per-command flag declarations and a parser with Go's `flag` package semantics.

Every command declares its flags in COMMANDS (name, kind, help, status). Parsing follows Go's
flag package as Terraform uses it: `-name`, `--name`, `-name=value`, `-name value` (not for
booleans); flags end at the first argument that is not a flag, or at `--`; an undeclared flag is
"flag provided but not defined: -name"; a value of the wrong kind is an error, never a silent
default. `-help` / `-h` ask for the command's usage.

Status says what tfconsole does with a declared flag: SUPPORTED flags work; IGNORED flags are
accepted with no effect (each says why it has none in tfconsole); UNSUPPORTED flags are
Terraform's but not implemented yet, and are refused before the command changes anything.
Another part of tfconsole that implements one (a backend, plugin installation) calls
`declare(command, Flag(...))` or edits the table below to make it SUPPORTED.
"""
from __future__ import annotations

import re
from dataclasses import field, replace
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from enum import Enum
from typing import Any

from tfconsole.diags import Diagnostics


class Kind(Enum):
    BOOL = "bool"
    STRING = "string"
    INT = "int"
    DURATION = "duration"
    REPEATABLE = "repeatable"  # a string given any number of times, in order


class Status(Enum):
    SUPPORTED = "supported"
    IGNORED = "ignored"
    UNSUPPORTED = "unsupported"


@dataclass(frozen=True)
class Flag:
    name: str
    kind: Kind
    help: str
    default: Any = None
    status: Status = Status.SUPPORTED
    metavar: str = ""


@dataclass(frozen=True)
class Arity:
    """A command's own rule for its positional arguments and Terraform's words when they break
    it: (summary, detail) for too many and for too few (detail "" for a summary-only error).
    After a bad flag Terraform counts no positional arguments, so a command that needs some
    reports both errors."""

    min: int = 0
    max: int | None = None
    many: tuple[str, str] = ("Too many command line arguments", "")
    few: tuple[str, str] = ("Required argument missing", "")
    legacy: bool | None = None  # these errors in the older Ui's form (None: as the command's flag errors)
    usage: bool = False  # the usage text follows (`import`)


def _exactly(n: int, words: str, many: str = "Required argument missing") -> Arity:
    return Arity(n, n, (many, words), ("Required argument missing", words))


@dataclass(frozen=True)
class Command:
    name: str           # "plan", "state list"
    synopsis: str       # what follows the command name in the usage line
    summary: str        # one paragraph
    flags: tuple[Flag, ...] = ()
    max_args: int | None = None  # positional arguments allowed (None: any number)
    # Terraform's older commands report a bad flag as the usage text and one line,
    # "Error parsing command-line flags: ...", instead of a diagnostic
    legacy_flag_errors: bool = False
    # Terraform's commands that report through its older Ui: each diagnostic is followed by a
    # blank line, and a flag error has no pointer to -help
    legacy_ui: bool = False
    help_prompt: bool | None = None  # point at -help after an argument error (None: unless legacy_ui)
    arity: Arity | None = None  # the command's own positional rule, else max_args's generic one

    def prompts_help(self) -> bool:
        return (not self.legacy_ui) if self.help_prompt is None else self.help_prompt

    def flag(self, name: str) -> Flag | None:
        for f in self.flags:
            if f.name == name:
                return f
        return None


B, S, I, D, R = Kind.BOOL, Kind.STRING, Kind.INT, Kind.DURATION, Kind.REPEATABLE
IGN, UNS = Status.IGNORED, Status.UNSUPPORTED


def _f(name: str, kind: Kind, help: str, default: Any = None, status: Status = Status.SUPPORTED,
       metavar: str = "") -> Flag:
    return Flag(name, kind, help, default, status, metavar)


# ---- flag groups shared by several commands (Terraform's extendedFlagSet)

LOCK = (
    _f("lock", B, "Hold the state lock while the command runs (false: don't).", True),
    _f("lock-timeout", D, "How long to retry taking the state lock.", 0.0, metavar="DURATION"),
)
STATE = (
    *LOCK,
    _f("state", S, "Read (and write) this state file instead of the backend's.", metavar="PATH"),
    _f("state-out", S, "Write the updated state to this file.", status=UNS, metavar="PATH"),
    _f("backup", S, "Where to keep a backup of the state (\"-\" for none).", status=UNS, metavar="PATH"),
)
OPERATION = (
    _f("parallelism", I, "How many resource operations may run at once.", 10, metavar="N"),
    _f("refresh", B, "Read the current state of remote objects before planning.", True),
    _f("destroy", B, "Plan to destroy every object in the state.", False),
    _f("refresh-only", B, "Plan only to update the state to match remote objects.", False),
    _f("target", R, "Limit planning to this resource, module or instance (repeatable).", metavar="ADDR"),
    _f("replace", R, "Plan to replace this resource instance (repeatable).", metavar="ADDR"),
    _f("exclude", R, "Plan everything except this resource or module (repeatable).", metavar="ADDR"),
    _f("allow-deferral", B, "Allow deferring changes that cannot be planned yet.", False, UNS),
    _f("minimal-refresh", B, "Refresh only what the changes need.", False, UNS),
    _f("invoke", R, "Invoke this action (repeatable).", status=UNS, metavar="ADDR"),
)
VARS = (
    _f("var", R, "Set a root module input variable: -var 'name=value' (repeatable).", metavar="NAME=VALUE"),
    _f("var-file", R, "Load input variable values from this file (repeatable).", metavar="FILE"),
)
INPUT = _f("input", B, "Ask for missing input (tfconsole never prompts for variables).", True, IGN)
COMPACT = _f("compact-warnings", B, "Show warnings in a compact form.", False, IGN)
POLICIES = _f("policies", R, "Evaluate these policy files.", status=UNS, metavar="PATH")
JSON_UI = _f("json", B, "Machine-readable output (Terraform's JSON UI stream).", False)
REMOTE_VERSION = _f("ignore-remote-version", B, "Continue when the remote Terraform version differs "
                    "(tfconsole has only local state).", False, IGN)
DRY_RUN = _f("dry-run", B, "Show what would change, change nothing.", False)

_APPLY = (*STATE, *OPERATION, *VARS, INPUT, COMPACT, POLICIES, JSON_UI,
          _f("auto-approve", B, "Apply without asking for approval.", False))

_COMMANDS = [
    Command("init", "[options]", "Prepare the working directory: check the configuration, its providers and "
            "its backend.", (
                _f("backend", B, "Initialise the backend (false: skip its checks).", True),
                _f("cloud", B, "Same as -backend, for a cloud block.", True),
                _f("backend-config", R, "Backend configuration: a file or key=value (repeatable).",
                   metavar="PATH|KEY=VALUE"),
                _f("reconfigure", B, "Ignore the saved backend configuration.", False),
                _f("migrate-state", B, "Move the state to a changed backend.", False),
                _f("force-copy", B, "Copy state to a new backend without asking (and overwrite).", False),
                _f("plugin-dir", R, "Install providers only from this directory (repeatable).",
                   metavar="PATH"),
                _f("upgrade", B, "Select the newest allowed provider versions (built-in providers have "
                   "one version).", False),
                _f("lockfile", S, "Dependency lock file mode (readonly).", metavar="MODE"),
                _f("get", B, "Install modules (local modules need no installation).", True),
                _f("from-module", S, "Copy this module into the directory first.", status=UNS, metavar="SOURCE"),
                _f("lock", B, "Hold the state lock during backend migration.", True, IGN),
                _f("lock-timeout", D, "How long to retry taking the state lock.", 0.0, IGN, "DURATION"),
                _f("target", R, "Limit initialisation to this resource.", status=IGN, metavar="ADDR"),
                INPUT, COMPACT, REMOTE_VERSION,
                _f("test-directory", S, "Directory of test files (tfconsole runs no tests).", "tests", IGN,
                   "PATH"),
                _f("json", B, "Machine-readable output (Terraform's JSON UI stream).", False),
                _f("state-provider-lock-file", S, "Lock file for the state storage provider.", status=UNS,
                   metavar="PATH"),
                POLICIES,
                _f("enable-pluggable-state-storage-experiment", B, "Pluggable state storage (experiment).",
                   False, UNS),
                _f("create-default-workspace", B, "Create the default workspace (experiment).", True, UNS),
                # the variables matter to a backend block's settings, and tfconsole's init
                # configures no backend yet
                *(replace(f, status=IGN) for f in VARS),
            ), 0),
    Command("validate", "[options]", "Check that the configuration is valid, without state or providers' "
            "remote APIs.", (
                *VARS, _f("json", B, "Print the result as JSON.", False),
                _f("test-directory", S, "Directory of test files (tfconsole runs no tests).", "tests", IGN,
                   "PATH"),
                _f("no-tests", B, "Don't validate test files (tfconsole has none).", False, IGN),
                _f("query", B, "Validate query files.", False, UNS),
            ), 0),
    Command("plan", "[options]", "Show the changes that applying the current configuration would make. "
            "With -out, save them to a plan file for \"tfconsole apply FILE\".", (
                *STATE, *OPERATION, *VARS, INPUT, COMPACT, POLICIES, JSON_UI,
                _f("out", S, "Save the plan to this file.", metavar="FILE"),
                _f("detailed-exitcode", B, "Exit 0: no changes, 1: error, 2: changes.", False),
                _f("generate-config-out", S, "Write configuration for import blocks here.", metavar="PATH"),
            ), 0),
    Command("apply", "[options] [PLANFILE]", "Make the changes the configuration asks for (after approval), or "
            "exactly those of a saved plan file.", _APPLY, 1),
    Command("destroy", "[options]", "Destroy every object this configuration manages (after approval).",
            _APPLY, 0),
    Command("refresh", "[options]", "Update the state to match remote objects (same as apply "
            "-refresh-only -auto-approve).", (*STATE, *OPERATION, *VARS, INPUT, COMPACT, JSON_UI), 0),
    Command("show", "[options] [PLANFILE|STATEFILE]", "Show the state, or a saved plan or state file.",
            (*VARS, _f("json", B, "Print Terraform's JSON representation.", False)), 1),
    Command("output", "[options] [NAME]", "Show root module output values from the state.", (
        _f("json", B, "Print the values as JSON.", False),
        _f("raw", B, "Print a single string, number or bool value as is.", False),
        _f("state", S, "Read this state file.", metavar="PATH"),
    ), 1),
    Command("graph", "[options]", "Print the dependency graph in Graphviz DOT form.", (
        *VARS,
        _f("type", S, "plan, plan-destroy, plan-refresh-only, apply or validate.", metavar="TYPE"),
        _f("plan", S, "Draw the apply graph of this saved plan file.", metavar="FILE"),
        _f("format", S, "Output format (dot).", "dot", metavar="FORMAT"),
        _f("draw-cycles", B, "Highlight cycles.", False, UNS),
        _f("module-depth", I, "Deprecated, has no effect.", -1, IGN, "N"),
        _f("verbose", B, "Deprecated, has no effect.", False, IGN),
    ), 0),
    Command("import", "[options] ADDR ID", "Bring an existing remote object under management at ADDR.", (
        *STATE, *VARS, INPUT, COMPACT, REMOTE_VERSION,
        _f("parallelism", I, "How many operations may run at once.", 10, metavar="N"),
        _f("config", S, "Configuration directory for the provider.", status=UNS, metavar="PATH"),
        _f("target", R, "Has no effect for import.", status=IGN, metavar="ADDR"),
    ), 2),
    Command("taint", "[options] ADDR", "Mark a resource instance for replacement by the next apply.", (
        *STATE, *VARS, REMOTE_VERSION,
        _f("allow-missing", B, "Succeed (with a warning) when the instance does not exist.", False),
    ), 1),
    Command("untaint", "[options] ADDR", "Clear the tainted mark of a resource instance.", (
        *STATE, REMOTE_VERSION,
        _f("allow-missing", B, "Succeed (with a warning) when the instance does not exist.", False),
    ), 1),
    Command("force-unlock", "LOCK_ID", "Remove a lock left on the current workspace's state by a holder "
            "that can no longer release it. This changes no infrastructure. Local state locks belong to the "
            "process holding them and cannot be removed by another process.", (
        _f("force", B, "Do not ask for confirmation.", False),
    ), None, legacy_flag_errors=True),
    Command("state", "<subcommand> [options] [args]", "Inspect and edit the state. Subcommands: list, show, "
            "mv, rm, pull, push, replace-provider.", (), None),
    Command("state list", "[options] [ADDRESS...]", "List the resource instances in the state, optionally only "
            "those within the given addresses.", (
                _f("state", S, "Read this state file.", metavar="PATH"),
                _f("id", S, "Only instances whose id attribute is this value.", metavar="ID"),
            ), None),
    Command("state show", "[options] ADDRESS", "Show one resource instance's attributes from the state.", (
        _f("state", S, "Read this state file.", metavar="PATH"),
        _f("json", B, "Print the instance as JSON.", False, UNS),
    ), 1),
    Command("state mv", "[options] SOURCE DESTINATION", "Move a resource or instance to another address in "
            "the state.", (
                *VARS, DRY_RUN, *LOCK, REMOTE_VERSION,
                _f("state", S, "Edit this state file.", metavar="PATH"),
                _f("state-out", S, "Write the result to this file.", status=UNS, metavar="PATH"),
                _f("backup", S, "Backup of the source state.", "-", UNS, "PATH"),
                _f("backup-out", S, "Backup of the destination state.", "-", UNS, "PATH"),
            ), 2),
    Command("state rm", "[options] ADDRESS...", "Forget resource instances: remove them from the state without "
            "destroying them.", (
                *VARS, DRY_RUN, *LOCK, REMOTE_VERSION,
                _f("state", S, "Edit this state file.", metavar="PATH"),
                _f("backup", S, "Backup of the state.", "-", UNS, "PATH"),
            ), None),
    Command("state replace-provider", "[options] FROM_PROVIDER_FQN TO_PROVIDER_FQN", "Record another provider "
            "source for every resource in the state that FROM_PROVIDER_FQN manages, after listing them and asking.",
            (*VARS, *LOCK, REMOTE_VERSION,
             _f("auto-approve", B, "Replace without asking for approval.", False),
             _f("state", S, "Edit this state file.", metavar="PATH"),
             _f("backup", S, "Backup of the state.", "-", UNS, "PATH")), None),
    Command("state pull", "[options]", "Print the current state.", VARS, 0),
    Command("state push", "[options] PATH", "Replace the state with a local state file (\"-\": stdin).", (
        *VARS, *LOCK, REMOTE_VERSION,
        _f("force", B, "Write even when lineage or serial say the state is unrelated or older.", False),
    ), 1),
    Command("workspace", "<subcommand> [options] [args]", "Manage workspaces. Subcommands: list, show, new, "
            "select, delete.", (), None),
    Command("workspace list", "[options]", "List the workspaces.", (
        _f("json", B, "Print the list as JSON.", False, UNS),), 0),
    Command("workspace show", "", "Print the current workspace's name.", (), 0),
    Command("workspace new", "[options] NAME", "Create a workspace and switch to it.", (
        *LOCK, _f("state", S, "Copy this state file into the new workspace.", status=UNS, metavar="PATH"),
    ), 1),
    Command("workspace select", "[options] NAME", "Switch to a workspace.", (
        _f("or-create", B, "Create the workspace when it does not exist.", False),), 1),
    Command("workspace delete", "[options] NAME", "Delete a workspace.", (
        *LOCK, _f("force", B, "Delete even a workspace that still tracks objects.", False),), 1),
    Command("version", "[options]", "Print the version.", (_f("json", B, "Print the version as JSON.", False),),
            0),
    Command("providers", "[options] [DIR]", "Show the providers the configuration and state require.", (
        *VARS, _f("test-directory", S, "Directory of test files (tfconsole runs no tests).", "tests", IGN,
                  "PATH")), None),
    Command("providers schema", "-json", "Print the schemas of the providers in use.", (
        _f("json", B, "Print the schemas as JSON (required).", False), *VARS), 0),
    Command("get", "[options]", "Record the module calls of the configuration in the working directory "
            "(local modules need no download), listing the new ones.", (
                _f("update", B, "List and record every module call again, not only new ones.", False),
                _f("test-directory", S, "Directory of test files (tfconsole runs no tests).", "tests", IGN,
                   "PATH"),
                *(replace(f, status=IGN) for f in VARS),  # only constant variables in a module source use them
            ), None),
    Command("modules", "[options]", "Show the module calls the configuration declares, as a tree.", (
        _f("json", B, "Print the modules as JSON.", False),
        *(replace(f, status=IGN) for f in VARS),
    ), None),
    Command("help", "", "Print the list of commands.", (), None),
    Command("ui", "[options]", "Open the operations console.", (
        _f("parallelism", I, "How many resource operations may run at once.", 10, metavar="N"),
        _f("plan", S, "Review this plan read-only instead of planning: terraform show -json output, "
                      "a tfconsole plan file or its JSON.", metavar="FILE"), *VARS), 0),
]

# How each of Terraform's commands words a wrong number of positional arguments, and which
# still report through its older Ui (a blank line after each diagnostic, no pointer to -help)
_MANY = "Too many command line arguments"
_CHDIR = "Did you mean to use -chdir?"


def _taint_words(verb: str) -> Arity:
    words = f"The {verb} command expects exactly one argument: the address of the resource to {verb}."
    return Arity(1, 1, (_MANY, words), ("Required argument missing", words))


_IMPORT_WORDS = ("Wrong number of arguments", "The import command expects two arguments: ADDR and ID.")
_ARG_RULES: dict[str, dict[str, Any]] = {
    "init": {"help_prompt": False, "arity": Arity(0, 0, (f"{_MANY}. {_CHDIR}", ""), legacy=True)},
    "plan": {"arity": Arity(0, 0, (_MANY, "To specify a working directory for the plan, use the global -chdir "
                                          "flag."))},
    "output": {"arity": Arity(0, 1, ("Unexpected argument", "The output command expects exactly one argument with "
                                     "the name of an output variable or no arguments to show all outputs."))},
    "graph": {"legacy_ui": True, "arity": Arity(0, 0, (_MANY, f"Expected no positional arguments. {_CHDIR}"))},
    "get": {"legacy_ui": True, "arity": Arity(0, 0, (_MANY, f"Expected no positional arguments. {_CHDIR}"))},
    "modules": {"arity": Arity(0, 0, (_MANY, "Expected no positional arguments"))},
    "providers": {"legacy_ui": True, "arity": Arity(0, 0, (_MANY, _CHDIR))},
    "providers schema": {"legacy_ui": True},
    "state list": {"legacy_ui": True},
    "state pull": {"legacy_ui": True, "max_args": None},
    "state replace-provider": {"legacy_ui": True, "arity": _exactly(2, "Exactly two arguments expected: the from "
                                                                       "and to provider addresses.")},
    "state mv": {"legacy_ui": True, "arity": _exactly(2, "Exactly two arguments expected: the source and "
                                                         "destination addresses.")},
    "state push": {"legacy_ui": True, "arity": _exactly(1, "Exactly one argument expected: the path to a "
                                                           "Terraform state file.")},
    "state show": {"legacy_ui": True, "arity": _exactly(1, "Exactly one argument expected: the address of a "
                                                           "resource instance to show.")},
    "state rm": {"legacy_ui": True, "arity": Arity(1, None, few=("Required argument missing",
                                                                 "At least one address is required."))},
    "taint": {"legacy_ui": True, "arity": _taint_words("taint")},
    "untaint": {"legacy_ui": True, "arity": _taint_words("untaint")},
    "import": {"legacy_ui": True, "arity": Arity(2, 2, _IMPORT_WORDS, _IMPORT_WORDS, usage=True)},
    # these ignore extra arguments, or count them themselves (workspace: usage, then one line)
    "version": {"legacy_flag_errors": True, "max_args": None},
    **{f"workspace {w}": {"legacy_flag_errors": True, "max_args": None}
       for w in ("list", "show", "new", "select", "delete")},
}
_COMMANDS = [replace(c, **_ARG_RULES.get(c.name, {})) for c in _COMMANDS]
COMMANDS: dict[str, Command] = {c.name: c for c in _COMMANDS}


def declare(command: str, *flags: Flag) -> None:
    """Add flags to a command, or replace declared ones of the same name (e.g. to mark a flag
    SUPPORTED once a backend or installer implements it)."""
    cmd = COMMANDS[command]
    names = {f.name for f in flags}
    COMMANDS[command] = replace(cmd, flags=tuple(f for f in cmd.flags if f.name not in names) + tuple(flags))


# ---------------------------------------------------------------- parsing

@dataclass
class Args:
    """A command's parsed arguments: typed values of the flags given, and the positionals."""

    command: Command
    values: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, list[str]] = field(default_factory=dict)
    ordered: list[tuple[str, str]] = field(default_factory=list)  # flags in command-line order
    pos: list[str] = field(default_factory=list)
    help: bool = False
    arity_error: bool = False  # the positional arguments broke the command's Arity

    def given(self, name: str) -> bool:
        return name in self.values

    def value(self, name: str, fallback: Any = KeyError) -> Any:
        """The flag's value as given, else its declared default; fallback for a flag the
        command does not declare (shared helpers ask commands for flags some lack)."""
        if name in self.values:
            return self.values[name]
        f = self.command.flag(name)
        if f is None:
            if fallback is KeyError:
                raise KeyError(f"{self.command.name} declares no flag -{name}")
            return fallback
        return [] if f.kind is Kind.REPEATABLE else f.default

    def get(self, name: str, default: str | None = None) -> str | None:
        """The raw text of the last occurrence, or default."""
        v = self.raw.get(name)
        return v[-1] if v else default

    def all(self, name: str) -> list[str]:
        return list(self.raw.get(name, []))

    def bool(self, name: str, default: bool | None = None) -> bool:
        if name in self.values:
            return bool(self.values[name])
        f = self.command.flag(name)
        if default is not None or f is None:
            return bool(default)
        return bool(f.default)

    def set(self, name: str, value: Any) -> None:
        """A command that implies a flag (refresh = apply -refresh-only -auto-approve)."""
        self.values[name] = value
        self.raw[name] = [str(value).lower() if isinstance(value, bool) else str(value)]


class FlagError(Exception):
    pass


def parse(cmd: Command, argv: list[str]) -> tuple[Args, Diagnostics]:
    """Parse argv for cmd. Errors are Terraform's "Failed to parse command-line flags"."""
    args = Args(cmd)
    diags = Diagnostics()
    try:
        _parse_into(args, argv)
    except FlagError as exc:
        diags.error("Failed to parse command-line flags", str(exc))
        if cmd.arity is not None and cmd.arity.min > 0:
            args.pos = []
            _check_arity(cmd, args, diags)
        return args, diags
    if args.help:
        return args, diags
    for name in args.values:
        f = cmd.flag(name)
        if f is not None and f.status is Status.UNSUPPORTED:
            diags.error("Unsupported command-line flag",
                        f"tfconsole does not implement the -{name} option of \"{cmd.name}\" yet; nothing was "
                        "changed.")
    if cmd.arity is not None:
        _check_arity(cmd, args, diags)
    elif cmd.max_args is not None and len(args.pos) > cmd.max_args:
        detail = "Expected no positional arguments." if cmd.max_args == 0 else \
            f"Expected at most {_count(cmd.max_args)} positional argument{'s' if cmd.max_args > 1 else ''}."
        diags.error("Too many command line arguments", detail)
    return args, diags


def _check_arity(cmd: Command, args: Args, diags: Diagnostics) -> None:
    rule = cmd.arity
    assert rule is not None
    n = len(args.pos)
    words = rule.few if n < rule.min else rule.many if rule.max is not None and n > rule.max else None
    if words is not None:
        diags.error(*words)
        args.arity_error = True


def _count(n: int) -> str:
    return {1: "one", 2: "two"}.get(n, str(n))


def _parse_into(args: Args, argv: list[str]) -> None:
    i = 0
    while i < len(argv):
        a = argv[i]
        if len(a) < 2 or a[0] != "-":
            break
        if a == "--":
            i += 1
            break
        name = a[2:] if a.startswith("--") else a[1:]
        if not name or name[0] in "-=":
            raise FlagError(f"bad flag syntax: {a}")
        value: str | None = None
        if "=" in name:
            name, value = name.split("=", 1)
        f = args.command.flag(name)
        if f is None:
            if name in ("help", "h"):
                args.help = True
                i += 1
                continue
            raise FlagError(f"flag provided but not defined: -{name}")
        if value is None and f.kind is not Kind.BOOL:
            if i + 1 >= len(argv):
                raise FlagError(f"flag needs an argument: -{name}")
            i += 1
            value = argv[i]
        _store(args, f, "true" if value is None else value)
        i += 1
    args.pos = list(argv[i:])


def _store(args: Args, f: Flag, text: str) -> None:
    if f.kind is Kind.BOOL:
        if text not in _BOOLS:
            raise FlagError(f"invalid boolean value \"{text}\" for -{f.name}: parse error")
        v: Any = _BOOLS[text]
    elif f.kind is Kind.INT:
        try:
            v = parse_go_int(text)
        except ValueError:
            raise FlagError(f"invalid value \"{text}\" for flag -{f.name}: parse error") from None
    elif f.kind is Kind.DURATION:
        try:
            v = parse_go_duration(text)
        except ValueError:
            raise FlagError(f"invalid value \"{text}\" for flag -{f.name}: parse error") from None
    elif f.kind is Kind.REPEATABLE:
        v = args.values.get(f.name, []) + [text]
    else:
        v = text
    args.values[f.name] = v
    args.raw.setdefault(f.name, []).append(text)
    args.ordered.append((f.name, text))


# Go's strconv.ParseBool
_BOOLS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
          "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}

# patterns, compiled by `re` at their first use: most commands parse no integer or duration flag
_INT = r"[+-]?(0[xX](_?[0-9a-fA-F])+|0[bB](_?[01])+|0[oO](_?[0-7])+|0(_?[0-7])*|[1-9](_?[0-9])*)"


def parse_go_int(text: str) -> int:
    """Go's strconv.ParseInt(text, 0, 64): decimal, 0x hex, 0b binary, 0o or leading-0 octal."""
    if not re.fullmatch(_INT, text):
        raise ValueError(text)
    sign = -1 if text[0] == "-" else 1
    body = text.lstrip("+-").replace("_", "")
    if len(body) > 1 and body[0] == "0" and body[1] in "0123456789":
        body = "0o" + body[1:]
    n = sign * int(body, 0)
    if not -(1 << 63) <= n < (1 << 63):
        raise ValueError(text)
    return n


_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_DURATION_PART = r"(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)"


def parse_go_duration(text: str) -> float:
    """Go's time.ParseDuration, in seconds: "0", or signed parts like "1h30m", "1.5s", "300ms"."""
    body = text[1:] if text[:1] in "+-" else text
    if body == "0":
        return 0.0
    if not body:
        raise ValueError(text)
    total, pos = 0.0, 0
    while pos < len(body):
        m = re.compile(_DURATION_PART).match(body, pos)
        if m is None:
            raise ValueError(text)
        total += float(m.group(1)) * _DURATION_UNITS[m.group(2)]
        pos = m.end()
    if total > 9223372036.854775807:  # Go's durations are int64 nanoseconds
        raise ValueError(text)
    return -total if text.startswith("-") else total


# ---------------------------------------------------------------- usage

def usage(cmd: Command) -> str:
    """The command's -help text, built from its declarations."""
    import textwrap  # only for -help

    lines = [f"Usage: tfconsole [global options] {cmd.name} {cmd.synopsis}".rstrip(), "",
             textwrap.fill(cmd.summary, 76, initial_indent="  ", subsequent_indent="  ")]
    shown = [f for f in cmd.flags if f.status is not Status.UNSUPPORTED]
    if shown:
        lines += ["", "Options:", ""]
        for f in sorted(shown, key=lambda f: f.name):
            head = f"-{f.name}" + (f"={f.metavar}" if f.metavar else "")
            note = " (accepted; no effect in tfconsole)" if f.status is Status.IGNORED else ""
            lines.append(f"  {head:<28} {f.help}{note}")
    missing = sorted(f.name for f in cmd.flags if f.status is Status.UNSUPPORTED)
    if missing:
        lines += ["", "Terraform options tfconsole does not implement yet: " + ", ".join(f"-{n}" for n in missing)]
    return "\n".join(lines) + "\n"


def help_hint(cmd: Command) -> str:
    return f"\nFor more help on using this command, run:\n  tfconsole {cmd.name} -help\n"
