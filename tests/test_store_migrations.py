"""Upgrading stores: a PostgreSQL store made at the schema PostgreSQL stores began with
(m013) opens with this pooltool, is migrated, and keeps every row; the migrations after
it hold on both engines."""

from __future__ import annotations

import re
import sqlite3
import sys
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner, Result
from sqlite_utils import Database

from pooltool.cli import cli
from pooltool.errors import StoreError, StoreRefused
from pooltool.store import JudgmentStore, migrations
from pooltool.store.copy import BOOKKEEPING_TABLES, Digest, compare_stores, copy_order
from pooltool.store.engine import Table
from pooltool.store.postgresql import PostgresqlEngine
from pooltool.store.provenance import utc_now

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_store_copy import covid_store  # noqa: E402, F401  (a fixture)

_BASELINE_END = migrations.names().index(migrations.POSTGRESQL_BASELINE) + 1
BASELINE, AFTER_BASELINE = migrations.names()[:_BASELINE_END], migrations.names()[_BASELINE_END:]
# the tables a store at the baseline has (later migrations add others, empty on upgrade)
BASELINE_TABLES = set(re.findall(r"^CREATE TABLE (\w+)", migrations.postgresql_baseline(),
                                 re.MULTILINE))


def _baseline_order(src: JudgmentStore) -> list[Table]:
    """``src``'s tables in copy order, those the baseline has (a store at it lacks the
    others: their migrations make them, empty)."""
    return [table for table in copy_order(src, src) if table.name in BASELINE_TABLES]


def _copy_later_tables(src: JudgmentStore, dst: JudgmentStore) -> None:
    """Copy into the upgraded ``dst`` the rows of ``src``'s tables that later migrations
    made (empty after the upgrade: the store at the baseline had no such tables)."""
    with dst.writing() as conn:
        for table in copy_order(src, src):
            if table.name in BASELINE_TABLES | BOOKKEEPING_TABLES:
                continue
            columns = ", ".join(table.columns)
            rows = src.conn.execute(f'SELECT {columns} FROM "{table.name}"').fetchall()
            conn.executemany(f'INSERT INTO "{table.name}" ({columns}) VALUES '
                             f'({", ".join("?" * len(table.columns))})', rows)


def _baseline_tables_filled(digests: list[Digest]) -> bool:
    """Whether each table of the baseline holds rows (the test copies a row in each)."""
    return all(d.rows > 0 for d in digests if d.what.removeprefix("table ") in BASELINE_TABLES)


def _baseline_copy(src: JudgmentStore, url: str) -> None:
    """Make the empty database at ``url`` a store at the baseline schema (m001-m013, as
    a pooltool of before m014 made it) holding ``src``'s rows, written without the store
    (which would migrate it first)."""
    engine = PostgresqlEngine(url)
    try:
        migrations.create_postgresql(engine, utc_now())
        assert {r[0] for r in engine.execute("SELECT name FROM pooltool_migrations")} == set(BASELINE)
        engine.begin_write()
        for table in _baseline_order(src):
            # pool_rounds' trigger has filled pool_round_runs: the copy replaces them
            engine.execute(f'DELETE FROM "{table.name}"')
            select = f'SELECT {", ".join(table.columns)} FROM "{table.name}"'
            engine.copy_rows(table.name, table.columns, src.conn.stream(select, 10_000))
        engine.after_copy(engine.tables())
        engine.commit()
    finally:
        engine.close()


def test_a_postgresql_store_of_the_previous_schema_is_upgraded_with_every_row(
        covid_store: Path, postgresql_empty_url: str) -> None:  # noqa: F811
    """The TREC-COVID store (a row in every table) written into a PostgreSQL store at
    m013, then opened: m014 is applied and recorded, and every table's rows and the
    qrels of every version under every policy are those of the SQLite store."""
    with JudgmentStore.open(covid_store) as src:
        _baseline_copy(src, postgresql_empty_url)
        with JudgmentStore.open(postgresql_empty_url) as as_it_is:  # a judging app's open
            assert as_it_is.upgraded == [] and as_it_is.conn.pending_migrations() == AFTER_BASELINE
            for version in [None, *src.versions()["name"]]:  # it lacks later tables: qrels
                assert src.qrels(version).equals(as_it_is.qrels(version))
        with JudgmentStore.open(postgresql_empty_url, upgrade=True) as upgraded:
            assert upgraded.upgraded == AFTER_BASELINE
            _copy_later_tables(src, upgraded)
            check = compare_stores(src, upgraded)
            applied = upgraded.query("SELECT name FROM pooltool_migrations ORDER BY name")
        assert list(applied["name"]) == sorted(migrations.names())
        tables = {t.name for t in copy_order(src, src)} - BOOKKEEPING_TABLES
        assert {d.what for d in check.tables} == {f"table {t}" for t in tables}
        assert len(check.tables) >= 25 and _baseline_tables_filled(check.tables)


