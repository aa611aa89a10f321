"""The plugin protocol pieces that need no process: message definitions, wire values, the
handshake line, log attribution, and Terraform's planned-object rules (objchange)."""
from __future__ import annotations

import base64
import json

import msgpack
import pytest

from tfconsole.lang import numbers as N
from tfconsole.lang.types import (
    BOOL,
    DYNAMIC,
    NUMBER,
    STRING,
    ListType,
    MapType,
    ObjectType,
    SetType,
    TupleType,
)
from tfconsole.lang.values import Null, TList, TMap, TSet, Unknown
from tfconsole.plans import objchange
from tfconsole.providers.interface import Attr, BlockSchema, NestedBlock, NestedType
from tfconsole.providers.plugin import wire
from tfconsole.providers.plugin.launcher import LaunchError, parse_handshake
from tfconsole.providers.plugin.log import ProviderLog
from tfconsole.providers.plugin.protocol import protocol
from tfconsole.providers.plugin.schema import from_response

# ---------------------------------------------------------------------------
# messages: our definitions against the ones the `tf` framework generated from the real .proto


def _tf_pb():
    import importlib

    return importlib.import_module("tf.gen.tfplugin_pb2")  # a test dependency: never skipped


def test_rpc_names_per_version() -> None:
    assert protocol(5).rpc("GetProviderSchema")[0] == "/tfplugin5.Provider/GetSchema"
    assert protocol(5).rpc("ConfigureProvider")[0] == "/tfplugin5.Provider/Configure"
    assert protocol(5).rpc("ValidateResourceConfig")[0] == "/tfplugin5.Provider/ValidateResourceTypeConfig"
    assert protocol(5).rpc("StopProvider")[0] == "/tfplugin5.Provider/Stop"
    assert protocol(6).rpc("GetProviderSchema")[0] == "/tfplugin6.Provider/GetProviderSchema"
    assert protocol(6).rpc("ValidateDataResourceConfig")[0] == "/tfplugin6.Provider/ValidateDataResourceConfig"


def test_plan_request_fields_match_the_real_protocol() -> None:
    pb = _tf_pb()
    p = protocol(6)
    dv = p.message("DynamicValue")
    req = p.rpc("PlanResourceChange")[1](
        type_name="t", prior_state=dv(msgpack=b"\x01"), proposed_new_state=dv(msgpack=b"\x02"),
        config=dv(json=b"{}"), prior_private=b"pp", provider_meta=dv(msgpack=b"\x03"),
        client_capabilities=p.message("ClientCapabilities")(deferral_allowed=True, write_only_attributes_allowed=True))
    theirs = pb.PlanResourceChange.Request.FromString(req.SerializeToString())
    assert (theirs.type_name, theirs.prior_state.msgpack, theirs.proposed_new_state.msgpack, theirs.config.json,
            theirs.prior_private, theirs.provider_meta.msgpack) == ("t", b"\x01", b"\x02", b"{}", b"pp", b"\x03")
    # the `tf` package predates client capabilities: field 7, a message with booleans 1 and 2
    caps = p.message("ClientCapabilities")(deferral_allowed=True, write_only_attributes_allowed=True)
    assert caps.SerializeToString() == b"\x08\x01\x10\x01"
    assert req.SerializeToString().endswith(b"\x3a\x04\x08\x01\x10\x01")


def test_write_only_attribute_field_numbers() -> None:
    """Schema.Attribute.write_only is field 10 in protocol 5 and 11 in protocol 6."""
    assert protocol(5).message("Schema.Attribute")(write_only=True).SerializeToString() == b"\x50\x01"
    assert protocol(6).message("Schema.Attribute")(write_only=True).SerializeToString() == b"\x58\x01"


def test_plan_response_from_the_real_protocol() -> None:
    pb = _tf_pb()
    step = pb.AttributePath.Step
    theirs = pb.PlanResourceChange.Response(
        planned_state=pb.DynamicValue(msgpack=b"\x80"), planned_private=b"priv", legacy_type_system=True,
        requires_replace=[pb.AttributePath(steps=[step(attribute_name="tags"), step(element_key_string="k"),
                                                  step(element_key_int=3)])],
        diagnostics=[pb.Diagnostic(severity=pb.Diagnostic.WARNING, summary="s", detail="d",
                                   attribute=pb.AttributePath(steps=[step(attribute_name="a")]))])
    ours = protocol(6).rpc("PlanResourceChange")[2].FromString(theirs.SerializeToString())
    assert ours.planned_state.msgpack == b"\x80" and ours.planned_private == b"priv" and ours.legacy_type_system
    path = wire.path_from_proto(ours.requires_replace[0])
    assert tuple(path) == ("tags", "k", 3) and wire.path_text(path) == '.tags["k"][3]'
    diags = wire.diagnostics_from_proto(ours.diagnostics)
    assert [(d.severity.value, d.summary, d.detail) for d in diags] == [("warning", "s", "d")]
    assert diags.paths == [("a",)]


