"""`dynamic` blocks: a nested block written once and generated for each element of a collection.

    dynamic "tag" {                    # the block type it generates
      for_each = var.tags              # any collection (required)
      iterator = t                     # the iteration variable's name (default: the block type)
      content {                        # the body of each generated block
        key   = t.key
        value = t.value
      }
    }

Expanding follows HCL's dynblock extension, which Terraform uses for every resource, data
source, ephemeral resource and provider body:

- the generated blocks take the dynamic block's place among the static blocks of that type, in
  the collection's iteration order (list index, sorted map or object keys, set order);
- inside `content`, the iterator is an object `{key, value}`, visible to nested dynamic blocks
  too (their `for_each` may use it);
- when `for_each` is not known yet, the whole collection of blocks of that type is unknown;
- when `for_each` is marked (sensitive), each generated block and each attribute set in it
  carries the mark.

This module decodes a dynamic block's own body and yields what each generated block is
evaluated with; graph/nodes/resource.evaluate_body decodes the bodies against the schema.
"""
from __future__ import annotations

from typing import Any, Iterator

from tfconsole.diags import Diagnostics, SourceRange
from tfconsole.lang import ast as A

from .body import Block, Body

DYNAMIC = "dynamic"


class Generated:
    """One block a body holds, static or generated: its type, its body, the scope its
    expressions see, the marks every attribute and the block itself get (0: none), and
    whether it stands for an unknown number of blocks."""

    __slots__ = ("type", "body", "scope", "marks", "unknown", "range")

    def __init__(self, type_: str, body: Body, scope: Any, marks: int, unknown: bool, rng: SourceRange):
        self.type = type_
        self.body = body
        self.scope = scope
        self.marks = marks
        self.unknown = unknown
        self.range = rng


def is_dynamic(blk: Block) -> bool:
    return blk.type == DYNAMIC and len(blk.labels) == 1


def iterator_names(body: Body) -> set[str]:
    """Every iterator name the dynamic blocks of body (at any depth) declare: references to
    them are iteration variables, not resources."""
    out: set[str] = set()
    for blk in body.blocks:
        if is_dynamic(blk):
            name, _ = _iterator_name(blk)
            if name:
                out.add(name)
            for inner in blk.body.blocks:
                if inner.type == "content":
                    out |= iterator_names(inner.body)
        else:
            out |= iterator_names(blk.body)
    return out


def _iterator_name(blk: Block) -> tuple[str | None, Diagnostics]:
    diags = Diagnostics()
    attr = blk.body.attributes.get("iterator")
    if attr is None:
        return blk.labels[0], diags
    e = attr.expr
    if type(e) is not A.ScopeTraversal:
        diags.error("Invalid expression", "A single static variable reference is required: only attribute access "
                    "and indexing with constant keys. No calculations, function calls, template expressions, etc "
                    "are allowed here.", e.range or attr.range)
        return None, diags
    if e.steps:
        diags.error("Invalid dynamic iterator name", "Dynamic iterator must be a single variable name.",
                    e.range or attr.range)
        return None, diags
    return e.root, diags


def _spec(blk: Block, addr: str) -> tuple[Any, Diagnostics]:
    """(for_each attribute, iterator name, content block) of a dynamic block, or None with errors."""
    diags = Diagnostics()
    body = blk.body
    for name, attr in body.attributes.items():
        if name not in ("for_each", "iterator"):
            diags.error("Unsupported argument", f"An argument named \"{name}\" is not expected here.",
                        attr.name_range, address=addr)
    for inner in body.blocks:
        if inner.type != "content":
            diags.error("Unsupported block type", f"Blocks of type \"{inner.type}\" are not expected here.",
                        inner.range, address=addr)
        elif inner.labels:
            diags.error("Extraneous label for content", "No labels are expected for content blocks.",
                        inner.range, address=addr)
    each = body.attributes.get("for_each")
    if each is None:
        diags.error("Missing required argument", "The argument \"for_each\" is required, but no definition was "
                    "found.", blk.range, address=addr)
    if diags.has_errors:
        return None, diags
    iterator, d = _iterator_name(blk)
    diags.extend(d)
    contents = [b for b in body.blocks if b.type == "content"]
    if not contents:
        diags.error("Missing dynamic content block", "A dynamic block must have a nested block of type \"content\" "
                    "to describe the body of each generated block.", blk.range, address=addr)
    elif len(contents) > 1:
        diags.error("Extraneous dynamic content block", "Only one nested content block is allowed for each "
                    "dynamic block.", contents[1].range, address=addr)
    if diags.has_errors:
        return None, diags
    return (each, iterator, contents[0]), diags


