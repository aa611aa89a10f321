"""Vertex capabilities as small interfaces, and the abstract node they share.

Transforms ask `isinstance(v, Referenceable)` etc.; a vertex kind implements only what it
needs. Reference keys are (config module path, "var.x" | "local.x" | "type.name" |
"data.type.name" | "module.name" | "output.name").
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tfconsole.addrs import Module as ModulePath
from tfconsole.diags import Diagnostics
from tfconsole.lang import ast as A
from tfconsole.memo import remember

if TYPE_CHECKING:
    from tfconsole.walk.context import WalkContext

RefKey = tuple[ModulePath, str]


class Node:
    """Shared fields of every vertex; `kind` names the vertex kind in graph output."""

    kind = "node"
    name: str = ""
    module: ModulePath = ModulePath()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class Referenceable:
    def referenceable_keys(self) -> list[RefKey]:
        raise NotImplementedError


class Referencer:
    def reference_keys(self) -> list[RefKey]:
        raise NotImplementedError


class Executable:
    def execute(self, ctx: "WalkContext") -> Diagnostics:
        raise NotImplementedError


class DynamicExpandable:
    """Expands when walked: returns the facts its subgraph is built from (builder.dynamic_expand
    turns them into a graph with the expand steps), or None when there is nothing to add."""

    def expansion(self, ctx: "WalkContext") -> tuple[Any, Diagnostics]:
        raise NotImplementedError


class ProviderConsumer:
    """Needs a provider configuration: provider_ref() gives (module path, local name, alias)."""

    resolved_provider: Any = None  # ProviderNode, set by the provider transform

    def provider_ref(self) -> tuple[ModulePath, str, str | None]:
        raise NotImplementedError


class Expandable:
    """Lives inside a module whose instances come from a module expansion node."""


def keys_for_traversals(module: ModulePath, traversals: list[A.ScopeTraversal]) -> list[RefKey]:
    out: list[RefKey] = []
    for t in traversals:
        k = key_for_traversal(module, t)
        if k is not None:
            out.append(k)
    return out


def key_for_traversal(module: ModulePath, t: A.ScopeTraversal) -> RefKey | None:
    root, steps = t.root, t.steps
    first = steps[0].name if steps and isinstance(steps[0], A.AttrStep) else None
    if root in ("var", "local") and first:
        return (module, f"{root}.{first}")
    if root == "module" and first:
        rest = steps[1:]
        while rest and isinstance(rest[0], A.IndexStep):
            rest = rest[1:]
        if rest and isinstance(rest[0], A.AttrStep):
            return (module.child(first), f"output.{rest[0].name}")
        return (module, f"module.{first}")
    if root in ("count", "each", "path", "terraform", "self"):
        return None
    if root == "data" or root == "ephemeral":
        if len(steps) >= 2 and isinstance(steps[1], A.AttrStep) and first:
            return (module, f"{root}.{first}.{steps[1].name}")
        return None
    if first:
        return (module, f"{root}.{first}")
    return None


def expr_keys(module: ModulePath, *exprs: A.Expr | None) -> list[RefKey]:
    """The keys an expression refers to from `module`, each once, in the order of first use."""
    out: list[RefKey] = []
    for e in exprs:
        if e is not None:
            for child, key in _relative_keys(e):
                out.append((module, key) if child is None else (module.child(child), key))
    return out


# expression -> (expression, its keys relative to the module it stands in: (child module or
# None, key)), each once: a module called six times asks for the same trees' keys six times,
# and a merge chain names the same locals hundreds of times. The tree is kept with its entry.
_RELATIVE: dict[int, tuple[A.Expr, tuple]] = {}
_HERE = ModulePath()


def _relative_keys(e: A.Expr) -> tuple:
    hit = _RELATIVE.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    rel: dict[tuple, None] = {}
    for k in keys_for_traversals(_HERE, A.references(e)):
        mod, key = k
        rel[(mod.path[0] if mod.path else None, key)] = None
    keys = tuple(rel)
    remember(_RELATIVE, id(e), (e, keys), 100_000)
    return keys
