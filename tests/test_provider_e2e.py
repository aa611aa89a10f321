"""The built-in providers end to end, through the CLI: drift of local files, stability of random
values, failures that stay local (a real HTTP server on 127.0.0.1 answering 500, a failing
external program, an unwritable path), time_sleep delays, local-exec provisioners (tainting,
on_failure, when = destroy) and import."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest

TOOL = str(Path(sys.executable).parent / "tfconsole")


def run(d: Path, *args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    extra = ["-no-color"] if args[0] in ("plan", "apply", "destroy", "refresh") else []
    proc = subprocess.run([TOOL, f"-chdir={d}", *args, *extra], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    return proc


def ok(d: Path, *args: str) -> str:
    proc = run(d, *args)
    assert proc.returncode == 0, f"{args}: rc={proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def write(d: Path, text: str) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    (d / "main.tf").write_text(text)
    return d


def plan_counts(text: str) -> tuple[int, int, int]:
    m = re.search(r"Plan: (\d+) to add, (\d+) to change, (\d+) to destroy\.", text)
    assert m, text[-2000:]
    return int(m[1]), int(m[2]), int(m[3])


def planned(text: str, verb: str) -> set[str]:
    return set(re.findall(rf"^  # (\S+) (?:will be|must be|is tainted, so must be) {verb}", text, re.M))


def state_list(d: Path) -> set[str]:
    """The instances in the state; none when there is no state at all (which `state list`,
    as Terraform's, refuses with "No state file was found!")."""
    proc = run(d, "state", "list")
    if proc.returncode == 1 and proc.stderr.startswith("No state file was found!"):
        return set()
    assert proc.returncode == 0, proc.stderr[-3000:]
    return set(proc.stdout.split())


def state_doc(d: Path) -> dict:
    return json.loads((d / "terraform.tfstate").read_text())


def values(d: Path) -> dict[str, dict]:
    doc = json.loads(ok(d, "show", "-json"))
    out: dict[str, dict] = {}

    def walk(mod: dict) -> None:
        for r in mod.get("resources", []):
            out[r["address"]] = r["values"]
        for child in mod.get("child_modules", []):
            walk(child)

    walk(doc.get("values", {}).get("root_module", {}))
    return out


def no_changes(d: Path, *args: str) -> bool:
    proc = run(d, "plan", "-detailed-exitcode", *args)
    assert proc.returncode in (0, 2), proc.stderr[-2000:]
    return proc.returncode == 0


def diagnostic(stderr: str, summary: str) -> str:
    """The text of the one diagnostic box (╷ ... ╵) whose summary is `summary`."""
    boxes = re.findall(r"╷\n(.*?)\n╵", stderr, re.S)
    if not boxes:  # -no-color: plain blocks, each starting with "Error:" or "Warning:"
        boxes = [b.strip("\n") for b in re.split(r"\n(?=(?:Error|Warning): )", "\n" + stderr) if b.strip()]
    hits = [b for b in boxes if f"Error: {summary}" in b.split("\n", 1)[0]]
    assert len(hits) == 1, f"{summary!r} in {stderr!r}"
    text = "\n".join(line[2:] if line.startswith("│ ") else line.lstrip("│") for line in hits[0].split("\n"))
    # details are word-wrapped as Terraform wraps them: compare with whitespace collapsed
    return " ".join(text.split())


# ---------------------------------------------------------------------------------------------
# a real HTTP server on 127.0.0.1


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    hits: list[str] = []

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        self.hits.append(self.path)
        code, body = {"/ok": (200, b"all good"), "/500": (500, b"internal trouble"),
                      "/404": (404, b"nothing here")}.get(self.path, (404, b""))
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture()
def server() -> Iterator[str]:
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    srv.daemon_threads = True
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    _Handler.hits = []
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}"
    finally:
        srv.shutdown()
        srv.server_close()


# ---------------------------------------------------------------------------------------------
# refresh and drift

FILES = '''
resource "local_file" "f" {
  filename        = "${path.module}/out/f.txt"
  file_permission = "0644"
  content         = "managed content\\n"
}

resource "local_sensitive_file" "s" {
  filename = "${path.module}/out/s.txt"
  content  = "secret content\\n"
}

resource "terraform_data" "uses" {
  input = local_file.f.id
}
'''


