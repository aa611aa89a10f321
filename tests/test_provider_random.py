"""The built-in random provider, driven through the provider interface."""
from __future__ import annotations

import base64
import re
import string

import pytest

from tfconsole.lang.types import STRING
from tfconsole.lang.values import TList, TMap, Unknown
from tfconsole.providers.builtin import _harness as h
from tfconsole.providers.builtin.random import (
    PET_ADJECTIVES, PET_ADVERBS, PET_NAMES, SPECIAL_CHARS, RandomProvider, bcrypt_check,
)
from tfconsole.providers.registry import default_registry


@pytest.fixture
def p() -> RandomProvider:
    return RandomProvider()


def keepers(**kw: str) -> TMap:
    return TMap(kw, STRING)


def test_registered() -> None:
    assert isinstance(default_registry().create("hashicorp/random"), RandomProvider)
    assert set(RandomProvider().resource_schemas()) == {
        "random_id", "random_bytes", "random_string", "random_password", "random_integer", "random_pet",
        "random_uuid", "random_uuid4", "random_uuid7", "random_shuffle"}


def test_schema_flags(p: RandomProvider) -> None:
    s = p.resource_schemas()
    pw = s["random_password"].block.attributes
    assert pw["result"].sensitive and pw["result"].computed
    assert pw["bcrypt_hash"].sensitive
    assert not s["random_string"].block.attributes["result"].sensitive
    assert pw["length"].required and pw["length"].force_new
    assert pw["special"].optional and pw["special"].computed
    assert s["random_id"].block.attributes["byte_length"].required
    for name, schema in s.items():
        for attr_name, a in schema.block.attributes.items():
            if a.optional or a.required:
                assert a.force_new, (name, attr_name)


# -- random_id ---------------------------------------------------------------


def test_id_create_encodings(p: RandomProvider) -> None:
    plan = h.plan(p, "random_id", None, {"byte_length": 8, "prefix": "pre-"})
    assert plan.planned["hex"] == Unknown(STRING)
    assert plan.planned["byte_length"] == 8
    st = h.create(p, "random_id", {"byte_length": 8, "prefix": "pre-"})
    raw = base64.urlsafe_b64decode(st["id"] + "=" * (-len(st["id"]) % 4))
    assert len(raw) == 8
    assert st["b64_url"] == "pre-" + st["id"]
    assert st["b64_std"] == "pre-" + base64.b64encode(raw).decode()
    assert st["hex"] == "pre-" + raw.hex()
    assert st["dec"] == "pre-" + str(int.from_bytes(raw, "big"))
    assert "=" not in st["id"]


def test_id_values_differ(p: RandomProvider) -> None:
    ids = {h.create(p, "random_id", {"byte_length": 16})["id"] for _ in range(5)}
    assert len(ids) == 5


def test_id_noop_and_keepers_replace(p: RandomProvider) -> None:
    st = h.create(p, "random_id", {"byte_length": 4, "keepers": keepers(a="1")})
    same = h.apply_config(p, "random_id", st, {"byte_length": 4, "keepers": keepers(a="1")})
    assert same.action == "noop" and same.state == st
    ch = h.apply_config(p, "random_id", st, {"byte_length": 4, "keepers": keepers(a="2")})
    assert ch.action == "replace"
    assert ch.plan.requires_replace == [("keepers",)]
    assert ch.plan.planned["hex"] == Unknown(STRING)
    assert ch.state["id"] != st["id"]
    assert ch.state["keepers"] == {"a": "2"}


def test_keepers_null_values_do_not_replace(p: RandomProvider) -> None:
    st = h.create(p, "random_id", {"byte_length": 4})
    ch = h.apply_config(p, "random_id", st, {"byte_length": 4, "keepers": keepers(a=None)})
    assert ch.action == "update"
    assert ch.plan.requires_replace == []
    assert ch.state["id"] == st["id"] and ch.state["hex"] == st["hex"]
    ch2 = h.apply_config(p, "random_id", ch.state, {"byte_length": 4, "keepers": keepers(a="x")})
    assert ch2.action == "replace"


def test_keepers_unknown_forces_replace(p: RandomProvider) -> None:
    st = h.create(p, "random_id", {"byte_length": 4, "keepers": keepers(a="1")})
    cfg = {"byte_length": 4, "keepers": TMap({"a": Unknown(STRING)}, STRING)}
    resp = h.plan(p, "random_id", st, cfg)
    assert resp.requires_replace == [("keepers",)]


