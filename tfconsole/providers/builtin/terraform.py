"""The built-in `terraform` provider: terraform_data and data terraform_remote_state."""
from __future__ import annotations

import json
import os
import threading
from typing import Any

from tfconsole.diags import Diagnostics
from tfconsole.lang.types import DYNAMIC, STRING, MapType
from tfconsole.lang.values import Unknown, equal, from_json_typed, identical, is_null, type_of
from tfconsole.lang.types import type_from_json
from tfconsole.states.state import random_uuid

from ..interface import (
    ApplyRequest, ApplyResponse, Attr, BlockSchema, IdentitySchema, ImportedObject, PlanRequest, PlanResponse,
    Provider, ReadResponse, Schema,
)

DATA_SCHEMA = Schema(BlockSchema({
    "id": Attr(STRING, computed=True),
    "input": Attr(DYNAMIC, optional=True),
    "output": Attr(DYNAMIC, computed=True),
    "triggers_replace": Attr(DYNAMIC, optional=True),
}))

REMOTE_STATE_SCHEMA = Schema(BlockSchema({
    "backend": Attr(STRING, required=True),
    "config": Attr(DYNAMIC, optional=True),
    "defaults": Attr(DYNAMIC, optional=True),
    "outputs": Attr(DYNAMIC, computed=True),
    "workspace": Attr(STRING, optional=True),
}))


class TerraformProvider(Provider):
    type_name = "terraform"
    source = "terraform.io/builtin/terraform"

    def __init__(self, base_dir: str = ".") -> None:
        self.base_dir = base_dir

    def functions(self) -> dict[str, Any]:
        from .terraform_functions import SIGNATURES

        return SIGNATURES

    def call_function(self, name: str, args: list[Any]) -> tuple[Any, Diagnostics]:
        from .terraform_functions import call

        return call(name, args)

    def resource_schemas(self) -> dict[str, Schema]:
        return _RESOURCE_SCHEMAS  # built once: the walk asks per instance (callers only read it)

    def data_source_schemas(self) -> dict[str, Schema]:
        return _DATA_SCHEMAS

    def plan_resource(self, req: PlanRequest) -> PlanResponse:
        planned = dict(req.proposed)
        prior = req.prior
        if prior is None:
            planned["id"] = Unknown(STRING)
            planned["output"] = _output_unknown(planned.get("input"))
            return PlanResponse(planned)
        replace: list[tuple] = []
        if not _unchanged(prior.get("triggers_replace"), planned.get("triggers_replace")):
            replace.append(("triggers_replace",))
            planned["id"] = Unknown(STRING)
            planned["output"] = _output_unknown(planned.get("input"))
            return PlanResponse(planned, requires_replace=replace)
        if not _unchanged(prior.get("input"), planned.get("input")):
            planned["output"] = _output_unknown(planned.get("input"))
        else:
            planned["output"] = prior.get("output")
            if planned.keys() == prior.keys() and planned.get("id") is prior.get("id"):
                # nothing changes: the prior object itself, which the caller recognises as
                # equal without comparing it attribute by attribute
                return PlanResponse(prior)
        planned["id"] = prior.get("id")
        return PlanResponse(planned)

    def apply_resource(self, req: ApplyRequest) -> ApplyResponse:
        if req.planned is None:
            return ApplyResponse(None)
        new = dict(req.planned)
        if isinstance(new.get("id"), Unknown):
            new["id"] = _random_ids.next()
        new["output"] = new.get("input")
        return ApplyResponse(new)

    def read_resource(self, type_name: str, state: dict[str, Any], private: str | None,
                      identity: Any = None) -> ReadResponse:
        return ReadResponse(state, private=private)

    def import_resource(self, type_name: str, id_: str) -> tuple[dict[str, Any] | None, Diagnostics]:
        return {"id": id_, "input": None, "output": None, "triggers_replace": None}, Diagnostics()

    def identity_schemas(self) -> dict[str, IdentitySchema]:
        # Terraform 1.15 declares this identity for terraform_data, yet never returns one
        return _IDENTITY_SCHEMAS

    def import_resource_state(self, type_name: str, id_: str,
                              identity: Any = None) -> tuple[list[ImportedObject], Diagnostics]:
        # as Terraform's: an import by identity imports the empty id, without an identity
        value, diags = self.import_resource(type_name, id_)
        return [ImportedObject(type_name, value)], diags

    def read_data_source(self, type_name: str, config: dict[str, Any]) -> tuple[dict[str, Any] | None, Diagnostics]:
        diags = Diagnostics()
        backend = config.get("backend")
        cfg = config.get("config") or {}
        workspace = config.get("workspace")
        workspace = "default" if is_null(workspace) or not workspace else workspace
        outputs: dict[str, Any] = {}
        defaults = config.get("defaults")
        if isinstance(defaults, dict):
            outputs.update(defaults)
        if backend in ("http", "pg"):
            data = _remote_state(str(backend), cfg, str(workspace), self.base_dir, diags)
            if data is None:
                return None, diags
        elif backend != "local":
            diags.error("Invalid backend configuration",
                        f"The backend {backend!r} is not supported by tfconsole; it has \"local\", \"http\" "
                        "and \"pg\".")
            return None, diags
        else:
            path = cfg.get("path") if isinstance(cfg, dict) else None
            if not path:
                path = "terraform.tfstate" if workspace == "default" else \
                    os.path.join("terraform.tfstate.d", str(workspace), "terraform.tfstate")
            if not os.path.isabs(path):
                path = os.path.join(self.base_dir, path)
            try:
                with open(path, encoding="utf-8") as fh:
                    data = json.load(fh)
            except FileNotFoundError:
                data = {}
            except (OSError, ValueError) as exc:
                diags.error("Error loading state", f"Unable to read the state file {path}: {exc}")
                return None, diags
        for name, out in (data.get("outputs") or {}).items():
            try:
                outputs[name] = from_json_typed(out.get("value"), type_from_json(out.get("type", "dynamic")))
            except (ValueError, TypeError):
                outputs[name] = out.get("value")
        result = dict(config)
        result["outputs"] = outputs
        return result, diags