def test_deleted_local_file_is_planned_for_recreation(tmp_path: Path) -> None:
    d = write(tmp_path, FILES)
    ok(d, "apply", "-auto-approve")
    assert no_changes(d)
    (d / "out" / "f.txt").unlink()
    plan = ok(d, "plan")
    assert planned(plan, "created") == {"local_file.f"}
    # its id (the content's SHA-1) is unknown until the file is written again
    assert planned(plan, "updated in-place") == {"terraform_data.uses"}
    assert plan_counts(plan) == (1, 1, 0)
    # refresh-only shows the object as gone; the state still has it until applied
    assert "local_file.f" in state_list(d)
    out = ok(d, "apply", "-auto-approve")
    assert "Apply complete! Resources: 1 added, 1 changed, 0 destroyed." in out
    assert (d / "out" / "f.txt").read_text() == "managed content\n"
    assert no_changes(d)


def test_edited_local_file_is_planned_as_the_provider_plans_it(tmp_path: Path) -> None:
    """The provider's Read removes the object when the file's SHA-1 no longer matches its id, so the
    plan creates it again (not an update, not a replace), and the apply restores the content."""
    d = write(tmp_path, FILES)
    ok(d, "apply", "-auto-approve")
    before = values(d)
    (d / "out" / "f.txt").write_text("edited outside\n")
    (d / "out" / "s.txt").write_text("also edited\n")
    plan = ok(d, "plan")
    assert planned(plan, "created") == {"local_file.f", "local_sensitive_file.s"}
    assert planned(plan, "updated in-place") == {"terraform_data.uses"}
    assert plan_counts(plan) == (2, 1, 0)
    ok(d, "apply", "-auto-approve")
    assert (d / "out" / "f.txt").read_text() == "managed content\n"
    assert (d / "out" / "s.txt").read_text() == "secret content\n"
    after = values(d)
    assert after["local_file.f"]["id"] == before["local_file.f"]["id"]
    # the same content gives the same id: the dependent ends up with the same input
    assert after["terraform_data.uses"]["input"] == before["terraform_data.uses"]["input"]
    assert no_changes(d)


def test_edited_content_with_the_same_text_is_no_change(tmp_path: Path) -> None:
    d = write(tmp_path, FILES)
    ok(d, "apply", "-auto-approve")
    (d / "out" / "f.txt").write_text("managed content\n")  # rewritten, same bytes
    assert no_changes(d)


RANDOM = '''
variable "generation" {
  type    = string
  default = "1"
}

locals {
  keepers = { generation = var.generation }
}

resource "random_string" "s" {
  length  = 16
  keepers = local.keepers
}

resource "random_password" "p" {
  length  = 20
  keepers = local.keepers
}

resource "random_pet" "pet" {
  length  = 3
  keepers = local.keepers
}

resource "random_integer" "i" {
  min     = 1
  max     = 1000000000
  keepers = local.keepers
}

resource "random_id" "id" {
  byte_length = 8
  keepers     = local.keepers
}

resource "random_uuid" "u" {
  keepers = local.keepers
}

resource "random_shuffle" "sh" {
  input   = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]
  keepers = local.keepers
}

resource "random_pet" "unkept" {
  length = 3
}
'''

RESULT = {"random_string.s": "result", "random_password.p": "result", "random_pet.pet": "id",
          "random_integer.i": "result", "random_id.id": "hex", "random_uuid.u": "result",
          "random_shuffle.sh": "result", "random_pet.unkept": "id"}


def test_random_values_stay_stable_until_keepers_change(tmp_path: Path) -> None:
    d = write(tmp_path, RANDOM)
    ok(d, "apply", "-auto-approve")
    first = {a: v[RESULT[a]] for a, v in values(d).items()}
    assert set(first) == set(RESULT)
    for _ in range(2):
        assert no_changes(d)
    ok(d, "refresh")
    out = ok(d, "apply", "-auto-approve")
    assert "0 added, 0 changed, 0 destroyed" in out or "No changes" in out
    assert {a: v[RESULT[a]] for a, v in values(d).items()} == first

    plan = ok(d, "plan", "-var=generation=2")
    kept = set(RESULT) - {"random_pet.unkept"}
    assert planned(plan, "replaced") == kept
    assert plan_counts(plan) == (len(kept), 0, len(kept))
    ok(d, "apply", "-auto-approve", "-var=generation=2")
    second = {a: v[RESULT[a]] for a, v in values(d).items()}
    for a in kept:
        assert second[a] != first[a], a
    assert second["random_pet.unkept"] == first["random_pet.unkept"]
    assert no_changes(d, "-var=generation=2")


# ---------------------------------------------------------------------------------------------
# errors stay local

