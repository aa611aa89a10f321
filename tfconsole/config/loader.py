"""Loads a root module directory and its local child modules into the typed model.

Every problem becomes a Diagnostic with file:line; a broken file never raises.
"""
from __future__ import annotations

import os
from typing import Any

from tfconsole.addrs import Module as ModulePath
from tfconsole.addrs import Resource
from tfconsole.diags import Diagnostics, Pos, SourceRange
from tfconsole.lang import ast as A
from tfconsole.lang.eval import evaluate_constant
from tfconsole.lang.typeexpr import type_constraint

from .body import Attribute, Block, Body, parse_json_file
from .override import is_override_file
from .override import merge_file as merge_override
from .parse_cache import parse_file_cached
from .model import (
    Check, Import, LazyLocal, Lifecycle, Module, ModuleCall, Moved, Output, ProviderBlock, Provisioner, Removed,
    RequiredProvider, ResourceConfig, Variable, check_default, decode_rule, expr_as_keyword, static_value, traversal_list,
    traversal_to_path,
)

RESOURCE_META = {"count", "for_each", "provider", "depends_on"}
MODULE_META = {"source", "version", "count", "for_each", "depends_on", "providers"}


def load_config(root_dir: str) -> tuple[Module | None, Diagnostics]:
    diags = Diagnostics()
    if not os.path.isdir(root_dir):
        diags.error("No configuration directory", f"The directory {root_dir} does not exist.")
        return None, diags
    root = _load_module(root_dir, ModulePath(), diags, root_dir, stack=(), texts={})
    diags.append(check_core_version(root))
    return root, diags


def check_core_version(root: Module, version: str | None = None) -> Diagnostics:
    """Every module's required_version against the Terraform release tfconsole is compatible with."""
    diags = Diagnostics()
    if not _any_required_version(root):
        return diags  # without loading the version parser
    from tfconsole import TERRAFORM_VERSION
    from tfconsole.providers.plugin.versions import loose_string, parse_loose, parse_version

    current = version or TERRAFORM_VERSION
    v = parse_version(current)
    calls = {(): ""}

    def visit(mod: Module, path: tuple[str, ...]) -> None:
        for text, rng in mod.required_version:
            cs = parse_loose(text)
            pre = [c for c in cs.items if c.prerelease]
            for c in pre:
                diags.error("Invalid required_version constraint", "Prerelease version constraints are not supported: "
                            f"{loose_string(c)}. Remove the prerelease information from the constraint. Prerelease "
                            "versions of terraform will match constraints using their version core only.", rng)
            if pre or cs.allows(v, core=True):
                continue
            if not path:
                what = "This configuration does not"
            else:
                what = f"Module {'.'.join('module.' + p for p in path)} (from {calls[path]}) does not"
            diags.error("Unsupported Terraform Core version", f"{what} support Terraform version {current}. To "
                        "proceed, either choose another supported Terraform version or update this version "
                        "constraint. Version constraints are normally set for good reason, so updating the "
                        "constraint may lead to other errors or unexpected behavior.", rng)
        for name in sorted(mod.children):
            call = mod.module_calls.get(name)
            calls[path + (name,)] = call.source if call else ""
            visit(mod.children[name], path + (name,))

    visit(root, ())
    return diags


def _any_required_version(mod: Module) -> bool:
    return bool(mod.required_version) or any(_any_required_version(c) for c in mod.children.values())


def _rel(path: str, root_dir: str) -> str:
    rel = os.path.relpath(path, root_dir)
    return rel


