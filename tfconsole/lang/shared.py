"""One evaluation of an expression for every module instance that would compute the same value.

A module called several times evaluates each of its locals once per call. Where an expression
refers only to locals and input variables and calls only functions whose result depends on their
arguments alone, the same referenced values give the same result: a deep-merge module's chains
of `merge(try(local.layer.x, {}), ...)` over constant layers give every call the same object.
The walk keeps, per expression, the values its last evaluation read (by identity) and its
result; an evaluation reading the very same objects takes that result instead of computing it.

Only what cannot tell the difference is shared: an expression that refers to anything else
(resources, modules, count, each, path, terraform, self), calls a function that reads the clock,
the filesystem or the environment or draws random numbers, or calls a provider's function, is
always evaluated; so is any evaluation with a diagnostic (each instance reports its own). Values
are never changed once made (constant literals are shared the same way), so sharing the result
object is safe. The memo belongs to one walk and is bounded.
"""
from __future__ import annotations

import weakref
from typing import Any

from tfconsole.diags import Diagnostics
from tfconsole.memo import remember

from . import ast as A
from .eval import EvalError, Scope, evaluate

__all__ = ["evaluate_shared", "shareable_refs", "walk_memo"]

# functions whose result depends on more than their arguments: the clock, random numbers, the
# filesystem, the environment, or the context of the call (a template, the console)
_NOT_PURE = frozenset((
    "timestamp", "plantimestamp", "uuid", "bcrypt",
    "abspath", "file", "filebase64", "fileexists", "fileset", "pathexpand", "templatefile", "templatestring",
    "filemd5", "filesha1", "filesha256", "filesha512", "filebase64sha256", "filebase64sha512",
    "type",
))

_NOT_SHAREABLE = ()  # the answer for an expression that is never shared

# expression -> (expression, its references as (root, name) pairs, or _NOT_SHAREABLE); the tree is
# kept alive with its entry, so its id is not reused while it is listed
_PLANS: dict[int, tuple[A.Expr, tuple]] = {}
_PURE: dict[int, tuple[A.Expr, bool]] = {}  # expression -> whether its calls are all pure, likewise

_MEMOS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
MEMO_LIMIT = 4096


def walk_memo(owner: Any) -> dict:
    """The memo of one walk (`owner`: its context), made on first use, dropped with the walk."""
    memo = _MEMOS.get(owner)
    if memo is None:
        memo = _MEMOS[owner] = {}
    return memo


def shareable_refs(expr: A.Expr) -> tuple:
    """The (root, name) pairs ("local" or "var") an expression reads, when its value depends on
    nothing else; () when it may not be shared (a constant has no need to be)."""
    refs = _refs_of(expr)
    return refs if refs and _is_pure(expr) else _NOT_SHAREABLE


def _refs_of(expr: A.Expr) -> tuple:
    """shareable_refs without the look at the functions called (made only for a possible hit)."""
    hit = _PLANS.get(id(expr))
    if hit is not None and hit[0] is expr:
        return hit[1]
    refs: list[tuple[str, str]] = []
    for t in A.references(expr):
        steps = t.steps
        if t.root not in ("local", "var") or not steps or type(steps[0]) is not A.AttrStep:
            refs = []
            break
        refs.append((t.root, steps[0].name))
    plan = tuple(dict.fromkeys(refs)) if refs else _NOT_SHAREABLE
    remember(_PLANS, id(expr), (expr, plan), 100_000)
    return plan


def _is_pure(expr: A.Expr) -> bool:
    hit = _PURE.get(id(expr))
    if hit is not None and hit[0] is expr:
        return hit[1]
    pure = _pure_calls(expr)
    remember(_PURE, id(expr), (expr, pure), 100_000)
    return pure


def _pure_calls(e: A.Expr) -> bool:
    """Whether every function the expression calls depends on its arguments alone."""
    FunctionCall, ObjectCons, TupleCons, NOT_CONSTANT = A.FunctionCall, A.ObjectCons, A.TupleCons, A.NOT_CONSTANT
    stack = [e]
    while stack:
        e = stack.pop()
        t = type(e)
        if (t is ObjectCons or t is TupleCons) and e.const is not None and e.const is not NOT_CONSTANT:
            continue  # literals only (and their items may not be decoded)
        if t is FunctionCall:
            name = e.name[len("core::"):] if e.name.startswith("core::") else e.name
            if "::" in name or name in _NOT_PURE:
                return False
        stack.extend(e.children())
    return True


# an expression whose first evaluations in a walk all read values of their own (a module
# instance's inputs) is not looked up again in that walk: the lookups would only cost
GIVE_UP_AFTER = 4


def evaluate_shared(expr: A.Expr, scope: Scope, memo: dict) -> tuple[Any, Diagnostics]:
    """evaluate(expr, scope), or the result of an earlier evaluation of `expr` in this walk that
    read the very same values."""
    refs = _refs_of(expr)
    data = scope.data
    if not refs or data is None or scope.vars:
        return evaluate(expr, scope)
    seen = memo.get(id(expr))  # [expr, evaluations that found nothing to share]
    if seen is None or seen[0] is not expr:
        seen = memo[id(expr)] = [expr, 0]
    elif seen[1] >= GIVE_UP_AFTER:
        return evaluate(expr, scope)
    try:
        read = tuple(data.get_local(name, None) if root == "local" else data.get_variable(name, None)
                     for root, name in refs)
    except EvalError:  # an undeclared name: evaluation reports it where it stands
        return evaluate(expr, scope)
    key = (id(expr), *map(id, read))
    hit = memo.get(key)
    if hit is not None and hit[0] is expr and all(a is b for a, b in zip(hit[1], read)):
        if _is_pure(expr):  # looked at only now: most expressions never come this far
            seen[1] = -1_000_000  # shared once: never given up in this walk
            return hit[2], Diagnostics()
        seen[1] = GIVE_UP_AFTER  # its calls may differ: evaluated every time from now on
    seen[1] += 1
    value, diags = evaluate(expr, scope)
    if not len(diags):
        remember(memo, key, (expr, read, value), MEMO_LIMIT)  # `read` keeps the ids in the key taken
    return value, diags
