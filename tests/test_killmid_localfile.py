"""kill -9 in the middle of an apply of thousands of local_file resources: every file on disk is
recorded in the state except at most the ones in flight (no more than -parallelism), nothing in
the state lacks its file, and a second apply converges."""
from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

TOOL = str(Path(sys.executable).parent / "tfconsole")
N = 3000
PARALLELISM = 10
CONFIG = f'''
resource "local_file" "f" {{
  count           = {N}
  filename        = "${{path.module}}/out/f-${{count.index}}.txt"
  file_permission = "0644"
  content         = "file ${{count.index}} of {N}\\n"
}}
'''


def run(d: Path, *args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([TOOL, f"-chdir={d}", *args], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def files_on_disk(d: Path) -> set[int]:
    out = d / "out"
    if not out.exists():
        return set()
    return {int(m[1]) for p in out.iterdir() if (m := re.fullmatch(r"f-(\d+)\.txt", p.name))}


def indexes(addresses: set[str]) -> set[int]:
    idx = set()
    for a in addresses:
        m = re.fullmatch(r"local_file\.f\[(\d+)\]", a)
        assert m, a
        idx.add(int(m[1]))
    return idx


def test_sigkill_mid_apply_of_local_files(tmp_path: Path) -> None:
    d = tmp_path
    (d / "main.tf").write_text(CONFIG)
    proc = subprocess.Popen([TOOL, f"-chdir={d}", "apply", "-auto-approve", "-no-color",
                             f"-parallelism={PARALLELISM}"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    seen: set[str] = set()
    deadline = time.monotonic() + 90
    for line in proc.stdout:
        if ": Creation complete" in line:
            seen.add(line.split(":", 1)[0])
        if len(seen) >= N // 4 or time.monotonic() > deadline:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL
    assert seen, "the apply never completed a resource"

    on_disk = files_on_disk(d)
    assert len(on_disk) < N, "the apply finished before it was killed"

    listed = run(d, "state", "list")
    assert listed.returncode == 0, listed.stderr
    # (a reader sees the journal left by the crash overlaid; the next locked command folds it)
    in_state = set(re.findall(r"^(local_file\.f\[\d+\])$", listed.stdout, re.M))
    assert "Traceback" not in listed.stderr
    # every resource reported complete is in the state
    assert seen <= in_state, sorted(seen - in_state)[:5]
    recorded = indexes(in_state)
    # every file on disk is in the state but for the ones in flight when the process died
    unrecorded = on_disk - recorded
    assert len(unrecorded) <= PARALLELISM, sorted(unrecorded)[:20]
    # and nothing is in the state whose file was not written
    assert recorded <= on_disk, sorted(recorded - on_disk)[:5]

    plan = run(d, "plan", "-no-color", f"-parallelism={PARALLELISM}")  # locked: folds the journal
    assert plan.returncode == 0, plan.stderr[-2000:]
    assert not (d / "terraform.tfstate.journal").exists()

    # the recorded attributes are those of the files on disk
    state = json.loads((d / "terraform.tfstate").read_text())
    for r in state["resources"]:
        for inst in r["instances"][:50]:
            attrs = inst["attributes"]
            i = inst["index_key"]
            assert attrs["content"] == f"file {i} of {N}\n"
            assert (d / "out" / f"f-{i}.txt").read_text() == attrs["content"]

    m = re.search(r"Plan: (\d+) to add, (\d+) to change, (\d+) to destroy\.", plan.stdout)
    assert m and int(m[1]) == N - len(recorded) and m[2] == "0" and m[3] == "0", plan.stdout[-500:]

    again = run(d, "apply", "-auto-approve", "-no-color", f"-parallelism={PARALLELISM}")
    assert again.returncode == 0, again.stderr[-2000:]
    assert f"Apply complete! Resources: {N - len(recorded)} added, 0 changed, 0 destroyed." in again.stdout
    final = run(d, "plan", "-no-color", "-detailed-exitcode")
    assert final.returncode == 0, final.stdout[-1000:] + final.stderr[-1000:]
    assert files_on_disk(d) == set(range(N))
    assert indexes(set(re.findall(r"^(local_file\.f\[\d+\])$", run(d, "state", "list").stdout, re.M))) \
        == set(range(N))
    for i in (0, N // 2, N - 1):
        assert (d / "out" / f"f-{i}.txt").read_text() == f"file {i} of {N}\n"
