"""Human and JSON renderings of plans, states and diagnostics, as Terraform prints them."""
from __future__ import annotations

import json
from json.encoder import encode_basestring as _encode_basestring  # type: ignore[attr-defined]  # C
from typing import Any

from tfconsole import TERRAFORM_VERSION
from tfconsole.diags import Diagnostic, Diagnostics
from tfconsole.lang.numbers import Num, wire_text
from tfconsole.lang.types import ObjectType, Type
from tfconsole.lang.values import (
    Null, Sensitive, TList, TMap, TSet, Unknown, is_null, sensitive_paths, to_json_typed, type_of,
    unmark, unmark_deep,
)
from tfconsole.plans import Action, Plan, ResourceInstanceChange

from .blockdiff import Drawing, block_lines, legacy_nulls, resolve, sensitivity_warning
from tfconsole.states.state import State

# ---------------------------------------------------------------------------
# diagnostics


def _wrap(text: str, width: int) -> list[str]:
    import textwrap

    out: list[str] = []
    for para in text.split("\n"):
        if not para.strip() or para.startswith((" ", "\t", "-")) or len(para) <= width:
            out.append(para)
        else:
            out.extend(textwrap.wrap(para, width, break_long_words=False, break_on_hyphens=False))
    return out


def format_diagnostic(d: Diagnostic, files: dict[str, str] | None = None, color: bool = True) -> str:
    """Terraform's diagnostic layout: boxed with color on, plain with -no-color."""
    kind = "Error" if d.is_error else "Warning"
    lines = [f"{kind}: {d.summary}", ""]
    src = (files or {}).get(d.subject.filename) if d.subject is not None else None
    if d.subject is not None:
        if d.address and d.context == "with":
            lines.append(f"  with {d.address},")
        lines.extend(_source_lines(d, src))
        lines.append("")
    elif d.address:
        lines.append(f"  with {d.address},")
        lines.append("")
    if d.detail:
        lines.extend(_wrap(d.detail, 75 if color else 77))  # Terraform: width 78 less the rule, less 1
    while lines and not lines[-1]:
        lines.pop()
    if not color:
        return "\n" + "\n".join(lines)
    out = ["╷"] + [("│ " + x).rstrip() if x else "│" for x in lines] + ["╵"]
    return "\n".join(out)


def _source_lines(d: Diagnostic, src: str | None) -> list[str]:
    """"on FILE line N, in BLOCK:" and the quoted lines the subject touches (diagview's rules:
    the top-level block holding the byte before the subject, hcl's line overlap)."""
    from .diagview import _line_spans, _overlaps, block_context, value_annotations

    subj = d.subject
    assert subj is not None
    where = f"  on {subj.filename} line {subj.start.line}"
    if src is None:
        return [where + ":"]
    data = src.encode("utf-8", "surrogateescape")
    context = block_context(data, subj.filename, subj.start.byte - 1)
    out = [where + (f", in {context}" if context else "") + ":"]
    start, end = subj.start.byte, max(subj.end.byte, subj.start.byte + 1)
    spans = [(a, b) for a, b in _line_spans(data) if _overlaps(a, b, start, end)]
    out.extend(f"{subj.start.line + i:>4}: {data[a:b].decode('utf-8', 'surrogateescape')}"
               for i, (a, b) in enumerate(spans))
    if spans:
        out.extend(value_annotations(d))
    return out


def sort_diagnostics(diags: Diagnostics) -> list[Diagnostic]:
    """Source order (file, line) for diagnostics that have a location, the rest after, errors first."""
    def key(d: Diagnostic) -> tuple:
        if d.subject is None:
            return (not d.is_error, 1, "", 0, 0)
        return (not d.is_error, 0, d.subject.filename, d.subject.start.line, d.subject.start.column)

    return sorted(diags, key=key)


def format_diagnostics(diags: Diagnostics, files: dict[str, str] | None = None, color: bool = True) -> str:
    return "\n".join(format_diagnostic(d, files, color) for d in sort_diagnostics(diags))


# ---------------------------------------------------------------------------
# values in plan diffs


def render_value(v: Any, indent: int = 0, plain: bool = False) -> str:
    """A value as the plan shows it after `key = `, its key's action symbol at column indent;
    plain: as `show` draws state, without symbol columns (key at column indent)."""
    v, marked = unmark(v)
    if marked:
        return "(sensitive value)"
    t = type(v)
    if t is Unknown:
        return "(known after apply)"
    if v is None or t is Null:
        return "null"
    if t is bool:
        return "true" if v else "false"
    if t is int or t is Num:
        return wire_text(v)  # the digits Terraform's plan JSON carries for this number
    if t is str:
        if "\n" in v and v.endswith("\n"):
            pad = " " * (indent + 4)
            body = "\n".join(pad + ln for ln in v[:-1].split("\n"))
            return f"<<-EOT\n{body}\n{' ' * (indent + (0 if plain else 2))}EOT"
        return _quote(v)
    if t in (list, TList, TSet):
        if not v:
            return "[]"
        pad = " " * (indent + 4)
        items = [f"{pad}{render_value(x, indent + 4, plain)}," for x in v]
        return "[\n" + "\n".join(items) + "\n" + " " * (indent + (0 if plain else 2)) + "]"
    if t in (dict, TMap):
        if plain and t is dict:  # state shows an object without its null attributes
            v = {k: x for k, x in v.items() if not is_null(unmark(x)[0])}
        if not v:
            return "{}"
        pad = " " * (indent + 4)
        width = max(len(_key(k)) for k in v)
        items = [f"{pad}{_key(k).ljust(width)} = {render_value(x, indent + 4, plain)}" for k, x in v.items()]
        return "{\n" + "\n".join(items) + "\n" + " " * (indent + (0 if plain else 2)) + "}"
    return str(v)


_IDENT = None
_KEYS: dict[str, str] = {}  # attribute and map keys as shown; a plan repeats the same few names


def _quote(v: str) -> str:
    """json.dumps(v, ensure_ascii=False) without building an encoder per call."""
    return _encode_basestring(v)


def _key(k: str) -> str:
    shown = _KEYS.get(k)
    if shown is not None:
        return shown
    global _IDENT
    if _IDENT is None:
        import re

        _IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
    shown = k if _IDENT.fullmatch(k) else json.dumps(k)
    if len(_KEYS) >= 4096:
        _KEYS.clear()
    _KEYS[k] = shown
    return shown


def _is_unknown(v: Any) -> bool:
    return type(unmark(v)[0]) is Unknown


