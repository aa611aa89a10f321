"""String values as cty makes them: every string is in Unicode Normalization Form C.

go-cty normalises each string to NFC when the value is made (literals, template results,
function results), so `"an\\u0303os"` has five characters and equals `"años"`.
"""
from __future__ import annotations

import unicodedata
from typing import Any

__all__ = ["nfc", "nfc_deep"]


def nfc(s: str) -> str:
    """s in NFC; ASCII text (the common case) is returned without being scanned twice."""
    if s.isascii() or unicodedata.is_normalized("NFC", s):
        return s
    return unicodedata.normalize("NFC", s)


def nfc_deep(v: Any) -> Any:
    """v with every string in it (values and object/map keys) in NFC; v itself when it is."""
    t = type(v)
    if t is str:
        return nfc(v)
    if t is dict:
        out = None
        for k, x in v.items():
            k2, x2 = nfc(k), nfc_deep(x)
            if out is None and (k2 is not k or x2 is not x):
                out = {}
                for k0, x0 in v.items():
                    if k0 == k:
                        break
                    out[k0] = x0
            if out is not None:
                out[k2] = x2
        return v if out is None else out
    if t is list:
        items = [nfc_deep(x) for x in v]
        return v if all(a is b for a, b in zip(items, v)) else items
    return _nfc_other(v, t)


def _nfc_other(v: Any, t: type) -> Any:
    from .values import Sensitive, TList, TMap, TSet

    if t is Sensitive:
        inner = nfc_deep(v.value)
        return v if inner is v.value else Sensitive(inner, v.marks)
    if t is TList or t is TSet:
        items = [nfc_deep(x) for x in v]
        if all(a is b for a, b in zip(items, v)):
            return v
        return TList(items, v.etype) if t is TList else TSet(items, v.etype)
    if t is TMap:
        d = {nfc(k): nfc_deep(x) for k, x in v.items()}
        if all(k in v and d[k] is v[k] for k in d) and len(d) == len(v):
            return v
        return TMap(d, v.etype)
    return v
