"""Plans: actions, resource instance changes and the plan as a whole (render-neutral).

Values inside changes are language values (lang/values.py) carrying Unknown for "known after
apply" and Sensitive marks; renderers (command/views) decide how to show them.
"""
from __future__ import annotations

from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from enum import Enum
from typing import Any

from tfconsole.addrs import AbsResourceInstance
from tfconsole.lang.types import Type


class Action(Enum):
    NOOP = "no-op"
    CREATE = "create"
    READ = "read"
    UPDATE = "update"
    DELETE = "delete"
    DELETE_THEN_CREATE = "delete-create"
    CREATE_THEN_DELETE = "create-delete"
    FORGET = "forget"

    # Members are singletons compared by identity: hash them the same way, in C (Enum's own
    # __hash__ is Python code hashing the name, and renderers look actions up per change)
    __hash__ = object.__hash__

    @property
    def json_actions(self) -> list[str]:
        return {
            Action.NOOP: ["no-op"], Action.CREATE: ["create"], Action.READ: ["read"],
            Action.UPDATE: ["update"], Action.DELETE: ["delete"],
            Action.DELETE_THEN_CREATE: ["delete", "create"], Action.CREATE_THEN_DELETE: ["create", "delete"],
            Action.FORGET: ["forget"],
        }[self]

    @property
    def symbol(self) -> str:
        return _SYMBOLS[self]

    @property
    def is_replace(self) -> bool:
        return self in (Action.DELETE_THEN_CREATE, Action.CREATE_THEN_DELETE)

    @staticmethod
    def from_json(actions: list[str]) -> "Action":
        for a in Action:
            if a.json_actions == list(actions):
                return a
        raise ValueError(f"unknown actions {actions}")


_SYMBOLS = {
    Action.NOOP: " ", Action.CREATE: "+", Action.READ: "<=", Action.UPDATE: "~", Action.DELETE: "-",
    Action.DELETE_THEN_CREATE: "-/+", Action.CREATE_THEN_DELETE: "+/-", Action.FORGET: ".",
}


# Terraform's action reasons (plan JSON "action_reason")
REASON_TAINTED = "replace_because_tainted"
REASON_CANNOT_UPDATE = "replace_because_cannot_update"
REASON_BY_REQUEST = "replace_by_request"
REASON_BY_TRIGGERS = "replace_by_triggers"
REASON_NO_RESOURCE_CONFIG = "delete_because_no_resource_config"
REASON_WRONG_REPETITION = "delete_because_wrong_repetition"
REASON_COUNT_INDEX = "delete_because_count_index"
REASON_EACH_KEY = "delete_because_each_key"
REASON_NO_MODULE = "delete_because_no_module"
REASON_NO_MOVE_TARGET = "delete_because_no_move_target"
REASON_READ_CONFIG_UNKNOWN = "read_because_config_unknown"
REASON_READ_DEPENDENCY_PENDING = "read_because_dependency_pending"


@dataclass
class ResourceInstanceChange:
    addr: AbsResourceInstance
    action: Action
    provider: str  # provider configuration address string
    before: dict[str, Any] | None  # language values, marks applied
    after: dict[str, Any] | None  # may contain Unknown
    schema_type: Type | None = None  # the resource's implied object type, for JSON encoding
    prev_run_addr: AbsResourceInstance | None = None
    deposed: str | None = None
    replace_paths: list[tuple] = field(default_factory=list)
    reason: str | None = None
    private: str | None = None
    create_before_destroy: bool = False
    # attributes the provider marks sensitive (by schema), as paths, for rendering
    sensitive_paths: list[tuple] = field(default_factory=list)
    each_value: Any = None  # for_each instances: each.value as planned
    # an import block adopts the object during this plan: Importing(id); the apply stores it first
    importing: "Importing | None" = None
    generated_config: str = ""  # plan -generate-config-out: the resource block written for it
    import_private: Any = None  # the imported object's private data, stored with it at apply
    # the resource type's write-only attributes (top level): never valued in a plan, but shown
    write_only: list[str] = field(default_factory=list)
    # resource identities (JSON data, None when the type has none or it is not known yet) and
    # the identity schema version they are written at
    # the resource type's nested blocks (block_structure), for the plan renderer
    blocks: dict[str, Any] = field(default_factory=dict)
    before_identity: Any = None
    after_identity: Any = None
    identity_version: int = 0
    # the resource type's schema has none of the newer features (non_legacy): Terraform's plan
    # renderer then shows an empty string as null, as the legacy SDK cannot tell them apart
    legacy: bool = False

    @property
    def address(self) -> str:
        return str(self.addr) + (f" (deposed object {self.deposed})" if self.deposed else "")

    @property
    def mode(self) -> str:
        return self.addr.resource.mode