def redact_echoes(obj: dict[str, Any] | None) -> dict[str, Any] | None:
    """Mark, for display only, attributes whose value repeats a sensitive attribute of the same
    object (terraform_data's output echoing a sensitive input): state keeps Terraform's marks,
    but a secret is never shown by accident."""
    if not obj:
        return obj
    secrets = [unmark_deep(v)[0] for v in obj.values() if type(v) is Sensitive]
    secrets = [x for x in secrets if not is_null(x) and x not in ("", True, False)]
    if not secrets:
        return obj
    from tfconsole.lang.values import equal, mark

    out = dict(obj)
    for k, v in obj.items():
        if type(v) is Sensitive or is_null(unmark(v)[0]):
            continue
        plain = unmark_deep(v)[0]
        if any(equal(plain, x) for x in secrets):
            out[k] = mark(v)
    return out


def _redact_both(before: dict[str, Any] | None, after: dict[str, Any] | None) -> tuple[dict, dict]:
    """redact_echoes on both sides of a change, an attribute hidden on one side hidden on both:
    the redaction is tfconsole's own and must not read as a change of sensitivity."""
    rb, ra = redact_echoes(before) or {}, redact_echoes(after) or {}
    hidden = {k for side, orig in ((rb, before), (ra, after)) if orig
              for k, v in side.items() if v is not orig.get(k)}
    if not hidden:
        return rb, ra
    from tfconsole.lang.values import mark

    return ({k: mark(v) if k in hidden and v is not None else v for k, v in rb.items()},
            {k: mark(v) if k in hidden and v is not None else v for k, v in ra.items()})


_HEADER_TAILS = {
    Action.CREATE: " will be created",
    Action.UPDATE: " will be updated in-place",
    Action.DELETE: " will be destroyed",
    Action.DELETE_THEN_CREATE: " must be replaced",
    Action.CREATE_THEN_DELETE: " must be replaced",
    Action.READ: " will be read during apply",
    Action.FORGET: " will no longer be managed by Terraform, but will not be destroyed",
    Action.NOOP: "",
}


def render_change(ch: ResourceInstanceChange) -> str:
    """The `# addr will be created` block of a plan."""
    if ch.action is Action.CREATE:
        simple = _simple_create(ch)
        if simple is not None:
            return simple
    return _render_change(ch)


def _simple_leaf(v: Any) -> str | None:
    """A known or unknown scalar as a create draws it (None: not drawn; "": not simple). The
    generic _render decides these cases the same way: this only skips its dispatch."""
    t = type(v)
    if t is str:
        if "\n" in v or v[:1] in ("{", "["):  # heredocs and JSON text: the generic renderer
            return ""
        return _encode_basestring(v)
    if t is Unknown:
        return "(known after apply)"
    if v is None or t is Null:
        return None
    if t is bool:
        return "true" if v else "false"
    if t is int or t is Num:
        return wire_text(v)
    return ""


def _simple_create(ch: ResourceInstanceChange) -> str | None:
    """The common create (a managed object whose attributes are all unmarked scalars, nothing
    moved, imported, deposed, legacy, write-only or nested) drawn straight, or None. A 20,000
    instance plan drew each through the generic machinery at 15 us each; this takes ~3."""
    after = ch.after
    if (type(after) is not dict or ch.reason is not None or ch.deposed is not None or ch.importing is not None
            or ch.blocks or ch.write_only or ch.legacy or ch.before is not None
            or (ch.prev_run_addr is not None and ch.prev_run_addr != ch.addr)):
        return None
    res = ch.addr.resource
    if res.mode != "managed":
        return None
    names = tuple(after)
    order = _ORDERS.get(names)
    if order is None:
        order = _remember_layout(_ORDERS, names, tuple(sorted(names)))
    texts = []
    for n in order:
        v = after[n]
        t = type(v)
        text = _encode_basestring(v) if t is str and "\n" not in v and v[:1] not in ("{", "[") else \
            "(known after apply)" if t is Unknown else _simple_leaf(v)
        if text == "":
            return None
        texts.append(text)
    shown = tuple(t is not None for t in texts)
    prefixes = _PREFIXES.get((order, shown))
    if prefixes is None:
        width = max((len(_key(n)) for n, s in zip(order, shown) if s), default=0)
        prefixes = _remember_layout(_PREFIXES, (order, shown),
                                    tuple(f"      + {_key(n).ljust(width)} = " for n in order))
    body = "".join([p + t + "\n" for p, t in zip(prefixes, texts) if t is not None])
    return f"  # {ch.addr} will be created\n  + resource \"{res.type}\" \"{res.name}\" {{\n{body}    }}"


# a plan's creates share a few shapes: their attribute names in order, and the prefix of each
# drawn line for the attributes drawn (the alignment depends on which are null)
_ORDERS: dict[tuple, tuple] = {}
_PREFIXES: dict[tuple, tuple] = {}


def _remember_layout(table: dict, key: Any, value: Any) -> Any:
    if len(table) >= 1024:
        table.clear()
    table[key] = value
    return value


