"""tfconsole's modules import each other without cycles.

The graph is built from the source with ast: every `import` / `from ... import` statement of a
tfconsole module, wherever it stands (module level or inside a function, since a deferred import
is how a cycle usually hides), resolved to the tfconsole module it names. A cycle means two
layers each need the other: one of them belongs below the other, or the shared part in a third.
"""
from __future__ import annotations

import ast
from pathlib import Path

import rustworkx as rx

import tfconsole

ROOT = Path(tfconsole.__file__).parent


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(modules: set[str], name: str) -> str | None:
    """The longest tfconsole module that `name` (a module or a name inside one) refers to."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _runtime_nodes(tree: ast.AST):
    """Every node except those under `if TYPE_CHECKING:` (imports for annotations only)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                stack.extend(child.orelse)
                continue
            stack.append(child)


def import_graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in ROOT.rglob("*.py")}
    modules = set(files)
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for mod, path in files.items():
        is_pkg = path.name == "__init__.py"
        package = mod if is_pkg else mod.rpartition(".")[0]
        for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [f"{base}.{a.name}" for a in node.names] + [base]
            for t in targets:
                r = _resolve(modules, t)
                # a package's __init__ importing its own submodules (re-exports, registration)
                # is the package's own wiring, not a dependency between layers
                if r is not None and r != mod and not (is_pkg and r.startswith(mod + ".")):
                    edges[mod].add(r)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    g = rx.PyDiGraph()
    idx = {m: g.add_node(m) for m in edges}
    for a, bs in edges.items():
        for b in bs:
            g.add_edge(idx[a], idx[b], None)
    comps = rx.strongly_connected_components(g)
    return sorted(sorted(g[i] for i in c) for c in comps if len(c) > 1)


def test_the_import_graph_is_built_from_the_source() -> None:
    edges = import_graph()
    assert "tfconsole.walk.walker" in edges["tfconsole.core"]
    assert "tfconsole.diags" in edges["tfconsole.walk.walker"]


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# Cycles not yet broken, each a strongly connected group of modules. The list must stay exact:
# a new cycle fails, and so does a listed one that is gone (take it off the list).
KNOWN_CYCLES: list[list[str]] = []


def test_no_import_cycle_in_tfconsole() -> None:
    found = cycles(import_graph())
    assert found == sorted(KNOWN_CYCLES), "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_walk_and_the_graph_nodes_do_not_import_each_other() -> None:
    edges = import_graph()
    assert "tfconsole.graph.nodes.resource" not in edges["tfconsole.walk.context"]
    assert not any(m.startswith("tfconsole.graph") for m in edges["tfconsole.states.objcodec"])


def test_the_expression_language_does_not_reach_the_configuration_body() -> None:
    """lang.ast parses expressions with the HCL parser, which must not lead back to config.body
    (the parse cache's storage is its own module, and the cache sits above body)."""
    edges = import_graph()
    seen, todo = set(), ["tfconsole.lang.ast"]
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(edges[m])
    assert "tfconsole.config.body" not in seen and "tfconsole.config.parse_cache" not in seen
