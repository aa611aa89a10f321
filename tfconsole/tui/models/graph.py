"""The live graph's model (textual-free): the walk graph, its layering by dependency depth,
collapsible modules, filtering, the critical path and the timeline of a finished walk.

The graph is what the walk reported: every vertex at its start, each vertex's dependencies (the
walker reports them once, when it registers the vertex), and the instances a vertex expanded
into. Nothing here knows widgets; the graph view draws `GraphLayout.rows`.
"""
from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Iterable

from .format import natural_key

# the module path a vertex belongs to, without instance keys: collapsing module.app collapses
# every instance of it ("module.app[0].x.y (create)" -> "module.app")
_MODULE_STEP = re.compile(r"module\.([A-Za-z0-9_-]+)(?:\[[^\]]*\])?\.")


def _no_pause() -> None:
    pass


def module_of(name: str) -> str:
    steps = []
    pos = 0
    while (m := _MODULE_STEP.match(name, pos)) is not None:
        steps.append(f"module.{m.group(1)}")
        pos = m.end()
    return ".".join(steps)


@dataclass
class WalkGraph:
    """Vertices and their dependencies as a walk reported them (names only)."""

    deps: dict[str, list[str]] = field(default_factory=dict)
    version: int = 0  # bumped on every change: layouts cache on it
    _dependents: dict[str, list[str]] | None = None

    def add(self, name: str, deps: Iterable[str] = ()) -> None:
        known = self.deps.setdefault(name, [])
        new = [d for d in dict.fromkeys(deps) if d not in known] if known else list(dict.fromkeys(deps))
        known.extend(new)  # (a set check per edge: a vertex may have thousands of dependencies)
        for d in new:
            if d not in self.deps:
                self.deps[d] = []
        self.version += 1
        self._dependents = None

    def expand(self, parent: str, children: Iterable[str], edges: Iterable[tuple[str, str]] = ()) -> None:
        """Instances a vertex expanded into run after it: each depends on the parent (and on its
        siblings as the expansion's own edges say)."""
        for child in children:
            if child != parent:
                self.add(child, [parent])
        for a, b in edges:
            self.add(a, [b])

    def dependents(self, name: str) -> list[str]:
        if self._dependents is None:
            out: dict[str, list[str]] = {n: [] for n in self.deps}
            for n, ds in self.deps.items():
                for d in ds:
                    out.setdefault(d, []).append(n)
            self._dependents = out
        return self._dependents.get(name, [])

    def layers(self) -> dict[str, int]:
        """Vertex -> its dependency depth (0: depends on nothing; else one more than its
        deepest dependency). Vertices on a cycle (never in a valid walk) go below the rest."""
        # (add() keeps every dependency list free of repeats, so the dependents' lists are too)
        remaining = {n: len(ds) for n, ds in self.deps.items()}
        depth = dict.fromkeys(self.deps, 0)
        ready = deque(n for n, k in remaining.items() if k == 0)
        seen = 0
        self.dependents("")  # (builds the index once)
        dependents = self._dependents or {}
        while ready:
            n = ready.popleft()
            seen += 1
            for d in dependents.get(n, ()):
                depth[d] = max(depth[d], depth[n] + 1)
                remaining[d] -= 1
                if remaining[d] == 0:
                    ready.append(d)
        if seen < len(self.deps):
            bottom = max(depth.values(), default=0) + 1
            for n, k in remaining.items():
                if k > 0:
                    depth[n] = bottom
        return depth

    def blast_radius(self, name: str, limit: int = 100_000) -> set[str]:
        """Every vertex that depends on name, directly or not."""
        out: set[str] = set()
        todo = [name]
        while todo and len(out) < limit:
            for d in self.dependents(todo.pop()):
                if d not in out:
                    out.add(d)
                    todo.append(d)
        return out


@dataclass(frozen=True)
class Row:
    kind: str  # "heading" | "layer" | "vertex" | "module" | "bar"
    name: str  # the vertex or module path ("" for headings)
    layer: int = 0
    count: int = 0  # vertices behind a module row or a layer heading
    text: str = ""  # a heading's words


