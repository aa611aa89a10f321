"""Command-line flags parsed with the rules of Go's `flag` package, which Terraform uses.

A command declares its flags as a tuple of `Flag`s (name, kind, default); `parse` applies Go's
rules: flags come before positional arguments (the first non-flag argument, a lone "-", or "--"
ends them), `-name` and `--name` are the same, booleans take `-name` or `-name=false`, other
kinds take `-name=value` or `-name value`, and "-no-color" is accepted anywhere (Terraform
removes it before parsing).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_TRUE = {"1", "t", "T", "TRUE", "true", "True"}
_FALSE = {"0", "f", "F", "FALSE", "false", "False"}


@dataclass(frozen=True)
class Flag:
    name: str
    kind: str  # "bool" | "string" | "list" (a repeatable string)
    default: Any = None


class FlagError(Exception):
    """The message Go's flag package gives for a bad command line."""


def wants_help(argv: list[str]) -> bool:
    """-h, -help or --help anywhere before "--": the command prints its help instead of running."""
    for a in argv:
        if a == "--":
            return False
        if a in ("-h", "-help", "--help"):
            return True
    return False


def parse(argv: list[str], flags: tuple[Flag, ...]) -> tuple[dict[str, Any], list[str], bool]:
    """(values by flag name, positional arguments, color) or FlagError."""
    color = "-no-color" not in argv
    args = [a for a in argv if a != "-no-color"]
    spec = {f.name: f for f in flags}
    values: dict[str, Any] = {f.name: (list(f.default or []) if f.kind == "list" else f.default) for f in flags}
    values["__order__"] = []
    i = 0
    while i < len(args):
        a = args[i]
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
        f = spec.get(name)
        if f is None:
            raise FlagError(f"flag provided but not defined: -{name}")
        if f.kind == "bool":
            text = "true" if value is None else value
            if text not in _TRUE and text not in _FALSE:
                raise FlagError(f'invalid boolean value "{text}" for -{name}: parse error')
            values[name] = text in _TRUE
        else:
            if value is None:
                if i + 1 >= len(args):
                    raise FlagError(f"flag needs an argument: -{name}")
                i += 1
                value = args[i]
            if f.kind == "list":
                values[name].append(value)
            else:
                values[name] = value
            values["__order__"].append((name, value))
        i += 1
    return values, args[i:], color