def test_id_force_new_args(p: RandomProvider) -> None:
    st = h.create(p, "random_id", {"byte_length": 4})
    resp = h.plan(p, "random_id", st, {"byte_length": 5})
    assert resp.requires_replace == [("byte_length",)]
    resp = h.plan(p, "random_id", st, {"byte_length": 4, "prefix": "x"})
    assert resp.requires_replace == [("prefix",)]


def test_id_import(p: RandomProvider) -> None:
    st = h.import_(p, "random_id", "my-prefix-,p-9hUg")
    assert st["id"] == "p-9hUg"
    assert st["prefix"] == "my-prefix-"
    assert st["byte_length"] == 4
    assert st["hex"] == "my-prefix-" + base64.urlsafe_b64decode("p-9hUg==").hex()
    assert st["b64_url"] == "my-prefix-p-9hUg"
    plain = h.import_(p, "random_id", "p-9hUg")
    assert plain["prefix"] is None and plain["b64_url"] == "p-9hUg"
    # importing then planning the matching config changes nothing
    resp = h.plan(p, "random_id", plain, {"byte_length": 4})
    assert resp.requires_replace == [] and resp.planned == plain
    _, diags = p.import_resource("random_id", "not base64!")
    assert diags.has_errors and diags.errors()[0].summary == "Import Random ID Error"


def test_id_delete_and_read(p: RandomProvider) -> None:
    st = h.create(p, "random_id", {"byte_length": 2})
    assert h.read(p, "random_id", st) == st
    h.destroy(p, "random_id", st)


def test_missing_required(p: RandomProvider) -> None:
    d = p.validate_resource("random_id", {})
    assert [x.summary for x in d.errors()] == ["Missing required argument"]
    assert '"byte_length"' in d.errors()[0].detail


def test_wrong_type(p: RandomProvider) -> None:
    d = p.validate_resource("random_id", {"byte_length": "lots"})
    assert d.errors()[0].summary == "Incorrect attribute value type"
    d = p.validate_resource("random_id", {"byte_length": 1.5})
    assert d.has_errors
    d = p.validate_resource("random_id", {"byte_length": "4"})  # converts, as HCL would
    assert not d.has_errors


def test_computed_only_not_configurable(p: RandomProvider) -> None:
    d = p.validate_resource("random_id", {"byte_length": 4, "hex": "ab"})
    assert d.errors()[0].summary == "Value for unconfigurable attribute"


# -- random_string / random_password -------------------------------------------


def test_string_defaults_and_charset(p: RandomProvider) -> None:
    plan = h.plan(p, "random_string", None, {"length": 40})
    pl = plan.planned
    assert (pl["special"], pl["upper"], pl["lower"], pl["number"], pl["numeric"]) == (True,) * 5
    assert pl["min_upper"] == 0 and pl["result"] == Unknown(STRING)
    st = h.create(p, "random_string", {"length": 40, "special": False, "upper": False})
    assert len(st["result"]) == 40 and st["id"] == st["result"]
    assert set(st["result"]) <= set(string.ascii_lowercase + string.digits)


def test_string_minimums(p: RandomProvider) -> None:
    for _ in range(20):
        st = h.create(p, "random_string", {"length": 8, "min_upper": 2, "min_numeric": 2, "min_special": 2,
                                           "min_lower": 2})
        r = st["result"]
        assert sum(c.isupper() for c in r) >= 2
        assert sum(c.isdigit() for c in r) >= 2
        assert sum(c.islower() for c in r) >= 2
        assert sum(c in SPECIAL_CHARS for c in r) >= 2


def test_string_override_special(p: RandomProvider) -> None:
    st = h.create(p, "random_string", {"length": 60, "upper": False, "lower": False, "numeric": False,
                                       "override_special": "#~"})
    assert set(st["result"]) <= {"#", "~"}


def test_string_validation(p: RandomProvider) -> None:
    d = p.validate_resource("random_string", {"length": 0})
    assert "at least 1" in d.errors()[0].detail
    d = p.validate_resource("random_string", {"length": 3, "min_upper": 2, "min_lower": 2})
    assert d.errors()[0].detail.startswith("Attribute length value must be at least sum of")
    d = p.validate_resource("random_string", {"length": 3, "special": False, "upper": False, "lower": False,
                                              "numeric": False})
    assert d.errors()[0].summary == "Invalid Attribute Combination"
    d = p.validate_resource("random_string", {"length": 3, "number": False})
    assert [w.summary for w in d.warnings()] == ["Attribute Deprecated"]


def test_number_numeric_sync(p: RandomProvider) -> None:
    pl = h.plan(p, "random_string", None, {"length": 5, "number": False}).planned
    assert pl["number"] is False and pl["numeric"] is False
    resp = h.plan(p, "random_string", None, {"length": 5, "number": False, "numeric": True})
    assert resp.diags.errors()[0].summary == "Number and numeric are both configured with different values"


