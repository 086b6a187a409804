"""The store on PostgreSQL against the store on SQLite: one schema, append-only rules the
database enforces, clean refusals, and the same output for a real campaign (TREC-COVID
round 1) on both engines."""

from __future__ import annotations

import re
import sqlite3
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner

from pooltool.cli import cli
from pooltool.errors import StoreError
from pooltool.judging.adaptive import create_adaptive_pool
from pooltool.store import JudgmentStore, migrations
from pooltool.store.dialect import postgresql_sql
from pooltool.store.guidelines import GuidelineText, add_guidelines
from pooltool.store.postgresql_connection import shown_url

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_adaptive_pool import small_store  # noqa: E402

# SQLite's declared types as the PostgreSQL schema spells them (postgresql.sql's header)
PG_TYPE = {"INTEGER": "bigint", "TEXT": "text", "REAL": "double precision", "BLOB": "bytea"}
# the bookkeeping tables of each engine's migrations
SQLITE_ONLY_TABLES = {"_sqlite_migrations", "sqlite_sequence"}
POSTGRESQL_ONLY_TABLES = {"pooltool_migrations"}
APPEND_ONLY = ["judgments", "runs", "run_columns", "run_retirements", "assessor_kinds",
               "guidelines", "adaptive_pools", "adjudications",
               "accounts"]


# -- 1. one schema -----------------------------------------------------------------------

def sqlite_columns() -> dict[str, list[tuple[str, str, bool]]]:
    """Each table of a new SQLite store: its columns (name, type, NOT NULL) in order."""
    store = JudgmentStore.memory()
    tables = [r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
              if r[0] not in SQLITE_ONLY_TABLES]
    found = {t: [(name, PG_TYPE[kind.upper()], bool(notnull or pk))
                 for _, name, kind, notnull, _, pk in store.conn.execute(f"PRAGMA table_info({t})")]
             for t in tables}
    store.close()
    return found


def postgresql_columns(url: str) -> dict[str, list[tuple[str, str, bool]]]:
    """Each table of the PostgreSQL store at ``url``, as :func:`sqlite_columns`."""
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT c.table_name, c.column_name, c.data_type, c.is_nullable "
            "FROM information_schema.columns c JOIN information_schema.tables t "
            "USING (table_schema, table_name) WHERE c.table_schema = current_schema() "
            "AND t.table_type = 'BASE TABLE' ORDER BY c.table_name, c.ordinal_position").fetchall()
    found: dict[str, list[tuple[str, str, bool]]] = {}
    for table, column, kind, nullable in rows:
        if table not in POSTGRESQL_ONLY_TABLES:
            found.setdefault(table, []).append((column, kind, nullable == "NO"))
    return found


def test_the_postgresql_schema_is_the_sqlite_schema(postgresql_store_url: str) -> None:
    sqlite, postgresql = sqlite_columns(), postgresql_columns(postgresql_store_url)
    assert sorted(postgresql) == sorted(sqlite)
    for table, columns in sqlite.items():
        assert postgresql[table] == columns, table


def test_a_new_postgresql_store_has_every_migration(postgresql_store_url: str) -> None:
    with psycopg.connect(postgresql_store_url) as conn:
        applied = [r[0] for r in conn.execute("SELECT name FROM pooltool_migrations ORDER BY name")]
    assert applied == sorted(migrations.names())
    assert applied[-1] == "m017_accounts" and len(applied) == 16


def test_the_postgresql_schema_file_is_generated_from_the_migrations() -> None:
    """postgresql.sql is the baseline (m001-m013) and each later migration's PostgreSQL
    script; regenerate it with migrations.postgresql_schema() when a migration is added."""
    shipped = Path(migrations.__file__).with_name("postgresql.sql").read_text(encoding="utf-8")
    assert shipped == migrations.postgresql_schema()
    assert shipped.count("\n-- m014_retraction_rules\n") == 1
    assert shipped.count("\n-- m015_duplicate_groups\n") == 1
    assert shipped.count("\n-- m016_adjudications\n") == 1
    assert shipped.count("\n-- m017_accounts\n") == 1 and shipped.endswith(
        "EXECUTE FUNCTION pooltool_refuse('accounts are append-only: add a row for the name "
        "instead');\n")


# -- 2. append-only, by the database itself ----------------------------------------------

@pytest.fixture
def filled(postgresql_store_url: str, tmp_path: Path) -> str:
    """A PostgreSQL store with a row in every append-only table."""
    qrels = tmp_path / "llm.qrels"
    qrels.write_text("1 0 d1 1\n")
    with JudgmentStore.open(postgresql_store_url) as store:
        create_adaptive_pool(small_store(store), "live", "mtf", budget=4)
        alice = store.record_judgment("1", "d1", 2, "alice")
        store.record_adjudication("1", "d1", 1, "carol", [alice])
        store.add_account("carol", "adjudicator", "a long passphrase")
        store.import_qrels(qrels, "llm", "gpt-judge", machine=True)
        add_guidelines(store, [GuidelineText("collection", "", "judge it all", "<t>")])
        store.add_run_frame(small_store(JudgmentStore.memory()).run_frame("A").assign(
            run_tag="gone", rank=1))
        store.remove_run("gone")
        for table in APPEND_ONLY:
            assert store.query(f"SELECT COUNT(*) AS n FROM {table}")["n"][0] > 0, table
    return postgresql_store_url


