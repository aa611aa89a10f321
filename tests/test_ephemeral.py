"""Ephemeral values and resources inside tfconsole: the mark's algebra (lang/values.py), the
built-in ephemeral random_password (hashicorp/random 3.7's, offline), the plan file's record of
ephemeral variables, and closing what a failed walk left open. What Terraform decides is tested
differentially in test_ephemeral_differential.py and test_ephemeral_plugin.py; these are the
parts Terraform cannot be asked about offline, or internals a regression would break first."""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from tfconsole.command.main import CLI
from tfconsole.lang.eval import Scope, evaluate
from tfconsole.lang import ast as A
from tfconsole.lang.types import STRING
from tfconsole.lang.values import (
    EPHEMERAL, SENSITIVE, Null, Sensitive, TList, contains_ephemeral, contains_sensitive, deep_marks,
    ephemeral_as_null, mark, sensitive_paths, unmark, unmark_deep,
)


def _eval(src: str, **variables: object) -> object:
    expr = A.parse_expression(src, "t.tf")
    v, d = evaluate(expr, Scope(None, vars=variables))
    assert not d.has_errors, d
    return v


def test_marks_combine_and_stay_apart() -> None:
    s, e = mark("s", SENSITIVE), mark("e", EPHEMERAL)
    both = mark(mark("x", SENSITIVE), EPHEMERAL)
    assert unmark(both) == ("x", SENSITIVE | EPHEMERAL)
    assert unmark(mark("x", True)) == ("x", SENSITIVE)  # True still means sensitive
    assert unmark_deep({"a": s, "b": [e]})[1] == SENSITIVE | EPHEMERAL
    assert deep_marks({"a": "plain"}) == 0
    assert contains_ephemeral([e]) and not contains_sensitive([e])
    assert sensitive_paths({"a": s, "b": e, "c": both}) == [("a",), ("c",)]  # state records only sensitive


def test_operators_and_templates_carry_every_operand_mark() -> None:
    s, e = mark("s", SENSITIVE), mark("e", EPHEMERAL)
    assert unmark(_eval('"${a}-${b}"', a=s, b=e))[1] == SENSITIVE | EPHEMERAL
    assert unmark(_eval("a == b", a=s, b=e))[1] == SENSITIVE | EPHEMERAL
    assert unmark(_eval("upper(b)", a=s, b=e))[1] == EPHEMERAL
    assert unmark(_eval("nonsensitive(sensitive(b))", a=s, b=e))[1] == EPHEMERAL
    assert _eval("issensitive(b)", a=s, b=e) is False
    assert unmark(_eval("[for x in [a, b] : x if x != \"\"]", a=s, b=e))[1] == SENSITIVE | EPHEMERAL


def test_ephemeralasnull_nulls_only_the_ephemeral_parts() -> None:
    v = {"a": mark("e", EPHEMERAL), "b": mark("s", SENSITIVE), "c": TList([mark("x", EPHEMERAL), "y"], STRING)}
    out = ephemeral_as_null(v)
    assert type(out["a"]) is Null and out["a"].type == STRING
    assert type(out["b"]) is Sensitive and out["b"].marks == SENSITIVE
    assert type(out["c"][0]) is Null and out["c"][1] == "y"
    # a value both sensitive and ephemeral becomes a plain null, as in Terraform
    assert ephemeral_as_null(mark(mark("z", SENSITIVE), EPHEMERAL)) == Null(STRING)


RANDOM = '''
terraform {
  required_providers {
    random = { source = "hashicorp/random" }
  }
}
ephemeral "random_password" "p" {
  length  = 16
  special = false
  lifecycle {
    postcondition {
      condition     = length(self.result) == 16
      error_message = "wrong length"
    }
  }
}
resource "terraform_data" "t" {
  provisioner "local-exec" {
    command = "test ${length(ephemeral.random_password.p.result)} -eq 16 && test -n '${ephemeral.random_password.p.bcrypt_hash}'"
  }
}
output "length" {
  value = ephemeralasnull(ephemeral.random_password.p.length)
}
'''


def _cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    rc = CLI(out, err).run([*args, "-no-color"])
    return rc, out.getvalue(), err.getvalue()


def test_builtin_ephemeral_random_password(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "main.tf").write_text(RANDOM)
    assert _cli(tmp_path, monkeypatch, "init")[0] == 0
    rc, out, err = _cli(tmp_path, monkeypatch, "apply", "-auto-approve")
    assert rc == 0, err
    # progress lines without their timings and ids
    lines = [re.sub(r" after \d+s.*", "", ln) for ln in out.splitlines()]
    # opened and closed in the plan walk, then again around the resource that used it
    walk = [ln for ln in lines if ln.startswith(("ephemeral.", "terraform_data.t: Creat"))]
    p = "ephemeral.random_password.p: "
    assert walk == [p + "Opening...", p + "Opening complete", p + "Closing...", p + "Closing complete",
                    p + "Opening...", p + "Opening complete", "terraform_data.t: Creating...",
                    "terraform_data.t: Creation complete", p + "Closing...", p + "Closing complete"]
    assert "(output suppressed due to ephemeral value in config)" in out
    state = json.loads((tmp_path / "terraform.tfstate").read_text())
    assert [r["type"] for r in state["resources"]] == ["terraform_data"]
    assert "random_password" not in json.dumps(state) and "bcrypt" not in json.dumps(state)
    assert state["outputs"] == {}  # ephemeralasnull gave null: no output stored


def test_builtin_ephemeral_random_password_validation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "main.tf").write_text(RANDOM.replace("length  = 16", "length  = 0"))
    rc, _, err = _cli(tmp_path, monkeypatch, "plan")
    assert rc == 1
    assert "Error: Invalid Attribute Value" in err and "ephemeral.random_password.p" in err


def test_failed_postcondition_still_closes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "main.tf").write_text(RANDOM.replace("== 16", "== 3"))
    rc, out, err = _cli(tmp_path, monkeypatch, "plan")
    assert rc == 1
    assert "Error: Resource postcondition failed" in err and "wrong length" in err
    assert out.count("Opening complete") == out.count("Closing complete") == 1


def test_plan_file_records_ephemeral_variables_by_name_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tfconsole.plans.planfile import read_plan

    (tmp_path / "main.tf").write_text('variable "tok" {\n  type      = string\n  ephemeral = true\n}\n'
                                      'variable "plain" {\n  default = "p"\n}\n')
    rc, _, err = _cli(tmp_path, monkeypatch, "plan", "-out=p.bin", "-var", "tok=hidden-value",
                      "-var", "plain=kept")
    assert rc == 0, err
    plan = read_plan(str(tmp_path / "p.bin"))
    assert plan.apply_time_variables == ["tok"]
    assert plan.variables == {"plain": "kept"}
    assert b"hidden-value" not in (tmp_path / "p.bin").read_bytes()
