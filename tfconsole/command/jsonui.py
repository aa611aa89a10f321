"""Terraform's machine-readable UI (`-json`): one JSON message per line, as Terraform writes them.

`JSONView` writes the messages (version, diagnostic, planned_change, resource_drift,
change_summary, outputs, log) and `JSONHook` turns the engine's hook calls into the per-resource
ones (apply_start / apply_progress / apply_complete / apply_errored, refresh_start /
refresh_complete, provision_*). The message shapes follow Terraform's JSON UI version 1.3:
the envelope keys (`@level`, `@message`, `@module`, `@timestamp`, `type` and the payload key)
are in sorted order, payload objects keep Terraform's field order, and the text is encoded as
Go's encoder writes it (`<`, `>`, `&` escaped).

The command flows that use them (plan / apply / destroy / refresh with -json) live in
`jsonops.py`; this module only renders.
"""
from __future__ import annotations

import datetime as _dt
import json
import threading
import time
from typing import Any, Callable, TextIO

from tfconsole import TERRAFORM_VERSION
from tfconsole.diags import Diagnostic, Diagnostics
from tfconsole.walk.hooks import Hook

UI_VERSION = "1.3"
# Terraform's periodic "Still creating..." interval
PROGRESS_INTERVAL = 10.0

_HTML_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def go_json(obj: Any) -> str:
    """JSON text as Go's encoding/json writes it: compact, UTF-8, HTML characters escaped."""
    from tfconsole.lang.values import dumps_json

    text = dumps_json(obj, ensure_ascii=False, separators=(",", ":"))
    if any(c in text for c in _HTML_ESCAPES):
        text = "".join(_HTML_ESCAPES.get(c, c) for c in text)
    return text


def timestamp(now: float | None = None) -> str:
    """hclog's timestamp: local time, microseconds, `Z` for UTC."""
    t = _dt.datetime.fromtimestamp(time.time() if now is None else now).astimezone()
    text = t.strftime("%Y-%m-%dT%H:%M:%S.%f")
    off = t.utcoffset()
    if not off:
        return text + "Z"
    return text + t.strftime("%z")[:3] + ":" + t.strftime("%z")[3:]


def _seconds(elapsed: float) -> int:
    """Terraform rounds start and end to whole seconds before subtracting."""
    return max(0, int(round(elapsed)))


def _go_duration(secs: int) -> str:
    """time.Duration.String() of whole seconds: 0s, 10s, 1m0s, 1h2m3s."""
    if secs < 60:
        return f"{secs}s"
    h, rest = divmod(secs, 3600)
    m, s = divmod(rest, 60)
    return (f"{h}h" if h else "") + f"{m}m{s}s"


# ---------------------------------------------------------------------------
# payload builders


def resource_addr(addr: Any) -> dict:
    """Terraform's ResourceAddr object for a resource instance (an address object or its text)."""
    from tfconsole.addrs import AbsResourceInstance, key_str, parse_instance

    if not isinstance(addr, AbsResourceInstance):
        addr = parse_instance(_strip_deposed(str(addr)))
    res = addr.resource
    return {"addr": str(addr), "module": str(addr.module), "resource": str(res) + key_str(addr.key),
            "implied_provider": res.type.split("_", 1)[0], "resource_type": res.type, "resource_name": res.name,
            "resource_key": addr.key}


def _strip_deposed(text: str) -> str:
    i = text.find(" (deposed object ")
    return text if i < 0 else text[:i]


# plans.Action value -> Terraform's ChangeAction
_CHANGE_ACTION = {"no-op": "noop", "create": "create", "read": "read", "update": "update", "delete": "delete",
                  "delete-create": "replace", "create-delete": "replace", "forget": "remove"}
# the plan file's action_reason -> the JSON UI's reason
_REASON = {"replace_because_tainted": "tainted", "replace_by_request": "requested",
           "replace_by_triggers": "replace_triggered_by", "replace_because_cannot_update": "cannot_update"}


def change_action(action: Any) -> str:
    return _CHANGE_ACTION.get(getattr(action, "value", action), "noop")