def _render_change(ch: ResourceInstanceChange) -> str:
    """render_change through the generic machinery: every action and shape."""
    a = ch.action
    addr = ch.address
    header = "# " + addr + _HEADER_TAILS[a]
    moved = ch.prev_run_addr is not None and ch.prev_run_addr != ch.addr
    if ch.reason == "replace_because_tainted":
        header = f"# {addr} is tainted, so must be replaced"
    elif ch.reason == "replace_by_request":
        header = f"# {addr} will be replaced, as requested"
    elif ch.reason == "replace_by_triggers":
        header = f"# {addr} will be replaced due to changes in replace_triggered_by"
    if a is Action.NOOP and moved:
        header = f"# {ch.prev_run_addr} has moved to {addr}"
    elif a is Action.NOOP and ch.importing is not None:
        header = f"# {addr} will be imported"
    reason = _reason_text(ch)
    lead = " " if a is Action.FORGET else "  "  # Terraform's forget block sits one column left
    lines = [f"{lead}{header}"]
    if reason:
        lines.append(f"{lead}# {reason}")
    if moved and a is not Action.NOOP:
        lines.append(f"  # (moved from {ch.prev_run_addr})")
    lines.extend(_import_notes(ch, moved))
    res = ch.addr.resource
    kind = "data" if res.mode == "data" else "resource"
    sym = {Action.READ: " <=", Action.FORGET: " ."}.get(a, a.symbol)
    lines.append(f"{sym if a is Action.FORGET else sym.rjust(3)} {kind} \"{res.type}\" \"{res.name}\" {{")
    before, after = _redact_both(ch.before, ch.after if a is not Action.FORGET else ch.before)
    # what is drawn: in a legacy-shaped schema, empty strings as null (whether an attribute is
    # drawn at all still goes by the values themselves, as Terraform's renderer decides it)
    shown_b = {k: legacy_nulls(v) for k, v in before.items()} if ch.legacy else before
    shown_a = {k: legacy_nulls(v) for k, v in after.items()} if ch.legacy else after
    names = sorted((set(before) | set(after)) - set(ch.blocks))
    replace_attrs = {p[0] for p in ch.replace_paths if p}
    body: list[str] = []
    write_only = set(ch.write_only)
    keys = sorted(set(names) | write_only)

    def shown(n: str) -> bool:
        b, af = before.get(n), after.get(n)
        if n in write_only:  # never valued, always there: counts for the alignment even when hidden
            return True
        if a in (Action.DELETE, Action.FORGET):
            return not is_null(unmark(b)[0])
        if a in (Action.CREATE, Action.READ):
            return not (is_null(unmark(af)[0]) and not _is_unknown(af))
        return not is_null(unmark(b)[0]) or not is_null(unmark(af)[0]) or _is_unknown(af)

    visible = {n for n in keys if shown(n)}
    width = max((len(_key(n)) for n in visible), default=0)
    hidden = 0
    for n in keys:
        b = before.get(n)
        af = after.get(n)
        col = 6
        if n in write_only:
            if a is Action.DELETE:
                body.append(_attr_line(col, "-", n, width, f"{WRITE_ONLY} -> null"))
            elif a is Action.CREATE:
                body.append(_attr_line(col, "+", n, width, WRITE_ONLY))
            elif a is not Action.FORGET:
                hidden += 1
            continue
        if a is Action.DELETE:
            if n not in visible:  # null before
                continue
            if is_null(unmark(shown_b.get(n))[0]):  # legacy: an empty string, unchanged
                hidden += 1
                continue
            body.append(_attr_line(col, "-", n, width, _render(shown_b.get(n), col, "-") + " -> null"))
        elif a in (Action.CREATE, Action.READ):
            if n not in visible:  # null (and known) after
                continue
            shown = shown_a.get(n)
            if is_null(unmark(shown)[0]) and not _is_unknown(shown):  # legacy: an empty string, unchanged
                hidden += 1
                continue
            body.append(_attr_line(col, "+", n, width, _render(shown, col, "+")))
        else:
            # Terraform's renderer does not annotate dynamically-typed attributes
            note = " # forces replacement" if n in replace_attrs and not _is_dynamic_attr(ch, n) else ""
            # an import shows every attribute it keeps (Terraform's ShowUnchangedChildren)
            got = _diff_attr(col, n, width, shown_b.get(n), shown_a.get(n), note,
                             identifying=n in ("id", "name", "tags") or ch.importing is not None)
            if got == ["\x00hidden"]:
                if not is_null(unmark(b)[0]):
                    hidden += 1
            else:
                body.extend(got)
    lines.extend(body)
    if hidden:
        lines.append(f"        # ({hidden} unchanged attribute{'s' if hidden != 1 else ''} hidden)")
    if ch.blocks:
        drawing = Drawing(_render, _diff_attr, _attr_line, _key, _is_unknown, ch.legacy)
        top = "create" if a in (Action.CREATE, Action.READ) else "delete" if a is Action.DELETE else "update"
        lines.extend(resolve(block_lines(ch.blocks, before if a is not Action.CREATE else None,
                                         after if a not in (Action.DELETE, Action.FORGET) else None, 6,
                                         ch.importing is not None, bool(keys), drawing)[1], top))
    lines.append("    }")
    return "\n".join(lines)


def _import_notes(ch: ResourceInstanceChange, moved: bool) -> list[str]:
    """The lines under the header of a change that imports its object."""
    if ch.importing is None:
        return []
    if ch.action is Action.NOOP and not moved:
        return ["  # (config will be generated)"] if ch.generated_config else []
    out = [f"  # (imported from \"{ch.importing.id}\")" if ch.importing.id else "  # (will be imported first)"]
    if ch.action.is_replace:
        out.append("  # Warning: this will destroy the imported resource")
    return out


WRITE_ONLY = "(write-only attribute)"


def _is_dynamic_attr(ch: ResourceInstanceChange, name: str) -> bool:
    from tfconsole.lang.types import DynamicType

    st = ch.schema_type
    if isinstance(st, ObjectType):
        return isinstance(dict(st.attrs).get(name), DynamicType)
    return False


def _attr_line(col: int, sym: str, key: str, width: int, text: str, note: str = "") -> str:
    return f"{' ' * col}{sym} {_key(key).ljust(width)} = {text}{note}"


def _json_string(col: int, action: str, b: Any, a: Any, note: str = "", show_unchanged: bool = False) -> str:
    """A string holding JSON, as Terraform shows it: jsonencode(...) with a structural diff. The
    attribute's symbol sits at column col: Terraform's indent level (col - 2) / 4, plus the two
    columns every line of a resource block has."""
    from . import jsondiff

    text = jsondiff.render_string(action, b, a, (col - 2) // 4,
                                  jsondiff.Opts(override_null_suffix=True, show_unchanged=show_unchanged))
    if note and "\n" in text:
        cut = text.rindex("\n")
        text = text[:cut] + note + text[cut:]
    return text.replace("\n", "\n  ")


def _is_json_text(v: Any) -> bool:
    from .jsondiff import _MISSING, parse_json_text

    return type(v) is str and parse_json_text(v) is not _MISSING


def _render(v: Any, col: int, sym: str) -> str:
    """A value on an attribute line whose action symbol sits at column col; nested lines carry sym."""
    if type(v) is str and v[:1] in ("{", "[") and _is_json_text(v):
        return _json_string(col, {"+": "create", "-": "delete"}.get(sym, "no-op"), v, v)
    if type(v) is str and "\n" not in v:  # the common leaf, unmarked by its type
        return _encode_basestring(v)
    v, marked = unmark(v)
    if marked:
        return "(sensitive value)"
    t = type(v)
    if t in (list, TList, TSet) and v:
        inner = " " * (col + 4)
        items = [f"{inner}{sym} {_render(x, col + 4, sym)}," for x in v]
        return "[\n" + "\n".join(items) + "\n" + " " * (col + 2) + "]"
    if t is str and "\n" in v and v.endswith("\n"):
        body = "\n".join((" " * (col + 6) + ln) if ln else "" for ln in v[:-1].split("\n"))
        return f"<<-EOT\n{body}\n{' ' * (col + 2)}EOT"
    if t in (dict, TMap) and v:
        # map keys are always quoted, object attribute names only when they must be
        label = (lambda k: json.dumps(k, ensure_ascii=False)) if t is TMap else _key
        width = max(len(label(k)) for k in v)
        pad = " " * (col + 4)
        items = [f"{pad}{sym} {label(k).ljust(width)} = {_render(x, col + 4, sym)}" for k, x in sorted(v.items())]
        return "{\n" + "\n".join(items) + "\n" + " " * (col + 2) + "}"
    return render_value(v, col)