@pytest.mark.parametrize("table", APPEND_ONLY)
@pytest.mark.parametrize("statement", ["UPDATE {t} SET {c} = {c}", "DELETE FROM {t}",
                                       "TRUNCATE {t} CASCADE"])
def test_append_only_tables_refuse_changes_on_postgresql(filled: str, table: str,
                                                         statement: str) -> None:
    """Even a superuser's own SQL, outside pooltool, cannot change or delete a row."""
    with psycopg.connect(filled, autocommit=True) as conn:
        column = value(conn, "SELECT column_name FROM information_schema.columns "
                             "WHERE table_name = %s ORDER BY ordinal_position LIMIT 1", [table])
        rows = value(conn, f"SELECT COUNT(*) FROM {table}")
        with pytest.raises(psycopg.errors.IntegrityConstraintViolation,
                           match="append-only|kept as imported|kept as|never"):
            conn.execute(statement.format(t=table, c=column))
        assert value(conn, f"SELECT COUNT(*) FROM {table}") == rows


def value(conn: psycopg.Connection[Any], sql: str, params: list[Any] | None = None) -> Any:
    """The first column of the first row ``sql`` gives."""
    row = conn.execute(sql, params).fetchone()
    assert row is not None
    return row[0]


# -- 3. refusals ------------------------------------------------------------------------

