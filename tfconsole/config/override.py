"""Override files: `override.tf`, `*_override.tf` and their `.tf.json` forms.

Terraform loads a module's primary files first, then merges each override file over the result,
in lexical order of the file names. An override block changes a block the primary files already
declared (a resource, a variable, an output ...): the arguments it sets replace the original's;
the nested block types it has replace all of the original's blocks of those types (a `dynamic
"x"` block counts as type `x`); what it leaves out is kept. Overriding something that does not
exist is an error, and so are `depends_on`, `moved` and `import` in an override file.

The override file is decoded with the primary files' decoders into a module of its own; what the
override block *sets* is read from its parsed body, because a decoded default (an empty
description, `sensitive = false`) cannot say whether it was written.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator

from tfconsole.diags import Diagnostics

from .body import Block, Body
from .model import Module, check_default


def is_override_file(name: str) -> bool:
    stem = name[:-len(".tf.json")] if name.endswith(".tf.json") else name[:-len(".tf")]
    return stem == "override" or stem.endswith("_override")


def merge_bodies(base: Body, over: Body) -> Body:
    """Terraform's shallow body merge: the override's arguments replace the base's of the same
    name; a block type present in the override hides every base block of that type (static or
    dynamic); the override's blocks come after the base blocks kept."""
    hidden = {b.labels[0] if b.type == "dynamic" and b.labels else b.type for b in over.blocks}
    kept = [b for b in base.blocks
            if not (b.type in hidden or (b.type == "dynamic" and b.labels and b.labels[0] in hidden))]
    return Body({**base.attributes, **over.attributes}, kept + list(over.blocks), base.range)


def merge_file(mod: Module, body: Body, diags: Diagnostics, decoders: dict[str, Callable[..., Any]]) -> None:
    """Merge one override file's parsed body into `mod` (already holding every primary file)."""
    ov = Module(path=mod.path, dir=mod.dir)
    blocks: dict[str, list[Block]] = {}
    for name, attr in body.attributes.items():
        diags.error("Unsupported argument", f"An argument named \"{name}\" is not expected here.", attr.range)
    for b in body.blocks:
        fn = decoders.get(b.type)
        if fn is None:
            diags.error("Unsupported block type", f"Blocks of type \"{b.type}\" are not expected here.", b.range)
            continue
        if b.type in ("output", "module"):
            fn(ov, b, diags, override=True)
        elif b.type not in ("moved", "import"):
            fn(ov, b, diags)
        blocks.setdefault(b.type, []).append(b)
    # Terraform's order: the terraform block's settings, providers, variables, locals, outputs,
    # module calls, resources, data resources, then the blocks an override may not hold
    _terraform(mod, ov, blocks.get("terraform", []), diags)
    _providers(mod, ov, diags)
    _variables(mod, ov, blocks.get("variable", []), diags)
    _locals(mod, ov, diags)
    _outputs(mod, ov, blocks.get("output", []), diags)
    _module_calls(mod, ov, blocks.get("module", []), diags)
    for mode, kind in (("resource", "managed"), ("data", "data")):
        _resources(mod, ov, blocks.get(mode, []), kind, diags)
    for b in blocks.get("moved", []):
        diags.error("Cannot override 'moved' blocks",
                    "Records of moved objects can appear only in normal files, not in override files.", b.range)
    for b in blocks.get("import", []):
        diags.error("Cannot override 'import' blocks",
                    "Import blocks can appear only in normal files, not in override files.", b.range)


def _matched(base: dict, over: dict, blocks: list[Block], diags: Diagnostics, summary: str,
             detail: Callable[[Any], str]) -> Iterator[tuple[Any, Any, Block]]:
    """(original, override, override's parsed block) for each override of a labelled block
    (variable, output, module call); Terraform's error for one with no original."""
    raw = {b.labels[0]: b for b in blocks if b.labels}
    for name, o in over.items():
        if name not in base:
            diags.error(summary, detail(name), o.range)
            continue
        yield base[name], o, raw[name]


def _sets(b: Block, name: str) -> bool:
    return name in b.body.attributes


def _no_depends_on(b: Block, diags: Diagnostics) -> None:
    attr = b.body.attributes.get("depends_on")
    if attr is not None:
        items = getattr(attr.expr, "items", None)
        first = items[0].range if items and getattr(items[0], "range", None) else attr.range
        diags.error("Unsupported override", "The depends_on argument may not be overridden.", first)


def _terraform(mod: Module, ov: Module, blocks: list[Block], diags: Diagnostics) -> None:
    if ov.required_version:
        mod.required_version = list(ov.required_version)
    mod.required_providers.update(ov.required_providers)
    backends = [blk for b in blocks for blk in b.body.blocks if blk.type == "backend" and len(blk.labels) == 1]
    if backends:
        mod.backend, mod.backend_range, mod.cloud_range = ov.backend, ov.backend_range, None
    clouds = [blk for b in blocks for blk in b.body.blocks if blk.type == "cloud"]
    if clouds:
        mod.backend, mod.backend_range, mod.cloud_range = None, None, ov.cloud_range


