"""Terraform's rules for provider-planned objects (its objchange package), on tfconsole values.

- proposed_new: the proposed new state sent to PlanResourceChange (configuration merged with
  prior computed values, recursing into nested blocks and nested attributes).
- assert_plan_valid: a planned object the configuration allows ("Provider produced invalid
  plan" otherwise).
- assert_object_compatible: a later object consistent with an earlier plan ("Provider
  produced inconsistent final plan" / "... result after apply" otherwise).

Errors are returned as (path, message) pairs; format_error renders them as Terraform does.
Values are unmarked. Pure functions: no provider calls here.
"""
from __future__ import annotations

import json
import math
from typing import Any

from tfconsole.lang.types import (
    BOOL,
    DYNAMIC,
    NUMBER,
    STRING,
    DynamicType,
    ListType,
    MapType,
    ObjectType,
    SetType,
    TupleType,
    Type,
)
from tfconsole.lang.values import Null, TList, TMap, TSet, Unknown, equal, type_of
from tfconsole.providers.interface import Attr, BlockSchema, NestedType

PathError = tuple[tuple, str]


def _is_null(v: Any) -> bool:
    return v is None or type(v) is Null


def _is_unknown(v: Any) -> bool:
    return isinstance(v, Unknown)


def empty_value(block: BlockSchema) -> dict[str, Any]:
    """The object of a block with no arguments and no nested blocks."""
    out: dict[str, Any] = {k: Null(a.type) for k, a in block.attributes.items()}
    for name, nb in block.blocks.items():
        inner = nb.block.implied_type()
        if nb.nesting == "single":
            out[name] = Null(inner)
        elif nb.nesting == "group":
            out[name] = empty_value(nb.block)
        elif nb.nesting == "set":
            out[name] = TSet([], inner)
        elif nb.nesting == "map":
            out[name] = TMap({}, inner)
        else:
            out[name] = TList([], inner)
    return out


# ---------------------------------------------------------------------------
# ProposedNew


def proposed_new(block: BlockSchema, prior: Any, config: Any) -> Any:
    if _is_null(config) and _is_null(prior):
        return prior
    if _is_null(prior):
        prior = empty_value(block)
    return _proposed_block(block, prior, config)


def _proposed_block(block: BlockSchema, prior: Any, config: Any) -> Any:
    if _is_null(config) or _is_unknown(config):
        return prior
    out = _proposed_attrs(block.attributes, prior, config)
    for name, nb in block.blocks.items():
        pv = prior.get(name) if isinstance(prior, dict) else (Unknown(DYNAMIC) if _is_unknown(prior) else None)
        out[name] = _proposed_nested_block(nb, pv, config.get(name))
    return out


def _proposed_nested_block(nb: Any, prior: Any, config: Any) -> Any:
    if _is_unknown(config):
        return config
    if nb.nesting == "single":
        return config if _is_null(config) else proposed_new(nb.block, prior, config)
    if nb.nesting == "group":
        return proposed_new(nb.block, prior, config)
    return _proposed_collection(nb.nesting, nb.block, prior, config)


def _proposed_nested_attr(nt: NestedType, prior: Any, config: Any) -> Any:
    if _is_unknown(config):
        return config
    if nt.nesting == "single":
        return config if _is_null(config) else _proposed_object(nt, prior, config)
    return _proposed_collection(nt.nesting, nt, prior, config)


def _proposed_element(schema: Any, prior: Any, config: Any) -> Any:
    if isinstance(schema, BlockSchema):
        return proposed_new(schema, prior, config)
    return _proposed_object(schema, prior, config)


def _proposed_object(nt: NestedType, prior: Any, config: Any) -> Any:
    if _is_null(config):
        return config
    return _proposed_attrs(nt.attributes, prior, config)


