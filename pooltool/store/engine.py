"""What the store needs of a database engine: the seam between the store's modules and
SQLite (:mod:`pooltool.store.sqlite`) or PostgreSQL (:mod:`pooltool.store.postgresql`).

The store's SQL is written once, in SQLite's dialect with portable constructs (``?``
placeholders, ``INSERT ... RETURNING id`` for new ids, ``ON CONFLICT``); an engine runs
it (the PostgreSQL engine rewrites the few constructs whose spelling differs). Every
difference between the engines lives behind this class, in its two implementations:

* the write lock and its wait (:meth:`Engine.begin_write`, :attr:`Engine.lock_timeout_ms`,
  :meth:`Engine.write_lock_held_elsewhere`);
* reads of one snapshot (:meth:`Engine.begin_snapshot`) and streamed reads
  (:meth:`Engine.stream`);
* bulk copies (:meth:`Engine.copy_rows`) and the schema as tables (:meth:`Engine.tables`);
* errors, raised as the store's own (:mod:`pooltool.errors`): a busy store is
  :class:`~pooltool.errors.StoreBusy`, a write the schema refuses (an append-only
  trigger, a unique or foreign key) :class:`~pooltool.errors.StoreRefused`, a lost
  connection :class:`~pooltool.errors.StoreConnectionLost`, a store that cannot be
  written (a full disk, a read-only file, a role without the privilege)
  :class:`~pooltool.errors.StoreWriteFailed`;
* noticing other connections' writes (:meth:`Engine.watcher`);
* the schema's migrations (:meth:`Engine.migrate`, :mod:`pooltool.store.migrations`).

The pattern is harlequin's one adapter per backend (``HarlequinConnection``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Protocol

from pooltool.errors import StoreError

if TYPE_CHECKING:
    import pandas as pd

    from pooltool.store.changes import ChangeWatcher


class Cursor(Protocol):
    """The rows of a statement, as :class:`sqlite3.Cursor` gives them."""

    @property
    def description(self) -> Any: ...

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def fetchmany(self, size: int = ...) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Table(NamedTuple):
    """A table of the store's schema, as the database describes it.

    :ivar columns: in the table's order.
    :ivar key: the primary key's columns (all columns when it has none).
    :ivar references: the other tables its foreign keys name.
    :ivar identity: the column whose values the database assigns (PostgreSQL), if any.
    """

    name: str
    columns: tuple[str, ...]
    key: tuple[str, ...]
    references: frozenset[str]
    identity: str | None = None


Params = Iterable[Any] | dict[str, Any]


ROWS_PER_STATEMENT = 100  # of Engine.insert_ignoring: 400 parameters; SQLite before 3.32 allows 999


class Engine(ABC):
    """A connection to a store's database, on one engine.

    :ivar name: ``"sqlite"`` or ``"postgresql"``.
    :ivar address: where the store is, for messages (a path, or a URL without password).
    :ivar read_only: the store can be read, not written (SQLite: a read-only file).
    :ivar upgraded: the migrations applied when the store was opened (none: it was
        current, or it was read as it is).
    """

    name: ClassVar[str]
    address: str
    read_only: bool = False
    upgraded: Sequence[str] = ()  # the migrations opening applied (set by the opener)

    # -- statements ---------------------------------------------------------------

    @abstractmethod
    def execute(self, sql: str, params: Params = ()) -> Cursor:
        """Run one statement (the store's dialect); its rows can be fetched."""

    @abstractmethod
    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> Cursor:
        """Run one statement for each parameter row."""

    @abstractmethod
    def executescript(self, script: str) -> None:
        """Run a script of statements as written (in this engine's own dialect)."""

    def insert_id(self, sql: str, params: Params = ()) -> int:
        """Run an ``INSERT ... RETURNING <id column>`` of one row and give the new id.

        :raises StoreError: the statement returned no row (it is not such an insert).
        """
        rows = self.execute(sql, params).fetchall()  # to the end: SQLite resets the statement
        row = rows[0] if rows else None
        if row is None or row[0] is None:
            raise StoreError(f"{self.address}: an insert returned no id ({sql[:60]}...)")
        return int(row[0])

    @abstractmethod
    def query(self, sql: str, params: Params = ()) -> pd.DataFrame:
        """The rows of a read-only query as a DataFrame (numbers as numbers)."""

    @abstractmethod
    def stream(self, sql: str, size: int) -> Iterator[tuple[Any, ...]]:
        """The rows of a query without parameters, fetched ``size`` at a time, so a
        table of millions of rows is never held whole."""

    def execute_at_commit(self, sql: str, params: Params = ()) -> None:
        """Run a statement whose result nobody reads, as the last of the write
        transaction under way: here at once; an engine with a server may send it with
        the ``COMMIT`` (one round trip less while the write lock is held). Any other
        statement run before the commit runs after it, in the order written.

        :raises StoreError: as :meth:`execute`, here or from the commit.
        """
        self.execute(sql, params)

    @abstractmethod
    def copy_rows(self, table: str, columns: Sequence[str],
                  rows: Iterable[Sequence[Any]]) -> int:
        """Append ``rows`` (values in the order of ``columns``) to ``table`` in bulk
        (triggers fire as on ``INSERT``); returns the rows written."""

    def insert_ignoring(self, table: str, fixed: dict[str, int], columns: Sequence[str],
                        values: Sequence[list[Any]]) -> None:
        """Insert rows given column by column, skipping each row whose key the table
        holds already (``INSERT OR IGNORE``); of rows with one key, the first wins.

        Here :data:`ROWS_PER_STATEMENT` rows to a statement (fewer round trips from
        Python than one row to a statement); an engine may have a bulk path of its own.

        :param fixed: columns with one value for every row (integers the store made,
            written into the statement, so that each row binds only what varies).
        :param columns: the other columns, named as ``values`` gives them.
        :param values: one list per column of ``columns``, all of one length.
        """
        width, rows = len(columns), len(values[0])
        flat: list[Any] = [None] * (width * rows)
        for position, column in enumerate(values):  # row by row: a0, b0, a1, b1, ...
            flat[position::width] = column
        names = ", ".join([*fixed, *columns])
        row = "(" + ", ".join([str(int(value)) for value in fixed.values()] + ["?"] * width) + ")"
        statement = f"INSERT OR IGNORE INTO {table}({names}) VALUES "
        per_statement = width * ROWS_PER_STATEMENT
        whole = rows // ROWS_PER_STATEMENT
        self.executemany(statement + ", ".join([row] * ROWS_PER_STATEMENT),
                         (flat[i * per_statement:(i + 1) * per_statement] for i in range(whole)))
        rest = rows - whole * ROWS_PER_STATEMENT
        if rest:
            self.execute(statement + ", ".join([row] * rest), flat[whole * per_statement:])

    @property
    @abstractmethod
    def total_changes(self) -> int:
        """Rows inserted, updated or deleted through this connection so far."""

    # -- transactions -------------------------------------------------------------

    @property
    @abstractmethod
    def in_transaction(self) -> bool:
        """Whether a transaction is open on this connection."""

    @abstractmethod
    def begin_write(self) -> None:
        """Open a write transaction holding the store's write lock, waiting at most
        :attr:`lock_timeout_ms` for another writer; the connection is left outside any
        transaction when the wait fails.

        :raises StoreBusy: another writer kept the lock longer than the wait.
        """

    @abstractmethod
    def begin_snapshot(self) -> None:
        """Open a read transaction that sees one snapshot of the store throughout."""

    @abstractmethod
    def commit(self) -> None: ...

    @abstractmethod
    def rollback(self) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    @abstractmethod
    def reconnect(self) -> None:
        """Connect again after :class:`~pooltool.errors.StoreConnectionLost` (an engine
        without a server, SQLite, has nothing to do).

        :raises StoreConnectionLost: the server still cannot be reached.
        """

    @property
    @abstractmethod
    def lock_timeout_ms(self) -> int:
        """How long a write waits for another writer's lock, in milliseconds."""

    @lock_timeout_ms.setter
    @abstractmethod
    def lock_timeout_ms(self, ms: int) -> None: ...

    @abstractmethod
    def write_lock_held_elsewhere(self) -> bool:
        """Whether another connection holds the store's write lock now."""

    @abstractmethod
    def unchecked_references(self) -> AbstractContextManager[None]:
        """Within the block, a write transaction opened there need not check foreign
        keys (for bulk writes whose references the caller checked); engines that always
        check them do."""

    @abstractmethod
    def write_failure(self, exc: BaseException, what: str) -> StoreError | None:
        """The store error a failed write stands for, saying "nothing was ``what``"
        (``None``: ``exc`` is not such a failure and is raised as it is)."""

    # -- the store around the connection ------------------------------------------

    @property
    @abstractmethod
    def journal_base(self) -> Path | None:
        """The name judging apps' journals of waiting writes go beside
        (:mod:`pooltool.store.journal`); ``None``: no journal (a store in memory)."""

    @abstractmethod
    def tables(self) -> list[Table]:
        """The schema's tables (the migrations' own bookkeeping included)."""

    @abstractmethod
    def watcher(self) -> ChangeWatcher:
        """A watcher of other connections' writes (:mod:`pooltool.store.changes`).

        :raises StoreError: it cannot be had (the server cannot be reached).
        """

    @abstractmethod
    def backup_file(self, target: Path) -> bool:
        """Write the store as a SQLite file at ``target`` (new) by the engine's own means,
        in the snapshot of the transaction open on this connection, if any.

        :returns: whether it did (``False``: the engine has no such means; copy the
            tables instead, :func:`pooltool.store.copy.copy_store`).
        """

    @abstractmethod
    def integrity_problems(self) -> list[str]:
        """What the database's own checks find wrong (pages, indexes, foreign keys), one
        line each; none: the database is whole."""

    @abstractmethod
    def pending_migrations(self) -> list[str]:
        """The migrations (:mod:`pooltool.store.migrations`) the store lacks, oldest
        first; none once it is open for writing (opening applies them)."""

    @abstractmethod
    def after_copy(self, tables: Iterable[Table]) -> None:
        """Bring what the database derives from rows (identity sequences) past rows that
        :meth:`copy_rows` wrote with their ids."""


__all__ = ["Cursor", "Engine", "Params", "Table"]
