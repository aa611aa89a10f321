"""SyncState: the State shared by the walk's worker threads.

Every read and mutation takes one lock; every mutation is also forwarded to an optional
Journal so that a completed change survives a crash of the process (see manager.Journal).
Objects handed in become owned by the state: callers must not mutate them afterwards, and
objects returned by the getters must be treated as read-only (use .copy() to modify).
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from tfconsole.addrs import AbsResource, AbsResourceInstance

from .statefile import _plain
from .state import InstanceState, ObjectState, OutputState, ResourceState, State, new_deposed_key


class SyncState:
    def __init__(self, state: State | None = None, journal: Any = None):
        self._state = state if state is not None else State()
        self._journal = journal
        self._lock = threading.RLock()
        self._index: tuple[list, dict] | None = None  # see _by_resource

    # ---- plumbing
    @property
    def journal(self) -> Any:
        return self._journal

    def set_journal(self, journal: Any) -> None:
        with self._lock:
            self._journal = journal

    @contextmanager
    def locked(self) -> Iterator[State]:
        """Hold the lock and get the underlying State (no journaling of what you do here)."""
        with self._lock:
            yield self._state

    def unwrap(self) -> State:
        """The underlying State (only when no worker is running)."""
        return self._state

    def snapshot(self) -> State:
        with self._lock:
            return self._state.deep_copy()

    # ---- reads
    def resource(self, addr: AbsResource) -> ResourceState | None:
        with self._lock:
            return self._state.resource(addr)

    def instance(self, addr: AbsResourceInstance) -> InstanceState | None:
        with self._lock:
            return self._state.instance(addr)

    def current(self, addr: AbsResourceInstance) -> ObjectState | None:
        with self._lock:
            return self._state.current(addr)

    def deposed(self, addr: AbsResourceInstance, key: str) -> ObjectState | None:
        with self._lock:
            inst = self._state.instance(addr)
            return inst.deposed.get(key) if inst else None

    def deposed_keys(self, addr: AbsResourceInstance) -> list[str]:
        with self._lock:
            inst = self._state.instance(addr)
            return sorted(inst.deposed) if inst else []

    def instance_keys(self, addr: AbsResource) -> list[Any]:
        """The instance keys a resource has in state (empty when it has none)."""
        with self._lock:
            rs = self._state.resources.get(addr)
            return list(rs.instances) if rs else []

    def resources_where(self, keep: Callable[[AbsResource], bool], resource: Any = None, module: Any = None
                        ) -> list[tuple[AbsResource, str, list[tuple[Any, bool]]]]:
        """(address, provider, [(instance key, has a current object)]) of every resource whose
        address `keep` accepts, copied under the lock. With `resource` (a config-level Resource)
        and `module` (a config-level Module), only the addresses of that resource in instances
        of that module are offered to `keep`: every resource vertex of a plan asks this, so
        scanning all of the state each time would be quadratic."""
        with self._lock:
            resources = self._state.resources
            if resource is None:
                candidates: Any = resources
            else:
                by_module = self._by_resource(resources).get(resource, {})
                candidates = by_module.get(module, ()) if module is not None else \
                    [ra for ras in by_module.values() for ra in ras]
            return [(ra, rs.provider, [(k, i.current is not None) for k, i in rs.instances.items()])
                    for ra in candidates if (rs := resources.get(ra)) is not None and keep(ra)]

    def _by_resource(self, resources: dict) -> dict[Any, dict[Any, list[AbsResource]]]:
        """State addresses grouped by config-level resource and module; rebuilt whenever the
        addresses differ from the ones it was built from. The test compares the list of keys,
        which compares the same key objects by identity (a set comparison hashed each address,
        and an address's hash is not cached: that was most of the orphan scan's cost); a key
        removed and added again is a new object or in a new place, so it rebuilds."""
        cached = self._index
        keys = list(resources)
        if cached is not None and cached[0] == keys:
            return cached[1]
        index: dict[Any, dict[Any, list[AbsResource]]] = {}
        for ra in keys:
            index.setdefault(ra.resource, {}).setdefault(ra.module.module(), []).append(ra)
        self._index = (keys, index)
        return index

    def output(self, name: str) -> OutputState | None:
        with self._lock:
            return self._state.outputs.get(name)

    def provider_of(self, addr: AbsResource) -> str | None:
        with self._lock:
            rs = self._state.resources.get(addr)
            return rs.provider if rs else None

    def each_of(self, addr: AbsResource) -> str:
        with self._lock:
            rs = self._state.resources.get(addr)
            return rs.each if rs else ""

    # ---- mutations (journaled)
    def set_current(self, addr: AbsResourceInstance, obj: ObjectState | None, provider: str,
                    each: str | None = None) -> None:
        if self._journal is not None:  # (an apply's objects: each is journaled, then written)
            _check_plain(obj)
        with self._lock:
            self._state.set_current(addr, obj, provider, each)
            if self._journal is not None:
                if each is None:
                    rs = self._state.resources.get(addr.abs_resource())
                    each = rs.each if rs else ""
                self._journal.record(addr, obj, provider, each)

    def set_deposed(self, addr: AbsResourceInstance, key: str, obj: ObjectState | None,
                    provider: str) -> None:
        if self._journal is not None:  # (an apply's objects: each is journaled, then written)
            _check_plain(obj)
        with self._lock:
            self._state.set_deposed(addr, key, obj, provider)
            if self._journal is not None:
                self._journal.record(addr, obj, provider, "", deposed_key=key)

    def depose_current(self, addr: AbsResourceInstance, provider: str, key: str | None = None) -> str | None:
        """Move the current object to a new deposed key (create_before_destroy).
        Returns the key, or None if there was no current object."""
        with self._lock:
            cur = self._state.current(addr)
            if cur is None:
                return None
            inst = self._state.instance(addr)
            assert inst is not None
            if key is None:
                key = new_deposed_key()
                while key in inst.deposed:
                    key = new_deposed_key()
            # deposed first, so the object is never missing from a replayed journal
            self.set_deposed(addr, key, cur, provider)
            self.set_current(addr, None, provider)
            return key

    def set_output(self, name: str, value: Any, type_: Any, sensitive: bool = False) -> None:
        with self._lock:
            out = OutputState(value, type_, sensitive)
            self._state.outputs[name] = out
            if self._journal is not None:
                self._journal.record_output(name, out)

    def remove_output(self, name: str) -> None:
        with self._lock:
            if self._state.outputs.pop(name, None) is not None and self._journal is not None:
                self._journal.record_output(name, None)

    def set_check_results(self, check_results: Any) -> None:
        with self._lock:
            self._state.check_results = check_results
            if self._journal is not None:
                self._journal.record_check_results(check_results)

    def remove_resource(self, addr: AbsResource) -> None:
        """Forget a resource and all its instance objects (each removal is journaled)."""
        with self._lock:
            rs = self._state.resources.get(addr)
            if rs is None:
                return
            for key, inst in list(rs.instances.items()):
                iaddr = addr.instance(key)
                for dk in list(inst.deposed):
                    self.set_deposed(iaddr, dk, None, rs.provider)
                if inst.current is not None:
                    self.set_current(iaddr, None, rs.provider)
            self._state.remove_resource(addr)


def _check_plain(obj: ObjectState | None) -> None:
    """Whether orjson writes an object's attributes as Terraform does, found out as it is stored
    (outside the state's lock): the journal record and the final state write then skip that
    walk over the attributes."""
    if obj is not None:
        attrs = obj.attributes
        if obj.plain_attributes is not attrs and type(attrs) is dict and _plain(attrs):
            obj.plain_attributes = attrs