def _diff_attr(col: int, key: str, width: int, b: Any, a: Any, note: str, identifying: bool = False) -> list[str]:
    """Lines for one attribute of an update/replace (or the marker "\x00hidden" when unchanged)."""
    bu, bm = unmark_deep(b)
    au, am = unmark_deep(a)
    b_sens, a_sens = _shallow_sensitive(b), _shallow_sensitive(a)
    if b_sens or a_sens:
        return _diff_sensitive(col, key, width, bu, au, _is_unknown(a), b_sens, a_sens, note, identifying)
    if is_null(bu) and is_null(au) and not _is_unknown(a):
        return ["\x00hidden"]
    if not _is_unknown(a) and _equal_typed(bu, au) and bm == am and \
            (not bm or sorted(sensitive_paths(b), key=repr) == sorted(sensitive_paths(a), key=repr)):
        if identifying and not is_null(bu):
            return [_attr_line(col, " ", key, width, _render(a, col, " "))]
        return ["\x00hidden"]
    if is_null(bu):  # null -> a value, or -> unknown: Terraform shows both as added
        return [_attr_line(col, "+", key, width, _render(a, col, "+"), note)]
    if is_null(au) and not _is_unknown(a):
        return [_attr_line(col, "-", key, width, _render(b, col, "-") + " -> null", note)]
    b0, a0 = unmark(b)[0], unmark(a)[0]
    if not bm and not am and type(b0) is str and type(a0) is str and (_is_json_text(b0) or _is_json_text(a0)):
        # Terraform shows id, name and tags whole, unchanged parts included
        text = _json_string(col, "update", b0, a0, note, show_unchanged=identifying)
        return [_attr_line(col, "~", key, width, text, "" if "\n" in text else note)]
    if type(a0) is not Unknown and isinstance(b0, dict) and isinstance(a0, dict) and type(b0) is type(a0):
        # marks inside are drawn element by element (a marked element by the sensitive rule)
        return [_attr_line(col, "~", key, width, _diff_map(col, b0, a0, isinstance(a0, TMap)), note)]
    if not bm and not am and type(a0) is not Unknown:
        if type(b0) is list and type(a0) is list and len(b0) == len(a0):
            return [_attr_line(col, "~", key, width, _diff_tuple(col, b0, a0), note)]
        if isinstance(b0, list) and isinstance(a0, list) and is_wholly_known_plain(a0):
            return [_attr_line(col, "~", key, width, _diff_list(col, b0, a0), note)]
    return [_attr_line(col, "~", key, width, f"{_render(b, col, '-')} -> {_render(a, col, '+')}", note)]


def _shallow_sensitive(v: Any) -> bool:
    from tfconsole.lang.values import SENSITIVE

    return bool(unmark(v)[1] & SENSITIVE)


def _diff_sensitive(col: int, key: str, width: int, bu: Any, au: Any, unknown_after: bool, b_sens: bool,
                    a_sens: bool, note: str, identifying: bool) -> list[str]:
    """A sensitive attribute (before, after or both), as Terraform's sensitive renderer draws
    it: never its value, a warning when its sensitivity changes."""
    b_null, a_null = is_null(bu), is_null(au) and not unknown_after
    if b_null and a_null:  # nothing on either side: not drawn at all, as Terraform's renderer skips it
        return ["\x00hidden"]
    if b_null:
        inner = "create"
    elif a_null:
        inner = "delete"
    else:
        inner = "noop" if not unknown_after and _equal_typed(bu, au) else "update"
    action = "update" if inner == "noop" and b_sens != a_sens and not (b_null and a_null) else inner
    if action == "noop" and not identifying:
        return ["\x00hidden"]
    sym = {"create": "+", "delete": "-", "update": "~", "noop": " "}[action]
    lines = []
    if b_sens != a_sens and inner not in ("create", "delete"):
        lines = sensitivity_warning(col, "attribute value", b_sens)
        if inner == "noop":
            lines[-1] += " The value is unchanged."
    text = "(sensitive value)" + (" -> null" if action == "delete" else "")
    return lines + [_attr_line(col, sym, key, width, text, note)]


def is_wholly_known_plain(v: Any) -> bool:
    from tfconsole.lang.values import is_wholly_known

    return is_wholly_known(unmark_deep(v)[0])


def _diff_map(col: int, b: dict, a: dict, is_map: bool) -> str:
    keys = sorted(set(b) | set(a))
    width = max((len(_key(k) if not is_map else json.dumps(k)) for k in keys), default=0)
    out: list[str] = []
    hidden = 0
    for k in keys:
        label = k if not is_map else json.dumps(k)
        if k not in a:
            out.append(f"{' ' * (col + 4)}- {label.ljust(width)} = {_render(b[k], col + 4, '-')} -> null")
            continue
        if k not in b:
            out.append(f"{' ' * (col + 4)}+ {label.ljust(width)} = {_render(a[k], col + 4, '+')}")
            continue
        lines = _diff_attr(col + 4, k, width, b[k], a[k], "")
        if lines == ["\x00hidden"]:
            hidden += 1
            continue
        if is_map:
            lines = [ln.replace(f" {_key(k).ljust(width)} =", f" {label.ljust(width)} =", 1) for ln in lines]
        out.extend(lines)
    if hidden:
        what = "element" if is_map else "attribute"
        out.append(f"{' ' * (col + 6)}# ({hidden} unchanged {what}{'s' if hidden != 1 else ''} hidden)")
    return "{\n" + "\n".join(out) + "\n" + " " * (col + 2) + "}"


def _diff_tuple(col: int, b: list, a: list) -> str:
    """Tuples have a fixed shape: elements are compared position by position."""
    out: list[str] = []
    hidden = 0
    pad = " " * (col + 4)
    for x, y in zip(b, a):
        got = _diff_attr(col + 4, "", 0, x, y, "")
        if got == ["\x00hidden"]:
            hidden += 1
            continue
        for ln in got:
            # element lines have no key: "  ~ "" = v" -> "  ~ v,"
            out.append(ln.replace(' "" = ', " ", 1).replace("  = ", " ", 1) + ",")
    if hidden:
        out.append(f"{' ' * (col + 6)}# ({hidden} unchanged element{'s' if hidden != 1 else ''} hidden)")
    del pad
    return "[\n" + "\n".join(out) + "\n" + " " * (col + 2) + "]"


