"""Static validation of a loaded configuration: references name declared objects, resource
arguments fit their provider schemas. What `validate` reports without evaluating anything.

It needs provider schemas, so it takes a schema lookup function; it never configures providers.
"""
from __future__ import annotations

from typing import Callable

from tfconsole.diags import Diagnostics
from tfconsole.lang import ast as A
from tfconsole.providers.interface import BlockSchema, Schema

from . import dynblock
from .body import Body
from .model import Module, ResourceConfig

SchemaLookup = Callable[[Module, ResourceConfig], "Schema | None"]


def validate_module_tree(root: Module, schema_for: SchemaLookup) -> Diagnostics:
    diags = Diagnostics()
    for mod in root.descendants():
        for rc in mod.resources.values():
            schema = schema_for(mod, rc)
            if schema is not None:
                _check_body(rc.body, schema.block, diags, rc)
                _check_ignore_changes(rc, schema.block, diags)
            _check_refs(mod, _exprs_of_resource(rc), diags, own=rc, iterators=dynblock.iterator_names(rc.body))
        for loc in mod.locals.values():
            _check_refs(mod, [loc.expr], diags)
        for out in mod.outputs.values():
            _check_refs(mod, [out.expr] + [r.condition for r in out.preconditions], diags)
        for call in mod.module_calls.values():
            _check_refs(mod, [a.expr for a in call.body.attributes.values()] + [call.count, call.for_each], diags)
        for pb in mod.providers.values():
            _check_refs(mod, [a.expr for a in pb.body.attributes.values()], diags)
        for chk in mod.checks.values():
            _check_refs(mod, [r.condition for r in chk.asserts], diags)
    return diags


def _exprs_of_resource(rc: ResourceConfig) -> list[A.Expr | None]:
    out: list[A.Expr | None] = [rc.count, rc.for_each]

    def walk(body: Body) -> None:
        out.extend(a.expr for a in body.attributes.values())
        for b in body.blocks:
            walk(b.body)

    walk(rc.body)
    for r in rc.lifecycle.preconditions + rc.lifecycle.postconditions:
        out.append(r.condition)
    return out


def _check_ignore_changes(rc: ResourceConfig, schema: BlockSchema, diags: Diagnostics) -> None:
    ic = rc.lifecycle.ignore_changes
    if ic == "all" or not ic:
        return
    rng = rc.lifecycle_range if hasattr(rc, "lifecycle_range") else rc.range
    for path in ic:
        name = path[0] if path else None
        if name is not None and name not in schema.attributes and name not in schema.blocks:
            diags.error("Unsupported attribute", f"This object has no argument, nested block, or exported attribute "
                        f"named \"{name}\".", rc.lifecycle.ignore_changes_range or rng)


def _check_body(body: Body, schema: BlockSchema, diags: Diagnostics, rc: ResourceConfig) -> None:
    addr = rc.module.prefix() + str(rc.addr)
    for name, attr in body.attributes.items():
        s = schema.attributes.get(name)
        if s is None:
            hint = f" Did you mean to define a block of type \"{name}\"?" if name in schema.blocks else ""
            diags.error("Unsupported argument", f"An argument named \"{name}\" is not expected here.{hint}",
                        attr.name_range, address=addr)
        elif s.computed and not s.optional and not s.required:
            diags.error("Invalid Configuration for Read-Only Attribute",
                        "Cannot set value for this attribute as the provider has marked it as read-only. Remove the "
                        "configuration line setting the value.", attr.range, address=addr)
    for name, s in schema.attributes.items():
        if s.required and name not in body.attributes:
            diags.error("Missing required argument",
                        f"The argument \"{name}\" is required, but no definition was found.", rc.range, address=addr)
    for kind, inner, blk in dynblock.blocks_for_check(body):
        nb = schema.blocks.get(kind)
        if nb is None and dynblock.is_dynamic(blk):
            continue  # expanding it reports this, in the validate walk (where Terraform does)
        if nb is None:
            diags.error("Unsupported block type", f"Blocks of type \"{kind}\" are not expected here.",
                        blk.range, address=addr)
        else:
            _check_body(inner, nb.block, diags, rc)


def _check_refs(mod: Module, exprs: list[A.Expr | None], diags: Diagnostics,
                own: ResourceConfig | None = None, iterators: set[str] = frozenset()) -> None:  # type: ignore[assignment]
    where = "the root module" if mod.path.is_root else str(mod.path)
    for e in exprs:
        if e is None:
            continue
        for ref in A.references(e):
            root, steps = ref.root, ref.steps
            if root in iterators:  # a dynamic block's iteration variable
                continue
            first = steps[0].name if steps and isinstance(steps[0], A.AttrStep) else None
            if root == "var" and first and first not in mod.variables:
                diags.error("Reference to undeclared input variable",
                            f"An input variable with the name \"{first}\" has not been declared. This variable can "
                            f"be declared with a variable \"{first}\" {{}} block.", ref.range)
            elif root == "local" and first and first not in mod.locals:
                diags.error("Reference to undeclared local value",
                            f"A local value with the name \"{first}\" has not been declared.", ref.range)
            elif root == "module" and first and first not in mod.module_calls:
                diags.error("Reference to undeclared module",
                            f"No module call named \"{first}\" is declared in {where}.", ref.range)
            elif root == "data" and len(steps) >= 2 and all(isinstance(s, A.AttrStep) for s in steps[:2]):
                from tfconsole.addrs import Resource

                r = Resource("data", steps[0].name, steps[1].name)  # type: ignore[union-attr]
                if r not in mod.resources:
                    diags.error("Reference to undeclared resource",
                                f"A data resource \"{r.type}\" \"{r.name}\" has not been declared in {where}.",
                                ref.range)
            elif root not in ("var", "local", "module", "data", "count", "each", "path", "terraform", "self") \
                    and first and "_" in root:
                from tfconsole.addrs import Resource

                r = Resource("managed", root, first)
                if r not in mod.resources:
                    diags.error("Reference to undeclared resource",
                                f"A managed resource \"{root}\" \"{first}\" has not been declared in {where}.",
                                ref.range)
