"""The store's schema: one list of migrations for both engines, applied in order, each
in a transaction, and recorded (SQLite: sqlite-utils' ``_sqlite_migrations``;
PostgreSQL: ``pooltool_migrations``).

* **m001-m013** came before the PostgreSQL engine: SQLite functions (their SQL in
  :mod:`pooltool.store.sqlite_history`). A PostgreSQL store starts at their end,
  with ``postgresql_m013.sql`` in one script (:data:`POSTGRESQL_BASELINE`).
* **From m014 on**, each migration is written once, by :func:`migration`, for both
  engines: one SQL script where the dialects agree, a body per engine where they
  differ (triggers: SQLite's ``BEGIN ... END`` against PL/pgSQL functions). Opening an
  older store of either engine applies what it lacks (:func:`apply`,
  :func:`apply_postgresql`).

A new schema change is a new step at the end of :mod:`pooltool.store.migration_steps`
(registered here, in its order, by :func:`migration`); never edit one that has shipped.
``schemas/store.sql`` (SQLite) and ``pooltool/store/postgresql.sql``
(:func:`postgresql_schema`) are the schemas the whole list reaches, kept in sync by
tests.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

from pooltool.errors import StoreError
from pooltool.store.engine import Engine
from pooltool.store.migration_steps import STEPS
from pooltool.store.sqlite_history import (
    SCHEMA_V1,
    SCHEMA_V2_JUDGING,
    SCHEMA_V3_DURABLE_UI,
    SCHEMA_V4_RUN_HISTORY,
    SCHEMA_V5_SAMPLES,
    SCHEMA_V6_ASSESSOR_KINDS,
    SCHEMA_V8_CLAIMS,
    SCHEMA_V10_GUIDELINES,
    SCHEMA_V11_ADAPTIVE,
    SCHEMA_V12_SAMPLE_GROWTH,
    SCHEMA_V13_RUN_COLUMNS,
)

if TYPE_CHECKING:
    from pooltool.store.sqlite_utils_bare import Database, Migrations

MIGRATION_SET = "pooltool"
"""The name of pooltool's migrations in a SQLite store's ``_sqlite_migrations``."""
MIGRATIONS_TABLE = "_sqlite_migrations"
"""sqlite-utils' table of the migrations applied (``Migrations.migrations_table``)."""


@dataclass(frozen=True)
class _SqliteStep:
    name: str
    apply: Callable[[Database], None]
    transactional: bool


_SQLITE_STEPS: list[_SqliteStep] = []  # every migration's SQLite body, oldest first


def _sqlite_step(*, name: str | None = None,
                 transactional: bool = True) -> Callable[[Callable[[Database], None]],
                                                         Callable[[Database], None]]:
    """Register a migration's SQLite body at the end of the list (as sqlite-utils'
    ``Migrations.__call__`` registers one; :func:`sqlite_migrations` hands them over)."""
    def register(body: Callable[[Database], None]) -> Callable[[Database], None]:
        _SQLITE_STEPS.append(_SqliteStep(name or body.__name__, body, transactional))
        return body
    return register


@cache
def sqlite_migrations() -> Migrations:
    """The migrations as sqlite-utils' ``Migrations``, which applies them to a SQLite
    store and records them. Built when first asked: sqlite-utils takes about 0.1 CPU-s
    to import, which a command opening a store whose schema is current does without
    (:func:`pending` reads the record with SQL)."""
    from pooltool.store.sqlite_utils_bare import Migrations

    built = Migrations(MIGRATION_SET)
    for step in _SQLITE_STEPS:
        built(name=step.name, transactional=step.transactional)(step.apply)
    return built


@_sqlite_step()
def m001_initial(db: Database) -> None:
    """Tables for topics, documents, runs, pools, the judgment log and qrels versions."""
    for statement in _statements(SCHEMA_V1):
        db.execute(statement)


