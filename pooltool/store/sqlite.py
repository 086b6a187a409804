"""The store in one SQLite file (WAL mode), or in memory: the SQLite :class:`Engine`.

Writes take SQLite's write lock up front (``BEGIN IMMEDIATE``) and wait up to the lock
timeout (``PRAGMA busy_timeout``) for another writer. SQLite's errors are raised as the
store's (:mod:`pooltool.store.engine`): SQLITE_BUSY and SQLITE_LOCKED as
:class:`~pooltool.errors.StoreBusy`, a constraint or a trigger's ``RAISE(ABORT)`` as
:class:`~pooltool.errors.StoreRefused`; SQLITE_FULL and SQLITE_READONLY become
:class:`~pooltool.errors.StoreWriteFailed` where a write transaction ends
(:meth:`SqliteEngine.write_failure`). Result codes: https://www.sqlite.org/rescode.html.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn

from pooltool.errors import (
    StoreBusy,
    StoreDamaged,
    StoreError,
    StoreFull,
    StoreRefused,
    StoreWriteFailed,
)
from pooltool.store import migrations
from pooltool.store.changes import Changes, ChangeWatcher
from pooltool.store.engine import Cursor, Engine, Params, Table

if TYPE_CHECKING:
    import pandas as pd

SQLITE_BUSY = 5
SQLITE_LOCKED = 6
SQLITE_READONLY = 8
SQLITE_CORRUPT = 11
SQLITE_FULL = 13
SQLITE_CANTOPEN = 14  # also: a -wal file but no -shm, in a folder SQLite cannot write
SQLITE_NOTADB = 26


def error_code(exc: BaseException) -> int:
    """The primary SQLite result code of an error (extended codes folded), 0 if unknown."""
    return int(getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF


class _Rows:
    """An :class:`sqlite3.Cursor` whose rows, fetched, raise SQLite's errors as the
    store's (a busy or damaged store shows while rows are stepped through too)."""

    __slots__ = ("_cursor",)

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor

    @property
    def description(self) -> Any:
        return self._cursor.description

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    def fetchone(self) -> Any:
        try:
            return self._cursor.fetchone()
        except sqlite3.DatabaseError as exc:
            _raise_as_store_error(exc)

    def fetchall(self) -> list[Any]:
        try:
            return self._cursor.fetchall()
        except sqlite3.DatabaseError as exc:
            _raise_as_store_error(exc)

    def fetchmany(self, size: int = 1) -> list[Any]:
        try:
            return self._cursor.fetchmany(size)
        except sqlite3.DatabaseError as exc:
            _raise_as_store_error(exc)

    def __iter__(self) -> Iterator[Any]:
        while rows := self.fetchmany(1_000):
            yield from rows


