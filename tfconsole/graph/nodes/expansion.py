"""What a resource vertex's expansion found when walked: the facts its instance subgraph is
built from (by the expand steps of graph/builder.py), so that no vertex assembles a graph."""
from __future__ import annotations

from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any

from tfconsole.addrs import AbsResource
from tfconsole.diags import Diagnostics


@dataclass
class ExpandFacts:
    node: Any  # the ResourceNode expanded
    # each live module instance's resource address and its Expansion (count / for_each keys);
    # for validate, one representative expansion per module instance
    instances: list[tuple[AbsResource, Any]] = field(default_factory=list)
    # per address above: (provider in state or None, instance keys in state)
    in_state: dict[AbsResource, tuple[str | None, list[Any]]] = field(default_factory=dict)
    # the resource in module instances that no longer exist: (address, provider, [(key, has current)])
    gone: list[tuple[AbsResource, str, list[tuple[Any, bool]]]] = field(default_factory=list)
    validate: bool = False
    diags: Diagnostics = field(default_factory=Diagnostics)  # the build's own (builder.build)
