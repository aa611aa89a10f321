"""Check results of a plan: what each checkable object's conditions gave (Terraform's "checks"
in `show -json`): resources with preconditions or postconditions, outputs with preconditions,
check blocks and input variables with validation rules.

The walk reports one status per condition of an object instance; the results aggregate them
per instance and per configuration object (fail > error > unknown > pass) and write the JSON
Terraform writes. Thread-safe: vertices report from worker threads.
"""
from __future__ import annotations

import threading
from typing import Any

_RANK = {"pass": 0, "unknown": 1, "error": 2, "fail": 3}


def worst(statuses: list[str]) -> str:
    return max(statuses, key=lambda s: _RANK[s]) if statuses else "unknown"


class CheckResults:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        # static display -> (static address JSON, {dynamic display: (address JSON, statuses, messages)})
        self._objects: dict[str, tuple[dict, dict[str, tuple[dict, list[str], list[str]]]]] = {}

    def report(self, static: dict, dynamic: dict, status: str, message: str | None = None) -> None:
        with self._lock:
            _, insts = self._objects.setdefault(static["to_display"], (static, {}))
            _, statuses, messages = insts.setdefault(dynamic["to_display"], (dynamic, [], []))
            statuses.append(status)
            if message is not None and status == "fail":
                messages.append(message)

    def to_json(self) -> list[dict]:
        out = []
        with self._lock:
            for key in sorted(self._objects):
                static, insts = self._objects[key]
                rows = []
                for dkey in sorted(insts):
                    dyn, statuses, messages = insts[dkey]
                    row: dict[str, Any] = {"address": dict(sorted(dyn.items())), "status": worst(statuses)}
                    if messages:
                        row["problems"] = [{"message": m} for m in sorted(messages)]
                    rows.append(row)
                obj: dict[str, Any] = {"address": dict(sorted(static.items())),
                                       "status": worst([r["status"] for r in rows])}
                if rows:
                    obj["instances"] = rows
                out.append(obj)
        return out


def resource_addrs(addr: Any) -> tuple[dict, dict]:
    """Static and dynamic check addresses of a resource instance (an AbsResourceInstance)."""
    res = addr.resource
    static: dict[str, Any] = {"kind": "resource", "mode": res.mode, "type": res.type, "name": res.name,
                              "to_display": addr.config().__str__()}
    module_config = str(addr.module.module())
    if module_config:
        static["module"] = module_config
    dynamic: dict[str, Any] = {"to_display": str(addr)}
    if not addr.module.is_root:
        dynamic["module"] = str(addr.module)
    if addr.key is not None:
        dynamic["instance_key"] = addr.key
    return static, dynamic


def named_addrs(kind: str, prefix: str, name: str, mi: Any) -> tuple[dict, dict]:
    """Static and dynamic check addresses of an output ("output_value", "output."), a check
    block ("check", "check.") or a variable ("var", "var.") in module instance mi."""
    module_config = str(mi.module())
    static: dict[str, Any] = {"kind": kind, "name": name,
                              "to_display": (module_config + "." if module_config else "") + prefix + name}
    if module_config:
        static["module"] = module_config
    dynamic: dict[str, Any] = {"to_display": mi.prefix() + prefix + name}
    if not mi.is_root:
        dynamic["module"] = str(mi)
    return static, dynamic
