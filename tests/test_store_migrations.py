"""Upgrading stores: a PostgreSQL store made at the schema PostgreSQL stores began with
(m013) opens with this pooltool, is migrated, and keeps every row; the migrations after
it hold on both engines."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import psycopg
import pytest
from sqlite_utils import Database

from pooltool.errors import StoreError, StoreRefused
from pooltool.store import JudgmentStore, migrations
from pooltool.store.copy import BOOKKEEPING_TABLES, compare_stores, copy_order
from pooltool.store.postgresql import PostgresqlEngine
from pooltool.store.provenance import utc_now

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_store_copy import covid_store  # noqa: E402, F401  (a fixture)

_BASELINE_END = migrations.names().index(migrations.POSTGRESQL_BASELINE) + 1
BASELINE, AFTER_BASELINE = migrations.names()[:_BASELINE_END], migrations.names()[_BASELINE_END:]


def _baseline_copy(src: JudgmentStore, url: str) -> None:
    """Make the empty database at ``url`` a store at the baseline schema (m001-m013, as
    a pooltool of before m014 made it) holding ``src``'s rows, written without the store
    (which would migrate it first)."""
    engine = PostgresqlEngine(url)
    try:
        migrations.create_postgresql(engine, utc_now())
        assert {r[0] for r in engine.execute("SELECT name FROM pooltool_migrations")} == set(BASELINE)
        engine.begin_write()
        for table in copy_order(src, src):
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
        with JudgmentStore.open(postgresql_empty_url) as upgraded:
            check = compare_stores(src, upgraded)
            applied = upgraded.query("SELECT name FROM pooltool_migrations ORDER BY name")
        assert list(applied["name"]) == sorted(migrations.names())
        tables = {t.name for t in copy_order(src, src)} - BOOKKEEPING_TABLES
        assert {d.what for d in check.tables} == {f"table {t}" for t in tables}
        assert len(check.tables) >= 25 and all(d.rows > 0 for d in check.tables)


def test_the_upgraded_store_keeps_the_new_rules(covid_store: Path,  # noqa: F811
                                                postgresql_empty_url: str) -> None:
    with JudgmentStore.open(covid_store) as src:
        _baseline_copy(src, postgresql_empty_url)
    with JudgmentStore.open(postgresql_empty_url) as store:
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
    with psycopg.connect(postgresql_store_url, autocommit=True) as conn:
        conn.execute("INSERT INTO pooltool_migrations VALUES ('m099_future', 'now')")
    JudgmentStore.open(tmp_path / "s.db", create=True).close()
    with sqlite3.connect(tmp_path / "s.db") as conn:
        conn.execute("INSERT INTO _sqlite_migrations(migration_set, name, applied_at) "
                     "VALUES ('pooltool', 'm099_future', 'now')")
    for address in (postgresql_store_url, str(tmp_path / "s.db")):
        with pytest.raises(StoreError, match=r"the store's schema is newer than this "
                                             r"pooltool's \(it has m099_future\): use a newer "
                                             "pooltool$"):
            JudgmentStore.open(address)


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_retractions_follow_the_rules_on_both_engines(engine: str, tmp_path: Path,
                                                      request: pytest.FixtureRequest) -> None:
    address = (str(tmp_path / "s.db") if engine == "sqlite"
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
    migrations.migrations.apply(Database(old), stop_before=AFTER_BASELINE[0])
    old.execute("INSERT INTO judgments(topic, docno, grade, assessor, judged_at, origin) "
                "VALUES ('1', 'd1', 2, 'alice', 't', 'api')")
    old.commit()
    old.close()
    with JudgmentStore.open(tmp_path / "old.db") as store:
        assert store.conn.pending_migrations() == []
        assert store.query("SELECT topic, docno, grade FROM judgments").values.tolist() == [
            ["1", "d1", 2]]
