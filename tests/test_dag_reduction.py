"""Graph.transitive_reduction (a bitset reduction) against rustworkx's own, on varied DAGs."""
from __future__ import annotations

import random

import rustworkx as rx

from tfconsole.graph.dag import Graph


class V:
    def __init__(self, name: str) -> None:
        self.name = name


def _random_dag(rng: random.Random, n: int, density: float) -> Graph:
    g = Graph()
    vs = [g.add(V(f"v{i}")) for i in range(n)]
    rng.shuffle(vs)  # node indices must not follow the topological order
    for j in range(n):
        for i in range(j):
            if rng.random() < density:
                g.connect(vs[j], vs[i])
    return g


def _edge_names(g: Graph) -> set[tuple[str, str]]:
    return {(a.name, b.name) for a, b in g.edges()}


def test_same_edges_as_rustworkx_reduction():
    rng = random.Random(11)
    for n, density in [(1, 0.5), (2, 1.0), (8, 0.5), (30, 0.2), (60, 0.08), (120, 0.5), (200, 0.02)]:
        g = _random_dag(rng, n, density)
        reduced, mapping = rx.transitive_reduction(g.g)
        inverse = {new: old for old, new in mapping.items()}
        expected = {(g.g[inverse[a]].name, g.g[inverse[b]].name) for a, b in reduced.edge_list()}
        before = _edge_names(g)
        g.transitive_reduction()
        assert _edge_names(g) == expected, (n, density)
        assert _edge_names(g) <= before


def test_chain_with_shortcuts_keeps_only_the_chain():
    g = Graph()
    vs = [g.add(V(f"v{i}")) for i in range(5)]
    for j in range(5):
        for i in range(j):
            g.connect(vs[j], vs[i])
    g.transitive_reduction()
    assert _edge_names(g) == {(f"v{i}", f"v{i + 1}") for i in range(4)}


def test_cyclic_graph_is_left_alone():
    g = Graph()
    a, b, c = g.add(V("a")), g.add(V("b")), g.add(V("c"))
    g.connect(b, a)
    g.connect(c, b)
    g.connect(a, c)
    g.connect(c, a)
    before = _edge_names(g)
    g.transitive_reduction()
    assert _edge_names(g) == before


def test_edges_are_never_doubled_however_they_are_added():
    g = Graph()
    p, a, b = (g.add(V(n)) for n in "pab")
    g.connect(a, p)
    g.connect_many([(a, p), (b, p), (b, p), (p, p)])  # one already there, one twice, one a self loop
    g.connect_many([(b, p)])
    g.connect(b, p)
    assert sorted((x.name, y.name) for x, y in g.edges()) == [("p", "a"), ("p", "b")]
    assert [d.name for d in g.dependencies(b)] == ["p"]
    assert sorted(d.name for d in g.dependents(p)) == ["a", "b"]
    g.disconnect(b, p)
    assert g.dependencies(b) == []  # one removal removes the edge