def _statements(script: str) -> list[str]:
    """Split a script on top-level ``;`` (trigger bodies keep theirs)."""
    statements, current = [], []
    for line in script.strip().splitlines():
        current.append(line)
        text = "\n".join(current).strip()
        if text.endswith(";") and (not text.upper().startswith("CREATE TRIGGER") or
                                   text.upper().endswith("END;")):
            statements.append(text)
            current = []
    return statements


def apply(conn: sqlite3.Connection, address: str = ":memory:") -> list[str]:
    """Bring the SQLite store on ``conn`` (at ``address``, for messages) to the newest
    schema (no-op when it is current), recording this pooltool as the schema's writer.

    :returns: the migrations applied.
    :raises StoreError: it has migrations this pooltool does not know.
    """
    from pooltool.store.sqlite_utils_bare import Database

    lacking = pending(conn, address)
    if lacking:
        # recursive_triggers=False: the connection's setting is sqlite_engine's to make
        sqlite_migrations().apply(Database(conn, recursive_triggers=False))
        with conn:
            record_writer(conn)
    return lacking


def pending(conn: sqlite3.Connection, address: str = ":memory:") -> list[str]:
    """The names of the migrations the SQLite store on ``conn`` still lacks, oldest first
    (none: it is current), read from ``_sqlite_migrations`` as sqlite-utils'
    ``Migrations.pending`` reads it (no such table: none applied).

    :raises StoreError: it has migrations this pooltool does not know.
    """
    recorded = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                            [MIGRATIONS_TABLE]).fetchone() is not None
    applied = {str(row[0]) for row in conn.execute(
        f"SELECT name FROM [{MIGRATIONS_TABLE}] WHERE migration_set = ?",
        [MIGRATION_SET])} if recorded else set()
    check_not_newer(applied, address, conn)
    return [name for name in names() if name not in applied]


def names() -> list[str]:
    """Every migration's name, oldest first: the schema a new store gets."""
    return [step.name for step in _SQLITE_STEPS]


@_sqlite_step()
def m002_judging_ui(db: Database) -> None:
    """Topic assignments, and judging-UI state per assessor and topic (scan terms,
    skip marks, last position). None of it touches the judgment log."""
    for statement in _statements(SCHEMA_V2_JUDGING):
        db.execute(statement)


@_sqlite_step()
def m003_durable_ui(db: Database) -> None:
    """Judging-UI state that must survive a crash: note drafts (a note written before
    the grade), and the tokens of journalled writes already committed (so that a
    journal replayed twice adds nothing twice). None of it touches the judgment log."""
    for statement in _statements(SCHEMA_V3_DURABLE_UI):
        db.execute(statement)


@_sqlite_step(transactional=False)
def m004_run_history(db: Database) -> None:
    """Runs can be replaced and removed without losing what built a pool.

    ``runs`` loses its UNIQUE run_tag (a tag may have had several runs); a run
    replaced or removed gets a ``run_retirements`` row and keeps its rows and
    entries (``live_runs`` is the runs not retired); ``pool_round_runs`` names
    the runs (so tags and file sha256) each pooling round used, filled for the
    rounds so far and, by a trigger, for every new one. Runs, their entries
    and retirements are append-only (triggers).

    Rebuilding ``runs`` needs foreign keys off, which SQLite allows only
    outside a transaction, so this migration opens its own; a store that has
    the tables already (a crash before the migration was recorded) is left as is.
    """
    if db["run_retirements"].exists():
        return
    db.execute("PRAGMA foreign_keys=OFF")
    try:
        with db.atomic():
            for statement in _statements(SCHEMA_V4_RUN_HISTORY):
                db.execute(statement)
            broken = db.execute("PRAGMA foreign_key_check").fetchall()
            if broken:
                raise RuntimeError(f"m004_run_history broke foreign keys: {broken[:5]}")
    finally:
        db.execute("PRAGMA foreign_keys=ON")


