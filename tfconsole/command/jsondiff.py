"""Structural diffs of JSON values as Terraform's plan renderer shows them: the changes of
output values, and strings holding a JSON object or array (`jsonencode(...)`) in resource
attributes.

A diff is computed first (what changed where, with an action per node) and rendered after,
at an indent level of four columns per level, the caller adding its own left margin. Values
are decoded JSON (dict, list, str, bool, None and numbers kept as their JSON text).
"""
from __future__ import annotations

import json
import re
from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from decimal import Decimal
from typing import Any

NOOP, CREATE, UPDATE, DELETE = "no-op", "create", "update", "delete"
SYMBOL = {NOOP: " ", CREATE: "+", UPDATE: "~", DELETE: "-"}
_MISSING = object()
_IDENT = re.compile(r"[^\W\d][\w-]*\Z")


@dataclass
class Diff:
    action: str
    kind: str  # primitive | object | list | typechange
    before: Any = None
    after: Any = None
    children: Any = field(default=None)  # object: {key: Diff}; list: [Diff]; typechange: (Diff, Diff)


def parse_json_text(s: str) -> Any:
    """A string's JSON object or array, or _MISSING (Terraform tries only text starting { or [)."""
    if not s.startswith(("{", "[")):
        return _MISSING
    try:
        return json.loads(s, parse_float=Decimal, parse_int=Decimal)
    except ValueError:
        return _MISSING


def _jtype(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, str):
        return "string"
    if isinstance(v, dict):
        return "object"
    if isinstance(v, list):
        return "array"
    return "number"


def _combine(current: str, nxt: str) -> str:
    if nxt == NOOP:
        return current
    return current if current == nxt else UPDATE


def transform(before: Any, after: Any, before_explicit: bool = True, after_explicit: bool = True) -> Diff:
    bt, at = _jtype(before), _jtype(after)
    deleted = at == "null" and not after_explicit
    created = bt == "null" and not before_explicit
    if bt == at or created or deleted:
        target = at if bt == "null" else bt
        return _update(before, after, before_explicit, after_explicit, target)
    b = _update(before, None, True, False, bt)
    a = _update(None, after, False, True, at)
    return Diff(UPDATE, "typechange", children=(b, a))


def _update(before: Any, after: Any, bx: bool, ax: bool, jtype: str) -> Diff:
    if jtype == "object":
        return _object(_of(before, dict), _of(after, dict))
    if jtype == "array":
        return _array(_of(before, list), _of(after, list))
    b_missing = before is None and not bx
    a_missing = after is None and not ax
    if b_missing and not a_missing:
        action = CREATE
    elif a_missing and not b_missing:
        action = DELETE
    elif before == after and type(before) is type(after):
        action = NOOP
    else:
        action = UPDATE
    return Diff(action, "primitive", before, after)


def _of(v: Any, kind: type) -> Any:
    return v if isinstance(v, kind) else None


def _start(before: Any, after: Any) -> str:
    """A collection's action before its elements are compared (Terraform's TransformSlice/Map)."""
    if before is not None and after is None:
        return DELETE
    return CREATE if before is None and after is not None else NOOP


def _object(before: dict | None, after: dict | None) -> Diff:
    current = _start(before, after)
    keys = sorted(set(before or {}) | set(after or {}))
    children = {}
    for k in keys:
        b = (before or {}).get(k)
        a = (after or {}).get(k)
        child = transform(b, a, before is not None and k in before, after is not None and k in after)
        children[k] = child
        current = _combine(current, child.action)
    return Diff(current, "object", before, after, children)


def _array(before: list | None, after: list | None) -> Diff:
    current = _start(before, after)
    b, a = before or [], after or []
    children: list[Diff] = []

    def process(bi: int, ai: int) -> None:
        nonlocal current
        child = transform(b[bi] if bi < len(b) else None, a[ai] if ai < len(a) else None,
                          bi < len(b), ai < len(a))
        children.append(child)
        current = _combine(current, child.action)

    process_slice(b, a, process, lambda v: isinstance(v, dict))
    return Diff(current, "list", before, after, children)


def lcs(xs: list, ys: list) -> list:
    """Terraform's longest common subsequence (objchange), ties broken as it breaks them."""
    if not xs or not ys:
        return []
    w, h = len(xs), len(ys)
    c = [[0] * w for _ in range(h)]
    eqs = [[False] * w for _ in range(h)]
    for y in range(h):
        for x in range(w):
            if _deep_equal(xs[x], ys[y]):
                eqs[y][x] = True
                c[y][x] = 1 if x == 0 or y == 0 else c[y - 1][x - 1] + 1
            else:
                left = c[y][x - 1] if x > 0 else 0
                up = c[y - 1][x] if y > 0 else 0
                c[y][x] = max(left, up)
    seq: list = []
    x, y = w - 1, h - 1
    while x > -1 and y > -1:
        if eqs[y][x]:
            seq.append(xs[x])
            x, y = x - 1, y - 1
        else:
            left = c[y][x - 1] if x > 0 else 0
            up = c[y - 1][x] if y > 0 else 0
            if left > up:
                x -= 1
            else:
                y -= 1
    return seq[::-1]