def _proposed_collection(nesting: str, schema: Any, prior: Any, config: Any) -> Any:
    if _is_null(config) or len(config) == 0:
        return config
    if nesting == "list":
        items = []
        for i, cv in enumerate(config):
            if not _is_unknown(prior) and (_is_null(prior) or i >= len(prior)):
                items.append(cv)
            else:
                items.append(_proposed_element(schema, prior if _is_unknown(prior) else prior[i], cv))
        return TList(items, config.etype) if isinstance(config, TList) else items
    if nesting == "map":
        prior_map = prior if isinstance(prior, dict) else {}
        out = {}
        for k, cv in config.items():
            pv = prior_map.get(k, Unknown(DYNAMIC) if _is_unknown(prior) else None)
            out[k] = _proposed_element(schema, pv, cv)
        return TMap(out, config.etype) if isinstance(config, TMap) else out
    # set: pair each configured element with an unused prior element it could have come from
    prior_items = list(prior) if isinstance(prior, list) else []
    used = [False] * len(prior_items)
    items = []
    for cv in config:
        pv = None
        for i, cand in enumerate(prior_items):
            if not used[i] and _valid_prior_from_config(schema, cand, cv):
                pv, used[i] = cand, True
                break
        items.append(_proposed_element(schema, pv, cv))
    return TSet(items, config.etype if isinstance(config, TSet) else DYNAMIC)


