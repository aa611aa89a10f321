"""Nested blocks in a plan's human rendering, as Terraform's renderer draws them.

A resource's nested blocks (`auth { ... }`) are not attributes: each block (each element of a
list or set block, each key of a map block) is drawn as its own `+ name {` ... `}` with its
attributes inside, after the resource's attributes and a blank line; unchanged blocks are
counted in a `# (N unchanged blocks hidden)` line. Write-only attributes inside a block are
shown as `(write-only attribute)` with the block's action (nothing on an update). List blocks
are compared element by element, set blocks by equality, map blocks by key (Terraform's
differ/block.go). views.render_change draws the top level and calls in here for the blocks.

The block structure comes with the change (ResourceInstanceChange.blocks, from the schema:
plans.block_structure), so a saved plan renders the same. The attribute lines inside a block
are drawn by views' own functions, handed in as a Drawing (this module does not import views).
"""
from __future__ import annotations

from collections.abc import Callable
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any

from tfconsole.lang.values import Sensitive, TList, TMap, TSet, is_null, unmark, unmark_deep


WRITE_ONLY = "(write-only attribute)"
_SYMBOL = {"create": "+", "delete": "-", "update": "~", "noop": " ", "read": "<="}


@dataclass(frozen=True)
class Drawing:
    """The attribute-drawing functions of the plan renderer (command/views.py)."""

    render: Callable[[Any, int, str], str]  # a value on a line whose symbol sits at a column
    diff_attr: Callable[..., list[str]]  # one attribute's update lines, or ["\x00hidden"]
    attr_line: Callable[..., str]  # "<col>S key = text"
    key: Callable[[str], str]  # an attribute name as written
    is_unknown: Callable[[Any], bool]
    legacy: bool = False  # the resource's schema is legacy-shaped: "" is drawn as null


def _combine(current: str, child: str) -> str:
    """Terraform's CompareActions: no-op yields to anything, two different actions are an update."""
    if current == "noop":
        return child
    if child == "noop" or child == current:
        return current
    return "update"


def block_lines(blocks: dict[str, Any], before: Any, after: Any, col: int, show_unchanged: bool,
                has_attributes: bool, views: Drawing, legacy: bool | None = None) -> tuple[str, list[str]]:
    """(the blocks' combined action, the lines of every nested block of one (resource or block)
    body, drawn at column col, with the unchanged-blocks note)."""
    out: list[str] = []
    hidden = 0
    action = "noop"
    for name in sorted(blocks):
        desc = blocks[name]
        group_started = False  # each block type's group is set apart from what precedes it
        b_all, a_all = _get(before, name), _get(after, name)
        if views.is_unknown(a_all):
            # a dynamic block over a collection not known yet: one line, drawn with the action of
            # the block that holds it (known once its other contents are), then what it replaces
            if not group_started and has_attributes:
                out.append("")
            group_started = True
            out.append(PendingUnknown(col, name))
            a_all = None
        b_sens, a_sens = _marked(before, name), _marked(after, name)
        for label, b, a in _elements(desc["nesting"], b_all, a_all):
            elem_legacy = (views.legacy if legacy is None else legacy) and not desc.get("non_legacy", False)
            elem_action, lines = _element(name, label, b, a, desc, col, show_unchanged, views, elem_legacy)
            if b_sens or a_sens:
                elem_action, lines = _sensitive(name, label, elem_action, lines, b_sens, a_sens, col)
            action = _combine(action, elem_action)
            if elem_action == "noop" and not show_unchanged:
                hidden += 1
                continue
            if not group_started and has_attributes:
                out.append("")
            group_started = True
            out.extend(lines)
    if hidden:
        out.append("")
        out.append(f"{' ' * (col + 2)}# ({hidden} unchanged block{'s' if hidden != 1 else ''} hidden)")
    return action, out


class PendingUnknown(str):
    """The line of a whole block collection not known yet, waiting for its holder's action."""

    col: int
    name: str

    def __new__(cls, col: int, name: str) -> "PendingUnknown":
        obj = super().__new__(cls, "")
        obj.col, obj.name = col, name
        return obj

    def draw(self, action: str) -> str:
        sym = _SYMBOL.get(action, "+")
        pad = " " * (self.col - len(sym) + 1)
        return f"{pad}{sym} {self.name} (known after apply)"


