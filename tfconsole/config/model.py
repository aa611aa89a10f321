"""Typed configuration blocks decoded from generic bodies, and the module tree.

Expressions stay unevaluated (lang.ast nodes) until the walk evaluates them.
"""
from __future__ import annotations

from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import Any

from tfconsole.addrs import Module as ModulePath
from tfconsole.addrs import Resource
from tfconsole.diags import Diagnostics, SourceRange
from tfconsole.lang import ast as A
from tfconsole.lang.types import DYNAMIC, Type

from .body import Attribute, Block, Body, LazyExpr


@dataclass
class CheckRule:
    condition: A.Expr
    error_message: A.Expr | None
    range: SourceRange


@dataclass
class Variable:
    name: str
    type: Type = DYNAMIC
    type_given: bool = False
    default: A.Expr | None = None
    description: str = ""
    sensitive: bool = False
    nullable: bool = True
    ephemeral: bool = False
    validations: list[CheckRule] = field(default_factory=list)
    range: SourceRange | None = None


@dataclass
class Local:
    name: str
    expr: A.Expr
    range: SourceRange


class LazyLocal(LazyExpr, Local):
    """A Local whose expression is its attribute's, taken when first used: a LazyAttribute (from
    the parse cache) is then decoded only if something reads the local's expression."""

    def __init__(self, name: str, attr: Any, rng: SourceRange):
        self.name = name
        self.range = rng
        self._attr = attr

    def _make_expr(self) -> Any:
        return self._attr.expr


@dataclass
class Output:
    name: str
    expr: A.Expr | None
    sensitive: bool = False
    ephemeral: bool = False
    description: str = ""
    depends_on: list[A.ScopeTraversal] = field(default_factory=list)
    preconditions: list[CheckRule] = field(default_factory=list)
    range: SourceRange | None = None


@dataclass
class Provisioner:
    type: str
    body: Body
    when_destroy: bool
    on_failure_continue: bool
    range: SourceRange


@dataclass
class Lifecycle:
    create_before_destroy: bool = False
    prevent_destroy: bool = False
    ignore_changes: list[tuple] | str = field(default_factory=list)  # paths, or "all"
    replace_triggered_by: list[A.Expr] = field(default_factory=list)
    preconditions: list[CheckRule] = field(default_factory=list)
    postconditions: list[CheckRule] = field(default_factory=list)
    cbd_set: bool = False
    ignore_changes_range: SourceRange | None = None


@dataclass
class ResourceConfig:
    addr: Resource
    module: ModulePath
    body: Body  # the resource's own arguments and nested blocks (meta-arguments removed)
    count: A.Expr | None = None
    for_each: A.Expr | None = None
    provider_ref: tuple[str, str | None] | None = None  # (local name, alias)
    provider_range: SourceRange | None = None
    depends_on: list[A.ScopeTraversal] = field(default_factory=list)
    lifecycle: Lifecycle = field(default_factory=Lifecycle)
    provisioners: list[Provisioner] = field(default_factory=list)
    range: SourceRange | None = None
    check_scope: str | None = None  # nested in this check block: its errors are warnings
    generated: bool = False  # plan -generate-config-out: no block yet; planned with generated config

    @property
    def provider_local_name(self) -> str:
        if self.provider_ref:
            return self.provider_ref[0]
        return self.addr.type.split("_", 1)[0]


@dataclass
class ModuleCall:
    name: str
    source: str
    body: Body  # inputs
    count: A.Expr | None = None
    for_each: A.Expr | None = None
    depends_on: list[A.ScopeTraversal] = field(default_factory=list)
    providers: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # child local -> parent ref
    range: SourceRange | None = None
    source_range: SourceRange | None = None


@dataclass
class ProviderBlock:
    name: str
    alias: str | None
    body: Body
    range: SourceRange
    version: tuple[str, SourceRange] | None = None  # the deprecated `version` argument


@dataclass
class Moved:
    from_addr: str
    to_addr: str
    range: SourceRange


@dataclass
class Removed:
    from_addr: str
    destroy: bool
    provisioners: list[Provisioner]
    range: SourceRange


@dataclass
class Import:
    """An import block: adopt an existing remote object at `to` during the plan. `to` is a
    static address whose instance keys may be expressions of each.key / each.value."""

    to: A.Expr
    id: A.Expr | None
    identity: A.Expr | None
    for_each: A.Expr | None
    provider_ref: tuple[str, str | None] | None
    range: SourceRange  # the `import` keyword (Terraform's DefRange)
    to_range: SourceRange | None = None


@dataclass
class Check:
    name: str
    asserts: list[CheckRule]
    data: list[ResourceConfig]
    range: SourceRange


@dataclass
class RequiredProvider:
    name: str
    source: str
    version: str = ""
    range: SourceRange | None = None  # the whole entry, where Terraform reports constraint problems


