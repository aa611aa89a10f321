"""`backend "http"`: the state in a REST endpoint, with Terraform 1.15's protocol.

* GET `address`: 200 with the state (an empty body, 204 and 404 mean no state yet);
* `update_method` (POST) to `address` with the whole state, `Content-Type: application/json`
  and `Content-MD5`, with `?ID=<lock id>` while we hold a lock;
* `lock_method` (LOCK) to `lock_address` with our lock-info JSON: 200 taken, 409 or 423 held by
  someone else whose lock info is the response body; no `lock_address`: no locking;
* `unlock_method` (UNLOCK) to `unlock_address` with the lock-info JSON the lock was taken with;
  `force-unlock` sends it with an empty body, as Terraform does;
* Basic auth (`username`, `password`), TLS (`skip_cert_verification`, `client_ca_certificate_pem`,
  and mutual TLS with `client_certificate_pem` + `client_private_key_pem`), retries (`retry_max`,
  `retry_wait_min`, `retry_wait_max` seconds, on connection errors, 429 and 5xx but 501), and
  every setting from its `TF_HTTP_*` variable when the block leaves it out.

Only the default workspace exists, as in Terraform.
"""
from __future__ import annotations

import base64
import os
import time
from typing import TYPE_CHECKING, Any, Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from tfconsole.backends import Overrides, register_backend
from tfconsole.diags import Diagnostics
from tfconsole.states.locking import LockInfo

from .remote import LockAttempt, RemoteStateManager, journal_dir
from .settings import Settings, schema_types
from .workspaces import DEFAULT_WORKSPACE, WorkspaceBackend

if TYPE_CHECKING:
    import ssl

WORKSPACES_NOT_SUPPORTED = "workspaces not supported"

ATTRIBUTES = {
    # name: (kind, environment variable, default)
    "address": ("string", "TF_HTTP_ADDRESS", ""),
    "update_method": ("string", "TF_HTTP_UPDATE_METHOD", "POST"),
    "lock_address": ("string", "TF_HTTP_LOCK_ADDRESS", None),
    "unlock_address": ("string", "TF_HTTP_UNLOCK_ADDRESS", None),
    "lock_method": ("string", "TF_HTTP_LOCK_METHOD", "LOCK"),
    "unlock_method": ("string", "TF_HTTP_UNLOCK_METHOD", "UNLOCK"),
    "username": ("string", "TF_HTTP_USERNAME", ""),
    "password": ("string", "TF_HTTP_PASSWORD", ""),
    "skip_cert_verification": ("bool", None, False),
    "retry_max": ("int", "TF_HTTP_RETRY_MAX", 2),
    "retry_wait_min": ("int", "TF_HTTP_RETRY_WAIT_MIN", 1),
    "retry_wait_max": ("int", "TF_HTTP_RETRY_WAIT_MAX", 30),
    "client_ca_certificate_pem": ("string", "TF_HTTP_CLIENT_CA_CERTIFICATE_PEM", ""),
    "client_certificate_pem": ("string", "TF_HTTP_CLIENT_CERTIFICATE_PEM", ""),
    "client_private_key_pem": ("string", "TF_HTTP_CLIENT_PRIVATE_KEY_PEM", ""),
}


def _md5(data: bytes) -> str:
    import hashlib  # here, not at the top: every command loads this backend, few use it

    return base64.b64encode(hashlib.md5(data, usedforsecurity=False).digest()).decode("ascii")


def _with_id(url: str, lock_id: str) -> str:
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "ID"]
    query.append(("ID", lock_id))
    return urlunsplit(parts._replace(query=urlencode(sorted(query))))


