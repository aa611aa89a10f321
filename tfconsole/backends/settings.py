"""A backend block's arguments, each falling back to its environment variable and then to its
default (Terraform's backendbase.GetAttrEnvDefaultFallback / SDKLikeDefaults), type-checked."""
from __future__ import annotations

from decimal import Decimal
from typing import Any, Mapping

from tfconsole.diags import Diagnostics

TRUE = {"1", "t", "true", "T", "TRUE", "True"}  # Go's strconv.ParseBool
FALSE = {"0", "f", "false", "F", "FALSE", "False"}


def schema_types(attributes: Mapping[str, tuple[str, str | None, Any]]) -> dict[str, str]:
    """The argument types of a backend's ATTRIBUTES table, for register_backend."""
    return {name: ("number" if kind == "int" else kind) for name, (kind, _, _) in attributes.items()}


class Settings:
    def __init__(self, backend: str, settings: Mapping[str, Any], env: Mapping[str, str]):
        self.backend = backend
        self.settings = settings
        self.env = env
        self.diags = Diagnostics()

    def resolve(self, attributes: Mapping[str, tuple[str, str | None, Any]]) -> dict[str, Any]:
        """attributes: name -> (kind "string" | "bool" | "int", environment variable, default)."""
        for name in self.settings:
            if name not in attributes:
                self.diags.error("Unsupported argument",
                                 f"An argument named \"{name}\" is not expected here (backend \"{self.backend}\").")
        return {name: self._one(name, kind, var, default) for name, (kind, var, default) in attributes.items()}

    def _one(self, name: str, kind: str, var: str | None, default: Any) -> Any:
        from tfconsole.lang.values import is_null

        v = self.settings.get(name)
        if not is_null(v):
            return self._typed(name, kind, v, f"The \"{name}\" argument")
        if var and self.env.get(var):
            return self._typed(name, kind, self.env[var], f"The {var} environment variable")
        return default

    def _typed(self, name: str, kind: str, v: Any, what: str) -> Any:
        if kind == "string":
            if isinstance(v, bool) or not isinstance(v, (str, int, Decimal, float)):
                return self._bad(what, "a string")
            return v if isinstance(v, str) else format(v, "f") if isinstance(v, Decimal) else str(v)
        if kind == "bool":
            if isinstance(v, bool):
                return v
            if isinstance(v, str) and (v in TRUE or v in FALSE):
                return v in TRUE
            return self._bad(what, "a bool")
        try:
            n = Decimal(v) if isinstance(v, (str, int, Decimal)) and not isinstance(v, bool) else None
        except ArithmeticError:
            n = None
        if n is None or not n.is_finite() or n != n.to_integral_value():
            return self._bad(what, "a whole number")
        return int(n)

    def _bad(self, what: str, wanted: str) -> None:
        self.diags.error("Invalid backend configuration", f"{what} of backend \"{self.backend}\" must be {wanted}.")
        return None
