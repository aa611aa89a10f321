"""Plan files keep every number exactly: a Num (not a small exact integer) round-trips through
the plan codec with its value and its precision, and a malformed encoding is refused."""
from __future__ import annotations

import pytest

from tfconsole.lang import numbers as N
from tfconsole.plans.codec import CodecError, decode_value, encode_value


@pytest.mark.parametrize("text", ["2.5", "0.1", "-1e-300", "1e400", "123456789012345678901234567890.5"])
def test_num_round_trips(text: str) -> None:
    for n in (N.parse(text), N.div(N.parse(text), 3)):
        back = decode_value(encode_value(n))
        assert back == n and back.precision == n.precision


def test_float64_precision_and_signed_zero_kept() -> None:
    for n in (N.from_float64(0.1), N.from_float64(-0.0)):
        back = decode_value(encode_value(n))
        assert back.precision == 53 and N.text(back) == N.text(n)


@pytest.mark.parametrize("bad", [["x", 0, 512], ["1", 0, 0], ["1", 0, 99999], ["1", "0", 512], "512:1", []])
def test_bad_num_encoding_refused(bad: object) -> None:
    with pytest.raises(CodecError):
        decode_value({"N": bad})
