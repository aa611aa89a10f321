"""Generates a deepmerge-shaped configuration: one local module called 6 times, about 170 KB of
nested object literals, `merge` chains and `for` expressions.

It stands in for a real, expression-heavy module (a generated file of a few thousand lines that
deep-merges layers of settings): the cost it exercises is parsing and evaluating large nested
literals, not resources. Every module call plans one `terraform_data` whose input is a digest of
the merged settings, plus outputs, so both tools' plans can be compared value for value.

    .venv/bin/python benchmarks/deepmerge_gen.py DIR [--kb 170] [--calls 6]
"""
from __future__ import annotations

import argparse
import random
from pathlib import Path

SERVICES = [f"svc_{i:02d}" for i in range(40)]
REGIONS = ["eu-west-1", "eu-central-1", "us-east-1", "us-west-2", "ap-south-1"]


def _leaf(rng: random.Random, depth: int) -> str:
    kind = rng.randrange(5)
    if kind == 0:
        return str(rng.randrange(1, 5000))
    if kind == 1:
        return rng.choice(["true", "false"])
    if kind == 2:
        return "[" + ", ".join(f'"{rng.choice(REGIONS)}"' for _ in range(rng.randrange(1, 4))) + "]"
    return f'"value-{depth}-{rng.randrange(10 ** 6)}"'


def _object(rng: random.Random, depth: int, indent: str, width: int) -> str:
    """A nested object literal: the same key names recur across layers so merges overlap."""
    lines = ["{"]
    for i in range(width):
        key = f"k{depth}_{rng.randrange(width + 2)}" if depth else None
        key = key or f"k0_{i}"
        if depth < 3 and rng.random() < 0.45:
            val = _object(rng, depth + 1, indent + "  ", max(2, width - 2))
        else:
            val = _leaf(rng, depth)
        lines.append(f"{indent}  {key} = {val}")
    lines.append(indent + "}")
    return "\n".join(lines)


def _service(rng: random.Random, name: str, layer: int) -> str:
    tags = ", ".join(f'{t} = "{t}-{layer}-{rng.randrange(100)}"' for t in ("team", "env", "cost"))
    ports = ", ".join(str(rng.randrange(1000, 9000)) for _ in range(rng.randrange(1, 4)))
    settings = _object(rng, 1, "      ", 5)
    return (f"    {name} = {{\n"
            f"      enabled  = {rng.choice(['true', 'false'])}\n"
            f"      replicas = {rng.randrange(1, 9)}\n"
            f"      region   = \"{rng.choice(REGIONS)}\"\n"
            f"      ports    = [{ports}]\n"
            f"      tags     = {{ {tags} }}\n"
            f"      settings = {settings}\n"
            f"    }}")


def module_source(kb: int, seed: int = 1) -> str:
    """The module: layers of settings until the file reaches about `kb` KB, then the merge."""
    rng = random.Random(seed)
    head = ['variable "name" {\n  type = string\n}\n',
            'variable "overrides" {\n  type    = any\n  default = {}\n}\n']
    layers: list[str] = []
    size = 0
    while size < kb * 1024 * 0.8:
        i = len(layers)
        services = rng.sample(SERVICES, 12)
        body = "\n".join(_service(rng, s, i) for s in sorted(services))
        text = f"  layer_{i:02d} = {{\n{body}\n  }}\n"
        layers.append(text)
        size += len(text)
    n = len(layers)
    names = [f"local.layer_{i:02d}" for i in range(n)]
    merge_top = "merge(\n    " + ",\n    ".join(names) + ",\n    var.overrides,\n  )"
    per_service = []
    for s in SERVICES:
        parts = ", ".join(f"try({nm}.{s}, {{}})" for nm in names)
        per_service.append(f"    {s} = merge({parts})")
    logic = f"""
locals {{
{"".join(layers)}}}

locals {{
  merged_top = {merge_top}

  # a merge chain per service: each layer's settings for it, the later winning
  services = {{
{chr(10).join(per_service)}
  }}

  enabled = sort([for name, svc in local.services : name if try(svc.enabled, false)])

  replicas = {{ for name, svc in local.services : name => try(svc.replicas, 1) * 2 }}

  by_region = {{
    for name, svc in local.services : try(svc.region, "none") => name...
  }}

  ports = distinct(flatten([for name, svc in local.services : [for p in try(svc.ports, []) : p + 1]]))

  tag_names = {{
    for name, svc in local.services :
    upper(name) => join(",", [for k, v in try(svc.tags, {{}}) : "${{k}}=${{v}}"])
  }}

  setting_keys = {{ for name, svc in local.services : name => sort(keys(try(svc.settings, {{}}))) }}

  summary = merge(
    {{ for r, names in local.by_region : "region/${{r}}" => length(names) }},
    {{ enabled = length(local.enabled), ports = length(local.ports) }},
    {{ name = var.name }},
  )
}}

resource "terraform_data" "this" {{
  input = {{
    name     = var.name
    digest   = sha256(jsonencode(local.services))
    replicas = local.replicas
  }}
}}

output "summary" {{
  value = local.summary
}}

output "tags" {{
  value = local.tag_names
}}

output "setting_keys" {{
  value = local.setting_keys
}}
"""
    return "\n".join(head) + logic


def root_source(calls: int) -> str:
    out = []
    for i in range(calls):
        out.append(f'module "m{i}" {{\n  source = "./modules/deepmerge"\n  name   = "call-{i}"\n'
                   f'  overrides = {{ extra_{i} = {{ enabled = true, replicas = {i + 1} }} }}\n}}\n')
    mods = ", ".join(f"module.m{i}.summary" for i in range(calls))
    out.append(f"output \"summaries\" {{\n  value = [{mods}]\n}}\n")
    out.append("output \"tag_count\" {\n  value = sum([" +
               ", ".join(f"length(module.m{i}.tags)" for i in range(calls)) + "])\n}\n")
    return "\n".join(out)


def write(workdir: Path, kb: int = 170, calls: int = 6) -> None:
    mod = workdir / "modules" / "deepmerge"
    mod.mkdir(parents=True, exist_ok=True)
    (mod / "main.tf").write_text(module_source(kb))
    (workdir / "main.tf").write_text(root_source(calls))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--kb", type=int, default=170, help="approximate size of the module file")
    ap.add_argument("--calls", type=int, default=6)
    args = ap.parse_args()
    write(Path(args.dir), args.kb, args.calls)


if __name__ == "__main__":
    main()
