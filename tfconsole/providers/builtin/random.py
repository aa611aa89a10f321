"""The `random` provider (registry.terraform.io/hashicorp/random).

random_id, random_string, random_password, random_integer, random_pet, random_uuid and
random_shuffle with the real provider's schemas and plan rules: every argument forces
replacement, `keepers` does unless only null values are added or removed, results are kept
from state (UseStateForUnknown). Randomness comes from `secrets`; seeded resources
(random_integer, random_shuffle with `seed`) are deterministic per seed, though the sequence
is not Go's math/rand so the numbers differ from the real provider's.
"""
from __future__ import annotations

import base64
import binascii
import ctypes
import ctypes.util
import random as _pyrandom
import secrets
import uuid
from typing import Any

from tfconsole.diags import Diagnostics
from tfconsole.lang.types import BOOL, NUMBER, STRING, ListType, MapType

from ._framework import (
    EphemeralType,
    A, FrameworkProvider, PlanContext, ResourceType, at_least, fmt_int, known, requires_replace_if_values_not_null,
    str_list, whole,
)

RETRY_MSG = ("Retry the Terraform operation. If the error still occurs or happens regularly, please contact the "
             "provider developer with hardware and operating system information.\n\n")

KEEPERS = A(MapType(STRING), optional=True, replace_if=requires_replace_if_values_not_null,
            description="Arbitrary map of values that, when changed, will trigger recreation of resource.")


def _computed_str(**kw: Any) -> A:
    return A(STRING, computed=True, use_state=True, **kw)


# ---------------------------------------------------------------------------
# random_id


class RandomID(ResourceType):
    name = "random_id"
    importable = True
    attrs = {
        "keepers": KEEPERS,
        "byte_length": A(NUMBER, required=True, force_new=True, int64=True),
        "prefix": A(STRING, optional=True, force_new=True),
        "b64_url": _computed_str(),
        "b64_std": _computed_str(),
        "hex": _computed_str(),
        "dec": _computed_str(),
        "id": _computed_str(),
    }

    def create(self, planned: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        n = whole(planned.get("byte_length"))
        if n < 0:
            diags.error("Create Random ID error", f"byte_length must not be negative, got: {n}")
            return None
        data = secrets.token_bytes(n)
        return _id_state(data, planned.get("prefix"), planned.get("keepers"), n)

    def import_state(self, id_: str, diags: Diagnostics) -> dict[str, Any] | None:
        prefix = ""
        if "," in id_:
            sep = id_.rindex(",")
            prefix, id_ = id_[:sep], id_[sep + 1:]
        try:
            data = _raw_url_b64decode(id_)
        except ValueError as exc:
            diags.error("Import Random ID Error",
                        "While attempting to import a random id there was a decoding error.\n\n+" + RETRY_MSG +
                        f"Original Error: {exc}")
            return None
        state = _id_state(data, prefix or None, None, len(data))
        state["id"] = id_
        return state


def _raw_url_b64decode(s: str) -> bytes:
    if "=" in s or len(s) % 4 == 1:
        bad = s.index("=") if "=" in s else len(s) - 1
        raise ValueError(f"illegal base64 data at input byte {bad}")
    try:
        return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"illegal base64 data: {exc}") from None


def _id_state(data: bytes, prefix: str | None, keepers: Any, n: int) -> dict[str, Any]:
    p = prefix or ""
    raw_url = base64.urlsafe_b64encode(data).decode().rstrip("=")
    return {
        "id": raw_url,
        "keepers": keepers,
        "byte_length": n,
        "prefix": prefix,
        "b64_url": p + raw_url,
        "b64_std": p + base64.b64encode(data).decode(),
        "hex": p + data.hex(),
        "dec": p + str(int.from_bytes(data, "big")),
    }


# ---------------------------------------------------------------------------
# random_string / random_password

SPECIAL_CHARS = "!@#$%&*()-_=+[]{}<>:?"
NUM_CHARS = "0123456789"
LOWER_CHARS = "abcdefghijklmnopqrstuvwxyz"
UPPER_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _at_least_one_of_true(name: str, value: Any, config: dict, diags: Diagnostics) -> None:
    """number/numeric = false is allowed only while one of special/upper/lower is not false."""
    if value is not False:
        return
    others = ["special", "upper", "lower"]
    for o in others:
        v = config.get(o)
        if v is None or not known(v) or v is True:
            return
    diags.error("Invalid Attribute Combination",
                f"At least one attribute out of [{','.join(others + [name])}] must be specified as true")