def _deep_equal(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def process_slice(before: list, after: list, process: Any, is_obj: Any) -> None:
    """Terraform's ProcessSlice: pairs of indexes to diff (an index past the end: absent)."""
    if len(before) == len(after) and not _is_reorder(before, after):
        for i in range(len(before)):
            process(i, i)
        return
    common = lcs(before, after)
    bi = ai = li = 0
    while bi < len(before) or ai < len(after) or li < len(common):
        while bi < len(before) and (li >= len(common) or not _deep_equal(before[bi], common[li])):
            if is_obj(before[bi]) and ai < len(after) and is_obj(after[ai]) and \
                    (li >= len(common) or not _deep_equal(after[ai], common[li])):
                process(bi, ai)
                bi, ai = bi + 1, ai + 1
                continue
            process(bi, len(after))
            bi += 1
        while ai < len(after) and (li >= len(common) or not _deep_equal(after[ai], common[li])):
            process(len(before), ai)
            ai += 1
        if li < len(common):
            process(bi, ai)
            bi, ai, li = bi + 1, ai + 1, li + 1


def _is_reorder(before: list, after: list) -> bool:
    if len(before) != len(after):
        return False
    return all(any(_deep_equal(b, a) for a in after) for b in before)


# ------------------------------------------------------------------ rendering

@dataclass(frozen=True)
class Opts:
    override_null_suffix: bool = False
    show_unchanged: bool = False


def _indent(n: int) -> str:
    return "    " * n


def _sym(action: str) -> str:
    return SYMBOL[action] + " "


def _null_suffix(action: str, opts: Opts) -> str:
    return " -> null" if action == DELETE and not opts.override_null_suffix else ""


def _unchanged(word: str, n: int) -> str:
    return f"# ({n} unchanged {word}{'' if n == 1 else 's'} hidden)"


def attribute_name(k: str) -> str:
    return k if _IDENT.match(k) else go_quote(k)


def go_quote(s: str) -> str:
    from .console import go_quote as q

    return q(s)


def render(d: Diff, indent: int, opts: Opts = Opts()) -> str:
    if d.kind == "object":
        return _render_object(d, indent, opts)
    if d.kind == "list":
        return _render_list(d, indent, opts)
    if d.kind == "typechange":
        o = Opts(True, opts.show_unchanged)
        return f"{render(d.children[0], indent, o)} -> {render(d.children[1], indent, o)}"
    return _render_primitive(d, indent, opts)


def _render_object(d: Diff, indent: int, opts: Opts) -> str:
    if not d.children:
        return "{}" + _null_suffix(d.action, opts)
    child_opts = Opts(True, opts.show_unchanged)
    width = max(len(attribute_name(k)) for k in d.children)
    lines = ["{"]
    hidden = 0
    for k in sorted(d.children):
        c = d.children[k]
        if c.action == NOOP and not opts.show_unchanged:
            hidden += 1
            continue
        lines.append(f"{_indent(indent + 1)}{_sym(c.action)}{attribute_name(k).ljust(width)} = "
                     f"{render(c, indent + 1, child_opts)}")
    if hidden:
        lines.append(f"{_indent(indent + 1)}{_sym(NOOP)}{_unchanged('attribute', hidden)}")
    lines.append(f"{_indent(indent)}{_sym(NOOP)}}}{_null_suffix(d.action, opts)}")
    return "\n".join(lines)


def _render_list(d: Diff, indent: int, opts: Opts) -> str:
    if not d.children:
        return "[]" + _null_suffix(d.action, opts)
    elem_opts = Opts(True, opts.show_unchanged)
    unchanged_opts = Opts(opts.override_null_suffix, True)
    lines = ["["]
    pending: list[Diff] = []
    render_next = False
    for e in d.children:
        if e.action == NOOP and not render_next and not opts.show_unchanged:
            pending.append(e)
            continue
        render_next = False
        o = elem_opts
        if len(pending) > 1:
            lines.append(f"{_indent(indent + 1)}{_sym(NOOP)}{_unchanged('element', len(pending) - 1)}")
        if pending:
            last = pending[-1]
            shown = render(last, indent + 1, unchanged_opts)
            lines.append(f"{_indent(indent + 1)}{_sym(last.action)}{shown},")
        pending = []
        if e.action == NOOP:
            o = unchanged_opts
        else:
            render_next = True
        lines.append(f"{_indent(indent + 1)}{_sym(e.action)}{render(e, indent + 1, o)},")
    if pending:
        lines.append(f"{_indent(indent + 1)}{_sym(NOOP)}{_unchanged('element', len(pending))}")
    lines.append(f"{_indent(indent)}{_sym(NOOP)}]{_null_suffix(d.action, opts)}")
    return "\n".join(lines)


def _scalar(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)  # numbers are Decimals holding the JSON text's digits


def _render_primitive(d: Diff, indent: int, opts: Opts) -> str:
    if isinstance(d.before, str) or isinstance(d.after, str):
        return render_string(d.action, d.before, d.after, indent, opts)
    b, a = _scalar(d.before), _scalar(d.after)
    if d.action == CREATE:
        return a
    if d.action == DELETE:
        return b + _null_suffix(d.action, opts)
    if d.action == NOOP:
        return b
    return f"{b} -> {a}"


def _eval_string(v: Any) -> tuple[str, Any, bool, bool]:
    """(text, JSON or _MISSING, multiline, null) as Terraform's evaluatePrimitiveString."""
    if v is None:
        return "null", _MISSING, False, True
    j = parse_json_text(v)
    if j is not _MISSING:
        return v, j, False, False
    if "\n" in v:
        return v.strip(), _MISSING, True, False
    return v, _MISSING, False, False


def _simple(e: tuple) -> str:
    return e[0] if e[3] else go_quote(e[0])


def render_string(action: str, before: Any, after: Any, indent: int, opts: Opts) -> str:
    """A string attribute's diff: JSON shown as jsonencode(...), multi-line text as a heredoc."""
    lines: list[str] = []
    if action in (CREATE, NOOP):
        e = _eval_string(after)
        if e[1] is not _MISSING:
            return _as_json(action, e if action == NOOP else None, e, indent, opts)
        if not e[2]:
            return _simple(e)
        lines = _heredoc_lines(e[0], indent)
    elif action == DELETE:
        e = _eval_string(before)
        if e[3]:
            return _simple(e)
        if e[1] is not _MISSING:
            return _as_json(action, e, None, indent, opts)
        if not e[2]:
            return _simple(e) + _null_suffix(action, opts)
        lines = _heredoc_lines(e[0], indent)
    else:
        b, a = _eval_string(before), _eval_string(after)
        if b[1] is not _MISSING and a[1] is not _MISSING:
            return _as_json(action, b, a, indent, opts)
        if b[1] is not _MISSING or a[1] is not _MISSING:
            o = Opts(True, opts.show_unchanged)
            gone, new = render_string(DELETE, before, None, indent, o), render_string(CREATE, None, after, indent, o)
            return f"{gone} -> {new}"
        if not b[2] and not a[2]:
            return f"{_simple(b)} -> {_simple(a)}"
        bl, al = b[0].split("\n"), a[0].split("\n")

        def process(bi: int, ai: int) -> None:
            pad = _indent(indent + 1)
            if bi >= len(bl):
                lines.append(f"{pad}{_sym(CREATE)}{al[ai]}")
            elif ai >= len(al):
                lines.append(f"{pad}{_sym(DELETE)}{bl[bi]}")
            elif bl[bi] != al[ai]:
                lines.append(f"{pad}{_sym(DELETE)}{bl[bi]}")
                lines.append(f"{pad}{_sym(CREATE)}{al[ai]}")
            else:
                lines.append(f"{pad}{_sym(NOOP)}{bl[bi]}")

        process_slice(bl, al, process, lambda _v: False)
    return f"<<-EOT\n" + "\n".join(lines) + f"\n{_indent(indent)}{_sym(NOOP)}EOT{_null_suffix(action, opts)}"


def _heredoc_lines(text: str, indent: int) -> list[str]:
    return [f"{_indent(indent + 1)}{_sym(NOOP)}{ln}" for ln in text.split("\n")]


def _as_json(action: str, before: tuple | None, after: tuple | None, indent: int, opts: Opts) -> str:
    d = transform(before[1] if before else None, after[1] if after else None,
                  action != CREATE, action != DELETE)
    shown = action
    json_opts = Opts(True, opts.show_unchanged)
    whitespace = ""
    if d.action == NOOP and action == UPDATE:
        whitespace = " # whitespace changes"
        json_opts = Opts(True, True)
        shown = NOOP
    text = render(d, indent + 1, json_opts)
    if action in (CREATE, DELETE):
        shown = NOOP
    if "\n" in text:
        return (f"jsonencode({whitespace}\n{_indent(indent + 1)}{_sym(shown)}{text}\n"
                f"{_indent(indent)}{_sym(NOOP)}){_null_suffix(action, opts)}")
    return f"jsonencode({text}){whitespace}"