def _load_module(directory: str, path: ModulePath, diags: Diagnostics, root_dir: str,
                 stack: tuple[str, ...], texts: dict[str, str]) -> Module:
    """One module, its children loaded the same way. `texts`: the files this load has read,
    by path: a module called six times is read once (and its text, one object, is hashed once
    for the parse cache)."""
    mod = Module(path=path, dir=directory)
    try:
        names = sorted(os.listdir(directory))
    except OSError as exc:
        diags.error("Failed to read module directory", f"Module directory {directory} could not be read: {exc}")
        return mod
    files = [n for n in names if (n.endswith(".tf") or n.endswith(".tf.json")) and
             os.path.isfile(os.path.join(directory, n)) and not n.startswith(".")]
    overrides = [n for n in files if is_override_file(n)]  # merged after every primary file
    bodies: list[Body] = []
    for name in [n for n in files if not is_override_file(n)] + overrides:
        full = os.path.join(directory, name)
        display = _rel(full, root_dir)
        text = texts.get(full)
        if text is None:
            text = _read_config_file(full, display, diags)
            if text is None:
                continue
            texts[full] = text
        mod.files[display] = text
        if name.endswith(".json"):
            body, d = parse_json_file(text, display)
        else:
            body, d = parse_file_cached(text, display)
        diags.append(d)
        if body is None:
            continue
        if is_override_file(name):
            bodies.append(body)
        else:
            _decode_file(mod, body, diags)
    for body in bodies:
        merge_override(mod, body, diags, _DECODERS)
    if not files and path.is_root:
        pass
    # child modules
    for call in mod.module_calls.values():
        src = call.source
        if not (src.startswith("./") or src.startswith("../")):
            diags.error("Module not installed" if "/" in src else "Invalid module source address",
                        f"Module \"{call.name}\" has source {src!r}: only local module paths (starting with ./ "
                        "or ../) are supported by tfconsole.", call.source_range or call.range)
            continue
        child_dir = os.path.normpath(os.path.join(directory, src))
        if not os.path.isdir(child_dir):
            diags.error("Unreadable module directory",
                        f"The directory {_rel(child_dir, root_dir)} does not exist or cannot be read.",
                        call.source_range or call.range)
            continue
        real = os.path.realpath(child_dir)
        if real in stack:
            diags.error("Module cycle", f"Module \"{call.name}\" calls itself through {src}.", call.range)
            continue
        mod.children[call.name] = _load_module(child_dir, path.child(call.name), diags, root_dir,
                                               stack + (os.path.realpath(directory),), texts)
    return mod


# Terraform reads files of any size; tfconsole refuses bigger ones up front, so that a stray
# generated or binary file costs a diagnostic, not minutes and gigabytes (the parser has a token
# limit too: hcl_parser.MAX_TOKENS).
MAX_CONFIG_FILE_BYTES = 16 * 1024 * 1024