def _proposed_attrs(attrs: dict[str, Attr], prior: Any, config: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, a in attrs.items():
        if _is_null(prior):
            pv: Any = Null(a.type)
        elif _is_unknown(prior):
            pv = Unknown(a.type)
        else:
            pv = prior.get(name)
        cv = config.get(name)
        if a.computed and _is_null(cv):
            out[name] = cv if _optional_not_computable(a, pv) else pv
        elif a.nested is not None:
            out[name] = _proposed_nested_attr(a.nested, pv, cv)
        else:
            out[name] = cv
    return out


def _optional_not_computable(a: Attr, value: Any) -> bool:
    """An optional+computed nested attribute whose prior value holds a non-computed attribute
    was set in configuration before: removing it from configuration removes it."""
    if not a.optional or a.nested is None:
        return False
    return _has_non_computed(a.nested, value)


def _has_non_computed(nt: NestedType, value: Any) -> bool:
    if _is_null(value) or _is_unknown(value):
        return False
    objs = [value] if nt.nesting == "single" else (list(value.values()) if isinstance(value, dict) else list(value))
    for obj in objs:
        if not isinstance(obj, dict):
            continue
        for k, a in nt.attributes.items():
            v = obj.get(k)
            if _is_null(v):
                continue
            if not a.computed:
                return True
            if a.nested is not None and _has_non_computed(a.nested, v):
                return True
    return False


def _valid_prior_from_config(schema: Any, prior: Any, config: Any) -> bool:
    """Could this prior set element be the configured one, differing only in computed values?"""
    if _raw_equal(prior, config):
        return True
    attrs = schema.attributes
    if not isinstance(prior, dict) or not isinstance(config, dict):
        return False
    for k, pv in prior.items():
        cv = config.get(k)
        if _raw_equal(cv, pv):
            continue
        a = attrs.get(k) if isinstance(attrs, dict) else None
        if a is None:
            nb = schema.blocks.get(k) if isinstance(schema, BlockSchema) else None
            if nb is None or nb.nesting == "set":
                return False
            if nb.nesting in ("single", "group"):
                if not _valid_prior_from_config(nb.block, pv, cv):
                    return False
                continue
            return False
        if a.nested is not None:
            if isinstance(cv, TSet):
                return False
            continue
        if not a.computed or not _is_null(cv):
            return False
    return True


# ---------------------------------------------------------------------------
# equality that also compares unknowns and nulls (cty's RawEquals, refinements ignored)


def _raw_equal(a: Any, b: Any) -> bool:
    if _is_unknown(a) or _is_unknown(b):
        return _is_unknown(a) and _is_unknown(b) and a.type == b.type
    if _is_null(a) or _is_null(b):
        return _is_null(a) and _is_null(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_raw_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        if isinstance(a, TSet) or isinstance(b, TSet):
            return len(a) == len(b) and equal(a, b)
        return len(a) == len(b) and all(_raw_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return equal(a, b)


# ---------------------------------------------------------------------------
# AssertPlanValid

_UNKNOWN_BLOCK = ("attribute representing nested block must not be unknown itself; set nested attribute values to "
                  "unknown instead")
_UNKNOWN_ELEMENT = ("element representing nested block must not be unknown itself; set nested attribute values to "
                    "unknown instead")


def assert_plan_valid(block: BlockSchema, prior: Any, config: Any, planned: Any, path: tuple = ()) -> list[PathError]:
    errs: list[PathError] = []
    if _is_null(planned) and not _is_null(config):
        return [(path, "planned for absence but config wants existence")]
    if _is_null(config) and not _is_null(planned):
        return [(path, "planned for existence but config wants absence")]
    if _is_null(planned):
        return errs
    for name, a in block.attributes.items():
        errs += _assert_attr_valid(a, _get(prior, name), _get(config, name), _get(planned, name), path + (name,))
    for name, nb in block.blocks.items():
        errs += _assert_block_valid(nb, _get(prior, name), config.get(name), planned.get(name), path + (name,))
    return errs


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else None


def _assert_block_valid(nb: Any, prior: Any, config: Any, planned: Any, path: tuple) -> list[PathError]:
    if _raw_equal(planned, config):
        return []
    if _is_unknown(config):
        return [(path, f"planned value {gostring(planned)} for unknown dynamic block")]
    if _is_unknown(planned):
        return [(path, _UNKNOWN_BLOCK)]
    if nb.nesting in ("single", "group"):
        return assert_plan_valid(nb.block, prior, config, planned, path)
    kind = {"list": "list", "map": "map", "set": "set"}[nb.nesting]
    if _is_null(planned):
        return [(path, f"attribute representing a {kind} of nested blocks must be empty to indicate no blocks, not null")]
    if nb.nesting == "set":
        return [(path + (i,), _UNKNOWN_ELEMENT) for i, e in enumerate(planned) if _is_unknown(e)]
    config = config if not _is_null(config) else ([] if nb.nesting == "list" else {})
    if len(planned) != len(config):
        return [(path, f"block count in plan ({len(planned)}) disagrees with count in config ({len(config)})")]
    errs: list[PathError] = []
    keys = range(len(planned)) if nb.nesting == "list" else list(planned)
    for k in keys:
        if nb.nesting == "map" and k not in config:
            errs.append((path, f"block key {json.dumps(k)} from plan is not present in config"))
            continue
        pe = planned[k]
        if _is_unknown(pe):
            errs.append((path + (k,), _UNKNOWN_ELEMENT))
            continue
        pr = None
        if not _is_null(prior) and not _is_unknown(prior) and (k in prior if nb.nesting == "map" else k < len(prior)):
            pr = prior[k]
        errs += assert_plan_valid(nb.block, pr, config[k], pe, path + (k,))
    return errs


def _assert_attr_valid(a: Attr, prior: Any, config: Any, planned: Any, path: tuple) -> list[PathError]:
    if _raw_equal(planned, config):
        return []
    if _raw_equal(planned, prior) and not _is_null(prior) and not _is_null(config):
        return []
    if a.write_only:
        return [] if _is_null(planned) else [(path, "planned value for write-only attribute is not null")]
    if a.computed and not a.optional:
        return []
    if _is_null(config) and a.computed:
        return []
    if _is_null(config) and not _is_null(planned):
        if a.sensitive:
            return [(path, "sensitive planned value for a non-computed attribute")]
        return [(path, f"planned value {gostring(planned)} for a non-computed attribute")]
    if a.nested is not None:
        return _assert_object_valid(a.nested, prior, config, planned, path)
    if _is_null(prior):
        if a.sensitive:
            return [(path, "sensitive planned value does not match config value")]
        return [(path, f"planned value {gostring(planned)} does not match config value {gostring(config)}")]
    if a.sensitive:
        return [(path, "sensitive planned value does not match config value nor prior value")]
    message = (f"planned value {gostring(planned)} does not match config value {gostring(config)} nor prior "
               f"value {gostring(prior)}")
    return [(path, message)]


def _assert_object_valid(nt: NestedType, prior: Any, config: Any, planned: Any, path: tuple) -> list[PathError]:
    if _is_null(planned) and not _is_null(config):
        return [(path, "planned for absence but config wants existence")]
    if _is_null(config) and not _is_null(planned):
        return [(path, "planned for existence but config wants absence")]
    if not _is_null(config) and _is_unknown(planned):
        return [(path, "planned unknown for configured value")]
    if _is_null(planned):
        return []
    if nt.nesting == "single":
        return [e for k, a in nt.attributes.items()
                for e in _assert_attr_valid(a, _get(prior, k), _get(config, k), _get(planned, k), path + (k,))]
    if nt.nesting == "set":
        return []
    if len(planned) != len(config):
        message = f"count in plan ({gostring(len(planned))}) disagrees with count in config ({gostring(len(config))})"
        return [(path, message)]
    errs: list[PathError] = []
    keys = range(len(planned)) if nt.nesting == "list" else list(planned)
    for k in keys:
        if nt.nesting == "map" and k not in config:
            continue
        pr = None
        if isinstance(prior, (list, dict)) and (k in prior if isinstance(prior, dict) else k < len(prior)):
            pr = prior[k]
        single = NestedType(nt.attributes, "single")
        errs += _assert_object_valid(single, pr, config[k], planned[k], path + (k,))
    return errs


# ---------------------------------------------------------------------------
# AssertObjectCompatible


def assert_object_compatible(block: BlockSchema, planned: Any, actual: Any, path: tuple = ()) -> list[PathError]:
    root = "Root object " if not path else ""
    if _is_null(planned) and not _is_null(actual):
        return [(path, f"{root}was absent, but now present")]
    if _is_null(actual) and not _is_null(planned):
        return [(path, f"{root}was present, but now absent")]
    if _is_null(planned):
        return []
    errs: list[PathError] = []
    for name, a in block.attributes.items():
        more = assert_value_compatible(planned.get(name), actual.get(name), path + (name,))
        if a.sensitive and more:
            errs.append((path + (name,), "inconsistent values for sensitive attribute"))
        else:
            errs += more
    for name, nb in block.blocks.items():
        errs += _assert_block_compatible(nb, planned.get(name), actual.get(name), path + (name,))
    return errs


def _assert_block_compatible(nb: Any, planned: Any, actual: Any, path: tuple) -> list[PathError]:
    if nb.nesting in ("single", "group"):
        if _is_unknown(planned) and _is_null(actual):
            return []
        return assert_object_compatible(nb.block, planned, actual, path)
    if _is_unknown(planned) or _is_unknown(actual) or _is_null(planned) or _is_null(actual):
        return []
    if nb.nesting == "set":
        errs = _assert_set_compatible(planned, actual, path,
                                      lambda p, a: not assert_object_compatible(nb.block, p, a, path))
        if len(planned) < len(actual):
            errs.append((path, f"block set length changed from {len(planned)} to {len(actual)}"))
        return errs
    if nb.nesting == "list" and len(planned) != len(actual):
        return [(path, f"block count changed from {len(planned)} to {len(actual)}")]
    errs = []
    if nb.nesting == "map":
        for k in planned:
            if k not in actual:
                errs.append((path, f"block key {json.dumps(k)} has vanished"))
        for k in actual:
            if k not in planned:
                errs.append((path, f"new block key {json.dumps(k)} has appeared"))
        keys = [k for k in planned if k in actual]
    else:
        keys = list(range(len(planned)))
    for k in keys:
        errs += assert_object_compatible(nb.block, planned[k], actual[k], path + (k,))
    return errs


def assert_value_compatible(planned: Any, actual: Any, path: tuple = ()) -> list[PathError]:
    pt = _type_of(planned)
    if isinstance(pt, DynamicType):
        return []
    if _is_unknown(planned):
        return []
    if _is_null(actual):
        return [] if _is_null(planned) else [(path, f"was {gostring(planned)}, but now null")]
    if _is_null(planned):
        return [(path, f"was null, but now {gostring(actual)}")]
    if _is_unknown(actual):
        return [(path, "was known, but now unknown")]
    if isinstance(planned, TSet):
        errs = _assert_set_compatible(planned, actual, path,
                                      lambda p, a: not assert_value_compatible(p, a, path))
        if len(planned) < len(actual):
            errs.append((path, f"length changed from {len(planned)} to {len(actual)}"))
        return errs
    if isinstance(planned, dict) and not isinstance(planned, TMap):
        return [e for k in planned for e in assert_value_compatible(planned[k], actual.get(k), path + (k,))]
    if isinstance(planned, (list, TMap)):
        return _assert_elements_compatible(planned, actual, path)
    if not _raw_equal(planned, actual):
        return [(path, f"was {gostring(planned)}, but now {gostring(actual)}")]
    return []


def _assert_elements_compatible(planned: Any, actual: Any, path: tuple) -> list[PathError]:
    errs: list[PathError] = []
    is_map = isinstance(planned, dict)
    keys = list(planned) if is_map else list(range(len(planned)))
    for k in keys:
        present = (k in actual) if is_map else k < len(actual)
        if not present:
            errs.append((path, f"element {_index_str(k)} has vanished"))
            continue
        errs += assert_value_compatible(planned[k], actual[k], path + (k,))
    akeys = list(actual) if is_map else list(range(len(actual)))
    for k in akeys:
        if (k not in planned) if is_map else k >= len(planned):
            errs.append((path, f"new element {_index_str(k)} has appeared"))
    return errs


def _assert_set_compatible(planned: list, actual: list, path: tuple, same: Any) -> list[PathError]:
    pe = [False] * len(planned)
    ae = [False] * len(actual)
    for i, p in enumerate(planned):
        for j, a in enumerate(actual):
            if pe[i] and ae[j]:
                continue
            if same(p, a):
                pe[i] = ae[j] = True
    errs = [(path, f"planned set element {gostring(planned[i])} does not correlate with any element in actual")
            for i, ok in enumerate(pe) if not ok]
    if errs:
        return errs
    return [(path, f"actual set element {gostring(actual[j])} does not correlate with any element in plan")
            for j, ok in enumerate(ae) if not ok]


def _index_str(k: Any) -> str:
    return json.dumps(k) if isinstance(k, str) else str(k)


def _type_of(v: Any) -> Type:
    try:
        return type_of(v)
    except TypeError:
        return DYNAMIC


# ---------------------------------------------------------------------------
# write-only attributes


def write_only_values(block: BlockSchema, value: Any, path: tuple = ()) -> list[tuple]:
    """Paths of write-only attributes that hold a value (a provider must return null there)."""
    if not isinstance(value, dict):
        return []
    out = [path + (k,) for k, a in block.attributes.items() if a.write_only and not _is_null(value.get(k))]
    for name, nb in block.blocks.items():
        v = value.get(name)
        if nb.nesting in ("single", "group"):
            out += write_only_values(nb.block, v, path + (name,))
        elif isinstance(v, dict):
            out += [p for k, x in v.items() for p in write_only_values(nb.block, x, path + (name, k))]
        elif isinstance(v, list):
            out += [p for i, x in enumerate(v) for p in write_only_values(nb.block, x, path + (name, i))]
    return out


# ---------------------------------------------------------------------------
# rendering as Terraform does (cty's GoString, tfdiags' paths)


def format_path(path: tuple) -> str:
    out = []
    for i, step in enumerate(path):
        if isinstance(step, str) and (i == 0 or _attr_step(path, i)):
            out.append("." + step)
        elif isinstance(step, str):
            out.append(f"[{json.dumps(step)}]")
        else:
            out.append(f"[{step}]")
    return "".join(out)


def _attr_step(path: tuple, i: int) -> bool:
    steps = getattr(path, "attr_steps", None)
    return i in steps if steps is not None else True


def format_error(err: PathError, prefix: str | None = None) -> str:
    path, msg = err
    if prefix is None:
        return f"{format_path(path)}: {msg}" if path else msg
    return f"{prefix}{format_path(path)}: {msg}" if path else f"{prefix}: {msg}"


def gotype(t: Type) -> str:
    if t == STRING:
        return "cty.String"
    if t == NUMBER:
        return "cty.Number"
    if t == BOOL:
        return "cty.Bool"
    if isinstance(t, DynamicType):
        return "cty.DynamicPseudoType"
    if isinstance(t, ListType):
        return f"cty.List({gotype(t.elem)})"
    if isinstance(t, SetType):
        return f"cty.Set({gotype(t.elem)})"
    if isinstance(t, MapType):
        return f"cty.Map({gotype(t.elem)})"
    if isinstance(t, ObjectType):
        if not t.attrs:
            return "cty.EmptyObject"
        return "cty.Object(map[string]cty.Type{" + ", ".join(f"{json.dumps(k)}:{gotype(v)}" for k, v in t.attrs) + "})"
    if isinstance(t, TupleType):
        if not t.elems:
            return "cty.EmptyTuple"
        return "cty.Tuple([]cty.Type{" + ", ".join(gotype(e) for e in t.elems) + "})"
    return repr(t)


def gostring(v: Any) -> str:
    """cty's %#v of a value: cty.StringVal("a"), cty.NumberIntVal(1), cty.NullVal(cty.String)..."""
    if v is None:
        return "cty.NullVal(cty.DynamicPseudoType)"
    if type(v) is Null:
        return f"cty.NullVal({gotype(v.type)})"
    if isinstance(v, Unknown):
        return f"cty.UnknownVal({gotype(v.type)})"
    if isinstance(v, bool):
        return "cty.True" if v else "cty.False"
    if isinstance(v, str):
        return f"cty.StringVal({json.dumps(v, ensure_ascii=False)})"
    if isinstance(v, int):
        return f"cty.NumberIntVal({v})" if -(1 << 63) <= v < (1 << 63) else f"cty.MustParseNumberVal(\"{v}\")"
    if isinstance(v, float):
        return f"cty.NumberFloatVal({_gofloat(v)})"
    if isinstance(v, TSet):
        return f"cty.SetValEmpty({gotype(v.etype)})" if not v else \
            "cty.SetVal([]cty.Value{" + ", ".join(gostring(x) for x in v) + "})"
    if isinstance(v, TList):
        return f"cty.ListValEmpty({gotype(v.etype)})" if not v else \
            "cty.ListVal([]cty.Value{" + ", ".join(gostring(x) for x in v) + "})"
    if isinstance(v, TMap):
        return f"cty.MapValEmpty({gotype(v.etype)})" if not v else \
            "cty.MapVal(map[string]cty.Value{" + ", ".join(f"{json.dumps(k)}:{gostring(x)}" for k, x in v.items()) + "})"
    if isinstance(v, dict):
        return "cty.EmptyObjectVal" if not v else \
            "cty.ObjectVal(map[string]cty.Value{" + ", ".join(
                f"{json.dumps(k)}:{gostring(x)}" for k, x in sorted(v.items())) + "})"
    if isinstance(v, list):
        return "cty.EmptyTupleVal" if not v else "cty.TupleVal([]cty.Value{" + ", ".join(gostring(x) for x in v) + "})"
    try:
        n = float(v)
    except (TypeError, ValueError):
        return repr(v)
    return f"cty.NumberFloatVal({_gofloat(n)})" if not math.isinf(n) else repr(v)


def _gofloat(f: float) -> str:
    # Go's %#v of a float64 uses the shortest representation, with an exponent when large
    text = repr(f)
    if "e" in text:
        mant, exp = text.split("e")
        sign = "-" if exp.startswith("-") else "+"
        return f"{mant}e{sign}{exp.lstrip('+-').zfill(2)}"
    return text
