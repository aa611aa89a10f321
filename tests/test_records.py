"""tfconsole.records.dataclass against the standard library's: the same class definitions made by
both must behave the same (construction, defaults, repr, equality, hashing, ordering, frozen
guards, slots, copying, dataclasses.fields / replace / asdict), and the same definitions must
be refused."""
from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import field
from typing import Any

import pytest

from tfconsole import records

OPTIONS = [
    {}, {"frozen": True}, {"frozen": True, "slots": True}, {"slots": True}, {"eq": False},
    {"frozen": True, "order": True}, {"unsafe_hash": True}, {"repr": False}, {"eq": False, "frozen": True},
]


@pytest.fixture(autouse=True, params=["generic", "compiled"])
def init_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test twice: with each class's __init__ run generically (a class's first
    instantiations) and compiled from the first one (later instantiations)."""
    monkeypatch.setattr(records, "_COMPILE_AFTER", 10**9 if request.param == "generic" else 0)
    return request.param


def make(deco: Any, opts: dict) -> dict[str, type]:
    """The same set of classes, made by one decorator."""
    d = deco(**opts)

    @d
    class Empty:
        pass

    @d
    class Point:
        x: int
        y: int = 0

    @d
    class Mixed:
        name: str
        tags: list = field(default_factory=list)
        note: str = field(default="n", repr=False)
        key: tuple = field(default=(), compare=False)
        cached: int = field(default=7, init=False)
        weight: float = field(default=1.0, hash=False)

    @d
    class One:
        value: Any

    @d
    class Child(Point):
        z: int = 5

    return {"Empty": Empty, "Point": Point, "Mixed": Mixed, "One": One, "Child": Child}


CALLS = [
    ("Empty", (), {}), ("Point", (1,), {}), ("Point", (1, 2), {}), ("Point", (), {"y": 3, "x": 4}),
    ("Mixed", ("a",), {}), ("Mixed", ("a", [1]), {"note": "z", "key": (1,), "weight": 2.0}),
    ("One", (float("nan"),), {}), ("One", ([1],), {}), ("Child", (1,), {"z": 9}), ("Child", (1, 2, 3), {}),
]
BAD_CALLS = [("Point", (), {}), ("Point", (1, 2, 3), {}), ("Point", (1,), {"q": 1}), ("Mixed", ("a",), {"cached": 1}),
             ("Point", (1,), {"x": 2})]


def outcome(fn: Any) -> Any:
    try:
        return ("ok", fn())
    except Exception as exc:  # noqa: BLE001 - the exception's type is what is compared
        return ("raised", type(exc).__name__)


def refused(fn: Any) -> Any:
    """Whether an assignment is refused. The exception's type is not compared: on a frozen class
    with slots, the standard guards raise TypeError (their super() names the class as it was
    before slots were added), ours FrozenInstanceError, as for any other frozen class."""
    got = outcome(fn)
    return got if got[0] == "ok" else "refused"


def observe(classes: dict[str, type], name: str, args: tuple, kwargs: dict) -> list:
    cls = classes[name]
    a, b = cls(*args, **kwargs), cls(*args, **kwargs)
    shown = repr(a)
    obs = [shown.split(" object at ")[0] if " object at " in shown else shown, outcome(lambda: a == b), outcome(lambda: a != b), outcome(lambda: a == 1),
           [f.name for f in dataclasses.fields(cls)], outcome(lambda: dataclasses.asdict(a)),
           cls.__hash__ is None, outcome(lambda: hash(a) == hash(b)), outcome(lambda: a < b),
           refused(lambda: setattr(a, "x", 5)), refused(lambda: delattr(a, "x")),
           refused(lambda: setattr(a, "other", 5)), getattr(cls, "__match_args__", None),
           hasattr(a, "__dict__"), outcome(lambda: copy.deepcopy(a) == a), outcome(lambda: copy.copy(a) == a),
           outcome(lambda: pickle.loads(pickle.dumps(a)) == a), dataclasses.is_dataclass(cls)]
    if dataclasses.fields(cls):
        first = dataclasses.fields(cls)[0].name
        obs.append(outcome(lambda: dataclasses.replace(a, **{first: getattr(a, first)}) == a))
    if name == "Mixed":
        obs.append((a.cached, a.tags is not b.tags))
    return obs


@pytest.mark.parametrize("opts", OPTIONS, ids=[",".join(f"{k}={v}" for k, v in o.items()) or "default"
                                               for o in OPTIONS])
def test_same_behaviour_as_the_standard_decorator(opts: dict, monkeypatch) -> None:
    ours, std = make(records.dataclass, opts), make(dataclasses.dataclass, opts)
    for name, args, kwargs in CALLS:
        for classes in (ours, std):  # each set published in turn where pickle looks its classes up
            for cname, c in classes.items():
                c.__qualname__ = cname
                monkeypatch.setitem(globals(), cname, c)
            if classes is ours:
                got = observe(classes, name, args, kwargs)
            else:
                want = observe(classes, name, args, kwargs)
        assert got == want, (name, args, kwargs)
    for name, args, kwargs in BAD_CALLS:
        assert outcome(lambda: ours[name](*args, **kwargs)) == outcome(lambda: std[name](*args, **kwargs))


def test_post_init_runs_after_the_fields_are_set() -> None:
    for deco in (records.dataclass, dataclasses.dataclass):
        @deco
        class P:
            a: int
            seen: list = field(default_factory=list)

            def __post_init__(self) -> None:
                self.seen.append(self.a)

        assert P(3).seen == [3]


def test_definitions_refused_alike() -> None:
    def defs(deco: Any) -> list:
        out = []
        out.append(outcome(lambda: deco(type("A", (), {"__annotations__": {"a": "int", "b": "int"}, "a": 1}))()))
        out.append(outcome(lambda: deco(order=True, eq=False)(type("B", (), {"__annotations__": {"a": "int"}}))))
        out.append(outcome(lambda: deco(order=True)(type("C", (), {"__annotations__": {}, "__lt__": lambda s, o: 1}))))
        out.append(outcome(lambda: deco(frozen=True)(type("D", (), {"__annotations__": {},
                                                                    "__setattr__": lambda s, k, v: 1}))))
        out.append(outcome(lambda: deco(unsafe_hash=True)(type("E", (), {"__annotations__": {},
                                                                         "__hash__": lambda s: 1}))))
        return out

    assert defs(records.dataclass) == defs(dataclasses.dataclass)


def test_explicit_hash_and_eq_kept() -> None:
    for deco in (records.dataclass, dataclasses.dataclass):
        @deco(frozen=True)
        class H:
            a: int

            def __hash__(self) -> int:
                return 42

        @deco
        class Q:
            a: int

            def __eq__(self, other: object) -> bool:
                return True

        assert hash(H(1)) == 42 and Q(1) == Q(2) and Q.__hash__ is None


def test_init_runs_generically_then_is_compiled_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(records, "_COMPILE_AFTER", 3)

    @records.dataclass
    class Lazy:
        a: int
        b: list = field(default_factory=list)

    stub = Lazy.__dict__["__init__"]
    made = [Lazy(i) for i in range(3)]
    assert Lazy.__dict__["__init__"] is stub  # the first three: generic
    made.append(Lazy(3, b=[1]))
    compiled = Lazy.__dict__["__init__"]
    assert compiled is not stub  # the fourth compiled it
    assert Lazy(4).a == 4 and Lazy.__dict__["__init__"] is compiled
    assert [(x.a, x.b) for x in made] == [(0, []), (1, []), (2, []), (3, [1])]
    assert made[0].b is not made[1].b  # a factory per instance on the generic path too
    assert compiled.__code__.co_filename == f"<{Lazy.__qualname__}.__init__>"


def test_compiling_an_init_does_not_call_the_compile_builtin() -> None:
    """The builtin compile() makes the _ast module's node types on its first call (~1-2 ms of a
    command that would otherwise never call it): an __init__ is made by exec of its text."""
    import subprocess
    import sys

    probe = """
