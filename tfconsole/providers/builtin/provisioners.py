"""Built-in provisioners: local-exec.

`run_local_exec(config, base_dir, output)` runs `command` through the interpreter (default
`/bin/sh -c`, `cmd /C` on Windows) in `working_dir` (relative to base_dir, terraform's working
directory) with `environment` added to the inherited environment, and streams each line of
combined stdout/stderr to `output` as it arrives. Messages follow Terraform's provisioner.
"""
from __future__ import annotations

import os
import subprocess
import sys
from typing import Any, Callable

from tfconsole.diags import Diagnostics
from tfconsole.lang.types import BOOL, STRING, ListType, MapType
from tfconsole.lang.values import EPHEMERAL, ConversionError, Null, Sensitive, Unknown, contains_marks, convert, unmark_deep

from ..interface import Attr, BlockSchema, Schema
from ._framework import go_quote

MAX_OUTPUT = 8 * 1024  # the tail of the output kept for the error message

LOCAL_EXEC_SCHEMA = Schema(BlockSchema({
    "command": Attr(STRING, required=True),
    "interpreter": Attr(ListType(STRING), optional=True),
    "working_dir": Attr(STRING, optional=True),
    "environment": Attr(MapType(STRING), optional=True),
    "quiet": Attr(BOOL, optional=True),
}))


def _plain(v: Any) -> Any:
    if type(v) is Sensitive:
        v = v.value
    if v is None or type(v) is Null:
        return None
    return v


def validate_local_exec(config: dict[str, Any]) -> Diagnostics:
    """ValidateProvisionerConfig: the configuration must conform to the schema."""
    diags = Diagnostics()
    config = config or {}
    for name in config:
        if name not in LOCAL_EXEC_SCHEMA.block.attributes:
            diags.error("Invalid local-exec provisioner configuration", f'unsupported attribute "{name}"')
    for name, attr in LOCAL_EXEC_SCHEMA.block.attributes.items():
        v = _plain(config.get(name))
        if v is None:
            if attr.required:
                diags.error("Invalid local-exec provisioner configuration", f'attribute "{name}" is required')
            continue
        if type(v) is Unknown:
            continue
        try:
            convert(v, attr.type)
        except ConversionError as exc:
            diags.error("Invalid local-exec provisioner configuration", f".{name}: {exc.message}")
    return diags


SUPPRESSED = "(output suppressed due to sensitive value in config)"
SUPPRESSED_EPHEMERAL = "(output suppressed due to ephemeral value in config)"


def run_local_exec(config: dict[str, Any], base_dir: str, output: Callable[[str], None]) -> Diagnostics:
    """config may carry sensitive marks: then, as Terraform does, every line of output (the
    Executing line included) is replaced by SUPPRESSED, and the error names neither the command
    nor its output (Terraform's error still quotes them; tfconsole never prints a secret)."""
    config, marks = unmark_deep(config)
    sensitive = bool(marks)
    if sensitive:
        # Terraform names the ephemeral mark when a value carries both
        output = _suppressed(output, SUPPRESSED_EPHEMERAL if marks & EPHEMERAL else SUPPRESSED)
    return _run(config, base_dir, output, sensitive)


def _suppressed(output: Callable[[str], None], text: str) -> Callable[[str], None]:
    def out(_line: str) -> None:
        output(text)
    return out


def _run(config: dict[str, Any], base_dir: str, output: Callable[[str], None], sensitive: bool) -> Diagnostics:
    diags = validate_local_exec(config)
    if diags.has_errors:
        return diags
    command = _plain(config.get("command"))
    command = convert(command, STRING) if command is not None else ""
    if command == "":
        diags.error("Invalid local-exec provisioner command", "The command must be a non-empty string.")
        return diags

    env = dict(os.environ)
    environment = _plain(config.get("environment"))
    if environment:
        for k, v in convert(environment, MapType(STRING)).items():
            v = _plain(v)
            if v is not None:
                env[k] = v

    interpreter = _plain(config.get("interpreter"))
    args: list[str] = []
    if interpreter is not None and len(interpreter) > 0:
        args = [x for x in (_plain(i) for i in convert(interpreter, ListType(STRING))) if x is not None]
    else:
        args = ["cmd", "/C"] if sys.platform == "win32" else ["/bin/sh", "-c"]
    args.append(command)

    working_dir = _plain(config.get("working_dir"))
    cwd = base_dir
    if working_dir:
        cwd = working_dir if os.path.isabs(working_dir) else os.path.join(base_dir, working_dir)

    quiet = _plain(config.get("quiet"))
    if quiet is True or quiet == "true":
        output("local-exec: Executing: Suppressed by quiet=true")
    else:
        output("Executing: [" + " ".join(go_quote(a) for a in args) + "]")

    tail = bytearray()
    err_text: str | None = None
    try:
        proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
    except FileNotFoundError as exc:
        missing = exc.filename if exc.filename else args[0]
        if not os.path.isdir(cwd):
            err_text = f"chdir {cwd}: no such file or directory"
        else:
            err_text = f'exec: "{missing}": executable file not found in $PATH'
    except OSError as exc:
        err_text = f"fork/exec {args[0]}: {(exc.strerror or str(exc)).lower()}"
    else:
        assert proc.stdout is not None
        pending = b""
        while True:
            chunk = proc.stdout.read1(4096) if hasattr(proc.stdout, "read1") else proc.stdout.read(4096)
            if not chunk:
                break
            tail.extend(chunk)
            if len(tail) > MAX_OUTPUT:
                del tail[:len(tail) - MAX_OUTPUT]
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                output(line.rstrip(b"\r").decode("utf-8", errors="replace"))
        if pending:
            output(pending.rstrip(b"\r").decode("utf-8", errors="replace"))
        rc = proc.wait()
        if rc != 0:
            if rc < 0:
                import signal

                try:
                    name = signal.Signals(-rc).name
                except ValueError:
                    name = str(-rc)
                names = {"SIGKILL": "killed", "SIGTERM": "terminated", "SIGINT": "interrupt"}
                err_text = f"signal: {names.get(name, name)}"
            else:
                err_text = f"exit status {rc}"
    if err_text is not None and sensitive:
        diags.error("local-exec provisioner error", f"Error running command (command suppressed due to sensitive "
                    f"value in config): {err_text}. Output: {SUPPRESSED}")
    elif err_text is not None:
        diags.error("local-exec provisioner error",
                    f"Error running command '{command}': {err_text}. Output: "
                    + bytes(tail).decode("utf-8", errors="replace"))
    return diags


PROVISIONERS = {"local-exec": run_local_exec}
PROVISIONER_SCHEMAS = {"local-exec": LOCAL_EXEC_SCHEMA}