class HttpClient:
    """The http protocol for the one (default) workspace."""

    def __init__(self, cfg: dict[str, Any]):
        import httpx

        self.cfg = cfg
        self.label = cfg["address"]
        self.lock_id = ""
        self._lock_json: bytes | None = None
        auth = httpx.BasicAuth(cfg["username"], cfg["password"]) if cfg["username"] else None
        self._http = httpx.Client(auth=auth, verify=tls_context(cfg), timeout=httpx.Timeout(60.0, connect=15.0),
                                  follow_redirects=True)

    def close(self) -> None:
        self._http.close()

    def _request(self, method: str, url: str, body: bytes | None, what: str) -> tuple[Any, str]:
        """(response, "") or (None, error): retried as Terraform's retryablehttp does."""
        import httpx

        headers = {}
        if body is not None:
            headers = {"Content-Type": "application/json", "Content-MD5": _md5(body)}
        attempts = max(0, int(self.cfg["retry_max"])) + 1
        err = ""
        for attempt in range(attempts):
            try:
                resp = self._http.request(method, url, content=body, headers=headers)
            except httpx.HTTPError as exc:
                resp, err = None, f"Failed to {what}: {exc}"
            else:
                if not (resp.status_code == 429 or (resp.status_code >= 500 and resp.status_code != 501)):
                    return resp, ""
                err = ""
            if attempt + 1 < attempts:
                wait = min(float(self.cfg["retry_wait_min"]) * (2 ** attempt), float(self.cfg["retry_wait_max"]))
                time.sleep(max(0.0, wait))
        if resp is not None:
            return resp, ""
        return None, f"{err} (giving up after {attempts} attempt(s))"

    def get(self) -> tuple[bytes | None, Diagnostics]:
        diags = Diagnostics()
        resp, err = self._request("GET", self.cfg["address"], None, "get state")
        if resp is None:
            return None, diags.error("Failed to load state", err)
        code = resp.status_code
        if code in (204, 404):
            return None, diags
        if code != 200:
            return None, diags.error("Failed to load state", _status_text(code))
        data = resp.content
        raw = resp.headers.get("Content-MD5")
        if data and raw and raw != _md5(data):
            return None, diags.error("Failed to load state", f"The state from {self.label} does not match its "
                                     f"Content-MD5 header ({raw}); it was not used.")
        return (data or None), diags

    def put(self, data: bytes) -> Diagnostics:
        diags = Diagnostics()
        url = _with_id(self.cfg["address"], self.lock_id) if self.lock_id else self.cfg["address"]
        resp, err = self._request(self.cfg["update_method"] or "POST", url, data, "upload state")
        if resp is None:
            return diags.error("Failed to save state", err)
        if resp.status_code not in (200, 201, 204):
            diags.error("Failed to save state", f"HTTP error: {resp.status_code}")
        return diags

    def lock(self, info: LockInfo) -> LockAttempt:
        if not self.cfg["lock_address"]:
            return LockAttempt(True)
        body = info.to_json().encode("utf-8")
        resp, err = self._request(self.cfg["lock_method"], self.cfg["lock_address"], body, "lock")
        if resp is None:
            return LockAttempt(False, err, retry=False)
        code = resp.status_code
        if code == 200:
            self.lock_id, self._lock_json = info.ID, body
            return LockAttempt(True)
        if code in (409, 423):
            holder = LockInfo.from_json(resp.content.decode("utf-8", "replace"))
            if holder is None:
                return LockAttempt(False, "HTTP remote state already locked, failed to unmarshal body")
            return LockAttempt(False, f"HTTP remote state already locked: ID={holder.ID}", holder)
        return LockAttempt(False, _status_text(code) if code in (401, 403) else
                           f"Unexpected HTTP response code {code}", retry=False)

    def unlock(self, info: LockInfo | None) -> Diagnostics:
        """Release a lock: ours (the body it was taken with), a dead run's (its info), or with
        info None whatever lock the server holds (force-unlock: an empty body)."""
        diags = Diagnostics()
        if not self.cfg["unlock_address"]:
            return diags
        body = None
        if info is not None:
            body = self._lock_json if self._lock_json and info.ID == self.lock_id else info.to_json().encode()
        resp, err = self._request(self.cfg["unlock_method"], self.cfg["unlock_address"], body, "unlock")
        if resp is None:
            return diags.error("Failed to unlock state", err)
        if resp.status_code != 200:
            return diags.error("Failed to unlock state", f"Unexpected HTTP response code {resp.status_code}")
        if info is not None and info.ID == self.lock_id:
            self.lock_id, self._lock_json = "", None
        return diags


def _status_text(code: int) -> str:
    return {401: "HTTP remote state endpoint requires auth", 403: "HTTP remote state endpoint invalid auth",
            500: "HTTP remote state internal server error"}.get(code, f"Unexpected HTTP response code {code}")