@dataclass
class GraphLayout:
    """The rows the graph view draws: a layer heading per dependency depth, then its vertices in
    natural order; a collapsed module is one row (at its shallowest member's layer)."""

    graph: WalkGraph
    collapsed: set[str] = field(default_factory=set)
    needle: str = ""
    rows: list[Row] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)  # vertex or module row name -> row
    # called now and then while laying out on a worker thread: it may wait (GIL released) while
    # the event loop handles a key (the bridge's input priority, which the walk obeys too)
    pause: Callable[[], None] | None = field(default=None, compare=False, repr=False)

    PAUSE_EVERY = 512  # vertices between calls of pause

    def __post_init__(self) -> None:
        self.build()

    def representative(self, name: str) -> str:
        """The row that shows vertex name: itself, or its collapsed module's row."""
        mod = module_of(name)
        while mod:
            if mod in self.collapsed:
                return mod
            mod = mod.rpartition(".module.")[0] if ".module." in mod else ""
        return name

    def _outermost_collapsed(self, name: str) -> str:
        mod, found = module_of(name), ""
        while mod:
            if mod in self.collapsed:
                found = mod
            mod = mod.rpartition(".module.")[0] if ".module." in mod else ""
        return found or name

    def build(self) -> None:
        pause = self.pause or _no_pause
        depth = self.graph.layers()
        needle = self.needle.lower()
        entries: dict[str, list[int]] = {}  # row name -> [layer, vertices behind a module row]
        countdown = self.PAUSE_EVERY
        for name, d in depth.items():
            countdown -= 1
            if not countdown:
                pause()
                countdown = self.PAUSE_EVERY
            if needle and needle not in name.lower():
                continue
            rep = self._outermost_collapsed(name) if self.collapsed else name
            entry = entries.setdefault(rep, [d, 0])
            entry[0] = min(entry[0], d)  # a module row sits at its shallowest member's depth
            if rep != name:
                entry[1] += 1
        by_layer: dict[int, list[str]] = {}
        for name, (layer, _n) in entries.items():
            by_layer.setdefault(layer, []).append(name)
        self.rows = []
        self.index = {}
        for layer in sorted(by_layer):
            pause()
            names = sorted(by_layer[layer], key=natural_key)
            self.rows.append(Row("layer", "", layer, len(names)))
            for name in names:
                self.index[name] = len(self.rows)
                count = entries[name][1]
                self.rows.append(Row("module" if count else "vertex", name, layer, count))

    def edges(self, name: str) -> tuple[list[str], list[str]]:
        """The rows a row's edges lead to: (dependencies, dependents), collapsed modules
        standing for their members, in natural order."""
        members = [name] if name not in self.collapsed else [
            n for n in self.graph.deps if self._outermost_collapsed(n) == name]
        rep = self._outermost_collapsed if self.collapsed else (lambda n: n)
        deps, dents = set(), set()
        for m in members:
            deps.update(map(rep, self.graph.deps.get(m, [])))
            dents.update(map(rep, self.graph.dependents(m)))
        deps.discard(name)
        dents.discard(name)
        return sorted(deps, key=natural_key), sorted(dents, key=natural_key)


def critical_path(graph: WalkGraph, timings: dict[str, tuple[float, float]]) -> list[str]:
    """The chain of vertices that determined a walk's wall time, first to last.

    From the vertex that finished last, step to the dependency that finished last (the one
    it was waiting for), until a vertex that waited for nothing. Only recorded start/end times
    and the graph's edges decide; durations are never compared with a constant."""
    if not timings:
        return []
    cur = max(timings, key=lambda n: (timings[n][1], n))
    chain = [cur]
    seen = {cur}
    while True:
        timed = [d for d in graph.deps.get(cur, []) if d in timings and d not in seen]
        if not timed:
            break
        cur = max(timed, key=lambda n: (timings[n][1], n))
        chain.append(cur)
        seen.add(cur)
    chain.reverse()
    return chain


def timeline_bar(start: float, end: float, wall: float, width: int) -> str:
    """A Gantt bar: the cells of `width` that [start, end] covers of [0, wall], at least one."""
    if width <= 0:
        return ""
    wall = max(wall, 1e-9)
    a = min(width - 1, int(start / wall * width))
    b = max(a + 1, min(width, round(end / wall * width)))
    return " " * a + "█" * (b - a) + " " * (width - b)


def timeline_rows(timings: dict[str, tuple[float, float]], needle: str = "") -> list[Row]:
    """Every timed vertex as a bar row, by start time (ties in natural order)."""
    needle = needle.lower()
    names = [n for n in timings if not needle or needle in n.lower()]
    names.sort(key=lambda n: (timings[n][0], natural_key(n)))
    return [Row("bar", n) for n in names]
