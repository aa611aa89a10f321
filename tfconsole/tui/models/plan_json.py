"""Opening a plan for read-only review: the JSON of `terraform show -json PLANFILE` (plan JSON
format 1.x, as Terraform 1.15 and `tfconsole show -json` write it) or a tfconsole plan file,
turned into the render-neutral Plan the plan review shows (textual-free).

Values are rebuilt from the JSON with its masks: `after_unknown` marks "known after apply",
`before_sensitive` / `after_sensitive` put sensitive marks back, so the review hides what
Terraform hides. Plan JSON carries no provider schemas, so collections are shaped as JSON says
(arrays as tuples, objects as objects).

A file is data: it is parsed as JSON or as a tfconsole plan file (a zip read by plans/planfile),
never unpickled or evaluated; anything else is refused with a message that says what the file
is and where it went wrong, within bounded time and memory.
"""
from __future__ import annotations

import io
import json
import os
import zipfile
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from tfconsole.addrs import AddressError, parse_instance
from tfconsole.lang.values import Unknown, from_json_implied, mark
from tfconsole.plans import Action, Importing, OutputChange, Plan, ResourceInstanceChange

MAX_BYTES = 512 << 20  # a 10,000-instance plan's JSON is tens of MB; refuse what no plan needs
MAX_DEPTH = 200  # nesting of one value (and of its masks); deeper is refused, never a RecursionError


class PlanOpenError(ValueError):
    """The file is not a plan the console can review; the message says why (and where)."""


@dataclass
class ReviewPlan:
    plan: Plan
    path: str
    source: str  # what was opened, for the header: "Terraform 1.15.5 plan JSON", "tfconsole plan file"


def open_plan(path: str) -> ReviewPlan:
    """The plan in the file at path, for review; PlanOpenError when it is not one."""
    if os.path.isdir(path):
        raise PlanOpenError(f"{path} is a directory, not a plan file")
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > MAX_BYTES:
                raise PlanOpenError(f"{path} is {size} bytes, more than the {MAX_BYTES} a plan may be")
            data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise PlanOpenError(f"cannot read {path}: {(exc.strerror or str(exc)).lower()}") from None
    if data.startswith(b"PK\x03\x04"):
        return ReviewPlan(_zip_plan(data, path), path, "tfconsole plan file")
    doc = _json_document(data, path)
    plan = plan_from_json(doc)
    made_by = doc.get("terraform_version")
    source = f"Terraform {made_by} plan JSON" if isinstance(made_by, str) and made_by else "plan JSON"
    return ReviewPlan(plan, path, source)


def _zip_plan(data: bytes, path: str) -> Plan:
    from tfconsole.plans.planfile import PlanFileError, parse_plan

    try:
        names = set(zipfile.ZipFile(io.BytesIO(data)).namelist())
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        names = set()
    if "tfplan" in names:  # Terraform's own binary plan (protobuf): its JSON is what we read
        raise PlanOpenError(f"{path} is a plan file written by Terraform; open its JSON instead: "
                            f"terraform show -json {path} > plan.json")
    try:
        return parse_plan(data)
    except PlanFileError as exc:
        raise PlanOpenError(f"{path}: {exc}") from None