def resolve(lines: list[str], action: str) -> list[str]:
    """lines with each pending unknown-collection line drawn with the holder's action."""
    return [ln.draw(action) if type(ln) is PendingUnknown else ln for ln in lines]


def _marked(value: Any, name: str) -> bool:
    """Whether the whole collection of blocks `name` is marked sensitive in value (a set of
    blocks holding a sensitive value is: a set cannot hold marked elements)."""
    if value is None:
        return False
    v = unmark(value)[0]
    return isinstance(v, dict) and unmark(v.get(name))[1] != 0


def _sensitive(name: str, label: str, action: str, drawn: list[str], b_sens: bool, a_sens: bool,
               col: int) -> tuple[str, list[str]]:
    """A block of a sensitive collection, drawn as Terraform draws it: no contents; a warning
    when its sensitivity changes."""
    shown = (action == "create" and a_sens) or (action == "delete" and b_sens) or \
        (action in ("update", "noop") and (a_sens or b_sens))
    if not shown:
        return action, drawn
    if action == "noop" and b_sens != a_sens:
        action = "update"
    pad = " " * col
    lines = []
    if b_sens != a_sens and action not in ("create", "delete"):
        lines += sensitivity_warning(col, "block", b_sens)
    lines += [f"{pad}{_SYMBOL[action]} {name}{label} {{",
              f"{pad}    # At least one attribute in this block is (or was) sensitive,",
              f"{pad}    # so its contents will not be displayed.",
              f"{pad}  }}"]
    return action, lines


def _get(value: Any, name: str) -> Any:
    if value is None:
        return None
    v = unmark(value)[0]
    return unmark(v.get(name))[0] if isinstance(v, dict) else None


def _elements(nesting: str, b: Any, a: Any) -> list[tuple[str, Any, Any]]:
    """(label, before, after) of each block element to draw."""
    b = None if b is None or is_null(b) else b
    a = None if a is None or is_null(a) else a
    if nesting in ("single", "group"):
        return [("", b, a)] if b is not None or a is not None else []
    if nesting == "map":
        bm, am = dict(b or {}), dict(a or {})
        import json

        return [(f" {json.dumps(k, ensure_ascii=False)}", bm.get(k), am.get(k)) for k in sorted(set(bm) | set(am))]
    bl, al = list(b or []), list(a or [])
    if nesting == "set":
        plain_b = [unmark_deep(x)[0] for x in bl]
        plain_a = [unmark_deep(x)[0] for x in al]
        out = [("", x, None) for x, p in zip(bl, plain_b) if p not in plain_a]
        out += [("", x, x if p in plain_b else None) if p in plain_b else ("", None, x)
                for x, p in zip(al, plain_a)]
        return out
    return [("", bl[i] if i < len(bl) else None, al[i] if i < len(al) else None)
            for i in range(max(len(bl), len(al)))]


