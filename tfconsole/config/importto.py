"""The `to` address of an import block, read statically from its expression.

`to` is a resource instance address (module.a["k"].type.name[key]) whose instance keys may be
expressions of each.key / each.value when the block has for_each. This module only takes the
expression apart; evaluating the keys belongs to the plan (graph/nodes/importing.py).
"""
from __future__ import annotations

from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any

from tfconsole.addrs import key_str
from tfconsole.lang import ast as A

# a key: None (no key), ("lit", value) or ("expr", expression)
Key = tuple[str, Any] | None


@dataclass
class ImportTo:
    mode: str
    type: str
    name: str
    key: Key = None
    module_steps: list[tuple[str, Key]] = field(default_factory=list)

    def keys(self) -> list[Key]:
        return [k for _, k in self.module_steps] + [self.key]

    def resource_text(self) -> str:
        """The configuration resource (no instance keys), as Terraform names it in messages."""
        mods = "".join(f"module.{n}." for n, _ in self.module_steps)
        prefix = "data." if self.mode == "data" else ""
        return f"{mods}{prefix}{self.type}.{self.name}"

    def static_text(self) -> str | None:
        """The whole instance address when every key is a literal, else None."""
        if any(k is not None and k[0] == "expr" for k in self.keys()):
            return None

        def k(key: Key) -> str:
            return "" if key is None else key_str(key[1])

        mods = "".join(f"module.{n}{k(key)}." for n, key in self.module_steps)
        prefix = "data." if self.mode == "data" else ""
        return f"{mods}{prefix}{self.type}.{self.name}{k(self.key)}"


def _parts(expr: A.Expr) -> list[tuple[str, Any]] | None:
    """The traversal as ("attr", name) / ("lit", key) / ("expr", key expression) steps."""
    tail: list[tuple[str, Any]] = []
    e = expr
    while isinstance(e, A.RelativeTraversal):
        if e.step is not None:
            tail.append(("attr", e.step))
        elif e.key is not None:
            lit = e.key.value if isinstance(e.key, A.Literal) else None
            tail.append(("lit", lit) if isinstance(lit, (str, int)) and not isinstance(lit, bool)
                        else ("expr", e.key))
        else:
            return None
        e = e.source
    if not isinstance(e, A.ScopeTraversal):
        return None
    head: list[tuple[str, Any]] = [("attr", e.root)]
    for st in e.steps:
        head.append(("attr", st.name) if isinstance(st, A.AttrStep) else ("lit", st.key))
    return head + list(reversed(tail))


def parse_to(expr: A.Expr) -> tuple[ImportTo | None, str]:
    """(the address, "") or (None, why it is not a resource instance address)."""
    bad = "The \"to\" argument must be a resource instance address, like aws_instance.example or " \
          "module.app.aws_instance.example[\"key\"]."
    parts = _parts(expr)
    if not parts:
        return None, bad
    i = 0
    mods: list[tuple[str, Key]] = []
    while i + 1 < len(parts) and parts[i] == ("attr", "module"):
        if parts[i + 1][0] != "attr":
            return None, bad
        name = parts[i + 1][1]
        i += 2
        key: Key = None
        if i < len(parts) and parts[i][0] != "attr":
            key = parts[i]
            i += 1
        mods.append((name, key))
    mode = "managed"
    if i < len(parts) and parts[i] == ("attr", "data"):
        mode = "data"
        i += 1
    rest = parts[i:]
    if len(rest) < 2 or rest[0][0] != "attr" or rest[1][0] != "attr" or len(rest) > 3:
        return None, bad
    rkey: Key = None
    if len(rest) == 3:
        if rest[2][0] == "attr":
            return None, bad
        rkey = rest[2]
    return ImportTo(mode, rest[0][1], rest[1][1], rkey, mods), ""
