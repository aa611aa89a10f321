"""The one codec between a resource instance's value (with sensitive marks) and its state object
(attributes JSON + sensitive_attributes paths), for every reader and writer of state objects:
the walk's vertices, import, show and the state views.

It must not import the graph or the walk: both sit above it.
"""
from __future__ import annotations

from typing import Any

from tfconsole.lang.values import (
    Null, Sensitive, TList, TMap, TSet, Unknown, apply_sensitive_paths, from_json_typed, mark, to_json_typed, unmark,
    unmark_deep,
)
from tfconsole.providers.interface import Schema

from .state import ObjectState


def encode_object(value: dict[str, Any], schema: Schema) -> tuple[dict[str, Any], list[Any]]:
    """(attributes JSON, sensitive_attributes) for the state file."""
    clean, _ = unmark_deep(value)
    attrs = to_json_typed(clean, schema.block.implied_type())
    out: list[Any] = []
    for k, v in value.items():
        _state_marks(v, [{"type": "get_attr", "value": k}], out)
    return attrs, out


class EncodeOnRead(ObjectState):
    """A state object made from a value, whose attributes JSON and sensitive paths are worked
    out when first read: the refreshed objects of a plan. A plan that is neither saved nor
    applied (`plan`, `plan -detailed-exitcode`) never reads them, and encoding them was a
    tenth of such a plan's walk. Encoding is deterministic and the value immutable, so two
    threads reading at once both compute the same pair and either may keep it."""

    def __init__(self, value: dict[str, Any], schema: Schema, status: str, private: str | None,
                 dependencies: list[str], create_before_destroy: bool, identity: Any,
                 identity_schema_version: int) -> None:
        self._pending = (value, schema)
        self._encoded: tuple[dict[str, Any], list[Any]] | None = None
        self.status = status
        self.schema_version = schema.version
        self.private = private
        self.dependencies = dependencies
        self.create_before_destroy = create_before_destroy
        self.identity = identity
        self.identity_schema_version = identity_schema_version
        self.attributes_flat = None

    def _encode(self) -> tuple[dict[str, Any], list[Any]]:
        enc = self._encoded
        if enc is None:
            enc = self._encoded = encode_object(*self._pending)
        return enc

    @property  # type: ignore[override]
    def attributes(self) -> dict[str, Any]:
        return self._encode()[0]

    @attributes.setter
    def attributes(self, v: dict[str, Any]) -> None:
        self._encoded = (v, self._encode()[1])

    @property  # type: ignore[override]
    def sensitive_attributes(self) -> list[Any]:
        return self._encode()[1]

    @sensitive_attributes.setter
    def sensitive_attributes(self, v: list[Any]) -> None:
        self._encoded = (self._encode()[0], v)

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, ObjectState):
            return _object_fields(self) == _object_fields(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, as ObjectState

    def __repr__(self) -> str:
        return "EncodeOnRead" + repr(self.copy()).removeprefix("ObjectState")


def _object_fields(o: ObjectState) -> tuple:
    return (o.attributes, o.status, o.schema_version, o.sensitive_attributes, o.private, o.dependencies,
            o.create_before_destroy, o.identity, o.identity_schema_version, o.attributes_flat)


def same_state_paths(value: dict[str, Any], stored: list[Any] | None, schema: Schema) -> bool:
    """Whether value's marks are the sensitive paths a state object holds (in any order),
    leaving out the schema's sensitive attributes: marked by the schema whatever the
    configuration says, they are never a change of sensitivity (and a state may hold them for
    a null value or not)."""
    import json

    mine: list[Any] = []
    for k, v in value.items():
        _state_marks(v, [{"type": "get_attr", "value": k}], mine)
    by_schema = {json.dumps([{"type": "get_attr", "value": k}], sort_keys=True) for k in schema.block.sensitive_attrs()}
    if _sensitive_blocks(schema.block):  # the schema's marks inside nested blocks too
        nested: list[Any] = []
        for k, v in _mark_block(unmark_deep(value)[0], schema.block).items():
            _state_marks(v, [{"type": "get_attr", "value": k}], nested)
        by_schema |= {json.dumps(p, sort_keys=True) for p in nested}
    return {json.dumps(p, sort_keys=True) for p in mine} - by_schema == \
        {json.dumps(p, sort_keys=True) for p in stored or ()} - by_schema


def _state_marks(v: Any, path: list[dict], out: list[Any]) -> None:
    """v4 state paths of every marked value: objects step by get_attr, maps and lists by index."""
    t = type(v)
    if t is Sensitive:
        out.append(path)
        return
    if t is dict:
        for k, x in v.items():
            _state_marks(x, path + [{"type": "get_attr", "value": k}], out)
    elif t is TMap:
        for k, x in v.items():
            _state_marks(x, path + [{"type": "index", "value": {"value": k, "type": "string"}}], out)
    elif t is list or t is TList:
        for i, x in enumerate(v):
            _state_marks(x, path + [{"type": "index", "value": {"value": i, "type": "number"}}], out)
    elif t is TSet:
        from tfconsole.lang.values import contains_marks

        if contains_marks(v):
            out.append(path)


def remark(value: dict[str, Any] | None, paths: list[tuple], schema: Schema) -> dict[str, Any] | None:
    if value is None:
        return None
    out = apply_sensitive_paths(value, paths)
    return mark_sensitive_attrs(out, schema)


# id(BlockSchema) -> (the block, its implied type, its sensitive attribute names); the block
# is kept so its id is not reused while cached. Bounded: a provider may build new schema
# objects on every call.
_BLOCK_FACTS: dict[int, tuple[Any, Any, tuple[str, ...]]] = {}


def _block_facts(block: Any) -> tuple[Any, tuple[str, ...]]:
    facts = _BLOCK_FACTS.get(id(block))
    if facts is None or facts[0] is not block:
        facts = (block, block.implied_type(), tuple(block.sensitive_attrs()))
        if len(_BLOCK_FACTS) >= 512:
            _BLOCK_FACTS.clear()
        _BLOCK_FACTS[id(block)] = facts
    return facts[1], facts[2]


def decode_object(attrs: dict[str, Any], schema: Schema, sensitive_attributes: list[Any]) -> dict[str, Any]:
    ty, sensitive_names = _block_facts(schema.block)
    value = from_json_typed(attrs, ty)
    if not sensitive_attributes and not sensitive_names:
        return value
    paths = [state_path_to_tuple(p) for p in sensitive_attributes or []]
    for name in sensitive_names:
        paths.append((name,))
    if paths:
        value = apply_sensitive_paths(value, [p for p in paths if p is not None])
    return value


def mark_stored(value: dict[str, Any], schema: Schema, sensitive_attributes: list[Any]) -> dict[str, Any]:
    paths = [t for t in (state_path_to_tuple(p) for p in sensitive_attributes or []) if t is not None]
    paths += [(name,) for name in schema.block.sensitive_attrs()]
    return apply_sensitive_paths(value, paths) if paths else value


def state_path_to_tuple(p: Any) -> tuple | None:
    """v4 state sensitive path: [{"type":"get_attr","value":"x"}, {"type":"index","value":{"value":0,"type":"number"}}]"""
    out: list[Any] = []
    if not isinstance(p, list):
        return None
    for step in p:
        if not isinstance(step, dict):
            return None
        if step.get("type") == "get_attr":
            out.append(step.get("value"))
        elif step.get("type") == "index":
            v = step.get("value")
            if isinstance(v, dict):
                v = v.get("value")
            out.append(v)
    return tuple(out)


def tuple_to_state_path(path: tuple) -> list[dict]:
    out = []
    for i, step in enumerate(path):
        if i == 0 or (isinstance(step, str) and False):
            out.append({"type": "get_attr", "value": step})
        elif isinstance(step, int):
            out.append({"type": "index", "value": {"value": step, "type": "number"}})
        else:
            out.append({"type": "index", "value": {"value": step, "type": "string"}})
    return out


def mark_sensitive_attrs(value: dict[str, Any], schema: Schema) -> dict[str, Any]:
    """value with the schema's sensitive attributes marked, in nested blocks too."""
    return _mark_block(value, schema.block)


def _mark_block(value: dict[str, Any], block: Any) -> dict[str, Any]:
    sens = block.sensitive_attrs()
    nested = _sensitive_blocks(block)
    if not sens and not nested:
        return value
    out = dict(value)
    for k in sens:
        if k in out and out[k] is not None:
            out[k] = mark(out[k])
    for name, nb in nested:
        v = out.get(name)
        inner, marks = unmark(v)
        if inner is None or type(inner) in (Null, Unknown):
            continue
        if nb.nesting in ("single", "group"):
            got: Any = _mark_block(inner, nb.block)
        elif nb.nesting == "map":
            got = type(inner)({k: _mark_elem(x, nb.block) for k, x in inner.items()})
            if isinstance(inner, TMap):
                got.etype = inner.etype
        else:
            got = [_mark_elem(x, nb.block) for x in inner]
            got = TSet(got, inner.etype, ordered=True) if isinstance(inner, TSet) else \
                TList(got, inner.etype) if isinstance(inner, TList) else got
        out[name] = mark(got, marks)
    return out


def _mark_elem(v: Any, block: Any) -> Any:
    inner, marks = unmark(v)
    if type(inner) is not dict:
        return v
    return mark(_mark_block(inner, block), marks)


# id(BlockSchema) -> (the block, its nested block types that hold a sensitive attribute)
_NESTED_SENSITIVE: dict[int, tuple[Any, tuple]] = {}


def _sensitive_blocks(block: Any) -> tuple:
    facts = _NESTED_SENSITIVE.get(id(block))
    if facts is None or facts[0] is not block:
        found = tuple((name, nb) for name, nb in sorted(block.blocks.items()) if _holds_sensitive(nb.block))
        if len(_NESTED_SENSITIVE) >= 512:
            _NESTED_SENSITIVE.clear()
        facts = _NESTED_SENSITIVE[id(block)] = (block, found)
    return facts[1]


def may_mark(obj: ObjectState, schema: Schema) -> bool:
    """Whether decoding obj can give a marked value: only its sensitive paths and the schema's
    sensitive attributes (at any depth) mark one (a cheap test instead of a walk)."""
    return bool(obj.sensitive_attributes) or schema_marks(schema)


def schema_marks(schema: Schema) -> bool:
    """may_mark's half that depends on the schema only: whether it has sensitive attributes, at
    any depth (asked once per resource by a plan, not once per instance)."""
    block = schema.block
    return bool(block.sensitive_attrs()) or bool(_sensitive_blocks(block))


def _holds_sensitive(block: Any) -> bool:
    return bool(block.sensitive_attrs()) or any(_holds_sensitive(nb.block) for nb in block.blocks.values())
