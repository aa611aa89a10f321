"""The `time` provider (registry.terraform.io/hashicorp/time).

time_static, time_sleep, time_offset and time_rotating with the real provider's plan rules:
time_sleep really sleeps inside apply (create and destroy); time_offset recomputes in the plan
when an offset changes; time_rotating is removed from state by read once its rotation time has
passed (and planned for replacement when it is past), so the next apply recreates it.
"""
from __future__ import annotations

import datetime as _dt
import time as _time
from typing import Any

from tfconsole.diags import Diagnostics
from tfconsole.lang.types import NUMBER, STRING, MapType

from ._framework import (
    A, FrameworkProvider, PlanContext, ResourceType, add_date, at_least, at_least_one_of, format_rfc3339, known,
    now_utc, parse_go_duration, parse_rfc3339, regex_matches, rfc3339_semantic_equal, rfc3339_validator, str_map,
    unix_seconds, whole,
)

TRIGGERS = A(MapType(STRING), optional=True, force_new=True)


def _int_computed() -> A:
    return A(NUMBER, computed=True)


def _rfc3339(**kw: Any) -> A:
    kw.setdefault("validators", (rfc3339_validator,))
    return A(STRING, semantic_equal=rfc3339_semantic_equal, **kw)


def _fields(t: _dt.datetime) -> dict[str, Any]:
    return {"year": t.year, "month": t.month, "day": t.day, "hour": t.hour, "minute": t.minute,
            "second": t.second, "unix": unix_seconds(t)}


def _clock(provider: Any) -> _dt.datetime:
    clock = getattr(provider, "clock", None)
    return clock() if clock else now_utc()


# ---------------------------------------------------------------------------
# time_static