class SqliteEngine(Engine):
    """A :class:`sqlite3.Connection` to a store file (``path``) or memory (``None``).

    :ivar raw: the connection itself (for sqlite-utils' migrations).
    """

    name: ClassVar[str] = "sqlite"

    def __init__(self, raw: sqlite3.Connection, path: Path | None,
                 read_only: bool = False) -> None:
        self.raw = raw
        self.path = path
        self.address = str(path or ":memory:")
        self.read_only = read_only

    def execute(self, sql: str, params: Params = ()) -> Cursor:
        try:
            return _Rows(self.raw.execute(sql, params))  # type: ignore[arg-type]
        except sqlite3.DatabaseError as exc:
            _raise_as_store_error(exc)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> Cursor:
        try:
            return _Rows(self.raw.executemany(sql, rows))
        except sqlite3.DatabaseError as exc:
            _raise_as_store_error(exc)

    def executescript(self, script: str) -> None:
        try:
            self.raw.executescript(script)
        except sqlite3.DatabaseError as exc:
            _raise_as_store_error(exc)

    def query(self, sql: str, params: Params = ()) -> pd.DataFrame:
        import pandas as pd  # here, not at the top: the store opens without pandas

        try:
            return pd.read_sql_query(sql, self.raw, params=params)
        except pd.errors.DatabaseError as exc:  # pandas wraps SQLite's error
            if isinstance(exc.__cause__, sqlite3.DatabaseError):
                _raise_as_store_error(exc.__cause__)
            raise

    def stream(self, sql: str, size: int) -> Iterator[tuple[Any, ...]]:
        yield from self.execute(sql)  # an SQLite cursor steps through the rows itself

    def copy_rows(self, table: str, columns: Sequence[str],
                  rows: Iterable[Sequence[Any]]) -> int:
        names = ", ".join(f'"{c}"' for c in columns)
        marks = ", ".join("?" for _ in columns)
        before = self.raw.total_changes
        self.executemany(f'INSERT INTO "{table}" ({names}) VALUES ({marks})', rows)
        return self.raw.total_changes - before

    @property
    def total_changes(self) -> int:
        return self.raw.total_changes

    @property
    def in_transaction(self) -> bool:
        return self.raw.in_transaction

    def begin_write(self) -> None:
        self.execute("BEGIN IMMEDIATE")

    def begin_snapshot(self) -> None:
        # In WAL mode a read transaction sees the snapshot of its first read.
        self.execute("BEGIN")

    def commit(self) -> None:
        try:
            self.raw.commit()
        except sqlite3.DatabaseError as exc:
            _raise_as_store_error(exc)

    def rollback(self) -> None:
        self.raw.rollback()

    def close(self) -> None:
        self.raw.close()

    def reconnect(self) -> None:
        """Nothing to do: a SQLite file has no server to lose."""

    @property
    def lock_timeout_ms(self) -> int:
        return int(self.raw.execute("PRAGMA busy_timeout").fetchone()[0])

    @lock_timeout_ms.setter
    def lock_timeout_ms(self, ms: int) -> None:
        self.raw.execute(f"PRAGMA busy_timeout = {int(ms)}")

    def write_lock_held_elsewhere(self) -> bool:
        return self.path is not None and write_lock_held(self.path)

    @contextmanager
    def unchecked_references(self) -> Iterator[None]:
        # SQLite takes PRAGMA foreign_keys only outside a transaction; within one, the
        # block changes nothing. The checks are a quarter of the cost of a pool's rows.
        if self.raw.in_transaction:
            yield
            return
        self.raw.execute("PRAGMA foreign_keys=OFF")
        try:
            yield
        finally:
            self.raw.execute("PRAGMA foreign_keys=ON")

    def write_failure(self, exc: BaseException, what: str) -> StoreError | None:
        return write_failure(exc, self.path, what)

    @property
    def journal_base(self) -> Path | None:
        return self.path

    def tables(self) -> list[Table]:
        names = [row[0] for row in self.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' "
            "ORDER BY name")]
        tables = []
        for name in names:
            info = self.execute(f'PRAGMA table_info("{name}")').fetchall()  # cid, name, ..., pk
            key = tuple(r[1] for r in sorted(info, key=lambda r: r[5]) if r[5] > 0)
            references = {r[2] for r in self.execute(f'PRAGMA foreign_key_list("{name}")')}
            columns = tuple(r[1] for r in info)
            tables.append(Table(name, columns, key or columns, frozenset(references - {name})))
        return tables

    def watcher(self) -> ChangeWatcher:
        return DataVersionWatcher(self)

    def backup_file(self, target: Path) -> bool:
        """SQLite's online backup API (https://www.sqlite.org/backup.html), all pages in
        one step: a consistent copy while other connections write, the WAL's committed
        pages included (which a copy of the file alone misses)."""
        copy = sqlite3.connect(target)
        try:
            self.raw.backup(copy)
        except sqlite3.DatabaseError as exc:
            _raise_as_store_error(exc)
        finally:
            copy.close()
        return True

    def integrity_problems(self) -> list[str]:
        """``PRAGMA integrity_check`` (pages, indexes, constraints;
        https://www.sqlite.org/pragma.html#pragma_integrity_check) and
        ``PRAGMA foreign_key_check``."""
        try:
            problems = [str(row[0]) for row in self.execute("PRAGMA integrity_check")
                        if row[0] != "ok"]
        except StoreDamaged as exc:  # so damaged that the check itself stops
            return [str(exc.__cause__)]
        problems += [f"table {table}: " + ("a row" if rowid is None else f"row {rowid}")
                     + f" names a missing row of {parent}"
                     for table, rowid, parent, _ in self.execute("PRAGMA foreign_key_check")]
        return problems

    def pending_migrations(self) -> list[str]:
        return migrations.pending(self.raw)

    def after_copy(self, tables: Iterable[Table]) -> None:
        """Nothing: SQLite's next rowid is past the largest one anyway."""


