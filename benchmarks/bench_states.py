"""State-layer benchmark: the timings the unit tests used to assert, measured here instead.

* journal: 20,000 records appended by 8 threads through SyncState (one write(2) each);
* state file: writing and reading back the text of a 20,000-instance state;
* fold: replaying a 20,000-record journal into a state (what the next locked run does after a
  crash) and what a reader pays to overlay it.

    .venv/bin/python benchmarks/bench_states.py [--n 20000] [--repeat 3] [--json out.json]

Each figure is the best of --repeat runs (other load on a shared machine only ever adds time).
Every run is also checked (record count, round trip), so a fast wrong answer is not a result.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
from pathlib import Path

from tfconsole.addrs import AbsResource, ModuleInstance, Resource, parse_instance
from tfconsole.states.manager import StateManager
from tfconsole.states.state import ObjectState, State
from tfconsole.states.statefile import read_state, write_state
from tfconsole.states.sync import SyncState

P = 'provider["terraform.io/builtin/terraform"]'


def _obj(i: int) -> ObjectState:
    return ObjectState({"id": f"id-{i}", "input": {"value": f"v{i}", "type": "string"}, "output": None})


def bench_journal(n: int, threads: int = 8) -> float:
    with tempfile.TemporaryDirectory() as d:
        m = StateManager(os.path.join(d, "terraform.tfstate"))
        m.lock()
        st, _ = m.load()
        sync = SyncState(st, m.open_journal())
        objs = [_obj(i) for i in range(n)]
        addrs = [parse_instance(f"terraform_data.x[{i}]") for i in range(n)]
        per = n // threads

        def work(lo: int, hi: int) -> None:
            for i in range(lo, hi):
                sync.set_current(addrs[i], objs[i], P, "list")

        ts = [threading.Thread(target=work, args=(k * per, (k + 1) * per)) for k in range(threads)]
        t0 = time.perf_counter()
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        elapsed = time.perf_counter() - t0
        lines = Path(m.journal_path).read_bytes().count(b"\n")
        assert lines == per * threads + 1, lines
        m.close()
        return elapsed


def bench_state_file(n: int) -> tuple[float, float]:
    st = State(serial=1, lineage="L")
    ra = AbsResource(ModuleInstance(), Resource("managed", "terraform_data", "x"))
    for i in range(n):
        st.set_current(ra.instance(i), _obj(i), P)
    t0 = time.perf_counter()
    text = write_state(st)
    t_write = time.perf_counter() - t0
    t0 = time.perf_counter()
    st2, d = read_state(text)
    t_read = time.perf_counter() - t0
    assert not d.has_errors and st2 is not None and len(st2.resources[ra].instances) == n
    return t_write, t_read


def bench_fold(n: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "terraform.tfstate")
        m = StateManager(path)
        m.lock()
        m.load()
        j = m.open_journal()
        for i in range(n):
            j.record(parse_instance(f"terraform_data.x[{i}]"), _obj(i), P, "list")
        j.close()
        m.unlock()  # as if killed: the journal stays
        t0 = time.perf_counter()
        seen, d1 = StateManager(path, lock=False).load()
        t_overlay = time.perf_counter() - t0
        assert not d1.has_errors and seen is not None
        m2 = StateManager(path)
        m2.lock()
        t0 = time.perf_counter()
        st2, d2 = m2.load()
        t_fold = time.perf_counter() - t0
        m2.close()
        assert not d2.has_errors and st2 is not None and not os.path.exists(path + ".journal")
        return t_overlay, t_fold


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", help="write the results as JSON to this file ('-': stdout)")
    opts = ap.parse_args()
    best: dict[str, float] = {}
    for _ in range(opts.repeat):
        w, r = bench_state_file(opts.n)
        o, f = bench_fold(opts.n)
        for k, v in (("journal_record_s", bench_journal(opts.n)), ("state_write_s", w), ("state_read_s", r),
                     ("journal_overlay_s", o), ("journal_fold_s", f)):
            best[k] = min(best.get(k, v), v)
    result = {"n": opts.n, "load_average": os.getloadavg(), **{k: round(v, 3) for k, v in best.items()}}
    text = json.dumps(result, indent=2)
    if opts.json == "-":
        print(text)
    elif opts.json:
        Path(opts.json).write_text(text + "\n")
    for k, v in result.items():
        print(f"{k:20} {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