def _length_at_least_sum(name: str, value: Any, config: dict, diags: Diagnostics) -> None:
    parts = ["min_upper", "min_lower", "min_numeric", "min_special"]
    vals = [config.get(p) for p in parts]
    if any(v is not None and not known(v) for v in vals):
        return
    total = sum(int(v) for v in vals if v is not None)
    if value < total:
        diags.error("Invalid Attribute Value",
                    f"Attribute {name} value must be at least sum of {' + '.join(parts)}, got: {fmt_int(value)}")


def _string_attrs(sensitive: bool) -> dict[str, A]:
    bool_default = dict(optional=True, computed=True, default=True, force_new=True)
    int_default = dict(optional=True, computed=True, default=0, force_new=True, int64=True)
    attrs = {
        "keepers": KEEPERS,
        "length": A(NUMBER, required=True, force_new=True, int64=True,
                    validators=(at_least(1), _length_at_least_sum)),
        "special": A(BOOL, **bool_default),
        "upper": A(BOOL, **bool_default),
        "lower": A(BOOL, **bool_default),
        "number": A(BOOL, optional=True, computed=True, force_new=True, validators=(_at_least_one_of_true,),
                    deprecated="**NOTE**: This is deprecated, use `numeric` instead."),
        "numeric": A(BOOL, optional=True, computed=True, force_new=True, validators=(_at_least_one_of_true,)),
        "min_numeric": A(NUMBER, **int_default),
        "min_upper": A(NUMBER, **int_default),
        "min_lower": A(NUMBER, **int_default),
        "min_special": A(NUMBER, **int_default),
        "override_special": A(STRING, optional=True, replace_if=_replace_unless_empty_string_to_null),
        "result": A(STRING, computed=True, use_state=True, sensitive=sensitive),
        "id": _computed_str(),
    }
    if sensitive:
        attrs["bcrypt_hash"] = A(STRING, computed=True, use_state=True, sensitive=True)
    return attrs


def _replace_unless_empty_string_to_null(ctx: PlanContext, name: str) -> bool:
    cfg = ctx.config.get(name)
    if cfg is not None and not known(cfg):
        return False
    state = ctx.prior.get(name) if ctx.prior else None
    if cfg is not None or state is None:
        return True
    return state != ""


def _sync_number_numeric(ctx: PlanContext) -> None:
    number = ctx.config.get("number")
    numeric = ctx.config.get("numeric")
    if known(number) and known(numeric) and number != numeric:
        ctx.diags.error("Number and numeric are both configured with different values",
                        "Number is deprecated, use numeric instead")
        return
    if number is None and numeric is None:
        value: Any = True
    elif number is None:
        value = numeric
    else:
        value = number
    ctx.planned["number"] = value
    ctx.planned["numeric"] = value


def create_string(length: int, upper: bool, min_upper: int, lower: bool, min_lower: int, numeric: bool,
                  min_numeric: int, special: bool, min_special: int, override_special: str) -> str:
    specials = override_special or SPECIAL_CHARS
    chars = ""
    if upper:
        chars += UPPER_CHARS
    if lower:
        chars += LOWER_CHARS
    if numeric:
        chars += NUM_CHARS
    if special:
        chars += specials
    if not chars:
        raise ValueError("the character set specified is empty")
    result: list[str] = []
    for charset, count in ((NUM_CHARS, min_numeric), (LOWER_CHARS, min_lower), (UPPER_CHARS, min_upper),
                           (specials, min_special)):
        result.extend(secrets.choice(charset) for _ in range(max(count, 0)))
    result.extend(secrets.choice(chars) for _ in range(max(length - len(result), 0)))
    # shuffle so the guaranteed minimums are not grouped at the front
    for i in range(len(result) - 1, 0, -1):
        j = secrets.randbelow(i + 1)
        result[i], result[j] = result[j], result[i]
    return "".join(result)


