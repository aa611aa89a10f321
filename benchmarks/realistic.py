"""Realistic-shape benchmark: modules x for_each x count, tfconsole against Terraform 1.15 in the same run.

The generated configuration stands in for what users run all day: `--modules` calls (default 20)
of one local module, each with `for_each` over K keys, each module instance planning one base
`terraform_data` and `count` items (default 10 instances per module instance). Module inputs go
through locals with `for` expressions, `merge`, `lookup` and `jsonencode`, and every call after
the first reads the previous call's output (a cross-module reference), so N = modules x K x 10.

Phases, each a process of its own as a user runs it: `init`, `plan -out` + `apply PLANFILE`, a
no-change `plan`, and a plan after a 1 % change (`-var changed=[...]` touches 1 % of the
instances), then the no-change plan once more with an empty cache directory (XDG_CACHE_HOME):
`init` is always cold (fresh directory, empty cache), the others warm. Before timing, both tools
must plan the same changes (addresses, actions and planned values of the first plan; addresses
and actions of the 1 % plan). Wall, CPU (user + system) and peak RSS are reported per phase,
with the load average.

    .venv/bin/python benchmarks/realistic.py                       # tfconsole 2,000 and 10,000; Terraform 2,000
    .venv/bin/python benchmarks/realistic.py --sizes 2000 --terraform-sizes ""
    .venv/bin/python benchmarks/realistic.py --generate DIR --sizes 2000   # write the configuration only
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from deepmerge import Tool, loadavg  # noqa: E402  (one process-per-command harness for both benchmarks)

PER_INSTANCE = 10  # resource instances per module instance: one base + 9 counted items

ROOT_HEAD = """\
variable "changed" {
  type    = list(string)
  default = []
}

locals {
  keys   = [for i in range(%(keys)d) : format("k%%03d", i)]
  tiers  = { gold = 4, silver = 2, bronze = 1 }
  common = { owner = "platform", project = "bench", cost_center = "cc-42" }
  envs = {
    for i, k in local.keys : k => {
      index = i
      tier  = element(keys(local.tiers), i %% 3)
      zone  = "zone-${i %% 4}"
    }
  }
}
"""

ROOT_CALL = """
module "m%(i)02d" {
  source   = "./modules/svc"
  for_each = local.envs
  name     = "m%(i)02d-${each.key}"
  settings = merge(local.common, each.value, { module = "m%(i)02d" })
  upstream = %(upstream)s
  replicas = %(replicas)d
  changed  = var.changed
}
"""

ROOT_TAIL = """
output "bases" {
  value = { for k, m in module.m00 : k => m.base }
}

output "item_counts" {
  value = sum([for k, m in module.m%(last)02d : length(m.items)])
}
"""

MODULE = """\
variable "name" {
  type = string
}
variable "settings" {
  type = map(any)
}
variable "upstream" {
  type    = string
  default = ""
}
variable "replicas" {
  type = number
}
variable "changed" {
  type    = list(string)
  default = []
}

locals {
  sizes    = { gold = "xlarge", silver = "large", bronze = "small" }
  size     = lookup(local.sizes, var.settings["tier"], "small")
  tags     = merge(var.settings, { name = var.name, size = local.size })
  tag_list = [for k in sort(keys(local.tags)) : "${k}=${local.tags[k]}"]
  doc      = jsonencode({ for k, v in local.tags : k => v if k != "index" })
  revision = contains(var.changed, var.name) ? 2 : 1
}

resource "terraform_data" "base" {
  input = {
    name     = var.name
    doc      = local.doc
    upstream = var.upstream
  }
}

resource "terraform_data" "item" {
  count = var.replicas - 1
  input = {
    name     = "${var.name}-${count.index}"
    base     = terraform_data.base.output.name
    tags     = local.tag_list
    weight   = (count.index + 1) * length(local.tag_list)
    revision = local.revision
  }
}

output "base" {
  value = terraform_data.base.output.name
}

