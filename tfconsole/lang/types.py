"""The type system of Terraform's language (cty's types), as immutable objects.

Types are frozen dataclasses so they hash and compare structurally. This module
knows nothing of values; `values.py` maps Python values onto these types.
"""
from __future__ import annotations

from dataclasses import field
from tfconsole.records import HashCached, dataclass  # the standard decorator without its start-up cost
from typing import Any

from tfconsole.memo import remember


class Type(HashCached):
    """Base of every type. Subclasses are frozen dataclasses with slots; a type's hash is
    computed once (types are dict keys of the decoder and conversion caches)."""

    __slots__ = ()

    def is_primitive(self) -> bool:
        return isinstance(self, PrimitiveType)

    def is_collection(self) -> bool:
        return isinstance(self, (ListType, SetType, MapType))

    def friendly(self) -> str:
        raise NotImplementedError

    def to_json(self) -> Any:
        raise NotImplementedError

    def has_dynamic(self) -> bool:
        return False

    # immutable: a copy is the type itself (which keeps the primitives singletons)
    def __copy__(self) -> "Type":
        return self

    def __deepcopy__(self, memo: Any) -> "Type":
        return self


_PRIMITIVES: dict[str, "PrimitiveType"] = {}


@dataclass(frozen=True, slots=True)
class PrimitiveType(Type):
    """string, number or bool. Each is a singleton (STRING, NUMBER, BOOL below), so code that
    tests a type against them may use `is`, which costs no call."""

    name: str

    def __new__(cls, name: str) -> "PrimitiveType":
        known = _PRIMITIVES.get(name)
        if known is None:
            known = _PRIMITIVES[name] = object.__new__(cls)
        return known

    def __reduce__(self) -> Any:
        return PrimitiveType, (self.name,)

    # a singleton equals only itself: identity in C, no Python call per comparison or hash
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def friendly(self) -> str:
        return self.name

    def to_json(self) -> Any:
        return self.name

    def __repr__(self) -> str:
        return self.name


_DYNAMIC: list["DynamicType"] = []


@dataclass(frozen=True, slots=True)
class DynamicType(Type):
    """The dynamic pseudo-type; a singleton (DYNAMIC below)."""

    def __new__(cls) -> "DynamicType":
        if not _DYNAMIC:
            _DYNAMIC.append(object.__new__(cls))
        return _DYNAMIC[0]

    def __reduce__(self) -> Any:
        return DynamicType, ()

    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def friendly(self) -> str:
        return "dynamic"

    def to_json(self) -> Any:
        return "dynamic"

    def has_dynamic(self) -> bool:
        return True

    def __repr__(self) -> str:
        return "dynamic"


@dataclass(frozen=True, slots=True)
class ListType(Type):
    elem: Type

    def friendly(self) -> str:
        return f"list of {self.elem.friendly()}"

    def to_json(self) -> Any:
        return ["list", self.elem.to_json()]

    def has_dynamic(self) -> bool:
        return self.elem.has_dynamic()


@dataclass(frozen=True, slots=True)
class SetType(Type):
    elem: Type

    def friendly(self) -> str:
        return f"set of {self.elem.friendly()}"

    def to_json(self) -> Any:
        return ["set", self.elem.to_json()]

    def has_dynamic(self) -> bool:
        return self.elem.has_dynamic()


@dataclass(frozen=True, slots=True)
class MapType(Type):
    elem: Type

    def friendly(self) -> str:
        return f"map of {self.elem.friendly()}"

    def to_json(self) -> Any:
        return ["map", self.elem.to_json()]

    def has_dynamic(self) -> bool:
        return self.elem.has_dynamic()


