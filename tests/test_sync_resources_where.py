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


def test_scan_narrowed_to_a_module_equals_full_scan_across_mutations() -> None:
    """Narrowed to one resource in one module's instances (what a resource vertex asks), the
    answer is what the full scan filtered the same way gives, also after an address is removed
    and added again between calls (the index is rebuilt)."""
    from tfconsole.addrs import Module

    state = State()
    for text in ['terraform_data.a[0]', 'module.m["k1"].terraform_data.a[0]', 'module.m["k2"].terraform_data.a',
                 'module.m["k1"].terraform_data.b', 'module.n.terraform_data.a']:
        state.set_current(parse_instance(text), _obj(), P)
    sync = SyncState(state)
    res = parse_instance("terraform_data.a").resource

    def both(module: Module, keep: object = lambda ra: True) -> tuple[list[str], list[str]]:
        full = sync.resources_where(lambda ra: ra.resource == res and ra.module.module() == module and keep(ra))
        narrow = sync.resources_where(keep, resource=res, module=module)  # type: ignore[arg-type]
        return sorted(str(r[0]) for r in full), sorted(str(r[0]) for r in narrow)

    m = parse_instance('module.m["k1"].terraform_data.a').module.module()
    full, narrow = both(m)
    assert full == narrow == ['module.m["k1"].terraform_data.a', 'module.m["k2"].terraform_data.a']
    full, narrow = both(Module(()))
    assert full == narrow == ["terraform_data.a"]
    k2 = parse_instance('module.m["k2"].terraform_data.a')
    with sync.locked() as st:  # gone, then back under an address object of its own
        st.set_current(k2, None, P)
    assert both(m) == (['module.m["k1"].terraform_data.a'],) * 2
    with sync.locked() as st:
        st.set_current(parse_instance('module.m["k2"].terraform_data.a'), _obj(), P)
        st.set_current(parse_instance('module.m["k3"].terraform_data.a[1]'), _obj(), P)
    full, narrow = both(m, keep=lambda ra: str(ra.module) != 'module.m["k1"]')
    assert full == narrow == ['module.m["k2"].terraform_data.a', 'module.m["k3"].terraform_data.a']