import builtins
calls = []
real = builtins.compile
builtins.compile = lambda *a, **k: calls.append(a) or real(*a, **k)
from tfconsole import records
records._COMPILE_AFTER = 0

@records.dataclass(frozen=True)
class P:
    x: int
    y: str = "a"

p = P(1)
assert (p.x, p.y) == (1, "a") and P.__dict__["__init__"].__code__.co_filename == f"<{P.__qualname__}.__init__>"
print(len([a for a in calls if "tfconsole" not in str(a[1])]))
"""
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0"


@pytest.mark.parametrize("call", [lambda C: C(), lambda C: C(1, 2, 3), lambda C: C(1, a=1), lambda C: C(1, c=2),
                                  lambda C: C(b=2)])
def test_a_call_the_signature_refuses_raises_what_the_standard_init_raises(call: Any) -> None:
    ours = records.dataclass(type("R", (), {"__annotations__": {"a": int, "b": int}, "b": 0}))
    theirs = dataclasses.dataclass(type("R", (), {"__annotations__": {"a": int, "b": int}, "b": 0}))
    with pytest.raises(TypeError) as mine:
        call(ours)
    with pytest.raises(TypeError) as std:
        call(theirs)
    assert str(mine.value) == str(std.value)


FIELD_ATTRS = ("name", "type", "default", "default_factory", "init", "repr", "hash", "compare", "metadata",
               "kw_only", "_field_type")


@pytest.mark.parametrize("opts", [o for o in OPTIONS if not o.get("slots")],
                         ids=[",".join(f"{k}={v}" for k, v in o.items()) or "default"
                              for o in OPTIONS if not o.get("slots")])
def test_fields_recorded_as_the_standard_decorator_records_them(opts: dict) -> None:
    ours, theirs = make(records.dataclass, opts), make(dataclasses.dataclass, opts)
    for name in ours:
        got = [tuple(getattr(f, a) for a in FIELD_ATTRS) for f in dataclasses.fields(ours[name])]
        want = [tuple(getattr(f, a) for a in FIELD_ATTRS) for f in dataclasses.fields(theirs[name])]
        assert got == want, name
        assert ours[name].__match_args__ == theirs[name].__match_args__
        for f in dataclasses.fields(ours[name]):  # class attributes: the default, or none for a factory
            assert getattr(ours[name], f.name, "absent") == getattr(theirs[name], f.name, "absent")


def test_plain_classes_take_the_own_field_pass() -> None:
    class Plain:
        __annotations__ = {"a": "int", "b": "list"}
        b = field(default_factory=list)

    assert records._record_fields(Plain) is True
    assert [f.name for f in dataclasses.fields(Plain)] == ["a", "b"]

    class WithClassVar:
        __annotations__ = {"a": "ClassVar[int]"}

    assert records._record_fields(WithClassVar) is False


def test_field_definitions_refused_alike() -> None:
    def defs(deco: Any) -> list:
        return [outcome(lambda: deco(type("M", (), {"__annotations__": {"a": "list"}, "a": []}))),
                outcome(lambda: deco(type("U", (), {"__annotations__": {}, "a": field(default=1)}))),
                outcome(lambda: deco(type("F", (), {"__annotations__": {"a": "int"},
                                                    "a": field(default=1, default_factory=list)})))]

    assert defs(records.dataclass) == defs(dataclasses.dataclass)
    assert defs(records.dataclass)[0] == ("raised", "ValueError")


# HashCached: the hash is computed once per record, copies and pickles compute their own


@records.dataclass(frozen=True, slots=True)
class _Cached(records.HashCached):
    name: str
    parts: tuple


def test_hash_cached_once_and_equal_to_the_standard_hash() -> None:
    calls = []

    class Counting(str):
        def __hash__(self) -> int:
            calls.append(1)
            return str.__hash__(self)

    a = _Cached(Counting("x"), (1, 2))
    standard = dataclasses.make_dataclass("S", [("name", str), ("parts", tuple)], frozen=True)
    assert hash(a) == hash(standard("x", (1, 2))) == hash(a)
    assert len(calls) == 1
    assert not hasattr(a, "__dict__")


def test_hash_cached_survives_copy_and_pickle() -> None:
    a = _Cached("x", (1,))
    hash(a)
    for b in (copy.copy(a), copy.deepcopy(a), pickle.loads(pickle.dumps(a))):
        assert b == a and hash(b) == hash(a) and {b: 1}[a] == 1
    assert dataclasses.replace(a, name="y") != a and hash(dataclasses.replace(a, name="y")) != hash(a)


def test_hash_cached_needs_frozen_slots() -> None:
    for opts in ({"frozen": True}, {"slots": True}, {}, {"frozen": True, "slots": True, "init": False}):
        with pytest.raises(TypeError, match="HashCached"):
            @records.dataclass(**opts)
            class Bad(records.HashCached):
                x: int
    with pytest.raises(TypeError, match="HashCached"):
        @records.dataclass(frozen=True, slots=True)
        class OwnInit(records.HashCached):
            x: int

            def __init__(self, x: int) -> None:
                object.__setattr__(self, "x", x)


def test_eq_identity_first() -> None:
    """A record equals itself without comparing fields (Python 3.13's generated __eq__ does the same)."""
    nan = float("nan")
    p = records.dataclass(frozen=True)(type("P", (), {"__annotations__": {"v": "float"}}))(nan)
    assert p == p