def _remote_state(kind: str, cfg: Any, workspace: str, base_dir: str, diags: Diagnostics) -> dict | None:
    """A state file's JSON read from an http or pg backend (empty when it has no state yet)."""
    from tfconsole.backends import BACKENDS, Overrides

    if not isinstance(cfg, dict):
        diags.error("Invalid backend configuration", "The \"config\" argument must be an object.")
        return None
    backend, d = BACKENDS[kind](base_dir, cfg, Overrides())
    diags.append(d)
    if backend is None or diags.has_errors:
        return None
    raw, d = backend.read_raw(workspace)
    diags.append(d)
    if diags.has_errors:
        return None
    try:
        return json.loads(raw) if raw else {}
    except ValueError as exc:
        diags.error("Error loading state", f"The state of the {kind} backend is not JSON: {exc}")
        return None


def _output_unknown(inp: Any) -> Any:
    if is_null(inp):
        return None if inp is None else inp
    return Unknown(type_of(inp))


def _unchanged(prior: Any, planned: Any) -> bool:
    """Equal and of the same type (a value of another type is a change even when equal)."""
    return identical(prior, planned) or (equal(prior, planned) and _same_type(prior, planned))


def _same_type(a: Any, b: Any) -> bool:
    if is_null(a) and is_null(b):
        return True
    try:
        return type_of(a) == type_of(b)
    except TypeError:
        return False


# built once: the walk asks for it twice per instance
_DATA_IDENTITY = IdentitySchema(0, {"id": Attr(STRING, required=True)})
_IDENTITY_SCHEMAS = {"terraform_data": _DATA_IDENTITY}
_RESOURCE_SCHEMAS = {"terraform_data": DATA_SCHEMA}
_DATA_SCHEMAS = {"terraform_remote_state": REMOTE_STATE_SCHEMA}


class _RandomIds:
    """Random (version 4) UUID texts from the OS's random source, read 4 KiB at a time: one
    system call per 256 ids instead of one per id (each one a GIL hand-off between the walk's
    worker threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._buf = b""
        self._pos = 0

    def next(self) -> str:
        with self._lock:
            if self._pos + 16 > len(self._buf):
                self._buf, self._pos = os.urandom(4096), 0
            raw = self._buf[self._pos:self._pos + 16]
            self._pos += 16
        return random_uuid(raw)


_random_ids = _RandomIds()
