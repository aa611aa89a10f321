"""tfcheck: a protocol-6 provider written with the PyPI `tf` framework, for the plugin tests.

Objects live as JSON files in a store directory (provider argument `store`, else the
TFCHECK_STORE environment variable), so tests can change or delete them behind the engine's
back (drift) and import them by id. Resource `tfcheck_thing` (with a requires-replace `zone`,
a sensitive `secret`, computed `id` and `label`, and a `delay` to slow a create down), data
source `tfcheck_echo`, function `shout`. Misbehaviour on request, by name: "crash" kills the
provider in the middle of its create, "liar..." applies an update other than it planned,
"badplan..." plans a value the configuration did not ask for, "flip..." plans a new label every
time it is asked. Every create and delete logs a
line on stderr. The most creates ever in flight at once is kept in concurrency.txt.

Run by tests/plugin_support.py through an executable wrapper; never imported by tfconsole.
"""
from __future__ import annotations

import json
import os
import sys
import threading
import time
import uuid
from typing import Any

from tf import runner, schema, types
from tf.function import CallContext, Function, FunctionSignature, Parameter, Return
from tf.iface import (
    Config,
    CreateContext,
    DataSource,
    DeleteContext,
    ImportContext,
    PlanContext,
    ReadContext,
    ReadDataContext,
    Resource,
    State,
    UpdateContext,
)
from tf.provider import Provider
from tf.utils import Diagnostics

_STORE: dict[str, str] = {}


def _store() -> str:
    path = _STORE.get("dir") or os.environ.get("TFCHECK_STORE") or "."
    os.makedirs(path, exist_ok=True)
    return path


def _file(id_: str) -> str:
    return os.path.join(_store(), f"{id_}.json")


_BUSY = {"now": 0, "most": 0}
_BUSY_LOCK = threading.Lock()


class _Busy:
    """Counts creates in flight; the most at once is written to the store (concurrency.txt)."""

    def __enter__(self) -> None:
        with _BUSY_LOCK:
            _BUSY["now"] += 1
            _BUSY["most"] = max(_BUSY["most"], _BUSY["now"])
            with open(os.path.join(_store(), "concurrency.txt"), "w", encoding="utf-8") as fh:
                json.dump(_BUSY["most"], fh)

    def __exit__(self, *exc: object) -> None:
        with _BUSY_LOCK:
            _BUSY["now"] -= 1


def _log(message: str) -> None:
    print(json.dumps({"@level": "info", "@message": message, "@module": "tfcheck",
                      "tf_resource_type": "tfcheck_thing"}), file=sys.stderr, flush=True)


class Thing(Resource):
    def __init__(self, provider: TfCheck):
        self.provider = provider

    @classmethod
    def get_name(cls) -> str:
        return "thing"

    @classmethod
    def get_schema(cls) -> schema.Schema:
        return schema.Schema(version=1, attributes=[
            schema.Attribute("id", types.String(), computed=True),
            schema.Attribute("name", types.String(), required=True),
            schema.Attribute("size", types.Number(), optional=True),
            schema.Attribute("tags", types.Map(types.String()), optional=True),
            schema.Attribute("zone", types.String(), optional=True, requires_replace=True),
            schema.Attribute("secret", types.String(), optional=True, sensitive=True),
            schema.Attribute("delay", types.Number(), optional=True),
            schema.Attribute("label", types.String(), computed=True),
        ])

    def _label(self, state: State) -> Any:
        return f"{state['name']}-{state.get('size') if state.get('size') is not None else 0}"

    def plan(self, ctx: PlanContext, current: State | None, planned: State) -> State | None:
        if ctx.changed_fields & {"name", "size"}:
            planned["label"] = self._label(planned)
        if planned["name"].startswith("badplan"):  # a buggy provider: plans a value the config did not ask for
            planned["name"] = "other"
        if planned["name"].startswith("flip"):  # a buggy provider: plans differently every time it is asked
            planned["label"] = uuid.uuid4().hex[:8]
        return planned

    def create(self, ctx: CreateContext, planned: State) -> State | None:
        _log(f"creating {planned['name']}")
        with _Busy():
            if planned.get("delay"):
                time.sleep(float(planned["delay"]))
            if planned["name"] == "crash":
                os._exit(3)
            state = dict(planned, id=uuid.uuid4().hex[:12])
            state["label"] = self._label(state)
            self._write(state)
        return state

    def _write(self, state: State) -> None:
        with open(_file(state["id"]), "w", encoding="utf-8") as fh:
            json.dump(state, fh)

    def read(self, ctx: ReadContext, current: State) -> State | None:
        try:
            with open(_file(current["id"]), encoding="utf-8") as fh:
                return json.load(fh)
        except FileNotFoundError:
            return None

    def update(self, ctx: UpdateContext, current: State, planned: State) -> State | None:
        state = dict(planned, id=current["id"])
        state["label"] = self._label(state)
        if state["name"].startswith("liar"):  # a buggy provider: applies something other than it planned
            state["label"] = "changed"
        self._write(state)
        return state

    def delete(self, ctx: DeleteContext, current: State) -> None:
        _log(f"deleting {current['name']}")
        try:
            os.unlink(_file(current["id"]))
        except FileNotFoundError:
            pass

    def import_(self, ctx: ImportContext, id: str) -> State | None:
        try:
            with open(_file(id), encoding="utf-8") as fh:
                return json.load(fh)
        except FileNotFoundError:
            ctx.diagnostics.add_error("Cannot import", f"No thing with id {id}.")
            return None


class Echo(DataSource):
    def __init__(self, provider: TfCheck):
        self.provider = provider

    @classmethod
    def get_name(cls) -> str:
        return "echo"

    @classmethod
    def get_schema(cls) -> schema.Schema:
        return schema.Schema(attributes=[
            schema.Attribute("input", types.String(), required=True),
            schema.Attribute("output", types.String(), computed=True),
        ])

    def read(self, ctx: ReadDataContext, config: Config) -> State | None:
        return {"input": config["input"], "output": config["input"].upper()}


class Shout(Function):
    def __init__(self, provider: TfCheck):
        self.provider = provider

    @classmethod
    def get_name(cls) -> str:
        return "shout"

    @classmethod
    def get_signature(cls) -> FunctionSignature:
        return FunctionSignature(parameters=[Parameter("text", types.String())], return_type=Return(types.String()),
                                 summary="upper-case text with an exclamation mark")

    def call(self, ctx: CallContext, arguments: list[Any]) -> Any:
        return str(arguments[0]).upper() + "!"


class TfCheck(Provider):
    def get_model_prefix(self) -> str:
        return "tfcheck_"

    def full_name(self) -> str:
        return "registry.terraform.io/tfconsole/tfcheck"

    def get_provider_schema(self, diags: Diagnostics) -> schema.Schema:
        return schema.Schema(attributes=[schema.Attribute("store", types.String(), optional=True)])

    def validate_config(self, diags: Diagnostics, config: Config) -> None:
        pass

    def configure_provider(self, diags: Diagnostics, config: Config) -> None:
        if config.get("store"):
            _STORE["dir"] = config["store"]

    def get_data_sources(self) -> list:
        return [Echo]

    def get_resources(self) -> list:
        return [Thing]

    def get_functions(self) -> list:
        return [Shout]


def main() -> None:
    runner.run_provider(TfCheck(), sys.argv)


if __name__ == "__main__":
    main()
