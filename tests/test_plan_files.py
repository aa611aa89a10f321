"""Saved plan files (`plan -out`): a data-only format that round-trips unknown and sensitive
values, and that every command opening plan files refuses when hostile, truncated or foreign
(old pickle plans, path traversal, symlinks, zip bombs) without running or writing anything."""
from __future__ import annotations

import io
import json
import math
import os
import pickle
import random
import subprocess
import sys
import zipfile
import zlib
from decimal import Decimal
from pathlib import Path

import pytest

from tfconsole.lang.types import BOOL, DYNAMIC, NUMBER, STRING, ListType, ObjectType
from tfconsole.lang.values import Null, Sensitive, TList, TMap, TSet, Unknown
from tfconsole.plans import planfile
from tfconsole.plans.codec import CodecError, decode_value, encode_value
from tfconsole.plans.planfile import PlanFileError, parse_plan, plan_bytes

TOOL = str(Path(sys.executable).parent / "tfconsole")

CONFIG = '''
variable "secret" {
  default   = "hunter2"
  sensitive = true
}
resource "terraform_data" "a" {
  count = 2
  input = { s = var.secret, n = count.index, l = [1.5, 2], m = tomap({ k = "v" }) }
}
resource "terraform_data" "b" {
  input = terraform_data.a[0].output
}
output "o" { value = terraform_data.b.id }
output "s" {
  value     = var.secret
  sensitive = true
}
'''