def _read_config_file(full: str, display: str, diags: Diagnostics) -> str | None:
    """The text of one configuration file, or None with a diagnostic: unreadable, too large, or
    not UTF-8 (naming the line of the first bad byte)."""
    try:
        with open(full, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            raw = fh.read(MAX_CONFIG_FILE_BYTES + 1) if size <= MAX_CONFIG_FILE_BYTES else b""
    except OSError as exc:
        diags.error("Failed to read file", f"The file {display} could not be read: {exc.strerror or exc}.",
                    SourceRange(display, _p(1), _p(1)))
        return None
    if size > MAX_CONFIG_FILE_BYTES or len(raw) > MAX_CONFIG_FILE_BYTES:
        diags.error("Configuration file too large",
                    f"The file {display} is {max(size, len(raw)) / 1048576:.1f} MB; tfconsole reads configuration "
                    f"files of at most {MAX_CONFIG_FILE_BYTES // 1048576} MB.", SourceRange(display, _p(1), _p(1)))
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        at = exc.start
        line_start = raw.rfind(b"\n", 0, at) + 1
        pos = Pos(raw.count(b"\n", 0, at) + 1, len(raw[line_start:at].decode("utf-8", "replace")) + 1, at)
        diags.error("Invalid character encoding",
                    "All input files must be UTF-8 encoded. Ensure that UTF-8 encoding is selected in your editor.",
                    SourceRange(display, pos, Pos(pos.line, pos.column + 1, at + 1)))
        return None


def _p(line: int) -> Any:
    from tfconsole.diags import Pos

    return Pos(line, 1)


def _decode_file(mod: Module, body: Body, diags: Diagnostics) -> None:
    for name, attr in body.attributes.items():
        diags.error("Unsupported argument", f"An argument named \"{name}\" is not expected here.", attr.range)
    for b in body.blocks:
        fn = _DECODERS.get(b.type)
        if fn is None:
            diags.error("Unsupported block type", f"Blocks of type \"{b.type}\" are not expected here.", b.range)
            continue
        fn(mod, b, diags)


def _need_labels(b: Block, n: int, names: str, diags: Diagnostics) -> bool:
    if len(b.labels) != n:
        where = b.range
        body = getattr(b.body, "range", None)
        if len(b.labels) < n and body is not None and body.start.column > 1:
            # a missing label is reported at the opening brace, where HCL expected it
            where = SourceRange(body.filename, Pos(body.start.line, body.start.column - 1, body.start.byte - 1),
                                body.start)
        diags.error(f"{'Missing' if len(b.labels) < n else 'Extraneous'} name for {b.type}" if n else
                    "Extraneous label for " + b.type,
                    f"All {b.type} blocks must have {n} labels ({names})." if n else
                    f"No labels are expected for {b.type} blocks.", where)
        return False
    for lbl in b.labels:
        if not _valid_name(lbl):
            diags.error("Invalid name" if b.type != "resource" else "Invalid resource name",
                        f"A name must start with a letter or underscore and may contain only letters, digits, "
                        f"underscores, and dashes.", b.range)
            return False
    return True


def _valid_name(s: str) -> bool:
    import re

    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", s))


def _check_attrs(body: Body, allowed: set[str], diags: Diagnostics, blocks: set[str] = frozenset()) -> None:
    for name, attr in body.attributes.items():
        if name not in allowed:
            diags.error("Unsupported argument", f"An argument named \"{name}\" is not expected here.",
                        attr.name_range)
    for b in body.blocks:
        if b.type not in blocks:
            diags.error("Unsupported block type", f"Blocks of type \"{b.type}\" are not expected here.", b.range)


def _static(attr: Attribute | None, diags: Diagnostics, default: Any = None, what: str = "") -> Any:
    if attr is None:
        return default
    try:
        return static_value(attr.expr)
    except ValueError as exc:
        diags.error("Invalid expression" if not what else f"Invalid {what}", str(exc), attr.range)
        return default


def _static_bool(attr: Attribute | None, diags: Diagnostics, default: bool = False) -> bool:
    v = _static(attr, diags, default)
    if isinstance(v, bool):
        return v
    if v is None:
        return default
    diags.error("Incorrect attribute value type", "Inappropriate value for attribute: bool required.",
                attr.range if attr else None)
    return default


def _static_str(attr: Attribute | None, diags: Diagnostics, default: str = "") -> str:
    v = _static(attr, diags, default)
    if isinstance(v, str):
        return v
    if v is None:
        return default
    diags.error("Incorrect attribute value type", "Inappropriate value for attribute: string required.",
                attr.range if attr else None)
    return default


# ---------------------------------------------------------------------------
# block decoders


def _variable(mod: Module, b: Block, diags: Diagnostics) -> None:
    if not _need_labels(b, 1, "name", diags):
        return
    name = b.labels[0]
    if name in mod.variables:
        diags.error("Duplicate variable declaration",
                    f"A variable named \"{name}\" was already declared at {mod.variables[name].range}. Variable "
                    "names must be unique within a module.", b.range)
        return
    if name in ("source", "version", "providers", "count", "for_each", "lifecycle", "depends_on", "locals"):
        diags.error("Invalid variable name", f"The variable name \"{name}\" is reserved due to its special "
                    "meaning inside module blocks.", b.range)
        return
    body = b.body
    _check_attrs(body, {"type", "default", "description", "sensitive", "nullable", "ephemeral"}, diags,
                 {"validation"})
    v = Variable(name=name, range=b.range)
    if "type" in body.attributes:
        ty, d = type_constraint(body.attributes["type"].expr, evaluate_constant, legacy=True)
        diags.append(d)
        v.type = ty
        v.type_given = True
    if "default" in body.attributes:
        v.default = body.attributes["default"].expr
    v.description = _static_str(body.attributes.get("description"), diags)
    v.sensitive = _static_bool(body.attributes.get("sensitive"), diags)
    v.nullable = _static_bool(body.attributes.get("nullable"), diags, True)
    if v.default is not None:
        default_problem = check_default(v)
        if default_problem:
            diags.error("Invalid default value for variable", default_problem, body.attributes["default"].range)
    v.ephemeral = _static_bool(body.attributes.get("ephemeral"), diags)
    for vb in body.blocks_of("validation"):
        _check_attrs(vb.body, {"condition", "error_message"}, diags)
        rule = decode_rule(vb, diags)
        if rule:
            v.validations.append(rule)
    mod.variables[name] = v


def _locals(mod: Module, b: Block, diags: Diagnostics) -> None:
    for blk in b.body.blocks:
        diags.error("Unsupported block type", f"Blocks of type \"{blk.type}\" are not expected here.", blk.range)
    for name, attr in b.body.attributes.items():
        if name in mod.locals:
            diags.error("Duplicate local value definition",
                        f"A local value named \"{name}\" was already defined at {mod.locals[name].range}. Local "
                        "value names must be unique within a module.", attr.range)
            continue
        mod.locals[name] = LazyLocal(name, attr, attr.range)


def _output(mod: Module, b: Block, diags: Diagnostics, override: bool = False) -> None:
    if not _need_labels(b, 1, "name", diags):
        return
    name = b.labels[0]
    if name in mod.outputs:
        diags.error("Duplicate output definition",
                    f"An output named \"{name}\" was already defined at {mod.outputs[name].range}. Output names "
                    "must be unique within a module.", b.range)
        return
    body = b.body
    _check_attrs(body, {"value", "sensitive", "description", "depends_on", "ephemeral"}, diags, {"precondition"})
    value = body.attributes.get("value")
    if value is None and not override:  # an override file's output may leave the value as it was
        diags.error("Missing required argument", "The argument \"value\" is required, but no definition was "
                    "found.", b.range)
    out = Output(name=name, expr=value.expr if value else None, range=b.range)
    out.sensitive = _static_bool(body.attributes.get("sensitive"), diags)
    out.ephemeral = _static_bool(body.attributes.get("ephemeral"), diags)
    out.description = _static_str(body.attributes.get("description"), diags)
    out.depends_on = traversal_list(body.attributes.get("depends_on"), diags, "depends_on")
    for pb in body.blocks_of("precondition"):
        rule = decode_rule(pb, diags)
        if rule:
            out.preconditions.append(rule)
    mod.outputs[name] = out


def _provisioner(b: Block, diags: Diagnostics) -> Provisioner | None:
    if len(b.labels) != 1:
        diags.error("Missing provisioner type", "A provisioner block must have one label: the provisioner type.",
                    b.range)
        return None
    # the parsed body may be shared (a module called several times is parsed once): read the
    # meta-arguments without taking them out of it
    when = b.body.attributes.get("when")
    on_failure = b.body.attributes.get("on_failure")
    when_destroy = False
    if when is not None:
        kw = expr_as_keyword(when.expr)
        if kw not in ("destroy", "create"):
            diags.error("Invalid \"when\" keyword", "The \"when\" argument requires one of the following "
                        "keywords: create or destroy.", when.range)
        when_destroy = kw == "destroy"
    cont = False
    if on_failure is not None:
        kw = expr_as_keyword(on_failure.expr)
        if kw not in ("continue", "fail"):
            diags.error("Invalid \"on_failure\" keyword", "The \"on_failure\" argument requires one of the "
                        "following keywords: continue or fail.", on_failure.range)
        cont = kw == "continue"
    return Provisioner(b.labels[0], _without(b.body, ("when", "on_failure")), when_destroy, cont, b.range)


def _without(body: Body, names: tuple[str, ...]) -> Body:
    """A copy of `body` without the named attributes (the parsed body itself is not changed)."""
    return Body({k: v for k, v in body.attributes.items() if k not in names}, body.blocks, body.range)


def _resource(mod: Module, b: Block, diags: Diagnostics, mode: str = "managed") -> ResourceConfig | None:
    if not _need_labels(b, 2, "type, name", diags):
        return None
    addr = Resource(mode, b.labels[0], b.labels[1])
    table = mod.ephemeral_resources if mode == "ephemeral" else mod.resources
    if addr in table:
        prev = table[addr]
        kind = {"managed": "resource", "data": "data"}.get(mode, mode)
        diags.error(f"Duplicate {kind} \"{addr.type}\" configuration",
                    f"A {addr.type} {'resource' if mode == 'managed' else mode + ' resource'} named "
                    f"\"{addr.name}\" was already declared at {prev.range.long()}. Resource names "
                    "must be unique per type in each module.", b.range)
        return None
    body = b.body
    rc = ResourceConfig(addr=addr, module=mod.path, body=Body(range=body.range), range=b.range)
    for name, attr in body.attributes.items():
        if name == "count":
            rc.count = attr.expr
        elif name == "for_each":
            rc.for_each = attr.expr
        elif name == "provider":
            ref = _provider_ref(attr, diags)
            if ref:
                rc.provider_ref = ref
                rc.provider_range = attr.range
        elif name == "depends_on":
            rc.depends_on = traversal_list(attr, diags, "depends_on")
        else:
            rc.body.attributes[name] = attr
    if rc.count is not None and rc.for_each is not None:
        diags.error("Invalid combination of \"count\" and \"for_each\"",
                    "The \"count\" and \"for_each\" meta-arguments are mutually-exclusive, only one should be "
                    "used to be explicit about the number of resources to be created.",
                    body.attributes["for_each"].range)
    for blk in body.blocks:
        if blk.type == "lifecycle":
            rc.lifecycle = _lifecycle(blk, diags, mode)
        elif blk.type == "provisioner" and mode == "managed":
            p = _provisioner(blk, diags)
            if p:
                rc.provisioners.append(p)
        elif blk.type == "connection" and mode == "managed":
            continue
        else:
            rc.body.blocks.append(blk)
    table[addr] = rc
    return rc


def _data(mod: Module, b: Block, diags: Diagnostics) -> None:
    _resource(mod, b, diags, "data")


def _ephemeral(mod: Module, b: Block, diags: Diagnostics) -> None:
    _resource(mod, b, diags, "ephemeral")


def _provider_ref(attr: Attribute, diags: Diagnostics) -> tuple[str, str | None] | None:
    e = attr.expr
    if isinstance(e, A.ScopeTraversal) and len(e.steps) <= 1 and all(isinstance(s, A.AttrStep) for s in e.steps):
        return (e.root, e.steps[0].name if e.steps else None)
    if isinstance(e, A.Literal) and isinstance(e.value, str):
        parts = e.value.split(".")
        return (parts[0], parts[1] if len(parts) > 1 else None)
    diags.error("Invalid provider reference", "Provider argument requires a provider name followed by an optional "
                "alias, like \"aws.foo\".", attr.range)
    return None


def _lifecycle(b: Block, diags: Diagnostics, mode: str) -> Lifecycle:
    lc = Lifecycle()
    body = b.body
    allowed = {"create_before_destroy", "prevent_destroy", "ignore_changes", "replace_triggered_by"} \
        if mode == "managed" else set()
    _check_attrs(body, allowed, diags, {"precondition", "postcondition"})
    if "create_before_destroy" in body.attributes:
        lc.create_before_destroy = _static_bool(body.attributes["create_before_destroy"], diags)
        lc.cbd_set = True
    lc.prevent_destroy = _static_bool(body.attributes.get("prevent_destroy"), diags)
    ic = body.attributes.get("ignore_changes")
    if ic is not None:
        lc.ignore_changes_range = ic.range
        kw = expr_as_keyword(ic.expr)
        if kw == "all":
            lc.ignore_changes = "all"
        elif isinstance(ic.expr, A.TupleCons):
            paths = []
            for item in ic.expr.items:
                p = traversal_to_path(item)
                if p is None:
                    diags.error("Invalid expression", "A single static variable reference is required: only "
                                "attribute access and indexing with constant keys.", item.range or ic.range)
                else:
                    paths.append(p)
            lc.ignore_changes = paths
        else:
            diags.error("Invalid ignore_changes", "The ignore_changes argument must be a list of attribute "
                        "references or the keyword \"all\".", ic.range)
    rtb = body.attributes.get("replace_triggered_by")
    if rtb is not None:
        if isinstance(rtb.expr, A.TupleCons):
            lc.replace_triggered_by = list(rtb.expr.items)
        else:
            diags.error("Invalid replace_triggered_by expression", "A list of resource references is required.",
                        rtb.range)
    for pb in body.blocks_of("precondition"):
        r = decode_rule(pb, diags)
        if r:
            lc.preconditions.append(r)
    for pb in body.blocks_of("postcondition"):
        r = decode_rule(pb, diags)
        if r:
            lc.postconditions.append(r)
    return lc


def _module(mod: Module, b: Block, diags: Diagnostics, override: bool = False) -> None:
    if not _need_labels(b, 1, "name", diags):
        return
    name = b.labels[0]
    if name in mod.module_calls:
        diags.error("Duplicate module call",
                    f"A module call named \"{name}\" was already defined at {mod.module_calls[name].range}. Module "
                    "calls must have unique names within a module.", b.range)
        return
    body = b.body
    src_attr = body.attributes.get("source")
    if src_attr is None and override:  # an override file's module call may keep the source
        src_attr = Attribute("source", A.Literal("", b.range), b.range, b.range)
    elif src_attr is None:
        diags.error("Missing required argument", "The argument \"source\" is required, but no definition was "
                    "found.", b.range)
        return
    if not isinstance(src_attr.expr, A.Literal) or not isinstance(src_attr.expr.value, str):
        diags.error("Variables not allowed", "Variables may not be used here.", src_attr.range)
        return
    call = ModuleCall(name=name, source=src_attr.expr.value, body=Body(range=body.range), range=b.range,
                      source_range=src_attr.range)
    for aname, attr in body.attributes.items():
        if aname == "count":
            call.count = attr.expr
        elif aname == "for_each":
            call.for_each = attr.expr
        elif aname == "depends_on":
            call.depends_on = traversal_list(attr, diags, "depends_on")
        elif aname == "providers":
            if isinstance(attr.expr, A.ObjectCons):
                for k, v in attr.expr.items:
                    kname = k.name if isinstance(k, A.ObjectKey) and k.name else None
                    if kname is None and isinstance(k, A.ObjectKey) and isinstance(k.expr, A.ScopeTraversal):
                        kname = k.expr.text()
                    ref = _provider_ref(Attribute("providers", v, attr.range, attr.range), diags)
                    if kname and ref:
                        call.providers[kname] = ref
            else:
                diags.error("Invalid providers argument", "The providers argument must be a map of provider "
                            "references.", attr.range)
        elif aname in ("source", "version"):
            continue
        else:
            call.body.attributes[aname] = attr
    if call.count is not None and call.for_each is not None:
        diags.error("Invalid combination of \"count\" and \"for_each\"",
                    "The \"count\" and \"for_each\" meta-arguments are mutually-exclusive, only one should be "
                    "used to be explicit about the number of resources to be created.", b.range)
    for blk in body.blocks:
        diags.error("Unsupported block type", f"Blocks of type \"{blk.type}\" are not expected here.", blk.range)
    mod.module_calls[name] = call


def _provider(mod: Module, b: Block, diags: Diagnostics) -> None:
    if not _need_labels(b, 1, "name", diags):
        return
    name = b.labels[0]
    alias_attr = b.body.attributes.get("alias")
    version_attr = b.body.attributes.get("version")
    alias = _static_str(alias_attr, diags) or None if alias_attr else None
    key = (name, alias)
    if key in mod.providers:
        what = f"{name}.{alias}" if alias else name
        diags.error("Duplicate provider configuration",
                    f"A provider configuration for \"{what}\" was already given at {mod.providers[key].range}. "
                    "Each configuration for the same provider must have a distinct alias.", b.range)
        return
    mod.providers[key] = ProviderBlock(name, alias, _without(b.body, ("alias", "version")), b.range)
    if version_attr is not None:  # deprecated, but still a version requirement
        ver = _static_str(version_attr, diags)
        if ver and _version_syntax(ver, version_attr.expr.range or version_attr.range, diags):
            mod.providers[key].version = (ver, version_attr.range)


def _terraform(mod: Module, b: Block, diags: Diagnostics) -> None:
    body = b.body
    for blk in body.blocks:
        if blk.type == "required_providers":
            for pname, attr in blk.body.attributes.items():
                _required_provider(mod, pname, attr, diags)
        elif blk.type == "backend":
            if len(blk.labels) != 1:
                diags.error("Invalid backend block", "A backend block must have one label: the backend type.",
                            blk.range)
                continue
            if mod.backend is not None:
                diags.error("Duplicate backend configuration", "A module may have only one backend "
                            "configuration.", blk.range)
                continue
            mod.backend = (blk.labels[0], blk.body)
            mod.backend_range = blk.range
        elif blk.type == "cloud":
            mod.cloud_range = blk.range
        elif blk.type in ("experiments", "provider_meta"):
            continue
    attr = body.attributes.get("required_version")
    if attr is not None:
        _required_version(mod, attr, diags)


def _version_syntax(text: str, rng: Any, diags: Diagnostics) -> bool:
    from tfconsole.providers.plugin.versions import VersionError, parse_loose

    try:
        parse_loose(text)
    except VersionError:
        diags.error("Invalid version constraint", "This string does not use correct version constraint syntax.", rng)
        return False
    return True


def _required_version(mod: Module, attr: Attribute, diags: Diagnostics) -> None:
    v = _static(attr, diags)
    if v is None:
        return
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        v = format(v, "g")
    if not isinstance(v, str):
        diags.error("Invalid version constraint", "A string value is required for required_version.",
                    attr.expr.range or attr.range)
        return
    if _version_syntax(v, attr.expr.range or attr.range, diags):
        mod.required_version.append((v, attr.range))


def _required_provider(mod: Module, pname: str, attr: Attribute, diags: Diagnostics) -> None:
    """One required_providers entry: a version string, or an object with source and version."""
    v = _static(attr, diags)
    if isinstance(v, str):
        if _version_syntax(v, attr.expr.range or attr.range, diags):
            mod.required_providers[pname] = RequiredProvider(pname, f"hashicorp/{pname}", v, attr.range)
        return
    if not isinstance(v, dict):
        if v is not None:
            diags.error("Invalid required_providers object", "required_providers entries must be strings or "
                        "objects.", attr.expr.range or attr.range)
        return
    version = v.get("version")
    value_ranges = {}
    if isinstance(attr.expr, A.ObjectCons):
        for k, val in attr.expr.items:
            name = k.name if isinstance(k, A.ObjectKey) else getattr(k, "value", None)
            value_ranges[name] = val.range
    if version is not None:
        if not isinstance(version, str):
            diags.error("Invalid version constraint", "Version must be specified as a string.",
                        value_ranges.get("version") or attr.range)
            return
        if not _version_syntax(version, value_ranges.get("version") or attr.range, diags):
            return
    src = v.get("source") or f"hashicorp/{pname}"
    mod.required_providers[pname] = RequiredProvider(pname, str(src), version or "", attr.range)


def _moved(mod: Module, b: Block, diags: Diagnostics) -> None:
    _check_attrs(b.body, {"from", "to"}, diags)
    f, t = b.body.attributes.get("from"), b.body.attributes.get("to")
    if f is None or t is None:
        diags.error("Missing required argument", "A moved block requires both \"from\" and \"to\".", b.range)
        return
    fa, ta = _addr_text(f.expr), _addr_text(t.expr)
    if fa is None or ta is None:
        diags.error("Invalid address", "The \"from\" and \"to\" arguments must be static addresses.", b.range)
        return
    mod.moved.append(Moved(fa, ta, b.range))


def _removed(mod: Module, b: Block, diags: Diagnostics) -> None:
    f = b.body.attributes.get("from")
    if f is None or _addr_text(f.expr) is None:
        diags.error("Missing required argument", "A removed block requires a static \"from\" address.", b.range)
        return
    destroy = True
    provs = []
    for blk in b.body.blocks:
        if blk.type == "lifecycle":
            destroy = _static_bool(blk.body.attributes.get("destroy"), diags, True)
        elif blk.type == "provisioner":
            target = _addr_text(f.expr) or ""
            if target.startswith("data.") or ".data." in target:
                diags.error("Invalid provisioner block", "Provisioners are valid only when a removed block targets "
                            "a managed resource.", blk.range)
                continue
            p = _provisioner(blk, diags)
            if p:
                provs.append(p)
                if not p.when_destroy:
                    diags.error("Invalid provisioner block", "Only destroy-time provisioners are valid in \"removed\" "
                                "blocks. To declare a destroy-time provisioner, use:\n    when = destroy", blk.range)
    mod.removed.append(Removed(_addr_text(f.expr) or "", destroy, provs, b.range))


def _import(mod: Module, b: Block, diags: Diagnostics) -> None:
    """An import block, checked as Terraform checks it when loading: `to` a managed resource
    address, exactly one of id / identity, one block per static target."""
    _check_attrs(b.body, {"to", "id", "identity", "for_each", "provider"}, diags)
    attrs = b.body.attributes
    head = _keyword_range(b)
    to = attrs.get("to")
    if to is None:
        diags.error("Missing required argument", "The argument \"to\" is required, but no definition was found.",
                    b.range)
        return
    from .importto import parse_to

    parsed, msg = parse_to(to.expr)
    if parsed is None:
        diags.error("Invalid import address", msg, to.expr.range or to.range)
        return
    if parsed.mode != "managed":
        diags.error("Invalid import address", "Only managed resources can be imported.", to.range)
        return
    pref = _provider_ref(attrs["provider"], diags) if "provider" in attrs else None
    if pref is not None and parsed.module_steps:
        diags.error("Invalid import provider argument",
                    "The provider argument can only be specified in import blocks that will generate configuration."
                    "\n\nUse the providers argument within the module block to configure providers for all resources "
                    "within a module, including imported resources.", attrs["provider"].range)
    has_id, has_identity = "id" in attrs, "identity" in attrs
    if not has_id and not has_identity:
        diags.error("Invalid import block", "At least one of 'id' or 'identity' must be specified.", head)
    elif has_id and has_identity:
        diags.error("Invalid import block", "Only one of 'id' or 'identity' can be specified.", head)
    imp = Import(to.expr, attrs["id"].expr if has_id else None, attrs["identity"].expr if has_identity else None,
                 attrs["for_each"].expr if "for_each" in attrs else None, pref, head, to.expr.range or to.range)
    static = parsed.static_text()
    for other in mod.imports:
        prev = parse_to(other.to)[0]
        if static is not None and prev is not None and prev.static_text() == static:
            diags.error(f"Duplicate import configuration for \"{parsed.resource_text()}\"",
                        f"An import block for the resource \"{parsed.resource_text()}\" was already declared at "
                        f"{other.range.long()}. A resource can "
                        "have only one import block.", to.expr.range or to.range)
    mod.imports.append(imp)


def _keyword_range(b: Block) -> SourceRange:
    """The block's type keyword (`import`): where Terraform points at a block as a whole."""
    st = b.range.start
    end = Pos(st.line, st.column + len(b.type), st.byte + len(b.type))
    return SourceRange(b.range.filename, st, end)


def _check(mod: Module, b: Block, diags: Diagnostics) -> None:
    if not _need_labels(b, 1, "name", diags):
        return
    asserts = []
    data = []
    for blk in b.body.blocks:
        if blk.type == "assert":
            r = decode_rule(blk, diags)
            if r:
                asserts.append(r)
        elif blk.type == "data":
            # a check-scoped data source is an ordinary data source of the module (it is read and
            # stored in state like any other) whose failures are warnings
            rc = _resource(mod, blk, diags, "data")
            if rc:
                rc.check_scope = b.labels[0]
                data.append(rc)
    mod.checks[b.labels[0]] = Check(b.labels[0], asserts, data, b.range)


def _addr_text(e: A.Expr) -> str | None:
    if isinstance(e, A.ScopeTraversal):
        return e.text()
    return None


_DECODERS = {
    "variable": _variable,
    "locals": _locals,
    "output": _output,
    "resource": _resource,
    "data": _data,
    "module": _module,
    "provider": _provider,
    "terraform": _terraform,
    "moved": _moved,
    "removed": _removed,
    "check": _check,
    "import": _import,
    "ephemeral": _ephemeral,
}