def resource_change(ch: Any) -> dict:
    """Terraform's ResourceInstanceChange message payload."""
    out: dict[str, Any] = {"resource": resource_addr(ch.addr)}
    action = change_action(ch.action)
    moved = ch.prev_run_addr is not None and ch.prev_run_addr != ch.addr
    importing = getattr(ch, "importing", None)
    if moved and action == "noop":
        action = "move"
    if importing is not None and action == "noop":
        action = "import"
    if moved:
        out["previous_resource"] = resource_addr(ch.prev_run_addr)
    out["action"] = action
    reason = _REASON.get(ch.reason or "", ch.reason or "")
    if reason:
        out["reason"] = reason
    if importing is not None:
        import_id = getattr(importing, "id", importing)
        out["importing"] = {"id": import_id} if import_id else {}  # an import by identity has no id
    generated = getattr(ch, "generated_config", None)
    if generated:
        out["generated_config"] = generated
    return out


def change_summary_text(cs: dict) -> str:
    op = cs["operation"]
    imp = cs["import"]
    if op == "apply":
        text = "Apply complete! Resources: " + (f"{imp} imported, " if imp else "")
        return text + f"{cs['add']} added, {cs['change']} changed, {cs['remove']} destroyed."
    if op == "destroy":
        return f"Destroy complete! Resources: {cs['remove']} destroyed."
    text = "Plan: " + (f"{imp} to import, " if imp else "")
    return text + f"{cs['add']} to add, {cs['change']} to change, {cs['remove']} to destroy."


def plan_counts(plan: Any) -> dict:
    """Terraform's planned change summary: data sources' deletions are not counted."""
    cs = {"add": 0, "change": 0, "import": 0, "remove": 0, "action_invocation": 0, "operation": "plan"}
    for ch in plan.changes:
        if ch.addr.resource.mode == "data":
            continue
        if getattr(ch, "importing", None) is not None:
            cs["import"] += 1
        a = change_action(ch.action)
        if a == "create":
            cs["add"] += 1
        elif a == "delete":
            cs["remove"] += 1
        elif a == "update":
            cs["change"] += 1
        elif a == "replace":
            cs["add"] += 1
            cs["remove"] += 1
    return cs


# ---------------------------------------------------------------------------
# the view


class JSONView:
    """Writes Terraform's JSON UI messages, one per line; safe to call from any thread."""

    def __init__(self, stream: TextIO, files: Callable[[], dict[str, str]] | None = None) -> None:
        self.stream = stream
        self.files = files or (lambda: {})
        self.lock = threading.Lock()
        self.hook = JSONHook(self)

    def message(self, level: str, text: str, type_: str, unless: threading.Event | None = None,
                **payload: Any) -> None:
        with self.lock:  # the timestamp taken under the lock: the lines are in time order
            if unless is not None and unless.is_set():
                return
            msg = {"@level": level, "@message": text, "@module": "terraform.ui", "@timestamp": timestamp(),
                   **payload, "type": type_}
            self.stream.write(go_json({k: msg[k] for k in sorted(msg)}) + "\n")
            self.stream.flush()

    def version(self) -> None:
        self.message("info", f"Terraform {TERRAFORM_VERSION}", "version", terraform=TERRAFORM_VERSION, ui=UI_VERSION)

    def log(self, text: str) -> None:
        self.message("info", text, "log")

    def diagnostics(self, diags: Diagnostics | list[Diagnostic]) -> None:
        from .diagjson import diagnostic_json

        files = self.files()
        for d in diags:
            level, word = ("error", "Error") if d.is_error else ("warn", "Warning")
            self.message(level, f"{word}: {d.summary}", "diagnostic", diagnostic=diagnostic_json(d, files))

    def hook_message(self, type_: str, text: str, payload: dict, unless: threading.Event | None = None) -> None:
        self.message("info", text, type_, unless=unless, hook=payload)

    def plan(self, plan: Any) -> None:
        """What Terraform's operation view writes for a finished plan: drift, planned changes,
        the summary and the root outputs' planned actions."""
        for dr in getattr(plan, "drift", None) or []:
            if dr.action.value != "no-op" or plan.refresh_only:
                ch = resource_change(dr)
                self.message("info", f"{ch['resource']['addr']}: Drift detected ({ch['action']})", "resource_drift",
                             change=ch)
        for ch in sorted(plan.changes, key=lambda c: _addr_order(c.addr)):
            if ch.addr.resource.mode == "data" and change_action(ch.action) == "delete":
                continue
            moved = ch.prev_run_addr is not None and ch.prev_run_addr != ch.addr
            if ch.action.value != "no-op" or moved or getattr(ch, "importing", None) is not None:
                c = resource_change(ch)
                self.message("info", f"{c['resource']['addr']}: Plan to {c['action']}", "planned_change", change=c)
        self.change_summary(plan_counts(plan))
        outs = {o.name: {"sensitive": bool(o.sensitive), "action": change_action(o.action)}
                for o in plan.output_changes}
        if outs:
            self.message("info", f"Outputs: {len(outs)}", "outputs", outputs=dict(sorted(outs.items())))

    def saved_plan(self, plan: Any) -> None:
        """Applying a saved plan, Terraform first lists its changes (without a summary)."""
        for ch in sorted(plan.changes, key=lambda c: _addr_order(c.addr)):
            if ch.action.value == "no-op" or (ch.addr.resource.mode == "data" and change_action(ch.action) == "delete"):
                continue
            c = resource_change(ch)
            self.message("info", f"{c['resource']['addr']}: Plan to {c['action']}", "planned_change", change=c)

    def change_summary(self, cs: dict) -> None:
        self.message("info", change_summary_text(cs), "change_summary", changes=cs)

    def outputs(self, state: Any) -> None:
        """The root outputs after an apply or refresh (sensitive values left out)."""
        outs: dict[str, Any] = {}
        for name, o in sorted((state.outputs or {}).items()):
            entry: dict[str, Any] = {"sensitive": bool(o.sensitive), "type": o.type}
            if not o.sensitive:
                entry["value"] = o.value
            outs[name] = entry
        self.message("info", f"Outputs: {len(outs)}", "outputs", outputs=outs)


