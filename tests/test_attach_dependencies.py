"""AttachDependenciesTransformer: its per-resource ancestor search (few resources) and its pass
over every vertex (many) give each resource the same dependencies, on varied graphs."""
from __future__ import annotations

import random

import pytest

from tfconsole.addrs import AbsResourceInstance, ModuleInstance, Resource
from tfconsole.graph.dag import Graph
from tfconsole.graph.nodes.resource import ApplyInstanceNode, ApplyResourceNode
from tfconsole.graph.transforms import dependencies as deps_mod


class Other:
    def __init__(self, name: str) -> None:
        self.name = name


def _barrier(name: str) -> ApplyResourceNode:
    v = ApplyResourceNode.__new__(ApplyResourceNode)
    v.name, v.dependencies = name, []
    return v


def _instance(rtype: str, key: int, module: ModuleInstance) -> ApplyInstanceNode:
    v = ApplyInstanceNode.__new__(ApplyInstanceNode)
    v.addr = AbsResourceInstance(module, Resource("managed", "terraform_data", rtype), key)
    v.name = f"{v.addr} (create)"
    return v


def _random_graph(rng: random.Random, resources: int, density: float, cyclic: bool) -> tuple[Graph, list]:
    g = Graph()
    mods = [ModuleInstance(), ModuleInstance((("m", None),))]
    vs: list = []
    barriers = []
    for r in range(resources):
        mod = rng.choice(mods)
        prefix = "" if mod.is_root else "module.m."
        b = _barrier(f"{prefix}terraform_data.r{r}")
        barriers.append(b)
        insts = [_instance(f"r{r}", k, mod) for k in range(rng.randint(0, 4))]
        vs += [b, *insts]
    vs += [Other(f"o{i}") for i in range(rng.randint(1, 6))]
    for v in vs:
        g.add(v)
    rng.shuffle(vs)  # edges follow this order, node indices the one above
    for j in range(len(vs)):
        for i in range(j):
            if rng.random() < density:
                g.connect(vs[j], vs[i])
    if cyclic and len(vs) > 2:
        g.connect(vs[0], vs[-1])
    return g, barriers


def test_few_and_many_resources_give_the_same_dependencies(monkeypatch: pytest.MonkeyPatch) -> None:
    with_dependencies = 0
    for seed in range(16):
        rng = random.Random(seed)
        resources, density, cyclic = rng.randint(1, 14), rng.choice([0.02, 0.1, 0.3]), seed % 4 == 3
        results = []
        for few in (0, 1000):  # the pass over every vertex, then the per-resource search
            monkeypatch.setattr(deps_mod, "_FEW", few)
            g, barriers = _random_graph(random.Random(seed * 7919), resources, density, cyclic)
            deps_mod.AttachDependenciesTransformer().transform(g, None)
            results.append({b.name: b.dependencies for b in barriers})
        assert results[0] == results[1], seed
        with_dependencies += any(results[0].values())
    assert with_dependencies >= 8  # the graphs do give dependencies to compare


def test_instance_names_its_resource_and_a_resource_not_itself() -> None:
    g = Graph()
    a, b = _barrier("terraform_data.a"), _barrier("terraform_data.b")
    a0, b0 = _instance("a", 0, ModuleInstance()), _instance("b", 0, ModuleInstance())
    for v in (a, b, a0, b0):
        g.add(v)
    g.connect(a, a0)
    g.connect(b0, a0)
    g.connect(b, b0)
    deps_mod.AttachDependenciesTransformer().transform(g, None)
    assert a.dependencies == [] and b.dependencies == ["terraform_data.a"]
