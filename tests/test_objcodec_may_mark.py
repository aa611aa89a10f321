"""may_mark: the plan skips the walks that look for marks in a stored object when the object
and its schema cannot have given any. It must never say False for an object that decodes to
a marked value."""
import pytest

from tfconsole.lang.types import DYNAMIC, STRING
from tfconsole.lang.values import contains_marks
from tfconsole.providers.interface import Attr, BlockSchema, NestedBlock, Schema
from tfconsole.states.objcodec import decode_object, may_mark, remark
from tfconsole.states.state import ObjectState

PLAIN = Schema(BlockSchema({"id": Attr(STRING, computed=True), "v": Attr(DYNAMIC, optional=True)}))
SECRET = Schema(BlockSchema({"id": Attr(STRING, computed=True), "v": Attr(STRING, optional=True, sensitive=True)}))
NESTED = Schema(BlockSchema({"id": Attr(STRING, computed=True)}, {
    "b": NestedBlock(BlockSchema({"k": Attr(STRING, optional=True, sensitive=True)}), "list")}))
PATH = [[{"type": "get_attr", "value": "v"}]]


@pytest.mark.parametrize("schema, attrs, paths", [
    (PLAIN, {"id": "x", "v": {"value": "a", "type": "string"}}, []),
    (PLAIN, {"id": "x", "v": {"value": "a", "type": "string"}}, PATH),
    (SECRET, {"id": "x", "v": "a"}, []),
    (NESTED, {"id": "x", "b": [{"k": "s"}]}, []),
])
def test_a_marked_decoding_or_refresh_is_always_announced(schema: Schema, attrs: dict, paths: list) -> None:
    obj = ObjectState(attributes=attrs, sensitive_attributes=paths)
    value = decode_object(attrs, schema, paths)
    refreshed = remark(value, [], schema)  # what a refresh of it marks: the schema's attributes
    if contains_marks(value) or contains_marks(refreshed):
        assert may_mark(obj, schema)


def test_an_object_without_paths_under_a_plain_schema_is_not_marked() -> None:
    obj = ObjectState(attributes={"id": "x", "v": None})
    assert not may_mark(obj, PLAIN)
    assert may_mark(ObjectState(attributes={"id": "x", "v": None}, sensitive_attributes=PATH), PLAIN)
    assert may_mark(obj, SECRET) and may_mark(ObjectState(attributes={"id": "x"}), NESTED)
