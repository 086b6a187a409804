"""What every table module of the store shares: its engine, its transactions and its
reads (:class:`StoreCore`, the base of each of them and of
:class:`~pooltool.store.JudgmentStore`, which composes them)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pooltool.errors import StoreWriteFailed
from pooltool.store.engine import Engine

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa


class StoreCore:
    """A store's engine (:attr:`conn`) and the transactions and reads every table
    module uses. The methods one table module takes from another are declared here
    once, for the type checker (their homes: ``run_id``/``run_entries`` in
    :mod:`pooltool.store.store`, ``pool_id`` in :mod:`pooltool.store.pools`,
    ``machines`` and ``current_judgment`` in :mod:`pooltool.store.judged`, ``qrels`` in
    :mod:`pooltool.store.judgments`, ``duplicate_finding`` in
    :mod:`pooltool.store.duplicates`)."""

    def __init__(self, engine: Engine) -> None:
        self.conn = engine

    @property
    def engine(self) -> str:
        """The store's engine: ``"sqlite"`` or ``"postgresql"``."""
        return self.conn.name

    @property
    def address(self) -> str:
        """Where the store is, for messages: a path, ``:memory:``, or a URL (no password)."""
        return self.conn.address

    @property
    def read_only(self) -> bool:
        """The store can be read, not written (a read-only SQLite file or folder)."""
        return self.conn.read_only

    @property
    def path(self) -> Path | None:
        """The store's file (SQLite), else ``None``."""
        path = getattr(self.conn, "path", None)
        return path if isinstance(path, Path) else None

    @contextmanager
    def writing(self, what: str = "changed") -> Iterator[Engine]:
        """A write transaction holding the store's write lock (waiting for it),
        committed on exit, rolled back entirely on any exception, a failed ``COMMIT``
        included (so the connection is never left inside a transaction). Nested use
        joins the outer one.

        :param what: the past participle for the failure message ("nothing was
            imported"; default "changed").
        :raises StoreWriteFailed: the store cannot be written (opened read-only,
            disk full, read-only file or folder, a role without the privilege);
            nothing was written.
        :raises StoreBusy: the write lock was not had within the lock timeout.
        :raises StoreConnectionLost: the server went away; nothing was written.
        """
        if self.conn.in_transaction:
            yield self.conn
            return
        if self.read_only:
            raise StoreWriteFailed(f"{self.address}: the store can be read but not written "
                                   f"(read-only file or folder); nothing was {what}")
        try:
            self.conn.begin_write()
            try:
                yield self.conn
                self.conn.commit()
            except BaseException:
                if self.conn.in_transaction:
                    self.conn.rollback()
                raise
        except Exception as exc:
            failure = self.conn.write_failure(exc, what)
            if failure is None:
                raise
            raise failure from exc.__cause__ or exc

    def unchecked_references(self) -> AbstractContextManager[None]:
        """A write transaction opened within the block need not check foreign keys
        (SQLite; PostgreSQL always checks them), for bulk writes whose references the
        caller has checked itself."""
        return self.conn.unchecked_references()

    def set_busy_timeout(self, ms: int) -> None:
        """How long this connection waits for another writer's lock, in milliseconds
        (default :data:`~pooltool.store.store.BUSY_TIMEOUT_S`)."""
        self.conn.lock_timeout_ms = int(ms)

    @contextmanager
    def waiting(self, ms: int) -> Iterator[None]:
        """Within the block, wait at most ``ms`` milliseconds for another writer's lock;
        the connection's own wait (:meth:`set_busy_timeout`) again after it."""
        before = self.conn.lock_timeout_ms
        self.set_busy_timeout(ms)
        try:
            yield
        finally:
            self.set_busy_timeout(before)

    def query(self, sql: str, params: Iterable[Any] | dict[str, Any] = ()) -> pd.DataFrame:
        """Run a read-only SQL query and return the rows as a DataFrame (for the store's
        own modules: SQL against the store's tables lives in :mod:`pooltool.store`)."""
        return self.conn.query(sql, params)

    if TYPE_CHECKING:
        def run_id(self, tag: str) -> int: ...

        def run_entries(self, run_ids: list[int], depth: int | None = None,
                        columns: list[str] | None = None) -> list[pa.Table]: ...

        def pool_id(self, pool: str) -> int: ...

        def machines(self) -> frozenset[str]: ...

        def current_judgment(self, topic: str, docno: str) -> tuple[str, int] | None: ...

        def duplicate_finding(self, at: str | None = None) -> dict[str, Any] | None: ...

        def qrels(self, version: str | None = None, policy: str = "latest",
                  topics: Sequence[str] | None = None) -> pd.DataFrame: ...


__all__ = ["StoreCore"]