def block_structure(block: Any) -> dict[str, Any]:
    """A schema block's nested blocks, as JSON data for the plan renderer: name -> {nesting,
    write_only (attribute names), non_legacy (see non_legacy), blocks (the same, nested)}."""
    return {name: {"nesting": nb.nesting,
                   "write_only": sorted(n for n, a in nb.block.attributes.items() if a.write_only),
                   "non_legacy": non_legacy(nb.block),
                   "blocks": block_structure(nb.block)}
            for name, nb in sorted(block.blocks.items())}


def non_legacy(block: Any) -> bool:
    """Whether a schema block uses what the legacy SDK could not express (Terraform's renderer
    decides by this whether "" is shown as null): map or group nested blocks, nested attribute
    types, dynamic, object or tuple types, collections of non-primitive collections."""
    from tfconsole.lang.types import DynamicType, ListType, MapType, ObjectType, PrimitiveType, SetType, TupleType

    if any(nb.nesting in ("map", "group") for nb in block.blocks.values()):
        return True
    collections = (ListType, SetType, MapType)

    def has_dynamic(t: Any) -> bool:
        if isinstance(t, DynamicType):
            return True
        if isinstance(t, collections):
            return has_dynamic(t.elem)
        if isinstance(t, ObjectType):
            return any(has_dynamic(x) for _, x in t.attrs)
        if isinstance(t, TupleType):
            return any(has_dynamic(x) for x in t.elems)
        return False

    for attr in block.attributes.values():
        t = attr.type
        if getattr(attr, "nested", None) is not None or has_dynamic(t) or isinstance(t, (ObjectType, TupleType)):
            return True
        if isinstance(t, collections) and isinstance(t.elem, collections) and \
                not isinstance(t.elem.elem, PrimitiveType):
            return True
    return False


@dataclass(frozen=True)
class Importing:
    """What an import block adopts: the id the provider imported (Terraform's Importing.ID), or
    "" and the identity (JSON data) the provider returned for an import by identity."""

    id: str
    identity: Any = None


@dataclass
class OutputChange:
    name: str
    action: Action
    before: Any
    after: Any
    sensitive: bool = False


@dataclass(frozen=True)
class StateMeta:
    """Which state snapshot a plan was made from: its lineage ("" when there was no state yet)
    and serial. Applying the plan to any other snapshot is refused (plans/staleness.py)."""

    lineage: str
    serial: int


@dataclass
class Plan:
    changes: list[ResourceInstanceChange] = field(default_factory=list)
    output_changes: list[OutputChange] = field(default_factory=list)
    variables: dict[str, Any] = field(default_factory=dict)  # raw JSON-able variable values
    # ephemeral root variables set at plan: never saved, they must be given again at apply
    apply_time_variables: list[str] = field(default_factory=list)
    prior_state: Any = None  # states.State (refreshed)
    prev_run_state: Any = None  # states.State before refresh
    planned_state: Any = None  # states.State with planned values (for show -json planned_values)
    destroy: bool = False
    refresh_only: bool = False
    targets: list[str] = field(default_factory=list)
    excludes: list[str] = field(default_factory=list)
    replace: list[str] = field(default_factory=list)
    errored: bool = False
    validation_failed: bool = False  # errored before planning: Terraform's validate walk failed
    applyable: bool = True
    timestamp: str = ""
    config_files: dict[str, str] = field(default_factory=dict)  # relative path -> text (the snapshot)
    # the root module's directory inside the snapshot ("" unless modules live above it; planfile.py)
    config_root: str = ""
    prior_state_meta: StateMeta | None = None  # the state snapshot this plan applies to
    drift: list[ResourceInstanceChange] = field(default_factory=list)  # "changed outside of Terraform"
    checks: list[dict] = field(default_factory=list)
    # count/for_each decisions of the plan walk: resource address -> (mode, keys)
    expansions: dict[Any, tuple[str, list]] = field(default_factory=dict)

    def resource_changes(self) -> list[ResourceInstanceChange]:
        return [c for c in self.changes if c.action is not Action.NOOP]

    def summary(self) -> tuple[int, int, int]:
        """(to add, to change, to destroy) as Terraform counts them."""
        add = change = destroy = 0
        for c in self.changes:
            if c.mode != "managed":
                continue
            a = c.action
            if a is Action.CREATE:
                add += 1
            elif a is Action.UPDATE:
                change += 1
            elif a is Action.DELETE:
                destroy += 1
            elif a.is_replace:
                add += 1
                destroy += 1
        return add, change, destroy

    def imports(self) -> int:
        """How many objects the plan imports (Terraform's "N to import")."""
        return sum(1 for c in self.changes if c.importing is not None)

    def summary_line(self) -> str:
        add, change, destroy = self.summary()
        imp = self.imports()
        head = f"Plan: {imp} to import, " if imp else "Plan: "
        return f"{head}{add} to add, {change} to change, {destroy} to destroy."

    def has_changes(self) -> bool:
        return any(c.action is not Action.NOOP or (c.prev_run_addr is not None and c.prev_run_addr != c.addr)
                   or c.importing is not None for c in self.changes) or \
            any(o.action is not Action.NOOP for o in self.output_changes)