def _diff_list(col: int, b: list, a: list) -> str:
    """Element-wise diff by longest common subsequence, unchanged elements hidden."""
    from tfconsole.lang.values import freeze

    fb = [freeze(unmark_deep(x)[0]) for x in b]
    fa = [freeze(unmark_deep(x)[0]) for x in a]
    n, m = len(fb), len(fa)
    lcs = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            lcs[i][j] = lcs[i + 1][j + 1] + 1 if fb[i] == fa[j] else max(lcs[i + 1][j], lcs[i][j + 1])
    ops: list[tuple[str, Any]] = []
    i = j = 0
    while i < n or j < m:
        if i < n and j < m and fb[i] == fa[j]:
            ops.append((" ", a[j]))
            i += 1
            j += 1
        elif j < m and (i >= n or lcs[i][j + 1] > lcs[i + 1][j]):
            ops.append(("+", a[j]))
            j += 1
        else:
            ops.append(("-", b[i]))
            i += 1
    out: list[str] = []
    pad = " " * (col + 4)
    hidden = 0

    def flush() -> None:
        nonlocal hidden
        if hidden:
            out.append(f"{' ' * (col + 6)}# ({hidden} unchanged element{'s' if hidden != 1 else ''} hidden)")
            hidden = 0

    for k, (op, v) in enumerate(ops):
        if op == " ":
            near = (k > 0 and ops[k - 1][0] != " ") or (k + 1 < len(ops) and ops[k + 1][0] != " ")
            if not near:
                hidden += 1
                continue
        flush()
        out.append(f"{pad}{op} {_render(v, col + 4, op)},")
    flush()
    return "[\n" + "\n".join(out) + "\n" + " " * (col + 2) + "]"


def _equal_typed(a: Any, b: Any) -> bool:
    from tfconsole.lang.values import equal

    if not equal(a, b):
        return False
    try:
        return is_null(a) or type_of(a) == type_of(b)
    except TypeError:
        return True


def _reason_text(ch: ResourceInstanceChange) -> str:
    if ch.action is Action.FORGET:
        return "(destroy = false is set in the configuration)"
    return reason_text(ch.reason, ch.addr)


def reason_text(r: str | None, a: Any) -> str:
    """Terraform's words for why an instance is planned as it is (an orphan's reason, for one):
    "(because index [1] is out of range for count)"; "" when Terraform says nothing."""
    if r in ("replace_because_tainted", "replace_by_request", "replace_by_triggers"):
        return ""
    if r == "delete_because_no_resource_config":
        return f"(because {a.resource} is not in configuration)"
    if r == "delete_because_no_module":
        return f"(because {a.module} is not in configuration)"
    if r == "delete_because_count_index":
        from tfconsole.addrs import key_str

        return f"(because index {key_str(a.key)} is out of range for count)"
    if r == "delete_because_each_key":
        from tfconsole.addrs import key_str

        return f"(because key {key_str(a.key)} is not in for_each map)"
    if r == "delete_because_wrong_repetition":
        return "(because resource does not use count)" if a.key is not None else \
            "(because resource uses count or for_each)"
    if r == "read_because_config_unknown":
        return "(config refers to values not yet known)"
    if r == "read_because_dependency_pending":
        return "(depends on a resource or a module with changes pending)"
    return ""


def state_decoder(session: Any) -> Any:
    """decode(addr, provider, object) -> the object's value as the provider's schema types and
    marks it (sensitive attributes included), for `state show`, `show` and the console's state
    view alike; without a schema, the attributes read as implied JSON. `session` is a
    providers.registry.ProviderSession (a plugin's schemas come from the cache when they can)."""
    from tfconsole.lang.values import from_json_implied
    from tfconsole.states.objcodec import decode_object
    from tfconsole.walk.context import provider_source_of

    def decode(addr: Any, provider: str, obj: Any) -> Any:
        schemas = session.schemas(provider_source_of(provider))
        schema = None
        if schemas is not None:
            schema = schemas[0 if addr.resource.mode == "managed" else 1].get(addr.resource.type)
        if schema is None:
            return from_json_implied(obj.attributes)
        return decode_object(obj.attributes, schema, obj.sensitive_attributes)

    return decode


def render_state_instance(addr: Any, value: dict[str, Any], deposed: str | None = None,
                          shape: dict[str, Any] | None = None) -> str:
    """`terraform state show` / `show` form of one object. shape: what the schema says of its
    body (state_shapes): nested blocks are drawn as blocks, write-only attributes as such, and
    a legacy-shaped schema's empty strings as null."""
    res = addr.resource
    kind = "data" if res.mode == "data" else "resource"
    head = f"# {addr}:" if not deposed else f"# {addr}: (deposed object {deposed})"
    lines = [head, f"{kind} \"{res.type}\" \"{res.name}\" {{"]
    shape = shape or {}
    lines.extend(_state_body(redact_echoes(value) or {}, shape, 4, not shape.get("non_legacy", True)))
    lines.append("}")
    return "\n".join(lines)


def _state_body(value: dict[str, Any], shape: dict[str, Any], col: int, legacy: bool) -> list[str]:
    """The attributes (null ones left out) then the nested blocks of one body, at column col."""
    blocks = shape.get("blocks") or {}
    write_only = set(shape.get("write_only") or ())
    rows = [(k, render_value(legacy_nulls(v) if legacy else v, col, plain=True)) for k, v in sorted(value.items())
            if k not in blocks and k not in write_only and not is_null(unmark(v)[0])]
    rows = sorted(rows + [(k, "(write-only attribute)") for k in write_only])
    lines = []
    if rows:
        width = max(len(_key(k)) for k, _ in rows)
        lines += [f"{' ' * col}{_key(k).ljust(width)} = {text}" for k, text in rows]
    pad = " " * col
    for name in sorted(blocks):
        desc = blocks[name]
        inner, marks = unmark(value.get(name))
        if inner is None or is_null(inner) or type(inner) is Unknown:
            continue
        if desc["nesting"] in ("single", "group"):
            elems = [("", inner)]
        elif desc["nesting"] == "map":
            elems = [(" " + json.dumps(k, ensure_ascii=False), x) for k, x in sorted(inner.items())]
        else:
            elems = [("", x) for x in inner]
        if elems and lines:
            lines.append("")
        for label, elem in elems:
            elem, elem_marks = unmark(elem)
            lines.append(f"{pad}{name}{label} {{")
            if marks or elem_marks:
                lines += [f"{pad}  # At least one attribute in this block is (or was) sensitive,",
                          f"{pad}  # so its contents will not be displayed."]
            elif isinstance(elem, dict):
                lines.extend(_state_body(elem, desc, col + 4, legacy and not desc.get("non_legacy", False)))
            lines.append(f"{pad}}}")
    return lines


