"""Backends: where a configuration's state lives, chosen by the root module's `backend` block.

BACKENDS maps a backend type to a factory that builds the backend from the block's settings;
`local` is registered by backends/local.py, and an implementation of another type (http, pg)
registers itself the same way with register_backend(). A type with no implementation, and a
`cloud` block, are refused with Terraform's "Unsupported/Invalid backend type" diagnostic naming
the block's file:line: tfconsole must never fall back to a local state that does not hold the
configuration's objects (a plan against it would re-create everything).
"""
from __future__ import annotations

from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from collections.abc import Callable
from typing import Any

from tfconsole.diags import Diagnostics


@dataclass(frozen=True)
class Overrides:
    """Command-line settings that take precedence over the block (-state)."""

    state_path: str | None = None


# factory(working_dir, settings from the block, overrides) -> backend, or None and diagnostics
BackendFactory = Callable[[str, dict[str, Any], Overrides], tuple[Any, Diagnostics]]
# the backends besides local, by the module that registers each: imported when first asked
# for (the http backend alone, with urllib, cost a millisecond of every command)
_ON_DEMAND = {"http": "http", "pg": "pg"}


def _load(kind: Any) -> bool:
    """Import the module registering `kind` if it has one not loaded yet; whether it has one."""
    module = _ON_DEMAND.get(kind) if type(kind) is str else None
    if module is None:
        return False
    import importlib

    importlib.import_module(f"{__name__}.{module}")
    return True


class _Registry(dict):
    """A table by backend type whose on-demand types' modules load on first use."""

    def __missing__(self, kind: str) -> Any:
        if _load(kind) and dict.__contains__(self, kind):
            return dict.__getitem__(self, kind)
        raise KeyError(kind)

    def __contains__(self, kind: object) -> bool:
        return dict.__contains__(self, kind) or (_load(kind) and dict.__contains__(self, kind))

    def get(self, kind: str, default: Any = None) -> Any:  # type: ignore[override]
        return self[kind] if kind in self else default

    def _all(self) -> None:
        for kind in _ON_DEMAND:
            _load(kind)

    def __iter__(self) -> Any:
        self._all()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._all()
        return dict.__len__(self)

    def keys(self) -> Any:  # type: ignore[override]
        self._all()
        return dict.keys(self)

    def items(self) -> Any:  # type: ignore[override]
        self._all()
        return dict.items(self)

    def values(self) -> Any:  # type: ignore[override]
        self._all()
        return dict.values(self)


BACKENDS: dict[str, BackendFactory] = _Registry()
# each type's arguments: name -> "string" | "bool" | "number" (what the block may set, and how
# Terraform's hash of the block reads them)
BACKEND_SCHEMAS: dict[str, dict[str, str]] = _Registry()

# the backend types Terraform 1.15 has (so an unknown name gets Terraform's own wording)
TERRAFORM_BACKENDS = frozenset({"local", "remote", "azurerm", "consul", "cos", "gcs", "http", "inmem",
                                "kubernetes", "oss", "pg", "s3", "oci"})


def register_backend(name: str, factory: BackendFactory, schema: dict[str, str]) -> None:
    BACKENDS[name] = factory
    BACKEND_SCHEMAS[name] = dict(schema)


def check_backend(root: Any, *, init: bool = False) -> Diagnostics:
    """Errors when the root module (config.model.Module, or None) asks for a backend tfconsole
    does not have. init and validate say "Unsupported backend type", other commands "Invalid
    backend type", as Terraform does."""
    diags = Diagnostics()
    if root is None:
        return diags
    summary = "Unsupported backend type" if init else "Invalid backend type"
    cloud = getattr(root, "cloud_range", None)
    if cloud is not None:
        diags.error("Unsupported backend type",
                    "This configuration's \"cloud\" block keeps its state in HCP Terraform, which tfconsole does "
                    "not support. tfconsole will not use a local state instead: it does not hold this "
                    "configuration's objects, and a plan against it would create everything again.", cloud)
    if root.backend is None:
        return diags
    kind = root.backend[0]
    if kind in BACKENDS:
        return diags
    where = getattr(root, "backend_range", None)
    if kind == "cloud":
        detail = ("There is no backend type named \"cloud\"; HCP Terraform is configured with a \"cloud\" block, "
                  "which tfconsole does not support either.")
    elif kind in TERRAFORM_BACKENDS:
        detail = (f"tfconsole does not implement the \"{kind}\" backend (it has: {', '.join(sorted(BACKENDS))}). "
                  "It will not use a local state instead: that does not hold this configuration's objects, "
                  "and a plan against it would create everything again.")
    else:
        detail = f"There is no backend type named \"{kind}\"."
    diags.error(summary, detail, where)
    return diags