def test_another_applications_database_is_refused(postgresql_empty_url: str) -> None:
    with psycopg.connect(postgresql_empty_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE customers (id INTEGER)")
    for create in (False, True):
        with pytest.raises(StoreError, match="is a database of something else .tables: "
                                             "customers., not a pooltool store"):
            JudgmentStore.open(postgresql_empty_url, create=create)
    with psycopg.connect(postgresql_empty_url) as conn:
        assert [r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = 'public'")] == ["customers"]


def test_an_empty_database_is_a_store_only_when_created(postgresql_empty_url: str) -> None:
    with pytest.raises(StoreError, match="is an empty database, not a pooltool store: create "
                                         "one with 'pooltool --db .* init'"):
        JudgmentStore.open(postgresql_empty_url)
    result = CliRunner().invoke(cli, ["--db", postgresql_empty_url, "status"])
    assert result.exit_code == 1 and "is an empty database" in result.stderr
    assert CliRunner().invoke(cli, ["--db", postgresql_empty_url, "init"]).exit_code == 0
    JudgmentStore.open(postgresql_empty_url).close()


def test_a_password_in_the_url_is_refused_naming_pgpassword(
        postgresql_store_url: str) -> None:
    for with_password in (postgresql_store_url.replace("://pooltool@", "://pooltool:secret@"),
                          f"{postgresql_store_url}?password=secret",
                          f"{postgresql_store_url}?sslmode=prefer&password=secret"):
        result = CliRunner().invoke(cli, ["--db", with_password, "status"])
        assert result.exit_code != 0 and "Traceback" not in result.output
        assert "PGPASSWORD" in result.stderr and "secret" not in result.stderr


def test_messages_never_show_a_password() -> None:
    assert shown_url("postgresql://u:pw@h:1/db") == "postgresql://u:***@h:1/db"
    assert shown_url("postgresql://u@h/db?sslmode=require&password=pw") == \
        "postgresql://u@h/db?sslmode=require&password=***"
    assert shown_url("postgresql://u@h/db") == "postgresql://u@h/db"


def test_an_unreachable_server_is_a_clean_error(unused_port: int) -> None:
    url = f"postgresql://pooltool@127.0.0.1:{unused_port}/nothing"
    result = CliRunner().invoke(cli, ["--db", url, "status"])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: cannot reach the store at {url}")
    assert "Traceback" not in result.output


@pytest.fixture
def unused_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_timed_out_write_leaves_the_connection_usable(postgresql_store_url: str) -> None:
    """Waiting too long for the write lock is SQLite's "database is locked", and leaves
    no aborted transaction behind: the next write goes through."""
    with JudgmentStore.open(postgresql_store_url) as store, \
            JudgmentStore.open(postgresql_store_url) as holder:
        store.set_busy_timeout(50)
        with holder.writing():
            with pytest.raises(sqlite3.OperationalError, match="database is locked"):
                store.record_judgment("1", "d1", 1, "alice")
            assert not store.conn.in_transaction
        store.record_judgment("1", "d1", 1, "alice")
        assert len(store.judgment_log()) == 1


# -- the SQL rewriting rules -------------------------------------------------------------

@pytest.mark.parametrize(("sqlite", "postgresql"), [
    ("SELECT a FROM t WHERE b = ? AND c = :name", "SELECT a FROM t WHERE b = %s AND c = %(name)s"),
    ("SELECT 'it''s ?' || '%' FROM t WHERE x LIKE 'a%'",
     "SELECT 'it''s ?' || '%%' FROM t WHERE x LIKE 'a%%'"),
    ("INSERT OR IGNORE INTO t(a) VALUES (?)", "INSERT INTO t(a) VALUES (%s) ON CONFLICT DO NOTHING"),
    ("SELECT group_concat(x.id, ', ') FROM x", "SELECT string_agg(CAST(x.id AS TEXT), ', ') FROM x"),
    ("SELECT value FROM json_each(?)",
     "SELECT value FROM jsonb_array_elements_text(CAST(%s AS jsonb)) AS value"),
])
def test_sqlite_dialect_is_rewritten(sqlite: str, postgresql: str) -> None:
    assert postgresql_sql(sqlite) == postgresql


# -- 4. TREC-COVID round 1: the same output on both engines ------------------------------

TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[.\d]*(\+00:00|Z)?")
POLICIES = ["latest", "majority", "max", "latest:all", "majority:all", "max:all",
            "assessor:nist", "assessor:gpt-judge", "prefer:gpt-judge,nist", "prefer:nist,gpt-judge"]


def covid_session(data: Path, tmp_path: Path) -> list[list[str]]:
    """The commands of a TREC-COVID round 1 campaign, in order."""
    machine = tmp_path / "machine.qrels"  # a second, machine assessor who differs at times
    lines = (data / "qrels-rnd1.txt").read_text().splitlines()
    machine.write_text("".join(
        f"{t} 0 {d} {(int(g) + 1) % 3 if i % 5 == 0 else g}\n"
        for i, (t, _, d, g) in enumerate(line.split() for line in lines[::3])))
    runs = sorted(str(p) for p in (data / "runs").iterdir())
    tags = [Path(r).name for r in runs]
    commands = [
        ["init"], ["add-topics", str(data / "topics-rnd1.xml")], ["add-runs", *runs],
        ["pool", "--depth", "7"], ["export-pool"], ["export-pool", "--queue"],
        ["import-qrels", str(data / "qrels-rnd1.txt"), "--version", "official",
         "--assessor", "nist"],
        ["import-qrels", str(machine), "--version", "machine", "--assessor", "gpt-judge",
         "--machine"],
        ["qrels", "versions", "--format", "csv"],
        ["export-qrels", "--version", "official"], ["export-qrels", "--unjudged-as", "-1"],
        *[["export-qrels", "--policy", policy] for policy in POLICIES],
        ["export-pool", "--queue"], ["status", "--format", "csv"],
        ["recall", *tags, "--version", "official", "--format", "csv", "-q"],
        ["recall", *tags[:3], "--policy", "max:all", "--format", "trec", "-k", "10,100"],
    ]
    return [[c.replace(str(tmp_path), "<tmp>") for c in command] for command in commands]


def run_session(address: str, commands: list[list[str]], tmp_path: Path) -> list[Any]:
    """Each command's exit code, stdout and stderr (the store's address as ``<db>``, times
    of day as ``<time>``)."""
    outputs = []
    for command in commands:
        args = [c.replace("<tmp>", str(tmp_path)) for c in command]
        result = CliRunner().invoke(cli, ["--db", address, *args])
        assert result.exception is None or isinstance(result.exception, SystemExit), \
            (command, result.exception)
        outputs.append((command[:2], result.exit_code,
                        *(TIME.sub("<time>", text.replace(address, "<db>"))
                          for text in (result.stdout, result.stderr))))
    return outputs


def test_trec_covid_round_1_gives_the_same_output_on_both_engines(
        shared_data: Path, tmp_path: Path, postgresql_empty_url: str) -> None:
    data = shared_data / "trec_covid_r1"
    commands = covid_session(data, tmp_path)
    sqlite = run_session(str(tmp_path / "covid.db"), commands, tmp_path)
    postgresql = run_session(postgresql_empty_url, commands, tmp_path)
    assert all(code == 0 for _, code, _, _ in sqlite), [o[:2] + o[3:] for o in sqlite if o[1]]
    for on_sqlite, on_postgresql in zip(sqlite, postgresql, strict=True):
        assert on_postgresql == on_sqlite, on_sqlite[0]
    outputs = {tuple(command): (out, err) for command, _, out, err in sqlite}
    pooled = len(outputs[("export-pool",)][0].splitlines())
    assert outputs[("pool", "--depth")][1].endswith(f"the pool now holds {pooled}\n")
    assert pooled > 1000
    assert sum(len(out) for _, _, out, _ in sqlite) > 100_000

