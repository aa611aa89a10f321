"""import ADDR ID: read an existing remote object through its provider and place it in state.

The provider part (configure, ImportResourceState, ReadResource) runs before the lock is taken,
as in Terraform; placing the object (rules.place_imported) runs under it.
"""
from __future__ import annotations

from typing import Any

from tfconsole.addrs import AbsResourceInstance, AddressError, parse_instance
from tfconsole.diags import Diagnostics
from tfconsole.graph.nodes.importing import NOT_FOUND_DETAIL
from tfconsole.states.state import ObjectState

from . import rules
from .local import IMPORT, _context, _report, edit_state, load_configuration
from .request import OperationRequest, OperationResult


def import_resource(req: OperationRequest, addr_text: str, import_id: str) -> OperationResult:
    res = OperationResult()
    try:
        addr = parse_instance(addr_text)
    except AddressError as exc:
        return res.fail("address", Diagnostics().error("Invalid address", f"{addr_text}: {exc}"))
    ctx = _context(req, res)
    if not load_configuration(ctx, req, res):
        return res
    read = _read_remote(ctx, addr, import_id, req)
    if not _report(req, res, read[0], "import"):
        return res
    obj, provider_addr = read[1], read[2]
    placed = edit_state(req_with_context(req, ctx), lambda s: rules.place_imported(s, addr, obj, provider_addr),
                        IMPORT)
    placed.context = ctx
    placed.diags = res.diags.append(placed.diags)
    return placed


def req_with_context(req: OperationRequest, ctx: Any) -> OperationRequest:
    from dataclasses import replace

    return replace(req, context=ctx)


def _read_remote(ctx: Any, addr: AbsResourceInstance, import_id: str, req: OperationRequest
                 ) -> tuple[Diagnostics, ObjectState | None, str]:
    """(diags, the object to store, its provider address) from the provider's import and read."""
    from tfconsole.graph.transforms import ProviderTransformer
    from tfconsole.states.objcodec import encode_object, remark

    diags = Diagnostics()
    mod = ctx.config.module_at(addr.module.module())
    rc = mod.resources.get(addr.resource) if mod else None
    if rc is None or addr.resource.mode != "managed":
        diags.error("Configuration for import target does not exist",
                    f"The configuration for the given import {addr} does not exist. All target instances must "
                    "have an associated configuration to be imported.")
        return diags, None, ""
    local = rc.provider_ref[0] if rc.provider_ref else rc.provider_local_name
    source = ProviderTransformer.source_for(mod, local)
    prov_addr = addr.module.module().prefix() + f'provider["{source}"]'
    provider = ctx.providers.instance(prov_addr, source)
    if provider is None:
        diags.error("Provider not available", f"The provider {source} is not available.")
        return diags, None, prov_addr
    if hasattr(provider, "base_dir"):
        provider.base_dir = req.working_dir
    provider, d = ctx.providers.configure(prov_addr, source, provider, {}, "apply")
    diags.append(d)
    schema = provider.resource_schemas().get(addr.resource.type)
    if schema is None:
        diags.error("Invalid resource type", f"The provider does not support resource type {addr.resource.type}.")
        return diags, None, prov_addr
    req.view.importing(addr, import_id)
    imported, d = provider.import_resource_state(addr.resource.type, import_id)
    diags.append(d)
    value = imported[0].state if imported else None
    private = imported[0].private if imported else None
    if value is not None and not diags.has_errors:
        resp = provider.read_resource(addr.resource.type, value, private)
        diags.append(resp.diags)
        private = resp.private
        if resp.new_state is None and not resp.diags.has_errors:
            diags.error("Cannot import non-existent remote object", NOT_FOUND_DETAIL.format(addr=addr))
        value = resp.new_state
    if diags.has_errors or value is None:
        if not diags.has_errors:
            diags.error("Import failed", f"The provider returned no object for {addr}.")
        return diags, None, prov_addr
    attrs, sens = encode_object(remark(value, [], schema) or {}, schema)
    return diags, ObjectState(attributes=attrs, schema_version=schema.version, sensitive_attributes=sens,
                              private=private), prov_addr


def check_generate_target(path: str) -> Diagnostics:
    """plan -generate-config-out writes only a new file (checked before anything else)."""
    import os

    d = Diagnostics()
    if os.path.lexists(path):
        d.error("Target generated file already exists",
                "Terraform can only write generated config into a new file. Either choose a different target "
                "location or move all existing configuration out of the target file, delete it and try again.")
    return d


def write_generated_config(plan: Any, path: str) -> tuple[bool, Diagnostics]:
    """Write the resource blocks generated during the plan to `path` (created, never replaced),
    in Terraform's layout; (whether a file was written, diagnostics)."""
    import os

    from tfconsole.config.genconfig import FILE_HEADER, file_entry

    d = Diagnostics()
    parts = [file_entry(ch.importing.id if ch.importing else "", ch.generated_config)
             for ch in plan.changes if ch.generated_config]
    if not parts:
        return False, d
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False, check_generate_target(path)
    except OSError as exc:
        d.error("Failed to create target generated file",
                f"Terraform could not create the generated file ({path}) in the target directory: {exc.strerror}. "
                "Depending on the error message, this may be a bug in Terraform itself. If so, please report it!")
        return False, d
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(FILE_HEADER + "".join(parts))
    # Terraform reports the file only when the last change it happens to list (in completion
    # order) has generated configuration; tfconsole always says it wrote one
    d.warning("Config generation is experimental",
              "Generating configuration during import is currently experimental, and the generated configuration "
              "format may change in future versions.")
    return True, d