class HttpBackend(WorkspaceBackend):
    def __init__(self, working_dir: str, cfg: dict[str, Any], env: Mapping[str, str] | None = None):
        self.working_dir = working_dir
        self.cfg = cfg
        self._env = env if env is not None else os.environ
        self.data_dir = self._env.get("TF_DATA_DIR") or ".terraform"

    def workspaces(self) -> list[str]:
        return [DEFAULT_WORKSPACE]

    def _create_workspace(self, name: str) -> Diagnostics:
        return Diagnostics().error(f"Failed to get configured named states: {WORKSPACES_NOT_SUPPORTED}")

    def new_workspace(self, name: str, *, select: bool = True) -> Diagnostics:
        if name != DEFAULT_WORKSPACE and not self.env_override():
            return self._create_workspace(name)
        return super().new_workspace(name, select=select)

    def _remove_workspace(self, name: str) -> Diagnostics:
        return Diagnostics().error(WORKSPACES_NOT_SUPPORTED)

    # Terraform's `workspace list / select / delete` fail at once on a backend without workspaces
    def check_workspaces(self) -> Diagnostics:
        return Diagnostics().error(WORKSPACES_NOT_SUPPORTED)

    def select_workspace(self, name: str, *, or_create: bool = False) -> tuple[bool, Diagnostics]:
        return False, self.check_workspaces()

    def delete_workspace(self, name: str, **_: Any) -> tuple[bool, Diagnostics]:
        return False, self.check_workspaces()

    def state_manager(self, name: str | None = None, *, lock: bool = True, lock_timeout: float = 0.0,
                      operation: str = "OperationTypeApply") -> Any:
        from . import UnavailableStateManager

        name = name or self.current_workspace()
        if name != DEFAULT_WORKSPACE:
            return UnavailableStateManager(Diagnostics().error(WORKSPACES_NOT_SUPPORTED))
        jd = journal_dir(self.working_dir, self.data_dir, "http", self.cfg["address"])
        return RemoteStateManager(HttpClient(self.cfg), os.path.join(jd, f"{name}.journal"), lock=lock,
                                  lock_timeout=lock_timeout, operation=operation)

    def read_raw(self, name: str = DEFAULT_WORKSPACE) -> tuple[bytes | None, Diagnostics]:
        """A workspace's state as stored, without lock or journal (terraform_remote_state)."""
        if name != DEFAULT_WORKSPACE:
            return None, Diagnostics().error(WORKSPACES_NOT_SUPPORTED)
        client = HttpClient(self.cfg)
        try:
            return client.get()
        finally:
            client.close()

    def force_unlock(self, lock_id: str, *, force: bool = False) -> str | None:
        client = HttpClient(self.cfg)
        try:
            d = client.unlock(None)
        finally:
            client.close()
        return "Failed to unlock state: " + d.errors()[0].detail if d.has_errors else None


def configure(settings: Mapping[str, Any], env: Mapping[str, str]) -> tuple[dict[str, Any] | None, Diagnostics]:
    """The block's settings (with TF_HTTP_* and defaults) checked as Terraform checks them."""
    s = Settings("http", settings, env)
    cfg = s.resolve(ATTRIBUTES)
    diags = s.diags
    if diags.has_errors:
        return None, diags
    if not cfg["address"]:
        return None, diags.error("Invalid backend configuration", "address argument is required")
    for key, what in (("address", "address"), ("lock_address", "lock_address"), ("unlock_address", "unlock_address")):
        v = cfg[key]
        if v is not None and urlsplit(v).scheme not in ("http", "https"):
            diags.error("Invalid backend configuration", f"{what} must be HTTP or HTTPS")
    if bool(cfg["client_certificate_pem"]) != bool(cfg["client_private_key_pem"]):
        diags.error("Invalid backend configuration",
                    "client_certificate_pem and client_private_key_pem must be set together")
    if not diags.has_errors:
        import ssl  # here, not at import: every command registers this backend, few use it

        try:
            tls_context(cfg)
        except (ssl.SSLError, ValueError) as exc:
            diags.error("Invalid backend configuration", f"Failed to configure TLS for the http backend: {exc}")
    return (None if diags.has_errors else cfg), diags


def tls_context(cfg: dict[str, Any]) -> ssl.SSLContext:
    """The TLS settings Terraform's http backend takes: client_ca_certificate_pem as the roots
    to trust (else the system's), skip_cert_verification, and a client certificate and key
    (mutual TLS). ssl loads a certificate chain only from files: the PEMs are written to a
    private temporary directory for the load and removed at once."""
    import ssl

    ctx = ssl.create_default_context(cadata=cfg["client_ca_certificate_pem"] or None)
    if cfg["skip_cert_verification"]:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    if cfg["client_certificate_pem"]:
        import tempfile  # only a client certificate needs it

        with tempfile.TemporaryDirectory(prefix="tfconsole-tls-") as d:  # 0700
            cert, key = os.path.join(d, "cert.pem"), os.path.join(d, "key.pem")
            for path, text in ((cert, cfg["client_certificate_pem"]), (key, cfg["client_private_key_pem"])):
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(text)
            ctx.load_cert_chain(cert, key)
    return ctx


def _from_block(working_dir: str, settings: dict, overrides: Overrides) -> tuple[HttpBackend | None, Diagnostics]:
    cfg, diags = configure(settings, os.environ)
    return (HttpBackend(working_dir, cfg) if cfg is not None else None), diags


register_backend("http", _from_block, schema_types(ATTRIBUTES))
