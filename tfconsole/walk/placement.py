"""Which vertices the walker runs on its own thread and which need a worker thread.

Only work that waits (a provider plugin's RPC, a provisioner's process, an HTTP request, a
sleep) gains from a thread: while it waits, others run. Pure-Python evaluation gains nothing,
since the GIL lets one thread evaluate at a time, and every hand-off between threads costs
CPU. So a vertex runs inline (on the walker's thread) when everything it does is evaluation
inside this process: variables, locals, outputs, module and resource expansion, and instances
of the built-in `terraform` provider (`terraform_data`) without provisioners. Anything else,
or anything this module cannot classify, gets a thread: misplacing pure work on a thread only
costs time, misplacing waiting work inline would serialise the walk.
"""
from __future__ import annotations

from typing import Any

# provider configurations whose resources are evaluated in-process and never wait; a data
# source of this provider (terraform_remote_state) reads backends, so it is not listed by mode
_PURE_PROVIDER = 'provider["terraform.io/builtin/terraform"]'


def runs_inline(v: Any) -> bool:
    """True when executing (and expanding) v never waits on anything outside this process."""
    source = getattr(v, "source", None)
    if source is not None and getattr(v, "kind", "") == "provider":
        return source == "terraform.io/builtin/terraform"  # configuring it starts nothing
    provider = _provider_of(v)
    if provider is None:
        return not _is_resource_vertex(v)
    if not provider.endswith(_PURE_PROVIDER):
        return False
    rc = _config_of(v)
    if rc is None:  # an orphan, or a destroy without configuration: no provisioner can run
        return True
    return rc.addr.mode == "managed" and not rc.provisioners


def _provider_of(v: Any) -> str | None:
    for holder in (v, getattr(v, "parent", None), getattr(v, "resource_node", None)):
        addr = getattr(holder, "provider_addr", None)
        if addr:
            return str(addr)
    change = getattr(v, "change", None)
    provider = getattr(change, "provider", None)
    return str(provider) if provider else None


def _config_of(v: Any) -> Any:
    rc = getattr(v, "rc", None)
    if rc is None:
        rc = getattr(getattr(v, "parent", None), "rc", None)
    return rc


def _is_resource_vertex(v: Any) -> bool:
    """A vertex about a resource whose provider is not known here: treat it as waiting."""
    return any(getattr(v, a, None) is not None for a in ("rc", "change", "parent", "resource_node"))
