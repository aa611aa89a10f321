"""`backend "pg"`: workspaces as rows of a PostgreSQL table, with Terraform 1.15's layout and locks.

Layout (created unless skip_schema_creation / skip_table_creation / skip_index_creation):
schema `schema_name` (default terraform_remote_state), sequence public.global_states_id_seq,
table `states(id bigint default nextval('public.global_states_id_seq') primary key, name text
unique, data text)`, unique index `states_by_name` on name. A workspace is a row (`default` and
the named ones); `data` is the state file's text.

Locks are session advisory locks keyed by the row's id, taken on a connection the state manager
keeps open while it holds them (the server drops them when that session ends, even on kill -9).
While a workspace's row does not exist yet, the lock is the global key -1, which is also taken
(and released at once) beside every row lock, so a row being created excludes everyone.

Advisory locks carry no lock info, so Terraform names no holder on pg. tfconsole names the
session that holds the key (pg_locks, pg_stat_activity): its user, client, application and
since when; a tfconsole holder puts its lock ID in its application_name.

Settings: conn_str (PG_CONN_STR; libpq's PG* variables fill in what it leaves out),
schema_name (PG_SCHEMA_NAME), skip_*_creation (PG_SKIP_*_CREATION).
"""
from __future__ import annotations

import os
from datetime import timezone
from typing import Any, Mapping

from tfconsole.backends import Overrides, register_backend
from tfconsole.diags import Diagnostics
from tfconsole.states.locking import LockInfo

from .remote import LockAttempt, RemoteStateManager, journal_dir
from .settings import Settings, schema_types
from .workspaces import DEFAULT_WORKSPACE, WorkspaceBackend

TABLE = "states"
INDEX = "states_by_name"
GLOBAL_LOCK = -1
APP_PREFIX = "tfconsole "

ATTRIBUTES = {
    "conn_str": ("string", "PG_CONN_STR", ""),
    "schema_name": ("string", "PG_SCHEMA_NAME", "terraform_remote_state"),
    "skip_schema_creation": ("bool", "PG_SKIP_SCHEMA_CREATION", False),
    "skip_table_creation": ("bool", "PG_SKIP_TABLE_CREATION", False),
    "skip_index_creation": ("bool", "PG_SKIP_INDEX_CREATION", False),
}


def _connect(cfg: Mapping[str, Any]) -> tuple[Any, Diagnostics]:
    diags = Diagnostics()
    try:
        import psycopg
    except ImportError as exc:
        return None, diags.error("PostgreSQL client unavailable", f"The pg backend needs psycopg 3: {exc}")
    try:
        return psycopg.connect(cfg["conn_str"], autocommit=True, application_name="tfconsole",
                               connect_timeout=30), diags
    except psycopg.Error as exc:
        return None, diags.error("Failed to connect to PostgreSQL", str(exc).strip())


def _names(cfg: Mapping[str, Any]) -> tuple[Any, Any]:
    from psycopg import sql
    return sql.Identifier(cfg["schema_name"]), sql.Identifier(TABLE)


def _q(text: str, cfg: Mapping[str, Any]) -> Any:
    from psycopg import sql
    schema, table = _names(cfg)
    return sql.SQL(text).format(schema=schema, table=table, index=sql.Identifier(INDEX))