def _string_params(planned: dict[str, Any]) -> dict[str, Any]:
    def flag(name: str) -> bool:
        v = planned.get(name)
        return bool(v) if v is not None else False

    return dict(length=whole(planned.get("length")), upper=flag("upper"), min_upper=whole(planned.get("min_upper")),
                lower=flag("lower"), min_lower=whole(planned.get("min_lower")), numeric=flag("numeric"),
                min_numeric=whole(planned.get("min_numeric")), special=flag("special"),
                min_special=whole(planned.get("min_special")),
                override_special=planned.get("override_special") or "")


def _generate(params: dict[str, Any], diags: Diagnostics) -> str | None:
    """A random string for the given arguments; None (with the provider's error) if impossible."""
    try:
        return create_string(**_string_params(params))
    except ValueError as exc:
        _random_read_error(diags, str(exc))
        return None


def _random_read_error(diags: Diagnostics, err: str) -> None:
    diags.error("Random Read Error",
                "While attempting to generate a random value for this resource, a read error was generated.\n\n"
                + RETRY_MSG + f"Original Error: {err}")


def _import_string_state(id_: str) -> dict[str, Any]:
    return {
        "result": id_, "length": len(id_), "special": True, "upper": True, "lower": True, "number": True,
        "numeric": True, "min_special": 0, "min_upper": 0, "min_lower": 0, "min_numeric": 0,
        "override_special": None, "keepers": None,
    }


