"""The hook interface: how UIs observe a walk. The CLI view and the TUI bridge implement it.

Hooks are called from worker threads and the coordinator thread; implementations must be
thread-safe and must not block (the TUI bridge posts messages, the CLI view prints).
Every method has a no-op default so a hook implements only what it needs.
"""
from __future__ import annotations

from typing import Any

from tfconsole.diags import Diagnostic


class IdHint(str):
    """An object's identifying value as the hooks show it (`[id=...]`); `key` names the
    attribute it came from: "id", "name" or a tag ("tags.Name"), as Terraform chooses."""

    key: str = "id"

    def __new__(cls, value: str, key: str = "id") -> "IdHint":
        obj = super().__new__(cls, value)
        obj.key = key
        return obj


def object_id(obj: Any, or_name: bool = False) -> IdHint | None:
    """Terraform's ObjectValueID (a string `id`, else a string `name`) and, with or_name,
    ObjectValueIDOrName (then `name`, else a string map `tags`' name or Name). A sensitive,
    unknown or null value gives none."""
    if not isinstance(obj, dict):
        return None
    hint = _string_attr(obj, ("id", "name"))
    if hint is not None or not or_name:
        return hint
    from tfconsole.lang.types import STRING, MapType
    from tfconsole.lang.values import type_of

    if "name" in obj:
        return _string_attr(obj, ("name",))
    tags = obj.get("tags")
    if isinstance(tags, dict) and type_of(tags) == MapType(STRING):
        hint = _string_attr(tags, ("name", "Name"))
        return IdHint(hint, "tags." + hint.key) if hint is not None else None
    return None


def _string_attr(obj: dict, keys: tuple[str, ...]) -> IdHint | None:
    """The first of keys whose attribute is string-typed: its value if known, not null and not
    sensitive (a switch on the first matching case, as Terraform's)."""
    for key in keys:
        if key in obj:
            v = obj[key]
            if type(v) is str:  # the common case, without building the value's type
                return IdHint(v, key)
            from tfconsole.lang.types import STRING
            from tfconsole.lang.values import type_of

            if type_of(v) == STRING:
                return None
    return None


class Hook:
    # ---- walk progress (every vertex, any operation)
    def walk_started(self, operation: str, vertex_names: list[str]) -> None:
        """A walk begins; vertex_names are the graph's vertices before dynamic expansion."""

    def vertex_waiting(self, name: str, waiting_on: list[str]) -> None:
        """The vertex has dependencies not done yet (called once per vertex at the start)."""

    def vertex_queued(self, name: str) -> None:
        """All dependencies are done; waiting for a parallelism slot."""

    def vertex_started(self, name: str) -> None:
        """Holds a slot and is executing."""

    def vertex_finished(self, name: str, elapsed: float) -> None: ...

    def vertex_failed(self, name: str, elapsed: float, message: str) -> None: ...

    def vertex_skipped(self, name: str, because: str) -> None:
        """Not executed because an upstream vertex failed or the walk was cancelled."""

    def vertex_expanded(self, name: str, children: list[str], edges: list[tuple[str, str]]) -> None:
        """A config-level vertex expanded into instance vertices (with edges between them)."""

    def walk_finished(self, operation: str, ok: bool, cancelled: bool) -> None: ...

    # ---- resource instance events (Terraform's hook points)
    def pre_diff(self, addr: str) -> None: ...

    def post_diff(self, addr: str, action: str) -> None: ...

    def pre_apply(self, addr: str, action: str, id_hint: str | None) -> None: ...

    def post_apply(self, addr: str, action: str, elapsed: float, error: str | None,
                   id_hint: str | None) -> None: ...

    def apply_progress(self, addr: str, action: str, elapsed: float) -> None:
        """Periodic 'Still creating... [10s elapsed]' ticks."""

    def pre_refresh(self, addr: str, id_hint: str | None) -> None: ...

    def pre_plan_import(self, addr: str, import_id: str, identity: str | None = None) -> None:
        """An import block's object is about to be imported during the plan (by identity when
        `identity`, its text as Terraform prints it, is given)."""

    def pre_apply_import(self, addr: str, import_id: str, identity: str | None = None) -> None:
        """The apply is about to store an imported object in state."""

    def post_apply_import(self, addr: str, import_id: str, identity: str | None = None) -> None:
        """The imported object is in state."""

    def post_refresh(self, addr: str, id_hint: str | None = None) -> None: ...

    def pre_ephemeral(self, addr: str, action: str) -> None:
        """An ephemeral resource instance is about to be opened, renewed or closed
        (action "open" | "renew" | "close")."""

    def post_ephemeral(self, addr: str, action: str, elapsed: float, error: str | None) -> None:
        """An ephemeral resource instance was opened, renewed or closed (error: why not)."""

    def pre_provision(self, addr: str, provisioner: str) -> None:
        """A provisioner is about to run for the instance."""

    def provision_output(self, addr: str, provisioner: str, line: str) -> None: ...

    def post_provision(self, addr: str, provisioner: str, error: str | None) -> None:
        """A provisioner finished for the instance (error: why it failed, None: it succeeded)."""

    def diagnostic(self, diag: Diagnostic) -> None: ...

    # ---- provider plugins
    def provider_status(self, provider: str, status: str) -> None:
        """A provider plugin process changed state: started, crashed."""

    def provider_log(self, provider: str, resource: str | None, level: str, message: str) -> None:
        """A line a provider plugin logged; `resource` is the instance whose call it belongs to,
        when that could be told (None: a provider-level line)."""


class Hooks(Hook):
    """Fan-out to several hooks; one failing hook never breaks the walk. The fan-out functions
    are built once, not per call (a large plan makes hundreds of thousands of hook calls)."""

    def __init__(self, hooks: list[Hook] | None = None):
        self.hooks = list(hooks or [])
        for name, member in Hook.__dict__.items():
            if name.startswith("_") or not callable(member):
                continue
            targets = [getattr(h, name) for h in self.hooks if getattr(type(h), name, None) is not member]
            setattr(self, name, _fan(targets))


def _fan(targets: list[Any]) -> Any:
    if not targets:
        return _noop

    def fan(*args: Any, **kwargs: Any) -> None:
        for t in targets:
            try:
                t(*args, **kwargs)
            except Exception:  # noqa: BLE001 - a UI bug must not break an apply
                pass

    return fan


def _noop(*args: Any, **kwargs: Any) -> None:
    return None
