"""Terraform's CLI configuration: the HCL 1 reader, provider_installation, plugin_cache_dir,
implied mirror directories, and Terraform's own report of a broken configuration."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from _install_util import isolate, ours, terraform

from tfconsole.providers.plugin import cliconfig, hcl1
from tfconsole.providers.plugin.provider_addr import parse_source


def test_hcl1_forms() -> None:
    items = hcl1.parse('''
# a comment
// another
/* and a
   block comment */
plugin_cache_dir = "$HOME/.cache/tf" , disable_checkpoint = true
provider_installation {
  dev_overrides {
    "hashicorp/null" = "/src/null"
    "example.com/a/b" = "/src/b"
  }
  filesystem_mirror {
    path    = "/mirror"
    include = ["hashicorp/*", "example.com/*/*",]
  }
  direct { exclude = ["hashicorp/*"] }
}
credentials "app.terraform.io" {
  token = "x${y}z"
}
note = <<EOT
line one
EOT
''')
    assert [i.keys for i in items] == [["plugin_cache_dir"], ["disable_checkpoint"], ["provider_installation"],
                                       ["credentials", "app.terraform.io"], ["note"]]
    pi = items[2]
    assert pi.is_object and not pi.assign and pi.pos() == "7:1"
    dev = pi.value[0]
    assert [(i.keys[0], i.value) for i in dev.value] == [("hashicorp/null", "/src/null"), ("example.com/a/b", "/src/b")]
    assert pi.value[1].value[1].value == ["hashicorp/*", "example.com/*/*"]
    assert items[3].value[0].value == "x${y}z"
    assert items[4].value == "line one\n"


@pytest.mark.parametrize("text,message", [  # as Terraform (HCL 1) words them
    ("provider_installation {\n", "At 2:2: object expected closing RBRACE got: EOF"),
    ('a = "x\n', "At 1:7: literal not terminated"),
    ("a = [1 2]\n", "At 1:8: error parsing list, expected comma or list end, got: NUMBER"),
    ("= 1\n", "At 1:1: no object keys found!")])
def test_hcl1_syntax_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError) as exc:
        hcl1.parse(text)
    assert str(exc.value) == message


def load(monkeypatch, tmp_path: Path, text: str, name: str = "cli.tfrc") -> tuple[cliconfig.CLIConfig, list]:
    isolate(monkeypatch, tmp_path, None)
    path = tmp_path / name
    path.write_text(text)
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(path))
    cfg, diags = cliconfig.load()
    return cfg, [(d.summary, d.detail) for d in diags]


def test_provider_installation_methods_and_patterns(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SRC", "/home/dev/src")
    cfg, diags = load(monkeypatch, tmp_path, '''provider_installation {
  dev_overrides {
    "hashicorp/null" = "${SRC}/null"
  }
  filesystem_mirror {
    path    = "/mirror"
    include = ["example.com/*/*", "hashicorp/null"]
  }
  network_mirror {
    url = "https://mirror.example.com/"
  }
  direct {
    exclude = ["example.com/*/*"]
  }
}''')
    assert diags == []
    assert cfg.dev_overrides == {parse_source("hashicorp/null"): "/home/dev/src/null"}
    fs, net, direct = cliconfig.installation_methods(cfg)
    assert (fs.kind, fs.location, net.kind, direct.kind) == ("filesystem_mirror", "/mirror", "network_mirror", "direct")
    assert fs.can_handle(parse_source("example.com/acme/x")) and fs.can_handle(parse_source("hashicorp/null"))
    assert not fs.can_handle(parse_source("hashicorp/random"))
    assert not direct.can_handle(parse_source("example.com/acme/x")) and direct.can_handle(parse_source("acme/x"))


@pytest.mark.parametrize("body,summary,detail", [
    ("direct {}\n  dev_overrides {\n  }", "Invalid provider_installation method block",
     "The dev_overrides block at 3:3 must appear before all other installation methods, because development "
     "overrides always have the highest priority."),
    ("fancy {}", "Invalid provider_installation method block", 'Unknown provider installation method "fancy" at 2:3.'),
    ("filesystem_mirror {}", "Invalid provider_installation method block",
     'Invalid filesystem_mirror block at 1:1: "path" argument is required.'),
    ('direct { include = ["a/b/c/d"] }', "Invalid provider source inclusion patterns",
     'CLI config specifies invalid provider inclusion patterns: invalid provider matching pattern "a/b/c/d": must have '
     "either two or three slash-separated segments."),
    ('direct { exclude = ["*/foo"] }', "Invalid provider source exclusion patterns",
     'CLI config specifies invalid provider exclusion patterns: invalid provider matching pattern "*/foo": namespace '
     "can be a wildcard only if the provider type is also a wildcard."),
    ('dev_overrides {\n    "hashicorp/null" = "$NOT_SET_ANYWHERE/x"\n  }', "Interpolated environment variable not set",
     "The environment variable NOT_SET_ANYWHERE is not set or empty and can result in undesired behavior"),
    ("direct = {}", "Invalid provider_installation method block",
     "The items inside the provider_installation block at 1:1 must all be blocks."),
])
def test_provider_installation_errors(monkeypatch, tmp_path: Path, body: str, summary: str, detail: str) -> None:
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    _, diags = load(monkeypatch, tmp_path, f"provider_installation {{\n  {body}\n}}\n")
    assert (summary, detail) in diags


def test_block_form_errors(monkeypatch, tmp_path: Path) -> None:
    _, diags = load(monkeypatch, tmp_path, 'provider_installation = {\n  direct {}\n}\n')
    assert ("Invalid provider_installation block", "The provider_installation block at 1:1 must not be introduced "
            "with an equals sign.") in diags
    _, diags = load(monkeypatch, tmp_path, 'provider_installation "x" {\n}\nprovider_installation {\n}\n')
    assert ("Invalid provider_installation block", "The provider_installation block at 1:1 must not have any "
            "labels.") in diags
    assert ("No more than one provider_installation block may be specified", "") in diags


def test_syntax_error_and_missing_file(monkeypatch, tmp_path: Path) -> None:
    _, diags = load(monkeypatch, tmp_path, "provider_installation {\n")
    assert diags[0][0].startswith(f"Error parsing {tmp_path / 'cli.tfrc'}: At ")
    isolate(monkeypatch, tmp_path, None)
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(tmp_path / "absent.tfrc"))
    _, d = cliconfig.load()
    assert [(x.summary, x.detail) for x in d] == [("Unable to open CLI configuration file", "The CLI configuration "
                                                   f"file at \"{tmp_path / 'absent.tfrc'}\" does not exist.")]


def test_plugin_cache_dir_precedence(monkeypatch, tmp_path: Path) -> None:
    isolate(monkeypatch, tmp_path, None)
    home = Path(os.environ["HOME"])
    for name in ("main", "dir", "env"):
        (tmp_path / name).mkdir()
    (home / ".terraformrc").write_text(f'plugin_cache_dir = "{tmp_path / "main"}"\n')
    (home / ".terraform.d").mkdir()
    (home / ".terraform.d" / "extra.tfrc").write_text(f'plugin_cache_dir = "{tmp_path / "dir"}"\n')
    (home / ".terraform.d" / "more.tfrc.json").write_text('{"provider_installation": {"direct": {}}}')
    cfg, d = cliconfig.load()
    assert not d and cfg.plugin_cache_dir == str(tmp_path / "main")
    assert [m.kind for m in cliconfig.installation_methods(cfg)] == ["direct"]
    (home / ".terraformrc").unlink()
    assert cliconfig.load()[0].plugin_cache_dir == str(tmp_path / "dir")
    monkeypatch.setenv("TF_PLUGIN_CACHE_DIR", str(tmp_path / "env"))
    assert cliconfig.load()[0].plugin_cache_dir == str(tmp_path / "env")
    monkeypatch.setenv("TF_PLUGIN_CACHE_DIR", str(tmp_path / "nope"))
    assert cliconfig.load()[1].errors()[0].summary == (f"The specified plugin cache dir {tmp_path / 'nope'} cannot be "
                                                        f"opened: stat {tmp_path / 'nope'}: no such file or directory")


def test_implied_mirror_directories(monkeypatch, tmp_path: Path) -> None:
    isolate(monkeypatch, tmp_path, None)
    home = Path(os.environ["HOME"])
    work = tmp_path / "work"
    dirs = [work / "terraform.d" / "plugins", home / ".terraform.d" / "plugins",
            home / "xdg-data" / "terraform" / "plugins", tmp_path / "sys1" / "terraform" / "plugins"]
    for d in dirs:
        d.mkdir(parents=True)
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "xdg-data"))
    monkeypatch.setenv("XDG_DATA_DIRS", f"{tmp_path / 'sys1'}:relative/ignored:{tmp_path / 'sys2'}")
    methods = cliconfig.implied_methods(str(work))
    assert [m.location for m in methods[:-1]] == [str(d) for d in dirs]
    assert methods[-1].kind == "direct"


def test_cli_config_problems_are_reported_as_terraform_reports_them(monkeypatch, tmp_path: Path) -> None:
    rc = ('provider_installation {\n  direct {}\n  dev_overrides {\n    "hashicorp/null" = "/tmp/x"\n  }\n'
          '  fancy_mirror {}\n}\nplugin_cache_dir = "/nonexistent/cache"\n')
    env = isolate(monkeypatch, tmp_path, rc)
    for who in ("tf", "us"):
        (tmp_path / who).mkdir()
    code, out, err = terraform(tmp_path / "tf", env, "init", "-no-color")
    assert ours(tmp_path / "us", "init", "-no-color") == (code, out, err)
    assert "There are some problems with the CLI configuration:" in err
