"""Journal lines: orjson for records without floats, the standard encoder for the rest; every
line reads back to the record written, and is one line."""
import json
import math
from decimal import Decimal

import pytest

from tfconsole.states import journal
from tfconsole.states.statefile import _parse_float


def _read(line: bytes):
    return json.loads(line, object_hook=journal._json_hook, parse_float=_parse_float)


@pytest.mark.parametrize("obj", [
    {"a": [1, "x", None, True, {"b": "é<\n\u2028"}]},
    {"f": 1.5},
    {"d": Decimal("1.25")},
    {"big": 1 << 70},
    {"s": "\ud800"},
])
def test_records_round_trip_on_one_line(obj: dict) -> None:
    line = journal._record_bytes({"k": "r", "o": obj})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    back = _read(line)["o"]
    key = next(iter(obj))
    if key == "f":
        assert float(back["f"]) == 1.5
    else:
        assert back == obj


def test_nan_is_kept_not_written_as_null() -> None:
    back = _read(journal._record_bytes({"k": "r", "o": {"n": math.nan}}))
    assert math.isnan(back["o"]["n"])


def test_plain_records_take_orjson(monkeypatch: pytest.MonkeyPatch) -> None:
    assert journal._orjson_module() is not None, "orjson is a dependency"
    monkeypatch.setattr(journal, "_encode_record", lambda rec: pytest.fail("standard encoder used"))
    assert _read(journal._record_bytes({"k": "r", "o": {"id": "x", "n": 3}}))["o"] == {"id": "x", "n": 3}
