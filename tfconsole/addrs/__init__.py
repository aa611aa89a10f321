"""Addresses of modules, resources and instances: immutable, hashable, and str() of an
address parses back to an equal address (see parse_* below).

Must not import anything from tfconsole except diags, records and memo.
"""
from __future__ import annotations

import json
import re
from tfconsole.memo import remember
from tfconsole.records import HashCached, dataclass  # the standard decorator without its start-up cost
from typing import Union

InstanceKey = Union[None, int, str]  # None: no key; int: count index; str: for_each key


def key_str(key: InstanceKey) -> str:
    if key is None:
        return ""
    if isinstance(key, int):
        return f"[{key}]"
    return "[" + json.dumps(key, ensure_ascii=False) + "]"


@dataclass(frozen=True, slots=True)
class ModuleInstance(HashCached):
    """module.a[0].module.b: steps of (name, key)."""

    steps: tuple[tuple[str, InstanceKey], ...] = ()

    @property
    def is_root(self) -> bool:
        return not self.steps

    def child(self, name: str, key: InstanceKey = None) -> "ModuleInstance":
        return module_instance(self.steps + ((name, key),))

    def parent(self) -> "ModuleInstance":
        return module_instance(self.steps[:-1])

    def module(self) -> "Module":
        if not self.steps:
            return ROOT_MODULE  # the common case, asked for several times per instance
        known = _MODULE_OF.get(self)
        if known is None:
            known = remember(_MODULE_OF, self, Module(tuple(n for n, _ in self.steps)), 65536)
        return known

    def __str__(self) -> str:
        # every instance of a module instance prints it again (addresses, hooks, state keys)
        known = _TEXT_OF.get(self)
        if known is None:
            known = remember(_TEXT_OF, self, ".".join(f"module.{n}{key_str(k)}" for n, k in self.steps), 65536)
        return known

    def prefix(self) -> str:
        s = str(self)
        return s + "." if s else ""

    def is_ancestor_or_self(self, other: "ModuleInstance") -> bool:
        return other.steps[: len(self.steps)] == self.steps


ROOT = ModuleInstance()

# One object per module instance made by expansion (child), parent() and the parsers: the
# walk's dicts keyed by module instances (and tuples of them) then find their keys by identity
# instead of comparing steps.
_INTERNED: dict[tuple, ModuleInstance] = {(): ROOT}


def module_instance(steps: tuple[tuple[str, InstanceKey], ...]) -> ModuleInstance:
    """The ModuleInstance of these steps, the same object each time (within the memo's bound)."""
    known = _INTERNED.get(steps)
    if known is None:
        known = remember(_INTERNED, steps, ModuleInstance(steps), 65536)
    return known

# per module instance, what its addresses ask of it again and again
_MODULE_OF: dict[ModuleInstance, "Module"] = {}
_TEXT_OF: dict[ModuleInstance, str] = {}


@dataclass(frozen=True, slots=True)
class Module(HashCached):
    """A module in configuration (no instance keys): module.a.module.b"""

    path: tuple[str, ...] = ()

    @property
    def is_root(self) -> bool:
        return not self.path

    def child(self, name: str) -> "Module":
        return Module(self.path + (name,))

    def __str__(self) -> str:
        return ".".join(f"module.{n}" for n in self.path)

    def prefix(self) -> str:
        s = str(self)
        return s + "." if s else ""


ROOT_MODULE = Module()


@dataclass(frozen=True, slots=True)
class Resource(HashCached):
    mode: str  # "managed" | "data" | "ephemeral"
    type: str
    name: str

    def __str__(self) -> str:
        base = f"{self.type}.{self.name}"
        if self.mode == "managed":
            return base
        return f"data.{base}" if self.mode == "data" else f"ephemeral.{base}"

    def instance(self, key: InstanceKey) -> "ResourceInstance":
        return ResourceInstance(self, key)


@dataclass(frozen=True, slots=True)
class ResourceInstance(HashCached):
    resource: Resource
    key: InstanceKey = None

    def __str__(self) -> str:
        return f"{self.resource}{key_str(self.key)}"


@dataclass(frozen=True, slots=True)
class ConfigResource(HashCached):
    module: Module
    resource: Resource

    def __str__(self) -> str:
        return self.module.prefix() + str(self.resource)


