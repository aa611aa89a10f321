"""The human CLI's words around a plan, against Terraform 1.15: where a plan's warnings go (after
the plan in `plan`; held until after the apply in `apply`, beside "Applied changes may be
incomplete"), and the rule and next step after a plan (the -out note, "Saved the plan to").
Both tools run the same commands in twin directories; ids and the tool's own name are the only
differences allowed."""
from __future__ import annotations

import subprocess

import pytest
from tfrun import TOOL, make_workdir, normal_cli_text, terraform, twin_dirs

CONFIG = 'resource "terraform_data" "a" {}\nresource "terraform_data" "b" {}\n'

STEPS = [
    ["plan", "-no-color", "-target=terraform_data.a"],
    ["plan", "-no-color", "-out=saved.plan"],
    ["apply", "-no-color", "-auto-approve", "-target=terraform_data.a"],
    ["apply", "-no-color", "-auto-approve"],
    ["plan", "-no-color", "-out=empty.plan"],
    ["plan", "-no-color", "-refresh-only"],
]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[tuple[str, str, str, str]]:
    root = make_workdir(tmp_path_factory, "nextstep")
    dirs = twin_dirs(root, CONFIG)
    out = []
    for args in STEPS:
        rc, tf_out, tf_err = terraform(args, dirs["terraform"])
        assert rc == 0, tf_err
        ours = subprocess.run([TOOL, *args], cwd=dirs["tfconsole"], capture_output=True, text=True, check=False)
        assert ours.returncode == 0, ours.stderr
        out.append((" ".join(args), normal_cli_text(tf_out), normal_cli_text(ours.stdout), ours.stderr))
    return out


@pytest.mark.parametrize("step", range(len(STEPS)), ids=[" ".join(s[:1] + s[2:]) for s in STEPS])
def test_plan_and_apply_words_equal_terraform(runs, step: int) -> None:
    cmd, theirs, ours, err = runs[step]
    assert err == ""
    assert ours == theirs, f"{cmd}: stdout differs from Terraform's"
