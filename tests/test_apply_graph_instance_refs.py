"""Apply graph edges between instances: an index built from count.index / each.* names one
instance per instance (scanned per instance), a plain reference is shared by all instances of
a resource (scanned once per resource and module instance), and the dependencies recorded for
state are the resources behind them."""
from __future__ import annotations

from pathlib import Path

from tfconsole.core import Context, Options
from tfconsole.states.state import State

CONFIG = """
resource "terraform_data" "a" {
  count = 3
  input = "a${count.index}"
}
resource "terraform_data" "b" {
  count = 3
  input = terraform_data.a[count.index].output
}
resource "terraform_data" "c" {
  for_each = { x = 0, y = 2 }
  input    = terraform_data.a[each.value].output
}
resource "terraform_data" "d" {
  count = 2
  input = terraform_data.a[1].output
}
"""


def _apply_graph(tmp_path: Path):
    """The apply graph of the plan of the configuration in tmp_path."""
    ctx = Context(Options(working_dir=str(tmp_path)))
    try:
        assert not ctx.load_config().has_errors
        plan, d = ctx.plan(State())
        assert not d.has_errors, [x.detail for x in d]
        g, d = ctx.graph("apply", plan.prior_state or State(), plan)
        assert not d.has_errors, [x.detail for x in d]
    finally:
        ctx.close()
    return g


def test_keyed_references_give_one_edge_per_instance(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(CONFIG)
    g = _apply_graph(tmp_path)
    deps = {v.name: {x.name for x in g.dependencies(v)} for v in g.vertices()}

    def instances_of(name: str) -> set[str]:
        return {x for x in deps[name] if x.startswith("terraform_data.a[")}

    for i in range(3):
        assert instances_of(f"terraform_data.b[{i}] (create)") == {f"terraform_data.a[{i}] (create)"}
    assert instances_of('terraform_data.c["x"] (create)') == {"terraform_data.a[0] (create)"}
    assert instances_of('terraform_data.c["y"] (create)') == {"terraform_data.a[2] (create)"}
    for i in range(2):
        assert instances_of(f"terraform_data.d[{i}] (create)") == {"terraform_data.a[1] (create)"}
    barriers = {v.name: v for v in g.vertices() if getattr(v, "kind", "") != "apply" and hasattr(v, "dependencies")}
    assert barriers["terraform_data.b"].dependencies == ["terraform_data.a"]
    assert barriers["terraform_data.a"].dependencies == []


def test_index_naming_no_instance_depends_on_the_whole_resource(tmp_path: Path) -> None:
    """Where count.index gives an index that names no instance (null here), that instance
    depends on the referenced resource as a whole; its siblings still on one instance each."""
    (tmp_path / "main.tf").write_text(CONFIG + """
resource "terraform_data" "e" {
  count = 2
  input = try(terraform_data.a[count.index == 0 ? null : 2].output, "none")
}
""")
    g = _apply_graph(tmp_path)
    deps = {v.name: {x.name for x in g.dependencies(v)} for v in g.vertices()}
    assert "terraform_data.a" in deps["terraform_data.e[0] (create)"]
    assert not {x for x in deps["terraform_data.e[0] (create)"] if x.startswith("terraform_data.a[")}
    assert {x for x in deps["terraform_data.e[1] (create)"] if x.startswith("terraform_data.a")} == {
        "terraform_data.a[2] (create)"}