def test_string_replace_and_noop(p: RandomProvider) -> None:
    st = h.create(p, "random_string", {"length": 10})
    assert h.apply_config(p, "random_string", st, {"length": 10}).action == "noop"
    for change in ({"length": 11}, {"length": 10, "special": False}, {"length": 10, "min_upper": 1},
                   {"length": 10, "override_special": "!"}):
        resp = h.plan(p, "random_string", st, change)
        assert resp.requires_replace, change
        assert resp.planned["result"] == Unknown(STRING)


def test_override_special_empty_to_null_no_replace(p: RandomProvider) -> None:
    st = h.create(p, "random_string", {"length": 10, "override_special": ""})
    resp = h.plan(p, "random_string", st, {"length": 10})
    assert resp.requires_replace == []
    assert resp.planned["result"] == st["result"]


def test_string_import(p: RandomProvider) -> None:
    st = h.import_(p, "random_string", "abcd")
    assert st["result"] == "abcd" and st["length"] == 4 and st["id"] == "abcd"
    assert h.plan(p, "random_string", st, {"length": 4}).requires_replace == []
    assert h.plan(p, "random_string", st, {"length": 4, "lower": False}).requires_replace == [("lower",)]


def test_password_bcrypt(p: RandomProvider) -> None:
    plan = h.plan(p, "random_password", None, {"length": 12})
    assert plan.planned["bcrypt_hash"] == Unknown(STRING)
    st = h.create(p, "random_password", {"length": 12})
    assert st["id"] == "none"
    assert len(st["result"]) == 12
    assert st["bcrypt_hash"].startswith("$2a$10$")
    assert bcrypt_check(st["result"], st["bcrypt_hash"])
    assert not bcrypt_check(st["result"] + "x", st["bcrypt_hash"])


def test_password_import(p: RandomProvider) -> None:
    st = h.import_(p, "random_password", "securepassword")
    assert st["result"] == "securepassword" and st["id"] == "none" and st["length"] == 14
    assert bcrypt_check("securepassword", st["bcrypt_hash"])
    assert h.plan(p, "random_password", st, {"length": 14}).requires_replace == []
    resp = h.plan(p, "random_password", st, {"length": 16})
    assert resp.requires_replace == [("length",)]


# -- random_integer ---------------------------------------------------------------


def test_integer(p: RandomProvider) -> None:
    seen = set()
    for _ in range(30):
        st = h.create(p, "random_integer", {"min": 1, "max": 3})
        assert 1 <= st["result"] <= 3 and st["id"] == str(st["result"])
        seen.add(st["result"])
    assert len(seen) > 1
    st = h.create(p, "random_integer", {"min": 5, "max": 5})
    assert st["result"] == 5


def test_integer_seed_is_deterministic(p: RandomProvider) -> None:
    a = [h.create(p, "random_integer", {"min": 0, "max": 10**9, "seed": "s1"})["result"] for _ in range(3)]
    assert len(set(a)) == 1
    b = h.create(p, "random_integer", {"min": 0, "max": 10**9, "seed": "other"})["result"]
    assert b != a[0]


def test_integer_min_gt_max(p: RandomProvider) -> None:
    with pytest.raises(h.ProviderError, match="Create Random Integer Error"):
        h.create(p, "random_integer", {"min": 5, "max": 1})


def test_integer_replace_and_import(p: RandomProvider) -> None:
    st = h.create(p, "random_integer", {"min": 1, "max": 100})
    assert h.plan(p, "random_integer", st, {"min": 1, "max": 101}).requires_replace == [("max",)]
    imp = h.import_(p, "random_integer", "15390,1,50000")
    assert (imp["result"], imp["min"], imp["max"], imp["seed"], imp["id"]) == (15390, 1, 50000, None, "15390")
    imp = h.import_(p, "random_integer", "7,1,9,myseed")
    assert imp["seed"] == "myseed"
    _, d = p.import_resource("random_integer", "1,2")
    assert "expecting {result},{min},{max}" in d.errors()[0].detail
    _, d = p.import_resource("random_integer", "x,1,2")
    assert d.errors()[0].summary == "Import Random Integer Error"


# -- random_pet -----------------------------------------------------------------------


