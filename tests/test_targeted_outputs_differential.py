"""Root outputs under -target, against Terraform 1.15: a targeted plan and apply change only the
outputs whose every resource dependency is targeted; the others (and outputs that depend on no
resource) keep their old values in state and are not listed in the plan."""
from __future__ import annotations

import json
import subprocess

from tfrun import TOOL, make_workdir, normal_cli_text, terraform, twin_dirs

CONFIG = '''
variable "v" {
  default = "one"
}
resource "terraform_data" "a" {
  input = var.v
}
resource "terraform_data" "b" {
  input = var.v
}
output "a" {
  value = terraform_data.a.output
}
output "b" {
  value = terraform_data.b.output
}
output "both" {
  value = [terraform_data.a.output, terraform_data.b.output]
}
output "plain" {
  value = var.v
}
'''

STEPS = [
    ["apply", "-auto-approve", "-no-color"],
    ["plan", "-no-color", "-var", "v=two", "-target=terraform_data.a"],
    ["apply", "-auto-approve", "-no-color", "-var", "v=two", "-target=terraform_data.a"],
    ["apply", "-auto-approve", "-no-color", "-var", "v=three", "-target=terraform_data.a",
     "-target=terraform_data.b"],
]


def test_targeted_runs_change_only_the_targeted_outputs(tmp_path_factory) -> None:
    root = make_workdir(tmp_path_factory, "tgtout")
    dirs = twin_dirs(root, CONFIG)
    for args in STEPS:
        rc, out, err = terraform(args, dirs["terraform"])
        assert rc == 0, err
        ours = subprocess.run([TOOL, *args], cwd=dirs["tfconsole"], capture_output=True, text=True, check=False)
        assert ours.returncode == 0, ours.stderr
        assert normal_cli_text(ours.stdout) == normal_cli_text(out), " ".join(args)
        outputs = {}
        for who, d in dirs.items():
            with open(f"{d}/terraform.tfstate") as f:
                outputs[who] = {k: v["value"] for k, v in json.load(f)["outputs"].items()}
        assert outputs["tfconsole"] == outputs["terraform"], " ".join(args)
