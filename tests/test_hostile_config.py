"""Hostile configurations: each one ends in bounded time and memory with a diagnostic that says
what and where (file:line), and a non-zero exit, never an internal error or a traceback.

Each case runs the CLI in a subprocess under an address-space limit and a timeout (both far above
what a case needs: they catch a hang or a runaway allocation, they do not measure speed).
"""
from __future__ import annotations

import os
import random
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

MEMORY_LIMIT = 3 * 1024 ** 3  # bytes of address space for the tfconsole process
TIMEOUT = 300  # seconds; a case takes a few


def nested(open_: str, inner: str, close: str, n: int) -> str:
    return open_ * n + inner + close * n


def locals_with(expr: str) -> str:
    return "locals {\n  a = " + expr + "\n}\n"


def garbage() -> bytes:
    rng = random.Random(7)
    return bytes(rng.randrange(256) for _ in range(4000))


# name -> (files: {path: text or bytes, or a function making them}, summary, "file line N" or None, detail part)
Files = dict[str, "str | bytes | Callable[[], str | bytes]"]
CASES: dict[str, tuple[Files, str, str | None, str]] = {
    "unclosed_block": ({"main.tf": 'resource "terraform_data" "y" {\n'},
                       "Unclosed configuration block", "main.tf line 1", "no closing brace for this block"),
    "unclosed_block_after_others": ({"main.tf": 'locals {\n  a = 1\n}\n\nresource "terraform_data" "y" {\n'
                                                '  input = local.a\n'},
                                    "Unclosed configuration block", "main.tf line 5", "incorrect brace nesting"),
    "unclosed_nested_block": ({"main.tf": 'variable "x" {\n  validation {\n    condition = true\n'},
                              "Unclosed configuration block", "main.tf line 2", ""),
    "unclosed_tuple": ({"main.tf": "locals {\n  a = [1, 2\n"},
                       "Unterminated tuple constructor expression", "main.tf line 2", "closing bracket"),
    "unbalanced_parentheses": ({"main.tf": "locals {\n  a = (1 + 2\n"}, "Unbalanced parentheses", "main.tf line 3",
                               "closing parenthesis"),
    "unclosed_string": ({"main.tf": 'locals {\n  a = "abc\n}\n'}, "Unterminated template string", "main.tf line 2",
                        "No closing marker"),
    "unclosed_heredoc": ({"main.tf": "locals {\n  a = <<EOT\nabc\n}\n"}, "Invalid expression", "main.tf line 2", ""),
    "line_of_50_mb": ({"main.tf": lambda: 'locals {\n  a = "' + "x" * (50 * 1024 * 1024) + '"\n}\n'},
                      "Configuration file too large", "main.tf line 1", "at most 16 MB"),
    "file_of_50_mb": ({"main.tf": lambda: "".join(f'resource "terraform_data" "r{i}" {{\n  input = {i}\n}}\n'
                                                  for i in range(1_200_000))},
                      "Configuration file too large", "main.tf line 1", "at most 16 MB"),
    "a_million_tokens": ({"main.tf": lambda: locals_with("[" + ",".join(["1"] * 600_000) + "]")},
                         "Configuration file too large", "main.tf line 2", "1,000,000 tokens"),
    "100k_open_brackets": ({"main.tf": lambda: locals_with("[" * 100_000)},
                           "Configuration too deeply nested", "main.tf line 2", "256 levels"),
    "5k_nested_tuples": ({"main.tf": lambda: locals_with(nested("[", "1", "]", 5000))},
                         "Configuration too deeply nested", "main.tf line 2", "256 levels"),
    "100k_unary_operators": ({"main.tf": lambda: locals_with("!" * 100_000 + "true")},
                             "Configuration too deeply nested", "main.tf line 2", ""),
    "10k_term_sum": ({"main.tf": lambda: locals_with(" + ".join(["1"] * 10_000))},
                     "Configuration too deeply nested", "main.tf line 2", ""),
    "5k_parentheses": ({"main.tf": lambda: locals_with(nested("(", "1", ")", 5000))},
                       "Configuration too deeply nested", "main.tf line 2", ""),
    "2k_nested_templates": ({"main.tf": lambda: locals_with(nested('"${', "1", '}"', 2000))},
                            "Configuration too deeply nested", "main.tf line 2", ""),
    "5k_nested_blocks": ({"main.tf": lambda: nested("dynamic {\n", "", "}\n", 5000)},
                         "Configuration too deeply nested", "main.tf line", ""),
    "deep_json": ({"main.tf.json": lambda: '{"locals": {"a": ' + nested("[", "1", "]", 100_000) + "}}"},
                  "Configuration too deeply nested", "main.tf.json line 1", ""),
    "json_of_wrong_shape": ({"main.tf.json": '{"resource": [1]}'}, "Invalid JSON configuration",
                            "main.tf.json line 1", '"resource"'),
    "count_1e9": ({"main.tf": 'resource "terraform_data" "x" {\n  count = 1e9\n}\n'},
                  "Invalid count argument", "main.tf line 2", "at most 100,000 instances"),
    "module_count_1e9": ({"main.tf": 'module "m" {\n  source = "./m"\n  count  = 1e9\n}\n',
                          "m/main.tf": 'output "o" {\n  value = 1\n}\n'},
                         "Invalid count argument", "main.tf line 3", "at most 100,000 instances"),
    "for_each_over_160k": ({"main.tf": 'resource "terraform_data" "x" {\n  for_each = toset(flatten([for i in '
                                       'range(400) : [for j in range(400) : "${i}-${j}"]]))\n}\n'},
                           "Invalid for_each argument", "main.tf line 2", "at most 100,000 instances"),
    "binary_garbage": ({"main.tf": garbage}, "Invalid character encoding", "main.tf line", "UTF-8"),
    "invalid_utf8_on_line_4": ({"main.tf": b"locals {\n  a = 1\n}\n# caf\xe9 \xff\n"},
                               "Invalid character encoding", "main.tf line 4", "UTF-8"),
    "nul_outside_a_string": ({"main.tf": "locals {\n  a = 1\x00\n}\n"}, "Invalid expression", "main.tf line 2", ""),
    # a 20,000-digit literal is a valid number to Terraform (big.Float); an exponent beyond
    # big.Float's range is HCL's "Invalid number literal"
    "huge_exponent_number": ({"main.tf": locals_with("1e99999999999")}, "Invalid expression", "main.tf line 2",
                             "Invalid number literal: number out of range"),
    "resource_cycle": ({"main.tf": 'resource "terraform_data" "a" {\n  input = terraform_data.b.output\n}\n'
                                   'resource "terraform_data" "b" {\n  input = terraform_data.a.output\n}\n'},
                       "Cycle: terraform_data.a, terraform_data.b", None,
                       "terraform_data.a (main.tf:1)\n  - terraform_data.b (main.tf:4)"),
    "local_cycle": ({"main.tf": "locals {\n  a = local.b\n  b = local.c\n  c = local.a\n}\n"
                                'output "o" {\n  value = local.a\n}\n'},
                    "Cycle: local.a, local.b, local.c", None, "local.b (main.tf:3)"),
}


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_configuration(name: str, tmp_path: Path) -> None:
    files, summary, where, detail = CASES[name]
    conf = tmp_path / "conf"
    for rel, content in files.items():
        data = content() if callable(content) else content
        path = conf / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
    proc = subprocess.run([sys.executable, "-m", "tfconsole.command.main", f"-chdir={conf}", "plan", "-no-color",
                           "-input=false"], stdin=subprocess.DEVNULL, capture_output=True, check=False,
                          timeout=TIMEOUT, preexec_fn=_limits, env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")})
    out = (proc.stdout + proc.stderr).decode("utf-8", "replace")
    assert proc.returncode != 0, out[-2000:]
    assert "Traceback" not in out and "Internal error" not in out and "MemoryError" not in out, out[-3000:]
    assert f"Error: {summary}" in out, out[-2000:]
    if where is not None:
        assert f"on {where}" in out, out[-2000:]
    assert detail in out.replace("\n", " ") or detail in out, out[-2000:]
