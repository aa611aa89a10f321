"""The `null` provider (registry.terraform.io/hashicorp/null): null_resource and data null_data_source."""
from __future__ import annotations

import secrets
from typing import Any

from tfconsole.diags import Diagnostics
from tfconsole.lang.types import STRING, MapType

from ._framework import A, DataSourceType, FrameworkProvider, ResourceType, requires_replace_if_values_not_null


def _go_rand_int() -> str:
    """math/rand.Int(): a non-negative 63-bit integer, in decimal."""
    return str(secrets.randbits(63))


class NullResource(ResourceType):
    name = "null_resource"
    attrs = {
        "triggers": A(MapType(STRING), optional=True, replace_if=requires_replace_if_values_not_null,
                      description="A map of arbitrary strings that, when changed, will force the null resource "
                                  "to be replaced, re-running any associated provisioners."),
        "id": A(STRING, computed=True, use_state=True,
                description="This is set to a random value at create time."),
    }

    def create(self, planned: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        state = dict(planned)
        state["id"] = _go_rand_int()
        return state


class NullDataSource(DataSourceType):
    name = "null_data_source"
    attrs = {
        "inputs": A(MapType(STRING), optional=True),
        "outputs": A(MapType(STRING), computed=True),
        "random": A(STRING, computed=True),
        "has_computed_default": A(STRING, optional=True, computed=True),
        "id": A(STRING, computed=True,
                deprecated="This attribute is only present for some legacy compatibility issues and should not "
                           "be used. It will be removed in a future version."),
    }

    def read(self, config: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        state = dict(config)
        state["outputs"] = config.get("inputs")
        state["random"] = _go_rand_int()
        if state.get("has_computed_default") is None:
            state["has_computed_default"] = "default"
        state["id"] = "static"
        return state


class NullProvider(FrameworkProvider):
    type_name = "null"
    source = "registry.terraform.io/hashicorp/null"
    resource_types = (NullResource,)
    data_source_types = (NullDataSource,)

    def validate_data_source(self, type_name: str, config: dict[str, Any]) -> Diagnostics:
        diags = super().validate_data_source(type_name, config)
        if type_name == "null_data_source" and not diags.has_errors:
            diags.warning("Deprecated",
                          'The null_data_source was historically used to construct intermediate values to re-use '
                          'elsewhere in configuration, the same can now be achieved using locals or the '
                          'terraform_data resource type in Terraform 1.4 and later.')
        return diags
