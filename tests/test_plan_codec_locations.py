"""The plan codec decodes without building locations, and names the exact place on failure."""
import pytest

from tfconsole.plans import Action
from tfconsole.plans.codec import CodecError, decode_change, decode_type, decode_value, encode_change
from tfconsole.plans import ResourceInstanceChange
from tfconsole.addrs import parse_instance
from tfconsole.lang.types import ObjectType, STRING, DYNAMIC
from tfconsole.lang.values import Unknown


def _change_json(key: int) -> dict:
    ch = ResourceInstanceChange(addr=parse_instance(f"terraform_data.a[{key}]"), action=Action.CREATE,
                                provider="provider[\"terraform.io/builtin/terraform\"]", before=None,
                                after={"id": Unknown(STRING), "input": f"a{key}"},
                                schema_type=ObjectType.of({"id": STRING, "input": DYNAMIC}))
    return encode_change(ch)


def test_round_trip_and_shared_types():
    a, b = decode_change(_change_json(0), "m changes[0]"), decode_change(_change_json(1), "m changes[1]")
    assert a.after["input"] == "a0" and isinstance(a.after["id"], Unknown) and b.addr.key == 1
    assert a.schema_type == ObjectType.of({"id": STRING, "input": DYNAMIC})
    assert a.schema_type is b.schema_type  # decoded once, shared (types are immutable)


def test_error_names_change_address_and_path():
    j = _change_json(3)
    j["after"]["o"]["input"] = {"q": 1}
    with pytest.raises(CodecError) as e:
        decode_change(j, "meta changes[7]")
    assert str(e.value).startswith("meta changes[7] (terraform_data.a[3]).after.input: not an encoded value")


def test_nested_value_error_location():
    with pytest.raises(CodecError) as e:
        decode_value({"o": {"k": {"t": [1, {"l": [True, []], "e": "bool"}]}}}, "vars x")
    assert str(e.value).startswith("vars x.k[1][1]: not an encoded value")
    with pytest.raises(CodecError) as e:
        decode_type(["object", {"a": "strin"}], "here")
    assert str(e.value).startswith("here: invalid type")


def test_bad_action_and_field_named():
    j = _change_json(0)
    j["action"] = "explode"
    with pytest.raises(CodecError, match=r"^w \(terraform_data\.a\[0\]\)\.action: unknown action"):
        decode_change(j, "w")
    j = _change_json(0)
    j["create_before_destroy"] = 1
    with pytest.raises(CodecError, match=r"^w \(terraform_data\.a\[0\]\)\.create_before_destroy: expected bool"):
        decode_change(j, "w")


def test_fields_left_at_their_default_are_left_out_and_read_back():
    """A plain create carries only what differs from the defaults; a change whose every field
    holds something, including the values a careless test for "empty" would drop (each.value
    0, an empty identity), comes back field for field."""
    import json

    from tfconsole.plans import Importing

    plain = _change_json(0)
    assert set(plain) == {"addr", "action", "provider", "after", "schema_type"}
    full = ResourceInstanceChange(
        addr=parse_instance('terraform_data.a["k"]'), action=Action.DELETE_THEN_CREATE,
        provider="provider[\"terraform.io/builtin/terraform\"]", before={"id": "x", "input": "old"},
        after={"id": Unknown(STRING), "input": "new"}, schema_type=ObjectType.of({"id": STRING, "input": DYNAMIC}),
        prev_run_addr=parse_instance('terraform_data.b["k"]'), deposed="0123abcd", replace_paths=[("input",)],
        reason="replace_because_cannot_update", private="cHJpdg==", create_before_destroy=True,
        sensitive_paths=[("input",)], each_value=0, importing=Importing("x", {"id": "x"}),
        generated_config="resource {}", import_private="cHJpdg==", write_only=["secret"],
        blocks={"b": {"nesting": "list", "write_only": [], "blocks": {}}}, before_identity={},
        after_identity={"id": "x"}, identity_version=2)
    data = json.loads(json.dumps(encode_change(full)))
    assert data["each_value"] == 0 and data["before_identity"] == {}
    back = decode_change(data, "c")
    for name in full.__dataclass_fields__:
        assert getattr(back, name) == getattr(full, name), name
    for name in ("each_value", "before_identity", "after_identity"):  # None stays None
        assert getattr(decode_change(plain, "c"), name) is None
    empty = decode_change(plain, "c")
    assert (empty.replace_paths, empty.sensitive_paths, empty.write_only, empty.blocks, empty.create_before_destroy,
            empty.identity_version, empty.generated_config, empty.before) == ([], [], [], {}, False, 0, "", None)


def test_plain_changes_decode_as_the_general_decoder_does():
    """The short path for changes holding only addr/action/provider/before/after/schema_type
    gives what the general decoder gives, and a bad field still fails with its location."""
    from tfconsole.plans.codec import _change

    update = ResourceInstanceChange(addr=parse_instance('module.m["k"].terraform_data.a[2]'), action=Action.UPDATE,
                                    provider="provider[\"terraform.io/builtin/terraform\"]",
                                    before={"id": "x", "input": "old"}, after={"id": "x", "input": Unknown(STRING)},
                                    schema_type=ObjectType.of({"id": STRING, "input": DYNAMIC}))
    for j in (_change_json(4), encode_change(update)):
        fast, general = decode_change(j, "c"), _change(j, None)
        for name in general.__dataclass_fields__:
            assert getattr(fast, name) == getattr(general, name), name
    j = encode_change(update)
    j["before"] = "not an object"
    with pytest.raises(CodecError, match=r"^m changes\[1\] \(module\.m\[\"k\"\]\.terraform_data\.a\[2\]\)\.before"):
        decode_change(j, "m changes[1]")
    j = encode_change(update)
    j["provider"] = 7
    with pytest.raises(CodecError, match=r"\.provider: expected str"):
        decode_change(j, "m changes[1]")
