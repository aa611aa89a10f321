"""ObjectState.plain_attributes: an apply's objects are checked once, as they are stored, for
whether orjson writes their attributes as Terraform does; the journal and the final state write
then skip that walk. The bytes must be the same as without the mark, and a mark that no longer
names the object's attributes must not be trusted."""
from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from tfconsole.addrs import parse_instance
from tfconsole.states.journal import Journal
from tfconsole.states.state import ObjectState, State
from tfconsole.states.statefile import write_state
from tfconsole.states.sync import SyncState

PLAIN = {"id": "x", "input": {"value": "a<b>&", "type": "string"}, "nested": {"a": [1, True, None]}, "z": None}
NOT_PLAIN = [
    {"id": "x", "n": 1.5},                    # a float: cty's number format, not orjson's
    {"id": "x", "n": Decimal("1.25")},        # decoded number
    {"z": "x", "a": "y"},                     # keys out of order
    {"id": "x", "in": {"y": "1", "x": "2"}},  # nested keys out of order
]


def _stored(tmp_path: Path, name: str, attrs_list: list[dict], journal: bool) -> tuple[State, bytes]:
    path = tmp_path / f"{name}.journal"
    j = Journal(None, str(path), "lineage", 1) if journal else None
    sync = SyncState(State(lineage="lineage"), j)
    for i, attrs in enumerate(attrs_list):
        sync.set_current(parse_instance(f"terraform_data.r[{i}]"), ObjectState(attributes=attrs),
                         'provider["terraform.io/builtin/terraform"]', "list")
    if j is not None:
        j.close()
    return sync.unwrap(), path.read_bytes() if journal else b""


def test_an_applied_object_is_marked_only_when_its_attributes_are_plain(tmp_path: Path) -> None:
    state, _ = _stored(tmp_path, "a", [PLAIN, *NOT_PLAIN], journal=True)
    objs = [state.current(parse_instance(f"terraform_data.r[{i}]")) for i in range(1 + len(NOT_PLAIN))]
    assert objs[0].plain_attributes is objs[0].attributes
    assert [o.plain_attributes for o in objs[1:]] == [None] * len(NOT_PLAIN)


def test_journal_and_state_bytes_are_the_same_with_the_mark(tmp_path: Path) -> None:
    attrs = [PLAIN, *NOT_PLAIN, PLAIN]
    marked, marked_journal = _stored(tmp_path, "marked", attrs, journal=True)
    unmarked, _ = _stored(tmp_path, "unmarked", attrs, journal=False)  # no journal: nothing marked
    assert all(i.current.plain_attributes is None for rs in unmarked.resources.values()
               for i in rs.instances.values())
    assert write_state(marked) == write_state(unmarked)
    # the journal lines are those of objects never marked
    for rs in marked.resources.values():
        for inst in rs.instances.values():
            inst.current.plain_attributes = None
    again, again_journal = _stored(tmp_path, "again", attrs, journal=True)
    assert marked_journal.split(b"\n")[1:] == again_journal.split(b"\n")[1:]
    assert write_state(again) == write_state(unmarked)


def test_a_stale_mark_is_not_trusted(tmp_path: Path) -> None:
    state, _ = _stored(tmp_path, "s", [PLAIN], journal=True)
    obj = state.current(parse_instance("terraform_data.r[0]"))
    expected_before = write_state(state)
    obj.attributes = {"z": "x", "a": 1.5}  # replaced after the mark: written by the reference encoder
    assert obj.plain_attributes is not obj.attributes
    text = write_state(state)
    assert text.index('"a": 1.5') < text.index('"z": "x"') and text != expected_before
    fresh = State(lineage=state.lineage)
    fresh.resources = state.resources
    obj.plain_attributes = None
    assert write_state(fresh) == text


def test_a_copy_keeps_the_mark_of_its_shared_attributes(tmp_path: Path) -> None:
    state, _ = _stored(tmp_path, "c", [PLAIN], journal=True)
    copy = state.deep_copy()
    obj = copy.current(parse_instance("terraform_data.r[0]"))
    assert obj.plain_attributes is obj.attributes
    assert obj == state.current(parse_instance("terraform_data.r[0]"))
    obj.plain_attributes = None
    assert obj == state.current(parse_instance("terraform_data.r[0]"))  # the mark is not state content
