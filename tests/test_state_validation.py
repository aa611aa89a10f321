"""Data read back from disk is checked before it is used (issue 7, item 6).

* A state file whose fields have the wrong JSON types is refused when read, with the file, the
  field and the address named, never accepted to crash a plan later.
* A malformed journal record is refused with the journal's path and line; a lock holder keeps
  the journal aside (renamed, never deleted unread) and folds only the valid records; a reader
  reports it and changes nothing. A torn last line is a normal crash artifact and is dropped.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tfconsole.addrs import parse_instance
from tfconsole.states.manager import StateManager
from tfconsole.states.statefile import read_state

TOOL = str(Path(sys.executable).parent / "tfconsole")
P = 'provider["terraform.io/builtin/terraform"]'
LINEAGE = "0b9a4d5e-6d38-4bd8-9d4b-1e7f4c3a2b10"


def good_state() -> dict:
    return {
        "version": 4, "terraform_version": "1.15.0", "serial": 3, "lineage": LINEAGE,
        "outputs": {"o": {"value": ["a", 1], "type": ["tuple", ["string", "number"]]}},
        "resources": [{
            "mode": "managed", "type": "terraform_data", "name": "a", "provider": P,
            "instances": [{"schema_version": 0, "attributes": {"id": "x", "input": None},
                           "sensitive_attributes": [], "identity_schema_version": 0,
                           "dependencies": ["terraform_data.b"], "private": "eyJ4IjoxfQ=="}],
        }],
        "check_results": None,
    }


def inst(doc: dict) -> dict:
    return doc["resources"][0]["instances"][0]


# (name, mutation, expected words in the diagnostic)
BAD_STATES = [
    ("attributes-string", lambda d: inst(d).update(attributes="oops"), ["attributes", "a string"]),
    ("attributes-list", lambda d: inst(d).update(attributes=[1]), ["attributes", "an array"]),
    ("instances-object", lambda d: d["resources"][0].update(instances={}), ["instances", "an object"]),
    ("resources-object", lambda d: d.update(resources={}), ['"resources"', "an object"]),
    ("resource-not-object", lambda d: d.update(resources=[7]), ["resources[0]", "a number"]),
    ("serial-string", lambda d: d.update(serial="3"), ['"serial"', "a string"]),
    ("serial-float", lambda d: d.update(serial=3.5), ['"serial"', "a number"]),
    ("serial-negative", lambda d: d.update(serial=-1), ['"serial"', "negative"]),
    ("serial-bool", lambda d: d.update(serial=True), ['"serial"', "a boolean"]),
    ("lineage-number", lambda d: d.update(lineage=5), ['"lineage"', "a number"]),
    ("tfversion-number", lambda d: d.update(terraform_version=1), ['"terraform_version"', "a number"]),
    ("tfversion-garbage", lambda d: d.update(terraform_version="not a version"), ["not a valid version"]),
    ("outputs-list", lambda d: d.update(outputs=[]), ['"outputs"', "an array"]),
    ("output-bad-type", lambda d: d["outputs"]["o"].update(type=["frob", "x"]), ['output "o"', "frob"]),
    ("output-value-mismatch", lambda d: d["outputs"]["o"].update(value="s"), ['output "o"', "tuple"]),
    ("output-sensitive-string", lambda d: d["outputs"]["o"].update(sensitive="yes"), ["sensitive", "a string"]),
    ("each-bad", lambda d: d["resources"][0].update(each="set"), ['.each"', "set"]),
    ("module-number", lambda d: d["resources"][0].update(module=3), ['.module"', "a number"]),
    ("schema-version-string", lambda d: inst(d).update(schema_version="0"), ["schema_version", "a string"]),
    ("identity-string", lambda d: inst(d).update(identity="x"), ["identity", "a string"]),
    ("private-not-base64", lambda d: inst(d).update(private="%%%"), ["private", "base64"]),
    ("dependencies-number", lambda d: inst(d).update(dependencies=[1]), ["dependencies[0]", "a number"]),
    ("dependencies-bad-address", lambda d: inst(d).update(dependencies=["not an address!"]), ["dependencies[0]"]),
    ("cbd-string", lambda d: inst(d).update(create_before_destroy="true"), ["create_before_destroy"]),
    ("status-number", lambda d: inst(d).update(status=1), ["status", "a number"]),
    ("deposed-number", lambda d: inst(d).update(deposed=12345678), ["deposed", "a number"]),
    ("flat-values", lambda d: inst(d).update(attributes_flat={"a": 1}), ["attributes_flat"]),
    ("sensitive-attrs-object", lambda d: inst(d).update(sensitive_attributes={}), ["sensitive_attributes"]),
    ("index-key-bool", lambda d: inst(d).update(index_key=True), ["invalid instance key"]),
    ("check-results-object", lambda d: d.update(check_results={}), ['"check_results"', "an object"]),
    ("check-results-objects", lambda d: d.update(check_results=[{"object_kind": "resource", "objects": 3}]),
     ["check_results[0].objects", "a number"]),
]


def test_the_good_state_reads() -> None:
    state, d = read_state(json.dumps(good_state()))
    assert not d.has_errors and state is not None
    assert state.current(parse_instance("terraform_data.a")).dependencies == ["terraform_data.b"]


@pytest.mark.parametrize("name,mutate,words", BAD_STATES, ids=[b[0] for b in BAD_STATES])
def test_wrongly_typed_state_fields_are_refused_on_read(tmp_path: Path, name, mutate, words) -> None:
    doc = good_state()
    mutate(doc)
    path = tmp_path / "terraform.tfstate"
    path.write_text(json.dumps(doc))
    state, d = read_state(path)
    assert state is None and d.has_errors, name
    text = " ".join(f"{e.summary}: {e.detail}" for e in d.errors())
    for w in words:
        assert w in text, (w, text)
    if "instance" in name or "attributes" in name or "identity" in name:
        assert "terraform_data.a" in text  # the address is named


@pytest.mark.parametrize("name,mutate,words", [b for b in BAD_STATES if b[0] in (
    "attributes-string", "instances-object", "serial-string", "output-value-mismatch", "dependencies-number")],
    ids=lambda v: v if isinstance(v, str) else "")
def test_commands_refuse_a_wrongly_typed_state(tmp_path: Path, name, mutate, words) -> None:
    doc = good_state()
    mutate(doc)
    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {}\n')
    path = tmp_path / "terraform.tfstate"
    text = json.dumps(doc)
    path.write_text(text)
    for args in (["plan", "-no-color"], ["state", "list"], ["apply", "-auto-approve", "-no-color"]):
        r = subprocess.run([TOOL, f"-chdir={tmp_path}", *args], capture_output=True, text=True, timeout=300,
                           stdin=subprocess.DEVNULL)
        assert r.returncode == 1, (args, r.stdout[-500:])
        assert "Traceback" not in r.stderr and "Internal error" not in r.stderr
        assert str(path) in r.stderr or "terraform.tfstate" in r.stderr, r.stderr
        assert words[0] in r.stderr.replace("\n", " ").replace("│ ", ""), r.stderr
    assert path.read_text() == text  # never rewritten


# ---------------------------------------------------------------------------
# journal records

HEADER = {"k": "h", "lineage": LINEAGE, "serial": 3, "v": 1}


def rec(addr: str, v: str = "v") -> dict:
    return {"k": "r", "a": addr, "p": P, "e": "",
            "o": {"schema_version": 0, "attributes": {"id": v}, "sensitive_attributes": [],
                  "identity_schema_version": 0}}


BAD_RECORDS = [
    ("not-json", b"this is not json"),
    ("array", b"[1, 2]"),
    ("unknown-kind", json.dumps({"k": "z"}).encode()),
    ("address-number", json.dumps({**rec("terraform_data.x"), "a": 5}).encode()),
    ("address-invalid", json.dumps({**rec("terraform_data.x"), "a": "no such thing["}).encode()),
    ("provider-missing", json.dumps({k: v for k, v in rec("terraform_data.x").items() if k != "p"}).encode()),
    ("attributes-string", json.dumps({**rec("terraform_data.x"), "o": {"attributes": "str"}}).encode()),
    ("object-list", json.dumps({**rec("terraform_data.x"), "o": [1]}).encode()),
    ("each-bad", json.dumps({**rec("terraform_data.x"), "e": 3}).encode()),
    ("deposed-short", json.dumps({**rec("terraform_data.x"), "d": "abc"}).encode()),
    ("output-name-number", json.dumps({"k": "o", "n": 1, "v": "x", "t": "string"}).encode()),
    ("output-bad-type", json.dumps({"k": "o", "n": "o", "v": "x", "t": ["nope"]}).encode()),
    ("output-value-mismatch", json.dumps({"k": "o", "n": "o", "v": "x", "t": "bool"}).encode()),
    ("checks-object", json.dumps({"k": "c", "v": {"a": 1}}).encode()),
    ("header-serial-string", json.dumps({"k": "h", "lineage": LINEAGE, "serial": "1"}).encode()),
]


def write_journal(tmp_path: Path, bad: bytes) -> tuple[Path, Path, bytes]:
    path = tmp_path / "terraform.tfstate"
    path.write_text(json.dumps(good_state()))
    lines = [json.dumps(HEADER).encode(), json.dumps(rec("terraform_data.before")).encode(), bad,
             json.dumps(rec("terraform_data.after")).encode()]
    data = b"\n".join(lines) + b"\n"
    journal = tmp_path / "terraform.tfstate.journal"
    journal.write_bytes(data)
    return path, journal, data


@pytest.mark.parametrize("name,bad", BAD_RECORDS, ids=[b[0] for b in BAD_RECORDS])
def test_malformed_journal_record_is_refused_and_kept(tmp_path: Path, name: str, bad: bytes) -> None:
    path, journal, data = write_journal(tmp_path, bad)
    state_text = path.read_text()

    # a reader: reports it (journal and line), changes nothing
    st, d = StateManager(str(path), lock=False).load()
    assert d.has_errors and st is None
    e = d.errors()[0]
    assert e.summary == "Corrupt state journal record"
    assert "Line 3 " in e.detail and str(journal) in e.detail, e.detail
    assert journal.read_bytes() == data and path.read_text() == state_text

    # the lock holder: folds the valid records only, keeps the journal aside, reports both
    m = StateManager(str(path))
    assert not m.lock().has_errors
    st, d = m.load()
    m.close()
    assert d.has_errors
    summaries = [x.summary for x in d.errors()]
    assert "Corrupt state journal record" in summaries and "State journal kept aside" in summaries
    assert not journal.exists()
    kept = list(tmp_path.glob("terraform.tfstate.journal.corrupt-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == data
    written, rd = read_state(path)
    assert not rd.has_errors and written is not None  # never poisoned
    assert written.current(parse_instance("terraform_data.before")) is not None
    assert written.current(parse_instance("terraform_data.after")) is not None
    assert written.current(parse_instance("terraform_data.x")) is None
    assert "o" in written.outputs and written.outputs["o"].value == ["a", 1]

    # and the next run goes on normally
    m2 = StateManager(str(path))
    m2.lock()
    st2, d2 = m2.load()
    m2.close()
    assert not d2.has_errors and st2.current(parse_instance("terraform_data.after")) is not None


def test_cli_reports_a_malformed_journal_record(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {}\n')
    _path, journal, data = write_journal(tmp_path, b'{"k":"r","a":"terraform_data.x","p":7}')

    def tf(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([TOOL, f"-chdir={tmp_path}", *args], capture_output=True, text=True, timeout=300,
                              stdin=subprocess.DEVNULL)

    r = tf("state", "list")
    assert r.returncode == 1 and "Corrupt state journal record" in r.stderr and "Line 3" in r.stderr
    assert "Traceback" not in r.stderr and journal.read_bytes() == data
    r = tf("plan", "-no-color")
    assert r.returncode == 1 and "State journal kept aside" in r.stderr, r.stderr
    assert not journal.exists() and list(tmp_path.glob("terraform.tfstate.journal.corrupt-*"))
    r = tf("state", "list")
    assert r.returncode == 0 and "terraform_data.after" in r.stdout and "terraform_data.x" not in r.stdout


def test_torn_last_line_is_dropped_silently(tmp_path: Path) -> None:
    path, journal, _ = write_journal(tmp_path, json.dumps(rec("terraform_data.mid")).encode())
    with open(journal, "ab") as f:
        f.write(b'{"k":"r","a":"terraform_data.torn","p":')
    m = StateManager(str(path))
    m.lock()
    st, d = m.load()
    m.close()
    assert not d.has_errors and not d.warnings() or all("Recovered" in w.summary for w in d.warnings())
    assert st.current(parse_instance("terraform_data.after")) is not None
    assert st.current(parse_instance("terraform_data.torn")) is None
    assert not journal.exists() and not list(tmp_path.glob("*.corrupt-*"))


def test_many_malformed_records_are_reported_in_bounded_form(tmp_path: Path) -> None:
    path, journal, _ = write_journal(tmp_path, b"\n".join([b"garbage"] * 5000))
    _st, d = StateManager(str(path), lock=False).load()
    assert d.has_errors and len(d.errors()) <= 12
    assert any("4990 more malformed records" in e.detail for e in d.errors())
    assert os.path.exists(journal)


@pytest.mark.parametrize("bad", ["not an address!", {"a": 1}, ["terraform_data.b"], 1])
def test_a_bad_dependency_beside_addresses_already_read_is_refused(bad: object) -> None:
    """Addresses found valid once are not parsed again; an entry beside them still is."""
    doc = good_state()
    good = dict(inst(doc))
    doc["resources"][0]["instances"] = [dict(good, index_key=0),
                                        dict(good, index_key=1, dependencies=["terraform_data.b", bad])]
    doc["resources"][0]["each"] = "list"
    state, diags = read_state(json.dumps(doc))
    assert state is None and diags.has_errors
    assert "instances[1].dependencies[1]" in diags.errors()[0].detail
