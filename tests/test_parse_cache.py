"""The parse cache: an unchanged file is not parsed again, an edit re-parses one file, and the
cache is data only (JSON, checked field by field), private (0700 / 0600) and never trusted
when it is not ours: a planted or damaged entry is ignored and rebuilt, and never runs code."""
from __future__ import annotations

import json
import os
import pickle
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tfconsole.config import body as B
from tfconsole.config import cache_store as CS
from tfconsole.config import parse_cache as PC
from tfconsole.config.loader import load_config
from tfconsole.lang import ast as A

ROOT = Path(__file__).resolve().parent.parent
MAIN = 'locals {\n  a = { b = [1, -2.5, "x${var.y}"], c = true }\n}\nvariable "y" {\n  default = "z"\n}\n'


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty XDG cache home and an empty in-process memo; returns the tfconsole cache dir."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    PC._MEMO.clear()
    return tmp_path / "xdg" / "tfconsole"


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files actually parsed (not served from a cache)."""
    seen: list[str] = []
    real = B._parse

    def counting(text: str, filename: str) -> Any:
        seen.append(filename)
        return real(text, filename)

    monkeypatch.setattr(B, "_parse", counting)
    return seen


def entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("hcl-*.json"))


def shape(e: Any) -> Any:
    """A comparable form of a syntax tree: node types, fields and ranges."""
    if isinstance(e, list | tuple):
        return [shape(x) for x in e]
    if isinstance(e, A.Expr):
        # the syntax, not what evaluation or a lazy decode keeps beside it: `const` (a constructor's
        # value, known from the cache without evaluating), `_pending` (how to decode its items)
        slots = [n.lstrip("_") for c in type(e).__mro__ for n in getattr(c, "__slots__", ())
                 if n not in ("name_range", "const", "_pending")]
        return [type(e).__name__] + [shape(getattr(e, n, None)) for n in slots]
    if isinstance(e, A.AttrStep | A.IndexStep):
        return repr(e)
    if isinstance(e, B.Body):
        return [shape(e.range), [[a.name, shape(a.expr), shape(a.range), shape(a.name_range)]
                                 for a in e.attributes.values()],
                [[b.type, b.labels, shape(b.body), shape(b.range)] for b in e.blocks]]
    if hasattr(e, "start") and hasattr(e, "filename"):
        return [e.filename, e.start.line, e.start.column, e.start.byte, e.end.line, e.end.column, e.end.byte]
    return [type(e).__name__, e]


def test_unchanged_files_are_not_parsed_again_and_an_edit_reparses_one(
        tmp_path: Path, cache: Path, parses: list[str]) -> None:
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "a.tf").write_text(MAIN)
    (conf / "b.tf").write_text('output "o" {\n  value = local.a\n}\n')
    mod, diags = load_config(str(conf))
    assert not diags.has_errors and sorted(parses) == ["a.tf", "b.tf"]
    first = shape(mod.locals["a"].expr)

    for _ in range(2):  # a new process: the in-process memo is empty, the disk cache is not
        PC._MEMO.clear()
        parses.clear()
        mod, diags = load_config(str(conf))
        assert not diags.has_errors and parses == []
        assert shape(mod.locals["a"].expr) == first

    (conf / "b.tf").write_text('output "o" {\n  value = local.a.c\n}\n')
    PC._MEMO.clear()
    parses.clear()
    mod, diags = load_config(str(conf))
    assert not diags.has_errors and parses == ["b.tf"]


def test_a_module_called_six_times_is_parsed_once(tmp_path: Path, cache: Path, parses: list[str]) -> None:
    conf = tmp_path / "conf"
    (conf / "m").mkdir(parents=True)
    (conf / "m" / "main.tf").write_text('variable "x" {}\noutput "y" {\n  value = var.x\n}\n')
    (conf / "main.tf").write_text("".join(f'module "m{i}" {{\n  source = "./m"\n  x = {i}\n}}\n' for i in range(6)))
    from tfconsole.config import loader

    read: list[str] = []
    real = loader._read_config_file

    def reading(full: str, display: str, diags: Any) -> Any:
        read.append(display)
        return real(full, display, diags)

    loader._read_config_file = reading  # type: ignore[assignment]
    try:
        mod, diags = load_config(str(conf))
    finally:
        loader._read_config_file = real  # type: ignore[assignment]
    assert not diags.has_errors and len(mod.children) == 6
    assert sorted(parses) == ["m/main.tf", "main.tf"]
    assert sorted(read) == ["m/main.tf", "main.tf"]  # read once too, and its text shared
    assert len({id(c.files["m/main.tf"]) for c in mod.children.values()}) == 1


def test_cache_directory_is_private_and_entries_are_json(cache: Path) -> None:
    PC.parse_file_cached(MAIN, "main.tf")
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    [entry] = entries(cache)
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    doc = json.loads(entry.read_text())
    assert doc["format"] == PC.CACHE_FORMAT and entry.name == f"hcl-{doc['key']}.json"


def test_cached_tree_equals_a_fresh_parse_for_every_configuration_in_the_repository(cache: Path) -> None:
    files = sorted(p for d in ("tests", "configs") for p in (ROOT / d).rglob("*.tf"))
    assert len(files) > 100
    for p in files:
        try:
            text = p.read_text()
        except UnicodeDecodeError:  # fmt's invalid UTF-8 case: refused before parsing
            continue
        fresh, diags, numbers = B._parse(text, "x.tf")
        if fresh is None or len(diags):
            continue
        doc = json.loads(json.dumps(PC.encode_body(fresh, numbers)))
        assert shape(PC.decode_body(doc, "x.tf")) == shape(fresh), p


def plant(cache: Path, text: str, payload: bytes, mode: int = 0o600) -> Path:
    cache.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = cache / f"hcl-{PC.entry_key(text)}.json"
    path.write_bytes(payload)
    os.chmod(path, mode)
    return path


class _Marker:
    """Unpickling this would create a marker file."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self) -> Any:
        return (os.system, (f"touch {self.path}",))


