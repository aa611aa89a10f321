"""The values an erroring expression referred to, as Terraform annotates an expression error:

    ├────────────────
    │ var.x is 5
    │ local.m is object with 2 attributes

Computed only when an error is reported (never on the good path): every traversal of the
expression with at least one step after its root is looked up again in the scope the expression
failed in, shortened step by step while a lookup fails, and described as Terraform describes it
(tfdiags.CompactValueStr). Sensitive values are described only by their being sensitive, and
only when the error is about a sensitive value; unknown values by their type.
"""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from . import ast as A
from .numbers import Num
from .types import DYNAMIC
from .values import SENSITIVE, Null, Sensitive, TList, TMap, TSet, Unknown, type_of


def expression_values(expr: Any, scope: Any, caused_by_unknown: bool = False,
                      caused_by_sensitive: bool = False,
                      caused_by_ephemeral: bool = False) -> tuple[tuple[str, str], ...]:
    """(traversal, statement) pairs sorted by traversal; () when nothing can be said."""
    if expr is None or scope is None:
        return ()
    try:
        refs = A.references(expr)
    except Exception:  # noqa: BLE001 - an annotation must never turn into a failure of its own
        return ()
    seen: dict[str, str] = {}
    for ref in refs:
        found = _lookup(ref, scope)
        if found is None:
            continue
        text, value = found
        if text in seen:
            continue
        statement = describe(value, caused_by_unknown, caused_by_sensitive, caused_by_ephemeral)
        if statement is not None:
            seen[text] = statement
    return tuple(sorted(seen.items()))


def _lookup(ref: A.ScopeTraversal, scope: Any) -> tuple[str, Any] | None:
    """The longest prefix of the traversal (root plus at least one step) that can be looked up."""
    steps = ref.steps
    while steps:
        t = A.ScopeTraversal(ref.root, steps, ref.range)
        try:
            return traversal_text(t), scope.lookup(t)
        except Exception:  # noqa: BLE001 - an EvalError (or anything else): try a shorter one
            steps = steps[:-1]
    return None


def traversal_text(t: A.ScopeTraversal) -> str:
    """tfdiags.TraversalStr: index keys as compact values."""
    out = [t.root]
    for s in t.steps:
        if isinstance(s, A.AttrStep):
            out.append("." + s.name)
        elif isinstance(s.key, (str, int, float, Num, bool)) or s.key is None:
            out.append("[" + compact(s.key) + "]")
        else:
            out.append("[...]")
    return "".join(out)


def describe(v: Any, caused_by_unknown: bool, caused_by_sensitive: bool,
             caused_by_ephemeral: bool = False) -> str | None:
    """The statement after the traversal ("is 5", "has a sensitive value"...), or None when
    Terraform says nothing about this value for this error."""
    if type(v) is Sensitive:
        if v.marks & SENSITIVE:
            return "has a sensitive value" if caused_by_sensitive else None
        return "has an ephemeral value" if caused_by_ephemeral else None
    if type(v) is Unknown:
        ty = v.type
        if ty == DYNAMIC:
            return "will be known only after apply" if caused_by_unknown else None
        if caused_by_unknown:
            return f"is a {ty.friendly()}, known only after apply"
        return f"is a {ty.friendly()}"
    return "is " + compact(v)


def compact(v: Any) -> str:
    """tfdiags.CompactValueStr: a short description of a value."""
    t = type(v)
    if t is Sensitive:
        return "(sensitive value)"
    if v is None or t is Null:
        return "null"
    if t is Unknown:
        return "(not yet known)"
    if t is bool:
        return "true" if v else "false"
    if t is str:
        from tfconsole.config.hclparse import _go_quote

        return _go_quote(v)
    if t is int or t is Num or t is float or t is Decimal:
        return _number_g10(v)
    if t is dict:
        n = len(v)
        if n == 0:
            return "object with no attributes"
        if n == 1:
            return f"object with 1 attribute {compact(next(iter(v)))}"
        return f"object with {n} attributes"
    if t in (list, TList, TSet, TMap):
        friendly = type_of(v).friendly()
        n = len(v)
        if n == 0:
            return "empty " + friendly
        return f"{friendly} with 1 element" if n == 1 else f"{friendly} with {n} elements"
    return type_of(v).friendly()


def _number_g10(v: Any) -> str:
    """big.Float.Text('g', 10): at most 10 significant digits, an exponent when the value is
    below 1e-4 or at least 1e10, trailing zeros dropped."""
    from . import numbers as N

    text = N.text(v) if type(v) in (int, Num) else str(v)
    if text in ("+Inf", "-Inf"):
        return text
    d = Decimal(text)
    if d.is_zero():
        return "-0" if text.startswith("-") else "0"
    rounded = Decimal(f"{d:.9e}")  # ten significant digits, half to even as Go rounds them
    exp = rounded.adjusted()
    mant = "".join(str(x) for x in rounded.as_tuple().digits).rstrip("0") or "0"
    sign = "-" if rounded < 0 else ""
    if exp < -4 or exp >= 10:
        body = mant[0] + ("." + mant[1:] if len(mant) > 1 else "")
        return f"{sign}{body}e{'+' if exp >= 0 else '-'}{abs(exp):02d}"
    if exp >= 0:
        whole = mant[:exp + 1].ljust(exp + 1, "0")
        frac = mant[exp + 1:]
        return sign + whole + ("." + frac if frac else "")
    return sign + "0." + "0" * (-exp - 1) + mant


__all__ = ["compact", "describe", "expression_values", "traversal_text"]