@dataclass(frozen=True, slots=True)
class ObjectType(Type):
    """attrs is a tuple of (name, type) sorted by name; optional names the optional ones
    (only meaningful in type constraints); defaults holds optional(...) defaults."""

    attrs: tuple[tuple[str, Type], ...]
    optional: frozenset[str] = frozenset()
    defaults: tuple[tuple[str, Any], ...] = field(default=(), compare=False, hash=False)

    @staticmethod
    def of(attrs: dict[str, Type], optional: frozenset[str] = frozenset(),
           defaults: dict[str, Any] | None = None) -> "ObjectType":
        return ObjectType(tuple(sorted(attrs.items())), frozenset(optional),
                          tuple(sorted((defaults or {}).items())))

    @property
    def attr_types(self) -> dict[str, Type]:
        return dict(self.attrs)

    def friendly(self) -> str:
        return "object"

    def to_json(self) -> Any:
        obj: list[Any] = ["object", {k: t.to_json() for k, t in self.attrs}]
        if self.optional:
            obj.append(sorted(self.optional))
        return obj

    def has_dynamic(self) -> bool:
        return any(t.has_dynamic() for _, t in self.attrs)


@dataclass(frozen=True, slots=True)
class TupleType(Type):
    elems: tuple[Type, ...]

    def friendly(self) -> str:
        return "tuple"

    def to_json(self) -> Any:
        return ["tuple", [t.to_json() for t in self.elems]]

    def has_dynamic(self) -> bool:
        return any(t.has_dynamic() for t in self.elems)


STRING = PrimitiveType("string")
NUMBER = PrimitiveType("number")
BOOL = PrimitiveType("bool")
DYNAMIC = DynamicType()
EMPTY_OBJECT = ObjectType(())
EMPTY_TUPLE = TupleType(())


def without_optional(t: Type) -> Type:
    """The type a conversion to t produces: optional attributes (and their defaults) are only
    rules of the conversion, not part of the resulting object type."""
    if isinstance(t, ObjectType):
        if not t.optional and not t.defaults and all(isinstance(a, PrimitiveType) for _, a in t.attrs):
            return t
        return ObjectType(tuple((k, without_optional(v)) for k, v in t.attrs))
    if isinstance(t, (ListType, SetType, MapType)):
        inner = without_optional(t.elem)
        return t if inner is t.elem else type(t)(inner)
    if isinstance(t, TupleType):
        return TupleType(tuple(without_optional(e) for e in t.elems))
    return t


def type_from_json(j: Any) -> Type:
    """Parse cty's JSON type notation (as used in state files and plan files)."""
    if type(j) is str:
        known = _PRIMITIVES.get(j)
        if known is not None:
            return known
        if j == "dynamic":
            return DYNAMIC
        raise ValueError(f"unknown type {j!r}")
    # every dynamic value in a state file carries its type: thousands of instances repeat a few
    # (JSON data, so repr is a faithful key); one type object per notation also lets decoders
    # and conversions find a type by identity
    key = repr(j)
    known = _FROM_JSON.get(key)
    if known is None:
        known = remember(_FROM_JSON, key, _type_from_json_list(j))
    return known


_FROM_JSON: dict[str, Type] = {}


def _type_from_json_list(j: Any) -> Type:
    if isinstance(j, list) and j:
        kind = j[0]
        if kind == "list":
            return ListType(type_from_json(j[1]))
        if kind == "set":
            return SetType(type_from_json(j[1]))
        if kind == "map":
            return MapType(type_from_json(j[1]))
        if kind == "object":
            opt = frozenset(j[2]) if len(j) > 2 else frozenset()
            return ObjectType.of({k: type_from_json(v) for k, v in j[1].items()}, opt)
        if kind == "tuple":
            return TupleType(tuple(type_from_json(v) for v in j[1]))
    raise ValueError(f"invalid type {j!r}")


def type_string(t: Type) -> str:
    """HCL type-expression syntax, as the `type()` function and errors print it."""
    if isinstance(t, PrimitiveType):
        return t.name
    if isinstance(t, DynamicType):
        return "dynamic"
    if isinstance(t, ListType):
        return f"list({type_string(t.elem)})"
    if isinstance(t, SetType):
        return f"set({type_string(t.elem)})"
    if isinstance(t, MapType):
        return f"map({type_string(t.elem)})"
    if isinstance(t, TupleType):
        return "tuple([" + ", ".join(type_string(e) for e in t.elems) + "])"
    if isinstance(t, ObjectType):
        if not t.attrs:
            return "object({})"
        inner = ",\n".join(f"    {k}: {type_string(v)}" for k, v in t.attrs)
        return "object({\n" + inner + ",\n})"
    return repr(t)