def _json_document(data: bytes, path: str) -> dict[str, Any]:
    if data[:1] == b"\x80":
        raise PlanOpenError(f"{path} is not a plan: it is binary data (a Python pickle?), which tfconsole "
                            "never loads; open the JSON of `terraform show -json PLANFILE`")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PlanOpenError(f"{path} is not a plan: not UTF-8 text (byte {exc.start})") from None
    try:
        doc = json.loads(text, parse_float=Decimal)
    except json.JSONDecodeError as exc:
        raise PlanOpenError(f"{path} is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise PlanOpenError(f"{path}: the JSON is nested too deeply") from None
    if not isinstance(doc, dict):
        raise PlanOpenError(f"{path}: a plan's JSON is an object, not {type(doc).__name__}")
    try:
        check_format(doc)
    except PlanOpenError as exc:
        raise PlanOpenError(f"{path}: {exc}") from None
    return doc


def check_format(doc: dict[str, Any]) -> None:
    version = doc.get("format_version")
    if not isinstance(version, str):
        raise PlanOpenError("no format_version: not the JSON of `terraform show -json PLANFILE`")
    if version.split(".")[0] != "1":
        raise PlanOpenError(f"format_version {version!r} is not supported (this console reads plan JSON 1.x)")
    if "resource_changes" not in doc and "planned_values" not in doc:
        what = "a state" if "values" in doc else "not a plan"
        raise PlanOpenError(f"this JSON is {what} (it has no resource_changes or planned_values)")


# ---------------------------------------------------------------- the plan

def plan_from_json(doc: dict[str, Any]) -> Plan:
    """A Plan from a plan JSON document (already checked by check_format)."""
    plan = Plan()
    plan.changes = [_change(rc, f"resource_changes[{i}]") for i, rc in enumerate(_list(doc, "resource_changes"))]
    plan.drift = [_change(rc, f"resource_drift[{i}]") for i, rc in enumerate(_list(doc, "resource_drift"))]
    outs = doc.get("output_changes") or {}
    if not isinstance(outs, dict):
        raise PlanOpenError("output_changes: expected an object")
    plan.output_changes = [_output_change(name, oc, f"output_changes.{name}") for name, oc in outs.items()]
    plan.errored = doc.get("errored") is True
    plan.applyable = doc.get("applyable") is not False
    plan.timestamp = doc.get("timestamp") if isinstance(doc.get("timestamp"), str) else ""
    return plan


def _list(doc: dict[str, Any], key: str) -> list[Any]:
    items = doc.get(key) or []
    if not isinstance(items, list):
        raise PlanOpenError(f"{key}: expected an array")
    return items


def _change(rc: Any, where: str) -> ResourceInstanceChange:
    if not isinstance(rc, dict) or not isinstance(rc.get("change"), dict):
        raise PlanOpenError(f"{where}: expected an object with a change")
    try:
        addr = parse_instance(str(rc.get("address", "")))
        prev = parse_instance(rc["previous_address"]) if isinstance(rc.get("previous_address"), str) else None
    except AddressError as exc:
        raise PlanOpenError(f"{where}.address: {exc}") from None
    c = rc["change"]
    action = _action(c.get("actions"), f"{where}.change.actions")
    before = _value(c.get("before"), False, c.get("before_sensitive"), f"{where}.change.before")
    after = _value(c.get("after"), c.get("after_unknown"), c.get("after_sensitive"), f"{where}.change.after")
    imp = c.get("importing")
    deposed = rc.get("deposed")
    provider = rc.get("provider_name")
    return ResourceInstanceChange(
        addr=addr, action=action, provider=f'provider["{provider}"]' if isinstance(provider, str) else "",
        before=before if isinstance(before, dict) else None, after=after if isinstance(after, dict) else None,
        prev_run_addr=prev, deposed=deposed if isinstance(deposed, str) else None,
        replace_paths=[tuple(p) for p in c.get("replace_paths") or [] if isinstance(p, list)],
        reason=rc.get("action_reason") if isinstance(rc.get("action_reason"), str) else None,
        importing=Importing(str(imp.get("id", ""))) if isinstance(imp, dict) else None,
        generated_config=c.get("generated_config") if isinstance(c.get("generated_config"), str) else "")


def _action(actions: Any, where: str) -> Action:
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise PlanOpenError(f"{where}: expected an array of action names")
    try:
        return Action.from_json(actions)
    except ValueError:
        raise PlanOpenError(f"{where}: unknown actions {actions}") from None


def _output_change(name: str, oc: Any, where: str) -> OutputChange:
    if not isinstance(oc, dict):
        raise PlanOpenError(f"{where}: expected an object")
    sensitive = bool(_has_true(oc.get("before_sensitive")) or _has_true(oc.get("after_sensitive")))
    return OutputChange(name=name, action=_action(oc.get("actions"), f"{where}.actions"),
                        before=_value(oc.get("before"), False, oc.get("before_sensitive"), f"{where}.before"),
                        after=_value(oc.get("after"), oc.get("after_unknown"), oc.get("after_sensitive"),
                                     f"{where}.after"),
                        sensitive=sensitive)


def _has_true(mask: Any) -> bool:
    if mask is True:
        return True
    if isinstance(mask, dict):
        return any(_has_true(m) for m in mask.values())
    if isinstance(mask, list):
        return any(_has_true(m) for m in mask)
    return False


# ---------------------------------------------------------------- values with their masks

def _value(v: Any, unknown: Any, sensitive: Any, where: str, depth: int = 0) -> Any:
    """A language value from plan JSON: `unknown` / `sensitive` are Terraform's masks (true, or
    the same shape as the value holding trues). An unknown attribute is absent from the value
    and present in its mask."""
    if depth > MAX_DEPTH:
        raise PlanOpenError(f"{where}: nested more than {MAX_DEPTH} deep")
    if unknown is True:
        out: Any = Unknown()
    elif isinstance(v, dict) or (v is None and isinstance(unknown, dict) and unknown):
        src = v if isinstance(v, dict) else {}
        keys = list(src) + [k for k in (unknown if isinstance(unknown, dict) else {}) if k not in src]
        out = {k: _value(src.get(k), _sub(unknown, k), _sub(sensitive, k), where, depth + 1) for k in keys}
    elif isinstance(v, list):
        out = [_value(x, _sub(unknown, i), _sub(sensitive, i), where, depth + 1) for i, x in enumerate(v)]
    else:
        out = from_json_implied(v)
    return mark(out) if sensitive is True else out


def _sub(mask: Any, key: str | int) -> Any:
    if isinstance(mask, dict) and isinstance(key, str):
        return mask.get(key)
    if isinstance(mask, list) and isinstance(key, int) and 0 <= key < len(mask):
        return mask[key]
    return None
