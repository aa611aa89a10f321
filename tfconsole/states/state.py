"""The in-memory state: resources, their instance objects, and root outputs.

Attributes are held as the JSON data of Terraform's v4 state file (already encoded per the
provider schema); the engine decodes them with the schema when it needs language values.
That keeps reading and writing 20,000-instance states cheap.

That JSON data (``ObjectState.attributes``, ``attributes_flat``, ``identity``, output values) is
never mutated in place: a change builds a new dict. So copies of a State share it and copy only
the structure around it, which keeps the plan's three copies of a large state linear and cheap.
"""
from __future__ import annotations

import copy
import os
from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any, Iterator

from tfconsole.addrs import AbsResource, AbsResourceInstance, InstanceKey, ModuleInstance


@dataclass
class ObjectState:
    """One object of a resource instance (the current one, or a deposed one)."""

    attributes: dict[str, Any]
    status: str = "ready"  # "ready" | "tainted"
    schema_version: int = 0
    sensitive_attributes: list[Any] = field(default_factory=list)  # v4 file form, kept verbatim
    private: str | None = None
    dependencies: list[str] = field(default_factory=list)
    create_before_destroy: bool = False
    # resource identity (Terraform 1.12+): JSON data of the identity object, or None
    identity: Any = None
    identity_schema_version: int = 0
    # legacy flatmap attributes of very old (0.11-era upgraded) v4 files, kept verbatim
    attributes_flat: dict[str, str] | None = None

    def copy(self) -> "ObjectState":
        """A copy whose fields can be reassigned freely; the JSON data inside is shared."""
        return ObjectState(self.attributes, self.status, self.schema_version, list(self.sensitive_attributes),
                           self.private, list(self.dependencies), self.create_before_destroy, self.identity,
                           self.identity_schema_version, self.attributes_flat)


@dataclass
class InstanceState:
    current: ObjectState | None = None
    deposed: dict[str, ObjectState] = field(default_factory=dict)

    def is_empty(self) -> bool:
        return self.current is None and not self.deposed


@dataclass
class ResourceState:
    addr: AbsResource
    provider: str  # provider configuration address, e.g. provider["registry.terraform.io/hashicorp/null"]
    each: str = ""  # "" (no repetition), "list" (count) or "map" (for_each)
    instances: dict[InstanceKey, InstanceState] = field(default_factory=dict)


@dataclass
class OutputState:
    value: Any  # JSON data
    type: Any  # cty JSON type
    sensitive: bool = False


@dataclass
class State:
    serial: int = 0
    lineage: str = field(default_factory=lambda: random_uuid())
    terraform_version: str = "1.15.0"
    resources: dict[AbsResource, ResourceState] = field(default_factory=dict)
    outputs: dict[str, OutputState] = field(default_factory=dict)
    check_results: Any = None

    # ---- queries
    def resource(self, addr: AbsResource) -> ResourceState | None:
        return self.resources.get(addr)

    def instance(self, addr: AbsResourceInstance) -> InstanceState | None:
        rs = self.resources.get(addr.abs_resource())
        if rs is None:
            return None
        return rs.instances.get(addr.key)

    def current(self, addr: AbsResourceInstance) -> ObjectState | None:
        inst = self.instance(addr)
        return inst.current if inst else None

    def all_instances(self) -> Iterator[tuple[AbsResourceInstance, InstanceState]]:
        for rs in self.resources.values():
            for key, inst in rs.instances.items():
                yield rs.addr.instance(key), inst

    def module_instances(self) -> set[ModuleInstance]:
        return {a.module for a in self.resources}

    def is_empty(self) -> bool:
        return not any(not i.is_empty() for rs in self.resources.values() for i in rs.instances.values())

    # ---- mutations (callers hold the SyncState lock during a walk)
    def set_current(self, addr: AbsResourceInstance, obj: ObjectState | None, provider: str,
                    each: str | None = None) -> None:
        ra = addr.abs_resource()
        rs = self.resources.get(ra)
        if obj is None:
            if rs is None:
                return
            inst = rs.instances.get(addr.key)
            if inst is not None:
                inst.current = None
                if inst.is_empty():
                    del rs.instances[addr.key]
            if not rs.instances:
                del self.resources[ra]
            return
        if rs is None:
            rs = self.resources[ra] = ResourceState(ra, provider, each or _each_for(addr.key))
        else:
            rs.provider = provider
            if each is not None:
                rs.each = each
        inst = rs.instances.get(addr.key)  # (not setdefault: it would make an InstanceState each time)
        if inst is None:
            inst = rs.instances[addr.key] = InstanceState()
        inst.current = obj

    def set_deposed(self, addr: AbsResourceInstance, dkey: str, obj: ObjectState | None,
                    provider: str) -> None:
        ra = addr.abs_resource()
        rs = self.resources.get(ra)
        if obj is None:
            if rs is None or addr.key not in rs.instances:
                return
            inst = rs.instances[addr.key]
            inst.deposed.pop(dkey, None)
            if inst.is_empty():
                del rs.instances[addr.key]
            if not rs.instances:
                del self.resources[ra]
            return
        if rs is None:
            rs = self.resources[ra] = ResourceState(ra, provider, _each_for(addr.key))
        rs.instances.setdefault(addr.key, InstanceState()).deposed[dkey] = obj

    def remove_resource(self, addr: AbsResource) -> None:
        self.resources.pop(addr, None)

    def deep_copy(self) -> "State":
        """An independent copy: resources, instances and objects are new (mutating one State never
        shows in the other); the immutable JSON data of attributes and outputs is shared."""
        resources: dict[AbsResource, ResourceState] = {}
        for ra, rs in self.resources.items():
            insts: dict[InstanceKey, InstanceState] = {}
            for key, inst in rs.instances.items():
                cur = inst.current
                insts[key] = InstanceState(cur.copy() if cur is not None else None,
                                           {dk: o.copy() for dk, o in inst.deposed.items()} if inst.deposed else {})
            resources[ra] = ResourceState(rs.addr, rs.provider, rs.each, insts)
        outputs = {name: OutputState(o.value, o.type, o.sensitive) for name, o in self.outputs.items()}
        return State(self.serial, self.lineage, self.terraform_version, resources, outputs,
                     copy.deepcopy(self.check_results))


def _each_for(key: InstanceKey) -> str:
    if key is None:
        return ""
    return "list" if isinstance(key, int) else "map"


def new_deposed_key() -> str:
    return os.urandom(4).hex()  # the first 8 hex digits of a random UUID: all random


def random_uuid(raw: bytes | None = None) -> str:
    """A version 4 UUID (RFC 4122: random bits, the version nibble 4, the variant bits 10) in
    its text form, from `raw` (16 bytes) or fresh random bytes: what str(uuid.uuid4()) gives,
    without importing `uuid` (and `platform` behind it) into every command."""
    b = bytearray(os.urandom(16) if raw is None else raw)
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    h = b.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