class TimeStatic(ResourceType):
    name = "time_static"
    importable = True
    attrs = {
        "day": _int_computed(),
        "hour": _int_computed(),
        "triggers": TRIGGERS,
        "minute": _int_computed(),
        "month": _int_computed(),
        "rfc3339": _rfc3339(optional=True, computed=True, force_new=True),
        "second": _int_computed(),
        "unix": _int_computed(),
        "year": _int_computed(),
        "id": _rfc3339(computed=True, use_state=True),
    }

    def create(self, planned: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        ts = _clock(self.p).replace(microsecond=0)
        if known(planned.get("rfc3339")):
            ts = parse_rfc3339(planned["rfc3339"])
        state = {"triggers": planned.get("triggers"), **_fields(ts)}
        state["rfc3339"] = state["id"] = format_rfc3339(ts)
        return state

    def import_state(self, id_: str, diags: Diagnostics) -> dict[str, Any] | None:
        try:
            ts = parse_rfc3339(id_)
        except ValueError as exc:
            diags.error("Import time static error",
                        f"The id that was supplied could not be parsed as RFC3339.\n\n+Original Error: {exc}")
            return None
        state = {"triggers": str_map({}), **_fields(ts)}
        state["rfc3339"] = state["id"] = format_rfc3339(ts)
        return state


# ---------------------------------------------------------------------------
# time_sleep

_DURATION = regex_matches(r"^[0-9]+(\.[0-9]+)?(ms|s|m|h)$",
                          'must be a number immediately followed by ms (milliseconds), s (seconds), m (minutes), '
                          'or h (hours). For example, "30s" for 30 seconds.')


class TimeSleep(ResourceType):
    name = "time_sleep"
    importable = True
    attrs = {
        "create_duration": A(STRING, optional=True, validators=(_DURATION,)),
        "destroy_duration": A(STRING, optional=True, validators=(_DURATION,)),
        "triggers": TRIGGERS,
        "id": _rfc3339(computed=True, use_state=True),
    }

    def validate(self, config: dict[str, Any], diags: Diagnostics) -> None:
        at_least_one_of(["destroy_duration", "create_duration"], config, diags)

    def _sleep(self, text: str | None, summary: str, diags: Diagnostics) -> bool:
        if not text:
            return True
        try:
            seconds = parse_go_duration(text)
        except ValueError as exc:
            diags.error(summary, f"The create_duration cannot be parsed\n\n+Original Error: {exc}")
            return False
        if seconds > 0:
            _time.sleep(seconds)
        return True

    def create(self, planned: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        if not self._sleep(planned.get("create_duration"), "Create time sleep error", diags):
            return None
        return {"create_duration": planned.get("create_duration"),
                "destroy_duration": planned.get("destroy_duration"),
                "triggers": planned.get("triggers"),
                "id": format_rfc3339(_clock(self.p).replace(microsecond=0))}

    def delete(self, prior: dict[str, Any], diags: Diagnostics) -> None:
        self._sleep(prior.get("destroy_duration"), "Delete time sleep error", diags)

    def import_state(self, id_: str, diags: Diagnostics) -> dict[str, Any] | None:
        parts = id_.split(",")
        if len(parts) != 2 or (parts[0] == "" and parts[1] == ""):
            diags.error("Unexpected Format of ID",
                        f'Unexpected format of ID ("{id_}"), expected CREATEDURATION,DESTROYDURATION where at '
                        "least one value is non-empty")
            return None
        for p in parts:
            if p:
                try:
                    parse_go_duration(p)
                except ValueError as exc:
                    diags.error("Import time sleep error",
                                f"The create_duration cannot be parsed\n\n+Original Error: {exc}")
                    return None
        return {"create_duration": parts[0] or None, "destroy_duration": parts[1] or None,
                "triggers": str_map({}), "id": format_rfc3339(_clock(self.p).replace(microsecond=0))}


# ---------------------------------------------------------------------------
# time_offset

OFFSETS = ["offset_seconds", "offset_minutes", "offset_hours", "offset_days", "offset_months", "offset_years"]


def offset_values(values: dict[str, Any], ts: _dt.datetime) -> dict[str, Any]:
    """setOffsetValues: the offset timestamp's fields; base_rfc3339 and id are the base."""
    t = ts
    if whole(values.get("offset_days")):
        t = add_date(t, days=whole(values["offset_days"]))
    if whole(values.get("offset_hours")):
        t = t + _dt.timedelta(hours=whole(values["offset_hours"]))
    if whole(values.get("offset_minutes")):
        t = t + _dt.timedelta(minutes=whole(values["offset_minutes"]))
    if whole(values.get("offset_months")):
        t = add_date(t, months=whole(values["offset_months"]))
    if whole(values.get("offset_seconds")):
        t = t + _dt.timedelta(seconds=whole(values["offset_seconds"]))
    if whole(values.get("offset_years")):
        t = add_date(t, years=whole(values["offset_years"]))
    out = _fields(t)
    out["base_rfc3339"] = format_rfc3339(ts)
    out["rfc3339"] = format_rfc3339(t)
    out["id"] = format_rfc3339(ts)
    return out


class TimeOffset(ResourceType):
    name = "time_offset"
    importable = True
    attrs = {
        "base_rfc3339": _rfc3339(optional=True, computed=True),
        "day": _int_computed(),
        "hour": _int_computed(),
        "triggers": TRIGGERS,
        "minute": _int_computed(),
        "month": _int_computed(),
        "offset_days": A(NUMBER, optional=True, int64=True),
        "offset_hours": A(NUMBER, optional=True, int64=True),
        "offset_minutes": A(NUMBER, optional=True, int64=True),
        "offset_months": A(NUMBER, optional=True, int64=True),
        "offset_seconds": A(NUMBER, optional=True, int64=True),
        "offset_years": A(NUMBER, optional=True, int64=True),
        "rfc3339": _rfc3339(computed=True),
        "second": _int_computed(),
        "unix": _int_computed(),
        "year": _int_computed(),
        "id": _rfc3339(computed=True),
    }

    def validate(self, config: dict[str, Any], diags: Diagnostics) -> None:
        at_least_one_of(OFFSETS, config, diags)

    def modify_plan(self, ctx: PlanContext) -> None:
        base = _base_when_changed(ctx, OFFSETS, "base_rfc3339")
        if base is None:
            return
        ctx.planned.update(offset_values(ctx.planned, parse_rfc3339(base)))

    def create(self, planned: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        ts = _clock(self.p).replace(microsecond=0)
        if known(planned.get("base_rfc3339")) and planned["base_rfc3339"]:
            ts = parse_rfc3339(planned["base_rfc3339"])
        state = dict(planned)
        state.update(offset_values(planned, ts))
        return state

    def update(self, prior: dict[str, Any], planned: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        base = planned.get("base_rfc3339")
        if not known(base):
            base = prior.get("base_rfc3339")
        state = dict(planned)
        state.update(offset_values(planned, parse_rfc3339(base)))
        return state

    def import_state(self, id_: str, diags: Diagnostics) -> dict[str, Any] | None:
        parts = id_.split(",")
        if len(parts) != 7:
            diags.error("Unexpected Format of ID",
                        f'Unexpected format of ID ("{id_}"), expected BASETIMESTAMP,YEARS,MONTHS,DAYS,HOURS,'
                        "MINUTES,SECONDS")
            return None
        if parts[0] == "" or all(p == "" for p in parts[1:]):
            diags.error("Unexpected Format of ID",
                        f'Unexpected format of ID ("{id_}"), expected BASETIMESTAMP,YEARS,MONTHS,DAYS,HOURS,'
                        "MINUTES,SECONDS where at least one offset value is non-empty")
            return None
        state: dict[str, Any] = {}
        names = ["offset_years", "offset_months", "offset_days", "offset_hours", "offset_minutes", "offset_seconds"]
        for name, text in zip(names, parts[1:]):
            try:
                state[name] = _opt_int(text)
            except ValueError as exc:
                diags.error("Import time offset error",
                            f"The {name} parameter that was supplied could not be parsed as Int64.\n\n+"
                            f"Original Error: {exc}")
                return None
        try:
            ts = parse_rfc3339(parts[0])
        except ValueError as exc:
            diags.error("Create time offset error",
                        "The base_rfc3339 timestamp that was supplied could not be parsed as RFC3339.\n\n+"
                        f"Original Error: {exc}")
            return None
        state.update(offset_values(state, ts))
        state["triggers"] = str_map({})
        return state


def _base_when_changed(ctx: PlanContext, fields: Any, base_attr: str) -> Any:
    """On an update whose offset/rotation arguments changed, the known base time to recompute
    from (planned, else prior); None when nothing is to be recomputed."""
    if ctx.prior is None or all(_same(ctx.prior.get(o), ctx.planned.get(o)) for o in fields):
        return None
    base = ctx.planned.get(base_attr)
    if not known(base):
        base = ctx.prior.get(base_attr)
    return base if known(base) else None


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if not known(a) or not known(b):
        return False
    return a == b


def _opt_int(text: str) -> int | None:
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        raise ValueError(f'could not parse offset ("{text}") as int: strconv.ParseInt: parsing "{text}": '
                         "invalid syntax") from None


# ---------------------------------------------------------------------------
# time_rotating

ROTATIONS = ["rotation_minutes", "rotation_hours", "rotation_days", "rotation_months", "rotation_years",
             "rotation_rfc3339"]


def _replace_if_outdated(ctx: PlanContext, name: str) -> bool:
    if ctx.prior is None:
        return False
    saved = ctx.prior.get(name)
    if not known(saved):
        return False
    try:
        rotation = parse_rfc3339(saved)
    except ValueError as exc:
        ctx.diags.error("replaceIfOutdated plan modifier error",
                        "The rotation rfc3339 timestamp that was supplied could not be parsed as RFC3339.\n\n+"
                        f"Original Error: {exc}")
        return False
    return _clock(ctx.provider) > rotation


def rotation_values(values: dict[str, Any], ts: _dt.datetime) -> dict[str, Any]:
    rot = _dt.datetime(1, 1, 1, tzinfo=_dt.timezone.utc)  # Go's zero time when nothing applies
    if whole(values.get("rotation_days")):
        rot = add_date(ts, days=whole(values["rotation_days"]))
    if whole(values.get("rotation_hours")):
        rot = ts + _dt.timedelta(hours=whole(values["rotation_hours"]))
    if whole(values.get("rotation_minutes")):
        rot = ts + _dt.timedelta(minutes=whole(values["rotation_minutes"]))
    if whole(values.get("rotation_months")):
        rot = add_date(ts, months=whole(values["rotation_months"]))
    if known(values.get("rotation_rfc3339")) and values["rotation_rfc3339"]:
        rot = parse_rfc3339(values["rotation_rfc3339"])
    if whole(values.get("rotation_years")):
        rot = add_date(ts, years=whole(values["rotation_years"]))
    out = _fields(rot)
    out["rotation_rfc3339"] = format_rfc3339(rot)
    out["rfc3339"] = format_rfc3339(ts)
    out["id"] = format_rfc3339(ts)
    return out


class TimeRotating(ResourceType):
    name = "time_rotating"
    importable = True
    attrs = {
        "day": _int_computed(),
        "rotation_days": A(NUMBER, optional=True, int64=True, validators=(at_least(1),)),
        "rotation_hours": A(NUMBER, optional=True, int64=True, validators=(at_least(1),)),
        "rotation_minutes": A(NUMBER, optional=True, int64=True, validators=(at_least(1),)),
        "rotation_months": A(NUMBER, optional=True, int64=True, validators=(at_least(1),)),
        "rotation_rfc3339": _rfc3339(optional=True, computed=True, replace_if=_replace_if_outdated),
        "rotation_years": A(NUMBER, optional=True, int64=True, validators=(at_least(1),)),
        "hour": _int_computed(),
        "triggers": TRIGGERS,
        "minute": _int_computed(),
        "month": _int_computed(),
        "rfc3339": _rfc3339(optional=True, computed=True, force_new=True),
        "second": _int_computed(),
        "unix": _int_computed(),
        "year": _int_computed(),
        "id": _rfc3339(computed=True),
    }

    def validate(self, config: dict[str, Any], diags: Diagnostics) -> None:
        at_least_one_of(ROTATIONS, config, diags)

    def modify_plan(self, ctx: PlanContext) -> None:
        base = _base_when_changed(ctx, ROTATIONS, "rfc3339")
        if base is None:
            return
        values = dict(ctx.planned)
        if not known(values.get("rotation_rfc3339")):
            values["rotation_rfc3339"] = None  # an unknown value counts as unset, as in the provider
        ctx.planned.update(rotation_values(values, parse_rfc3339(base)))

    def create(self, planned: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        ts = _clock(self.p).replace(microsecond=0)
        if known(planned.get("rfc3339")) and planned["rfc3339"]:
            ts = parse_rfc3339(planned["rfc3339"])
        values = dict(planned)
        if not known(values.get("rotation_rfc3339")):
            values["rotation_rfc3339"] = None
        state = dict(planned)
        state.update(rotation_values(values, ts))
        return state

    def read(self, state: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        rot = state.get("rotation_rfc3339")
        if known(rot) and rot:
            try:
                if _clock(self.p) > parse_rfc3339(rot):
                    return None
            except ValueError as exc:
                diags.error("Read time rotating error", f"Original Error: {exc}")
        return state

    def update(self, prior: dict[str, Any], planned: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        state = dict(planned)
        if all(_same(prior.get(o), planned.get(o)) for o in ROTATIONS):
            return state
        values = dict(planned)
        if not known(values.get("rotation_rfc3339")):
            values["rotation_rfc3339"] = None
        state.update(rotation_values(values, parse_rfc3339(planned["id"] if known(planned.get("id"))
                                                           else prior["id"])))
        return state

    def import_state(self, id_: str, diags: Diagnostics) -> dict[str, Any] | None:
        parts = id_.split(",")
        if len(parts) not in (2, 6):
            diags.error("Unexpected Format of ID",
                        f'Unexpected format of ID ("{id_}"), expected BASETIMESTAMP,YEARS,MONTHS,DAYS,HOURS,'
                        "MINUTES or BASETIMESTAMP,ROTATIONTIMESTAMP")
            return None
        if len(parts) == 2:
            if parts[0] == "" or parts[1] == "":
                diags.error("Unexpected Format of ID",
                            f'Unexpected format of ID ("{id_}"), expected BASETIMESTAMP,ROTATIONTIMESTAMP')
                return None
            try:
                ts = parse_rfc3339(parts[0])
                rot = parse_rfc3339(parts[1])
            except ValueError as exc:
                diags.error("Import time rotating error",
                            f"The timestamp that was supplied could not be parsed as RFC3339.\n\n+Original Error: {exc}")
                return None
            state = {n: None for n in ("rotation_years", "rotation_months", "rotation_days", "rotation_hours",
                                       "rotation_minutes")}
            state.update(_fields(rot))
            state["rotation_rfc3339"] = format_rfc3339(rot)
            state["rfc3339"] = state["id"] = format_rfc3339(ts)
        else:
            if parts[0] == "" or all(p == "" for p in parts[1:]):
                diags.error("Unexpected Format of ID",
                            f'Unexpected format of ID ("{id_}"), expected BASETIMESTAMP,YEARS,MONTHS,DAYS,HOURS,'
                            "MINUTES where at least one rotation value is non-empty")
                return None
            names = ["rotation_years", "rotation_months", "rotation_days", "rotation_hours", "rotation_minutes"]
            state = {}
            try:
                for name, text in zip(names, parts[1:]):
                    state[name] = _opt_int(text)
                ts = parse_rfc3339(parts[0])
            except ValueError as exc:
                diags.error("Import time rotating error",
                            f"The parameter that was supplied could not be parsed.\n\n+Original Error: {exc}")
                return None
            positive = {k: (v if v and v > 0 else None) for k, v in state.items()}
            state.update(rotation_values(positive, ts))
        state["triggers"] = str_map({})
        return state


class TimeProvider(FrameworkProvider):
    type_name = "time"
    source = "registry.terraform.io/hashicorp/time"
    resource_types = (TimeStatic, TimeSleep, TimeOffset, TimeRotating)

    def __init__(self, base_dir: str = ".", clock: Any = None) -> None:
        super().__init__(base_dir)
        self.clock = clock  # a callable returning an aware datetime; tests use a fake clock