@_sqlite_step()
def m005_samples(db: Database) -> None:
    """Stratified samples beyond a pool (``pooltool sample``): the design, each
    topic's strata sizes, and each sampled document's stratum and inclusion
    probability. The sampled documents are also a pool (strategy ``sample``) so
    they are judged like one."""
    for statement in _statements(SCHEMA_V5_SAMPLES):
        db.execute(statement)


@_sqlite_step()
def m006_assessor_kinds(db: Database) -> None:
    """Each assessor is a person or a machine (an LLM judge, a classifier). The kinds
    are a log too (append-only): an assessor's latest row is its kind, and an
    assessor with no row is a person, so every store made before keeps its qrels."""
    for statement in _statements(SCHEMA_V6_ASSESSOR_KINDS):
        db.execute(statement)


@_sqlite_step()
def m008_claims(db: Database) -> None:
    """Claims (leases) on the documents judging apps show, so that two assessors on one
    unassigned topic are shown different documents. Working state, not evidence: a
    claim is replaced when it lapses or its assessor moves on."""
    for statement in _statements(SCHEMA_V8_CLAIMS):
        db.execute(statement)


@_sqlite_step()
def m009_active_time(db: Database) -> None:
    """Active judging time beside wall time: ``judgments.ms_active``, the milliseconds
    the judging app was in use while the document was on screen (see
    :mod:`pooltool.tui.activity`). Older rows keep NULL."""
    db.execute("ALTER TABLE judgments ADD COLUMN ms_active INTEGER")


@_sqlite_step()
def m010_guidelines(db: Database) -> None:
    """Judging guidelines: collection-wide text, a definition per grade, instructions per
    topic (``pooltool guidelines``). Append-only: the latest row of a scope and target
    is the text in force; earlier rows are its history."""
    for statement in _statements(SCHEMA_V10_GUIDELINES):
        db.execute(statement)


@_sqlite_step()
def m011_adaptive_pools(db: Database) -> None:
    """Adaptive pools (``pooltool pool --strategy``): the strategy, its parameters, seed,
    per-topic budget and relevance level of a pool whose documents are chosen one at a
    time from the judgment log. The runs it draws on are its one round's runs
    (``pool_round_runs``); the documents chosen so far are its ``pool_docs``."""
    for statement in _statements(SCHEMA_V11_ADAPTIVE):
        db.execute(statement)


@_sqlite_step()
def m012_sample_growth(db: Database) -> None:
    """Samples that grow (``pooltool sample --name S --grow N``): each growth's budget
    and the strata sizes after it, appended; the sizes first drawn stay as they were.
    A sample's current n_h is that of its largest budget."""
    for statement in _statements(SCHEMA_V12_SAMPLE_GROWTH):
        db.execute(statement)


@_sqlite_step()
def m013_run_columns(db: Database) -> None:
    """Each run's entries become one compressed Arrow IPC blob in ``run_columns``
    (see :mod:`pooltool.store.run_columns`), written from its ``run_entries`` rows in
    their trec_eval order, and ``run_entries`` (one SQLite row per run line: the
    slow import and the large store of issue 10) is dropped with its triggers."""
    for statement in _statements(SCHEMA_V13_RUN_COLUMNS):
        db.execute(statement)
    runs = db.execute("SELECT run_id, sha256 FROM runs ORDER BY run_id").fetchall()
    for run_id, source_sha256 in runs:
        _store_entries_as_columns(db, int(run_id), str(source_sha256))
    for statement in ("DROP TRIGGER run_entries_no_update", "DROP TRIGGER run_entries_no_delete",
                      "DROP TABLE run_entries"):
        db.execute(statement)


