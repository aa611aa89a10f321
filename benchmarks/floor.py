"""The pure-Python floor for the flat benchmark, and how far tfconsole is above it.

For N `terraform_data` instances (bench.py's configuration), a Python program that did nothing
but the unavoidable work of plan, apply and a no-change plan would, per command, start the
interpreter, import tfconsole's modules, read the state with the C JSON codec and evaluate one
trivial expression per instance (tfconsole's own evaluator, `"a${count.index}"`); the apply
also writes the state back with the C codec. That is the floor. This script measures the
floor's three commands and tfconsole's three commands (plan -out, apply PLANFILE, no-change
plan) on the same state, each a process of its own, and prints CPU (user + system), wall and
peak RSS, their ratio, and tfconsole's 20,000 / 2,000 scaling. The load average is printed:
compare CPU ratios, which other load disturbs less than wall time.

    .venv/bin/python benchmarks/floor.py                      # N = 2,000 and 20,000
    .venv/bin/python benchmarks/floor.py --sizes 20000 --repeat 3
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import default_tfconsole, tfconsole_env, write_config  # noqa: E402
from deepmerge import loadavg, run_tfconsole  # noqa: E402

# The floor of one command, as a child process: start-up, imports, state read (C json), one
# trivial expression per instance, and (apply) the state written back with the C codec.
FLOOR_CHILD = r"""
import json, sys
import tfconsole.command.main  # noqa: F401  (the imports every command pays)
from tfconsole.lang.ast import parse_expression
from tfconsole.lang.eval import Scope, evaluate
state_path, write = sys.argv[1], sys.argv[2] == "write"
with open(state_path, encoding="utf-8") as f:
    doc = json.load(f)
expr = parse_expression('"a${count.index}"')
if isinstance(expr, tuple):
    expr = expr[0]
n = 0
for r in doc["resources"]:
    for inst in r["instances"]:
        value, diags = evaluate(expr, Scope(None, count_index=n))
        if diags.has_errors or value != f"a{n}":
            raise SystemExit(f"trivial expression gave {value!r}")
        n += 1
if write:
    with open(state_path + ".floor", "w", encoding="utf-8") as f:
        f.write(json.dumps(doc))
print(n)
"""


def run_floor(state: Path, write: bool, env: dict[str, str]) -> dict:
    import time

    t0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-c", FLOOR_CHILD, str(state), "write" if write else "read"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    out = (p.stdout.read() if p.stdout else b"").decode()
    err = (p.stderr.read() if p.stderr else b"").decode()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"floor child failed: {err[-1500:]}")
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss_mb": ru.ru_maxrss / 1024, "n": int(out.split()[-1])}


def measure(cmd: list[str], base: Path, n: int, env: dict[str, str]) -> dict:
    wd = base / f"flat-{n}"
    shutil.rmtree(wd, ignore_errors=True)
    write_config(wd, n)
    subprocess.run([*cmd, f"-chdir={wd}", "init"], capture_output=True, check=True, env=env)
    phases = {}
    for name, argv, ok in (("plan", ["plan", "-out=tfplan"], (0,)), ("apply", ["apply", "tfplan"], (0,)),
                           ("noop_plan", ["plan", "-detailed-exitcode"], (0,))):
        r = run_tfconsole(cmd, wd, argv, env)
        if r["code"] not in ok:
            raise RuntimeError(f"tfconsole {' '.join(argv)} exited {r['code']}:\n{r['out'][-1500:]}")
        phases[name] = r
    state = wd / "terraform.tfstate"
    floor = {"plan": run_floor(state, False, env), "apply": run_floor(state, True, env),
             "noop_plan": run_floor(state, False, env)}
    if floor["plan"]["n"] != n:
        raise RuntimeError(f"floor read {floor['plan']['n']} instances, expected {n}")
    total = {k: sum(p[k] for p in phases.values()) for k in ("wall", "cpu")}
    ftotal = {k: sum(p[k] for p in floor.values()) for k in ("wall", "cpu")}
    return {"tfconsole": {k: {m: v[m] for m in ("wall", "cpu", "rss_mb")} for k, v in phases.items()},
            "floor": {k: {m: v[m] for m in ("wall", "cpu", "rss_mb")} for k, v in floor.items()},
            "total": total, "floor_total": ftotal, "load": loadavg()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="2000,20000", help="flat sizes (even)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per size; the least tfconsole CPU is kept")
    ap.add_argument("--tfconsole", default=None, help="the tfconsole command (default: the venv's CLI)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = ap.parse_args(argv)
    cmd = args.tfconsole.split() if args.tfconsole else default_tfconsole()
    env = tfconsole_env(False)
    base = Path(tempfile.mkdtemp(prefix="tfconsole-floor-"))
    print(f"load average before: {loadavg()} on {os.cpu_count()} CPUs", file=sys.stderr)
    results: dict = {}
    try:
        measure(cmd, base, 2, env)  # untimed: bytecode and parser caches
        for n in [int(x) for x in args.sizes.split(",") if x.strip()]:
            runs = [measure(cmd, base, n, env) for _ in range(max(1, args.repeat))]
            results[n] = min(runs, key=lambda r: r["total"]["cpu"])
            print(f"N={n}: {json.dumps(results[n])}", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print("\n| N | what | plan | apply | no-change plan | total CPU (wall) | tfconsole / floor CPU (wall) | load |")
    print("|---:|---|---|---|---|---|---|---|")
    for n, r in results.items():
        for who, key, tot in (("tfconsole", "tfconsole", "total"), ("floor", "floor", "floor_total")):
            cells = " | ".join(f"{r[key][p]['cpu']:.2f} / {r[key][p]['wall']:.2f} / {r[key][p]['rss_mb']:.0f}"
                               for p in ("plan", "apply", "noop_plan"))
            ratio = ""
            if who == "tfconsole":
                ratio = (f"{r['total']['cpu'] / r['floor_total']['cpu']:.2f}x "
                         f"({r['total']['wall'] / r['floor_total']['wall']:.2f}x)")
            print(f"| {n:,} | {who} | {cells} | {r[tot]['cpu']:.2f} ({r[tot]['wall']:.2f}) | {ratio} | {r['load']} |")
    print("\nA cell: CPU s / wall s / peak RSS MB.")
    if 2000 in results and 20000 in results:
        a, b = results[2000]["total"], results[20000]["total"]
        print(f"tfconsole 20,000 / 2,000: CPU {b['cpu'] / a['cpu']:.1f}x, wall {b['wall'] / a['wall']:.1f}x")
    print(f"Load average after: {loadavg()} on {os.cpu_count()} CPUs")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
