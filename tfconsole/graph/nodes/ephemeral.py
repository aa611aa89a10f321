"""Ephemeral resource vertices: `ephemeral "TYPE" "NAME" {}` blocks.

An ephemeral resource is opened (the provider's OpenEphemeralResource) in every walk that needs
its value, plan and apply alike; its value carries the ephemeral mark, so it can reach only
places that are never persisted (provider configurations, other ephemeral resources, write-only
attributes, provisioners, ephemeral outputs and variables). It is renewed while open when the
provider asks (renew_at) and closed once everything that depends on it has run: the close
vertex of each ephemeral resource waits for all of its dependents (EphemeralCloseTransformer),
and `close_all` closes whatever a failed or cancelled walk left open.

Nothing here touches state or the plan's changes: that is the point of these resources.
"""
from __future__ import annotations

import threading
import time
from dataclasses import field
from tfconsole.records import dataclass  # the standard decorator without its start-up cost
from typing import TYPE_CHECKING, Any

from tfconsole.addrs import AbsResource, AbsResourceInstance
from tfconsole.config.model import ResourceConfig
from tfconsole.diags import Diagnostics
from tfconsole.lang.values import EPHEMERAL, Unknown, is_wholly_known, mark, sensitive_paths, unmark_deep
from tfconsole.providers.interface import Provider
from tfconsole.states.objcodec import remark

from .base import Executable, Node, ProviderConsumer, Referenceable, Referencer, RefKey
from .resource import ResourceNode, _with_addr, check_rules, evaluate_body, evaluate_expansion

if TYPE_CHECKING:
    from tfconsole.walk.context import Expansion, WalkContext

# renew this long before the provider's renew_at (Terraform renews at renew_at itself)
RENEW_EARLY = 0.0


@dataclass
class OpenEphemeral:
    """One open ephemeral resource instance: what close and renew need."""

    addr: AbsResourceInstance
    type_name: str
    provider: Provider
    private: bytes | None
    renew_at: float | None
    lock: threading.Lock = field(default_factory=threading.Lock)
    timer: threading.Timer | None = None
    closed: bool = False


class EphemeralResourceNode(Node, Executable, Referenceable, Referencer, ProviderConsumer):
    """Opens every instance of one ephemeral block, in each instance of its module."""

    kind = "ephemeral"
    imports: tuple = ()  # never an import block's target (ResourceNode.reference_keys reads it)

    def __init__(self, rc: ResourceConfig):
        self.rc = rc
        self.module = rc.module
        self.name = rc.module.prefix() + str(rc.addr)
        self.provider_addr = ""

    def referenceable_keys(self) -> list[RefKey]:
        return [(self.module, str(self.rc.addr))]

    # the same references and provider resolution as a resource block (its lifecycle has no
    # replace_triggered_by, so that part adds nothing here)
    reference_keys = ResourceNode.reference_keys
    provider_ref = ResourceNode.provider_ref

    def execute(self, ctx: "WalkContext") -> Diagnostics:
        from tfconsole.walk.context import Expansion, scope_for

        diags = Diagnostics()
        validate = ctx.operation == "validate"
        if ctx.operation not in ("plan", "apply", "validate"):
            # the console's eval walk configures no provider: the value is unknown (and ephemeral)
            for mi in ctx.instances_of(self.module):
                ctx.register_resource_expansion(AbsResource(mi, self.rc.addr), Expansion("", [], unknown=True))
            return diags
        for mi in ctx.instances_of(self.module):
            abs_res = AbsResource(mi, self.rc.addr)
            exp, d = evaluate_expansion(self.rc.count, self.rc.for_each, scope_for(ctx, mi), str(abs_res),
                                        allow_unknown=validate)
            diags.extend(_with_addr(d, str(abs_res)))
            if exp is None:
                continue
            if validate:
                # one representative instance with unknown keys: its value is unknown, ephemeral
                rep = Expansion(exp.mode, [None], unknown=True) if exp.mode else Expansion("", [None])
                ctx.register_resource_expansion(abs_res, exp if exp.mode else rep)
                diags.extend(self._instance(ctx, abs_res.instance(None), rep, validate=True))
                continue
            ctx.register_resource_expansion(abs_res, exp)
            for key in exp.keys:
                diags.extend(self._instance(ctx, abs_res.instance(key), exp, validate=False))
        return diags

    def _instance(self, ctx: "WalkContext", addr: AbsResourceInstance, exp: "Expansion",
                  validate: bool) -> Diagnostics:
        """Evaluate, validate and (outside validate, with a wholly known configuration) open one
        instance; its value, marked ephemeral, is what references to it see."""
        from tfconsole.walk.context import scope_for

        rc, addr_s = self.rc, str(addr)
        diags = Diagnostics()
        provider = ctx.providers.get(self.provider_addr)
        schema = provider.ephemeral_resource_schemas().get(rc.addr.type) if provider is not None else None
        if provider is None or schema is None:
            return diags.error("Invalid ephemeral resource",
                               f"The provider {_short_source(self.provider_addr)} does not support ephemeral "
                               f"resource \"{rc.addr.type}\".", rc.range)
        ty = schema.block.implied_type()
        scope = scope_for(ctx, addr.module, key=addr.key, expansion=exp)
        config, d = evaluate_body(rc.body, schema.block, scope, rc.range, addr_s, ephemeral_ok=True)
        diags.extend(d)
        if d.has_errors:
            return diags
        marks = sensitive_paths(config)
        clean, _ = unmark_deep(config)
        diags.extend(_with_addr(provider.validate_ephemeral_resource(rc.addr.type, clean), addr_s, rc.range))
        if diags.has_errors:
            return diags
        if validate or not is_wholly_known(clean):
            # Terraform opens nothing it cannot configure: the value stays unknown until apply
            ctx.set_instance_value(addr, mark(Unknown(ty), EPHEMERAL))
            return diags
        diags.extend(check_rules(rc.lifecycle.preconditions, scope, "Resource precondition failed", addr_s))
        if diags.has_errors:
            return diags
        value, d = open_instance(ctx, provider, addr, rc.addr.type, clean)
        diags.extend(_with_addr(d, addr_s, rc.range))
        if value is None:
            return diags
        value = mark(remark(value, marks, schema), EPHEMERAL)
        diags.extend(check_rules(rc.lifecycle.postconditions, scope_for(ctx, addr.module, key=addr.key,
                                 expansion=exp, self_value=value), "Resource postcondition failed", addr_s))
        ctx.set_instance_value(addr, value)
        return diags


