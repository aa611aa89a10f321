"""A plan's refreshed objects are encoded for the state file only when something reads them
(a saved plan, an apply): an unsaved plan never pays for it, and whoever reads them sees
exactly what an eager encoding gives."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from tfconsole.addrs import parse_instance
from tfconsole.command.main import CLI
from tfconsole.lang.values import mark
from tfconsole.providers.builtin.terraform import TerraformProvider
from tfconsole.states import objcodec
from tfconsole.states.objcodec import EncodeOnRead, encode_object
from tfconsole.states.state import ObjectState, State
from tfconsole.states.statefile import state_body
from tfconsole.walk import context as walk_context

SCHEMA = TerraformProvider().resource_schemas()["terraform_data"]
VALUE = {"id": "i-1", "input": mark("secret"), "output": {"k": ["a", "b"]}, "triggers_replace": None}


def lazy() -> EncodeOnRead:
    return EncodeOnRead(VALUE, SCHEMA, "tainted", "cHJpdg==", ["terraform_data.x"], True, None, 0)


def eager() -> ObjectState:
    attrs, sens = encode_object(VALUE, SCHEMA)
    return ObjectState(attrs, "tainted", SCHEMA.version, sens, "cHJpdg==", ["terraform_data.x"], True, None, 0)


def test_encoded_once_when_first_read(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []

    def counting(value: dict, schema: object) -> tuple:
        calls.append(value)
        return encode_object(value, schema)  # type: ignore[arg-type]

    monkeypatch.setattr(objcodec, "encode_object", counting)
    obj = lazy()
    assert obj.status == "tainted" and obj.private == "cHJpdg==" and not calls
    assert obj.attributes["id"] == "i-1"
    assert obj.sensitive_attributes == [[{"type": "get_attr", "value": "input"}]]
    assert len(calls) == 1


def test_reads_as_the_eager_encoding() -> None:
    obj, plain = lazy(), eager()
    assert obj == plain and plain == obj
    copied = obj.copy()
    assert type(copied) is ObjectState and copied == plain
    obj.attributes = {"id": "other"}  # a reassigned field keeps the other one
    assert obj.attributes == {"id": "other"} and obj.sensitive_attributes == plain.sensitive_attributes
    assert obj != plain


def test_a_state_holding_one_writes_the_same_file() -> None:
    addr = parse_instance("terraform_data.x")
    addr = addr[0] if isinstance(addr, tuple) else addr
    prov = 'provider["terraform.io/builtin/terraform"]'
    a, b = State(lineage="l"), State(lineage="l")
    a.set_current(addr, lazy(), prov)
    b.set_current(addr, eager(), prov)
    assert state_body(a) == state_body(b)
    assert state_body(a.deep_copy()) == state_body(b)


CONFIG = """
resource "terraform_data" "a" {
  count = 3
  input = "a${count.index}"
}
"""


def run(cli_dir: Path, *argv: str) -> int:
    out = io.StringIO()
    return CLI(stdout=out, stderr=out).run([f"-chdir={cli_dir}", *argv])


def test_an_unsaved_plan_encodes_no_refreshed_object(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "main.tf").write_text(CONFIG)
    assert run(tmp_path, "init") == 0
    assert run(tmp_path, "apply", "-auto-approve") == 0
    encoded: list[object] = []
    real = objcodec.encode_object
    counting = lambda v, s: (encoded.append(v), real(v, s))[1]  # noqa: E731
    # wherever the walk encodes an object from: the codec, and the walk context's own import
    monkeypatch.setattr(objcodec, "encode_object", counting)
    monkeypatch.setattr(walk_context, "encode_object", counting)
    assert run(tmp_path, "plan", "-detailed-exitcode") == 0
    assert encoded == []  # three instances refreshed, none encoded
    assert run(tmp_path, "plan", "-out=tfplan") == 0
    assert len(encoded) == 3  # the saved plan carries the refreshed state
