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


# ------------------------------------------------------------------ the state's check_results

_STATE_KIND = {"resource": "resource", "output_value": "output", "check": "check", "var": "var"}
_JSON_KIND = {v: k for k, v in _STATE_KIND.items()}


def merged(plan_checks: list[dict], applied: list[dict]) -> list[dict]:
    """The plan's results with what the apply evaluated again in their place (instances the
    apply did not touch keep their plan-time result)."""
    objects = {o["address"]["to_display"]: dict(o, instances=list(o.get("instances", []))) for o in plan_checks}
    for o in applied:
        key = o["address"]["to_display"]
        if key not in objects:
            objects[key] = o
            continue
        rows = {r["address"]["to_display"]: r for r in objects[key]["instances"]}
        rows.update({r["address"]["to_display"]: r for r in o.get("instances", [])})
        objects[key]["instances"] = [rows[k] for k in sorted(rows)]
        objects[key]["status"] = worst([r["status"] for r in rows.values()])
    return [objects[k] for k in sorted(objects)]


def to_state(checks: list[dict]) -> list[dict] | None:
    """JSON check results as the state file's check_results."""
    out = []
    for o in checks:
        objs = []
        for r in o.get("instances", []):
            so: dict[str, Any] = {"object_addr": r["address"]["to_display"], "status": r["status"]}
            if r.get("problems"):
                so["failure_messages"] = [p["message"] for p in r["problems"]]
            objs.append(so)
        out.append({"object_kind": _STATE_KIND.get(o["address"].get("kind", ""), ""),
                    "config_addr": o["address"]["to_display"], "status": o["status"], "objects": objs})
    return out or None


def _prefix(kind: str) -> str:
    return "output." if kind == "output_value" else kind + "."


def from_state(check_results: Any) -> list[dict]:
    """The state file's check_results as `show -json` writes them ("checks")."""
    from tfconsole.addrs import AddressError, parse_instance

    out = []
    for agg in check_results or []:
        if not isinstance(agg, dict):
            continue
        kind = _JSON_KIND.get(agg.get("object_kind", ""), "")
        config = str(agg.get("config_addr", ""))
        static: dict[str, Any] = {"kind": kind, "to_display": config}
        if kind == "resource":
            try:
                target = parse_instance(config)
            except (AddressError, ValueError):
                continue
            static.update(mode=target.resource.mode, type=target.resource.type, name=target.resource.name)
            module = str(target.module)
        else:
            module, _, name = config.rpartition(_prefix(kind))
            module = module.rstrip(".")
            static["name"] = name
        if module:
            static["module"] = module
        rows = []
        for o in agg.get("objects") or []:
            if not isinstance(o, dict):
                continue
            addr = str(o.get("object_addr", ""))
            dyn: dict[str, Any] = {"to_display": addr}
            try:
                if kind == "resource":
                    inst = parse_instance(addr)
                    if not inst.module.is_root:
                        dyn["module"] = str(inst.module)
                    if inst.key is not None:
                        dyn["instance_key"] = inst.key
                elif addr.startswith("module."):
                    dyn["module"] = addr[: addr.rindex("." + _prefix(kind))]
            except (AddressError, ValueError):
                pass
            row: dict[str, Any] = {"address": dict(sorted(dyn.items())), "status": o.get("status", "unknown")}
            if o.get("failure_messages"):
                row["problems"] = [{"message": m} for m in sorted(o["failure_messages"])]
            rows.append(row)
        rows.sort(key=lambda r: r["address"]["to_display"])
        obj: dict[str, Any] = {"address": dict(sorted(static.items())), "status": agg.get("status", "unknown")}
        if rows:
            obj["instances"] = rows
        out.append(obj)
    return sorted(out, key=lambda o: o["address"]["to_display"])