def test_the_upgraded_store_keeps_the_new_rules(covid_store: Path,  # noqa: F811
                                                postgresql_empty_url: str) -> None:
    with JudgmentStore.open(covid_store) as src:
        _baseline_copy(src, postgresql_empty_url)
    with JudgmentStore.open(postgresql_empty_url, upgrade=True) as store:
        retraction = int(store.query("SELECT MAX(judgment_id) AS j FROM judgments "
                                     "WHERE retracts IS NOT NULL")["j"][0])
        with pytest.raises(StoreRefused, match="a retraction names a judgment of its topic"):
            with store.writing() as conn:
                conn.execute("INSERT INTO judgments(topic, docno, grade, assessor, judged_at, "
                             "origin, retracts) VALUES ('1', 'x', NULL, 'alice', 't', 'api', ?)",
                             [retraction])
        judged = store.record_judgment("1", "010vptx3", 2, "carol")
        store.retract(judged, "carol")
        with pytest.raises(StoreRefused):  # once only, even past retract()'s own check
            with store.writing() as conn:
                conn.execute("INSERT INTO judgments(topic, docno, grade, assessor, judged_at, "
                             "origin, retracts) VALUES ('1', '010vptx3', NULL, 'carol', 't', "
                             "'api', ?)", [judged])


def test_a_store_of_a_newer_pooltool_is_refused(postgresql_store_url: str,
                                               tmp_path: Path) -> None:
    """In one line naming the newer pooltool, from what the store recorded."""
    newer = ("INSERT INTO settings(key, value) VALUES ('schema_written_by', "
             "'{\"pooltool\": \"0.9.0\", \"migration\": \"m099_future\"}') ON CONFLICT(key) DO "
             "UPDATE SET value = excluded.value")
    with psycopg.connect(postgresql_store_url, autocommit=True) as conn:
        conn.execute("INSERT INTO pooltool_migrations VALUES ('m099_future', 'now')")
        conn.execute(newer)
    JudgmentStore.open(tmp_path / "s.db", create=True).close()
    with sqlite3.connect(tmp_path / "s.db") as conn:
        conn.execute("INSERT INTO _sqlite_migrations(migration_set, name, applied_at) "
                     "VALUES ('pooltool', 'm099_future', 'now')")
        conn.execute(newer)
    for address in (postgresql_store_url, str(tmp_path / "s.db")):
        for upgrade in (None, False, True):
            with pytest.raises(StoreError) as refused:
                JudgmentStore.open(address, upgrade=upgrade)
            assert str(refused.value) == (
                f"{address}: this store was made by pooltool 0.9.0, newer than this one "
                f"({migrations.pooltool_version()}): its schema has m099_future; upgrade pooltool")
    assert migrations.pooltool_version() == "0.2.0"


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_retractions_follow_the_rules_on_both_engines(kind: str, tmp_path: Path,
                                                      request: pytest.FixtureRequest) -> None:
    address = (str(tmp_path / "s.db") if kind == "sqlite"
               else request.getfixturevalue("postgresql_store_url"))
    with JudgmentStore.open(address, create=True) as store:
        first = store.record_judgment("1", "d1", 1, "alice")
        undo = store.retract(first, "alice")
        insert = ("INSERT INTO judgments(topic, docno, grade, assessor, judged_at, origin, "
                  "retracts) VALUES (?, ?, NULL, 'alice', 't', 'api', ?)")
        for topic, docno, target in [("1", "d1", undo), ("1", "d2", first), ("2", "d1", first),
                                     ("1", "d1", 999)]:
            with pytest.raises(StoreRefused):
                with store.writing() as conn:
                    conn.execute(insert, [topic, docno, target])
        assert store.query("SELECT COUNT(*) AS n FROM judgments")["n"][0] == 2


def test_an_sqlite_store_of_the_previous_schema_is_upgraded(tmp_path: Path) -> None:
    old = sqlite3.connect(tmp_path / "old.db")
    migrations.sqlite_migrations().apply(Database(old), stop_before=AFTER_BASELINE[0])
    old.execute("INSERT INTO judgments(topic, docno, grade, assessor, judged_at, origin) "
                "VALUES ('1', 'd1', 2, 'alice', 't', 'api')")
    old.commit()
    old.close()
    with JudgmentStore.open(tmp_path / "old.db") as store:
        assert store.conn.pending_migrations() == []
        assert store.query("SELECT topic, docno, grade FROM judgments").values.tolist() == [
            ["1", "d1", 2]]


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def _old_sqlite_store(path: Path, stop_before: str) -> Path:
    """A SQLite store as a pooltool of before ``stop_before`` left it, with a judgment."""
    old = sqlite3.connect(path)
    migrations.sqlite_migrations().apply(Database(old), stop_before=stop_before)
    old.execute("INSERT INTO judgments(topic, docno, grade, assessor, judged_at, origin) "
                "VALUES ('1', 'd1', 2, 'alice', 't', 'api')")
    old.commit()
    old.close()
    return path


