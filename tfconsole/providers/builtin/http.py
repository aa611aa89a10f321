"""The `http` provider (registry.terraform.io/hashicorp/http): data "http".

Requests go out through httpx. As in the real provider (v3), a response of any status is a
successful read that reports `status_code` (users check it with postconditions) — except the
statuses go-retryablehttp treats as retryable (429, and 5xx other than 501): those are retried
per the `retry` block and, once attempts run out, fail with "giving up after N attempt(s)".
"""
from __future__ import annotations

import base64
import os
import ssl
import tempfile
import time as _time
from typing import Any


from tfconsole.diags import Diagnostics
from tfconsole.lang.types import BOOL, NUMBER, STRING, MapType

from ._framework import (
    A, Block, DataSourceType, FrameworkProvider, also_requires, at_least, conflicts_with, fmt_int,
    format_go_duration, one_of, str_map, whole,
)

_REASONS = {
    100: "Continue", 101: "Switching Protocols", 200: "OK", 201: "Created", 202: "Accepted",
    203: "Non-Authoritative Information", 204: "No Content", 205: "Reset Content", 206: "Partial Content",
    300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
    307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request", 401: "Unauthorized",
    403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 408: "Request Timeout", 409: "Conflict",
    410: "Gone", 418: "I'm a teapot", 422: "Unprocessable Entity", 429: "Too Many Requests",
    500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
    504: "Gateway Timeout",
}


def _max_delay_validator(name: str, value: Any, config: dict, diags: Diagnostics) -> None:
    min_delay = config.get("min_delay_ms")
    if isinstance(min_delay, (int, float)) and value < min_delay:
        diags.error("Invalid Attribute Value",
                    f"Attribute {name} value must be at least sum of retry.min_delay_ms, got: {fmt_int(value)}")


