"""The store on a PostgreSQL server: a connection that speaks to the store's modules
as :mod:`sqlite3` does.

The store's SQL is written once, in SQLite's dialect. :func:`postgresql_sql`
rewrites a statement for PostgreSQL (placeholders ``?`` and ``:name``,
``INSERT OR IGNORE``, ``group_concat``, ``json_each``); :class:`PostgresConnection`
wraps a psycopg 3 connection with the part of :class:`sqlite3.Connection` the
store uses (``execute``, ``executemany``, ``in_transaction``, ``total_changes``,
a cursor's ``lastrowid``), and raises :mod:`sqlite3`'s error classes, so the
store's error handling is one for both engines:

* a refused write (an append-only trigger, a unique or foreign key) is
  :class:`sqlite3.IntegrityError`;
* waiting longer than the lock timeout for another writer is
  :class:`sqlite3.OperationalError` ``"database is locked ..."`` (as SQLite's busy
  store);
* a role that may not write a table is :class:`RoleRefused` (a
  :class:`~pooltool.errors.StoreWriteFailed`);
* a lost or refused connection is :class:`~pooltool.errors.StoreError`.

Connection details come from the URL and libpq's usual sources (``PGPASSWORD``,
``~/.pgpass``, ``PGSSLMODE``, service files): a password is never asked for on the
command line. libpq's default ``sslmode=prefer`` uses TLS when the server offers it.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pooltool.errors import StoreError, StoreWriteFailed

WRITE_LOCK_KEY = 7_001_002_003
"""The advisory lock every write transaction takes first: writers take turns, as on
SQLite, so claims and judgments never race and no deadlock reaches an assessor."""

# Tables whose integer id the database assigns (a cursor's ``lastrowid``).
_IDENTITY_COLUMNS = {
    "imports": "import_id", "runs": "run_id", "pools": "pool_id", "pool_rounds": "round_id",
    "judgments": "judgment_id", "guidelines": "guideline_id", "assessor_kinds": "kind_id",
    "samples": "sample_id",
}


def shown_url(url: str) -> str:
    """``url`` with any password replaced by ``***`` (for messages and logs)."""
    parts = urlsplit(url)
    if parts.password is not None:
        parts = parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@", 1))
    query = re.sub(r"(^|&)password=[^&]*", r"\1password=***", parts.query)
    return urlunsplit(parts._replace(query=query))


SCHEMA_MIGRATIONS = (
    "m001_initial", "m002_judging_ui", "m003_durable_ui", "m004_run_history", "m005_samples",
    "m006_assessor_kinds", "m008_claims", "m009_active_time", "m010_guidelines",
    "m011_adaptive_pools", "m012_sample_growth", "m013_run_columns",
)
"""The SQLite migrations whose schema ``pooltool/store/postgresql.sql`` is (a test
checks this equals :func:`pooltool.store.migrations.names`)."""


def schema_script() -> str:
    """The PostgreSQL schema (``pooltool/store/postgresql.sql``) as one script."""
    return resources.files("pooltool.store").joinpath("postgresql.sql").read_text("utf-8")


def open_store_database(url: str, create: bool, now: str) -> PostgresConnection:
    """Connect to the PostgreSQL database at ``url`` and make sure it is a current
    pooltool store: an empty database gets the schema (with ``create``), in one
    transaction.

    :param now: the UTC time (ISO 8601) recorded for the schema's migrations.
    :raises StoreError: the server cannot be reached or refuses the login; the
        database is empty (and not ``create``), holds another application's tables,
        or is a pooltool store of another schema version.
    """
    conn = PostgresConnection(url)
    try:
        # pg_class, not information_schema, which hides tables the login may not read
        tables = [r[0] for r in conn.execute(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')")]
        if not tables and not create:
            raise StoreError(f"{shown_url(url)} is an empty database, not a pooltool store: "
                             f"create one with 'pooltool --db {shown_url(url)} init'")
        if not tables:
            conn.begin_write()
            conn.executescript(schema_script())
            conn.executemany("INSERT INTO pooltool_migrations(name, applied_at) VALUES (?, ?)",
                             [(name, now) for name in SCHEMA_MIGRATIONS])
            conn.commit()
        elif "pooltool_migrations" not in tables:
            shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
            raise StoreError(f"{shown_url(url)} is a database of something else (tables: "
                             f"{shown}), not a pooltool store; pooltool will not write into it")
        else:
            _check_schema_version(conn, url)
    except BaseException:
        if conn.in_transaction:
            conn.rollback()
        conn.close()
        raise
    return conn


def _check_schema_version(conn: PostgresConnection, url: str) -> None:
    try:
        applied = {r[0] for r in conn.execute("SELECT name FROM pooltool_migrations")}
    except RoleRefused as exc:
        raise StoreError(f"{shown_url(url)} is a pooltool store this login may not read "
                         f"({exc.reason}): its owner grants a role with 'pooltool --db "
                         f"{shown_url(url)} init --roles apply --assessor LOGIN' (or "
                         "--admin LOGIN)") from exc
    if applied != set(SCHEMA_MIGRATIONS):
        newer = sorted(applied - set(SCHEMA_MIGRATIONS))
        raise StoreError(
            f"{shown_url(url)}: the store's schema is not this pooltool's "
            + (f"(it has {', '.join(newer)}: made by a newer pooltool)" if newer else
               f"(it lacks {', '.join(sorted(set(SCHEMA_MIGRATIONS) - applied))})"))


def journal_base(url: str) -> Path:
    """Where judging apps on this machine keep the journals of writes waiting for a
    PostgreSQL store (:mod:`pooltool.store.journal`): a name for the server, database
    and user under ``$XDG_STATE_HOME/pooltool`` (default ``~/.local/state/pooltool``).
    A journal is replayed by the next pooltool command run on this machine."""
    parts = urlsplit(url)
    name = "_".join(str(p) for p in (parts.hostname or "local", parts.port or 5432,
                                     parts.path.lstrip("/") or "db", parts.username or "user"))
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    folder = Path(state) / "pooltool"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / ("postgresql-" + re.sub(r"[^A-Za-z0-9_.-]", "_", name))


class RoleRefused(StoreWriteFailed):
    """The server refused the login role a privilege it needs for this (see
    :mod:`pooltool.store.roles`); the transaction was rolled back.

    :param address: the store's URL (no password).
    :param reason: the server's message (``permission denied for table runs``).
    :param what: the past participle for "nothing was ..." (see :meth:`saying`).
    """

    def __init__(self, address: str, reason: str, what: str = "changed") -> None:
        self.address, self.reason = address, reason
        super().__init__(f"{address}: this role may not do this ({reason}); "
                         f"nothing was {what}")

    def saying(self, what: str) -> RoleRefused:
        """The same refusal, saying "nothing was ``what``"."""
        return RoleRefused(self.address, self.reason, what)


# -- SQL ------------------------------------------------------------------------------

_TOKENS = re.compile(r"""
    (?P<quoted>'(?:[^']|'')*'|"(?:[^"]|"")*")
  | (?P<named>(?<!:):(?P<name>[A-Za-z_]\w*))
  | (?P<param>\?)
  | (?P<percent>%)
  | (?P<other>[^'"?:%]+|:)
""", re.VERBOSE)


@lru_cache(maxsize=1024)
def postgresql_sql(sql: str) -> str:
    """A store statement in SQLite's dialect, rewritten for PostgreSQL.

    ``?`` becomes ``%s`` and ``:name`` becomes ``%(name)s`` (psycopg's
    placeholders), a literal ``%`` becomes ``%%``; ``INSERT OR IGNORE INTO`` becomes
    ``INSERT INTO ... ON CONFLICT DO NOTHING``; ``group_concat(x, sep)`` becomes
    ``string_agg(CAST(x AS TEXT), sep)``; ``json_each(x)`` (a JSON list, read as
    ``SELECT value FROM json_each(x)``) becomes
    ``jsonb_array_elements_text(CAST(x AS jsonb)) AS value``. Text inside quotes is
    left alone (but for ``%``).
    """
    out = []
    for match in _TOKENS.finditer(sql):
        if match["quoted"]:
            out.append(match["quoted"].replace("%", "%%"))
        elif match["named"]:
            out.append(f"%({match['name']})s")
        elif match["param"]:
            out.append("%s")
        elif match["percent"]:
            out.append("%%")
        else:
            out.append(match["other"])
    text = "".join(out)
    text = _rewrite_calls(text, "group_concat", _string_agg)
    text = _rewrite_calls(text, "json_each", _json_elements)
    if re.match(r"\s*INSERT\s+OR\s+IGNORE\s+INTO\b", text, re.IGNORECASE):
        text = re.sub(r"^\s*INSERT\s+OR\s+IGNORE\s+INTO", "INSERT INTO", text,
                      flags=re.IGNORECASE) + " ON CONFLICT DO NOTHING"
    return text


def _rewrite_calls(sql: str, function: str, rewrite: Any) -> str:
    """Replace every call ``function(args)`` (case-insensitive) by ``rewrite(args)``."""
    pattern = re.compile(rf"\b{function}\s*\(", re.IGNORECASE)
    while (match := pattern.search(sql)) is not None:
        start, depth, end = match.end(), 1, match.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(sql[end], 0)
            end += 1
        sql = sql[:match.start()] + rewrite(_split_arguments(sql[start:end - 1])) + sql[end:]
    return sql


def _split_arguments(text: str) -> list[str]:
    """A call's arguments, split on the commas outside parentheses and quotes."""
    arguments: list[str] = []
    current: list[str] = []
    depth, quote = 0, ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            arguments.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    arguments.append("".join(current).strip())
    return arguments


def _string_agg(arguments: list[str]) -> str:
    separator = arguments[1] if len(arguments) > 1 else "','"
    return f"string_agg(CAST({arguments[0]} AS TEXT), {separator})"


def _json_elements(arguments: list[str]) -> str:
    return f"jsonb_array_elements_text(CAST({arguments[0]} AS jsonb)) AS value"


# -- connection -----------------------------------------------------------------------

class PostgresCursor:
    """The part of :class:`sqlite3.Cursor` the store reads: rows, ``lastrowid``,
    ``rowcount`` and ``description``."""

    def __init__(self, rows: list[tuple[Any, ...]], description: Sequence[Any] | None,
                 lastrowid: int | None, rowcount: int) -> None:
        self._rows = rows
        self._next = 0
        self.description = description
        self.lastrowid = lastrowid
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


class PostgresConnection:
    """A psycopg 3 connection (autocommit: each statement outside
    :meth:`begin_write` is its own transaction) behind the part of
    :class:`sqlite3.Connection` the store uses."""

    def __init__(self, url: str) -> None:
        import psycopg  # imported only for PostgreSQL stores

        self.url = url
        self.total_changes = 0
        self.lock_timeout_ms = 30_000
        self._streams = 0
        try:
            self.raw = psycopg.connect(url, autocommit=True)
        except psycopg.Error as exc:
            raise StoreError(f"cannot reach the store at {shown_url(url)}: "
                             f"{str(exc).strip()}") from exc

    @property
    def in_transaction(self) -> bool:
        """Whether a transaction is open (as :attr:`sqlite3.Connection.in_transaction`)."""
        from psycopg.pq import TransactionStatus

        return bool(self.raw.info.transaction_status != TransactionStatus.IDLE)

    def execute(self, sql: str, params: Iterable[Any] | dict[str, Any] = ()) -> PostgresCursor:
        """Run one statement (SQLite dialect; see :func:`postgresql_sql`)."""
        text, returning = self._statement(sql)
        args: Any = params if isinstance(params, dict) else tuple(params)
        with self._errors(), self.raw.cursor() as cursor:
            cursor.execute(text, args)
            rows = cursor.fetchall() if cursor.description is not None else []
            self.total_changes += max(cursor.rowcount, 0) if sql.lstrip()[:6].upper() in (
                "INSERT", "UPDATE", "DELETE") else 0
            lastrowid = int(rows[0][0]) if returning and rows else None
            return PostgresCursor([] if returning else rows, cursor.description,
                                  lastrowid, cursor.rowcount)

    def executemany(self, sql: str, rows: Iterable[Iterable[Any]]) -> PostgresCursor:
        """Run one statement for each parameter row."""
        text, _ = self._statement(sql, returning=False)
        with self._errors(), self.raw.cursor() as cursor:
            cursor.executemany(text, [tuple(row) for row in rows])
            self.total_changes += max(cursor.rowcount, 0)
            return PostgresCursor([], None, None, cursor.rowcount)

    def executescript(self, script: str) -> None:
        """Run a script of statements as written (PostgreSQL's dialect)."""
        with self._errors():
            self.raw.execute(script)

    def begin_write(self) -> None:
        """Open a write transaction and wait (at most :attr:`lock_timeout_ms`) for the
        store's write lock (:data:`WRITE_LOCK_KEY`). When the wait times out the
        transaction is rolled back before the error is raised (as a failed
        ``BEGIN IMMEDIATE`` leaves SQLite outside any transaction), so the connection
        stays usable: the caller may retry."""
        with self._errors():
            self.raw.execute("BEGIN")
            try:
                self.raw.execute(f"SET LOCAL lock_timeout = {int(self.lock_timeout_ms)}")
                self.raw.execute(f"SELECT pg_advisory_xact_lock({WRITE_LOCK_KEY})")
            except BaseException:
                if self.in_transaction:
                    self.raw.execute("ROLLBACK")
                raise

    def write_lock_held_elsewhere(self) -> bool:
        """Whether another connection holds the store's write lock now
        (:data:`WRITE_LOCK_KEY` in ``pg_locks``: a bigint advisory key is stored as
        its high and low 32 bits, ``classid`` and ``objid``, with ``objsubid`` 1)."""
        row = self.execute(
            "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
            "AND classid = ? AND objid = ? AND objsubid = 1 AND pid <> pg_backend_pid() "
            "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            [WRITE_LOCK_KEY >> 32, WRITE_LOCK_KEY & 0xFFFFFFFF]).fetchone()
        return row is not None

    def begin_read(self) -> None:
        """Open a read-only transaction that sees one snapshot of the store throughout
        (``REPEATABLE READ``), as a SQLite read transaction in WAL mode does."""
        with self._errors():
            self.raw.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")

    def stream(self, sql: str, size: int) -> Iterator[tuple[Any, ...]]:
        """The rows of a query (SQLite dialect, no parameters), fetched from the server
        ``size`` at a time through a server-side cursor: a table of millions of rows
        never sits in memory whole. Must run inside a transaction."""
        self._streams += 1
        with self._errors(), self.raw.cursor(name=f"pooltool_stream_{self._streams}") as cursor:
            cursor.itersize = size
            cursor.execute(postgresql_sql(sql))
            yield from cursor

    def copy_rows(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> int:
        """Append ``rows`` (values in the order of ``columns``) to ``table`` with
        PostgreSQL's ``COPY ... FROM STDIN`` (row triggers fire as on ``INSERT``).

        :returns: the rows written.
        """
        names = ", ".join(f'"{column}"' for column in columns)
        written = 0
        with self._errors(), self.raw.cursor() as cursor, \
                cursor.copy(f'COPY "{table}" ({names}) FROM STDIN') as copy:
            for row in rows:
                copy.write_row(row)
                written += 1
        self.total_changes += written
        return written

    def commit(self) -> None:
        with self._errors():
            self.raw.execute("COMMIT")

    def rollback(self) -> None:
        with self._errors():
            self.raw.execute("ROLLBACK")

    def close(self) -> None:
        self.raw.close()

    def _statement(self, sql: str, returning: bool = True) -> tuple[str, bool]:
        """The statement for PostgreSQL, with ``RETURNING id`` added to an insert into
        a table whose id the database assigns (for ``lastrowid``)."""
        text = postgresql_sql(sql)
        if not returning:
            return text, False
        insert = re.match(r"\s*INSERT\s+INTO\s+(\w+)", text, re.IGNORECASE)
        column = _IDENTITY_COLUMNS.get(insert[1].lower()) if insert else None
        if column is None or re.search(r"\bRETURNING\b", text, re.IGNORECASE):
            return text, False
        return f"{text} RETURNING {column}", True

    def _errors(self) -> AbstractContextManager[None]:
        return _sqlite_errors(self.url)


@contextmanager
def _sqlite_errors(url: str) -> Iterator[None]:
    """Raise psycopg's errors as the :mod:`sqlite3` (or pooltool) errors the store's
    callers handle (see the module's docstring)."""
    import psycopg
    from psycopg import errors

    try:
        yield
    except psycopg.Error as exc:
        message = (exc.diag.message_primary or str(exc)).strip()
        if isinstance(exc, errors.LockNotAvailable):
            raise sqlite3.OperationalError(f"database is locked ({message})") from exc
        if isinstance(exc, errors.InsufficientPrivilege):
            raise RoleRefused(shown_url(url), message) from exc
        if isinstance(exc, psycopg.IntegrityError):
            raise sqlite3.IntegrityError(message) from exc
        if isinstance(exc, psycopg.OperationalError):
            raise StoreError(f"{shown_url(url)}: {message}") from exc
        raise sqlite3.DatabaseError(message) from exc


__all__ = ["PostgresConnection", "RoleRefused", "open_store_database", "postgresql_sql",
           "shown_url"]