@dataclass(frozen=True, slots=True)
class AbsResource(HashCached):
    module: ModuleInstance
    resource: Resource

    def __str__(self) -> str:
        return self.module.prefix() + str(self.resource)

    def instance(self, key: InstanceKey) -> "AbsResourceInstance":
        return AbsResourceInstance(self.module, self.resource, key)

    def config(self) -> ConfigResource:
        return ConfigResource(self.module.module(), self.resource)


@dataclass(frozen=True, slots=True)
class AbsResourceInstance(HashCached):
    module: ModuleInstance
    resource: Resource
    key: InstanceKey = None

    def __str__(self) -> str:
        # printed several times per instance in a walk (diagnostics, hooks, change order)
        known = _INSTANCE_TEXT.get(self)
        if known is None:
            known = remember(_INSTANCE_TEXT, self,
                             self.module.prefix() + str(self.resource) + key_str(self.key), 65536)
        return known

    def abs_resource(self) -> AbsResource:
        # one object per resource, its hash computed once: asked for several times per
        # instance in a walk, each time to look something up by it
        known = _RESOURCE_OF.get(self)
        if known is None:
            known = remember(_RESOURCE_OF, self, intern_resource(AbsResource(self.module, self.resource)), 65536)
        return known

    def config(self) -> ConfigResource:
        return ConfigResource(self.module.module(), self.resource)


_RESOURCE_OF: dict[AbsResourceInstance, AbsResource] = {}
_RESOURCES: dict[AbsResource, AbsResource] = {}


def intern_resource(addr: AbsResource) -> AbsResource:
    """The one AbsResource object equal to addr: dicts keyed by resource addresses (state,
    expansions, values) then find their keys by identity, without the generated __eq__ that
    compares module and resource field by field (several lookups per instance in a walk)."""
    known = _RESOURCES.get(addr)
    if known is None:
        known = remember(_RESOURCES, addr, addr, 65536)
    return known
_INSTANCE_TEXT: dict[AbsResourceInstance, str] = {}


@dataclass(frozen=True, slots=True)
class AbsOutput(HashCached):
    module: ModuleInstance
    name: str

    def __str__(self) -> str:
        return self.module.prefix() + f"output.{self.name}"


@dataclass(frozen=True, slots=True)
class ProviderConfig(HashCached):
    """provider["registry.terraform.io/hashicorp/random"].alias in module.x"""

    module: Module
    source: str  # fully-qualified source address
    alias: str | None = None

    def __str__(self) -> str:
        base = f'provider["{self.source}"]'
        if self.alias:
            base += f".{self.alias}"
        return self.module.prefix() + base


Targetable = Union[ModuleInstance, AbsResource, AbsResourceInstance]


class AddressError(ValueError):
    pass


_TOKEN = re.compile(r'\s*(?:(\.)|\[\s*(?:(\d+)|"((?:[^"\\]|\\.)*)"|(\*))\s*\]|([A-Za-z_][A-Za-z0-9_-]*))')


def _tokens(text: str) -> list[tuple[str, object]]:
    pos = 0
    out: list[tuple[str, object]] = []
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise AddressError(f"Invalid address {text!r}: unexpected {text[pos:pos + 10]!r}")
        dot, num, qs, star, name = m.groups()
        if dot:
            out.append((".", None))
        elif num is not None:
            out.append(("key", int(num)))
        elif qs is not None:
            out.append(("key", json.loads('"' + qs + '"')))
        elif star:
            raise AddressError(f"Invalid address {text!r}: splat not allowed")
        else:
            out.append(("name", name))
        pos = m.end()
    return out


