"""The graph view: the live dependency graph drawn in layers by dependency depth, each vertex
with its full address and live status; after a walk, its critical path and a timeline.

The model (layers, collapsed modules, edges, critical path, bars) is models/graph.py; this
mixin keeps the view's state, turns rows into styled text for GraphCanvas, and follows edges.
"""
from __future__ import annotations

import re
import time
from typing import Any

from rich.text import Text
from textual import work
from textual.widgets import ContentSwitcher

from tfconsole.diags import Diagnostics

from .. import operations as ops
from ..models.format import clip_left, fmt_seconds, status_word
from ..models.graph import GraphLayout, Row, WalkGraph, critical_path, module_of, timeline_bar, timeline_rows
from ..widgets.graph_canvas import GraphCanvas
from .common import STATUS_STYLE, VERTEX_SUFFIX

GRAPH_MODES = ("layers", "timeline")
PENDING_LAYOUT = GraphLayout(WalkGraph())  # what a big live graph shows until its first layout comes


def _row_identity(row: Row) -> tuple[str, Any]:
    """What a row shows, independent of where it is: its vertex (or module), its layer's depth,
    or its heading's title."""
    if row.kind == "layer":
        return ("layer", row.layer)
    if row.kind == "heading":
        return ("heading", row.text.split(" · ")[0])
    return (row.kind, row.name)


