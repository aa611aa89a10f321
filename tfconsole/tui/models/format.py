"""Small textual-free formatting rules shared by every view: durations, instance keys, status
words and the natural order of addresses (`base[9]` before `base[10]`)."""
from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

_NUMBER = re.compile(r"(\d+)")


def fmt_seconds(s: float) -> str:
    """A duration as the console prints it: milliseconds under a second, else one decimal."""
    return f"{s * 1000:.0f}ms" if s < 1 else f"{s:.1f}s"


def key_text(key: Any) -> str:
    """An instance key as it appears in an address: [3] or ["a"]."""
    if key is None:
        return ""
    if isinstance(key, int):
        return f"[{key}]"
    return f"[{json.dumps(key)}]"


@lru_cache(maxsize=1 << 16)  # layouts of a 10,000-vertex graph sort the same names again and again
def natural_key(text: str) -> tuple[Any, ...]:
    """Sort key that orders digit runs by value, so `base[10]` follows `base[9]`."""
    parts = _NUMBER.split(text)
    # (is-number, value) pairs keep the key comparable whatever mix of text and digits it holds
    return tuple((1, int(p), "") if i % 2 else (0, 0, p) for i, p in enumerate(parts))


def status_word(status: str, at: float, elapsed: float | None, now: float, detail: str = "") -> str:
    """A vertex's live status as a word: `waiting on ADDR`, `queued`, `running 3.2s`,
    `done 1.1s`, `failed 0.2s`, `skipped`. `detail` of a waiting vertex lists its pending
    dependencies (the walker reports only those still pending)."""
    if status == "running":
        return f"running {fmt_seconds(max(0.0, now - at))}"
    if status in ("done", "failed") and elapsed is not None:
        return f"{status} {fmt_seconds(elapsed)}"
    if status == "waiting" and detail:
        return f"waiting on {detail}"
    return status


def clip_left(text: str, width: int) -> str:
    """text cut to width from the left ("…" first): an address keeps its most specific end."""
    if len(text) <= width:
        return text
    return "…" + text[len(text) - max(0, width - 1):] if width > 0 else ""