class DataVersionWatcher:
    """SQLite: compares ``PRAGMA data_version`` of the store's connection with the
    value at the previous poll (the connection's own commits leave it alone)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.version = self._version()

    def _version(self) -> int:
        return int(self.engine.execute("PRAGMA data_version").fetchone()[0])

    def poll(self) -> Changes:
        version = self._version()
        changed, self.version = version != self.version, version
        return Changes(any_topic=changed)

    def close(self) -> None:
        """Nothing to close: the store's connection is the store's."""


_DAMAGED = ("the store file is damaged ({}): 'pooltool store check' says what is broken; "
            "restore it from a backup ('pooltool store backup' makes them)")


def _raise_as_store_error(exc: sqlite3.DatabaseError) -> NoReturn:
    """Raise a busy store and a refused write as the store's errors; others as they are."""
    code = error_code(exc)
    if code in (SQLITE_BUSY, SQLITE_LOCKED):
        raise StoreBusy(str(exc)) from exc
    if isinstance(exc, sqlite3.IntegrityError):
        raise StoreRefused(str(exc)) from exc
    if code in (SQLITE_CORRUPT, SQLITE_NOTADB):
        raise StoreDamaged(_DAMAGED.format(exc)) from exc
    raise exc


def write_failure(exc: BaseException, path: Path | None, what: str) -> StoreWriteFailed | None:
    """The :class:`~pooltool.errors.StoreWriteFailed` an SQLite error stands for, if any.

    :param exc: an error SQLite raised while writing (or while opening, which
        writes the ``-wal`` and ``-shm`` files).
    :param path: the store file (``None``: in memory).
    :param what: the past participle for "nothing was ...".
    :returns: for SQLITE_FULL (disk full, or a ``max_page_count`` reached:
        :class:`~pooltool.errors.StoreFull`) and SQLITE_READONLY (read-only file or
        folder): the error, with the store's path and the cause; ``None`` for any
        other error.
    """
    code = error_code(exc)
    if code == SQLITE_FULL:
        return StoreFull(f"{path or ':memory:'}: the disk is full ({exc}); nothing was {what}")
    if code == SQLITE_READONLY:
        reason = f"the store cannot be written ({exc}): check the permissions of the file " \
                 "and its folder"
    else:
        return None
    return StoreWriteFailed(f"{path or ':memory:'}: {reason}; nothing was {what}")


def write_lock_held(path: Path) -> bool:
    """Whether another process holds the write lock of the SQLite file at ``path`` now
    (tried without waiting; ``False`` for a missing file or one that is not a database)."""
    if not path.is_file():
        return False
    conn = sqlite3.connect(path, timeout=0)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.rollback()
    except sqlite3.Error as exc:  # not a store: opening it will say so
        return "locked" in str(exc) or "busy" in str(exc)
    finally:
        conn.close()
    return False


# -- opening a store ----------------------------------------------------------------------

def open_sqlite(path: Path, create: bool, busy_timeout_s: float,
                upgrade: bool = True) -> SqliteEngine:
    """Open (or with ``create``, make) the store file at ``path``, its schema brought up
    to date unless not ``upgrade`` (see :meth:`pooltool.store.JudgmentStore.open` for
    what is refused).

    A store this process cannot write (a read-only file, or a file in a read-only
    folder, where SQLite cannot create the ``-wal`` and ``-shm`` files it needs) is
    opened read-only: in a read-only folder as ``immutable`` (no locking), unless a
    ``-wal`` file there holds writes that only a writer can fold back into the store.
    """
    if not create and not path.exists():
        raise StoreError(f"no store at {path}: create one with 'pooltool --db {path} init'")
    if not create and not _file_is_writable(path):
        return _open_read_only(path, "this process may not write the file", busy_timeout_s)
    try:
        raw = sqlite3.connect(path, timeout=busy_timeout_s)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open a store at {path}: {exc}") from exc
    try:
        _check_is_store(raw, path, create)
        return sqlite_engine(raw, path, upgrade=upgrade or create)
    except sqlite3.DatabaseError as exc:
        raw.close()
        if isinstance(exc, StoreError):
            raise
        failure = write_failure(exc, path, "changed")
        if failure is not None and (create or error_code(exc) == SQLITE_FULL):
            raise failure from exc
        if not create and error_code(exc) in (SQLITE_READONLY, SQLITE_CANTOPEN):
            return _open_read_only(path, str(exc), busy_timeout_s)
        if error_code(exc) == SQLITE_CORRUPT:
            raise StoreDamaged(f"{path}: {_DAMAGED.format(exc)}") from exc
        raise StoreError(f"{path} is not a pooltool store: {exc}") from exc
    except StoreError:
        raw.close()
        raise


