"""SyncState.resources_where narrowed to one config resource (the orphan scan of every resource
vertex) answers exactly what the full scan answers, also after the state gains or loses
resources between calls."""
from __future__ import annotations

from tfconsole.addrs import parse_instance
from tfconsole.states.state import ObjectState, State
from tfconsole.states.sync import SyncState

P = 'provider["terraform.io/builtin/terraform"]'


def _obj() -> ObjectState:
    return ObjectState(attributes={"id": "x"})


def _both(sync: SyncState, text: str) -> tuple[list, list]:
    res = parse_instance(text).resource
    keep = lambda ra: ra.resource == res  # noqa: E731
    return sync.resources_where(keep), sync.resources_where(keep, resource=res)


def test_narrowed_scan_equals_full_scan_across_mutations() -> None:
    state = State()
    for text in ['terraform_data.a[0]', 'module.m["k1"].terraform_data.a[0]', 'module.m["k2"].terraform_data.a',
                 'module.m["k1"].terraform_data.b', 'data.terraform_remote_state.a']:
        state.set_current(parse_instance(text), _obj(), P)
    sync = SyncState(state)
    full, narrow = _both(sync, "terraform_data.a")
    assert sorted(map(str, (r[0] for r in narrow))) == sorted(map(str, (r[0] for r in full)))
    assert len(full) == 3
    with sync.locked() as st:  # a resource appears and another goes, the count staying the same
        st.set_current(parse_instance('module.n.terraform_data.a[3]'), _obj(), P)
        st.set_current(parse_instance('module.m["k2"].terraform_data.a'), None, P)
    full, narrow = _both(sync, "terraform_data.a")
    assert sorted(map(str, (r[0] for r in narrow))) == sorted(map(str, (r[0] for r in full)))
    assert "module.n.terraform_data.a" in {str(r[0]) for r in narrow}
    assert len(narrow) == 3
    assert _both(sync, "terraform_data.b")[1] and not _both(sync, "terraform_data.zzz")[1]
