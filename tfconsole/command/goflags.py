"""Command-line flags parsed with the rules of Go's `flag` package, which Terraform uses.

A command declares its flags as a tuple of `Flag`s (name, kind, default); `parse` applies Go's
rules: flags come before positional arguments (the first non-flag argument, a lone "-", or "--"
ends them), `-name` and `--name` are the same, booleans take `-name` or `-name=false`, other
kinds take `-name=value` or `-name value`, and "-no-color" is accepted anywhere (Terraform
removes it before parsing).
"""
from __future__ import annotations

from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any

from . import flags as _flags

@dataclass(frozen=True)
class Flag:
    name: str
    kind: str  # "bool" | "string" | "list" (a repeatable string)
    default: Any = None


FlagError = _flags.FlagError  # the message Go's flag package gives for a bad command line


def wants_help(argv: list[str]) -> bool:
    """-h, -help or --help anywhere before "--": the command prints its help instead of running."""
    for a in argv:
        if a == "--":
            return False
        if a in ("-h", "-help", "--help"):
            return True
    return False


_KINDS = {"bool": _flags.Kind.BOOL, "string": _flags.Kind.STRING, "list": _flags.Kind.REPEATABLE}


def parse(argv: list[str], flags: tuple[Flag, ...]) -> tuple[dict[str, Any], list[str], bool]:
    """(values by flag name, positional arguments, color) or FlagError; the parsing itself is
    flags.py's (one implementation of Go's rules), with fmt's and console's own flag tables."""
    color = "-no-color" not in argv
    cmd = _flags.Command("", "", "", tuple(_flags.Flag(f.name, _KINDS[f.kind], "", f.default) for f in flags))
    args = _flags.Args(cmd)
    _flags._parse_into(args, [a for a in argv if a != "-no-color"])
    values: dict[str, Any] = {f.name: args.values.get(f.name, list(f.default or []) if f.kind == "list"
                                                     else f.default) for f in flags}
    values["__order__"] = [(k, v) for k, v in args.ordered if cmd.flag(k).kind is not _flags.Kind.BOOL]
    return values, args.pos, color