LOCAL_ERRORS = '''
variable "base" {
  type = string
}

resource "terraform_data" "gate" {
  input = "go"
}

# read at apply time (depends on a resource with changes), so the failure is an apply failure
data "http" "broken" {
  url        = "${var.base}/500"
  depends_on = [terraform_data.gate]
}

resource "local_file" "from_broken" {
  filename = "${path.module}/out/broken.txt"
  content  = data.http.broken.response_body
}

data "external" "failing" {
  program    = ["sh", "-c", "echo 'probe failed: disk on fire' >&2; exit 3"]
  depends_on = [terraform_data.gate]
}

resource "terraform_data" "from_failing" {
  input = data.external.failing.result
}

resource "local_file" "unwritable" {
  filename = "${path.module}/blocker/child.txt"
  content  = "never written\\n"
  depends_on = [terraform_data.gate]
}

resource "terraform_data" "after_unwritable" {
  input = local_file.unwritable.id
}

data "http" "fine" {
  url        = "${var.base}/ok"
  depends_on = [terraform_data.gate]
}

resource "local_file" "from_fine" {
  filename = "${path.module}/out/fine.txt"
  content  = data.http.fine.response_body
}

resource "local_file" "independent" {
  filename = "${path.module}/out/independent.txt"
  content  = "independent\\n"
}
'''


def _apply_local_errors(d: Path, base: str) -> subprocess.CompletedProcess:
    write(d, LOCAL_ERRORS)
    (d / "blocker").write_text("a regular file where a directory is expected\n")
    proc = run(d, "apply", "-auto-approve", f"-var=base={base}")
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc


def test_errors_stay_local(tmp_path: Path, server: str) -> None:
    d = tmp_path
    proc = _apply_local_errors(d, server)
    err = proc.stderr

    http = diagnostic(err, "Error making request")
    assert "data.http.broken" in http
    assert f"GET {server}/500 giving up after 1 attempt(s): unexpected HTTP status 500 Internal Server Error" in http
    ext = diagnostic(err, "External Program Execution Failed")
    assert "data.external.failing" in ext
    assert "Error Message: probe failed: disk on fire" in ext and "State: exit status 3" in ext
    lf = diagnostic(err, "Create local file error")
    assert "local_file.unwritable" in lf
    assert re.search(r"on main\.tf line 30\b", lf), lf
    assert "open ./blocker/child.txt: not a directory" in lf
    assert "/500" in _Handler.hits and "/ok" in _Handler.hits

    # dependents of the failures never start; everything else is created and kept
    for dep in ("local_file.from_broken", "terraform_data.from_failing", "terraform_data.after_unwritable"):
        assert f"{dep}: Creating..." not in proc.stdout
    listed = state_list(d)
    assert {"terraform_data.gate", "local_file.independent", "local_file.from_fine"} <= listed
    assert not listed & {"local_file.from_broken", "terraform_data.from_failing", "local_file.unwritable",
                         "terraform_data.after_unwritable", "data.http.broken", "data.external.failing"}
    assert (d / "out" / "fine.txt").read_text() == "all good"
    assert (d / "out" / "independent.txt").read_text() == "independent\n"
    assert not (d / "out" / "broken.txt").exists()

    # what remains to do is exactly what failed and what depends on it
    plan = run(d, "plan", f"-var=base={server}")
    assert plan.returncode == 1  # the data sources are read (and fail) at plan time now
    assert "Error making request" in plan.stderr and "External Program Execution Failed" in plan.stderr


def test_apply_time_data_source_errors_have_file_and_line(tmp_path: Path, server: str) -> None:
    proc = _apply_local_errors(tmp_path, server)
    assert re.search(r"on main\.tf line 11\b", diagnostic(proc.stderr, "Error making request"))
    assert re.search(r"on main\.tf line (21|22)\b", diagnostic(proc.stderr, "External Program Execution Failed"))


def test_status_code_postcondition_read_at_plan_time(tmp_path: Path, server: str) -> None:
    """As users guard data "http" (which returns non-2xx statuses without error): a postcondition on
    status_code. Read during plan, its failure stops the plan with the condition's message."""
    d = write(tmp_path, f'''
data "http" "page" {{
  url = "{server}/404"

  lifecycle {{
    postcondition {{
      condition     = contains([200, 204], self.status_code)
      error_message = "Status code invalid: ${{self.status_code}}."
    }}
  }}
}}

resource "local_file" "page" {{
  filename = "${{path.module}}/out/page.txt"
  content  = data.http.page.response_body
}}
''')
    proc = run(d, "apply", "-auto-approve")
    assert proc.returncode == 1, proc.stdout[-2000:]
    diag = diagnostic(proc.stderr, "Resource postcondition failed")
    assert "data.http.page" in diag or 'data "http" "page"' in diag
    assert re.search(r"on main\.tf line [67]\b", diag), diag
    assert "Status code invalid: 404." in diag
    assert "/404" in _Handler.hits
    assert state_list(d) == set()
    assert not (d / "out").exists()