def _short_source(provider_addr: str) -> str:
    """registry.terraform.io/NS/TYPE as Terraform names it in messages: NS/TYPE."""
    from tfconsole.walk.context import provider_source_of

    source = provider_source_of(provider_addr) if provider_addr else ""
    return source.removeprefix("registry.terraform.io/")


def open_instance(ctx: "WalkContext", provider: Provider, addr: AbsResourceInstance, type_name: str,
                  config: dict[str, Any]) -> tuple[Any, Diagnostics]:
    """OpenEphemeralResource for one instance, registered for renew and close."""
    addr_s = str(addr)
    ctx.hook.pre_ephemeral(addr_s, "open")
    start = time.monotonic()
    opened = provider.open_ephemeral_resource(type_name, config)
    diags = opened.diags
    ctx.hook.post_ephemeral(addr_s, "open", time.monotonic() - start,
                            diags.errors()[0].summary if diags.has_errors else None)
    if opened.deferred is not None and not diags.has_errors:
        # Terraform 1.15 (ephemeralResourceOpen) records the deferral and registers nothing:
        # nothing to renew or close, and a reference to the instance fails as expired
        with ctx.lock:
            ctx.ephemeral_deferred.add(addr)
        return None, diags
    if diags.has_errors or opened.result is None:
        if not diags.has_errors:
            diags.error("Provider produced null object",
                        f"The ephemeral resource {addr_s} returned no result.")
        return None, diags
    handle = OpenEphemeral(addr, type_name, provider, opened.private, opened.renew_at)
    with ctx.lock:
        ctx.ephemeral_open[addr] = handle
    _schedule_renew(ctx, handle)
    return opened.result, diags


def _schedule_renew(ctx: "WalkContext", handle: OpenEphemeral) -> None:
    """A timer that renews the instance shortly before the provider's renew_at."""
    if handle.renew_at is None or handle.closed:
        return
    delay = max(0.0, handle.renew_at - time.time() - RENEW_EARLY)
    timer = threading.Timer(delay, _renew, (ctx, handle))
    timer.daemon = True
    handle.timer = timer
    timer.start()


def _renew(ctx: "WalkContext", handle: OpenEphemeral) -> None:
    with handle.lock:
        if handle.closed:
            return
        addr_s = str(handle.addr)
        ctx.hook.pre_ephemeral(addr_s, "renew")
        start = time.monotonic()
        renew_at, private, diags = handle.provider.renew_ephemeral_resource(handle.type_name, handle.private)
        ctx.hook.post_ephemeral(addr_s, "renew", time.monotonic() - start,
                                diags.errors()[0].summary if diags.has_errors else None)
        for d in diags:
            ctx.hook.diagnostic(d)
        handle.private, handle.renew_at = private, renew_at
    if not diags.has_errors:
        _schedule_renew(ctx, handle)


def close_instance(ctx: "WalkContext", handle: OpenEphemeral) -> Diagnostics:
    """CloseEphemeralResource, once; a pending renew is cancelled first."""
    with handle.lock:
        if handle.closed:
            return Diagnostics()
        handle.closed = True
        if handle.timer is not None:
            handle.timer.cancel()
        addr_s = str(handle.addr)
        ctx.hook.pre_ephemeral(addr_s, "close")
        start = time.monotonic()
        diags = handle.provider.close_ephemeral_resource(handle.type_name, handle.private)
        ctx.hook.post_ephemeral(addr_s, "close", time.monotonic() - start,
                                diags.errors()[0].summary if diags.has_errors else None)
    with ctx.lock:
        ctx.ephemeral_open.pop(handle.addr, None)
    return _with_addr(diags, addr_s)


class EphemeralCloseNode(Node, Executable):
    """Closes every open instance of one ephemeral block, after all of its dependents ran."""

    kind = "ephemeral_close"

    def __init__(self, opener: EphemeralResourceNode):
        self.opener = opener
        self.module = opener.module
        self.name = f"{opener.name} (close)"

    def execute(self, ctx: "WalkContext") -> Diagnostics:
        diags = Diagnostics()
        rc_addr, module = self.opener.rc.addr, self.module
        with ctx.lock:
            mine = [h for a, h in ctx.ephemeral_open.items()
                    if a.abs_resource().resource == rc_addr and a.module.module() == module]
        for handle in sorted(mine, key=lambda h: str(h.addr)):
            diags.extend(close_instance(ctx, handle))
        return diags


def close_all(ctx: "WalkContext") -> Diagnostics:
    """Close what is still open (a walk that failed or was cancelled before the close vertices)."""
    with ctx.lock:
        left = list(ctx.ephemeral_open.values())
    diags = Diagnostics()
    for handle in sorted(left, key=lambda h: str(h.addr)):
        diags.extend(close_instance(ctx, handle))
    return diags