def _applied(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return [r[0] for r in conn.execute("SELECT name FROM _sqlite_migrations ORDER BY id")]


def test_read_commands_leave_an_older_store_as_it_is(tmp_path: Path) -> None:
    db = _old_sqlite_store(tmp_path / "old.db", AFTER_BASELINE[0])
    before = _applied(db)
    for command in (["export-qrels"], ["assessors"], ["runs"], ["store", "check"]):
        result = _invoke("--db", str(db), *command)
        assert result.exit_code == 0, (command, result.output)
        assert "upgraded" not in result.stderr
    assert _applied(db) == before == BASELINE
    assert _invoke("--db", str(db), "export-qrels").stdout == "1 0 d1 2\n"
    written = _invoke("--db", str(db), "assessors", "--set-kind", "gpt", "machine")
    assert written.exit_code == 0, written.output
    assert written.stderr.splitlines()[0] == (
        f"upgraded the store's schema ({', '.join(AFTER_BASELINE)}): pooltool older than "
        f"{migrations.pooltool_version()} cannot open {db} now")
    assert _applied(db) == migrations.names()


def test_a_store_reading_needs_upgraded_says_how(tmp_path: Path) -> None:
    db = _old_sqlite_store(tmp_path / "old.db", "m013_run_columns")
    result = _invoke("--db", str(db), "status")
    assert (result.exit_code, result.stderr) == (1, (
        f"Error: {db}: the store's schema is older than this pooltool's (it lacks "
        f"m013_run_columns); upgrade it with 'pooltool --db {db} store upgrade' (any command "
        "that writes to it upgrades it too)\n"))
    upgraded = _invoke("--db", str(db), "store", "upgrade")
    assert (upgraded.exit_code, upgraded.stdout) == (
        0, f"{db}: applied m013_run_columns, {', '.join(AFTER_BASELINE)}\n")
    again = _invoke("--db", str(db), "store", "upgrade")
    assert again.stdout == (f"{db}: the schema is this pooltool's "
                            f"({migrations.pooltool_version()}) already; nothing to do\n")
    assert _invoke("--db", str(db), "export-qrels").stdout == "1 0 d1 2\n"


def test_a_shared_store_is_upgraded_by_its_owner_only(covid_store: Path,  # noqa: F811
                                                      postgresql_empty_url: str) -> None:
    """An older PostgreSQL store is read and judged as it is (assessors on the older
    pooltool keep working) until its owner runs store upgrade."""
    with JudgmentStore.open(covid_store) as src:
        _baseline_copy(src, postgresql_empty_url)
    url = postgresql_empty_url
    assert _invoke("--db", url, "status").exit_code == 0
    written = _invoke("--db", url, "assessors", "--set-kind", "gpt", "machine")
    assert written.exit_code == 0 and "upgraded" not in written.stderr
    with JudgmentStore.open(url) as store:
        assert store.conn.pending_migrations() == AFTER_BASELINE
    upgraded = _invoke("--db", url, "store", "upgrade")
    assert upgraded.exit_code == 0, upgraded.output
    assert upgraded.stdout == f"{url}: applied {', '.join(AFTER_BASELINE)}\n"
    assert "pooltool older than" in upgraded.stderr
    with JudgmentStore.open(url) as store:
        assert store.conn.pending_migrations() == []
        assert store.setting(migrations.WRITTEN_BY) == {
            "pooltool": migrations.pooltool_version(), "migration": migrations.names()[-1]}


def test_an_sqlite_store_of_the_previous_schema_keeps_every_row(covid_store: Path,  # noqa: F811
                                                                tmp_path: Path) -> None:
    """TREC-COVID's every table written into a SQLite store at m013 (as the previous
    pooltool made it), then opened: m014 is applied and every row is as in the source."""
    old = sqlite3.connect(tmp_path / "old.db")
    migrations.sqlite_migrations().apply(Database(old), stop_before=AFTER_BASELINE[0])
    old.execute("PRAGMA foreign_keys = OFF")
    with JudgmentStore.open(covid_store) as src:
        for table in _baseline_order(src):
            old.execute(f'DELETE FROM "{table.name}"')
            marks = ", ".join("?" * len(table.columns))
            old.executemany(f'INSERT INTO "{table.name}" ({", ".join(table.columns)}) '
                            f"VALUES ({marks})", src.conn.stream(
                                f'SELECT {", ".join(table.columns)} FROM "{table.name}"', 10_000))
        old.commit()
        old.close()
        with JudgmentStore.open(tmp_path / "old.db") as upgraded:
            assert upgraded.upgraded == AFTER_BASELINE
            _copy_later_tables(src, upgraded)
            check = compare_stores(src, upgraded)
    assert len(check.tables) >= 25 and _baseline_tables_filled(check.tables)