class HTTPData(DataSourceType):
    name = "http"
    attrs = {
        "id": A(STRING, computed=True, description="The URL used for the request."),
        "url": A(STRING, required=True),
        "method": A(STRING, optional=True, validators=(one_of("GET", "POST", "HEAD"),)),
        "request_headers": A(MapType(STRING), optional=True),
        "request_body": A(STRING, optional=True),
        "request_timeout_ms": A(NUMBER, optional=True, int64=True, validators=(at_least(1),)),
        "response_body": A(STRING, computed=True),
        "body": A(STRING, computed=True),
        "response_body_base64": A(STRING, computed=True),
        "ca_cert_pem": A(STRING, optional=True),
        "client_cert_pem": A(STRING, optional=True),
        "client_key_pem": A(STRING, optional=True),
        "insecure": A(BOOL, optional=True),
        "response_headers": A(MapType(STRING), computed=True),
        "status_code": A(NUMBER, computed=True),
    }
    blocks = {
        "retry": Block({
            "attempts": A(NUMBER, optional=True, int64=True, validators=(at_least(0),)),
            "min_delay_ms": A(NUMBER, optional=True, int64=True, validators=(at_least(0),)),
            "max_delay_ms": A(NUMBER, optional=True, int64=True, validators=(at_least(0), _max_delay_validator)),
        }),
    }

    def validate(self, config: dict[str, Any], diags: Diagnostics) -> None:
        conflicts_with("ca_cert_pem", "insecure", config, diags)
        also_requires("client_cert_pem", "client_key_pem", config, diags)
        also_requires("client_key_pem", "client_cert_pem", config, diags)

    def read(self, config: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        url = config["url"]
        method = config.get("method") or "GET"
        verify: Any = True
        tmpfiles: list[str] = []
        try:
            ctx = None
            if config.get("ca_cert_pem") is not None or config.get("client_cert_pem") is not None \
                    or config.get("insecure"):
                ctx = ssl.create_default_context()
                if config.get("insecure"):
                    ctx.check_hostname = False
                    ctx.verify_mode = ssl.CERT_NONE
                if config.get("ca_cert_pem") is not None:
                    ctx = ssl.create_default_context()
                    try:
                        ctx.load_verify_locations(cadata=config["ca_cert_pem"])
                    except (ssl.SSLError, ValueError):
                        diags.error("Error configuring TLS client",
                                    "Error tls: Can't add the CA certificate to certificate pool. Only PEM encoded "
                                    "certificates are supported.")
                        return None
                if config.get("client_cert_pem") is not None and config.get("client_key_pem") is not None:
                    paths = []
                    for pem in (config["client_cert_pem"], config["client_key_pem"]):
                        fd, p = tempfile.mkstemp(suffix=".pem")
                        with os.fdopen(fd, "w") as fh:
                            fh.write(pem)
                        tmpfiles.append(p)
                        paths.append(p)
                    try:
                        ctx.load_cert_chain(paths[0], paths[1])
                    except (ssl.SSLError, ValueError) as exc:
                        diags.error("error creating x509 key pair",
                                    f"error creating x509 key pair from provided pem blocks\n\nError: {exc}")
                        return None
                verify = ctx
            return self._do(config, url, method, verify, diags)
        finally:
            for p in tmpfiles:
                try:
                    os.remove(p)
                except OSError:
                    pass

    def _do(self, config: dict[str, Any], url: str, method: str, verify: Any,
            diags: Diagnostics) -> dict[str, Any] | None:
        import httpx  # imported when a request is made: it costs every command ~20 ms

        headers: dict[str, str] = {}
        for k, v in (config.get("request_headers") or {}).items():
            if v is not None:
                headers[k] = v
        body = config.get("request_body")
        timeout_ms = whole(config.get("request_timeout_ms"))
        timeout = timeout_ms / 1000.0 if timeout_ms > 0 else None
        retry = config.get("retry") or {}
        attempts_max = whole(retry.get("attempts"))
        wait_min = whole(retry["min_delay_ms"]) / 1000.0 if retry.get("min_delay_ms") is not None else 1.0
        wait_max = whole(retry["max_delay_ms"]) / 1000.0 if retry.get("max_delay_ms") is not None else 30.0

        op = method[:1] + method[1:].lower()
        response: httpx.Response | None = None
        last_err: str | None = None
        timed_out = False
        attempt = 0
        try:
            client = httpx.Client(verify=verify, timeout=timeout, follow_redirects=True, trust_env=True,
                                  max_redirects=10)
        except (ValueError, OSError) as exc:
            diags.error("Error creating request", f"Error creating request: {exc}")
            return None
        with client:
            for i in range(attempts_max + 1):
                attempt = i + 1
                response, last_err, timed_out = None, None, False
                retryable = False
                try:
                    req = client.build_request(method, url, headers=headers,
                                               content=body.encode("utf-8") if body is not None else None)
                    response = client.send(req)
                    response.read()
                    code = response.status_code
                    if code == 429:
                        retryable = True
                    elif code == 0 or (code >= 500 and code != 501):
                        retryable = True
                        last_err = f"unexpected HTTP status {code} {_reason(response)}"
                except httpx.UnsupportedProtocol:
                    scheme = url.split(":", 1)[0] if ":" in url else ""
                    last_err = f'{op} "{url}": unsupported protocol scheme "{scheme}"'
                    break
                except httpx.TooManyRedirects:
                    last_err = f'{op} "{url}": stopped after 10 redirects'
                    break
                except httpx.TimeoutException:
                    timed_out = True
                    retryable = True
                    last_err = f'{op} "{url}": context deadline exceeded (Client.Timeout exceeded while awaiting ' \
                               "headers)"
                except httpx.ConnectError as exc:
                    if _is_cert_error(exc):
                        last_err = f'{op} "{url}": tls: failed to verify certificate: {_cause(exc)}'
                        break
                    retryable = True
                    last_err = f'{op} "{url}": {_cause(exc, url)}'
                except (httpx.HTTPError, httpx.InvalidURL, ValueError) as exc:
                    retryable = True
                    last_err = f'{op} "{url}": {_cause(exc, url)}'
                if not retryable:
                    break
                if i >= attempts_max:
                    break
                _time.sleep(_backoff(wait_min, wait_max, i, response))
            failed = last_err is not None or (response is not None and (
                response.status_code == 429 or (response.status_code >= 500 and response.status_code != 501)))
            if failed:
                msg = f"{method} {url} giving up after {attempt} attempt(s)"
                if last_err:
                    msg += f": {last_err}"
                if timed_out:
                    detail = f"timeout error: {msg}"
                    if timeout is not None:
                        detail = f"request exceeded the specified timeout: {format_go_duration(timeout)}, err: {msg}"
                    diags.error("Error making request", detail)
                else:
                    diags.error("Error making request", f"Error making request: {msg}")
                return None
        assert response is not None
        data = response.content
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            diags.warning("Response body is not recognized as UTF-8",
                          "Terraform may not properly handle the response_body if the contents are binary.")
        text = data.decode("utf-8", errors="replace")
        resp_headers: dict[str, list[str]] = {}
        for k, v in response.headers.multi_items():
            resp_headers.setdefault(_canonical_header(k), []).append(v)
        state = dict(config)
        state.update({
            "id": url,
            "response_headers": str_map({k: ", ".join(v) for k, v in resp_headers.items()}),
            "response_body": text,
            "body": text,
            "response_body_base64": base64.b64encode(data).decode(),
            "status_code": response.status_code,
        })
        return state


def _reason(resp: httpx.Response) -> str:
    return _REASONS.get(resp.status_code, resp.reason_phrase or "status code " + str(resp.status_code))


def _backoff(wait_min: float, wait_max: float, attempt: int, resp: httpx.Response | None) -> float:
    """go-retryablehttp's DefaultBackoff (Retry-After honoured on 429 and 503)."""
    if resp is not None and resp.status_code in (429, 503):
        ra = resp.headers.get("Retry-After")
        if ra and ra.isdigit():
            return float(ra)
    sleep = (2 ** attempt) * wait_min
    if sleep > wait_max:
        sleep = wait_max
    return sleep


def _canonical_header(name: str) -> str:
    return "-".join(p[:1].upper() + p[1:].lower() for p in name.split("-"))


def _cause(exc: BaseException, url: str = "") -> str:
    """A transport error in Go's net/http wording where the cause is recognisable."""
    import httpx

    inner = exc.__cause__ or exc.__context__
    text = str(exc) or (str(inner) if inner else exc.__class__.__name__)
    low = text.lower()
    try:
        u = httpx.URL(url)
        host = u.host
        port = u.port or (443 if u.scheme == "https" else 80)
    except (httpx.InvalidURL, TypeError, ValueError):
        host, port = "", 0
    if "connection refused" in low:
        return f"dial tcp {host}:{port}: connect: connection refused"
    if "name or service not known" in low or "nodename nor servname" in low or "name resolution" in low \
            or "no address associated" in low:
        return f"dial tcp: lookup {host}: no such host"
    return text


def _is_cert_error(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "certificate verify failed" in text or "certificate_verify_failed" in text


class HTTPProvider(FrameworkProvider):
    type_name = "http"
    source = "registry.terraform.io/hashicorp/http"
    data_source_types = (HTTPData,)