def _store_entries_as_columns(db: Database, run_id: int, source_sha256: str) -> None:
    """Write one run's ``run_entries`` rows (ordered by topic, then trec_rank) as its blob."""
    import pyarrow as pa

    from pooltool.store import run_columns

    cursor = db.execute("SELECT topic, docno, rank, score FROM run_entries WHERE run_id = ? "
                        "ORDER BY topic, trec_rank", [run_id])
    rows = cursor.fetchall()
    names = ["topic", "docno", "rank", "score"]
    types = [pa.string(), pa.string(), pa.int64(), pa.float64()]
    table = pa.table([pa.array([row[i] for row in rows], kind) for i, kind in enumerate(types)],
                     names=names)
    blob = run_columns.encode(table)
    db.execute("INSERT INTO run_columns(run_id, format, lines, sha256, source_sha256, entries) "
               "VALUES (?, ?, ?, ?, ?, ?)", [run_id, run_columns.FORMAT, len(rows),
                                             run_columns.blob_sha256(blob), source_sha256, blob])


# -- from m014 on: each migration for both engines ----------------------------------------

POSTGRESQL_BASELINE = "m013_run_columns"
"""The last migration ``postgresql_m013.sql`` stands for: a new PostgreSQL store runs
that script and records every migration up to this one."""

_POSTGRESQL_STEPS: list[tuple[str, str]] = []  # (name, PostgreSQL script), after the baseline
_READERS_DO_NOT_NEED: set[str] = set()  # migrations a store can be read without

WRITTEN_BY = "schema_written_by"
"""The setting naming the pooltool that last changed the store's schema:
``{"pooltool": VERSION, "migration": NAME}`` (an older pooltool names it when it refuses
the store)."""


def migration(name: str, *, sql: str | None = None, sqlite: str | None = None,
              postgresql: str | None = None, readers_need: bool = True) -> None:
    """Add the migration ``name`` at the end of the list, for both engines.

    :param sql: the script both engines run (statements separated by ``;``), when the
        dialects agree; otherwise ``sqlite`` and ``postgresql``, one script each.
    :param readers_need: whether reading a store needs it (``False``: it adds only rules
        on writes, so a store that lacks it reads the same; read commands then read
        such a store without upgrading it).
    :raises ValueError: neither ``sql`` nor both engine bodies, or a name already used.
    """
    sqlite_body, postgresql_body = (sql, sql) if sql is not None else (sqlite, postgresql)
    if sqlite_body is None or postgresql_body is None or name in names():
        raise ValueError(f"migration {name}: give sql, or sqlite and postgresql; once")

    def apply_sqlite(db: Database) -> None:
        for statement in _statements(sqlite_body):
            db.execute(statement)

    _sqlite_step(name=name)(apply_sqlite)
    _POSTGRESQL_STEPS.append((name, postgresql_body))
    if not readers_need:
        _READERS_DO_NOT_NEED.add(name)


def needed_to_read(lacking: list[str]) -> list[str]:
    """Of the migrations a store lacks, those it cannot be read without."""
    return [name for name in lacking if name not in _READERS_DO_NOT_NEED]


