"""Backends as Terraform handles them (issue 9, item 5): init records the backend in
.terraform/terraform.tfstate exactly as Terraform 1.15 does (each tool accepts the other's),
-backend-config KEY=VALUE and FILE, -reconfigure, and -migrate-state local <-> pg <-> http."""
from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest
from remote_common import env_for, must, terraform, tfconsole, workdir
from remote_servers import PgCluster, StateServer, pg_cluster, pg_config, state_server  # noqa: F401

from tfconsole.states.statefile import read_state

BODY = '''
resource "terraform_data" "a" {
  input = terraform.workspace
}
output "o" {
  value = terraform_data.a.output
}
'''


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return env_for(tmp_path)


def recorded(d: Path) -> dict:
    doc = json.loads((d / ".terraform" / "terraform.tfstate").read_text())
    doc.pop("terraform_version")
    return doc


def test_init_records_the_backend_as_terraform_does(tmp_path: Path, env: dict[str, str],
                                                    state_server: StateServer) -> None:
    partial = state_server.config().replace(f'    password = "{state_server.password}"\n', "")
    (tmp_path / "creds.hcl").write_text(f'password = "{state_server.password}"\nretry_wait_max = 3\n')
    args = ["init", "-input=false", "-no-color", f"-backend-config={tmp_path / 'creds.hcl'}",
            "-backend-config=skip_cert_verification=true"]
    ours = workdir(tmp_path, "ours", partial, BODY)
    theirs = workdir(tmp_path, "theirs", partial, BODY)
    must(tfconsole(ours, *args, env=env))
    must(terraform(theirs, *args, env=env))
    assert recorded(ours) == recorded(theirs)
    assert recorded(ours)["backend"]["config"]["password"] == state_server.password
    # the password is only in the record: a later command uses it (the server insists on it)
    must(tfconsole(ours, "apply", "-auto-approve", "-no-color", env=env))
    # each tool accepts the other's record (same hash): swap them
    (ours / ".terraform" / "terraform.tfstate").write_bytes((theirs / ".terraform" / "terraform.tfstate").read_bytes())
    must(tfconsole(ours, "plan", "-no-color", env=env))
    p = terraform(theirs, "plan", "-input=false", "-no-color", "-detailed-exitcode", env=env)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr


def test_a_changed_block_needs_init(tmp_path: Path, env: dict[str, str], state_server: StateServer) -> None:
    d = workdir(tmp_path, "w", state_server.config(), BODY)
    must(tfconsole(d, "init", "-no-color", env=env))
    (d / "main.tf").write_text(state_server.config("/state/other") + BODY)
    ours = tfconsole(d, "plan", "-no-color", env=env)
    must(terraform(d, "version", env=env))
    theirs = terraform(d, "plan", "-input=false", "-no-color", env=env)
    assert ours.returncode == theirs.returncode == 1
    for text in (ours.stderr, theirs.stderr):
        flat = " ".join(text.split())
        assert 'Error: Backend initialization required, please run "terraform init"' in flat, text
        assert "Reason: Backend configuration block has changed" in flat, text
    must(tfconsole(d, "init", "-reconfigure", "-no-color", env=env))
    must(tfconsole(d, "apply", "-auto-approve", "-no-color", env=env))
    assert "/state/other" in state_server.states


def states_by_workspace(d: Path) -> dict[str, tuple]:
    """workspace -> (lineage, resources, outputs) of a local working directory."""
    out = {}
    for name, path in [("default", d / "terraform.tfstate")] + [
            (p.name, p / "terraform.tfstate") for p in sorted((d / "terraform.tfstate.d").glob("*"))]:
        st, diags = read_state(path)
        assert not diags.has_errors and st is not None
        out[name] = (st.lineage, sorted(str(a) for a, _ in st.all_instances()),
                     {k: v.value for k, v in st.outputs.items()})
    return out