def test_a_planted_pickle_is_never_run_and_is_replaced(tmp_path: Path) -> None:
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "main.tf").write_text(MAIN + 'output "o" {\n  value = local.a.c\n}\n')
    marker = tmp_path / "pwned"
    xdg = tmp_path / "xdg"
    env = dict(os.environ, XDG_CACHE_HOME=str(xdg))
    # the entry's exact name, computed in a process with the same code
    key = subprocess.run([sys.executable, "-c", "import sys; from tfconsole.config.parse_cache import entry_key; "
                          "print(entry_key(open(sys.argv[1]).read()))", str(conf / "main.tf")],
                         capture_output=True, text=True, check=True).stdout.strip()
    path = plant(xdg / "tfconsole", "", pickle.dumps(_Marker(str(marker))))
    path = path.rename(path.with_name(f"hcl-{key}.json"))
    for _ in range(2):
        p = subprocess.run([sys.executable, "-m", "tfconsole.command.main", f"-chdir={conf}", "plan", "-no-color"],
                           capture_output=True, text=True, env=env, timeout=300, stdin=subprocess.DEVNULL)
        assert p.returncode == 0, p.stdout + p.stderr
        assert "o = true" in p.stdout
    assert not marker.exists()
    assert json.loads(path.read_text())["key"] == key  # rebuilt as a real entry


