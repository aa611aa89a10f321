"""The built-in external provider's data "external", running real programs."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tfconsole.lang.types import STRING
from tfconsole.lang.values import TList, TMap, Unknown
from tfconsole.providers.builtin import _harness as h
from tfconsole.providers.builtin.external import ExternalProvider, go_json_marshal
from tfconsole.providers.registry import default_registry

ECHO = """
import json, os, sys
q = json.load(sys.stdin)
out = {k: v.upper() for k, v in q.items()}
out["cwd"] = os.getcwd()
out["argv"] = " ".join(sys.argv[1:])
out["raw"] = os.environ.get("RAW_MARK", "")
print(json.dumps(out))
"""


@pytest.fixture
def p(tmp_path: Path) -> ExternalProvider:
    return ExternalProvider(base_dir=str(tmp_path))


def script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(body)
    return str(path)


def prog(*args: str) -> TList:
    return TList([sys.executable, *args], STRING)


def test_registered() -> None:
    assert isinstance(default_registry().create("hashicorp/external"), ExternalProvider)


def test_query_and_result(p: ExternalProvider, tmp_path: Path) -> None:
    s = script(tmp_path, "echo.py", ECHO)
    st, d = h.read_data(p, "external", {"program": prog(s, "a", "b c"),
                                        "query": TMap({"name": "world", "drop": None}, STRING)})
    assert not d.has_errors, d.items
    assert st["id"] == "-"
    assert st["result"]["name"] == "WORLD"
    assert "drop" not in st["result"]
    assert st["result"]["argv"] == "a b c"
    assert Path(st["result"]["cwd"]).resolve() == tmp_path.resolve()


def test_working_dir(p: ExternalProvider, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    s = script(tmp_path, "echo.py", ECHO)
    st, d = h.read_data(p, "external", {"program": prog(s), "working_dir": "sub"})
    assert Path(st["result"]["cwd"]).resolve() == (tmp_path / "sub").resolve()


def test_stdin_is_go_json(p: ExternalProvider, tmp_path: Path) -> None:
    s = script(tmp_path, "raw.py", "import sys, json\nprint(json.dumps({'stdin': sys.stdin.read()}))\n")
    st, d = h.read_data(p, "external", {"program": prog(s), "query": TMap({"b": "<&>", "a": "1"}, STRING)})
    assert st["result"]["stdin"] == '{"a":"1","b":"\\u003c\\u0026\\u003e"}'
    st, d = h.read_data(p, "external", {"program": prog(s)})
    assert st["result"]["stdin"] == "{}"
    assert go_json_marshal({}) == b"{}"


def test_failure_with_stderr(p: ExternalProvider, tmp_path: Path) -> None:
    s = script(tmp_path, "fail.py", "import sys\nsys.stderr.write('it broke')\nsys.exit(3)\n")
    st, d = h.read_data(p, "external", {"program": prog(s)})
    assert st is None
    e = d.errors()[0]
    assert e.summary == "External Program Execution Failed"
    assert "Error Message: it broke" in e.detail
    assert e.detail.endswith("State: exit status 3")
    assert f"Program: {sys.executable}" in e.detail


def test_failure_without_stderr(p: ExternalProvider, tmp_path: Path) -> None:
    s = script(tmp_path, "quiet.py", "import sys\nsys.exit(1)\n")
    st, d = h.read_data(p, "external", {"program": prog(s)})
    assert "returned no additional error messaging" in d.errors()[0].detail
    assert d.errors()[0].detail.endswith("State: exit status 1")


def test_bad_output(p: ExternalProvider, tmp_path: Path) -> None:
    s = script(tmp_path, "num.py", "print('{\"a\": 1}')\n")
    st, d = h.read_data(p, "external", {"program": prog(s)})
    e = d.errors()[0]
    assert e.summary == "Unexpected External Program Results"
    assert e.detail.endswith("Result Error: json: cannot unmarshal number into Go value of type string")
    s = script(tmp_path, "text.py", "print('hello')\n")
    st, d = h.read_data(p, "external", {"program": prog(s)})
    assert "invalid character 'h' looking for beginning of value" in d.errors()[0].detail


def test_program_lookup(p: ExternalProvider, tmp_path: Path) -> None:
    st, d = h.read_data(p, "external", {"program": TList(["definitely-not-a-program-xyz"], STRING)})
    e = d.errors()[0]
    assert e.summary == "External Program Lookup Failed"
    assert 'exec: "definitely-not-a-program-xyz": executable file not found in $PATH' in e.detail
    st, d = h.read_data(p, "external", {"program": TList(["", None], STRING)})
    assert d.errors()[0].summary == "External Program Missing"
    d = p.validate_data_source("external", {"program": TList([], STRING)})
    assert "list must contain at least 1 elements" in d.errors()[0].detail


def test_relative_program_resolves_against_base_dir(p: ExternalProvider, tmp_path: Path) -> None:
    exe = tmp_path / "bin" / "tool"
    exe.parent.mkdir()
    exe.write_text(f"#!{sys.executable}\nimport json\nprint(json.dumps({{'ok': 'yes'}}))\n")
    exe.chmod(0o755)
    st, d = h.read_data(p, "external", {"program": TList(["./bin/tool"], STRING)})
    assert not d.has_errors, d.items
    assert st["result"] == {"ok": "yes"}
    exe.chmod(0o644)
    st, d = h.read_data(p, "external", {"program": TList(["./bin/tool"], STRING)})
    assert "permission denied" in d.errors()[0].detail


def test_unknown_query_defers(p: ExternalProvider) -> None:
    st, d = p.read_data_source("external", {"program": prog("-c", "x"), "query": TMap({"a": Unknown(STRING)}, STRING)})
    assert not d.has_errors and isinstance(st["result"], Unknown)