def test_pet(p: RandomProvider) -> None:
    plan = h.plan(p, "random_pet", None, {})
    assert plan.planned["length"] == 2 and plan.planned["separator"] == "-"
    st = h.create(p, "random_pet", {})
    adj, name = st["id"].split("-")
    assert adj in PET_ADJECTIVES and name in PET_NAMES
    st = h.create(p, "random_pet", {"length": 3, "separator": "_", "prefix": "pre"})
    parts = st["id"].split("_")
    assert parts[0] == "pre" and parts[1] in PET_ADVERBS and parts[2] in PET_ADJECTIVES and parts[3] in PET_NAMES
    assert st["prefix"] == "pre"
    one = h.create(p, "random_pet", {"length": 1})
    assert one["id"] in PET_NAMES
    assert h.plan(p, "random_pet", one, {"length": 2}).requires_replace == [("length",)]
    assert h.apply_config(p, "random_pet", one, {"length": 1}).action == "noop"


def test_pet_no_import(p: RandomProvider) -> None:
    _, d = p.import_resource("random_pet", "x")
    assert d.errors()[0].summary == "Resource Import Not Implemented"


# -- random_uuid -------------------------------------------------------------------------


def test_uuid(p: RandomProvider) -> None:
    st = h.create(p, "random_uuid", {})
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", st["result"])
    assert st["id"] == st["result"]
    assert h.apply_config(p, "random_uuid", st, {}).action == "noop"
    ch = h.apply_config(p, "random_uuid", st, {"keepers": keepers(k="v")})
    assert ch.action == "replace" and ch.state["result"] != st["result"]
    imp = h.import_(p, "random_uuid", "AABBCCDD-EEFF-0011-2233-445566778899")
    assert imp["result"] == "aabbccdd-eeff-0011-2233-445566778899"
    _, d = p.import_resource("random_uuid", "nope")
    assert d.errors()[0].summary == "Import Random UUID Error"


# -- random_shuffle --------------------------------------------------------------------------


def test_shuffle(p: RandomProvider) -> None:
    items = TList([str(i) for i in range(10)], STRING)
    st = h.create(p, "random_shuffle", {"input": items})
    assert sorted(st["result"]) == sorted(items) and st["id"] == "-"
    st = h.create(p, "random_shuffle", {"input": items, "result_count": 3})
    assert len(st["result"]) == 3 and len(set(st["result"])) == 3
    st = h.create(p, "random_shuffle", {"input": TList(["a", "b"], STRING), "result_count": 5})
    assert len(st["result"]) == 5
    assert st["result"].count("a") <= 3 and st["result"].count("b") <= 3
    empty = h.create(p, "random_shuffle", {"input": TList([], STRING)})
    assert list(empty["result"]) == []


def test_shuffle_seed_and_replace(p: RandomProvider) -> None:
    items = TList([str(i) for i in range(20)], STRING)
    a = h.create(p, "random_shuffle", {"input": items, "seed": "x"})["result"]
    b = h.create(p, "random_shuffle", {"input": items, "seed": "x"})["result"]
    assert list(a) == list(b)
    st = h.create(p, "random_shuffle", {"input": items})
    resp = h.plan(p, "random_shuffle", st, {"input": TList(["z"], STRING)})
    assert resp.requires_replace == [("input",)]
    assert resp.planned["result"] == Unknown(resp.planned["result"].type)


# -- random_bytes, random_uuid4, random_uuid7 ------------------------------------------------


def test_bytes(p: RandomProvider) -> None:
    a = p.resource_schemas()["random_bytes"].block.attributes
    assert a["base64"].sensitive and a["hex"].sensitive
    st = h.create(p, "random_bytes", {"length": 32})
    raw = base64.b64decode(st["base64"])
    assert len(raw) == 32 and st["hex"] == raw.hex()
    assert h.apply_config(p, "random_bytes", st, {"length": 32}).action == "noop"
    assert h.plan(p, "random_bytes", st, {"length": 16}).requires_replace == [("length",)]
    # keepers use plain RequiresReplace here: even adding a null-valued key replaces
    assert h.plan(p, "random_bytes", st, {"length": 32, "keepers": keepers(a=None)}).requires_replace == [("keepers",)]
    imp = h.import_(p, "random_bytes", base64.b64encode(b"abc").decode())
    assert imp["length"] == 3 and imp["hex"] == b"abc".hex()
    assert p.validate_resource("random_bytes", {"length": 0}).has_errors


def test_uuid4_and_uuid7(p: RandomProvider) -> None:
    import uuid

    u4 = uuid.UUID(h.create(p, "random_uuid4", {})["result"])
    assert u4.version == 4
    st7 = h.create(p, "random_uuid7", {})
    u7 = uuid.UUID(st7["result"])
    assert u7.version == 7
    import time as _t
    assert abs((u7.int >> 80) - _t.time_ns() // 1_000_000) < 60_000
    imp = h.import_(p, "random_uuid7", st7["result"].upper())
    assert imp["result"] == st7["result"]