@pytest.mark.parametrize("payload", [
    b"", b"not json", b"[]", b'{"format": FORMAT}', b"\x80\x04\x95", b"[" * 100_000,
    b'{"format": FORMAT, "key": "KEY", "body": {"rng": [1, 1, 0, 1, 2], "body": [[], [], 0]}}',
    b'{"format": FORMAT, "key": "KEY", "body": {"rng": [1, 1, 0, 1, 2, true], "body": [[], [], 0]}}',
    b'{"format": FORMAT, "key": "KEY", "body": {"rng": [], "body": [[], [], 3]}}',
    b'{"format": FORMAT, "key": "KEY", "body": {"rng": [], "body": [[["a", ["B", "+", null, null, -1], -1, -1]], [], -1]}}',
    b'{"format": FORMAT, "key": "KEY", "body": {"rng": [], "body": [[["a", ["Z", 1, -1], -1, -1]], [], -1]}}',
    b'{"format": FORMAT, "key": "KEY", "body": {"rng": [], "body": [[["a", ["N", "x", false, -1], -1, -1]], [], -1]}}',
    b'{"format": FORMAT, "key": "KEY", "body": {"rng": [], "body": [[["a", ["K", null, null, -1], -1, -1]], [], -1]}}',
    b'{"format": FORMAT, "key": "KEY", "body": {"rng": [], "body": [[["a", ["L", 1.5, -1], -1, -1]], [], -1]}}',
])
def test_damaged_entries_are_ignored_and_rebuilt(cache: Path, parses: list[str], payload: bytes) -> None:
    fresh = shape(B._parse(MAIN, "main.tf")[0])
    parses.clear()
    payload = payload.replace(b"KEY", PC.entry_key(MAIN).encode()).replace(b"FORMAT", str(PC.CACHE_FORMAT).encode())
    path = plant(cache, MAIN, payload)
    body, diags = PC.parse_file_cached(MAIN, "main.tf")
    assert not len(diags) and shape(body) == fresh and parses == ["main.tf"]
    assert json.loads(path.read_text())["key"] == PC.entry_key(MAIN)


BAD_EXPRESSIONS = [["B", "+", None, None, -1], ["Z", 1, -1], ["N", "x", False, -1], ["K", None, None, -1],
                   ["L", 1.5, -1], ["O", [["not a pair"]], -1], ["S", "local", [["q", "x"]], 0]]


@pytest.mark.parametrize("bad", BAD_EXPRESSIONS, ids=[str(b[0]) for b in BAD_EXPRESSIONS])
def test_a_checksummed_entry_with_a_malformed_expression_is_reparsed_when_the_expression_is_used(
        cache: Path, parses: list[str], bad: list) -> None:
    """Expressions are decoded when first used (init never builds a `locals` tree); one found
    malformed then is taken from a parse of the file, and the entry is rebuilt."""
    fresh = shape(B._parse(MAIN, "main.tf")[0])
    good, _, numbers = B._parse(MAIN, "main.tf")
    doc = {"format": PC.CACHE_FORMAT, "key": PC.entry_key(MAIN), "body": PC.encode_body(good, numbers)}
    [locals_block] = [b for b in doc["body"]["body"][1] if b[0] == "locals"]
    locals_block[2][0][0][1] = bad  # attribute "a" of the locals block
    path = plant(cache, MAIN, CS.seal(json.dumps(doc).encode()))
    parses.clear()
    body, diags = PC.parse_file_cached(MAIN, "main.tf")
    assert not len(diags) and parses == []  # the structure decoded, the expression not yet
    assert shape(body) == fresh and parses == ["main.tf"]
    rebuilt = json.loads(path.read_text())
    assert rebuilt["key"] == PC.entry_key(MAIN) and rebuilt["body"] != doc["body"]
    PC._MEMO.clear()
    parses.clear()
    again, _ = PC.parse_file_cached(MAIN, "main.tf")
    assert shape(again) == fresh and parses == []


def test_expressions_are_decoded_on_first_use_and_equal_an_eager_decode(cache: Path) -> None:
    PC.parse_file_cached(MAIN, "main.tf")
    PC._MEMO.clear()
    body, _ = PC.parse_file_cached(MAIN, "main.tf")
    [loc] = body.blocks_of("locals")
    attr = loc.body.attributes["a"]
    assert isinstance(attr, B.LazyAttribute) and "expr" not in attr.__dict__
    assert shape(body) == shape(B._parse(MAIN, "main.tf")[0])
    assert attr.expr is attr.expr  # decoded once, the same tree for every caller


