"""The store on a PostgreSQL server: the PostgreSQL :class:`~pooltool.store.engine.Engine`.

The store's SQL is written once, in SQLite's dialect;
:func:`~pooltool.store.dialect.postgresql_sql` rewrites a statement for PostgreSQL,
and :class:`PostgresqlEngine` runs it on a psycopg 3 connection and raises psycopg's
errors as the store's (:mod:`pooltool.store.postgresql_errors`). Connecting is
:mod:`pooltool.store.postgresql_connection`'s; watching for changes,
:mod:`pooltool.store.postgresql_notifications`'.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pooltool.errors import (
    StoreConnectionLost,
    StoreError,
)
from pooltool.store import migrations
from pooltool.store.changes import ChangeWatcher
from pooltool.store.dialect import postgresql_sql
from pooltool.store.engine import Cursor, Engine, Params, Table
from pooltool.store.postgresql_connection import RECONNECT_TIMEOUT_S, connect, journal_base, shown_url
from pooltool.store.postgresql_errors import RoleRefused, store_errors
from pooltool.store.postgresql_notifications import NotificationWatcher

if TYPE_CHECKING:
    import pandas as pd

WRITE_LOCK_KEY = 7_001_002_003
"""The advisory lock every write transaction takes first: writers take turns, as on
SQLite, so claims and judgments never race and no deadlock reaches an assessor."""



class PostgresCursor:
    """The rows of a statement, fetched from the server at once."""

    def __init__(self, rows: list[tuple[Any, ...]], description: Sequence[Any] | None,
                 rowcount: int) -> None:
        self._rows = rows
        self._next = 0
        self.description = description
        self.rowcount = rowcount

    def fetchone(self) -> tuple[Any, ...] | None:
        rows = self.fetchmany(1)
        return rows[0] if rows else None

    def fetchmany(self, size: int = 1) -> list[tuple[Any, ...]]:
        rows = self._rows[self._next:self._next + size]
        self._next += len(rows)
        return rows

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self.fetchmany(len(self._rows))

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self.fetchall())


class PostgresqlEngine(Engine):
    """A store in a PostgreSQL database, on a psycopg 3 connection in autocommit mode
    (each statement outside :meth:`begin_write` or :meth:`begin_snapshot` is its own
    transaction).

    :ivar url: the database's URL (with any password: for reconnecting).
    :ivar raw: the psycopg connection.
    """

    name: ClassVar[str] = "postgresql"

    def __init__(self, url: str) -> None:
        self.url = url
        self.address = shown_url(url)
        self._total_changes = 0
        self._lock_timeout_ms = 30_000
        self._streams = 0
        self._began = False  # a transaction begun here is open (or was, on a lost connection)
        self._quiet_until = 0.0  # a failed reconnect: statements do not try again before then
        self._at_commit: list[tuple[str, tuple[Any, ...]]] = []  # execute_at_commit's, unsent
        self.raw = connect(url)

    # -- statements ---------------------------------------------------------------

    def execute(self, sql: str, params: Params = ()) -> Cursor:
        """Run one statement (SQLite dialect; see :func:`postgresql_sql`)."""
        args: Any = params if isinstance(params, dict) else tuple(params)
        self._before_statement()
        with self._errors(), self.raw.cursor() as cursor:
            cursor.execute(postgresql_sql(sql), args)
            rows = cursor.fetchall() if cursor.description is not None else []
            if sql.lstrip()[:6].upper() in ("INSERT", "UPDATE", "DELETE"):
                self._total_changes += max(cursor.rowcount, 0)
            return PostgresCursor(rows, cursor.description, cursor.rowcount)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> Cursor:
        self._before_statement()
        with self._errors(), self.raw.cursor() as cursor:
            cursor.executemany(postgresql_sql(sql), [tuple(row) for row in rows])
            self._total_changes += max(cursor.rowcount, 0)
            return PostgresCursor([], None, cursor.rowcount)

    def executescript(self, script: str) -> None:
        self._before_statement()
        with self._errors():
            self.raw.execute(script)

    def query(self, sql: str, params: Params = ()) -> pd.DataFrame:
        import pandas as pd  # here, not at the top: the store opens without pandas

        cursor = self.execute(sql, params)
        columns = [column.name for column in cursor.description or []]
        return pd.DataFrame.from_records(cursor.fetchall(), columns=columns, coerce_float=True)

    def stream(self, sql: str, size: int) -> Iterator[tuple[Any, ...]]:
        """Fetched through a server-side cursor; must run inside a transaction."""
        self._streams += 1
        self._before_statement()
        with self._errors(), self.raw.cursor(name=f"pooltool_stream_{self._streams}") as cursor:
            cursor.itersize = size
            cursor.execute(postgresql_sql(sql))
            yield from cursor

    def copy_rows(self, table: str, columns: Sequence[str],
                  rows: Iterable[Sequence[Any]]) -> int:
        """With PostgreSQL's ``COPY ... FROM STDIN`` (row triggers fire as on ``INSERT``)."""
        names = ", ".join(f'"{column}"' for column in columns)
        written = 0
        self._before_statement()
        with self._errors(), self.raw.cursor() as cursor, \
                cursor.copy(f'COPY "{table}" ({names}) FROM STDIN') as copy:
            for row in rows:
                copy.write_row(row)
                written += 1
        self._total_changes += written
        return written

    def insert_ignoring(self, table: str, fixed: dict[str, int], columns: Sequence[str],
                        values: Sequence[list[Any]]) -> None:
        """With ``COPY`` into a temporary table of the rows (numbered, dropped at the
        end of the transaction), then one ``INSERT ... SELECT ... ON CONFLICT DO
        NOTHING`` in the rows' order: one round trip for the rows instead of one per
        :data:`~pooltool.store.engine.ROWS_PER_STATEMENT`."""
        staged = f"pooltool_staged_{table}"
        names = ", ".join(columns)
        targets = ", ".join([*fixed, *columns])
        selected = ", ".join([*(str(int(value)) for value in fixed.values()), *columns])
        self._before_statement()
        with self._errors(), self.raw.cursor() as cursor:
            cursor.execute(f"CREATE TEMPORARY TABLE IF NOT EXISTS {staged} ON COMMIT DROP AS "
                           f"SELECT CAST(0 AS BIGINT) AS ordinal, {names} FROM {table} "
                           "WITH NO DATA")
            cursor.execute(f"TRUNCATE {staged}")
            with cursor.copy(f"COPY {staged} (ordinal, {names}) FROM STDIN") as copy:
                for row in zip(range(len(values[0])), *values, strict=True):
                    copy.write_row(row)
            cursor.execute(f"INSERT INTO {table}({targets}) "
                           f"SELECT {selected} FROM {staged} ORDER BY ordinal "
                           "ON CONFLICT DO NOTHING")
            self._total_changes += max(cursor.rowcount, 0)

    @property
    def total_changes(self) -> int:
        return self._total_changes

    def execute_at_commit(self, sql: str, params: Params = ()) -> None:
        """Kept, and sent with the ``COMMIT`` in one pipeline (:meth:`commit`): the write
        lock is then held one round trip less (a grade key's journal token). Outside a
        transaction begun here, run at once."""
        if not self._began:
            self.execute(sql, params)
            return
        self._at_commit.append((sql, tuple(params)))

    def _before_statement(self) -> None:
        """Statements deferred to the commit run first, when another statement comes
        before it (so the order written is kept), then the connection is checked."""
        pending, self._at_commit = self._at_commit, []
        for sql, params in pending:
            self.execute(sql, params)
        self._reconnect_if_lost()

    # -- transactions -------------------------------------------------------------

    @property
    def in_transaction(self) -> bool:
        """Also while a transaction begun here lost its connection, until
        :meth:`rollback`: its statements must not run on a new connection."""
        from psycopg.pq import TransactionStatus

        return self._began or bool(self.raw.info.transaction_status not in (
            TransactionStatus.IDLE, TransactionStatus.UNKNOWN))

    def begin_write(self) -> None:
        """``BEGIN``, then wait for the store's advisory write lock
        (:data:`WRITE_LOCK_KEY`) at most :attr:`lock_timeout_ms`. A connection found
        gone at ``BEGIN`` (the server restarted since the last statement) is made
        again once: nothing was done on it yet."""
        self._began = False
        self._reconnect_if_lost()
        try:
            self._begin_write()
        except StoreConnectionLost:
            self.reconnect()
            self._begin_write()
        self._began = True

    def _begin_write(self) -> None:
        with self._errors():
            try:
                # one round trip, not three (a judging app begins two write transactions
                # per grade key: the judgment and the next document's claim); a query
                # without parameters is sent as one simple query, statements in order
                self.raw.execute(f"BEGIN; SET LOCAL lock_timeout = {int(self._lock_timeout_ms)}; "
                                 f"SELECT pg_advisory_xact_lock({WRITE_LOCK_KEY})")
            except BaseException:
                if not self.raw.closed and self.in_transaction:
                    self.raw.execute("ROLLBACK")
                raise

    def begin_snapshot(self) -> None:
        """``REPEATABLE READ``, as a SQLite read transaction in WAL mode sees one snapshot."""
        self._began = False
        self._reconnect_if_lost()
        with self._errors():
            self.raw.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        self._began = True

    def commit(self) -> None:
        pending, self._at_commit = self._at_commit, []
        try:
            with self._errors():
                if not pending:
                    self.raw.execute("COMMIT")
                    return
                # one round trip: a failed statement makes the server skip the COMMIT,
                # the error is raised here and the caller rolls back
                with self.raw.pipeline():
                    cursors = [self.raw.execute(postgresql_sql(sql), params)
                               for sql, params in pending]
                    self.raw.execute("COMMIT")
                self._total_changes += sum(max(cursor.rowcount, 0) for cursor in cursors)
        finally:
            self._began = False

    def rollback(self) -> None:
        self._began = False
        self._at_commit = []
        if self.raw.closed or self.raw.broken:
            return  # a lost connection's transaction is gone with it
        with self._errors():
            self.raw.execute("ROLLBACK")

    def close(self) -> None:
        self.raw.close()

    def reconnect(self) -> None:
        """Connect again (after :class:`~pooltool.errors.StoreConnectionLost`); a
        transaction under way is gone (rolled back by the server).

        :raises StoreConnectionLost: the server still cannot be reached.
        """
        self.raw.close()
        self._began = False
        self._at_commit = []
        try:
            self.raw = connect(self.url, again=True)
        except StoreConnectionLost:
            self._quiet_until = time.monotonic() + RECONNECT_TIMEOUT_S
            raise

    def _reconnect_if_lost(self) -> None:
        """Connect again when the connection went away, but not inside a transaction
        begun here (its statements stand or fall together), nor within
        :data:`RECONNECT_TIMEOUT_S` of a failed try (a screen's reads while the server
        is away fail at once; :meth:`reconnect` always tries)."""
        if self._began or not (self.raw.closed or self.raw.broken):
            return
        if time.monotonic() < self._quiet_until:
            raise StoreConnectionLost(f"{self.address}: the PostgreSQL server went away "
                                      "(not reached again yet)")
        self.reconnect()

    @property
    def lock_timeout_ms(self) -> int:
        return self._lock_timeout_ms

    @lock_timeout_ms.setter
    def lock_timeout_ms(self, ms: int) -> None:
        self._lock_timeout_ms = int(ms)

    def write_lock_held_elsewhere(self) -> bool:
        """:data:`WRITE_LOCK_KEY` in ``pg_locks``: a bigint advisory key is stored as
        its high and low 32 bits, ``classid`` and ``objid``, with ``objsubid`` 1."""
        row = self.execute(
            "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
            "AND classid = ? AND objid = ? AND objsubid = 1 AND pid <> pg_backend_pid() "
            "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            [WRITE_LOCK_KEY >> 32, WRITE_LOCK_KEY & 0xFFFFFFFF]).fetchone()
        return row is not None

    def unchecked_references(self) -> AbstractContextManager[None]:
        return nullcontext()  # PostgreSQL always checks them

    def write_failure(self, exc: BaseException, what: str) -> StoreError | None:
        if isinstance(exc, RoleRefused):
            return exc.saying(what)
        if isinstance(exc, StoreConnectionLost):
            return StoreConnectionLost(f"{exc}; nothing was {what}")
        return None

    # -- the store around the connection ------------------------------------------

    @property
    def journal_base(self) -> Path | None:
        return journal_base(self.url)

    def tables(self) -> list[Table]:
        return _tables(self)

    def watcher(self) -> ChangeWatcher:
        return NotificationWatcher(PostgresqlEngine(self.url))

    def backup_file(self, target: Path) -> bool:
        return False  # pg_dump makes PostgreSQL's backups; a SQLite file is a copy

    def integrity_problems(self) -> list[str]:
        """None to find from here: the server enforces foreign keys and checks its own
        pages (with data checksums on, ``initdb -k``)."""
        return []

    def pending_migrations(self) -> list[str]:
        return migrations.pending_postgresql(self)

    def after_copy(self, tables: Iterable[Table]) -> None:
        """Set each identity column's sequence so that the next id is past the copied ones."""
        for table in tables:
            if table.identity is not None:
                self.execute(
                    f"SELECT setval(pg_get_serial_sequence('\"{table.name}\"', "
                    f"'{table.identity}'), COALESCE(MAX(\"{table.identity}\"), 0) + 1, false) "
                    f'FROM "{table.name}"')

    def _errors(self) -> AbstractContextManager[None]:
        return store_errors(self)


def open_postgresql(url: str, create: bool, now: str, upgrade: bool = False) -> PostgresqlEngine:
    """Connect to the PostgreSQL database at ``url`` and make sure it is a current
    pooltool store: an empty database gets the schema (with ``create``); an older store
    gets the migrations it lacks (:func:`~pooltool.store.migrations.apply_postgresql`)
    only with ``upgrade``: a shared store is upgraded when its owner says so (``pooltool
    store upgrade``), since pooltools older than the new schema then refuse it;
    otherwise an older store is used as it is when it lacks only migrations that
    reading does not need.

    :param now: the UTC time (ISO 8601) recorded for the schema's migrations.
    :raises StoreError: the server cannot be reached or refuses the login; the
        database is empty (and not ``create``), holds another application's tables, is
        a store of a newer pooltool, or is older and this login may not upgrade it.
    """
    engine = PostgresqlEngine(url)
    try:
        # pg_class, not information_schema, which hides tables the login may not read
        tables = [r[0] for r in engine.execute(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')")]
        if not tables and not create:
            raise StoreError(f"{engine.address} is an empty database, not a pooltool store: "
                             f"create one with 'pooltool --db {engine.address} init'")
        if not tables:
            migrations.create_postgresql(engine, now)
            upgrade = True
        elif "pooltool_migrations" not in tables:
            shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
            raise StoreError(f"{engine.address} is a database of something else (tables: "
                             f"{shown}), not a pooltool store; pooltool will not write into it")
        _migrate(engine, now, upgrade)
    except BaseException:
        if not engine.raw.closed and engine.in_transaction:
            engine.rollback()
        engine.close()
        raise
    return engine


def _migrate(engine: PostgresqlEngine, now: str, upgrade: bool) -> None:
    try:
        lacking = migrations.pending_postgresql(engine)
    except RoleRefused as exc:
        raise StoreError(f"{engine.address} is a pooltool store this login may not read "
                         f"({exc.reason}): its owner grants a role with 'pooltool --db "
                         f"{engine.address} init --roles apply --assessor LOGIN' (or "
                         "--admin LOGIN)") from exc
    if not lacking:
        return
    owner_upgrades = (f"its owner upgrades it with 'pooltool --db {engine.address} store "
                      "upgrade' (pooltools older than this one then refuse it: everyone "
                      "judging updates pooltool too)")
    if not upgrade:
        needed = migrations.needed_to_read(lacking)
        if needed:
            raise migrations.older_schema(engine.address, needed, owner_upgrades)
        return
    try:
        engine.upgraded = migrations.apply_postgresql(engine, now)
    except RoleRefused as exc:
        raise migrations.older_schema(engine.address, lacking,
                                      f"this login may not upgrade it ({exc.reason}): "
                                      + owner_upgrades) from exc



def _tables(engine: PostgresqlEngine) -> list[Table]:
    columns: dict[str, list[str]] = {}
    identity: dict[str, str] = {}
    for table, column, is_identity in engine.execute(
            "SELECT c.table_name, c.column_name, c.is_identity "
            "FROM information_schema.columns c JOIN information_schema.tables t "
            "ON t.table_schema = c.table_schema AND t.table_name = c.table_name "
            "WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' "
            "ORDER BY c.table_name, c.ordinal_position"):
        columns.setdefault(table, []).append(column)
        if is_identity == "YES":
            identity[table] = column
    keys: dict[str, list[str]] = {}
    for table, column in engine.execute(
            "SELECT k.table_name, k.column_name FROM information_schema.table_constraints c "
            "JOIN information_schema.key_column_usage k ON k.constraint_schema = "
            "c.constraint_schema AND k.constraint_name = c.constraint_name "
            "AND k.table_name = c.table_name "
            "WHERE c.constraint_type = 'PRIMARY KEY' AND c.table_schema = current_schema() "
            "ORDER BY k.table_name, k.ordinal_position"):
        keys.setdefault(table, []).append(column)
    references: dict[str, set[str]] = {}
    for table, target in engine.execute(
            "SELECT CAST(CAST(conrelid AS regclass) AS text), "
            "CAST(CAST(confrelid AS regclass) AS text) FROM pg_constraint "
            "WHERE contype = 'f' AND connamespace = CAST(current_schema() AS regnamespace)"):
        references.setdefault(table, set()).add(target)
    return [Table(name, tuple(cols), tuple(keys.get(name) or cols),
                  frozenset(references.get(name, set()) - {name}), identity.get(name))
            for name, cols in sorted(columns.items())]



__all__ = ["PostgresqlEngine", "open_postgresql"]