def state_shapes(session: Any) -> Any:
    """shape(addr, provider) -> what render_state_instance needs of the instance's schema (its
    nested blocks, write-only attributes, whether it is legacy-shaped); {} without a schema."""
    from tfconsole.plans import block_structure, non_legacy
    from tfconsole.walk.context import provider_source_of

    def shape(addr: Any, provider: str) -> dict[str, Any]:
        schemas = session.schemas(provider_source_of(provider))
        if schemas is None:
            return {}
        schema = schemas[0 if addr.resource.mode == "managed" else 1].get(addr.resource.type)
        if schema is None:
            return {}
        block = schema.block
        return {"blocks": block_structure(block), "non_legacy": non_legacy(block),
                "write_only": sorted(n for n, a in block.attributes.items() if a.write_only)}

    return shape


def _no_changes(headline: str, text: str) -> str:
    """Terraform's "No changes." paragraph, wrapped to its 78-column output."""
    return f"\nNo changes. {headline}\n\n" + "\n".join(_wrap(text, 77)) + "\n"


def render_plan(plan: Plan, errored: bool = False, warnings: bool = True) -> str:
    """The plan as `terraform plan` shows it; `errored`: the partial plan of a plan that then
    failed; warnings=False: as `show PLANFILE` does (without the plan-time warning about
    forgotten objects)."""
    out: list[str] = []
    moves: list[ResourceInstanceChange] = []  # what changes or moves
    changes: list[ResourceInstanceChange] = []  # those, and what is imported
    noop = Action.NOOP
    for c in plan.changes:
        if c.action is not noop or (c.prev_run_addr is not None and c.prev_run_addr != c.addr):
            moves.append(c)
            changes.append(c)
        elif c.importing is not None:
            changes.append(c)
    actions = [c for c in changes if c.action is not noop]
    if not changes and not [o for o in plan.output_changes if o.action is not Action.NOOP]:
        if plan.refresh_only:
            return _no_changes("Your infrastructure still matches the configuration.", "Terraform has checked that "
                               "the real remote objects still match the result of your most recent changes, and "
                               "found no differences.")
        return _no_changes("Your infrastructure matches the configuration.", "Terraform has compared your real "
                           "infrastructure against your configuration and found no differences, so no changes are "
                           "needed.")
    if changes:
        symbols = []
        present = {c.action for c in actions}
        for act, text in ((Action.CREATE, "  + create"), (Action.UPDATE, "  ~ update in-place"),
                          (Action.DELETE, "  - destroy"), (Action.DELETE_THEN_CREATE, "-/+ destroy and then create replacement"),
                          (Action.CREATE_THEN_DELETE, "+/- create replacement and then destroy"),
                          (Action.READ, " <= read (data resources)")):
            if act in present:
                symbols.append(text)
        if actions:
            out.append("\nTerraform used the selected providers to generate the following execution\nplan. "
                       "Resource actions are indicated with the following symbols:")
            out.extend(symbols)
            out.append("")
        else:
            out.append("")
        out.append("Terraform planned the following actions, but then encountered a problem:\n" if errored else
                   "Terraform will perform the following actions:\n")
        for c in changes:
            out.append(render_change(c))
            out.append("")
        out.append(plan.summary_line())
        forgets = [c for c in changes if c.action is Action.FORGET]
        if forgets and warnings:
            out.append("\nWarning: Some objects will no longer be managed by Terraform\n\nIf you apply this plan, "
                       "Terraform will discard its tracking information for\nthe following objects, but it will "
                       "not delete them:")
            out.extend(f" - {c.address}" for c in forgets)
            out.append("\nAfter applying this plan, Terraform will no longer manage these objects. You\nwill need "
                       "to import them into Terraform to manage them again.")
    ocs = [o for o in plan.output_changes if o.action is not Action.NOOP]
    if ocs:
        out.append("\nChanges to Outputs:")
        out.extend(render_output_changes(ocs, plan.output_changes))
        if not moves:  # Terraform says so even when the plan also imports objects
            out.append("\nYou can apply this plan to save these new output values to the Terraform\nstate, "
                       "without changing any real infrastructure.")
    return "\n".join(out) + "\n"


def _output_json(v: Any) -> Any:
    """An output value as the plan's JSON holds it, numbers as Decimals of their digits."""
    from decimal import Decimal

    from tfconsole.lang.values import dumps_json, to_json_plain

    return json.loads(dumps_json(to_json_plain(unmark_deep(v)[0])), parse_float=Decimal, parse_int=Decimal)


def _json_shape(v: Any) -> Any:
    """A value as its JSON form reads back without a type: maps become objects and lists and
    sets tuples (Terraform renders output changes from the plan's JSON, so a map's keys are
    quoted only when they must be)."""
    t = type(v)
    if t in (dict, TMap):
        return {k: _json_shape(x) for k, x in v.items()}
    if t in (list, TList, TSet):
        return [_json_shape(x) for x in v]
    return v


def _as_json_shaped(o: Any) -> Any:
    import dataclasses

    return dataclasses.replace(o, before=_json_shape(o.before), after=_json_shape(o.after))


def render_output_changes(ocs: list[Any], all_changes: list[Any] | None = None) -> list[str]:
    """The lines under "Changes to Outputs:" (the CLI's plan and the console's plan review);
    names line up over all_changes (Terraform counts the unchanged outputs too)."""
    out: list[str] = []
    width = max(len(_key(o.name)) for o in (all_changes or ocs))
    for o in ocs:
        o = _as_json_shaped(o)
        if o.sensitive:
            sym = {Action.CREATE: "+", Action.UPDATE: "~", Action.DELETE: "-"}.get(o.action, " ")
            out.append(_attr_line(2, sym, o.name, width,
                                  "(sensitive value)" + (" -> null" if o.action is Action.DELETE else "")))
        elif o.action is Action.DELETE:
            out.append(_attr_line(2, "-", o.name, width, _render(o.before, 2, "-") + " -> null"))
        elif o.action is Action.UPDATE and is_wholly_known_plain(o.after) and not unmark_deep(o.before)[1] \
                and not unmark_deep(o.after)[1]:
            from . import jsondiff

            d = jsondiff.transform(_output_json(o.before), _output_json(o.after))
            text = jsondiff.render(d, 0).replace("\n", "\n  ")
            out.append(f"  {jsondiff.SYMBOL[d.action]} {_key(o.name).ljust(width)} = {text}")
        elif o.action is Action.UPDATE:
            got = _diff_attr(2, o.name, width, o.before, o.after, "")
            out.extend(x for x in got if x != "\x00hidden")
        else:
            out.append(_attr_line(2, "+", o.name, width, _render(o.after, 2, "+")))
    return out