class RandomString(ResourceType):
    name = "random_string"
    version = 2
    importable = True
    attrs = _string_attrs(sensitive=False)

    def modify_attrs(self, ctx: PlanContext) -> None:
        _sync_number_numeric(ctx)

    def create(self, planned: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        result = _generate(planned, diags)
        if result is None:
            return None
        state = dict(planned)
        state["id"] = result
        state["result"] = result
        return state

    def import_state(self, id_: str, diags: Diagnostics) -> dict[str, Any] | None:
        state = _import_string_state(id_)
        state["id"] = id_
        return state


class RandomPassword(ResourceType):
    name = "random_password"
    version = 3
    importable = True
    attrs = _string_attrs(sensitive=True)

    def modify_attrs(self, ctx: PlanContext) -> None:
        _sync_number_numeric(ctx)

    def create(self, planned: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        result = _generate(planned, diags)
        if result is None:
            return None
        state = dict(planned)
        state["id"] = "none"
        state["result"] = result
        state["bcrypt_hash"] = _hash_or_diag(result, diags)
        return state

    def import_state(self, id_: str, diags: Diagnostics) -> dict[str, Any] | None:
        state = _import_string_state(id_)
        state["id"] = "none"
        state["bcrypt_hash"] = _hash_or_diag(id_, diags)
        return state


def _ephemeral_password_attrs() -> dict[str, A]:
    """random 3.7's ephemeral random_password: the managed one's arguments without keepers,
    the deprecated `number` or an id (nothing is stored, so nothing to replace or identify)."""
    attrs = {k: a for k, a in _string_attrs(sensitive=True).items() if k not in ("keepers", "number", "id")}
    out = {}
    for k, a in attrs.items():
        out[k] = A(a.type, required=a.required, optional=a.optional, computed=a.computed, sensitive=a.sensitive,
                   default=True if k == "numeric" else a.default, int64=a.int64,
                   validators=tuple(v for v in a.validators if v is not _at_least_one_of_true) +
                   ((_at_least_one_of_true,) if k == "numeric" else ()))
    return out


class EphemeralRandomPassword(EphemeralType):
    name = "random_password"
    attrs = _ephemeral_password_attrs()

    def open(self, config: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        result = _generate(config, diags)
        if result is None:
            return None
        out = dict(config)
        out["result"] = result
        out["bcrypt_hash"] = _hash_or_diag(result, diags)
        return out


def _hash_or_diag(password: str, diags: Diagnostics) -> str:
    try:
        return bcrypt_hash(password)
    except (OSError, ValueError) as exc:
        diags.error("Hash Generation Error",
                    "While attempting to generate a hash from the password an error occurred.\n\n"
                    "Verify that the state contains a populated 'result' field, using 'terraform state show', "
                    f"and retry the operation\n\nOriginal Error: {exc}")
        return ""


_BCRYPT_ALPHABET = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _bcrypt_b64(data: bytes) -> str:
    out = []
    bits = 0
    nbits = 0
    for byte in data:
        bits = (bits << 8) | byte
        nbits += 8
        while nbits >= 6:
            nbits -= 6
            out.append(_BCRYPT_ALPHABET[(bits >> nbits) & 0x3F])
    if nbits:
        out.append(_BCRYPT_ALPHABET[(bits << (6 - nbits)) & 0x3F])
    return "".join(out)


def _libcrypt() -> Any:
    name = ctypes.util.find_library("crypt")
    if not name:
        return None
    lib = ctypes.CDLL(name)
    fn = lib.crypt
    fn.restype = ctypes.c_char_p
    fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    return fn


def bcrypt_hash(password: str, cost: int = 10) -> str:
    """A bcrypt hash ("$2a$10$...", golang.org/x/crypto/bcrypt's DefaultCost) of the first 72 bytes."""
    data = password.encode("utf-8")[:72]
    salt = f"$2a${cost:02d}${_bcrypt_b64(secrets.token_bytes(16))[:22]}"
    try:
        import bcrypt as _bcrypt  # type: ignore[import-not-found]

        return _bcrypt.hashpw(data, salt.encode()).decode().replace("$2b$", "$2a$", 1)
    except ImportError:
        pass
    if b"\x00" in data:
        raise ValueError("password contains a NUL byte")
    fn = _libcrypt()
    if fn is None:
        raise OSError("no bcrypt implementation available (install the 'bcrypt' package or libcrypt)")
    out = fn(data, salt.encode())
    if not out or not out.startswith(b"$2"):
        raise OSError("libcrypt does not support bcrypt")
    return out.decode()


def bcrypt_check(password: str, hashed: str) -> bool:
    data = password.encode("utf-8")[:72]
    try:
        import bcrypt as _bcrypt  # type: ignore[import-not-found]

        return _bcrypt.checkpw(data, hashed.replace("$2a$", "$2b$", 1).encode())
    except ImportError:
        pass
    fn = _libcrypt()
    if fn is None:
        raise OSError("no bcrypt implementation available")
    return fn(data, hashed.encode()) == hashed.encode()


# ---------------------------------------------------------------------------
# random_integer


def _seeded_rng(seed: str | None) -> Any:
    """A generator for `seed` (crc64-ISO of the seed, as the real provider derives its seed)."""
    if seed:
        return _pyrandom.Random(_crc64_iso(seed.encode()))
    return secrets.SystemRandom()


def _crc64_iso(data: bytes) -> int:
    poly = 0xD800000000000000
    crc = 0xFFFFFFFFFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ poly if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFFFFFFFFFF


class RandomInteger(ResourceType):
    name = "random_integer"
    importable = True
    attrs = {
        "keepers": KEEPERS,
        "min": A(NUMBER, required=True, force_new=True, int64=True),
        "max": A(NUMBER, required=True, force_new=True, int64=True),
        "seed": A(STRING, optional=True, force_new=True),
        "result": A(NUMBER, computed=True, use_state=True),
        "id": _computed_str(),
    }

    def create(self, planned: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        lo, hi = whole(planned.get("min")), whole(planned.get("max"))
        seed = planned.get("seed") or ""
        if hi < lo:
            diags.error("Create Random Integer Error",
                        "The minimum (minVal) value needs to be smaller than or equal to maximum (maxVal) value.")
            return None
        number = _seeded_rng(seed).randrange(hi + 1 - lo) + lo
        return {"id": str(number), "keepers": planned.get("keepers"), "min": lo, "max": hi,
                "seed": seed or None, "result": number}

    def import_state(self, id_: str, diags: Diagnostics) -> dict[str, Any] | None:
        parts = id_.split(",")
        if len(parts) not in (3, 4):
            diags.error("Import Random Integer Error",
                        "Invalid import usage: expecting {result},{min},{max} or {result},{min},{max},{seed}")
            return None
        values = []
        for what, text in (("value", parts[0]), ("min value", parts[1]), ("max value", parts[2])):
            try:
                values.append(_parse_int64(text))
            except ValueError as exc:
                diags.error("Import Random Integer Error",
                            f"The {what} supplied could not be parsed as an integer.\n\nOriginal Error: {exc}")
                return None
        return {"id": parts[0], "keepers": None, "result": values[0], "min": values[1], "max": values[2],
                "seed": parts[3] if len(parts) == 4 else None}


def _parse_int64(text: str) -> int:
    import re

    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise ValueError(f'strconv.ParseInt: parsing "{text}": invalid syntax')
    v = int(text)
    if not -(2**63) <= v < 2**63:
        raise ValueError(f'strconv.ParseInt: parsing "{text}": value out of range')
    return v


# ---------------------------------------------------------------------------
# random_pet (word lists written for tfconsole; the real provider's lists differ)

PET_ADVERBS = (
    "boldly", "briskly", "calmly", "cheerfully", "cleverly", "closely", "deeply", "eagerly", "evenly",
    "fairly", "firmly", "freely", "gently", "gladly", "greatly", "happily", "highly", "honestly",
    "kindly", "largely", "lightly", "loudly", "lovingly", "merrily", "mildly", "mostly", "neatly",
    "nicely", "openly", "partly", "politely", "possibly", "promptly", "properly", "proudly", "quickly",
    "quietly", "rapidly", "rarely", "really", "safely", "sharply", "simply", "slowly", "smoothly",
    "softly", "solely", "steadily", "strongly", "surely", "sweetly", "swiftly", "truly", "vastly",
    "warmly", "wholly", "widely", "wildly", "wisely",
)
PET_ADJECTIVES = (
    "able", "amazed", "amused", "apt", "awake", "balanced", "bold", "brave", "bright", "busy", "calm",
    "capable", "careful", "casual", "charmed", "cheerful", "civil", "clean", "clever", "close", "cool",
    "cosmic", "crisp", "curious", "daring", "dear", "decent", "direct", "driven", "eager", "easy",
    "electric", "elegant", "enough", "equal", "exact", "fair", "famous", "fancy", "fast", "fine",
    "firm", "fit", "flowing", "fond", "free", "fresh", "friendly", "gentle", "genuine", "giving",
    "glad", "golden", "good", "grand", "great", "handy", "happy", "hardy", "helpful", "heroic",
    "holy", "honest", "humble", "ideal", "immune", "intent", "joint", "just", "keen", "kind", "large",
    "lasting", "legal", "liberal", "light", "lively", "loved", "loyal", "lucky", "magical", "main",
    "major", "mature", "merry", "mighty", "modest", "moving", "mutual", "natural", "neat", "nice",
    "noble", "novel", "open", "optimal", "patient", "peaceful", "perfect", "pleasant", "polite",
    "precious", "present", "pretty", "proper", "proud", "quick", "quiet", "rapid", "rare", "ready",
    "real", "regular", "relaxed", "relevant", "renewed", "rich", "robust", "romantic", "safe", "saving",
    "secure", "select", "sharp", "shining", "simple", "sincere", "smart", "smooth", "solid", "sound",
    "special", "splendid", "stable", "steady", "still", "strong", "stunning", "sunny", "super",
    "superb", "sure", "sweet", "swift", "tender", "thankful", "tidy", "tight", "top", "touched",
    "tough", "true", "trusted", "ultimate", "unique", "up", "upright", "usable", "valid", "vast",
    "viable", "vital", "warm", "welcome", "well", "whole", "wise", "witty", "worthy",
)
PET_NAMES = (
    "aardvark", "alpaca", "anteater", "antelope", "badger", "bat", "bear", "beaver", "bee", "beetle",
    "bison", "boar", "buffalo", "bunny", "camel", "cardinal", "cat", "cattle", "chamois", "cheetah",
    "chicken", "chimp", "cicada", "clam", "cobra", "cod", "condor", "coral", "cougar", "cow", "coyote",
    "crab", "crane", "cricket", "crow", "deer", "dingo", "dodo", "dog", "dolphin", "donkey", "dove",
    "dragon", "duck", "eagle", "eel", "elephant", "elk", "emu", "falcon", "ferret", "finch", "fish",
    "flamingo", "fly", "fox", "frog", "gazelle", "gecko", "gibbon", "giraffe", "gnu", "goat",
    "goldfish", "goose", "gorilla", "grouse", "gull", "hamster", "hare", "hawk", "hen", "heron",
    "hippo", "hog", "hornet", "horse", "hound", "hyena", "ibex", "iguana", "impala", "jackal", "jaguar",
    "jay", "kangaroo", "kid", "kingfish", "kite", "kiwi", "koala", "lamb", "lark", "lemur", "leopard",
    "lion", "lizard", "llama", "lobster", "locust", "lynx", "macaw", "magpie", "mako", "mammoth",
    "marmot", "marten", "mink", "mole", "mongoose", "monkey", "moose", "moth", "mouse", "mule", "newt",
    "ocelot", "octopus", "opossum", "orca", "osprey", "ostrich", "otter", "owl", "ox", "panda",
    "panther", "parrot", "peacock", "pelican", "penguin", "pheasant", "pig", "pigeon", "pony", "poodle",
    "porpoise", "puma", "python", "quail", "rabbit", "raccoon", "ram", "rat", "raven", "reindeer",
    "rhino", "robin", "salmon", "sawfly", "seal", "shark", "sheep", "shrew", "skink", "skunk", "sloth",
    "snail", "snake", "sparrow", "spider", "squid", "squirrel", "stag", "starling", "stork", "swan",
    "tapir", "termite", "tiger", "toad", "tortoise", "toucan", "trout", "tuna", "turkey", "turtle",
    "unicorn", "viper", "vulture", "wallaby", "walrus", "wasp", "weasel", "whale", "wolf", "wombat",
    "worm", "yak", "zebra",
)


def generate_pet(words: int, separator: str) -> str:
    if words <= 0:
        return ""
    if words == 1:
        return secrets.choice(PET_NAMES)
    parts = [secrets.choice(PET_ADVERBS) for _ in range(words - 2)]
    parts.append(secrets.choice(PET_ADJECTIVES))
    parts.append(secrets.choice(PET_NAMES))
    return separator.join(parts)


class RandomPet(ResourceType):
    name = "random_pet"
    attrs = {
        "keepers": KEEPERS,
        "length": A(NUMBER, optional=True, computed=True, default=2, force_new=True, int64=True),
        "prefix": A(STRING, optional=True, force_new=True),
        "separator": A(STRING, optional=True, computed=True, default="-", force_new=True),
        "id": _computed_str(),
    }

    def create(self, planned: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        length = whole(planned.get("length"))
        separator = planned.get("separator") or ""
        prefix = planned.get("prefix") or ""
        pet = generate_pet(length, separator).lower()
        if prefix:
            pet = f"{prefix}{separator}{pet}"
        return {"id": pet, "keepers": planned.get("keepers"), "length": length, "separator": separator,
                "prefix": prefix or None}


# ---------------------------------------------------------------------------
# random_uuid


class RandomUUID(ResourceType):
    name = "random_uuid"
    importable = True
    attrs = {
        "keepers": KEEPERS,
        "result": _computed_str(),
        "id": _computed_str(),
    }

    def create(self, planned: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        # hashicorp/go-uuid: 16 random bytes formatted as a UUID (no version bits set)
        result = _format_uuid(secrets.token_bytes(16))
        return {"id": result, "result": result, "keepers": planned.get("keepers")}

    def import_state(self, id_: str, diags: Diagnostics) -> dict[str, Any] | None:
        try:
            raw = _parse_uuid(id_)
        except ValueError as exc:
            diags.error("Import Random UUID Error",
                        "There was an error during the parsing of the UUID.\n\n" + RETRY_MSG +
                        f"Original Error: {exc}")
            return None
        result = _format_uuid(raw)
        return {"id": result, "result": result, "keepers": None}


def _format_uuid(b: bytes) -> str:
    h = b.hex()
    return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def _parse_uuid(s: str) -> bytes:
    if len(s) != 36:
        raise ValueError(f"uuid string is wrong length: {s}")
    if s[8] != "-" or s[13] != "-" or s[18] != "-" or s[23] != "-":
        raise ValueError(f"uuid is improperly formatted: {s}")
    try:
        return bytes.fromhex(s.replace("-", ""))
    except ValueError as exc:
        raise ValueError(f"encoding/hex: {exc}") from None


# ---------------------------------------------------------------------------
# random_shuffle


class RandomShuffle(ResourceType):
    name = "random_shuffle"
    attrs = {
        "keepers": KEEPERS,
        "seed": A(STRING, optional=True, force_new=True),
        "input": A(ListType(STRING), required=True, force_new=True),
        "result_count": A(NUMBER, optional=True, force_new=True, int64=True),
        "result": A(ListType(STRING), computed=True, use_state=True),
        "id": _computed_str(),
    }

    def create(self, planned: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        state = dict(planned)
        state["id"] = "-"
        items = list(planned.get("input") or [])
        count = whole(planned["result_count"]) if planned.get("result_count") is not None else len(items)
        if count == 0 or not items:
            state["result"] = str_list([])
            return state
        rng = _seeded_rng(planned.get("seed") or "")
        out: list[str] = []
        while len(out) < count:
            perm = list(range(len(items)))
            rng.shuffle(perm)
            for i in perm:
                out.append(items[i])
                if len(out) >= count:
                    break
        state["result"] = str_list(out)
        return state


# ---------------------------------------------------------------------------
# random_bytes, random_uuid4, random_uuid7


class RandomBytes(ResourceType):
    name = "random_bytes"
    importable = True
    attrs = {
        "keepers": A(MapType(STRING), optional=True, force_new=True),
        "length": A(NUMBER, required=True, force_new=True, int64=True, validators=(at_least(1),)),
        "base64": A(STRING, computed=True, sensitive=True, use_state=True),
        "hex": A(STRING, computed=True, sensitive=True, use_state=True),
    }

    def create(self, planned: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        data = secrets.token_bytes(whole(planned.get("length")))
        return {"keepers": planned.get("keepers"), "length": len(data),
                "base64": base64.b64encode(data).decode(), "hex": data.hex()}

    def import_state(self, id_: str, diags: Diagnostics) -> dict[str, Any] | None:
        try:
            data = base64.b64decode(id_.encode("ascii"), validate=True)
        except (binascii.Error, ValueError, UnicodeEncodeError) as exc:
            diags.error("Import Random bytes Error",
                        "There was an error during the parsing of the base64 string.\n\n" + RETRY_MSG +
                        f"Original Error: illegal base64 data ({exc})")
            return None
        return {"keepers": None, "length": len(data), "base64": id_, "hex": data.hex()}


def _uuid_v4() -> str:
    raw = bytearray(secrets.token_bytes(16))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    return _format_uuid(bytes(raw))


def _uuid_v7() -> str:
    import time as _t

    ms = _t.time_ns() // 1_000_000
    raw = bytearray(ms.to_bytes(6, "big") + secrets.token_bytes(10))
    raw[6] = (raw[6] & 0x0F) | 0x70
    raw[8] = (raw[8] & 0x3F) | 0x80
    return _format_uuid(bytes(raw))


class _VersionedUUID(ResourceType):
    importable = True
    attrs = {
        "keepers": KEEPERS,
        "result": _computed_str(),
        "id": _computed_str(),
    }
    generate = staticmethod(_uuid_v4)

    def create(self, planned: dict[str, Any], diags: Diagnostics) -> dict[str, Any] | None:
        result = self.generate()
        return {"id": result, "result": result, "keepers": planned.get("keepers")}

    def import_state(self, id_: str, diags: Diagnostics) -> dict[str, Any] | None:
        try:
            result = str(uuid.UUID(id_))
        except ValueError:
            diags.error("Import Random UUID Error",
                        "There was an error during the parsing of the UUID.\n\n" + RETRY_MSG +
                        f"Original Error: invalid UUID length: {len(id_)}")
            return None
        return {"id": result, "result": result, "keepers": None}


class RandomUUID4(_VersionedUUID):
    name = "random_uuid4"
    generate = staticmethod(_uuid_v4)


class RandomUUID7(_VersionedUUID):
    name = "random_uuid7"
    generate = staticmethod(_uuid_v7)


class RandomProvider(FrameworkProvider):
    type_name = "random"
    source = "registry.terraform.io/hashicorp/random"
    resource_types = (RandomID, RandomBytes, RandomString, RandomPassword, RandomInteger, RandomPet, RandomUUID,
                      RandomUUID4, RandomUUID7, RandomShuffle)
    ephemeral_types = (EphemeralRandomPassword,)
