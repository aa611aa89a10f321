"""The built-in time provider: time_static, time_sleep, time_offset, time_rotating."""
from __future__ import annotations

import datetime as dt
import time

import pytest

from tfconsole.lang.types import NUMBER, STRING
from tfconsole.lang.values import TMap, Unknown
from tfconsole.providers.builtin import _harness as h
from tfconsole.providers.builtin._framework import add_date, format_rfc3339, parse_go_duration, parse_rfc3339
from tfconsole.providers.builtin.time import TimeProvider
from tfconsole.providers.registry import default_registry

UTC = dt.timezone.utc


class FakeClock:
    def __init__(self, t: dt.datetime) -> None:
        self.t = t

    def __call__(self) -> dt.datetime:
        return self.t


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(dt.datetime(2024, 1, 31, 10, 20, 30, 123456, tzinfo=UTC))


@pytest.fixture
def p(clock: FakeClock) -> TimeProvider:
    return TimeProvider(clock=clock)


def test_registered() -> None:
    assert isinstance(default_registry().create("hashicorp/time"), TimeProvider)


def test_helpers() -> None:
    assert parse_go_duration("1.5s") == 1.5
    assert parse_go_duration("1h30m") == 5400
    assert parse_go_duration("200ms") == pytest.approx(0.2)
    with pytest.raises(ValueError, match="unknown unit"):
        parse_go_duration("5x")
    t = parse_rfc3339("2020-02-12T06:36:13+02:00")
    assert format_rfc3339(t) == "2020-02-12T06:36:13+02:00"
    assert format_rfc3339(parse_rfc3339("2020-02-12T06:36:13.5Z")) == "2020-02-12T06:36:13Z"
    with pytest.raises(ValueError):
        parse_rfc3339("2020-02-12 06:36:13")
    # Go's AddDate normalises overflowing days
    assert add_date(dt.datetime(2024, 1, 31, tzinfo=UTC), months=1) == dt.datetime(2024, 3, 2, tzinfo=UTC)
    assert add_date(dt.datetime(2023, 1, 31, tzinfo=UTC), months=1) == dt.datetime(2023, 3, 3, tzinfo=UTC)
    assert add_date(dt.datetime(2024, 2, 29, tzinfo=UTC), years=1) == dt.datetime(2025, 3, 1, tzinfo=UTC)


# -- time_static ------------------------------------------------------------------


def test_static_now(p: TimeProvider) -> None:
    plan = h.plan(p, "time_static", None, {})
    assert plan.planned["rfc3339"] == Unknown(STRING) and plan.planned["year"] == Unknown(NUMBER)
    st = h.create(p, "time_static", {})
    assert st["rfc3339"] == st["id"] == "2024-01-31T10:20:30Z"
    assert (st["year"], st["month"], st["day"], st["hour"], st["minute"], st["second"]) == (2024, 1, 31, 10, 20, 30)
    assert st["unix"] == int(dt.datetime(2024, 1, 31, 10, 20, 30, tzinfo=UTC).timestamp())
    # unchanged config: no change even though rfc3339 was computed
    assert h.apply_config(p, "time_static", st, {}).action == "noop"


def test_static_configured_and_triggers(p: TimeProvider, clock: FakeClock) -> None:
    st = h.create(p, "time_static", {"rfc3339": "2020-02-12T06:36:13+01:00"})
    assert st["hour"] == 6 and st["id"] == "2020-02-12T06:36:13+01:00"
    assert st["unix"] == 1581485773
    st = h.create(p, "time_static", {"triggers": TMap({"a": "1"}, STRING)})
    clock.t += dt.timedelta(days=1)
    ch = h.apply_config(p, "time_static", st, {"triggers": TMap({"a": "2"}, STRING)})
    assert ch.action == "replace"
    # as with the plugin framework, the unconfigured rfc3339 turns unknown and so forces replacement too
    assert ch.plan.requires_replace == [("triggers",), ("rfc3339",)]
    assert ch.plan.planned["rfc3339"] == Unknown(STRING)
    assert ch.state["day"] == 1 and ch.state["month"] == 2


def test_static_invalid_rfc3339(p: TimeProvider) -> None:
    d = p.validate_resource("time_static", {"rfc3339": "yesterday"})
    assert d.errors()[0].summary == "Invalid RFC3339 String Value"


