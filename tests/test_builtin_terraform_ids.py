"""terraform_data ids: random version 4 UUIDs, distinct, also across the random buffer's refills."""
import re
import uuid

from tfconsole.providers.builtin.terraform import _RandomIds


def test_ids_are_distinct_random_uuid4_texts():
    ids = _RandomIds()
    got = [ids.next() for _ in range(1000)]  # 1000 x 16 bytes: the 4 KiB buffer refilled 3 times
    assert len(set(got)) == len(got)
    for text in got:
        assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", text)
        assert uuid.UUID(text).version == 4
