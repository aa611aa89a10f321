"""RSA private keys and PKCS #1 v1.5 decryption for rsadecrypt, without a crypto library.

Reads the key formats Go's ssh.ParseRawPrivateKey accepts for RSA: PEM "RSA PRIVATE KEY"
(PKCS #1), "PRIVATE KEY" (PKCS #8) and unencrypted "OPENSSH PRIVATE KEY". Errors carry the
words Terraform's rsadecrypt uses.
"""
from __future__ import annotations

import base64
import re
import struct

__all__ = ["RSAKeyError", "parse_private_key", "decrypt_pkcs1v15"]


class RSAKeyError(ValueError):
    pass


_PEM = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----\r?\n(.*?)-----END \1-----", re.S)
_RSA_OID = bytes.fromhex("2a864886f70d010101")  # 1.2.840.113549.1.1.1


def parse_private_key(text: str) -> tuple[int, int, int]:
    """(n, e, d) of an RSA private key in PEM form."""
    m = _PEM.search(text)
    if m is None:
        raise RSAKeyError("invalid private key: ssh: no key found")
    kind, body = m.group(1), m.group(2)
    if "Proc-Type:" in body and "ENCRYPTED" in body:
        raise RSAKeyError("invalid private key: this private key is passphrase protected")
    b64 = "".join(ln for ln in body.splitlines() if ln and ":" not in ln)
    try:
        der = base64.b64decode(b64, validate=True)
    except ValueError:
        raise RSAKeyError("invalid private key: ssh: no key found") from None
    if kind == "RSA PRIVATE KEY":
        return _pkcs1(der)
    if kind == "PRIVATE KEY":
        return _pkcs8(der)
    if kind == "OPENSSH PRIVATE KEY":
        return _openssh(der)
    raise RSAKeyError(f'invalid private key: ssh: unsupported key type "{kind}"')


def _der(data: bytes, pos: int) -> tuple[int, bytes, int]:
    """(tag, content, next position) of the DER element at pos."""
    if pos + 2 > len(data):
        raise RSAKeyError("invalid ASN1 data in the given private key: data truncated")
    tag, ln = data[pos], data[pos + 1]
    pos += 2
    if ln & 0x80:
        k = ln & 0x7F
        if k == 0 or k > 4 or pos + k > len(data):
            raise RSAKeyError("invalid ASN1 data in the given private key: data truncated")
        ln = int.from_bytes(data[pos:pos + k], "big")
        pos += k
    if pos + ln > len(data):
        raise RSAKeyError("invalid ASN1 data in the given private key: data truncated")
    return tag, data[pos:pos + ln], pos + ln


def _seq_ints(content: bytes) -> list[int]:
    out, pos = [], 0
    while pos < len(content):
        tag, val, pos = _der(content, pos)
        if tag != 0x02:
            raise RSAKeyError("invalid ASN1 data in the given private key: tags don't match")
        out.append(int.from_bytes(val, "big", signed=True))
    return out


def _pkcs1(der: bytes) -> tuple[int, int, int]:
    tag, content, _ = _der(der, 0)
    if tag != 0x30:
        raise RSAKeyError("invalid ASN1 data in the given private key: tags don't match")
    ints = _seq_ints(content)
    if len(ints) < 9 or ints[0] != 0:
        raise RSAKeyError("invalid private key: x509: unsupported private key version")
    return ints[1], ints[2], ints[3]


def _pkcs8(der: bytes) -> tuple[int, int, int]:
    tag, content, _ = _der(der, 0)
    if tag != 0x30:
        raise RSAKeyError("invalid ASN1 data in the given private key: tags don't match")
    _t, _version, pos = _der(content, 0)
    t_alg, alg, pos = _der(content, pos)
    _t, oid, _ = _der(alg, 0)
    if oid != _RSA_OID:
        raise RSAKeyError("invalid private key type: not an RSA key")
    t_key, key, _ = _der(content, pos)
    if t_key != 0x04:
        raise RSAKeyError("invalid ASN1 data in the given private key: tags don't match")
    return _pkcs1(key)


def _ssh_string(data: bytes, pos: int) -> tuple[bytes, int]:
    if pos + 4 > len(data):
        raise RSAKeyError("invalid private key: ssh: malformed OpenSSH key")
    (n,) = struct.unpack(">I", data[pos:pos + 4])
    if pos + 4 + n > len(data):
        raise RSAKeyError("invalid private key: ssh: malformed OpenSSH key")
    return data[pos + 4:pos + 4 + n], pos + 4 + n


def _openssh(data: bytes) -> tuple[int, int, int]:
    magic = b"openssh-key-v1\x00"
    if not data.startswith(magic):
        raise RSAKeyError("invalid private key: ssh: invalid openssh private key format")
    pos = len(magic)
    cipher, pos = _ssh_string(data, pos)
    _kdf, pos = _ssh_string(data, pos)
    _kdfopts, pos = _ssh_string(data, pos)
    if cipher != b"none":
        raise RSAKeyError("invalid private key: this private key is passphrase protected")
    pos += 4  # number of keys
    _pub, pos = _ssh_string(data, pos)
    priv, _ = _ssh_string(data, pos)
    p = 8  # two check integers
    kind, p = _ssh_string(priv, p)
    if kind != b"ssh-rsa":
        raise RSAKeyError("invalid private key type: not an RSA key")
    n, p = _ssh_string(priv, p)
    e, p = _ssh_string(priv, p)
    d, p = _ssh_string(priv, p)
    return int.from_bytes(n, "big"), int.from_bytes(e, "big"), int.from_bytes(d, "big")


def decrypt_pkcs1v15(n: int, d: int, ciphertext: bytes) -> bytes:
    """RSAES-PKCS1-v1_5 decryption (RFC 8017 7.2.2); Go's error text when it fails."""
    k = (n.bit_length() + 7) // 8
    c = int.from_bytes(ciphertext, "big")
    if len(ciphertext) > k or c >= n or k < 11:
        raise RSAKeyError("crypto/rsa: decryption error")
    em = pow(c, d, n).to_bytes(k, "big")
    sep = em.find(b"\x00", 2)
    if em[0] != 0 or em[1] != 2 or sep < 10:
        raise RSAKeyError("crypto/rsa: decryption error")
    return em[sep + 1:]