class PgClient:
    """One workspace's row, on a connection of its own (the session that holds its locks)."""

    def __init__(self, cfg: Mapping[str, Any], name: str):
        self.cfg = cfg
        self.name = name
        self.label = f"workspace \"{name}\" of PostgreSQL schema \"{cfg['schema_name']}\""
        self._conn: Any = None
        self.lock_key: int | None = None

    def _db(self) -> tuple[Any, Diagnostics]:
        if self._conn is None or self._conn.closed:
            self._conn, d = _connect(self.cfg)
            return self._conn, d
        return self._conn, Diagnostics()

    def _run(self, query: Any, args: tuple = (), what: str = "") -> tuple[list | None, Diagnostics]:
        import psycopg

        conn, diags = self._db()
        if conn is None:
            return None, diags
        try:
            cur = conn.execute(query, args)
            return (cur.fetchall() if cur.description else []), diags
        except psycopg.Error as exc:
            return None, diags.error(what or "PostgreSQL error", str(exc).strip())

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def get(self) -> tuple[bytes | None, Diagnostics]:
        rows, diags = self._run(_q("SELECT data FROM {schema}.{table} WHERE name = %s", self.cfg), (self.name,),
                                "Failed to load state")
        if not rows or rows[0][0] is None:
            return None, diags
        return rows[0][0].encode("utf-8"), diags

    def put(self, data: bytes) -> Diagnostics:
        return self._run(_q("INSERT INTO {schema}.{table} (name, data) VALUES (%s, %s) ON CONFLICT (name) DO UPDATE "
                            "SET data = EXCLUDED.data", self.cfg), (self.name, data.decode("utf-8")),
                         "Failed to save state")[1]

    def delete(self) -> Diagnostics:
        return self._run(_q("DELETE FROM {schema}.{table} WHERE name = %s", self.cfg), (self.name,),
                         "Failed to delete state")[1]

    def _unlock_key(self, key: int) -> None:
        self._run("SELECT pg_advisory_unlock(%s)", (key,))

    def lock(self, info: LockInfo) -> LockAttempt:
        rows, d = self._run(_q("SELECT id, pg_try_advisory_lock(id), pg_try_advisory_lock(-1) FROM {schema}.{table} "
                               "WHERE name = %s", self.cfg), (self.name,))
        if rows is None:
            return LockAttempt(False, d.errors()[0].detail, retry=False)
        if not rows:
            got, d = self._run("SELECT pg_try_advisory_lock(-1)")
            if got is None:
                return LockAttempt(False, d.errors()[0].detail, retry=False)
            if not got[0][0]:
                return LockAttempt(False, f"Already locked for workspace creation: {self.name}",
                                   self._holder(GLOBAL_LOCK))
            key = GLOBAL_LOCK
        else:
            key, row_locked, create_locked = rows[0]
            if not row_locked:
                if create_locked:
                    self._unlock_key(GLOBAL_LOCK)
                return LockAttempt(False, f"Workspace is already locked: {self.name}", self._holder(key))
            if not create_locked:
                self._unlock_key(key)
                return LockAttempt(False, f"Cannot lock workspace; already locked for workspace creation: "
                                   f"{self.name}", self._holder(GLOBAL_LOCK))
            self._unlock_key(GLOBAL_LOCK)
        self.lock_key = key
        info.Path = str(key)  # as Terraform records it
        self._run("SELECT set_config('application_name', %s, false)", (APP_PREFIX + info.ID,))
        return LockAttempt(True)

    def _holder(self, key: int) -> LockInfo | None:
        """Who holds an advisory lock key: the session's user, client, application, since when."""
        classid, objid = (key >> 32) & 0xFFFFFFFF, key & 0xFFFFFFFF
        rows, _ = self._run(
            "SELECT a.pid, a.usename, a.application_name, host(a.client_addr), a.backend_start "
            "FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' "
            "AND l.granted AND l.classid = %s AND l.objid = %s AND l.objsubid = 1 "
            "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            (classid, objid))
        if not rows:
            return None
        pid, user, app, client, since = rows[0]
        app = app or ""
        lock_id = app[len(APP_PREFIX):] if app.startswith(APP_PREFIX) else ""
        created = since.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ") if since else ""
        tool = "tfconsole" if lock_id else (f"application \"{app}\"" if app else "a session with no application_name")
        return LockInfo(ID=lock_id, Operation="", Who=f"{user}@{client or 'local socket'}",
                        Info=f"PostgreSQL session {pid} ({tool}) holds advisory lock {key}",
                        Created=created, Path=str(key))

    def unlock(self, info: LockInfo | None) -> Diagnostics:
        if self.lock_key is not None:
            self._unlock_key(self.lock_key)
            self.lock_key = None
            self._run("SELECT set_config('application_name', 'tfconsole', false)")
        return Diagnostics()


class PgBackend(WorkspaceBackend):
    def __init__(self, working_dir: str, cfg: dict[str, Any], env: Mapping[str, str] | None = None):
        self.working_dir = working_dir
        self.cfg = cfg
        self._env = env if env is not None else os.environ
        self.data_dir = self._env.get("TF_DATA_DIR") or ".terraform"
        self._prepared = False

    def prepare(self) -> Diagnostics:
        """Create the schema, sequence, table and index Terraform uses (unless told not to)."""
        if self._prepared:
            return Diagnostics()
        c = PgClient(self.cfg, "")
        try:
            steps = []
            if not self.cfg["skip_schema_creation"]:
                steps.append(_q("CREATE SCHEMA IF NOT EXISTS {schema}", self.cfg))
            if not self.cfg["skip_table_creation"]:
                steps.append("CREATE SEQUENCE IF NOT EXISTS public.global_states_id_seq AS bigint")
                steps.append(_q("CREATE TABLE IF NOT EXISTS {schema}.{table} (id bigint NOT NULL DEFAULT "
                                "nextval('public.global_states_id_seq') PRIMARY KEY, name text UNIQUE, data text)",
                                self.cfg))
            if not self.cfg["skip_index_creation"]:
                steps.append(_q("CREATE UNIQUE INDEX IF NOT EXISTS {index} ON {schema}.{table} (name)", self.cfg))
            for q in steps:
                _, d = c._run(q, (), "Failed to configure the pg backend")
                if d.has_errors:
                    return d
        finally:
            c.close()
        self._prepared = True
        return Diagnostics()

    def workspaces(self) -> list[str]:
        if self.prepare().has_errors:
            return [DEFAULT_WORKSPACE]
        c = PgClient(self.cfg, "")
        try:
            rows, _ = c._run(_q("SELECT name FROM {schema}.{table} WHERE name != 'default' ORDER BY name", self.cfg))
        finally:
            c.close()
        return [DEFAULT_WORKSPACE] + [r[0] for r in rows or []]

    def _create_workspace(self, name: str) -> Diagnostics:
        """Terraform's StateMgr for a missing row: under the lock, write an empty state."""
        mgr = self._manager(name, True, 0.0, "init")
        diags = mgr.lock()
        if diags.has_errors:
            return Diagnostics().error(f"failed to lock state in Postgres: {diags.errors()[0].detail}")
        try:
            state, d = mgr.load()
            diags.append(d)
            if state is not None and mgr.client.get()[0] is None:
                diags.append(mgr.persist(state))
        finally:
            mgr.close()
        return diags

    def _remove_workspace(self, name: str) -> Diagnostics:
        if name in ("", DEFAULT_WORKSPACE):
            return Diagnostics().error("can't delete default state")
        c = PgClient(self.cfg, name)
        try:
            return c.delete()
        finally:
            c.close()

    def state_manager(self, name: str | None = None, *, lock: bool = True, lock_timeout: float = 0.0,
                      operation: str = "OperationTypeApply") -> Any:
        from . import UnavailableStateManager

        d = self.prepare()
        if d.has_errors:
            return UnavailableStateManager(d)
        # as in Terraform, a workspace's row appears with its first state: until then a run locks
        # the global key -1 ("locked for workspace creation")
        return self._manager(name or self.current_workspace(), lock, lock_timeout, operation)

    def _manager(self, name: str, lock: bool, lock_timeout: float, operation: str) -> RemoteStateManager:
        jd = journal_dir(self.working_dir, self.data_dir, "pg", f"{self.cfg['conn_str']}|{self.cfg['schema_name']}")
        return RemoteStateManager(PgClient(self.cfg, name), os.path.join(jd, f"{name}.journal"), lock=lock,
                                  lock_timeout=lock_timeout, operation=operation)

    def read_raw(self, name: str = DEFAULT_WORKSPACE) -> tuple[bytes | None, Diagnostics]:
        """A workspace's state as stored, without lock or journal (terraform_remote_state)."""
        d = self.prepare()
        if d.has_errors:
            return None, d
        c = PgClient(self.cfg, name)
        try:
            return c.get()
        finally:
            c.close()

    def force_unlock(self, lock_id: str, *, force: bool = False) -> str | None:
        # an advisory lock belongs to its session: nobody else can release it, and it goes when
        # the session ends; Terraform's pg force-unlock likewise succeeds without doing anything
        return None


def configure(settings: Mapping[str, Any], env: Mapping[str, str]) -> tuple[dict[str, Any] | None, Diagnostics]:
    s = Settings("pg", settings, env)
    cfg = s.resolve(ATTRIBUTES)
    return (None if s.diags.has_errors else cfg), s.diags


def _from_block(working_dir: str, settings: dict, overrides: Overrides) -> tuple[PgBackend | None, Diagnostics]:
    cfg, diags = configure(settings, os.environ)
    return (PgBackend(working_dir, cfg) if cfg is not None else None), diags


register_backend("pg", _from_block, schema_types(ATTRIBUTES))