def test_static_import(p: TimeProvider) -> None:
    st = h.import_(p, "time_static", "2020-02-12T06:36:13Z")
    assert st["year"] == 2020 and st["rfc3339"] == "2020-02-12T06:36:13Z" and st["triggers"] == {}
    _, d = p.import_resource("time_static", "garbage")
    assert d.errors()[0].summary == "Import time static error"


# -- time_sleep ------------------------------------------------------------------------


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every sleep the time provider asks for (and really does)."""
    import tfconsole.providers.builtin.time as mod

    asked: list[float] = []
    real = mod._time.sleep

    class _Time:
        def __getattr__(self, name: str):  # noqa: ANN204
            return getattr(time, name)

        @staticmethod
        def sleep(seconds: float) -> None:
            asked.append(seconds)
            real(seconds)

    monkeypatch.setattr(mod, "_time", _Time())
    return asked


def test_sleep_create_and_destroy_really_sleep(sleeps: list[float]) -> None:
    p = TimeProvider()
    t0 = time.monotonic()
    st = h.create(p, "time_sleep", {"create_duration": "0.2s"})
    assert time.monotonic() - t0 >= 0.19 and sleeps == [0.2]
    assert parse_rfc3339(st["id"])
    assert st["create_duration"] == "0.2s" and st["destroy_duration"] is None
    h.destroy(p, "time_sleep", st)
    assert sleeps == [0.2]  # no destroy_duration: no sleep at all
    st = h.create(p, "time_sleep", {"destroy_duration": "150ms"})
    t0 = time.monotonic()
    h.destroy(p, "time_sleep", st)
    assert time.monotonic() - t0 >= 0.14 and sleeps == [0.2, 0.15]


def test_sleep_update_in_place_without_delay(p: TimeProvider, sleeps: list[float]) -> None:
    st = h.create(p, "time_sleep", {"create_duration": "1ms"})
    ch = h.apply_config(p, "time_sleep", st, {"create_duration": "5s"})
    assert sleeps == [0.001]  # the update does not sleep
    assert ch.action == "update" and ch.state["id"] == st["id"] and ch.state["create_duration"] == "5s"
    resp = h.plan(p, "time_sleep", ch.state, {"create_duration": "5s", "triggers": TMap({"x": "1"}, STRING)})
    assert resp.requires_replace == [("triggers",)] and resp.planned["id"] == Unknown(STRING)


def test_sleep_refresh_does_not_sleep(p: TimeProvider, sleeps: list[float]) -> None:
    st = h.create(p, "time_sleep", {"create_duration": "10ms", "destroy_duration": "10ms"})
    assert h.read(p, "time_sleep", st) == st
    assert sleeps == [0.01]


def test_sleep_validation(p: TimeProvider) -> None:
    d = p.validate_resource("time_sleep", {})
    assert d.errors()[0].summary == "Missing Attribute Configuration"
    d = p.validate_resource("time_sleep", {"create_duration": "5"})
    assert d.errors()[0].summary == "Invalid Attribute Value Match"
    d = p.validate_resource("time_sleep", {"create_duration": "1m"})
    assert not d.has_errors


def test_sleep_import(p: TimeProvider) -> None:
    st = h.import_(p, "time_sleep", "30s,")
    assert st["create_duration"] == "30s" and st["destroy_duration"] is None
    st = h.import_(p, "time_sleep", ",1m")
    assert st["destroy_duration"] == "1m" and st["create_duration"] is None
    _, d = p.import_resource("time_sleep", ",")
    assert d.errors()[0].summary == "Unexpected Format of ID"


# -- time_offset ------------------------------------------------------------------------


def test_offset(p: TimeProvider) -> None:
    d = p.validate_resource("time_offset", {})
    assert d.errors()[0].summary == "Missing Attribute Configuration"
    st = h.create(p, "time_offset", {"offset_days": 7, "offset_hours": 1})
    assert st["base_rfc3339"] == st["id"] == "2024-01-31T10:20:30Z"
    assert st["rfc3339"] == "2024-02-07T11:20:30Z"
    assert (st["year"], st["month"], st["day"], st["hour"]) == (2024, 2, 7, 11)
    assert h.apply_config(p, "time_offset", st, {"offset_days": 7, "offset_hours": 1}).action == "noop"


def test_offset_change_recomputed_at_plan(p: TimeProvider) -> None:
    st = h.create(p, "time_offset", {"base_rfc3339": "2020-01-31T00:00:00Z", "offset_months": 1})
    assert st["rfc3339"] == "2020-03-02T00:00:00Z"
    resp = h.plan(p, "time_offset", st, {"base_rfc3339": "2020-01-31T00:00:00Z", "offset_years": 1})
    assert resp.requires_replace == []
    assert resp.planned["rfc3339"] == "2021-01-31T00:00:00Z"  # known in the plan, as ModifyPlan sets it
    ch = h.apply_config(p, "time_offset", st, {"base_rfc3339": "2020-01-31T00:00:00Z", "offset_years": 1})
    assert ch.action == "update" and ch.state["rfc3339"] == "2021-01-31T00:00:00Z"
    assert ch.state["id"] == "2020-01-31T00:00:00Z"


def test_offset_import(p: TimeProvider) -> None:
    st = h.import_(p, "time_offset", "2020-02-12T06:36:13Z,0,0,7,0,0,0")
    assert st["rfc3339"] == "2020-02-19T06:36:13Z" and st["offset_days"] == 7 and st["offset_years"] == 0
    st = h.import_(p, "time_offset", "2020-02-12T06:36:13Z,,,,,,30")
    assert st["offset_seconds"] == 30 and st["offset_days"] is None
    _, d = p.import_resource("time_offset", "2020-02-12T06:36:13Z,,,,,,")
    assert "at least one offset value" in d.errors()[0].detail


# -- time_rotating ------------------------------------------------------------------------


def test_rotating(p: TimeProvider, clock: FakeClock) -> None:
    d = p.validate_resource("time_rotating", {})
    assert d.errors()[0].summary == "Missing Attribute Configuration"
    d = p.validate_resource("time_rotating", {"rotation_days": 0})
    assert "at least 1" in d.errors()[0].detail
    st = h.create(p, "time_rotating", {"rotation_days": 30})
    assert st["rfc3339"] == st["id"] == "2024-01-31T10:20:30Z"
    assert st["rotation_rfc3339"] == "2024-03-01T10:20:30Z"
    assert (st["year"], st["month"], st["day"]) == (2024, 3, 1)  # fields describe the rotation time
    assert h.read(p, "time_rotating", st) == st
    assert h.apply_config(p, "time_rotating", st, {"rotation_days": 30}).action == "noop"
    clock.t = dt.datetime(2024, 3, 2, tzinfo=UTC)
    assert h.read(p, "time_rotating", st) is None  # expired: removed, so the next apply recreates it
    st2 = h.create(p, "time_rotating", {"rotation_days": 30})
    assert st2["rfc3339"] == "2024-03-02T00:00:00Z"


def test_rotating_change_rotation(p: TimeProvider, clock: FakeClock) -> None:
    st = h.create(p, "time_rotating", {"rotation_days": 30})
    resp = h.plan(p, "time_rotating", st, {"rotation_days": 10})
    assert resp.requires_replace == []
    assert resp.planned["rotation_rfc3339"] == "2024-02-10T10:20:30Z"
    ch = h.apply_config(p, "time_rotating", st, {"rotation_days": 10})
    assert ch.state["rotation_rfc3339"] == "2024-02-10T10:20:30Z" and ch.state["id"] == st["id"]
    # once the saved rotation time has passed, a change to it forces replacement
    clock.t = dt.datetime(2024, 2, 11, tzinfo=UTC)
    resp = h.plan(p, "time_rotating", ch.state, {"rotation_hours": 1})
    assert ("rotation_rfc3339",) in resp.requires_replace


def test_rotating_import(p: TimeProvider) -> None:
    st = h.import_(p, "time_rotating", "2020-02-12T06:36:13Z,0,0,30,0,0")
    assert st["rotation_rfc3339"] == "2020-03-13T06:36:13Z" and st["rotation_days"] == 30
    st = h.import_(p, "time_rotating", "2020-02-12T06:36:13Z,2020-02-13T06:36:13Z")
    assert st["rotation_rfc3339"] == "2020-02-13T06:36:13Z" and st["rotation_days"] is None
    _, d = p.import_resource("time_rotating", "a,b,c")
    assert d.errors()[0].summary == "Unexpected Format of ID"
