"""data "terraform_remote_state" reading the http and pg backends (issue 9, item 5): the values
tfconsole reads are the ones real Terraform 1.15 reads from the same server and database."""
from __future__ import annotations

import json
from pathlib import Path

from remote_common import env_for, must, terraform, tfconsole, workdir
from remote_servers import PgCluster, StateServer, pg_cluster, pg_config, state_server  # noqa: F401

PRODUCER = '''
output "name" {
  value = "from-${terraform.workspace}"
}
output "nums" {
  value = [1, 2.5, 10000000000]
}
output "obj" {
  value = { a = true, b = null }
}
'''


def consumer(server: StateServer, dsn: str) -> str:
    return f'''
data "terraform_remote_state" "h" {{
  backend = "http"
  config = {{
    address   = "{server.base}/state/main"
    username  = "{server.username}"
    password  = "{server.password}"
    retry_max = 1
  }}
}}
data "terraform_remote_state" "p" {{
  backend   = "pg"
  workspace = "dev"
  config = {{
    conn_str = "{dsn}"
  }}
}}
data "terraform_remote_state" "missing" {{
  backend   = "pg"
  workspace = "nosuch"
  config = {{
    conn_str = "{dsn}"
  }}
  defaults = {{
    name = "fallback"
  }}
}}
output "h" {{
  value = data.terraform_remote_state.h.outputs
}}
output "p" {{
  value = data.terraform_remote_state.p.outputs
}}
output "missing" {{
  value = data.terraform_remote_state.missing.outputs.name
}}
'''


def test_remote_state_from_http_and_pg(tmp_path: Path, state_server: StateServer,
                                       pg_cluster: PgCluster) -> None:  # noqa: F811
    env = env_for(tmp_path)
    dsn = pg_cluster.new_database()
    h = workdir(tmp_path, "h", state_server.config(), PRODUCER)
    must(tfconsole(h, "apply", "-auto-approve", "-no-color", env=env))
    p = workdir(tmp_path, "p", pg_config(dsn), PRODUCER)
    must(tfconsole(p, "workspace", "new", "-no-color", "dev", env=env))
    must(tfconsole(p, "apply", "-auto-approve", "-no-color", env=env))
    ours = workdir(tmp_path, "ours", "", consumer(state_server, dsn))
    theirs = workdir(tmp_path, "theirs", "", consumer(state_server, dsn))
    must(tfconsole(ours, "apply", "-auto-approve", "-no-color", env=env))
    must(terraform(theirs, "init", "-input=false", "-no-color", env=env))
    must(terraform(theirs, "apply", "-input=false", "-auto-approve", "-no-color", env=env))
    got = json.loads(must(tfconsole(ours, "output", "-json", env=env)))
    want = json.loads(must(terraform(theirs, "output", "-json", env=env)))
    assert got == want
    assert got["p"]["value"]["name"] == "from-dev" and got["h"]["value"]["name"] == "from-default"