CONDITIONS_AT_APPLY = '''
variable "base" {
  type = string
}

resource "terraform_data" "gate" {
  input = "go"
}

data "http" "checked" {
  url        = "${var.base}/404"
  depends_on = [terraform_data.gate]

  lifecycle {
    postcondition {
      condition     = self.status_code == 200
      error_message = "Status code invalid: ${self.status_code}."
    }
  }
}

resource "local_file" "from_checked" {
  filename = "${path.module}/out/checked.txt"
  content  = data.http.checked.response_body
}

data "http" "unchecked" {
  url        = "${var.base}/404"
  depends_on = [terraform_data.gate]
}

resource "local_file" "guarded" {
  filename = "${path.module}/out/guarded.txt"
  content  = data.http.unchecked.response_body

  lifecycle {
    precondition {
      condition     = data.http.unchecked.status_code == 200
      error_message = "Refusing to write a ${data.http.unchecked.status_code} page."
    }
  }
}

resource "terraform_data" "after_guarded" {
  input = local_file.guarded.id
}

resource "local_file" "independent" {
  filename = "${path.module}/out/independent.txt"
  content  = "independent\\n"
}
'''


def test_status_code_conditions_checked_at_apply_time_fail_only_their_resource(tmp_path: Path,
                                                                                 server: str) -> None:
    d = write(tmp_path, CONDITIONS_AT_APPLY)
    proc = run(d, "apply", "-auto-approve", f"-var=base={server}")
    assert proc.returncode == 1, proc.stdout[-2000:]
    post = diagnostic(proc.stderr, "Resource postcondition failed")
    assert "Status code invalid: 404." in post and re.search(r"on main\.tf line 1[56]\b", post), post
    pre = diagnostic(proc.stderr, "Resource precondition failed")
    assert "Refusing to write a 404 page." in pre and re.search(r"on main\.tf line 3[67]\b", pre), pre
    for res in ("local_file.from_checked", "local_file.guarded", "terraform_data.after_guarded"):
        assert f"{res}: Creation complete" not in proc.stdout
    listed = state_list(d)
    assert {"terraform_data.gate", "local_file.independent"} <= listed
    assert not listed & {"local_file.from_checked", "local_file.guarded", "terraform_data.after_guarded"}
    assert not (d / "out" / "guarded.txt").exists()


# ---------------------------------------------------------------------------------------------
# time_sleep


def test_time_sleep_delays_really_happen(tmp_path: Path) -> None:
    d = write(tmp_path, '''
resource "time_sleep" "wait" {
  create_duration  = "2s"
  destroy_duration = "1s"
}

resource "terraform_data" "after" {
  input      = "after"
  depends_on = [time_sleep.wait]
}
''')
    t0 = time.monotonic()
    out = ok(d, "apply", "-auto-approve")
    assert time.monotonic() - t0 >= 2.0
    assert "time_sleep.wait: Creation complete after 2s" in out
    lines = out.splitlines()
    assert lines.index(next(x for x in lines if x.startswith("time_sleep.wait: Creation complete"))) < \
        lines.index("terraform_data.after: Creating...")
    out = ok(d, "plan")  # refreshing a time_sleep does not sleep (test_provider_time checks it)
    assert "No changes." in out and "time_sleep.wait: Refreshing state..." in out
    t0 = time.monotonic()
    out = ok(d, "destroy", "-auto-approve")
    assert time.monotonic() - t0 >= 1.0
    assert "time_sleep.wait: Destruction complete after 1s" in out


# ---------------------------------------------------------------------------------------------
# local-exec provisioners

PROVISIONED = '''
resource "terraform_data" "ok" {
  input = "ok"

  provisioner "local-exec" {
    command     = "echo created $NAME > created.txt"
    environment = { NAME = self.input }
  }

  provisioner "local-exec" {
    when    = destroy
    command = "echo destroyed ${self.output} > destroyed.txt"
  }
}

resource "terraform_data" "bad" {
  input = "bad"

  provisioner "local-exec" {
    command = "echo about to fail; exit 3"
  }
}

resource "terraform_data" "after_bad" {
  input = terraform_data.bad.output
}

resource "terraform_data" "tolerant" {
  input = "tolerant"

  provisioner "local-exec" {
    command    = "echo tolerated > tolerant.txt; exit 1"
    on_failure = continue
  }
}
'''