def _providers(mod: Module, ov: Module, diags: Diagnostics) -> None:
    for key, p in ov.providers.items():
        base = mod.providers.get(key)
        if base is None:
            if key[1] is None:  # a default configuration may be added by an override file
                mod.providers[key] = p
                continue
            diags.error("Missing base provider configuration for override",
                        f"There is no {key[0]} provider configuration with the alias \"{key[1]}\". An override "
                        "file can only override an aliased provider configuration that was already defined in a "
                        "primary configuration file.", p.range)
            continue
        if p.version is not None:
            base.version = p.version
        base.body = merge_bodies(base.body, p.body)


def _variables(mod: Module, ov: Module, blocks: list[Block], diags: Diagnostics) -> None:
    for base, o, b in _matched(mod.variables, ov.variables, blocks, diags,
                               "Missing base variable declaration to override",
                               lambda name: f"There is no variable named \"{name}\". An override file can only "
                               "override a variable that was already declared in a primary configuration file."):
        for field in ("description", "sensitive", "ephemeral", "nullable"):
            if _sets(b, field):
                setattr(base, field, getattr(o, field))
        if _sets(b, "default"):
            base.default = o.default
        if o.type_given:
            base.type, base.type_given = o.type, True
        if base.default is not None:
            _check_default(base, o, _sets(b, "type"), _sets(b, "default"), diags)


def _check_default(v: Any, o: Any, type_set: bool, default_set: bool, diags: Diagnostics) -> None:
    """The merged variable's default against its merged type, with Terraform's wording of whose
    change made it invalid (reported at the override block)."""
    if type_set and not default_set:
        lead = "Overriding this variable's type constraint has made its default value invalid"
    elif default_set and not type_set:
        lead = "The overridden default value for this variable is not compatible with the variable's type constraint"
    else:
        lead = "This variable's default value is not compatible with its type constraint"
    problem = check_default(v, lead)
    if problem:
        diags.error("Invalid default value for variable", problem, o.range)


def _locals(mod: Module, ov: Module, diags: Diagnostics) -> None:
    for name, local in ov.locals.items():
        if name not in mod.locals:
            diags.error("Missing base local value definition to override",
                        f"There is no local value named \"{name}\". An override file can only override a local value "
                        "that was already defined in a primary configuration file.", local.range)
            continue
        mod.locals[name] = local


def _outputs(mod: Module, ov: Module, blocks: list[Block], diags: Diagnostics) -> None:
    for base, o, b in _matched(mod.outputs, ov.outputs, blocks, diags, "Missing base output definition to override",
                               lambda name: f"There is no output named \"{name}\". An override file can only "
                               "override an output that was already defined in a primary configuration file."):
        if o.description:
            base.description = o.description
        if o.expr is not None:
            base.expr = o.expr
        for field in ("sensitive", "ephemeral"):
            if _sets(b, field):
                setattr(base, field, getattr(o, field))
        _no_depends_on(b, diags)


def _module_calls(mod: Module, ov: Module, blocks: list[Block], diags: Diagnostics) -> None:
    for base, o, b in _matched(mod.module_calls, ov.module_calls, blocks, diags, "Missing module call to override",
                               lambda name: f"There is no module call named \"{name}\". An override file can only "
                               "override a module call that was defined in a primary configuration file."):
        if _sets(b, "source"):
            base.source, base.source_range = o.source, o.source_range
        if o.count is not None:
            base.count = o.count
        if o.for_each is not None:
            base.for_each = o.for_each
        base.body = merge_bodies(base.body, o.body)
        if o.providers:
            base.providers = dict(o.providers)
        _no_depends_on(b, diags)


def _resources(mod: Module, ov: Module, blocks: list[Block], mode: str, diags: Diagnostics) -> None:
    raw = {(b.labels[0], b.labels[1]): b for b in blocks if len(b.labels) == 2}
    for addr, o in ov.resources.items():
        if addr.mode != mode:
            continue
        base = mod.resources.get(addr)
        if base is None:
            kind = "resource" if mode == "managed" else "data resource"
            block = "resource" if mode == "managed" else "data"
            diags.error(f"Missing {kind} to override",
                        f"There is no {addr.type} {kind} named \"{addr.name}\". An override file can only override a "
                        f"{block} block defined in a primary configuration file.", o.range)
            continue
        b = raw[(addr.type, addr.name)]
        if o.count is not None:
            base.count = o.count
        if o.for_each is not None:
            base.for_each = o.for_each
        if o.provider_ref is not None:
            base.provider_ref, base.provider_range = o.provider_ref, o.provider_range
        if mode == "managed":
            _lifecycle(base, o, b)
            if o.provisioners:
                base.provisioners = list(o.provisioners)
        base.body = merge_bodies(base.body, o.body)
        _no_depends_on(b, diags)


def _lifecycle(base: Any, o: Any, b: Block) -> None:
    """What an override's lifecycle block sets: create_before_destroy, prevent_destroy and a
    non-empty ignore_changes (Terraform merges no other lifecycle argument)."""
    sets = {name for lb in b.body.blocks if lb.type == "lifecycle" for name in lb.body.attributes}
    lc, olc = base.lifecycle, o.lifecycle
    if "create_before_destroy" in sets:
        lc.create_before_destroy, lc.cbd_set = olc.create_before_destroy, True
    if "prevent_destroy" in sets:
        lc.prevent_destroy = olc.prevent_destroy
    if olc.ignore_changes:
        lc.ignore_changes, lc.ignore_changes_range = olc.ignore_changes, olc.ignore_changes_range