def test_loading_a_cached_configuration_decodes_no_local_until_it_is_used(tmp_path: Path, cache: Path) -> None:
    (tmp_path / "main.tf").write_text(MAIN)
    load_config(str(tmp_path))
    PC._MEMO.clear()
    root, diags = load_config(str(tmp_path))
    assert not diags.has_errors
    local = root.locals["a"]
    assert "expr" not in local.__dict__
    assert isinstance(local.expr, A.ObjectCons) and local.expr is root.locals["a"].expr


def test_an_entry_without_its_checksum_is_a_miss(cache: Path, parses: list[str]) -> None:
    PC.parse_file_cached(MAIN, "main.tf")
    [entry] = entries(cache)
    data = entry.read_bytes()
    # the checksum's last digit changed (to another digit: a fixed one would equal it 1 time in 16)
    last = data[-3:-2]
    other_digit = b"1" if last == b"0" else b"0"
    for damaged in (data[:-3] + other_digit + b'"}', data.replace(b'"locals"', b'"lucals"'),
                    json.dumps(json.loads(data)).encode()):
        assert damaged != data
        PC._MEMO.clear()
        parses.clear()
        entry.write_bytes(damaged)
        body, _ = PC.parse_file_cached(MAIN, "main.tf")
        assert parses == ["main.tf"] and shape(body) == shape(B._parse(MAIN, "main.tf")[0])
        assert entry.read_bytes() == data


def forged(cache: Path, mode: int) -> Path:
    """A well-formed entry for MAIN that says something else (a = false)."""
    other, _, numbers = B._parse("locals {\n  a = false\n}\n", "main.tf")
    doc = {"format": PC.CACHE_FORMAT, "key": PC.entry_key(MAIN), "body": PC.encode_body(other, numbers)}
    return plant(cache, MAIN, CS.seal(json.dumps(doc).encode()), mode)  # a valid checksum: only the mode refuses it


def test_entries_others_could_write_are_not_read(cache: Path) -> None:
    forged(cache, 0o644)
    body, _ = PC.parse_file_cached(MAIN, "main.tf")
    assert isinstance(body.blocks[0].body.attributes["a"].expr, A.ObjectCons)  # the real file, not the forgery


def test_a_cache_directory_that_is_not_ours_is_not_used(tmp_path: Path, cache: Path, parses: list[str]) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    cache.parent.mkdir(parents=True)
    cache.symlink_to(elsewhere)  # a symlink planted where the directory should be
    PC.parse_file_cached(MAIN, "main.tf")
    assert list(elsewhere.iterdir()) == [] and parses == ["main.tf"]
    if os.getuid() == 0:  # as root, also a real directory owned by someone else
        cache.unlink()
        cache.mkdir(mode=0o700)
        os.chown(cache, 4242, -1)
        PC._MEMO.clear()
        PC.parse_file_cached(MAIN, "main.tf")
        assert list(cache.iterdir()) == [] and parses == ["main.tf", "main.tf"]


def test_an_open_cache_directory_is_made_private(cache: Path) -> None:
    cache.mkdir(parents=True, mode=0o755)
    os.chmod(cache, 0o777)
    PC.parse_file_cached(MAIN, "main.tf")
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700 and entries(cache)