# ---------------------------------------------------------------------------
# JSON: show -json (state) and show -json PLANFILE


def _shape(v: Any, leaf: Any) -> Any:
    """Terraform's *AsBool shapes: leaf(v) decides True/False at a value (None: look inside);
    sequences keep every element, objects and maps omit the false entries."""
    hit = leaf(v)
    if hit is not None:
        return hit
    v, _ = unmark(v)
    t = type(v)
    if t in (dict, TMap):
        out = {}
        for k, x in v.items():
            s = _shape(x, leaf)
            if s is not False:
                out[k] = s
        return out
    if t in (list, TList, TSet):
        return [_shape(x, leaf) for x in v]
    return False


def _sensitive_leaf(v: Any) -> Any:
    t = type(v)
    if t is Sensitive:
        return True
    if v is None or t is Null:
        return False
    if t is Unknown:
        # an unknown sequence says [] and an unknown object {}: nothing is known inside
        from tfconsole.lang.types import ListType as LT, MapType as MT, ObjectType as OT, SetType as ST, TupleType as TT

        if isinstance(v.type, (LT, ST, TT)):
            return []
        if isinstance(v.type, (MT, OT)):
            return {}
        return False
    return None


def _unknown_leaf(v: Any) -> Any:
    v, _ = unmark(v)
    if type(v) is Unknown:
        return True
    if v is None or type(v) is Null:
        return False
    return None


def _sensitive_shape(v: Any) -> Any:
    """Terraform's SensitiveAsBool."""
    return _shape(v, _sensitive_leaf)


def _unknown_shape(v: Any) -> Any:
    """Terraform's unknownAsBool."""
    return _shape(v, _unknown_leaf)


def _plain_known(v: Any) -> Any:
    """JSON of a value with unknowns left out (Terraform omits them from "after")."""
    v, _ = unmark(v)
    t = type(v)
    if t is Unknown:
        return None
    if t in (dict, TMap):
        return {k: _plain_known(x) for k, x in v.items() if type(unmark(x)[0]) is not Unknown}
    if t in (list, TList, TSet):
        return [_plain_known(x) for x in v]
    from tfconsole.lang.values import to_json_plain

    return to_json_plain(v)


def _values_json(value: Any) -> Any:
    from tfconsole.lang.values import to_json_plain

    clean, _ = unmark_deep(value)
    return to_json_plain(clean)


def _resource_json(addr: Any, provider: str, value: dict[str, Any], schema_version: int = 0) -> dict:
    from tfconsole.walk.context import provider_source_of

    r: dict[str, Any] = {
        "address": str(addr), "mode": addr.resource.mode, "type": addr.resource.type, "name": addr.resource.name,
    }
    if addr.key is not None:
        r["index"] = addr.key
    r["provider_name"] = provider_source_of(provider)
    r["schema_version"] = schema_version
    r["values"] = _values_json(value)
    r["sensitive_values"] = _sensitive_shape(value)
    return r


def _identity_json(r: dict[str, Any], identity: Any, version: int) -> None:
    """A resource's identity, when it has one, as Terraform's JSON documents place it."""
    if identity is not None:
        r["identity_schema_version"] = version
        r["identity"] = identity


def state_values_json(state: State, decode: Any) -> dict:
    """The "values" part of show -json: root_module + child_modules, outputs."""
    modules: dict[str, dict] = {}
    for rs in sorted(state.resources.values(), key=lambda r: (str(r.addr.module), r.addr.resource.mode != "data",
                                                              r.addr.resource.type, r.addr.resource.name)):
        for key, inst in sorted(rs.instances.items(), key=lambda kv: _key_order(kv[0])):
            if inst.current is None:
                continue
            addr = rs.addr.instance(key)
            value = decode(addr, rs.provider, inst.current)
            mod = str(rs.addr.module)
            r = _resource_json(addr, rs.provider, value, inst.current.schema_version)
            if inst.current.dependencies:
                r["depends_on"] = list(inst.current.dependencies)
            if inst.current.status == "tainted":
                r["tainted"] = True
            _identity_json(r, inst.current.identity, inst.current.identity_schema_version)
            modules.setdefault(mod, {"resources": []})["resources"].append(r)
    root = modules.pop("", {"resources": []})
    out_root: dict[str, Any] = {}
    if root["resources"]:
        out_root["resources"] = root["resources"]
    children = _nest_modules(modules)
    if children:
        out_root["child_modules"] = children
    values: dict[str, Any] = {}
    if state.outputs:
        values["outputs"] = {n: {"sensitive": o.sensitive, "value": o.value, "type": o.type}
                             for n, o in sorted(state.outputs.items())}
    values["root_module"] = out_root
    return values


def _key_order(k: Any) -> tuple:
    if k is None:
        return (0, 0, "")
    if isinstance(k, int):
        return (1, k, "")
    return (2, 0, k)


def _nest_modules(modules: dict[str, dict]) -> list[dict]:
    # build a tree keyed by module address strings
    tree: dict[str, dict] = {}
    for addr in sorted(modules):
        tree[addr] = {"resources": modules[addr]["resources"], "address": addr}
    # ensure ancestors exist
    from tfconsole.addrs import parse_target

    for addr in list(tree):
        mi = parse_target(addr)
        steps = mi.steps  # type: ignore[union-attr]
        for i in range(1, len(steps)):
            from tfconsole.addrs import ModuleInstance

            anc = str(ModuleInstance(steps[:i]))
            tree.setdefault(anc, {"address": anc})
    children: dict[str, list[dict]] = {}
    for addr in sorted(tree):
        mi = parse_target(addr)
        from tfconsole.addrs import ModuleInstance

        parent = str(ModuleInstance(mi.steps[:-1]))  # type: ignore[union-attr]
        children.setdefault(parent, []).append(tree[addr])
    for addr, node in tree.items():
        kids = children.get(addr)
        if kids:
            node["child_modules"] = kids
    result = []
    for node in children.get("", []):
        result.append(_order_module(node))
    return result


def _order_module(node: dict) -> dict:
    out: dict[str, Any] = {}
    if node.get("resources"):
        out["resources"] = node["resources"]
    out["address"] = node["address"]
    if node.get("child_modules"):
        out["child_modules"] = [_order_module(c) for c in node["child_modules"]]
    return out


def state_json(state: State | None, decode: Any) -> dict:
    if state is None or (state.is_empty() and not state.outputs):
        return {"format_version": "1.0"}
    out = {"format_version": "1.0", "terraform_version": TERRAFORM_VERSION, "values": state_values_json(state, decode)}
    if state.check_results:
        from tfconsole.plans.checks import from_state

        out["checks"] = from_state(state.check_results)
    return out