def _addr_order(addr: Any) -> tuple:
    k = addr.key
    return (str(addr.module), str(addr.resource), 0 if k is None else 1 if isinstance(k, int) else 2,
            k if k is not None else 0)


# ---------------------------------------------------------------------------
# the hook


# hook action -> (start verb, progress verb, noun)
_VERBS = {
    "create": ("Creating", "creating", "Creation"), "update": ("Modifying", "modifying", "Modifications"),
    "delete": ("Destroying", "destroying", "Destruction"), "read": ("Refreshing", "refreshing", "Refresh"),
    "forget": ("Removing", "applying", "Removal"),
}


# an ephemeral operation -> (what it is doing, what it completed), Terraform's words
_EPHEMERAL_VERBS = {"open": ("Opening", "Opening"), "renew": ("Renewing", "Renewal"), "close": ("Closing", "Closing")}


class _Progress:
    __slots__ = ("addr", "action", "start", "done")

    def __init__(self, addr: Any, action: str, start: float) -> None:
        self.addr = addr
        self.action = action
        self.start = start
        self.done = threading.Event()


class JSONHook(Hook):
    """The engine's hook calls as Terraform's JSON UI hook messages. Counts what was applied
    successfully (Terraform's change summary after an apply counts completed operations)."""

    def __init__(self, view: JSONView, interval: float = PROGRESS_INTERVAL) -> None:
        self.view = view
        self.interval = interval
        self.lock = threading.Lock()
        self.progress: dict[str, _Progress] = {}
        self.counts = {"add": 0, "change": 0, "remove": 0, "import": 0}

    def _start(self, key: str, addr: dict, action: str) -> None:
        p = _Progress(addr, action, round(time.time()))
        with self.lock:
            self.progress[key] = p
        threading.Thread(target=self._heartbeat, args=(p,), daemon=True, name="json-ui-progress").start()

    def _heartbeat(self, p: _Progress) -> None:
        while not p.done.wait(self.interval):
            secs = _seconds(round(time.time()) - p.start)
            verb = _VERBS.get(p.action, ("Applying", "applying", "Apply"))[1]
            # (not after the completion: the check is made under the view's lock)
            self.view.hook_message("apply_progress", f"{p.addr['addr']}: Still {verb}... [{_go_duration(secs)} elapsed]",
                                   {"resource": p.addr, "action": change_action(p.action), "elapsed_seconds": secs},
                                   unless=p.done)

    def pre_apply(self, addr: str, action: str, id_hint: str | None) -> None:
        ra = resource_addr(addr)
        payload: dict[str, Any] = {"resource": ra, "action": change_action(action)}
        suffix = _id_fields(payload, id_hint)
        verb = _VERBS.get(action, ("Applying", "applying", "Apply"))[0]
        self.view.hook_message("apply_start", f"{ra['addr']}: {verb}...{suffix}", payload)
        self._start(addr, ra, action)

    def post_apply(self, addr: str, action: str, elapsed: float, error: str | None, id_hint: str | None) -> None:
        with self.lock:
            p = self.progress.pop(addr, None)
        if p is None:
            return
        p.done.set()
        secs = _seconds(round(time.time()) - p.start)
        ra = p.addr
        noun = _VERBS.get(action, ("Applying", "applying", "Apply"))[2]
        if error:
            self.view.hook_message("apply_errored", f"{ra['addr']}: {noun} errored after {_go_duration(secs)}",
                                   {"resource": ra, "action": change_action(action), "elapsed_seconds": secs})
            return
        with self.lock:
            key = {"create": "add", "update": "change", "delete": "remove"}.get(action)
            if key:
                self.counts[key] += 1
        payload: dict[str, Any] = {"resource": ra, "action": change_action(action)}
        # after a destroy the object is gone: no id (Terraform reads it from the null new state)
        suffix = _id_fields(payload, None if action == "delete" else _id_only(id_hint))
        payload["elapsed_seconds"] = secs
        self.view.hook_message("apply_complete", f"{ra['addr']}: {noun} complete after {_go_duration(secs)}{suffix}",
                               payload)

    def post_apply_import(self, addr: str, import_id: str, identity: str | None = None) -> None:
        with self.lock:  # an import block's object is in state: the change summary counts it
            self.counts["import"] += 1

    def pre_refresh(self, addr: str, id_hint: str | None) -> None:
        if _is_data(addr):  # a data source read: Terraform reports it as an apply of "read"
            return self.pre_apply(addr, "read", None)
        ra = resource_addr(addr)
        payload: dict[str, Any] = {"resource": ra}
        suffix = _id_fields(payload, _id_only(id_hint))
        self.view.hook_message("refresh_start", f"{ra['addr']}: Refreshing state...{suffix}", payload)

    def post_refresh(self, addr: str, id_hint: str | None = None) -> None:
        if _is_data(addr):
            return self.post_apply(addr, "read", 0.0, None, id_hint)
        ra = resource_addr(addr)
        payload: dict[str, Any] = {"resource": ra}
        suffix = _id_fields(payload, _id_only(id_hint))
        self.view.hook_message("refresh_complete", f"{ra['addr']}: Refresh complete{suffix}", payload)

    def pre_ephemeral(self, addr: str, action: str) -> None:
        ra = resource_addr(addr)
        verb = _EPHEMERAL_VERBS.get(action, (action, action))[0]
        self.view.hook_message("ephemeral_op_start", f"{ra['addr']}: {verb}...", {"resource": ra, "action": action})

    def post_ephemeral(self, addr: str, action: str, elapsed: float, error: str | None) -> None:
        ra = resource_addr(addr)
        verb, done = _EPHEMERAL_VERBS.get(action, (action, action))
        secs = _seconds(elapsed)
        payload = {"resource": ra, "action": action, "elapsed_seconds": secs}
        if error:
            self.view.hook_message("ephemeral_op_errored", f"{ra['addr']}: {verb} errored after {_go_duration(secs)}",
                                   payload)
        else:
            self.view.hook_message("ephemeral_op_complete",
                                   f"{ra['addr']}: {done} complete after {_go_duration(secs)}", payload)

    def pre_provision(self, addr: str, provisioner: str) -> None:
        ra = resource_addr(addr)
        self.view.hook_message("provision_start", f"{ra['addr']}: Provisioning with '{provisioner}'...",
                               {"resource": ra, "provisioner": provisioner})

    def provision_output(self, addr: str, provisioner: str, line: str) -> None:
        line = line.rstrip()
        if not line:
            return
        ra = resource_addr(addr)
        self.view.hook_message("provision_progress", f"{ra['addr']}: ({provisioner}): {line}",
                               {"resource": ra, "provisioner": provisioner, "output": line})

    def post_provision(self, addr: str, provisioner: str, error: str | None) -> None:
        ra = resource_addr(addr)
        if error:
            self.view.hook_message("provision_errored", f"{ra['addr']}: ({provisioner}) Provisioning errored",
                                   {"resource": ra, "provisioner": provisioner})
        else:
            self.view.hook_message("provision_complete", f"{ra['addr']}: ({provisioner}) Provisioning complete",
                                   {"resource": ra, "provisioner": provisioner})