class GraphView:
    """Mixin of ConsoleApp (its widgets, reactives and helpers are the app's)."""

    def _init_graph_view(self) -> None:
        self.walk_graph = WalkGraph()  # the latest walk's graph, as the walk reported it
        self.clock = time.monotonic  # what "running 3.2s" is measured against (tests fix it)
        self.walk_timings: dict[str, tuple[float, float]] = {}  # after a walk: name -> (start, end)
        self.critical: list[str] = []
        self.graph_mode = "layers"
        self.graph_collapsed: set[str] = set()
        self.graph_needle = ""
        self._graph_layout: GraphLayout | None = None
        self._graph_key: tuple[Any, ...] | None = None
        self._graph_dirty = False  # the walk graph grew since the rows were made
        self._graph_laid_out = 0.0  # time.monotonic() of the last layout
        self._layout_deferred = False  # the view shows the last layout; the grown graph's comes next
        self._walk_live = False  # between WalkStarted and WalkFinished
        self._layout_running = False  # a worker lays out a snapshot of the walk graph
        self._sel: tuple[str, set[str], set[str], set[str]] = ("", set(), set(), set())
        self._graph_history: list[str] = []
        self._follow_at: tuple[str, str, int, str] = ("", "", -1, "")  # origin, direction, index, landed

    @property
    def graph_canvas(self) -> GraphCanvas:
        return self.query_one("#graph-tree", GraphCanvas)

    # ------------------------------------------------------------------ opening
    def action_graph(self, addr: str | None = None) -> None:
        if self.review is not None:  # a plan JSON holds no graph, and this directory's would mislead
            self.notify("A plan opened for review has no graph here; press p to plan this directory.")
            return
        if addr is None:
            node = self._tree(self.view).cursor_node if self.view in ("plan", "state", "orphans") else None
            addr = node.data.addr if node is not None and node.data is not None else ""
        self.graph_focus = addr or self.graph_focus
        self.view = "graph"
        if not self._shown_graph().deps and self.graph_info is None:
            self.run_build_graph()
            return
        # during a walk the graph may have grown since it was last laid out: the key's effect is
        # painted at once with the last layout (statuses are live whatever the layout), and the
        # grown graph is laid out right after that paint (10,000 vertices take tens of ms)
        defer = self.busy and self._graph_dirty and self._graph_layout is not None
        self._rebuild_graph_tree(stale_layout=defer)
        if defer:
            self.call_after_refresh(self._graph_live_refresh, None, True)

    @work(thread=True, exclusive=True, group="read", name="graph", description="graph")
    def run_build_graph(self) -> tuple[ops.GraphInfo | None, Diagnostics]:
        return ops.build_graph(self.working_dir, self.cli_vars)

    def _graph_done(self, result: tuple[ops.GraphInfo | None, Diagnostics]) -> None:
        info, diags = result
        if diags.has_errors:
            self._show_diags(diags)
        if info is not None:
            self.graph_info = info
        self._rebuild_graph_tree()

    def action_graph_mode(self) -> None:
        self.graph_mode = GRAPH_MODES[(GRAPH_MODES.index(self.graph_mode) + 1) % len(GRAPH_MODES)]
        self._rebuild_graph_tree()

    def action_collapse_modules(self) -> None:
        """Collapse every top-level module (or open them all if some are collapsed)."""
        if self.graph_collapsed:
            self.graph_collapsed.clear()
        else:
            self.graph_collapsed = {m.split(".module.")[0] for m in map(module_of, self._shown_graph().deps) if m}
        self._rebuild_graph_tree()

    # ------------------------------------------------------------------ the walk feeds the graph
    def _graph_walk_started(self, names: list[str]) -> None:
        self._walk_live = True
        self.walk_graph = WalkGraph()
        for name in names:
            self.walk_graph.add(name)
        self.walk_timings, self.critical = {}, []
        self._graph_dirty = True
        if self._big_live_graph():  # laid out off the loop at once: `g` then finds it ready
            self._graph_laid_out = time.monotonic()
            self._start_layout()

    def _graph_batch(self, deps: dict[str, list[str]], expansions: dict[str, list[str]],
                     edges: dict[str, list[tuple[str, str]]]) -> None:
        for name, ds in deps.items():
            self.walk_graph.add(name, ds)
        for parent, children in expansions.items():
            self.walk_graph.expand(parent, children, edges.get(parent, []))
        if deps or expansions:
            self._graph_dirty = True

    def _graph_walk_finished(self) -> None:
        """The walk is over: the graph is laid out as it ended (a big one by the worker: the
        view shows the last layout until that one comes)."""
        self._walk_live = False
        big = self._big_walk_graph()
        if big:
            self._graph_laid_out = time.monotonic()
            self._start_layout()
        if self.view == "graph":
            self._rebuild_graph_tree(stale_layout=big)

    def _graph_walk_done(self, timings: dict[str, tuple[float, float]]) -> None:
        """After an apply: the critical path over its recorded times and the walk's edges."""
        self.walk_timings = dict(timings)
        self.critical = critical_path(self.walk_graph, self.walk_timings)
        if self.view == "graph":
            self._rebuild_graph_tree()

    RELAYOUT_EVERY = 1.0  # seconds: a growing 10,000-vertex graph is laid out again at most this often
    LAYOUT_IN_THREAD_ABOVE = 2000  # vertices: a bigger live graph is laid out on a worker thread

    def _big_live_graph(self) -> bool:
        return self._walk_live and self._big_walk_graph()

    def _big_walk_graph(self) -> bool:
        return len(self.walk_graph.deps) > self.LAYOUT_IN_THREAD_ABOVE

    def _start_layout(self) -> None:
        """Lay out a snapshot of the growing walk graph on a worker thread (tens of ms at 10,000
        vertices: on the event loop they would delay a key by as much)."""
        if self._layout_running:
            return
        g = self.walk_graph
        snap = WalkGraph({n: list(ds) for n, ds in g.deps.items()}, g.version)
        self._layout_running = True
        self.run_layout(snap, (id(g), g.version, frozenset(self.graph_collapsed), self.graph_needle))

    @work(thread=True, group="layout", name="graph_layout", description="graph layout", exit_on_error=False)
    def run_layout(self, snap: WalkGraph, key: tuple[Any, ...]) -> tuple[tuple[Any, ...], GraphLayout]:
        return key, GraphLayout(snap, set(key[2]), key[3], pause=self.bridge.input_pause)

    def _graph_layout_done(self, result: tuple[tuple[Any, ...], GraphLayout] | None) -> None:
        self._layout_running = False
        if result is None:
            return
        key, layout = result
        g = self.walk_graph
        if key[0] != id(g) or key[2:] != (frozenset(self.graph_collapsed), self.graph_needle):
            # another walk, or other filters, since the snapshot: lay out what is there now
            # (a new walk's graph must not wait for the next relayout to be drawn at all)
            if self._big_live_graph():
                self._graph_laid_out = time.monotonic()
                self._start_layout()
            return
        self._graph_layout, self._graph_key = layout, key
        if self.view == "graph":
            self._rebuild_graph_tree(stale_layout=True)
        self._graph_dirty = g.version != key[1] or self.view != "graph"
        if not self._walk_live and g.version != key[1] and self._big_walk_graph():
            self._start_layout()  # the walk ended after the snapshot: its final graph, now

    def _graph_live_refresh(self, changed: set[str] | None = None, settle: bool = False) -> None:
        """Repaint the visible rows whose status reads differently (the vertices `changed`, or
        without it those with a running clock), those waiting (their pending dependencies may be
        done) and module rows; re-lay the graph out first if it grew (at most once per
        RELAYOUT_EVERY during a walk; `settle` is the timer's call, which catches up)."""
        now = time.monotonic()
        g = self.walk_graph
        due = self._graph_dirty and (settle or now - self._graph_laid_out >= self.RELAYOUT_EVERY)
        current = self._graph_key is not None and self._graph_key[:2] == (id(g), g.version)
        threaded = self._big_live_graph()
        if due and threaded and not current:  # (also while the view is hidden: `g` finds it ready)
            self._graph_laid_out = now
            self._start_layout()
        if self.view != "graph":
            return
        if due and (current or not threaded):
            self._graph_laid_out = now
            self._rebuild_graph_tree()
            return
        vertices = self.vertices

        def live(row: Row) -> bool:
            if row.kind == "module":
                return True
            upd = vertices.get(row.name)
            if upd is None:
                return False
            return upd.status == "waiting" or (row.name in changed if changed is not None
                                               else upd.status == "running")
        self.graph_canvas.refresh_visible(live)

    # ------------------------------------------------------------------ rows
    def _shown_graph(self) -> WalkGraph:
        """The latest walk's graph; before any walk, the plan graph built for this view."""
        if self.walk_graph.deps:
            return self.walk_graph
        info = self.graph_info
        key = ("static", id(info))
        if info is not None and getattr(self, "_static_key", None) != key:
            g = WalkGraph()
            for name, ds in info.deps.items():
                g.add(name, ds)
            for parent, children in self.expansions.items():
                if parent in info.deps:
                    g.expand(parent, children, self.expansion_edges.get(parent, []))
            self._static_graph, self._static_key = g, key
        return getattr(self, "_static_graph", self.walk_graph) if info is not None else self.walk_graph

    def _layout(self, stale: bool = False) -> GraphLayout:
        """The rows of the shown graph, laid out again when it changed; `stale` accepts the last
        layout of the same graph with the same filters even if vertices were added since."""
        g = self._shown_graph()
        key = (id(g), g.version, frozenset(self.graph_collapsed), self.graph_needle)
        old = self._graph_key
        # a big live graph is laid out again only by the worker (_start_layout): until its
        # layout arrives, every use takes the last one of the same graph
        # (also a big graph whose walk just ended, while the worker lays it out as it ended)
        big = g is self.walk_graph and (self._big_live_graph() or self._layout_running and self._big_walk_graph())
        if big and (old is None or old[0] != key[0]):
            # this walk's graph has no layout yet (the walk started moments ago): the worker
            # makes it (started at the walk's start) and the view draws it when it comes, rather
            # than the event loop spending 50-100 ms on it while the walk runs
            self._start_layout()
            return PENDING_LAYOUT
        stale = stale or self._layout_deferred or big
        if stale and old is not None and (old[0], old[2:]) == (key[0], key[2:]) and self._graph_layout is not None:
            return self._graph_layout
        if self._graph_layout is None or self._graph_key != key:
            self._graph_layout = GraphLayout(g, set(self.graph_collapsed), self.graph_needle)
            self._graph_key = key
        return self._graph_layout

    def graph_rows(self, stale_layout: bool = False) -> list[Row]:
        """Every row of the graph view: the critical path (after a walk), then the layers or
        the timeline."""
        layout = self._layout(stale_layout)
        rows: list[Row] = []
        timings = self._timings()
        if self.critical:
            wall = max((e for _s, e in timings.values()), default=0.0)
            rows.append(Row("heading", "", text=f"Critical path · {len(self.critical)} vertices · "
                                                f"{fmt_seconds(wall)} wall time"))
            rows.extend(Row("vertex", n) for n in self.critical)
        if self.graph_mode == "timeline" and timings:
            rows.append(Row("heading", "", text="Timeline"))
            rows.extend(timeline_rows(timings, self.graph_needle))
        else:
            if layout is PENDING_LAYOUT:
                rows.append(Row("heading", "", text=f"Laying out {len(self._shown_graph().deps)} vertices…"))
            else:
                rows.append(Row("heading", "", text=f"Dependency layers · {len(layout.index)} rows"))
            rows.extend(layout.rows)
        return rows

    def _timings(self) -> dict[str, tuple[float, float]]:
        if self.walk_timings:
            return self.walk_timings
        return self.graph_info.timings if self.graph_info is not None else {}

    def _rebuild_graph_tree(self, stale_layout: bool = False) -> None:
        self._graph_dirty = stale_layout and self._graph_dirty  # (a stale layout is redone soon)
        self._layout_deferred = stale_layout  # until then every use takes the last layout
        canvas = self.graph_canvas
        canvas.render_row = self._graph_row_text
        current = canvas.cursor_row
        rows = self.graph_rows(stale_layout)
        layout = self._layout(stale_layout)
        want = self._match_vertex(self.graph_focus, layout.index) if self.graph_focus else None
        at = next((i for i, r in enumerate(rows) if want and r.name == want and r.kind != "heading"), None)
        if at is None and want is None and current is not None:
            # the cursor stays on its row as the graph is laid out again: a vertex's, a layer
            # heading's (by depth) or a section heading's (a live graph grows under the cursor)
            same = _row_identity(current)
            at = next((i for i, r in enumerate(rows) if _row_identity(r) == same), None)
        if at is None:
            at = next((i for i, r in enumerate(rows) if r.kind in ("vertex", "module", "bar")), 0)
        if layout is not PENDING_LAYOUT:  # (the vertex asked for is found in the layout to come)
            self.graph_focus = ""
        canvas.set_rows(rows, at)
        g = self._shown_graph()
        live = "live" if self.busy and g is self.walk_graph else (self.walk_operation or "plan")
        title = f"Graph · {live} · {len(g.deps)} vertices · {self.graph_mode}"
        if self.graph_collapsed:
            title += f" · {len(self.graph_collapsed)} collapsed"
        if self.graph_needle:
            title += f" · /{self.graph_needle}"
        if self.view == "graph":
            self.query_one("#views", ContentSwitcher).border_title = title

    # ------------------------------------------------------------------ drawing one row
    def _vertex_status(self, name: str) -> tuple[str, str]:
        """(status word, style) of a walk vertex; waiting lists only the dependencies pending."""
        upd = self.vertices.get(name) if self._shown_graph() is self.walk_graph else None
        if upd is None:
            t = self._timings().get(name)
            return (f"done {fmt_seconds(t[1] - t[0])}", STATUS_STYLE["done"]) if t else ("", "")
        detail = self._pending_text(name) if upd.status == "waiting" else ""
        return (status_word(upd.status, upd.at, upd.elapsed, self.clock(), detail),
                STATUS_STYLE.get(upd.status, ""))

    def _pending_text(self, name: str, shown: int = 2) -> str:
        """The dependencies name still waits for (not those already done), the first few named."""
        pending = [d for d in self.walk_graph.deps.get(name, [])
                   if (u := self.vertices.get(d)) is None or u.status != "done"]
        return ", ".join(pending[:shown]) + (f" +{len(pending) - shown}" if len(pending) > shown else "")

    def _graph_row_text(self, row: Row, width: int) -> Text:
        if row.kind == "heading":
            return Text(row.text, style="bold underline")
        if row.kind == "layer":
            return Text(f"── depth {row.layer} · {row.count} ──", style="dim")
        if row.kind == "bar":
            return self._bar_text(row.name, width)
        sel, deps, dents, blast = self._sel
        # two marks: the edge to the selection (← its dependency, → dependent, ⇢ further
        # downstream: the blast radius), and ★ on the critical path
        rel = "←" if row.name in deps else "→" if row.name in dents else "⇢" if row.name in blast else " "
        t = Text(rel, style="bold cyan")
        t.append("★ " if row.name in self.critical else "  ", style="bold yellow")
        if row.kind == "module":
            t.append(f"▶ {row.name} ({row.count} vertices)", style="bold")
            t.append_text(self._module_progress(row.name))
            return t
        tail = Text()
        word, style = self._vertex_status(row.name)
        if word:
            tail.append(f"  {word}", style=style)
        eph = self.ephemeral.block_word(row.name) if self.ephemeral.instances else ""
        if eph:  # an ephemeral block: what its instances are now (open, renewed, closed)
            tail.append(f"  ⧗ {eph}", style="cyan")
        # a narrow pane (80 columns) shortens the address from the left, never the status
        room = max(12, width - t.cell_len - tail.cell_len)
        t.append(clip_left(row.name, room), style="bold" if row.name == sel else "")
        t.append_text(tail)
        return t

    def _module_progress(self, module: str) -> Text:
        counts: dict[str, int] = {}
        layout = self._layout()
        for name in self._shown_graph().deps:
            if layout.representative(name) == module and (u := self.vertices.get(name)) is not None:
                counts[u.status] = counts.get(u.status, 0) + 1
        t = Text()
        for status in ("done", "running", "queued", "waiting", "failed", "skipped"):
            if counts.get(status):
                t.append(f"  {counts[status]} {status}", style=STATUS_STYLE[status])
        return t

    def _bar_text(self, name: str, width: int) -> Text:
        timings = self._timings()
        start, end = timings[name]
        wall = max(e for _s, e in timings.values())
        label_w = max(12, min(48, width // 2 - 4))
        label = name if len(name) <= label_w else "…" + name[-(label_w - 1):]
        bar_w = max(4, width - label_w - 10)
        style = "bold yellow" if name in self.critical else "green"
        t = Text(f"{label:<{label_w}} ", style="bold" if name == self._sel[0] else "")
        t.append(timeline_bar(start, end, wall, bar_w), style=style)
        t.append(f" {fmt_seconds(end - start):>7}", style="dim")
        return t

    # ------------------------------------------------------------------ selection and edges
    def on_graph_canvas_highlighted(self, msg: GraphCanvas.Highlighted) -> None:
        row = msg.row
        if row is None or not row.name:
            self._sel = ("", set(), set(), set())
            self._set_detail("")
            return
        layout = self._layout()
        deps, dents = layout.edges(row.name)
        blast = {layout.representative(n) for n in self._shown_graph().blast_radius(row.name)} \
            if row.kind != "module" else set()
        self._sel = (row.name, set(deps), set(dents), blast)
        msg.canvas.refresh()
        self._set_detail(self._vertex_detail(row.name))

    def on_graph_canvas_follow(self, msg: GraphCanvas.Follow) -> None:
        """left follows an edge upstream (to the dependency still pending, else the one that
        finished last: the edge that held this vertex back), right downstream; `.` and `,` swap
        the last hop for the origin's next or previous alternative; backspace goes back."""
        if msg.direction == "back":
            if self._graph_history:
                self._move_graph_cursor(self._graph_history.pop())
            return
        row = msg.row
        if row is None or not row.name:
            return
        origin, direction, index, landed = self._follow_at
        if msg.direction in ("next", "previous"):
            if row.name != landed:
                self.notify("Follow an edge first (left or right); then . and , try its alternatives.")
                return
            step = 1 if msg.direction == "next" else -1
        else:
            origin, direction, step = row.name, msg.direction, 0
        deps, dents = self._layout().edges(origin)
        targets = deps if direction == "deps" else dents
        if not targets:
            self.notify(f"{origin} has no {'dependencies' if direction == 'deps' else 'dependents'}.")
            return
        if step:
            index = (index + step) % len(targets)
        else:
            index = targets.index(self._best_edge(targets))
            self._graph_history.append(origin)
        self._follow_at = (origin, direction, index, targets[index])
        self._move_graph_cursor(targets[index])

    def _best_edge(self, targets: list[str]) -> str:
        """The hop a user most likely wants: one not done yet, else the last to finish."""
        for t in targets:
            u = self.vertices.get(t)
            if u is not None and u.status not in ("done", "skipped"):
                return t
        timings = self._timings()
        timed = [t for t in targets if t in timings]
        return max(timed, key=lambda t: timings[t][1]) if timed else targets[0]

    def _move_graph_cursor(self, name: str) -> None:
        rows = self.graph_canvas.rows
        at = next((i for i, r in enumerate(rows) if r.name == name and r.kind in ("vertex", "module", "bar")), None)
        if at is None:  # filtered out: clear the filter, then find it
            self.graph_needle = ""
            self.graph_focus = name
            self._rebuild_graph_tree()
            return
        self.graph_canvas.cursor_line = at

    def on_graph_canvas_toggle(self, msg: GraphCanvas.Toggle) -> None:
        """enter on a module row opens it; on a vertex in a module, collapses that module."""
        row = msg.row
        if row is None or not row.name:
            return
        if row.kind == "module":
            self.graph_collapsed.discard(row.name)
            self.graph_focus = row.name
        else:
            mod = module_of(row.name)
            if not mod:
                return
            top = mod.split(".module.")[0]
            self.graph_collapsed.add(top)
            self.graph_focus = top
        self._rebuild_graph_tree()

    @staticmethod
    def _match_vertex(addr: str, vertices: Any) -> str | None:
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
        layout = self._layout()
        deps, dents = layout.edges(name)
        t = Text(name, style="bold")
        word, style = self._vertex_status(name) if name in self._shown_graph().deps else ("", "")
        if word:
            t.append(f"\n{word}", style=style)
        for inst in self.ephemeral.of_block(name):
            t.append(f"\n⧗ {inst.addr}  {self.ephemeral.word(inst.addr)}", style="cyan")
        timings = self._timings()
        if name in timings:
            start, end = timings[name]
            t.append(f"\n\nran +{start:.3f}s → +{end:.3f}s ({fmt_seconds(end - start)})", style="green")
        if name in self.critical:
            t.append("\non the critical path", style="bold yellow")
        t.append(f"\n\ndepends on ({len(deps)}):", style="bold")
        for d in deps[:200]:
            t.append(f"\n  ← {d}")
        t.append(f"\n\ndependents ({len(dents)}):", style="bold")
        for d in dents[:200]:
            t.append(f"\n  → {d}")
        blast = self._sel[3] if self._sel[0] == name else set()
        if blast:
            t.append(f"\n\nblast radius: {len(blast)} vert{'ex depends' if len(blast) == 1 else 'ices depend'} "
                     "on it (⇢)", style="cyan")
        t.append("\n\n←/→ follow edges (. , alternatives), backspace back, enter collapses a module, m all modules, "
                 "v layers/timeline, z centres, / filters.", style="dim")
        self._provider_text(VERTEX_SUFFIX.sub("", name), t)
        return t