def plan_json(plan: Plan, decode: Any, schema_version: Any = None) -> dict:
    rcs = [_change_json(ch) for ch in plan.changes if not (ch.mode == "data" and ch.action is Action.NOOP)]
    # Terraform lists drift that changed something (a move alone is in the changes, except
    # in refresh-only mode)
    drift = [_change_json(ch) for ch in plan.drift if plan.refresh_only or ch.action is not Action.NOOP]
    out: dict[str, Any] = {"format_version": "1.2", "terraform_version": TERRAFORM_VERSION}
    if plan.variables:
        out["variables"] = {k: {"value": _values_json(v)} for k, v in sorted(plan.variables.items())}
    out["planned_values"] = _planned_values(plan, schema_version)
    if drift:
        out["resource_drift"] = drift
    out["resource_changes"] = rcs
    _output_changes_json(plan, out)
    if plan.prior_state is not None and not plan.prior_state.is_empty():
        out["prior_state"] = state_json(plan.prior_state, decode)
    out["timestamp"] = plan.timestamp
    out["applyable"] = plan.has_changes() and not plan.errored
    out["complete"] = not plan.targets
    out["errored"] = plan.errored
    return out


def _change_json(ch: ResourceInstanceChange) -> dict:
    r: dict[str, Any] = {"address": ch.address if not ch.deposed else str(ch.addr)}
    if not ch.addr.module.is_root:
        r["module_address"] = str(ch.addr.module)
    r.update({"mode": ch.addr.resource.mode, "type": ch.addr.resource.type, "name": ch.addr.resource.name})
    if ch.addr.key is not None:
        r["index"] = ch.addr.key
    if ch.deposed:
        r["deposed"] = ch.deposed
    from tfconsole.walk.context import provider_source_of

    r["provider_name"] = provider_source_of(ch.provider)
    change: dict[str, Any] = {
        "actions": ch.action.json_actions,
        "before": _values_json(ch.before) if ch.before is not None else None,
        "after": _plain_known(ch.after) if ch.after is not None else None,
        "after_unknown": _unknown_shape(ch.after) if ch.after is not None and
        not is_wholly_known_plain(ch.after) else {},
        "before_sensitive": _sensitive_shape(ch.before) if ch.before is not None else False,
        "after_sensitive": _sensitive_shape(ch.after) if ch.after is not None else False,
    }
    if ch.replace_paths:
        change["replace_paths"] = [list(p) for p in ch.replace_paths]
    if ch.importing is not None:
        change["importing"] = {"id": ch.importing.id} if ch.importing.id else {}
        if ch.importing.identity is not None:
            change["importing"]["identity"] = ch.importing.identity
    if ch.generated_config:
        change["generated_config"] = ch.generated_config
    for key, ident in (("before_identity", ch.before_identity), ("after_identity", ch.after_identity)):
        if ident is not None:
            change[key] = ident
    r["change"] = change
    if ch.reason:
        r["action_reason"] = ch.reason
    if ch.prev_run_addr is not None and ch.prev_run_addr != ch.addr:
        r["previous_address"] = str(ch.prev_run_addr)
    return r


def _output_changes_json(plan: Plan, out: dict) -> None:
    ocs = {}
    for o in plan.output_changes:
        oc: dict[str, Any] = {"actions": o.action.json_actions,
                              "before": _values_json(o.before) if o.before is not None else None}
        if o.after is not None and not _is_unknown(o.after):
            oc["after"] = _plain_known(o.after)
        elif o.after is None:
            oc["after"] = None
        oc["after_unknown"] = _unknown_shape(o.after) if o.after is not None and \
            not is_wholly_known_plain(o.after) else False
        oc["before_sensitive"] = o.sensitive
        oc["after_sensitive"] = o.sensitive
        ocs[o.name] = oc
    if ocs:
        out["output_changes"] = ocs


def _planned_values(plan: Plan, schema_version: Any = None) -> dict:
    """planned_values; schema_version(change) gives the resource type's schema version."""
    modules: dict[str, list[dict]] = {}
    for ch in plan.changes:
        if ch.action is Action.FORGET and not ch.deposed:
            # Terraform lists a forgotten object without values
            r = _resource_json(ch.addr, ch.provider, {})
            del r["values"]
            r["sensitive_values"] = False
            modules.setdefault(str(ch.addr.module), []).append(r)
            continue
        if ch.after is None or ch.deposed or (ch.mode == "data" and ch.action is not Action.READ):
            continue
        r = _resource_json(ch.addr, ch.provider, {}, schema_version(ch) if schema_version else 0)
        values = _plain_known(ch.after)
        if values:
            r["values"] = values
        else:  # nothing known yet (a data source read at apply): Terraform writes no values
            del r["values"]
        r["sensitive_values"] = _sensitive_shape(ch.after)
        _identity_json(r, ch.after_identity, ch.identity_version)
        modules.setdefault(str(ch.addr.module), []).append(r)
    for mod in modules.values():
        mod.sort(key=lambda r: r["address"])
    root: dict[str, Any] = {}
    if modules.get(""):
        root["resources"] = modules.pop("")
    else:
        modules.pop("", None)
    children = _nest_modules({k: {"resources": v} for k, v in modules.items()})
    if children:
        root["child_modules"] = children
    outputs = {}
    for o in plan.output_changes:
        if o.action is Action.DELETE:
            continue
        outputs[o.name] = {"sensitive": o.sensitive}
        if is_wholly_known_plain(o.after):
            clean = unmark_deep(o.after)[0]
            outputs[o.name]["type"] = type_of(clean).to_json()
            outputs[o.name]["value"] = _values_json(o.after)
    out: dict[str, Any] = {}
    if outputs:
        out["outputs"] = outputs
    out["root_module"] = root
    return out


def outputs_json(state: State) -> dict:
    return {n: {"sensitive": o.sensitive, "type": o.type, "value": o.value} for n, o in sorted(state.outputs.items())}


def format_output_value(value: Any, ty: Any) -> str:
    """A stored output value as `terraform output` and apply's "Outputs:" print it: the console's
    notation (quoted keys, tolist(...)/tomap(...), typed nulls such as tostring(null))."""
    from tfconsole.lang.types import type_from_json
    from tfconsole.lang.values import from_json_typed

    from .console import format_value

    return format_value(from_json_typed(value, type_from_json(ty)))


__all__ = ["format_diagnostic", "format_diagnostics", "render_change", "render_plan", "render_value", "plan_json",
           "state_json", "outputs_json", "Type", "ObjectType", "sensitive_paths", "to_json_typed"]