def run(d: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([TOOL, f"-chdir={d}", *args], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, env=env)


def write(d: Path, text: str, name: str = "main.tf") -> Path:
    (d / name).parent.mkdir(parents=True, exist_ok=True)
    (d / name).write_text(text)
    return d


# ---------------------------------------------------------------- the value encoding

VALUES = [
    None, "s", True, False, 0, -7, 10**40, 1.5, 1.0, math.inf, -math.inf, Decimal("1.5e400"),
    {"a": 1, "b": [True, "x"]}, [], {}, [1, "two", None],
    TList([1, 2], NUMBER), TSet(["b", "a"], STRING), TMap({"z": 1, "a": 2}, NUMBER),
    Unknown(STRING), Unknown(DYNAMIC), Unknown(ListType(ObjectType.of({"x": BOOL}))), Null(NUMBER),
    Sensitive("pw"), {"nested": Sensitive({"deep": Unknown(STRING)})},
    TList([Sensitive("a"), Unknown(STRING)], STRING),
]


@pytest.mark.parametrize("i", range(len(VALUES)))
def test_value_encoding_round_trips_exactly(i: int) -> None:
    v = VALUES[i]
    text = json.dumps(encode_value(v), allow_nan=False)
    back = decode_value(json.loads(text))
    assert repr(back) == repr(v)
    assert type(back) is type(v)


def test_nan_round_trips() -> None:
    assert math.isnan(decode_value(json.loads(json.dumps(encode_value(math.nan), allow_nan=False))))


@pytest.mark.parametrize("bad", [{"zz": 1}, {"o": []}, {"l": {}, "e": "string"}, {"u": "nosuchtype"},
                                 {"x": {"x": "a"}}, {"d": "NaN"}, {"d": "1" * 2000}, {"f": "big"},
                                 {"u": ["object", 5]}, {"s": [1], "e": ["list"]}, [1], {"t": [{"q": 1}]}])
def test_value_decoding_refuses_malformed_data(bad: object) -> None:
    with pytest.raises(CodecError):
        decode_value(bad)


# ---------------------------------------------------------------- plans round-trip

def _plan_in_process(d: Path):
    from tfconsole.core import Context, Options
    from tfconsole.states.state import State

    cwd = os.getcwd()
    os.chdir(d)
    try:
        ctx = Context(Options(working_dir="."))
        assert not ctx.load_config().has_errors
        plan, diags = ctx.plan(State(serial=0))
        assert not diags.has_errors, [x.summary for x in diags]
        return plan
    finally:
        os.chdir(cwd)


def test_plan_with_unknown_and_sensitive_values_round_trips(tmp_path: Path) -> None:
    from tfconsole.command.views import plan_json, render_plan

    plan = _plan_in_process(write(tmp_path, CONFIG))
    back = parse_plan(plan_bytes(plan))
    assert render_plan(back) == render_plan(plan)
    assert plan_json(back, lambda *a: None) == plan_json(plan, lambda *a: None)
    assert [repr(c.after) for c in back.changes] == [repr(c.after) for c in plan.changes]
    assert any(isinstance(c.after.get("output"), Unknown) for c in back.changes)
    assert any("Sensitive(" in repr(c.after) for c in back.changes)
    assert back.prior_state_meta == plan.prior_state_meta
    assert back.config_files == plan.config_files
    assert back.expansions == plan.expansions


def test_plan_file_is_private_and_data_only(tmp_path: Path) -> None:
    d = write(tmp_path, CONFIG)
    assert run(d, "plan", "-out=p").returncode == 0
    assert oct((d / "p").stat().st_mode & 0o777) == "0o600"
    with zipfile.ZipFile(d / "p") as zf:
        names = zf.namelist()
        meta = json.loads(zf.read("tfconsole-plan.json"))
    assert names[0] == "tfconsole-plan.json" and "tfconfig/main.tf" in names
    assert meta["format"] == "tfconsole-plan" and meta["format_version"] == 3
    assert meta["prior_state_meta"] == {"lineage": "", "serial": 0}


def test_modules_above_the_root_survive_the_snapshot(tmp_path: Path) -> None:
    root = write(tmp_path / "envs" / "prod", 'module "m" {\n  source = "../../modules/m"\n}\n'
                                             'output "o" { value = module.m.o }\n')
    write(tmp_path / "modules" / "m", 'resource "terraform_data" "x" {\n  input = "from-module"\n}\n'
                                      'output "o" { value = terraform_data.x.output }\n')
    assert run(root, "plan", "-out=p").returncode == 0
    with zipfile.ZipFile(root / "p") as zf:
        assert sorted(n for n in zf.namelist() if n.startswith("tfconfig/")) == [
            "tfconfig/envs/prod/main.tf", "tfconfig/modules/m/main.tf"]
    # the module's files change after planning: apply uses the snapshot
    write(tmp_path / "modules" / "m", 'resource "terraform_data" "x" {\n  input = "changed"\n}\n'
                                      'output "o" { value = terraform_data.x.output }\n')
    ap = run(root, "apply", "p")
    assert ap.returncode == 0, ap.stderr
    assert 'o = "from-module"' in ap.stdout


# ---------------------------------------------------------------- hostile files

class _RunsCode:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _zip(entries: dict[str, bytes], symlinks: tuple[str, ...] = ()) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (0o120777 if name in symlinks else 0o100644) << 16
            zf.writestr(info, data)
    return buf.getvalue()


def _valid_entries(d: Path) -> dict[str, bytes]:
    assert run(d, "plan", "-out=valid").returncode == 0
    with zipfile.ZipFile(d / "valid") as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def test_version_1_and_2_plan_files_still_read(tmp_path: Path) -> None:
    """Version 1 wrote every field of each change; version 2 left out those at their default;
    version 3 writes runs of changes of one resource. Files of the older versions read as the
    same plan."""
    from tfconsole.plans.codec import encode_change

    d = write(tmp_path, CONFIG)
    valid = _valid_entries(d)
    meta = json.loads(valid["tfconsole-plan.json"])
    new = parse_plan(_zip(valid))
    assert new.changes
    v1_defaults = {"before": None, "prev_run_addr": None, "deposed": None, "replace_paths": [], "reason": None,
                   "private": None, "create_before_destroy": False, "sensitive_paths": [], "each_value": None,
                   "importing": None, "before_identity": None, "after_identity": None, "blocks": {},
                   "identity_version": 0, "generated_config": "", "import_private": None, "write_only": []}
    v2 = dict(meta, format_version=2, changes=[encode_change(c) for c in new.changes],
              drift=[encode_change(c) for c in new.drift])
    v1 = dict(v2, format_version=1, changes=[dict(v1_defaults, **c) for c in v2["changes"]])
    for doc in (v1, v2):
        old = parse_plan(_zip(dict(valid, **{"tfconsole-plan.json": json.dumps(doc).encode()})))
        assert len(old.changes) == len(new.changes)
        for a, b in zip(old.changes, new.changes):
            for name in a.__dataclass_fields__:
                assert getattr(a, name) == getattr(b, name), name


def test_runs_of_changes_keep_every_change_and_its_order() -> None:
    """Format 3's runs: changes of several resources, interleaved, with number, string and no
    keys, for_each values, and fields beyond the plain ones, read back equal and in order."""
    from tfconsole.addrs import parse_instance
    from tfconsole.plans import Action, ResourceInstanceChange
    from tfconsole.plans.codec import decode_change_runs, encode_change_runs

    tf = 'provider["terraform.io/builtin/terraform"]'
    st = ObjectType.of({"id": STRING, "input": DYNAMIC})

    def ch(addr: str, action: Action = Action.CREATE, **kw: object) -> ResourceInstanceChange:
        return ResourceInstanceChange(addr=parse_instance(addr), action=action, provider=tf, before=kw.pop("before", None),
                                      after={"id": Unknown(STRING), "input": "x"}, schema_type=st, **kw)

    changes = [ch("terraform_data.a[0]"), ch("terraform_data.a[1]"), ch('module.m["k"].terraform_data.a[0]'),
               ch("terraform_data.a[2]", reason="replace_because_tainted", action=Action.DELETE_THEN_CREATE,
                  before={"id": "old", "input": "y"}),
               ch('terraform_data.e["x"]', each_value={"v": 1}), ch('terraform_data.e["y"]', each_value="s"),
               ch("terraform_data.one"), ch("terraform_data.one", deposed="abcd1234", action=Action.DELETE),
               ResourceInstanceChange(addr=parse_instance("terraform_data.b[0]"), action=Action.NOOP, provider=tf,
                                      before={"id": "i"}, after={"id": "i"}, schema_type=None)]
    runs = json.loads(json.dumps(encode_change_runs(changes)))
    assert [r["resource"] for r in runs] == ["terraform_data.a", 'module.m["k"].terraform_data.a',
                                             "terraform_data.a", "terraform_data.e", "terraform_data.one",
                                             "terraform_data.b"]
    back = decode_change_runs(runs, "changes")
    assert len(back) == len(changes)
    for a, b in zip(changes, back):
        for name in a.__dataclass_fields__:
            assert getattr(a, name) == getattr(b, name), (str(a.addr), name)
    for bad, says in (([{"resource": "terraform_data.a", "provider": tf, "changes": [{"key": True, "action": "create"}]}],
                       "changes[0].changes[0].key"),
                      ([{"resource": "terraform_data.a", "provider": tf, "changes": [{"action": "nope"}]}], "action"),
                      ([{"resource": 5, "provider": tf, "changes": []}], "changes[0]"),
                      ([{"resource": "terraform_data.a", "provider": tf, "changes": [{"after": {"o": 1}}]}], "after")):
        with pytest.raises(CodecError, match=r"changes\[0\]"):
            decode_change_runs(bad, "changes")


def _hostile_files(d: Path, marker: Path) -> dict[str, bytes]:
    valid = _valid_entries(d)
    old_pickle = b"tfconsole-plan-v1\n" + zlib.compress(pickle.dumps(_RunsCode(str(marker))))
    meta = json.loads(valid["tfconsole-plan.json"])
    root_escape = dict(valid, **{"tfconsole-plan.json": json.dumps(dict(meta, config={"root": "../.."})).encode()})
    return {
        "old-pickle": old_pickle,
        "bare-pickle": pickle.dumps(_RunsCode(str(marker))),
        "pickle-in-zip": _zip(dict(valid, **{"tfconsole-plan.json": pickle.dumps(_RunsCode(str(marker)))})),
        "traversal": _zip(dict(valid, **{"tfconfig/../../escaped.tf": b'resource "terraform_data" "e" {}\n'})),
        "absolute": _zip(dict(valid, **{"tfconfig//tmp/escaped.tf": b"\n"})),
        "dotdot-root": _zip(root_escape),
        "symlink": _zip(dict(valid, **{"tfconfig/link.tf": b"/etc/passwd"}), symlinks=("tfconfig/link.tf",)),
        "not-tf": _zip(dict(valid, **{"tfconfig/terraform.tfvars": b"x = 1\n"})),
        "truncated": plan_bytes_of(d)[:-40],
        "empty": b"",
        "text": b"this is not a plan\n",
        "terraform-plan": _zip({"tfplan": b"\x00", "tfstate": b"{}"}),
        "future-version": _zip(dict(valid, **{"tfconsole-plan.json": json.dumps(dict(meta, format_version=99)).encode()})),
        "bad-change": _zip(dict(valid, **{"tfconsole-plan.json": json.dumps(dict(meta, changes=[{"addr": 5}])).encode()})),
        "bad-state": _zip(dict(valid, tfstate=b'{"version": 4, "resources": "nope"}')),
    }


def plan_bytes_of(d: Path) -> bytes:
    return (d / "valid").read_bytes()


COMMANDS = {
    "show": ("show", "{f}"),
    "show-json": ("show", "-json", "{f}"),
    "apply": ("apply", "{f}"),
    "apply-auto-approve": ("apply", "-auto-approve", "{f}"),
    "graph-plan": ("graph", "-plan={f}"),
}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, bytes]]:
    d = tmp_path_factory.mktemp("hostile")
    write(d / "work", CONFIG)
    marker = d / "MARKER"
    files = _hostile_files(d / "work", marker)
    for name, data in files.items():
        (d / "work" / name).write_bytes(data)
    return d / "work", marker, files


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_refuses_hostile_plan_files(hostile, command: str) -> None:
    d, marker, files = hostile
    tmpdir = d.parent / f"tmp-{command}"
    tmpdir.mkdir()
    env = dict(os.environ, TMPDIR=str(tmpdir))
    for name in files:
        args = [a.format(f=name) for a in COMMANDS[command]]
        proc = run(d, *args, env=env)
        out = proc.stdout + proc.stderr
        assert proc.returncode == 1, (name, out)
        assert "Traceback" not in out and "Internal error" not in out, (name, out)
        expected = "Failed to read the given file as a state or plan file" if command.startswith("show") \
            else f'Failed to load "{name}" as a plan file'
        assert expected in out, (name, out)
        assert not marker.exists(), name
        assert not (d.parent / "escaped.tf").exists() and not Path("/tmp/escaped.tf").exists(), name
    assert not (d / "terraform.tfstate").exists()
    assert list(tmpdir.iterdir()) == []


