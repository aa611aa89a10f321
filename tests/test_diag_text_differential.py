"""Where a diagnostic says it is, against Terraform 1.15 (`validate -no-color`, stderr compared
whole): the "in BLOCK" context (the top-level block holding the byte before the subject, so a
block header has none unless the subject starts inside the header line), the quoted lines of a
subject that spans lines, HCL's single-line block rule (which python-hcl2's grammar does not
enforce), and the ranges duplicate declarations quote."""
from __future__ import annotations

import os

import pytest
from tfrun import make_workdir, terraform, tfconsole, twin_dirs

CASES = {
    # a nested block inside a single-line block
    "single-line-nested": ('resource "terraform_data" "d" {\n  lifecycle { precondition {\n'
                           '    condition     = true\n    error_message = "x"\n  } }\n}\n'),
    # an argument on the brace's line, the block closed on a later line (the quote spans 2 lines)
    "single-line-unclosed": ('resource "terraform_data" "d" {\n  lifecycle { create_before_destroy = true\n'
                             '  }\n}\n'),
    "single-line-two-args": ('resource "terraform_data" "d" {\n  lifecycle { create_before_destroy = true\n'
                             '    prevent_destroy = false }\n}\n'),
    # the subject starts inside a top-level header line: Terraform names that block
    "header-line-nested": ('resource "terraform_data" "e" {\n}\n'
                           'resource "terraform_data" "f" { lifecycle {\n  create_before_destroy = true\n} }\n'),
    # a block header after one-line and multi-line blocks: no "in ..." at all
    "duplicates": ('resource "terraform_data" "a" {}\nresource "terraform_data" "a" {}\n'
                   'locals {\n  x = 1\n}\nresource "terraform_data" "a" {\n}\n'
                   'data "terraform_remote_state" "s" {\n  backend = "local"\n}\n'
                   'data "terraform_remote_state" "s" {\n  backend = "local"\n}\n'),
    # expression errors after a one-line block, in a one-line and a multi-line block
    "after-one-line-block": ('resource "terraform_data" "a" {}\noutput "o" { value = nope.x }\n'
                             'output "p" {\n  value = nope.y\n}\n'),
}


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> str:
    return make_workdir(tmp_path_factory, "diagtext")


@pytest.mark.parametrize("name", sorted(CASES))
def test_diagnostic_text_as_terraform(root: str, name: str) -> None:
    dirs = twin_dirs(os.path.join(root, name), CASES[name])
    code, _out, err = terraform(["validate", "-no-color"], dirs["terraform"])
    mine = tfconsole(["validate", "-no-color"], dirs["tfconsole"])
    assert code == 1 and mine.returncode == 1, (err, mine.stderr)
    assert "Traceback" not in mine.stderr
    assert mine.stderr.strip() == err.strip()