def _element(name: str, label: str, b: Any, a: Any, desc: dict[str, Any], col: int, show_unchanged: bool,
             views: Drawing, legacy: bool = False) -> tuple[str, list[str]]:
    """(the element's action, its lines): header, attributes, nested blocks, closing brace."""
    b = unmark(b)[0] if b is not None else None
    a = unmark(a)[0] if a is not None else None
    action = "create" if b is None else "delete" if a is None else "noop"
    write_only = set(desc["write_only"])
    nested = desc["blocks"]
    names = sorted((set(b or {}) | set(a or {})) - set(nested) - write_only)
    attrs: list[tuple[str, str, list[str]]] = []  # (name, action, lines)
    inner = col + 4
    for n in names:
        bv, av = (b or {}).get(n), (a or {}).get(n)
        # whether it is drawn goes by the values; what is drawn, for a legacy schema, has "" as null
        sb, sa = (legacy_nulls(bv), legacy_nulls(av)) if legacy else (bv, av)
        if action == "create":
            if is_null(unmark(av)[0]) and not views.is_unknown(av):
                continue
            if is_null(unmark(sa)[0]) and not views.is_unknown(sa):
                attrs.append((n, "noop", []))
                continue
            attrs.append((n, "create", [views.render(sa, inner, "+")]))
        elif action == "delete":
            if is_null(unmark(bv)[0]):
                continue
            if is_null(unmark(sb)[0]):
                attrs.append((n, "noop", []))
                continue
            attrs.append((n, "delete", [views.render(sb, inner, "-") + " -> null"]))
        else:
            got = views.diff_attr(inner, n, 0, sb, sa, "", identifying=show_unchanged or n in ("id", "name", "tags"))
            if got == ["\x00hidden"]:
                if is_null(unmark_deep(bv)[0]) and is_null(unmark_deep(av)[0]):
                    continue
                attrs.append((n, "noop", []))
            else:
                sym = got[0][inner:inner + 1]
                attrs.append((n, {"+": "create", "-": "delete", "~": "update"}.get(sym, "noop"), got))
    child_action, child_lines = block_lines(nested, b, a, inner, show_unchanged, bool(attrs or write_only), views,
                                            legacy)
    for act in [t[1] for t in attrs] + [child_action]:
        action = _combine(action, act)
    wo_action = "noop" if action == "update" else action
    wo_text = WRITE_ONLY + (" -> null" if wo_action == "delete" else "")
    attrs += [(n, wo_action, [wo_text]) for n in sorted(write_only)]
    attrs.sort(key=lambda t: t[0])
    width = max((len(views.key(n)) for n, _, _ in attrs), default=0)
    lines = [f"{' ' * col}{_SYMBOL[action]} {name}{label} {{"]
    hidden = 0
    for n, act, got in attrs:
        if act == "noop" and not show_unchanged and n not in ("id", "name", "tags"):
            hidden += 1
            continue
        while len(got) > 1 and got[0].startswith(" " * inner + "# "):  # warnings above the attribute
            lines.append(got[0])
            got = got[1:]
        if got and got[0].startswith(" " * inner) and len(got) == 1 and got[0][inner + 2:].startswith(views.key(n)):
            # a line _diff_attr drew: realign its key to this block's width
            text = got[0][inner + 2:].split(" = ", 1)[1]
            lines.append(views.attr_line(inner, got[0][inner], n, width, text))
        else:
            text = got[0] if got else views.render((a or b or {}).get(n), inner, " ")
            lines.append(views.attr_line(inner, _SYMBOL[act], n, width, text))
    if hidden:
        lines.append(f"{' ' * (inner + 2)}# ({hidden} unchanged attribute{'s' if hidden != 1 else ''} hidden)")
    lines.extend(resolve(child_lines, action))
    lines.append(f"{' ' * (col + 2)}}}")
    return action, lines


def legacy_nulls(v: Any) -> Any:
    """v with every empty string (at any depth) as null: how Terraform's renderer shows the
    values of a legacy-shaped schema (plans.non_legacy), whose SDK may return either."""
    inner, marks = unmark(v)
    t = type(inner)
    if t is str:
        out: Any = None if inner == "" else inner
    elif t in (list, TList, TSet):
        items = [legacy_nulls(x) for x in inner]
        out = items if t is list else TList(items, inner.etype) if t is TList else TSet(items, inner.etype, ordered=True)
    elif t in (dict, TMap):
        out = {k: legacy_nulls(x) for k, x in inner.items()}
        if t is TMap:
            out = TMap(out, inner.etype)
    else:
        return v
    return Sensitive(out, marks) if marks else out


def sensitivity_warning(col: int, what: str, was_sensitive: bool) -> list[str]:
    """Terraform's two warning lines above an attribute or block whose sensitivity changes."""
    pad = " " * col
    if was_sensitive:
        return [f"{pad}# Warning: this {what} will no longer be marked as sensitive", f"{pad}# after applying this change."]
    return [f"{pad}# Warning: this {what} will be marked as sensitive and will not",
            f"{pad}# display in UI output after applying this change."]