def open_backend(root: Any, working_dir: str, overrides: Overrides | None = None) -> tuple[Any, Diagnostics]:
    """The backend the root module configures (local when it has no backend block)."""
    overrides = overrides or Overrides()
    diags = check_backend(root)
    if diags.has_errors:
        return UnavailableBackend(diags), diags
    kind, body = root.backend if root is not None and root.backend is not None else ("local", None)
    settings, d = block_settings(kind, body)
    diags.append(d)
    if diags.has_errors:
        return UnavailableBackend(diags), diags
    from .config import effective_settings  # what `init` recorded (-backend-config), while unchanged

    settings, d = effective_settings(kind, settings, working_dir)
    diags.append(d)
    if diags.has_errors:
        return UnavailableBackend(diags), diags
    backend, d = BACKENDS[kind](working_dir, settings, overrides)
    diags.append(d)
    if backend is None or diags.has_errors:
        return UnavailableBackend(diags), diags
    return backend, diags


def backend_for(ctx: Any) -> Any:
    """The backend a loaded Context's root module configures, for its working directory and
    -state override; one that cannot be used is a stand-in whose every state access reports why."""
    b, _ = open_backend(ctx.backend_root(), ctx.opts.working_dir, Overrides(ctx.opts.state_path))
    return b


def block_settings(kind: str, body: Any) -> tuple[dict[str, Any], Diagnostics]:
    """The backend block's arguments as constant values of the types its schema gives (a backend
    block cannot refer to anything), each problem located at its argument as Terraform's schema
    decoding reports it."""
    from tfconsole.config.model import static_value
    from tfconsole.lang.types import BOOL, NUMBER, STRING
    from tfconsole.lang.values import ConversionError, convert, is_null

    from .config import schema_of

    types = {"string": STRING, "bool": BOOL, "number": NUMBER}
    schema = schema_of(kind)
    diags = Diagnostics()
    out: dict[str, Any] = {}
    attrs = sorted(body.attributes.items(), key=lambda kv: kv[1].range.start.line) if body is not None else []
    for name, attr in attrs:
        if name not in schema:
            diags.error("Unsupported argument", f"An argument named \"{name}\" is not expected here.", attr.range)
            continue
        try:
            value = static_value(attr.expr)
        except ValueError as exc:
            diags.error("Invalid backend configuration", f"The \"{name}\" argument must be a constant value: "
                        f"{exc}", attr.range)
            continue
        try:
            out[name] = None if is_null(value) else convert(value, types[schema[name]])
        except ConversionError as exc:
            from tfconsole.lang.funcs import conversion_message  # the function library, only for this text

            diags.error("Incorrect attribute value type", f"Inappropriate value for attribute \"{name}\": "
                        f"{conversion_message(exc, value)}.", attr.range)
    return out, diags


class UnavailableBackend:
    """Stands in for a backend that cannot be used: every way to reach state reports why."""

    def __init__(self, diags: Diagnostics) -> None:
        self.diags = diags

    def state_manager(self, name: str | None = None, **_: Any) -> UnavailableStateManager:
        return UnavailableStateManager(self.diags)

    def current_workspace(self) -> str:
        return "default"

    def workspaces(self) -> list[str]:
        return ["default"]

    def check_env_workspace(self) -> Diagnostics:
        return self._fail()

    def new_workspace(self, name: str, **_: Any) -> Diagnostics:
        return self._fail()

    def select_workspace(self, name: str, **_: Any) -> tuple[bool, Diagnostics]:
        return False, self._fail()

    def delete_workspace(self, name: str, **_: Any) -> tuple[bool, Diagnostics]:
        return False, self._fail()

    def _fail(self) -> Diagnostics:
        return Diagnostics().append(self.diags)


class UnavailableStateManager:
    def __init__(self, diags: Diagnostics) -> None:
        self.diags = diags
        self.state = None
        self.locked = False

    def lock(self, *_: Any, **__: Any) -> Diagnostics:
        return Diagnostics().append(self.diags)

    def unlock(self) -> None:
        pass

    def close(self) -> None:
        pass

    def load(self) -> tuple[None, Diagnostics]:
        return None, Diagnostics().append(self.diags)

    def persist(self, state: Any) -> Diagnostics:
        return Diagnostics().append(self.diags)

    def write_raw(self, text: str) -> Diagnostics:
        return Diagnostics().append(self.diags)


from . import local as _local  # noqa: F401,E402 - registers "local" (http and pg: _ON_DEMAND)