def test_prune_removes_stale_entries_and_keeps_recent_ones(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache.mkdir(parents=True, mode=0o700)
    now = time.time()
    for i in range(6):
        p = cache / f"hcl-{i:064x}.json"
        p.write_text("{}")
        os.utime(p, (now - i * 60, now - i * 60))
    old = cache / f"hcl-{99:064x}.json"
    old.write_text("{}")
    os.utime(old, (now - CS.MAX_AGE_S - 10, now - CS.MAX_AGE_S - 10))
    tmp = cache / ".hcl-x.tmp"
    tmp.write_text("half")
    os.utime(tmp, (now - 7200, now - 7200))
    monkeypatch.setattr(CS, "MAX_ENTRIES", 4)
    assert CS.prune(str(cache)) == 4  # the old one, the stray temporary, and the two least recent
    assert sorted(p.name for p in cache.iterdir()) == [f"hcl-{i:064x}.json" for i in range(4)]


def test_no_pickle_or_marshal_in_configuration_loading() -> None:
    for d in ("config", "lang"):
        for p in (ROOT / "tfconsole" / d).rglob("*.py"):
            src = p.read_text()
            assert "import pickle" not in src and "import marshal" not in src and "Unpickler" not in src, p


CONSTANTS = '''locals {
  obj    = { x = 1, y = -2.5, s = "cafe\\u0301", big = 123456789012345678901234567890, tiny = 1e-30 }
  nested = { a = { b = [true, false, null, [1, { q = "r" }]], e = {} }, t = [] }
  tup    = [1, "two", [3, { four = 4 }]]
  mixed  = { inner = { a = 1 }, t = "x${local.tup[0]}" }
  keyed  = { (local.tup[1]) = 1 }
}
'''


def _value_shape(v: Any) -> Any:
    """A value with the Python type of every part: 1 and 1.0, a list and a tuple differ."""
    if isinstance(v, dict):
        return ("dict", [(k, _value_shape(x)) for k, x in v.items()])
    if isinstance(v, list):
        return ("list", [_value_shape(x) for x in v])
    return (type(v).__name__, v)


def test_constant_constructors_come_from_the_cache_as_values_and_items_only_when_asked(cache: Path) -> None:
    from tfconsole.lang.eval import evaluate_constant

    PC.parse_file_cached(CONSTANTS, "c.tf")
    PC._MEMO.clear()
    body, _ = PC.parse_file_cached(CONSTANTS, "c.tf")
    fresh = B._parse(CONSTANTS, "c.tf")[0]
    got = {k: a.expr for k, a in body.blocks_of("locals")[0].body.attributes.items()}
    want = {k: a.expr for k, a in fresh.blocks_of("locals")[0].body.attributes.items()}
    for name in ("obj", "nested", "tup"):
        e = got[name]
        assert e._items is None and e.const is not None  # a value, no item nodes yet
        assert A.references(e) == [] and e._items is None
        value, diags = evaluate_constant(want[name])
        assert not diags.has_errors
        assert _value_shape(e.const) == _value_shape(value)
        assert shape(e) == shape(want[name]) and e._items is not None  # the items, decoded when asked
    # a constructor holding a template or a computed key is no constant; a constant inside it is
    mixed = got["mixed"]
    assert mixed.const is None and mixed._items is not None
    inner = {k.name: v for k, v in mixed.items}["inner"]
    assert inner.const == {"a": 1} and inner._items is None
    assert [str(r.root) for r in A.references(mixed)] == ["local"]
    assert got["keyed"].const is None and [r.root for r in A.references(got["keyed"])] == ["local"]
    assert shape(body) == shape(fresh)


def test_constant_values_from_the_cache_are_checked(cache: Path, parses: list[str]) -> None:
    good, _, numbers = B._parse(CONSTANTS, "c.tf")
    doc = {"format": PC.CACHE_FORMAT, "key": PC.entry_key(CONSTANTS), "body": PC.encode_body(good, numbers)}
    obj = doc["body"]["body"][1][0][2][0][0][1]
    assert obj[0] == "v" and obj[1]["x"] == 1
    obj[1]["x"] = 1.5  # a float: never written by the encoder
    del doc["body"]["side"]
    plant(cache, CONSTANTS, CS.seal(json.dumps(doc).encode()))
    parses.clear()
    body, diags = PC.parse_file_cached(CONSTANTS, "c.tf")
    assert not len(diags)
    e = body.blocks_of("locals")[0].body.attributes["obj"].expr  # malformed: this one is parsed again
    assert e.const is None and shape(e) == shape(good.blocks_of("locals")[0].body.attributes["obj"].expr)
    assert parses == ["c.tf"]


def _locals(body: Any) -> dict[str, Any]:
    return {k: a.expr for k, a in body.blocks_of("locals")[0].body.attributes.items()}


def test_constant_items_are_stored_once_asked_for_and_come_from_the_file_when_their_entry_is_bad(
        cache: Path, parses: list[str]) -> None:
    fresh = B._parse(CONSTANTS, "c.tf")[0]
    parses.clear()
    PC.parse_file_cached(CONSTANTS, "c.tf")
    side = cache / f"hclitems-{PC.entry_key(CONSTANTS)}.json"
    assert parses == ["c.tf"] and not side.exists()  # a first parse does not store the item nodes

    def load() -> dict[str, Any]:
        PC._MEMO.clear()
        parses.clear()
        body, _ = PC.parse_file_cached(CONSTANTS, "c.tf")
        assert parses == []
        got = _locals(body)
        assert got["nested"]._items is None and got["nested"].const is not None
        assert shape(body) == shape(fresh)  # asks for every constant's items
        return got

    load()
    assert parses == ["c.tf"] and side.exists()  # asked for: the file parsed again, the items stored
    load()
    assert parses == []  # from their entry
    doc = json.loads(CS.unseal(side.read_bytes()))
    doc["side"]["items"] = [["bad"] for _ in doc["side"]["items"]]
    side.write_bytes(CS.seal(json.dumps(doc).encode()))
    load()
    assert parses == ["c.tf"]  # malformed: parsed again, once
    load()
    assert parses == []


def test_constants_whose_numbers_json_cannot_hold_and_a_hash_key_keep_their_values(cache: Path) -> None:
    from tfconsole.lang.eval import evaluate_constant

    text = 'locals {\n  n = [-0, 9223372036854775808, -9223372036854775807, 0.5, 1e400]\n}\n'
    PC.parse_file_cached(text, "n.tf")
    PC._MEMO.clear()
    cached, diags = PC.parse_file_cached(text, "n.tf")
    assert not len(diags)
    # a .tf.json object may have any key, "#" too: such a constant is stored node by node
    js = json.dumps({"locals": {"j": {"#": ["N", "1", False], "a": 2}, "k": {"a": [1, 2]}}})
    fresh_js, _ = B.parse_json_file(js, "j.tf.json")
    decoded_js = PC.decode_body(json.loads(json.dumps(PC.encode_body(fresh_js, {}))), "j.tf.json")
    assert _locals(cached)["n"].const is not None  # read as a value (before any evaluation)
    assert _locals(decoded_js)["j"].const is None and _locals(decoded_js)["k"].const is not None
    for body, fresh in ((cached, B._parse(text, "n.tf")[0]), (decoded_js, fresh_js)):
        got, want = _locals(body), _locals(fresh)
        for k, e in got.items():
            value, d = evaluate_constant(want[k])
            assert not d.has_errors
            mine, _ = evaluate_constant(e)
            assert _value_shape(mine) == _value_shape(value), k
        assert shape(body) == shape(fresh)


def test_a_text_read_again_is_hashed_once(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hashed: list[int] = []
    real = PC._digest

    def counting(data: bytes = b"") -> Any:
        hashed.append(len(data))
        return real(data)

    PC.code_key()
    text = MAIN + "# " + "x" * 1000 + "\n"
    monkeypatch.setattr(PC, "_digest", counting)
    keys = {PC.entry_key("".join(list(text))) for _ in range(3)}  # equal texts, distinct objects
    assert len(keys) == 1 and len(hashed) == 1
    assert PC.entry_key(text + " ") not in keys and len(hashed) == 2
    monkeypatch.setattr(PC, "_digest", real)
    assert keys == {real(PC.code_key().encode() + b"\0" + text.encode()).hexdigest()}


def test_the_code_key_is_hashed_once_and_then_known_by_its_files_sizes_and_times(
        cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """code_key: hashing the grammar, tables and parser source (~1 MB) happens when one of them
    changes; otherwise a stat of each finds the hash stored beside the entries."""
    monkeypatch.setattr(PC, "_CODE_KEY", None)
    real_files = PC._code_files()
    assert all(os.path.isfile(p) for p in real_files)
    from tfconsole.config import hcl_tables

    assert hcl_tables.SHIPPED in real_files and hcl_tables.grammar_path() in real_files
    want = PC._hashed_code_key()
    assert PC.code_key() == want
    assert len(list(cache.glob("codekey-*.json"))) == 1

    hashed: list[int] = []
    real_hash = PC._hashed_code_key

    def counting() -> str:
        hashed.append(1)
        return real_hash()

    monkeypatch.setattr(PC, "_hashed_code_key", counting)
    monkeypatch.setattr(PC, "_CODE_KEY", None)
    assert PC.code_key() == want and hashed == []  # a later command: from the stamp

    # a code file that changes (size or time) is hashed again; a planted key is never taken
    files = [tmp_path / f"code{i}.py" for i in range(3)]
    for f in files:
        f.write_text("x = 1\n")
    monkeypatch.setattr(PC, "_code_files", lambda: [str(f) for f in files])
    monkeypatch.setattr(PC, "_hashed_code_key", lambda: PC._digest(b"".join(f.read_bytes() for f in files)).hexdigest())

    def fresh_key() -> str:
        monkeypatch.setattr(PC, "_CODE_KEY", None)
        return PC.code_key()

    first = fresh_key()
    assert fresh_key() == first
    files[1].write_text("x = 22\n")
    second = fresh_key()
    assert second != first and second == PC._hashed_code_key()
    st = files[1].stat()
    files[1].write_text("x = 23\n")  # the same size, a nanosecond later
    os.utime(files[1], ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    assert fresh_key() == PC._hashed_code_key() != second
    for entry in cache.glob("codekey-*.json"):  # a stored key that is not a hash is not taken
        doc = json.loads(CS.unseal(entry.read_bytes()) or b"{}")
        doc["key"] = "../not a key"
        entry.write_bytes(CS.seal(json.dumps(doc).encode()))
    assert fresh_key() == PC._hashed_code_key()
    monkeypatch.setattr(PC, "_code_files", lambda: [str(tmp_path / "missing.py")])
    assert fresh_key() == PC._hashed_code_key()  # a missing file: hashed, nothing stored for it


def test_entries_read_by_json_or_orjson_alike(cache: Path) -> None:
    """A small entry is read with json (importing orjson would cost more than it saves: a warm
    plan does not load it, test_startup_imports), a large one with orjson: the same document
    either way, and neither takes NaN or Infinity."""
    import orjson

    doc = {"format": 1, "s": "é\u4e16\U0001F600\\\"\n", "n": [0, -1, 2**63 - 1, 0.5, 1e300, -2.5e-300],
           "o": {"a": None, "b": True, "": []}}
    assert CS.write_json("hcl", "k1", doc)
    read = CS.read_json("hcl", "k1")
    assert {k: v for k, v in read.items() if k != "crc"} == doc
    data = CS.unseal((cache / "hcl-k1.json").read_bytes())
    assert data is not None and CS.json_loads(data) == orjson.loads(data) == read
    for bad in (b'{"x":NaN}', b'{"x":-Infinity}', b'{"x":Infinity}'):
        for loads in (CS.json_loads, orjson.loads):
            with pytest.raises(ValueError):
                loads(bad)