def pooltool_version() -> str:
    """This pooltool's version (the installed package's metadata)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pooltool")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


class _Executes(Protocol):
    def execute(self, sql: str, parameters: Any = ..., /) -> Any: ...


def record_writer(engine: _Executes) -> None:
    """Record this pooltool as the one that last changed the schema (:data:`WRITTEN_BY`),
    in the write transaction open on ``engine`` (an engine, or SQLite's connection)."""
    value = json.dumps({"pooltool": pooltool_version(), "migration": names()[-1]})
    engine.execute("INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT(key) DO "
                   "UPDATE SET value = excluded.value", [WRITTEN_BY, value])


def written_by(engine: _Executes) -> str | None:
    """The pooltool version :func:`record_writer` recorded, if any (and readable)."""
    try:
        row = engine.execute("SELECT value FROM settings WHERE key = ?", [WRITTEN_BY]).fetchone()
        return None if row is None else str(json.loads(row[0])["pooltool"])
    except Exception:  # noqa: BLE001  a record of a newer pooltool may look otherwise
        return None


def older_schema(address: str, lacking: list[str], why: str) -> StoreError:
    """The refusal of a store whose schema lacks migrations readers need (``why``: what
    stops the upgrade here, and how to do it)."""
    return StoreError(f"{address}: the store's schema is older than this pooltool's (it lacks "
                      f"{', '.join(lacking)}); {why}")


def postgresql_baseline() -> str:
    """The script of a new PostgreSQL store (``postgresql_m013.sql``)."""
    from importlib import resources  # here: about 3 ms of imports a SQLite store never needs

    return resources.files("pooltool.store").joinpath("postgresql_m013.sql").read_text("utf-8")


def postgresql_schema() -> str:
    """The PostgreSQL schema the whole list reaches: the baseline, then each later
    migration's PostgreSQL script (``pooltool/store/postgresql.sql`` is this text)."""
    parts = ["-- GENERATED from pooltool/store/migrations.py by migrations.postgresql_schema();\n"
             "-- do not edit (tests/test_store_postgresql.py checks it).\n",
             postgresql_baseline()]
    parts += [f"-- {name}\n{script.strip()}\n" for name, script in _POSTGRESQL_STEPS]
    return "\n".join(parts)


def apply_postgresql(engine: Engine, now: str) -> list[str]:
    """Bring a PostgreSQL store to the newest schema: a database with no
    ``pooltool_migrations`` rows gets the baseline, then each migration it lacks is run
    and recorded, each in its own write transaction.

    :param now: the UTC time (ISO 8601) recorded for each migration.
    :returns: the migrations applied (none: it was current).
    :raises StoreError: the store has migrations this pooltool does not know (made by a
        newer one).
    """
    lacking = pending_postgresql(engine)
    done = []
    for name, script in _POSTGRESQL_STEPS:
        if name not in lacking:
            continue
        _migrate_once(engine, script, [name], now)
        done.append(name)
    return done


def pending_postgresql(engine: Engine) -> list[str]:
    """The migrations a PostgreSQL store lacks, oldest first.

    :raises StoreError: it has migrations this pooltool does not know (see
        :func:`check_not_newer`).
    """
    applied = {row[0] for row in engine.execute("SELECT name FROM pooltool_migrations")}
    check_not_newer(applied, engine.address, engine)
    return [name for name in names() if name not in applied]


def check_not_newer(applied: set[str], address: str, engine: _Executes | None = None) -> None:
    """Refuse a store that has migrations this pooltool does not know: a newer pooltool
    made it, and this one would misread what it added.

    :param engine: the store's connection, to name the pooltool that wrote the schema.
    :raises StoreError: naming them (and that pooltool's version, when recorded).
    """
    unknown = sorted(applied - set(names()))
    if unknown:
        writer = None if engine is None else written_by(engine)
        made = f"pooltool {writer}" if writer else "a newer pooltool"
        raise StoreError(f"{address}: this store was made by {made}, newer than this one "
                         f"({pooltool_version()}): its schema has {', '.join(unknown)}; "
                         "upgrade pooltool")


def create_postgresql(engine: Engine, now: str) -> None:
    """Make an empty PostgreSQL database a store at the baseline (one transaction);
    :func:`apply_postgresql` then brings it to the newest schema."""
    baseline = names()[:names().index(POSTGRESQL_BASELINE) + 1]
    _migrate_once(engine, postgresql_baseline(), baseline, now)


def _migrate_once(engine: Engine, script: str, recorded: list[str], now: str) -> None:
    """Run ``script`` and record the migrations ``recorded`` (and this pooltool as the
    schema's writer) in one write transaction: all of it, or nothing."""
    engine.begin_write()
    try:
        engine.executescript(script)
        engine.executemany("INSERT INTO pooltool_migrations(name, applied_at) VALUES (?, ?)",
                           [(name, now) for name in recorded])
        record_writer(engine)
        engine.commit()
    except BaseException:
        if engine.in_transaction:
            engine.rollback()
        raise


for _step in STEPS:
    migration(_step.name, sql=_step.sql, sqlite=_step.sqlite, postgresql=_step.postgresql,
              readers_need=_step.readers_need)