def memory_engine() -> SqliteEngine:
    """A new store in memory."""
    return sqlite_engine(sqlite3.connect(":memory:"), None)


def sqlite_engine(raw: sqlite3.Connection, path: Path | None, read_only: bool = False,
                  upgrade: bool = True) -> SqliteEngine:
    """The engine of an open store connection: WAL mode (files), foreign keys on, the
    schema migrated when it is older (:mod:`pooltool.store.migrations`).

    :param read_only: the connection cannot write: the store is read as it is.
    :param upgrade: migrate an older schema (``False``: read it as it is).
    :raises StoreError: a store of a newer pooltool; an older schema that is not
        upgraded and lacks a migration reading needs (the message says how to upgrade).
    """
    if path is not None and not read_only:
        raw.execute("PRAGMA journal_mode=WAL")
    raw.execute("PRAGMA foreign_keys=ON")
    # as sqlite-utils' Database (which wrapped every store connection until it was
    # imported only to migrate) sets it: a trigger's writes fire triggers too
    raw.execute("PRAGMA recursive_triggers=ON")
    address = str(path or ":memory:")
    lacking = migrations.pending(raw, address)
    applied: list[str] = []
    if lacking and (read_only or not upgrade):
        needed = migrations.needed_to_read(lacking)
        if needed:
            raise migrations.older_schema(address, needed, (
                "it cannot be upgraded because it cannot be written; open it once where it "
                "can be" if read_only else f"upgrade it with 'pooltool --db {address} store "
                "upgrade' (any command that writes to it upgrades it too)"))
    elif lacking:
        applied = migrations.apply(raw, address)
    engine = SqliteEngine(raw, path, read_only)
    engine.upgraded = applied
    return engine


def _open_read_only(path: Path, cause: str, busy_timeout_s: float) -> SqliteEngine:
    """Open a store that cannot be written (``cause``: why the normal open failed)."""
    uri = path.resolve().as_uri()
    tried = []
    for query in ("mode=ro", "immutable=1"):
        if query == "immutable=1" and _holds_wal_writes(path):
            raise StoreError(
                f"{path}: cannot be read without writing ({cause}): its folder is "
                f"read-only and {path}-wal holds writes not yet folded into the store; "
                "make the folder writable and open the store once")
        raw = sqlite3.connect(f"{uri}?{query}", uri=True, timeout=busy_timeout_s)
        try:
            _check_is_store(raw, path, create=False)
            return sqlite_engine(raw, path, read_only=True)
        except StoreError:
            raw.close()
            raise
        except sqlite3.DatabaseError as exc:
            raw.close()
            tried.append(f"{query}: {exc}")
    raise StoreError(f"{path}: cannot be written ({cause}) nor read read-only "
                     f"({'; '.join(tried)})")


def _check_is_store(raw: sqlite3.Connection, path: Path, create: bool) -> None:
    """Refuse to migrate a database that is neither a pooltool store nor (with create) empty."""
    tables = [r[0] for r in raw.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    if not tables:
        if not create:
            raise StoreError(f"{path} is empty, not a pooltool store: create one with "
                             f"'pooltool --db {path} init'")
        return
    ours = migrations.MIGRATIONS_TABLE in tables and raw.execute(
        f"SELECT 1 FROM {migrations.MIGRATIONS_TABLE} WHERE migration_set = ?",
        [migrations.MIGRATION_SET]).fetchone()
    if not ours:
        shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        raise StoreError(f"{path} is a SQLite database of something else (tables: {shown}), "
                         "not a pooltool store; pooltool will not write into it")


def _file_is_writable(path: Path) -> bool:
    """Whether this process may open ``path`` for writing, as SQLite first tries to
    (it falls back to read-only silently; root may write a read-only file)."""
    try:
        os.close(os.open(path, os.O_RDWR))
    except PermissionError:
        return False
    except OSError:
        return True  # not a permission matter: SQLite reports it when it opens the file
    return True


def _holds_wal_writes(path: Path) -> bool:
    """Whether ``path``'s write-ahead log holds frames (writes not yet checkpointed)."""
    wal = Path(f"{path}-wal")
    return wal.exists() and wal.stat().st_size > 0


__all__ = ["SqliteEngine", "error_code", "memory_engine", "open_sqlite", "sqlite_engine", "write_failure",
           "write_lock_held"]
