"""Bounded memo dictionaries for hot paths (addresses' texts, types per shape, decoders per
type): what thousands of instances ask again is computed once.

A memo is a plain dict, read with `.get` where it is used; `remember` stores into it and empties
it when it reaches its limit, so pathological input (millions of distinct shapes) costs time,
never unbounded memory. Under the GIL a dict's get and set are atomic: two threads computing
the same entry both store equal values. Imports nothing from tfconsole.
"""
from __future__ import annotations

from typing import Any, TypeVar

V = TypeVar("V")


def remember(memo: dict[Any, Any], key: Any, value: V, limit: int = 4096) -> V:
    """Store memo[key] = value (emptying the memo first when it holds `limit` entries); value."""
    if len(memo) >= limit:
        memo.clear()
    memo[key] = value
    return value