def test_schema_with_nested_attributes_from_the_real_protocol() -> None:
    pb = _tf_pb()
    attr = pb.Schema.Attribute
    nested = pb.Schema.Object(nesting=pb.Schema.Object.LIST, attributes=[
        attr(name="port", type=b'"number"', required=True), attr(name="host", type=b'"string"', computed=True)])
    block = pb.Schema.Block(attributes=[
        attr(name="id", type=b'"string"', computed=True),
        attr(name="password", type=b'"string"', optional=True, sensitive=True),
        attr(name="listeners", nested_type=nested, optional=True),
    ], block_types=[pb.Schema.NestedBlock(type_name="rule", nesting=pb.Schema.NestedBlock.SET, min_items=1,
                                          block=pb.Schema.Block(attributes=[attr(name="x", type=b'"bool"',
                                                                                 optional=True)]))])
    theirs = pb.GetProviderSchema.Response(resource_schemas={"t": pb.Schema(version=3, block=block)},
                                           server_capabilities=pb.ServerCapabilities(plan_destroy=True))
    got = from_response(protocol(6).message("GetProviderSchema.Response").FromString(theirs.SerializeToString()))
    s = got.resources["t"]
    assert s.version == 3 and got.plan_destroy and not got.diags
    assert s.block.attributes["password"].sensitive and not s.block.attributes["password"].write_only
    listeners = s.block.attributes["listeners"]
    assert listeners.nested is not None and listeners.nested.nesting == "list"
    assert listeners.type == ListType(ObjectType.of({"port": NUMBER, "host": STRING}, frozenset({"host"})))
    assert s.block.blocks["rule"].nesting == "set" and s.block.blocks["rule"].min_items == 1


def test_a_malformed_schema_type_is_a_diagnostic() -> None:
    p = protocol(5)
    resp = p.message("GetProviderSchema.Response")()
    resp.resource_schemas["t"].block.attributes.add(name="a", type=b'["nope"]')
    got = from_response(resp)
    assert got.diags.has_errors and "invalid type" in got.diags.errors()[0].detail


# ---------------------------------------------------------------------------
# wire values


OBJ = ObjectType.of({"s": STRING, "n": NUMBER, "b": BOOL, "l": ListType(STRING), "m": MapType(NUMBER),
                     "set": SetType(STRING), "t": TupleType((STRING, NUMBER)), "d": DYNAMIC})


def test_every_attribute_is_present_and_nulls_are_nil() -> None:
    raw = msgpack.unpackb(wire.encode({"s": "x"}, OBJ), raw=False)
    assert raw == {"s": "x", "n": None, "b": None, "l": None, "m": None, "set": None, "t": None, "d": None}


def test_round_trip_of_every_kind() -> None:
    v = {"s": "é", "n": N.parse("1.5"), "b": True, "l": TList(["a", "b"], STRING), "m": TMap({"k": 2}, NUMBER),
         "set": TSet(["x", "y"], STRING), "t": ["a", 3], "d": {"k": [1, "two"]}}
    back = wire.decode(wire.encode(v, OBJ), OBJ)
    assert back["s"] == "é" and N.equal(back["n"], N.parse("1.5")) and back["b"] is True
    assert isinstance(back["l"], TList) and list(back["l"]) == ["a", "b"]
    assert isinstance(back["m"], TMap) and dict(back["m"]) == {"k": 2}
    assert isinstance(back["set"], TSet) and sorted(back["set"]) == ["x", "y"]
    assert back["t"] == ["a", 3] and back["d"] == {"k": [1, "two"]}


def test_dynamic_values_carry_their_type() -> None:
    raw = msgpack.unpackb(wire.encode({"d": TList(["a"], STRING)}, ObjectType.of({"d": DYNAMIC})), raw=False)
    assert json.loads(raw["d"][0]) == ["list", "string"] and raw["d"][1] == ["a"]