def _iterable() -> tuple:
    from tfconsole.lang import types as T

    return (T.ListType, T.SetType, T.MapType, T.ObjectType, T.TupleType, T.DynamicType)


def _elements(coll: Any) -> list[tuple[Any, Any]]:
    """(key, value) pairs in cty's iteration order."""
    from tfconsole.lang.values import TMap, TSet

    t = type(coll)
    if t is TMap:
        return list(coll.items())
    if t is dict:
        return sorted(coll.items())
    if t is TSet:
        return [(v, v) for v in coll]
    return list(enumerate(coll))


def expand(body: Body, scope: Any, addr: str, known_types: Any) -> tuple[list[Generated], Diagnostics]:
    """The blocks of body, static and generated, in source order. known_types holds the block
    types the schema has; a dynamic block of another type is an error, as a static one is."""
    from tfconsole.lang.eval import evaluate
    from tfconsole.lang.types import DYNAMIC as DYNAMIC_TYPE
    from tfconsole.lang.values import Unknown, is_null, type_of, unmark

    diags = Diagnostics()
    out: list[Generated] = []
    for blk in body.blocks:
        if not is_dynamic(blk):
            out.append(Generated(blk.type, blk.body, scope, 0, False, blk.range))
            continue
        kind = blk.labels[0]
        if kind not in known_types:
            diags.error("Unsupported block type", f"Blocks of type \"{kind}\" are not expected here.", blk.range,
                        address=addr)
            continue
        spec, d = _spec(blk, addr)
        diags.extend(d)
        if spec is None:
            continue
        each_attr, iterator, content_block = spec
        # a generated block's body is the content block's, and so is where HCL's decoder points
        # at a generated block (too many of them, a required argument missing in one)
        content, at = content_block.body, content_block.range
        value, d = evaluate(each_attr.expr, scope)
        diags.extend(d)
        if d.has_errors:
            continue
        coll, marks = unmark(value)
        rng = each_attr.expr.range or each_attr.range
        if type(coll) is Unknown:
            it = scope.child({iterator: Unknown(DYNAMIC_TYPE)})
            out.append(Generated(kind, content, it, marks, True, at))
            continue
        ty = type_of(coll)
        if not isinstance(ty, _iterable()):
            diags.error("Invalid dynamic for_each value",
                        f"Cannot use a {ty.friendly()} value in for_each. An iterable collection is required.", rng,
                        address=addr)
            continue
        if is_null(coll):
            diags.error("Invalid dynamic for_each value", "Cannot use a null value in for_each.", rng, address=addr)
            continue
        for key, elem in _elements(coll):
            it = scope.child({iterator: {"key": key, "value": elem}})
            out.append(Generated(kind, content, it, marks, False, at))
    return out, diags


def blocks_for_check(body: Body) -> Iterator[tuple[str, Body, Block]]:
    """(block type, body, source block) of each block as written, for static checks: a dynamic
    block stands for its type with its content body. A dynamic block whose own body is wrong
    (no for_each, no content...) is left out: expanding it reports that, in the validate walk,
    where Terraform reports it."""
    for blk in body.blocks:
        if is_dynamic(blk):
            spec, _ = _spec(blk, "")
            if spec is not None:
                yield blk.labels[0], spec[2].body, blk
        else:
            yield blk.type, blk.body, blk