def test_console_open_refuses_hostile_plan_files(hostile) -> None:
    from tfconsole.tui import operations as ops

    d, marker, files = hostile
    for name in files:
        out = ops.open_plan(str(d), str(d / name), 1, [])
        assert out.plan is None, name
        assert out.diags.has_errors and "as a plan file" in out.diags.errors()[0].summary, name
        assert not marker.exists()


def test_the_reasons_are_specific(hostile) -> None:
    _d, _marker, files = hostile
    reasons = {}
    for name, data in files.items():
        with pytest.raises(PlanFileError) as exc:
            parse_plan(data)
        reasons[name] = str(exc.value)
    assert "older tfconsole" in reasons["old-pickle"]
    assert "unsafe path" in reasons["traversal"] and "unsafe path" in reasons["absolute"]
    assert "unsafe path" in reasons["dotdot-root"]
    assert "not a regular file" in reasons["symlink"]
    assert "Terraform plan file" in reasons["terraform-plan"]
    assert "format version 99" in reasons["future-version"]
    assert "truncated" in reasons["truncated"] or "damaged" in reasons["truncated"]


def test_random_damage_is_always_a_plan_file_error(hostile) -> None:
    d, _marker, _files = hostile
    data = plan_bytes_of(d)
    rng = random.Random(7)
    for _ in range(300):
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        cut = rng.choice([len(b), rng.randrange(len(b))])
        try:
            parse_plan(bytes(b[:cut]))
        except PlanFileError:
            pass