def test_local_exec_runs_and_a_failing_provisioner_taints(tmp_path: Path) -> None:
    d = write(tmp_path, PROVISIONED)
    proc = run(d, "apply", "-auto-approve")
    assert proc.returncode == 1
    assert (d / "created.txt").read_text() == "created ok\n"
    assert (d / "tolerant.txt").read_text() == "tolerated\n"
    assert 'terraform_data.ok (local-exec): Executing: ["/bin/sh" "-c" "echo created $NAME > created.txt"]' \
        in proc.stdout
    assert "terraform_data.bad (local-exec): about to fail" in proc.stdout
    diag = diagnostic(proc.stderr, "local-exec provisioner error")
    assert re.search(r"on main\.tf line 19\b", diag), diag
    assert "Error running command 'echo about to fail; exit 3': exit status 3. Output: about to fail" in diag
    assert "terraform_data.after_bad: Creating..." not in proc.stdout

    assert state_list(d) == {"terraform_data.ok", "terraform_data.bad", "terraform_data.tolerant"}
    status = {r["name"]: r["instances"][0].get("status") for r in state_doc(d)["resources"]}
    assert status == {"ok": None, "bad": "tainted", "tolerant": None}

    plan = ok(d, "plan")
    assert planned(plan, "replaced") == {"terraform_data.bad"}
    assert "tainted" in plan
    assert planned(plan, "created") == {"terraform_data.after_bad"}
    assert plan_counts(plan) == (2, 0, 1)

    # the fixed command replaces the tainted object and lets its dependent be created
    write(d, PROVISIONED.replace("echo about to fail; exit 3", "echo fixed"))
    out = ok(d, "apply", "-auto-approve")
    assert "Apply complete! Resources: 2 added, 0 changed, 1 destroyed." in out
    assert all(r["instances"][0].get("status") is None for r in state_doc(d)["resources"])
    assert no_changes(d)

    assert not (d / "destroyed.txt").exists()
    out = ok(d, "destroy", "-auto-approve")
    assert "Destroy complete! Resources: 4 destroyed." in out
    assert (d / "destroyed.txt").read_text() == "destroyed ok\n"
    assert state_list(d) == set()


def test_failing_destroy_provisioner_keeps_the_object(tmp_path: Path) -> None:
    d = write(tmp_path, '''
resource "terraform_data" "guarded" {
  input = "guarded"

  provisioner "local-exec" {
    when    = destroy
    command = "exit 4"
  }
}
''')
    ok(d, "apply", "-auto-approve")
    proc = run(d, "destroy", "-auto-approve")
    assert proc.returncode == 1
    assert "exit status 4" in proc.stderr
    assert state_list(d) == {"terraform_data.guarded"}


# ---------------------------------------------------------------------------------------------
# import


def test_import_random_and_time(tmp_path: Path) -> None:
    d = write(tmp_path, '''
resource "random_integer" "n" {
  min = 1
  max = 100
}

resource "random_id" "server" {
  byte_length = 4
}

resource "random_string" "s" {
  length = 6
}

resource "time_static" "t" {
  triggers = {}
}

resource "terraform_data" "nope" {
}
''')
    for addr, id_ in [("random_integer.n", "15,1,100"), ("random_id.server", "p-9hUg"),
                      ("random_string.s", "abcdef"), ("time_static.t", "2020-02-12T06:36:13Z")]:
        out = ok(d, "import", addr, id_)
        assert "Import successful!" in out, out
    v = values(d)
    assert v["random_integer.n"]["result"] == 15
    assert v["random_id.server"]["hex"] == "a7ef6152" and v["random_id.server"]["b64_std"] == "p+9hUg=="
    assert v["random_string.s"]["result"] == "abcdef"
    assert v["time_static.t"]["unix"] == 1581489373 and v["time_static.t"]["year"] == 2020
    plan = ok(d, "plan")
    assert planned(plan, "created") == {"terraform_data.nope"}
    assert plan_counts(plan) == (1, 0, 0)

    bad = run(d, "import", "random_integer.n", "15,1,100")
    assert bad.returncode == 1 and "already managed" in bad.stderr