def parse_target(text: str) -> Targetable:
    """Parse a -target/-replace/state address: module path, resource or resource instance."""
    toks = _tokens(text)
    i = 0
    steps: list[tuple[str, InstanceKey]] = []

    def expect_name() -> str:
        nonlocal i
        if i >= len(toks) or toks[i][0] != "name":
            raise AddressError(f"Invalid address {text!r}: expected a name")
        i += 1
        return str(toks[i - 1][1])

    def expect_dot() -> None:
        nonlocal i
        if i >= len(toks) or toks[i][0] != ".":
            raise AddressError(f"Invalid address {text!r}: expected '.'")
        i += 1

    def opt_key() -> InstanceKey:
        nonlocal i
        if i < len(toks) and toks[i][0] == "key":
            i += 1
            return toks[i - 1][1]  # type: ignore[return-value]
        return None

    if not toks:
        raise AddressError("Invalid address: empty")
    while i < len(toks) and toks[i] == ("name", "module"):
        i += 1
        expect_dot()
        name = expect_name()
        steps.append((name, opt_key()))
        if i < len(toks):
            expect_dot()
    module = module_instance(tuple(steps))
    if i >= len(toks):
        if not steps:
            raise AddressError(f"Invalid address {text!r}")
        return module
    mode = "managed"
    first = expect_name()
    if first in ("data", "ephemeral"):
        mode = first
        expect_dot()
        first = expect_name()
    expect_dot()
    name = expect_name()
    res = Resource(mode, first, name)
    if i < len(toks) and toks[i][0] == "key":
        key = opt_key()
        if i != len(toks):
            raise AddressError(f"Invalid address {text!r}: unexpected trailing characters")
        return AbsResourceInstance(module, res, key)
    if i != len(toks):
        raise AddressError(f"Invalid address {text!r}: unexpected trailing characters")
    return AbsResource(module, res)


_NAME = r"[A-Za-z_][A-Za-z0-9_-]*"
_SIMPLE_KEY = r'\[(?:(\d+)|"([^"\\\x00-\x1f]*)")\]'  # a number, or a string without escapes
_FAST_INSTANCE = re.compile(rf"((?:module\.{_NAME}(?:\[(?:\d+|\"[^\"\\\x00-\x1f]*\")\])?\.)*)"
                            rf"(?:(data|ephemeral)\.)?({_NAME})\.({_NAME})(?:{_SIMPLE_KEY})?\Z")
_FAST_STEP = re.compile(rf"module\.({_NAME})(?:{_SIMPLE_KEY})?\.")
# (module prefix, mode, type, name) -> (ModuleInstance, Resource): the instances of one
# resource share them (building frozen dataclasses is most of the cost of a parse)
_FAST_PARTS: dict[tuple, tuple[ModuleInstance, "Resource"]] = {}


def _fast_instance(text: str) -> AbsResourceInstance | None:
    """The instance address in its printed form (no spaces, keys without escapes: how state,
    plans and the engine write them), read without the general tokenizer; None for any other
    text, which parse_target reads (and judges)."""
    m = _FAST_INSTANCE.match(text)
    if m is None:
        return None
    prefix, mode, rtype, name, num, skey = m.groups()
    if mode is None and rtype in ("data", "ephemeral", "module"):
        return None  # "data.x" and the like: the general parser's errors
    parts = _FAST_PARTS.get((prefix, mode, rtype, name))
    if parts is None:
        module = module_instance(tuple(
            (s.group(1), int(s.group(2)) if s.group(2) is not None else s.group(3))
            for s in _FAST_STEP.finditer(prefix)))
        if len(_FAST_PARTS) > 10_000:
            _FAST_PARTS.clear()
        parts = _FAST_PARTS[(prefix, mode, rtype, name)] = (module, Resource(mode or "managed", rtype, name))
    return AbsResourceInstance(parts[0], parts[1], int(num) if num is not None else skey)


def parse_instance(text: str) -> AbsResourceInstance:
    fast = _fast_instance(text)
    if fast is not None:
        return fast
    t = parse_target(text)
    if isinstance(t, AbsResource):
        return t.instance(None)
    if isinstance(t, AbsResourceInstance):
        return t
    raise AddressError(f"Invalid resource instance address {text!r}")


def target_contains(target: Targetable, addr: AbsResourceInstance) -> bool:
    """Whether -target=target selects the resource instance addr."""
    if isinstance(target, ModuleInstance):
        # module.a selects every instance of module.a when given without a key
        if len(addr.module.steps) < len(target.steps):
            return False
        for (tn, tk), (an, ak) in zip(target.steps, addr.module.steps):
            if tn != an or (tk is not None and tk != ak):
                return False
        return True
    if isinstance(target, AbsResource):
        return target.resource == addr.resource and _module_matches(target.module, addr.module)
    return target == addr


def _module_matches(t: ModuleInstance, a: ModuleInstance) -> bool:
    if len(t.steps) != len(a.steps):
        return False
    return all(tn == an and (tk is None or tk == ak) for (tn, tk), (an, ak) in zip(t.steps, a.steps))