def test_unknowns_are_extension_zero_and_refined_unknowns_survive() -> None:
    ty = ObjectType.of({"a": STRING, "b": NUMBER})
    raw = msgpack.unpackb(wire.encode({"a": Unknown(STRING), "b": None}, ty), raw=False)
    assert isinstance(raw["a"], msgpack.ExtType) and raw["a"].code == 0
    refinements = msgpack.packb({1: False, 2: "pre"})
    data = msgpack.packb({"a": msgpack.ExtType(12, refinements), "b": msgpack.ExtType(7, b"")}, use_bin_type=True)
    got = wire.decode(data, ty)
    assert isinstance(got["a"], wire.RefinedUnknown) and got["a"] == Unknown(STRING)
    assert got["a"].definitely_not_null and got["a"].refinements[2] == "pre"
    assert type(got["b"]) is Unknown and got["b"].type == NUMBER  # any other extension code: unknown
    again = msgpack.unpackb(wire.encode(got, ty), raw=False)
    assert again["a"] == msgpack.ExtType(12, refinements)  # sent back exactly as the provider sent it


def test_big_numbers_travel_as_decimal_strings() -> None:
    ty = ObjectType.of({"n": NUMBER})
    big = 2 ** 70
    assert msgpack.unpackb(wire.encode({"n": big}, ty))["n"] == str(big)
    assert wire.decode(msgpack.packb({"n": str(big)}), ty)["n"] == big
    assert wire.number_to_wire(7) == 7 and wire.number_to_wire(N.parse("0.25")) == 0.25
    assert wire.number_to_wire(N.parse("0.1")) == "0.1"  # not a float64: its text, at full precision
    assert N.equal(wire.decode(msgpack.packb({"n": "0.1"}), ty)["n"], N.parse("0.1"))


def test_typed_nulls_and_bad_data() -> None:
    got = wire.decode(msgpack.packb({"s": None}), ObjectType.of({"s": STRING}))
    assert type(got["s"]) is Null and got["s"].type == STRING
    with pytest.raises(ValueError):
        wire.decode(msgpack.packb({"s": [1]}), ObjectType.of({"s": STRING}))
    with pytest.raises(ValueError):
        wire.decode(msgpack.packb({"d": 5}), ObjectType.of({"d": DYNAMIC}))


# ---------------------------------------------------------------------------
# handshake and log


def test_handshake_lines() -> None:
    cert = b"\x30\x82\x01\x0a" * 5
    text = base64.b64encode(cert).decode().rstrip("=")
    hs = parse_handshake(f"1|6|unix|/tmp/x/plugin1|grpc|{text}\n")
    assert (hs.protocol_version, hs.network, hs.address, hs.server_cert, hs.mux) == (6, "unix", "/tmp/x/plugin1",
                                                                                       cert, False)
    assert hs.target == "unix:/tmp/x/plugin1"
    hs = parse_handshake("1|5|tcp|127.0.0.1:10001|grpc||true")
    assert hs.server_cert is None and hs.mux and hs.target == "127.0.0.1:10001"
    assert parse_handshake("1|5|unix|/s").protocol == "netrpc"
    for bad in ("hello", "2|5|unix|/s|grpc", "x|5|unix|/s|grpc"):
        with pytest.raises(LaunchError):
            parse_handshake(bad)


def test_log_lines_are_attributed_to_the_call_in_flight() -> None:
    log = ProviderLog("p")
    seen = []
    log.add_listener(lambda prov, line: seen.append((prov, line.resource)))
    a = log.begin_call("ApplyResourceChange", "null_resource.a", "null_resource")
    line = log.feed(json.dumps({"@level": "info", "@message": "creating", "@module": "x", "k": 1}))
    assert line is not None and line.resource == "null_resource.a" and line.level == "info"
    assert line.fields == {"@module": "x", "k": 1}
    b = log.begin_call("PlanResourceChange", "aws_x.b", "aws_x")
    assert log.feed("2024/01/01 [DEBUG] ambiguous").resource is None  # two calls in flight
    assert log.feed(json.dumps({"@message": "m", "tf_resource_type": "aws_x"})).resource == "aws_x.b"
    log.end_call(a)
    log.end_call(b)
    assert log.feed("[WARN] after").resource is None and log.tail(1)[0].level == "warn"
    assert [ln.message for ln in log.for_resource("null_resource.a")] == ["creating"]
    assert seen[0] == ("p", "null_resource.a")