def test_size_limits_are_enforced_on_what_is_read(hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    d, _marker, _files = hostile
    data = plan_bytes_of(d)
    monkeypatch.setattr(planfile, "MAX_CONFIG_FILE_BYTES", 100)
    with pytest.raises(PlanFileError, match="more than the 100 allowed"):
        parse_plan(data)
    monkeypatch.undo()
    # an entry whose header understates its size: zipfile stops at the stated size, the CRC fails
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        entries = {n: zf.read(n) for n in zf.namelist()}
    bomb = _zip(dict(entries, **{"tfconfig/big.tf": b"#" * 200_000}))
    lied = bomb.replace((200_000).to_bytes(4, "little"), (10).to_bytes(4, "little"))
    with pytest.raises(PlanFileError):
        parse_plan(lied)
    # a directory claiming more entries than allowed is refused before zipfile reads it
    end = data.rfind(b"PK\x05\x06")
    many = data[:end + 8] + (60000).to_bytes(2, "little") + (60000).to_bytes(2, "little") + data[end + 12:]
    with pytest.raises(PlanFileError, match="entries"):
        parse_plan(many)


def test_apply_planfile_leaves_no_temporary_directories(tmp_path: Path) -> None:
    d = write(tmp_path / "w", CONFIG)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = dict(os.environ, TMPDIR=str(tmpdir))
    assert run(d, "plan", "-out=p", env=env).returncode == 0
    assert run(d, "graph", "-plan=p", env=env).returncode == 0
    ap = run(d, "apply", "p", env=env)
    assert ap.returncode == 0, ap.stderr
    assert list(tmpdir.iterdir()) == []


def test_language_numbers_round_trip_exactly() -> None:
    """Binary-float numbers (go-cty's big.Float semantics) keep value, precision and sign."""
    import json

    from tfconsole.lang import numbers as N
    from tfconsole.plans.codec import CodecError, decode_value, encode_value

    for v in [N.parse("0.1"), N.parse("1e-1000000"), N.NEG_ZERO, N.POS_INF, N.NEG_INF, N.div(1, 3),
              N.from_float64(0.1), N.mul(N.parse("1.1"), 3)]:
        back = decode_value(json.loads(json.dumps(encode_value(v))))
        assert back.f == v.f and back.f.precision == v.f.precision and N.text(back) == N.text(v)
        assert N.gmpy2.is_signed(back.f) == N.gmpy2.is_signed(v.f)
    for bad in (["1", 0, 10 ** 9], ["x", 0, 512], ["1" * 400, 0, 512], ["1", 2 ** 60, 512], [1, 0, 512]):
        with pytest.raises(CodecError):
            decode_value({"N": bad})