@dataclass
class Module:
    path: ModulePath
    dir: str
    variables: dict[str, Variable] = field(default_factory=dict)
    locals: dict[str, Local] = field(default_factory=dict)
    outputs: dict[str, Output] = field(default_factory=dict)
    resources: dict[Resource, ResourceConfig] = field(default_factory=dict)
    # ephemeral "TYPE" "NAME" blocks (mode "ephemeral"): opened per walk, never in state
    ephemeral_resources: dict[Resource, ResourceConfig] = field(default_factory=dict)
    module_calls: dict[str, ModuleCall] = field(default_factory=dict)
    providers: dict[tuple[str, str | None], ProviderBlock] = field(default_factory=dict)
    required_providers: dict[str, RequiredProvider] = field(default_factory=dict)
    required_version: list[tuple[str, SourceRange]] = field(default_factory=list)
    moved: list[Moved] = field(default_factory=list)
    removed: list[Removed] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    checks: dict[str, Check] = field(default_factory=dict)
    backend: tuple[str, Body] | None = None
    backend_range: SourceRange | None = None  # the backend block's header, for diagnostics
    cloud_range: SourceRange | None = None  # a terraform { cloud {} } block's header
    children: dict[str, "Module"] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)  # filename -> source text

    def descendants(self) -> list["Module"]:
        out = [self]
        for c in self.children.values():
            out.extend(c.descendants())
        return out

    def module_at(self, path: ModulePath) -> "Module | None":
        m: Module | None = self
        for name in path.path:
            m = m.children.get(name) if m else None
        return m


def static_value(expr: A.Expr | None) -> Any:
    """Evaluate an expression that must be constant (no references)."""
    if expr is None:
        return None
    from tfconsole.lang.eval import Scope, _NoData, evaluate

    val, diags = evaluate(expr, Scope(_NoData()))
    if diags.has_errors:
        raise ValueError(diags.errors()[0].detail or diags.errors()[0].summary)
    return val


def expr_as_keyword(expr: A.Expr) -> str | None:
    if isinstance(expr, A.ScopeTraversal) and not expr.steps:
        return expr.root
    if isinstance(expr, A.Literal) and isinstance(expr.value, str):
        return expr.value
    return None


def traversal_list(attr: Attribute | None, diags: Diagnostics, what: str) -> list[A.ScopeTraversal]:
    if attr is None:
        return []
    e = attr.expr
    if not isinstance(e, A.TupleCons):
        diags.error("Invalid expression", f"A static list expression is required for {what}.", attr.range)
        return []
    out = []
    for item in e.items:
        if isinstance(item, A.ScopeTraversal):
            out.append(item)
        else:
            diags.error("Invalid expression", "A single static variable reference is required: only attribute "
                        "access and indexing with constant keys. No calculations, function calls, template "
                        "expressions, etc are allowed here.", item.range or attr.range)
    return out


class IndexKey(str):
    """A string path step written as an index (tags["x"]), as opposed to an attribute (input.x)."""


def traversal_to_path(e: A.Expr) -> tuple | None:
    """ignore_changes entries: an attribute path like tags["x"] or input.a."""
    if isinstance(e, A.ScopeTraversal):
        path: list[Any] = [e.root]
        for s in e.steps:
            if isinstance(s, A.AttrStep):
                path.append(s.name)
            else:
                path.append(IndexKey(s.key) if isinstance(s.key, str) else s.key)
        return tuple(path)
    if isinstance(e, A.Literal) and isinstance(e.value, str):
        return tuple(e.value.split("."))
    return None


def decode_rule(b: Block, diags: Diagnostics) -> CheckRule | None:
    cond = b.body.attributes.get("condition")
    msg = b.body.attributes.get("error_message")
    if cond is None:
        diags.error("Missing required argument", f"The argument \"condition\" is required, but no definition "
                    "was found.", b.range)
        return None
    if msg is None and b.type != "assert":
        diags.error("Missing required argument", "The argument \"error_message\" is required, but no "
                    "definition was found.", b.range)
    return CheckRule(cond.expr, msg.expr if msg else None, b.range)


def check_default(v: Variable, lead: str = "This default value is not compatible with the variable's type "
                  "constraint") -> str | None:
    """What is wrong with a variable's default under its type and nullability, in Terraform's
    words (cty's conversion wording after `lead`), or None."""
    from tfconsole.lang.funcs import conversion_message
    from tfconsole.lang.values import ConversionError, convert, is_null, unmark

    try:
        dv = static_value(v.default)
    except ValueError as exc:  # not a constant
        return str(exc) if v.type_given else None
    if is_null(dv):
        return None if v.nullable else "A null default value is not valid when nullable=false."
    if not v.type_given:
        return None
    try:
        convert(dv, v.type)
    except ConversionError as exc:
        # cty's wording of the mismatch, after the path as Terraform formats a cty path
        where = _cty_path(exc.path, v.type)
        inner = ConversionError(exc.message, (), exc.want)
        sub = dv
        for step in exc.path:
            try:
                sub = unmark(sub)[0][step]
            except (KeyError, IndexError, TypeError):
                sub = None
                break
        return f"{lead}: {where + ': ' if where else ''}{conversion_message(inner, sub)}."
    except ValueError as exc:
        return str(exc)
    return None


def _cty_path(path: tuple, ty: Any) -> str:
    """A conversion error's path as Terraform prints one: `.attr` for an object's attribute,
    `["key"]` for a map's key, `[i]` for an index."""
    from tfconsole.lang import types as T

    out = ""
    for step in path:
        if isinstance(ty, T.ObjectType) and isinstance(step, str):
            out += f".{step}"
            ty = ty.attr_types.get(step, T.DYNAMIC)
        elif isinstance(step, str):
            out += f'["{step}"]'
            ty = getattr(ty, "elem", T.DYNAMIC)
        else:
            out += f"[{step}]"
            elems = getattr(ty, "elems", None)
            ty = elems[step] if elems is not None and step < len(elems) else getattr(ty, "elem", T.DYNAMIC)
    return out