output "items" {
  value = [for i in terraform_data.item : i.output.name]
}
"""


def shape(n: int, modules: int) -> int:
    """Keys per module call for N instances."""
    keys, rem = divmod(n, modules * PER_INSTANCE)
    if rem or keys < 1:
        raise SystemExit(f"N={n} must be a multiple of {modules * PER_INSTANCE} (modules x {PER_INSTANCE})")
    return keys


def write(wd: Path, n: int, modules: int = 20) -> None:
    keys = shape(n, modules)
    wd.mkdir(parents=True, exist_ok=True)
    parts = [ROOT_HEAD % {"keys": keys}]
    for i in range(modules):
        upstream = '""' if i == 0 else f"module.m{i - 1:02d}[each.key].base"
        parts.append(ROOT_CALL % {"i": i, "upstream": upstream, "replicas": PER_INSTANCE})
    parts.append(ROOT_TAIL % {"last": modules - 1})
    (wd / "main.tf").write_text("".join(parts))
    (wd / "modules" / "svc").mkdir(parents=True, exist_ok=True)
    (wd / "modules" / "svc" / "main.tf").write_text(MODULE)


def change_var(n: int, modules: int) -> str:
    """`-var` that changes 1 % of the instances: the items of every tenth key of every tenth call."""
    keys = shape(n, modules)
    names = [f"m{i:02d}-k{k:03d}" for i in range(modules) for k in range(keys)]
    picked = names[: max(1, len(names) // 100)]
    return "changed=" + json.dumps(picked)


def summary(tool: Tool, wd: Path, argv: list[str], with_values: bool) -> list:
    tool.run(wd, ["plan", "-input=false", "-out=tfplan", *argv])
    shown = tool.run(wd, ["show", "-json", "tfplan"])["out"]
    doc = json.loads(shown[shown.index("{"):])
    rows = []
    for rc in doc.get("resource_changes") or []:
        after = json.dumps(rc["change"].get("after"), sort_keys=True) if with_values else ""
        rows.append((rc["address"], rc["change"]["actions"], after))
    return sorted(rows)


def run_tool(tool: Tool, base: Path, n: int, modules: int, check_only: bool = False) -> dict:
    """Every phase of one tool at size N; with check_only, the plans to compare instead."""
    wd = base / f"{tool.name}-{n}"
    shutil.rmtree(wd, ignore_errors=True)
    write(wd, n, modules)
    cache = base / f"cache-{tool.name}-{n}"
    shutil.rmtree(cache, ignore_errors=True)
    tool.env["XDG_CACHE_HOME"] = str(cache)
    change = ["-var", change_var(n, modules)]
    out: dict = {}

    def timed(name: str, argv: list[str], ok: tuple[int, ...] = (0,)) -> None:
        r = tool.run(wd, argv, ok)
        out[name] = {k: r[k] for k in ("wall", "cpu", "rss_mb")}

    timed("init", ["init", "-input=false"])
    if check_only:
        first = summary(tool, wd, [], True)
        tool.run(wd, ["apply", "-input=false", "tfplan"])
        return {"first": first, "change": summary(tool, wd, change, False)}
    timed("plan", ["plan", "-input=false", "-out=tfplan"])
    timed("apply", ["apply", "-input=false", "tfplan"])
    check_state(wd, n, tool.name)
    timed("noop_plan", ["plan", "-input=false", "-detailed-exitcode"])
    timed("change_plan", ["plan", "-input=false", "-detailed-exitcode", *change], ok=(2,))
    shutil.rmtree(cache, ignore_errors=True)
    timed("noop_plan_cold", ["plan", "-input=false", "-detailed-exitcode"])
    out["load"] = loadavg()
    return out


def check_state(wd: Path, n: int, who: str) -> None:
    state = json.loads((wd / "terraform.tfstate").read_text())
    count = sum(len(r.get("instances", [])) for r in state.get("resources", []))
    if count != n:
        raise RuntimeError(f"{who}: {count} instances in state after apply, expected {n}")


PHASES = ("init", "plan", "apply", "noop_plan", "change_plan", "noop_plan_cold")


def row(n: int, tool: str, r: dict, ref: dict | None) -> str:
    cells = [f"{r[p]['wall']:.2f} / {r[p]['cpu']:.2f} / {r[p]['rss_mb']:.0f}" for p in PHASES]
    ratio = ""
    if ref is not None:
        def ratio_of(phases: tuple[str, ...], key: str) -> float:
            return sum(ref[p][key] for p in phases) / sum(r[p][key] for p in phases)
        trio = ("plan", "apply", "noop_plan")
        ratio = (f"{ratio_of(trio, 'wall'):.1f}x ({ratio_of(trio, 'cpu'):.1f}x) / "
                 f"{ratio_of(('change_plan',), 'wall'):.1f}x ({ratio_of(('change_plan',), 'cpu'):.1f}x)")
    return f"| {n:,} | {tool} | " + " | ".join(cells) + f" | {ratio} | {r['load']} |"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="2000,10000", help="tfconsole sizes (multiples of modules x 10)")
    ap.add_argument("--terraform-sizes", default="2000", help="Terraform sizes ('' for none)")
    ap.add_argument("--modules", type=int, default=20, help="module calls")
    ap.add_argument("--repeat", type=int, default=1, help="tfconsole runs per size; the least total wall is kept")
    ap.add_argument("--tfconsole", default=None, help="the tfconsole command (default: the venv's CLI)")
    ap.add_argument("--workdir", default=None, help="keep the generated directories here")
    ap.add_argument("--generate", metavar="DIR", help="only write the configuration of the first size into DIR")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    tf_sizes = [int(x) for x in args.terraform_sizes.split(",") if x.strip()]
    if args.generate:
        write(Path(args.generate), sizes[0], args.modules)
        print(f"wrote {args.generate}; 1 % change: -var '{change_var(sizes[0], args.modules)}'")
        return 0

    exe = Path(sys.executable).with_name("tfconsole")
    cmd = args.tfconsole.split() if args.tfconsole else [str(exe) if exe.exists() else "tfconsole"]
    env = dict(os.environ, CHECKPOINT_DISABLE="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # installed packages load from cached bytecode
    base = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="tfconsole-realistic-"))
    base.mkdir(parents=True, exist_ok=True)
    rc = base / "empty.terraformrc"
    rc.write_text("")
    tc = Tool("tfconsole", cmd, dict(env))
    tf = Tool("terraform", None, dict(env, TF_CLI_CONFIG_FILE=str(rc)))
    print(f"load average before: {loadavg()} on {os.cpu_count()} CPUs", file=sys.stderr)
    results: dict = {}
    try:
        # bytecode of tfconsole's modules, written once (as an installed package has it)
        run_tool(tc, base / "warmup", args.modules * PER_INSTANCE, args.modules, check_only=True)
        for n in sorted(set(sizes) | set(tf_sizes)):
            r = results.setdefault(str(n), {})
            if n in tf_sizes:
                a = run_tool(tc, base / "check", n, args.modules, check_only=True)
                b = run_tool(tf, base / "check", n, args.modules, check_only=True)
                if a != b:
                    raise SystemExit(f"N={n}: the two tools plan differently")
                changed = sum(1 for _, actions, _ in a["change"] if actions != ["no-op"])
                print(f"N={n}: both plan the same ({len(a['first'])} creates, then {changed} changes "
                      f"after the 1 % edit)", file=sys.stderr, flush=True)
            if n in sizes:
                runs = [run_tool(tc, base, n, args.modules) for _ in range(max(1, args.repeat))]
                r["tfconsole"] = min(runs, key=lambda x: sum(x[p]["wall"] for p in PHASES))
                print(f"tfconsole N={n}: {json.dumps(r['tfconsole'])}", file=sys.stderr, flush=True)
            if n in tf_sizes:
                r["terraform"] = run_tool(tf, base, n, args.modules)
                print(f"terraform N={n}: {json.dumps(r['terraform'])}", file=sys.stderr, flush=True)
    finally:
        if not args.workdir:
            shutil.rmtree(base, ignore_errors=True)
    print("\n| N | tool | init | plan | apply | no-change plan | 1 % change plan | no-change plan, cold cache "
          "| Terraform / tfconsole: plan+apply+no-change (CPU) / 1 % plan (CPU) | load |")
    print("|---:|---|---|---|---|---|---|---|---|---|")
    for n, r in results.items():
        for tool in ("tfconsole", "terraform"):
            if tool in r:
                ref = r.get("terraform") if tool == "tfconsole" else None
                print(row(int(n), tool, r[tool], ref))
    print("\nA cell: wall s / CPU s / peak RSS MB.")
    print(f"Load average after: {loadavg()} on {os.cpu_count()} CPUs")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
