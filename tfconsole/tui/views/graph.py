"""The graph view: the walk graph's vertices with their dependencies and dependents."""
from __future__ import annotations

import re
from typing import Any

from rich.text import Text
from textual import work
from textual.widgets import ContentSwitcher

from tfconsole.diags import Diagnostics

from .. import operations as ops
from ..models.format import fmt_seconds
from ..widgets import NodeInfo
from .common import VERTEX_SUFFIX


class GraphView:
    """Mixin of ConsoleApp (its widgets, reactives and helpers are the app's)."""

    def _graph_done(self, result: tuple[ops.GraphInfo | None, Diagnostics]) -> None:
        info, diags = result
        if diags.has_errors:
            self._show_diags(diags)
        if info is not None:
            self.graph_info = info
        self._rebuild_graph_tree()

    def action_graph(self, addr: str | None = None) -> None:
        if addr is None:
            node = self._tree(self.view).cursor_node if self.view in ("plan", "state", "orphans") else None
            addr = node.data.addr if node is not None and node.data is not None else ""
        self.graph_focus = addr or self.graph_focus
        self.view = "graph"
        if self.graph_info is None:
            self.run_build_graph()
        else:
            self._rebuild_graph_tree()

    @work(thread=True, exclusive=True, group="read", name="graph", description="graph")
    def run_build_graph(self) -> tuple[ops.GraphInfo | None, Diagnostics]:
        return ops.build_graph(self.working_dir)

    def _graph_vertices(self) -> dict[str, str | None]:
        """Every vertex name -> the config-level vertex it was expanded from (None if none).

        Cached until the graph or the expansions change. Dependencies are looked up per vertex
        (_vertex_edges), only for the one on screen."""
        info = self.graph_info
        if info is None:
            return {}
        if self._graph_cache is not None and self._graph_cache[0] is info:
            return self._graph_cache[1]
        out: dict[str, str | None] = dict.fromkeys(info.deps)
        if info.kind == "plan":
            # the plan graph has config-level vertices; the walk told us their instances
            for parent, children in self.expansions.items():
                if parent in info.deps:
                    for child in children:
                        if child != parent:
                            out[child] = parent
        self._graph_cache = (info, out)
        return out

    def _vertex_edges(self, name: str) -> tuple[list[str], list[str]]:
        info = self.graph_info
        vertices = self._graph_vertices()
        if info is None or name not in vertices:
            return [], []
        parent = vertices[name]
        if parent is None:
            return list(info.deps.get(name, [])), list(info.dependents.get(name, []))
        deps, dents = set(info.deps.get(parent, [])), set(info.dependents.get(parent, []))
        for a, b in self.expansion_edges.get(parent, []):
            if a == name:
                deps.add(b)
            elif b == name:
                dents.add(a)
        return sorted(deps), sorted(dents)

    def _rebuild_graph_tree(self) -> None:
        tree = self._tree("graph")
        vertices = self._graph_vertices()
        focus = self._match_vertex(self.graph_focus, vertices)
        focus_node = None
        if self._graph_tree_of is vertices:  # same graph: only move the cursor
            focus_node = next((n for n in tree.root.children if n.data is not None and n.data.addr == focus), None)
        else:
            self._graph_tree_of = vertices
            tree.clear()
            timings = self.graph_info.timings if self.graph_info else {}
            for name in sorted(vertices, key=lambda n: (n == "root", n.startswith("provider"), n)):
                node = tree.root.add_leaf(self._lazy_vertex_label(name, timings), NodeInfo("vertex", name))
                if name == focus:
                    focus_node = node
        kind = self.graph_info.kind if self.graph_info else ""
        self.query_one("#views", ContentSwitcher).border_title = f"Graph ({kind}, {len(vertices)} vertices)"
        if focus_node is not None:
            self.call_after_refresh(tree.move_cursor, focus_node)
        elif vertices:
            self.call_after_refresh(tree.move_cursor, tree.root.children[0])

    @staticmethod
    def _lazy_vertex_label(name: str, timings: dict[str, tuple[float, float]]) -> Any:
        def make() -> Text:
            t = Text(name)
            if name in timings:
                start, end = timings[name]
                t.append(f"  {fmt_seconds(end - start)}", style="green")
            return t
        return make

    @staticmethod
    def _match_vertex(addr: str, vertices: dict[str, Any]) -> str | None:
        if not addr:
            return None
        if addr in vertices:
            return addr
        for name in sorted(vertices):
            if name.startswith(addr + " ("):
                return name
        base = re.sub(r"\[[^\]]*\]$", "", addr)
        if base in vertices:
            return base
        for name in sorted(vertices):
            if name.startswith(addr):
                return name
        return None

    def _vertex_detail(self, name: str) -> Text:
        deps, dents = self._vertex_edges(name)
        t = Text(name, style="bold")
        timings = self.graph_info.timings if self.graph_info else {}
        if name in timings:
            start, end = timings[name]
            t.append(f"\n\nran +{start:.3f}s → +{end:.3f}s ({fmt_seconds(end - start)})", style="green")
        t.append(f"\n\ndepends on ({len(deps)}):", style="bold")
        for d in deps:
            t.append(f"\n  ← {d}")
        t.append(f"\n\ndependents ({len(dents)}):", style="bold")
        for d in dents:
            t.append(f"\n  → {d}")
        self._provider_text(VERTEX_SUFFIX.sub("", name), t)
        return t