# ---------------------------------------------------------------------------
# objchange


BLOCK = BlockSchema(
    attributes={"id": Attr(STRING, computed=True), "name": Attr(STRING, required=True),
                "label": Attr(STRING, optional=True, computed=True), "secret": Attr(STRING, optional=True,
                                                                                    sensitive=True)},
    blocks={"rule": NestedBlock(BlockSchema({"port": Attr(NUMBER, required=True),
                                             "arn": Attr(STRING, computed=True)}), "list")})


def test_proposed_new_keeps_prior_computed_values_in_nested_blocks() -> None:
    rule_t = BLOCK.blocks["rule"].block.implied_type()
    prior = {"id": "i-1", "name": "a", "label": "L", "secret": None,
             "rule": TList([{"port": 80, "arn": "arn:1"}], rule_t)}
    config = {"id": None, "name": "b", "label": None, "secret": None,
              "rule": TList([{"port": 81, "arn": None}, {"port": 82, "arn": None}], rule_t)}
    got = objchange.proposed_new(BLOCK, prior, config)
    assert got["id"] == "i-1" and got["label"] == "L" and got["name"] == "b"
    assert [dict(r) for r in got["rule"]] == [{"port": 81, "arn": "arn:1"}, {"port": 82, "arn": None}]
    created = objchange.proposed_new(BLOCK, None, config)
    assert created["id"] is None or type(created["id"]) is Null  # Terraform proposes null, not unknown


def test_proposed_new_for_nested_attributes() -> None:
    nt = NestedType({"port": Attr(NUMBER, required=True), "host": Attr(STRING, computed=True)}, "map")
    block = BlockSchema({"l": Attr(nt.implied_type(), optional=True, nested=nt)})
    prior = {"l": TMap({"a": {"port": 1, "host": "h"}}, nt.object_type())}
    config = {"l": TMap({"a": {"port": 2, "host": None}, "b": {"port": 3, "host": None}}, nt.object_type())}
    got = objchange.proposed_new(block, prior, config)
    assert got["l"]["a"] == {"port": 2, "host": "h"} and got["l"]["b"]["host"] in (None, Null(STRING))


def test_plan_validity_errors_read_as_terraform_writes_them() -> None:
    config = {"id": None, "name": "a", "label": None, "secret": "s", "rule": TList([], STRING)}
    planned = dict(config, name="b", secret="t", id=Unknown(STRING))
    errs = objchange.assert_plan_valid(BLOCK, None, config, planned)
    texts = sorted(objchange.format_error(e, "x_thing.a") for e in errs)
    name_error = 'x_thing.a.name: planned value cty.StringVal("b") does not match config value cty.StringVal("a")'
    assert texts == [name_error, "x_thing.a.secret: sensitive planned value does not match config value"]


def test_object_compatibility_errors_read_as_terraform_writes_them() -> None:
    planned = {"id": Unknown(STRING), "name": "a", "label": "L", "secret": None, "rule": TList([], STRING)}
    actual = dict(planned, id="i", label="M", name=None)
    errs = [objchange.format_error(e) for e in objchange.assert_object_compatible(BLOCK, planned, actual)]
    assert sorted(errs) == ['.label: was cty.StringVal("L"), but now cty.StringVal("M")',
                            '.name: was cty.StringVal("a"), but now null']
    assert objchange.assert_object_compatible(BLOCK, None, actual)[0][1] == "Root object was absent, but now present"
    assert objchange.gostring(TMap({"k": 1}, NUMBER)) == 'cty.MapVal(map[string]cty.Value{"k":cty.NumberIntVal(1)})'
    assert objchange.gostring(Null(ListType(STRING))) == "cty.NullVal(cty.List(cty.String))"


def test_a_line_read_just_after_its_call_ended_is_still_attributed() -> None:
    log = ProviderLog("p")
    t = log.begin_call("ApplyResourceChange", "x_thing.a", "x_thing")
    log.end_call(t)
    assert log.feed("[INFO] written during the call, read after it").resource == "x_thing.a"
    t1 = log.begin_call("ApplyResourceChange", "x_thing.b", "x_thing")
    t2 = log.begin_call("ApplyResourceChange", "x_thing.c", "x_thing")
    log.end_call(t1)
    log.end_call(t2)
    assert log.feed("[INFO] which one?").resource is None  # two candidates: not guessed
