"""import ADDR ID: read an existing remote object through its provider and place it in state.

The provider part (configure, ImportResourceState, ReadResource) runs before the lock is taken,
as in Terraform; placing the object (rules.place_imported) runs under it.
"""
from __future__ import annotations

from typing import Any

from tfconsole.addrs import AbsResourceInstance, AddressError, parse_instance
from tfconsole.diags import Diagnostics
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
    identity = imported[0].identity if imported else None
    if value is not None and not diags.has_errors:
        if identity is not None:
            resp = provider.read_resource(addr.resource.type, value, private, identity=identity)
        else:
            resp = provider.read_resource(addr.resource.type, value, private)
        diags.append(resp.diags)
        private, identity = resp.private, resp.new_identity
        if resp.new_state is None and not resp.diags.has_errors:
            from tfconsole.graph.nodes.importing import NOT_FOUND_DETAIL

            diags.error("Cannot import non-existent remote object", NOT_FOUND_DETAIL.format(addr=addr))
        value = resp.new_state
    if diags.has_errors or value is None:
        if not diags.has_errors:
            diags.error("Import failed", f"The provider returned no object for {addr}.")
        return diags, None, prov_addr
    from tfconsole.graph.nodes.importing import identity_fields

    attrs, sens = encode_object(remark(value, [], schema) or {}, schema)
    return diags, ObjectState(attributes=attrs, schema_version=schema.version, sensitive_attributes=sens,
                              private=private, **identity_fields(provider, addr.resource.type, identity)), prov_addr

