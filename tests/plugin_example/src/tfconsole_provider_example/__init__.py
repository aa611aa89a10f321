"""An example third-party tfconsole provider with one resource type, `example_thing`.

example_thing: `name` (required, forces replacement), `size` (optional, updated in place,
default 1); computed `id` and `label` ("<name>-<size>"). Import takes the name.
"""
from __future__ import annotations

import uuid
from typing import Any

from tfconsole.diags import Diagnostics
from tfconsole.lang.types import NUMBER, STRING
from tfconsole.lang.values import Unknown
from tfconsole.providers.interface import (
    ApplyRequest, ApplyResponse, Attr, BlockSchema, PlanRequest, PlanResponse, Provider, Schema,
)

THING = Schema(BlockSchema({
    "id": Attr(STRING, computed=True),
    "name": Attr(STRING, required=True, force_new=True),
    "size": Attr(NUMBER, optional=True, computed=True),
    "label": Attr(STRING, computed=True),
}))


class ExampleProvider(Provider):
    type_name = "example"
    source = "registry.terraform.io/example/example"

    def __init__(self, base_dir: str = ".") -> None:
        self.base_dir = base_dir

    def resource_schemas(self) -> dict[str, Schema]:
        return {"example_thing": THING}

    def validate_resource(self, type_name: str, config: dict[str, Any]) -> Diagnostics:
        d = Diagnostics()
        size = config.get("size")
        if isinstance(size, (int, float)) and size < 0:
            d.error("Invalid size", "size must not be negative")
        if config.get("name") is None:
            d.error("Missing required argument", 'The argument "name" is required, but no definition was found.')
        return d

    def plan_resource(self, req: PlanRequest) -> PlanResponse:
        planned = dict(req.proposed)
        if planned.get("size") is None:
            planned["size"] = 1
        prior = req.prior
        if prior is not None and prior.get("name") != planned.get("name"):
            planned.update(id=Unknown(STRING), label=Unknown(STRING))
            return PlanResponse(planned, requires_replace=[("name",)])
        if prior is None:
            planned["id"] = Unknown(STRING)
        else:
            planned["id"] = prior["id"]
        if isinstance(planned.get("name"), Unknown) or isinstance(planned.get("size"), Unknown):
            planned["label"] = Unknown(STRING)
        else:
            planned["label"] = f"{planned['name']}-{planned['size']}"
        return PlanResponse(planned)

    def apply_resource(self, req: ApplyRequest) -> ApplyResponse:
        if req.planned is None:
            return ApplyResponse(None)
        new = dict(req.planned)
        if isinstance(new.get("id"), Unknown):
            new["id"] = str(uuid.uuid4())
        new["label"] = f"{new['name']}-{new['size']}"
        return ApplyResponse(new)

    def import_resource(self, type_name: str, id_: str) -> tuple[dict[str, Any] | None, Diagnostics]:
        return {"id": id_, "name": id_, "size": 1, "label": f"{id_}-1"}, Diagnostics()
