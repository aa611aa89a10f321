"""Hash and crypto functions."""
from __future__ import annotations

import base64
import importlib
import os
import warnings

from ..types import NUMBER, STRING
from . import FunctionError, Param, register
from .filesystem import hash_file
from ._gofmt import go_quote
from ._util import whole


_HASHES: dict = {}


def _new(algo: str, data: bytes = b""):
    """A hash object of `algo`. CPython's own implementation where it has one (md5, sha1, sha256,
    sha512): hashlib would load OpenSSL first, 2-3 ms, more than a configuration's hashes cost;
    the same digests either way."""
    make = _HASHES.get(algo)
    if make is None:
        for mod in (f"_{algo}", "_sha2"):  # Python 3.12 keeps sha256 and sha512 in _sha2
            try:
                make = getattr(importlib.import_module(mod), algo)
                break
            except (ImportError, AttributeError):
                continue
        else:
            import hashlib

            make = getattr(hashlib, algo)
        _HASHES[algo] = make
    return make(data)


def _hex(algo):
    return lambda args, ctx: _new(algo, args[0].encode("utf-8")).hexdigest()


def _b64(algo):
    return lambda args, ctx: base64.b64encode(_new(algo, args[0].encode("utf-8")).digest()).decode()


def _fhash(algo, args, ctx):
    h = _new(algo)
    hash_file(args[0], ctx, h)
    return h


def _fhex(algo):
    return lambda args, ctx: _fhash(algo, args, ctx).hexdigest()


def _fb64(algo):
    return lambda args, ctx: base64.b64encode(_fhash(algo, args, ctx).digest()).decode()


for _name, _algo in (("md5", "md5"), ("sha1", "sha1"), ("sha256", "sha256"), ("sha512", "sha512")):
    register(_name, [Param("str", STRING)], STRING)(_hex(_algo))
    register("file" + _name, [Param("path", STRING)], STRING)(_fhex(_algo))
register("base64sha256", [Param("str", STRING)], STRING)(_b64("sha256"))
register("base64sha512", [Param("str", STRING)], STRING)(_b64("sha512"))
register("filebase64sha256", [Param("path", STRING)], STRING)(_fb64("sha256"))
register("filebase64sha512", [Param("path", STRING)], STRING)(_fb64("sha512"))


_BCRYPT_ALPHABET = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _bcrypt_b64(data: bytes) -> str:
    std = base64.b64encode(data).decode().rstrip("=")
    table = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
                          _BCRYPT_ALPHABET)
    return std.translate(table)


MAX_BCRYPT_COST = 15


@register("bcrypt", [Param("str", STRING)], STRING, variadic=Param("cost", NUMBER))
def _bcrypt(args, ctx):
    if len(args) > 2:
        raise FunctionError(f"bcrypt() takes no more than two arguments, but got {len(args)}")
    cost = 10
    if len(args) == 2:
        cost = whole(args[1], "cost", 1)
    if cost < 4:
        cost = 10  # Go's bcrypt falls back to its default cost
    if cost > 31:
        raise FunctionError(f"error occured generating password crypto/bcrypt: cost {cost} is outside "
                            "allowed inclusive range 4..31")
    if cost > MAX_BCRYPT_COST:
        raise FunctionError(f"cost {cost} is above {MAX_BCRYPT_COST}, the most tfconsole computes (each step "
                            "doubles the time: at 31 one hash takes days)")
    if len(args[0].encode("utf-8")) > 72:
        raise FunctionError("error occured generating password bcrypt: password length exceeds 72 bytes")
    salt = _bcrypt_b64(os.urandom(16))[:22]
    setting = f"$2a${cost:02d}${salt}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import crypt  # type: ignore[import-not-found]
        except ImportError:  # pragma: no cover - Python 3.13+
            crypt = None
    if crypt is not None:
        out = crypt.crypt(args[0], setting)
        if out and out.startswith("$2"):
            return "$2a$" + out[4:]
    try:
        import bcrypt as _bc  # type: ignore[import-not-found]
    except ImportError:
        raise FunctionError("bcrypt is not available on this system") from None
    return "$2a$" + _bc.hashpw(args[0].encode(), setting.encode()).decode()[4:]


@register("uuid", [], STRING)
def _uuid_random(args, ctx):
    # hashicorp/go-uuid: 16 random bytes, no version or variant bits
    h = os.urandom(16).hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


@register("uuidv5", [Param("namespace", STRING), Param("name", STRING)], STRING)
def _uuidv5(args, ctx):
    import uuid as _uuid  # here: the module (and `platform` behind it) costs ~2 ms at start-up

    ns_name, name = args
    ns = {"dns": _uuid.NAMESPACE_DNS, "url": _uuid.NAMESPACE_URL, "oid": _uuid.NAMESPACE_OID,
          "x500": _uuid.NAMESPACE_X500}.get(ns_name)
    if ns is None:
        try:
            ns = _uuid.UUID(ns_name)
        except ValueError:
            raise FunctionError(f"uuidv5() doesn't support namespace {ns_name} (invalid UUID length: "
                                f"{len(ns_name)})") from None
    return str(_uuid.uuid5(ns, name))


@register("rsadecrypt", [Param("ciphertext", STRING), Param("privatekey", STRING)], STRING)
def _rsadecrypt(args, ctx):
    from ._rsa import RSAKeyError, decrypt_pkcs1v15, parse_private_key

    s, key = args
    try:
        # Go's StdEncoding skips line breaks
        data = base64.b64decode(s.replace("\r", "").replace("\n", "").encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise FunctionError(f"failed to decode input {go_quote(s)}: cipher text must be base64-encoded", 0) \
            from None
    try:
        n, _e, d = parse_private_key(key)
    except RSAKeyError as exc:
        raise FunctionError(str(exc), 1) from None
    try:
        out = decrypt_pkcs1v15(n, d, data)
    except RSAKeyError as exc:
        raise FunctionError(f"failed to decrypt: {exc}") from None
    return out.decode("utf-8", "replace")
