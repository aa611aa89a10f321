"""The `external` provider (registry.terraform.io/hashicorp/external): data "external".

Runs `program` (no shell) with the `query` map as a JSON object on stdin and reads a JSON
object of string values from stdout into `result`. Error diagnostics follow the real provider.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from typing import Any

from tfconsole.diags import Diagnostics
from tfconsole.lang.numbers import Num
from tfconsole.lang.types import STRING, ListType, MapType

from ._framework import A, DataSourceType, FrameworkProvider, str_map


def _size_at_least_one(name: str, value: Any, config: dict, diags: Diagnostics) -> None:
    if isinstance(value, list) and len(value) < 1:
        diags.error("Invalid Attribute Value",
                    f"Attribute {name} list must contain at least 1 elements, got: {len(value)}")


def go_json_marshal(obj: dict[str, str]) -> bytes:
    """encoding/json.Marshal of a map[string]string: sorted keys, HTML characters escaped."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    text = (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
    return text.encode("utf-8")


def _exit_state(returncode: int) -> str:
    """os/exec's *ExitError text."""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        names = {"SIGKILL": "killed", "SIGTERM": "terminated", "SIGINT": "interrupt", "SIGSEGV":
                 "segmentation fault", "SIGABRT": "aborted", "SIGPIPE": "broken pipe", "SIGHUP": "hangup"}
        return f"signal: {names.get(name, name)}"
    return f"exit status {returncode}"


def _decode_result(data: bytes) -> dict[str, str]:
    """json.Unmarshal into map[string]string, with Go's error texts for the common failures."""
    text = data.decode("utf-8", errors="replace")
    if not text.strip():
        raise ValueError("unexpected end of JSON input")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.pos >= len(text.rstrip()):
            raise ValueError("unexpected end of JSON input") from None
        ch = text[exc.pos]
        where = "looking for beginning of value" if exc.pos == len(text) - len(text.lstrip()) \
            else "after top-level value" if "Extra data" in exc.msg else "looking for beginning of value"
        raise ValueError(f"invalid character {_go_char(ch)} {where}") from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"json: cannot unmarshal {_json_kind(value)} into Go value of type map[string]string")
    out: dict[str, str] = {}
    for k, v in value.items():
        if v is None:
            out[k] = ""
        elif isinstance(v, str):
            out[k] = v
        else:
            raise ValueError(f"json: cannot unmarshal {_json_kind(v)} into Go value of type string")
    return out


def _go_char(ch: str) -> str:
    if ch == "'":
        return "'\\''"
    return f"'{ch}'"


def _json_kind(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float, Num)):
        return "number"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return "string"


LOOKUP_DETAIL = (
    "The data source received an unexpected error while attempting to parse the query. "
    "The data source received an unexpected error while attempting to find the program.\n\n"
    "The program must be accessible according to the platform where Terraform is running.\n\n"
    "If the expected program should be automatically found on the platform where Terraform is running, ensure "
    "that the program is in an expected directory. On Unix-based platforms, these directories are typically "
    "searched based on the '$PATH' environment variable. On Windows-based platforms, these directories are "
    "typically searched based on the '%PATH%' environment variable.\n\n"
    "If the expected program is relative to the Terraform configuration, it is recommended that the program name "
    "includes the interpolated value of 'path.module' before the program name to ensure that it is compatible "
    "with varying module usage. For example: \"${path.module}/my-program\"\n\n"
    "The program must also be executable according to the platform where Terraform is running. On Unix-based "
    "platforms, the file on the filesystem must have the executable bit set. On Windows-based platforms, no "
    "action is typically necessary.\n"
)


class ExternalData(DataSourceType):
    name = "external"
    attrs = {
        "program": A(ListType(STRING), required=True, validators=(_size_at_least_one,)),
        "working_dir": A(STRING, optional=True),
        "query": A(MapType(STRING), optional=True),
        "result": A(MapType(STRING), computed=True),
        "id": A(STRING, computed=True),
    }

    def _lookup(self, program: str) -> tuple[str | None, str]:
        """exec.LookPath: (path, error text)."""
        if os.sep in program or (os.altsep and os.altsep in program):
            path = self.p.path(program)
            if not os.path.exists(path):
                return None, f'exec: "{program}": stat {program}: no such file or directory'
            if os.path.isdir(path) or not os.access(path, os.X_OK):
                return None, f"exec: \"{program}\": permission denied"
            return path, ""
        found = shutil.which(program)
        if found is None:
            return None, f'exec: "{program}": executable file not found in $PATH'
        return found, ""

    def read(self, config: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        program = [p for p in (config.get("program") or []) if p]
        if not program:
            diags.error("External Program Missing",
                        "The data source was configured without a program to execute. Verify the configuration "
                        "contains at least one non-empty value.")
            return None
        query = {k: v for k, v in (config.get("query") or {}).items() if v is not None}
        path, err = self._lookup(program[0])
        if path is None:
            diags.error("External Program Lookup Failed",
                        LOOKUP_DETAIL + f"\nPlatform: {sys.platform}\nProgram: {program[0]}\nError: {err}")
            return None
        working_dir = config.get("working_dir") or ""
        cwd = self.p.path(working_dir) if working_dir else self.p.base_dir
        try:
            proc = subprocess.run([path, *program[1:]], input=go_json_marshal(query), capture_output=True,
                                  cwd=cwd, check=False)
        except OSError as exc:
            diags.error("External Program Execution Failed",
                        "The data source received an unexpected error while attempting to execute the program.\n\n"
                        "The program was executed, however it returned no additional error messaging."
                        f"\n\nProgram: {path}\nState: {exc.strerror or exc}")
            return None
        stderr = proc.stderr.decode("utf-8", errors="replace")
        if proc.returncode != 0:
            if stderr:
                diags.error("External Program Execution Failed",
                            "The data source received an unexpected error while attempting to execute the program."
                            f"\n\nProgram: {path}\nError Message: {stderr}\nState: {_exit_state(proc.returncode)}")
            else:
                diags.error("External Program Execution Failed",
                            "The data source received an unexpected error while attempting to execute the program."
                            "\n\nThe program was executed, however it returned no additional error messaging."
                            f"\n\nProgram: {path}\nState: {_exit_state(proc.returncode)}")
            return None
        try:
            result = _decode_result(proc.stdout)
        except ValueError as exc:
            diags.error("Unexpected External Program Results",
                        "The data source received unexpected results after executing the program.\n\n"
                        "Program output must be a JSON encoded map of string keys and string values.\n\n"
                        "If the error is unclear, the output can be viewed by enabling Terraform's logging at "
                        "TRACE level. Terraform documentation on logging: "
                        "https://www.terraform.io/internals/debugging\n"
                        f"\nProgram: {path}\nResult Error: {exc}")
            return None
        state = dict(config)
        state["result"] = str_map(result)
        state["id"] = "-"
        return state


class ExternalProvider(FrameworkProvider):
    type_name = "external"
    source = "registry.terraform.io/hashicorp/external"
    data_source_types = (ExternalData,)