def test_migrate_local_pg_local_keeps_every_workspace(tmp_path: Path, env: dict[str, str],
                                                      pg_cluster: PgCluster) -> None:  # noqa: F811
    dsn = pg_cluster.new_database()
    d = workdir(tmp_path, "w", "", BODY)
    must(tfconsole(d, "apply", "-auto-approve", "-no-color", env=env))
    for ws in ("dev", "prod"):
        must(tfconsole(d, "workspace", "new", "-no-color", ws, env=env))
        must(tfconsole(d, "apply", "-auto-approve", "-no-color", env=env))
    before = states_by_workspace(d)
    assert sorted(before) == ["default", "dev", "prod"] and before["dev"][2] == {"o": "dev"}
    (d / "main.tf").write_text('terraform {\n  backend "pg" {}\n}\n' + BODY)
    p = tfconsole(d, "init", "-no-color", f"-backend-config=conn_str={dsn}", env=env)
    assert p.returncode == 1 and "Backend configuration changed" in p.stderr, p.stderr  # never silently
    must(tfconsole(d, "init", "-migrate-state", "-no-color", f"-backend-config=conn_str={dsn}", env=env))
    with psycopg.connect(dsn) as c:
        rows = dict(c.execute("SELECT name, data FROM terraform_remote_state.states").fetchall())
    assert sorted(rows) == ["default", "dev", "prod"]
    for ws, (lineage, _, outputs) in before.items():
        st = json.loads(rows[ws])
        assert st["lineage"] == lineage and {k: v["value"] for k, v in st["outputs"].items()} == outputs
    # real Terraform sees the migrated workspaces (the record and the rows are Terraform's)
    p = terraform(d, "plan", "-input=false", "-no-color", "-detailed-exitcode", env=env)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr
    # and back: drop the local copies first, so the files are rewritten from pg
    for f in [d / "terraform.tfstate", d / "terraform.tfstate.backup"]:
        f.unlink(missing_ok=True)
    for ws_dir in (d / "terraform.tfstate.d").glob("*"):
        (ws_dir / "terraform.tfstate").unlink()
    (d / "main.tf").write_text(BODY)
    must(tfconsole(d, "init", "-migrate-state", "-no-color", env=env))
    assert states_by_workspace(d) == before
    p = tfconsole(d, "plan", "-no-color", "-detailed-exitcode", env=env)
    assert p.returncode == 0, p.stdout[-2000:]


def test_migrate_local_http_local_and_refusal_of_several_workspaces(tmp_path: Path, env: dict[str, str],
                                                                    state_server: StateServer) -> None:
    d = workdir(tmp_path, "w", "", BODY)
    must(tfconsole(d, "apply", "-auto-approve", "-no-color", env=env))
    before = states_by_workspace(d)
    (d / "main.tf").write_text(state_server.config() + BODY)
    must(tfconsole(d, "init", "-migrate-state", "-no-color", env=env))
    assert json.loads(state_server.states["/state/main"])["lineage"] == before["default"][0]
    (d / "terraform.tfstate").unlink()
    (d / "main.tf").write_text(BODY)
    must(tfconsole(d, "init", "-migrate-state", "-no-color", env=env))
    assert states_by_workspace(d) == before
    # several workspaces into http: refused unless -force-copy (which copies the current one only)
    must(tfconsole(d, "workspace", "new", "-no-color", "dev", env=env))
    must(tfconsole(d, "apply", "-auto-approve", "-no-color", env=env))
    (d / "main.tf").write_text(state_server.config("/state/two") + BODY)
    p = tfconsole(d, "init", "-migrate-state", "-no-color", env=env)
    assert p.returncode == 1 and "doesn't support workspaces" in p.stderr, p.stderr
    assert "/state/two" not in state_server.states
    must(tfconsole(d, "init", "-migrate-state", "-force-copy", "-no-color", env=env))
    assert json.loads(state_server.states["/state/two"])["outputs"]["o"]["value"] == "dev"
    assert must(tfconsole(d, "workspace", "show", env=env)).strip() == "default"


def test_pg_record_and_hash_match_terraform(tmp_path: Path, env: dict[str, str],
                                            pg_cluster: PgCluster) -> None:  # noqa: F811
    dsn = pg_cluster.new_database()
    block = 'terraform {\n  backend "pg" {\n    schema_name = "s1"\n    skip_index_creation = true\n  }\n}\n'
    args = ["init", "-input=false", "-no-color", f"-backend-config=conn_str={dsn}",
            "-backend-config=skip_table_creation=false"]
    ours, theirs = workdir(tmp_path, "ours", block, BODY), workdir(tmp_path, "theirs", block, BODY)
    must(tfconsole(ours, *args, env=env))
    must(terraform(theirs, *args, env=env))
    assert recorded(ours) == recorded(theirs)


def test_bad_backend_settings_are_diagnosed(tmp_path: Path, env: dict[str, str]) -> None:
    cases = {
        'backend "http" {}': "address argument is required",
        'backend "http" {\n    address = "ftp://x/y"\n  }': "address must be HTTP or HTTPS",
        'backend "http" {\n    address = "http://x/y"\n    retry_max = "many"\n  }': "retry_max\": a number is required",
        'backend "http" {\n    address = "http://x/y"\n    colour = "blue"\n  }': 'An argument named "colour"',
        'backend "pg" {\n    skip_table_creation = "perhaps"\n  }': "skip_table_creation\": a bool is required",
    }
    for i, (block, want) in enumerate(cases.items()):
        d = workdir(tmp_path, f"c{i}", f"terraform {{\n  {block}\n}}\n", BODY)
        for args in (["plan", "-no-color"], ["init", "-no-color"]):
            p = tfconsole(d, *args, env=env)
            assert p.returncode == 1 and want in " ".join(p.stderr.split()), (block, args, p.stderr)
            assert "Traceback" not in p.stderr