def _is_data(addr: str) -> bool:
    return addr.startswith("data.") or ".data." in addr


def _id_only(hint: str | None) -> str | None:
    """Terraform's ObjectValueID: the id or name attribute, never a tag."""
    if hint is None or getattr(hint, "key", "id") in ("id", "name"):
        return hint
    return None


def _id_fields(payload: dict, hint: str | None) -> str:
    """Add id_key/id_value to a hook payload; the " [key=value]" suffix of its message."""
    if not hint:
        return ""
    key = getattr(hint, "key", "id")
    payload["id_key"] = key
    payload["id_value"] = str(hint)
    return f" [{key}={hint}]"


__all__ = ["JSONHook", "JSONView", "UI_VERSION", "change_summary_text", "go_json", "plan_counts", "resource_addr",
           "resource_change", "timestamp"]


# ---------------------------------------------------------------------------
# init


# init's message keys (command/init.py MESSAGES) -> (Terraform's message code or None for a log
# line, the JSON text)
INIT_MESSAGES: dict[str, tuple[str | None, str]] = {
    "modules": ("initializing_modules_message", "Initializing modules..."),
    "backend": ("initializing_backend_message", "Initializing the backend..."),
    "pending_config": ("initializing_provider_plugin_from_config_message",
                       "Initializing provider plugins found in the configuration..."),
    "pending_state": ("initializing_provider_plugin_from_state_message",
                      "Initializing provider plugins found in the state..."),
    "builtin": (None, "%s is built in to Terraform"),
    "builtin_ours": (None, "%s is built in to tfconsole"),
    "reusing_config": (None, "%s: Reusing previous version from the dependency lock file"),
    "reusing_state": (None, "Reusing previous version of %s"),
    "finding": (None, "Finding matching versions for provider: %s, version_constraint: \"%s\""),
    "finding_latest": (None, "%s: Finding latest version..."),
    "already_installed": (None, "%s v%s: Using previously-installed provider version"),
    "using_cache": (None, "%s v%s: Using from the shared cache directory"),
    "installing": (None, "Installing provider version: %s v%s..."),
    "installed": (None, "Installed provider version: %s v%s (unauthenticated)"),
    "lock_created": ("lock_info", "Terraform has created a lock file .terraform.lock.hcl to record the provider\n"
                     "selections it made above. Include this file in your version control repository\n"
                     "so that Terraform can guarantee to make the same selections by default when\n"
                     "you run \"terraform init\" in the future."),
    "lock_changed": ("dependencies_lock_changes_info",
                     "Terraform has made some changes to the provider dependency selections recorded\n"
                     "in the .terraform.lock.hcl file. Review those changes and commit them to your\n"
                     "version control system if they represent changes you intended to make."),
    "success": ("output_init_success_message", "Terraform has been successfully initialized!"),
    "success_cli": ("output_init_success_cli_message",
                    "You may now begin working with Terraform. Try running \"terraform plan\" to see\n"
                    "any changes that are required for your infrastructure. All Terraform commands\n"
                    "should now work.\n\n"
                    "If you ever set or change modules or backend configuration for Terraform,\n"
                    "rerun this command to reinitialize your working directory. If you forget, other\n"
                    "commands will detect it and remind you to do so if necessary."),
    "empty": ("output_init_empty_message", "Terraform initialized in an empty directory!\n\n"
              "The directory has no Terraform configuration files. You may begin working\n"
              "with Terraform immediately by creating Terraform configuration files."),
}


def init_view(cli: Any, InitView: Any) -> Any:  # noqa: N803 - the class init.py passes in
    """init's view for `init -json`: its messages as init_output / log messages (init.py hands
    in its InitView class, so this module does not import init)."""

    class JSONInitView(InitView):
        def out(self, code: str, *params: Any) -> None:
            msg_code, text = INIT_MESSAGES.get(code, (code, code))
            text = (text % params if params else text).strip()
            if msg_code is None:
                cli.json_view.log(text)
            else:
                cli.json_view.message("info", text, "init_output", message_code=msg_code)

        def blank(self) -> None:
            pass

        def item(self, text: str) -> None:
            cli.json_view.log(text.strip())

    return JSONInitView(cli)
