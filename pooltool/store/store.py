"""The judgment store: a SQLite file (WAL mode) or a PostgreSQL database, reached
through an engine (:mod:`pooltool.store.engine`).

What it keeps (schema in :mod:`pooltool.store.migrations`):

* settings and the grade scale (:mod:`pooltool.store.settings`);
* topics and documents (:mod:`pooltool.store.collection`);
* runs with provenance and their entries (:mod:`pooltool.store.runs`);
* pools (:mod:`pooltool.store.pools`, :mod:`pooltool.store.adaptive`,
  :mod:`pooltool.store.samples`; see :mod:`pooltool.pooling`);
* the append-only judgment log and named qrels versions
  (:mod:`pooltool.store.judgments`), and the rules of who judged what
  (:mod:`pooltool.store.judged`); claims on shown documents
  (:mod:`pooltool.store.claims`).

Each is a module of table methods on :class:`~pooltool.store.core.StoreCore`;
:class:`JudgmentStore` composes them, as sqlite-utils' ``Database`` holds its tables.

Every import is one transaction: a bad line anywhere leaves the store as it
was. Writes take the store's write lock up front and wait up to
:data:`BUSY_TIMEOUT_S` for another writer, so several processes (two assessors) can
share a store. A write the engine refuses for want of room or permission (a full
disk, a read-only file or folder, a role without the privilege) is rolled back whole
and raised as :class:`~pooltool.errors.StoreWriteFailed`. A store that cannot be
written can still be read (see :meth:`JudgmentStore.open`).
"""

from __future__ import annotations

from pathlib import Path

from pooltool.records import is_postgresql_url
from pooltool.store.accounts import AccountTable
from pooltool.store.adaptive import AdaptiveTables
from pooltool.store.adjudications import AdjudicationTable
from pooltool.store.changes import ChangeWatcher
from pooltool.store.claims import ClaimTable
from pooltool.store.collection import CollectionTables, ImportSummary
from pooltool.store.engine import Engine
from pooltool.store.judged import JudgedRules
from pooltool.store.judgments import JudgmentLog
from pooltool.store.pools import PoolTables
from pooltool.store.postgresql import open_postgresql
from pooltool.store.provenance import utc_now
from pooltool.store.runs import RunTables
from pooltool.store.samples import SampleTables
from pooltool.store.settings import GradeLevel, SettingsTable
from pooltool.store.sqlite import memory_engine, open_sqlite

BUSY_TIMEOUT_S = 30.0


class JudgmentStore(SettingsTable, CollectionTables, RunTables, JudgmentLog, JudgedRules,
                    PoolTables, ClaimTable, SampleTables, AdaptiveTables, AdjudicationTable,
                    AccountTable):
    """A pooltool store.

    Open one with :meth:`open` (a file or a PostgreSQL URL) or :meth:`memory`
    (tests). Its methods come from one module per concern: settings and the grade
    scale (:class:`~pooltool.store.settings.SettingsTable`), topics and documents
    (:class:`~pooltool.store.collection.CollectionTables`), runs
    (:class:`~pooltool.store.runs.RunTables`), the judgment log (``record_judgment``,
    ``retract``, ``qrels``, ``import_qrels``, versions:
    :class:`~pooltool.store.judgments.JudgmentLog`), who judged what and assignments
    (:class:`~pooltool.store.judged.JudgedRules`), pools
    (:class:`~pooltool.store.pools.PoolTables`), claims on shown documents
    (:class:`~pooltool.store.claims.ClaimTable`), samples beyond a pool
    (:class:`~pooltool.store.samples.SampleTables`), adaptive pools
    (:class:`~pooltool.store.adaptive.AdaptiveTables`), adjudications
    (:class:`~pooltool.store.adjudications.AdjudicationTable`), logins of the served apps
    (:class:`~pooltool.store.accounts.AccountTable`); transactions and reads from
    :class:`~pooltool.store.core.StoreCore`.

    :param engine: an open store's engine (:func:`~pooltool.store.sqlite.open_sqlite`,
        :func:`~pooltool.store.postgresql.open_postgresql`), its schema current.
    """

    @classmethod
    def open(cls, path: str | Path, create: bool = False,
             upgrade: bool | None = None) -> JudgmentStore:
        """Open the store at ``path``.

        An older store's schema (:mod:`pooltool.store.migrations`) is upgraded on open
        (:attr:`upgraded` names what was applied) as ``upgrade`` says: ``None`` (the
        default) upgrades a SQLite store and leaves a PostgreSQL store to its owner's
        ``pooltool store upgrade`` (assessors on an older pooltool keep judging until
        then); ``False`` never upgrades (read commands); ``True`` upgrades either. A store
        not upgraded is used as it is when it lacks only migrations reading does not
        need, and refused otherwise, saying how to upgrade it.

        A store this process cannot write (a read-only file, or a file in a
        read-only folder, where SQLite cannot create the ``-wal`` and ``-shm``
        files it needs) is opened read-only (:attr:`read_only`): reading
        works, and any write raises :class:`~pooltool.errors.StoreWriteFailed`.
        In a read-only folder the file is opened as ``immutable`` (no locking:
        SQLite trusts that nobody writes it meanwhile, which the folder's
        permissions make likely), unless a ``-wal`` file there holds writes
        that only a writer can fold back into the store.

        :param create: create the store when the file is missing or empty;
            otherwise that is an error (so a typo in ``--db`` does not make an
            empty store). An existing SQLite database that is not a pooltool
            store is never written to.
        :raises StoreError: the file is missing or empty (and ``create`` is
            false), cannot be opened, is not a SQLite database, or is another
            application's database; or it cannot be written and cannot be read
            without writing (the message says why).
        :raises StoreWriteFailed: ``create`` and the store cannot be written.

        ``path`` may also be a PostgreSQL URL (``postgresql://USER@HOST:PORT/DB``):
        the store is then that database (see :mod:`pooltool.store.postgresql`; with
        ``create``, an empty database gets the schema).
        """
        if is_postgresql_url(path):
            engine: Engine = open_postgresql(str(path), create, utc_now(), bool(upgrade))
            engine.lock_timeout_ms = int(BUSY_TIMEOUT_S * 1000)
            return cls(engine)
        return cls(open_sqlite(Path(path), create, BUSY_TIMEOUT_S, upgrade is not False))

    @property
    def upgraded(self) -> list[str]:
        """The migrations opening the store applied (none: it was current or read as it is)."""
        return list(self.conn.upgraded)

    @classmethod
    def memory(cls) -> JudgmentStore:
        """A new store in memory (for tests and one-off analyses)."""
        return cls(memory_engine())

    def write_lock_held_elsewhere(self) -> bool:
        """Whether another connection holds this store's write lock now (``False`` in
        memory)."""
        return self.conn.write_lock_held_elsewhere()

    @property
    def journal_base(self) -> Path | None:
        """The name judging apps' journals of waiting writes go beside
        (:mod:`pooltool.store.journal`): the store file, a local name for a PostgreSQL
        store (:func:`~pooltool.store.postgresql_connection.journal_base`), ``None`` in memory."""
        return self.conn.journal_base

    def watch_changes(self) -> ChangeWatcher:
        """A watcher of other connections' writes (:mod:`pooltool.store.changes`):
        ``PRAGMA data_version`` on SQLite, ``LISTEN`` on a connection of its own on
        PostgreSQL.

        :raises StoreError: the PostgreSQL server cannot be reached.
        """
        return self.conn.watcher()

    def reconnect(self) -> None:
        """Connect to the store's server again, after
        :class:`~pooltool.errors.StoreConnectionLost` (nothing to do on SQLite).

        :raises StoreConnectionLost: the server still cannot be reached.
        """
        self.conn.reconnect()

    def close(self) -> None:
        """Close the connection (everything is already committed)."""
        self.conn.close()

    def __enter__(self) -> JudgmentStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_store(address: str | Path) -> JudgmentStore:
    """Open an existing store to read from Python (``pooltool.open_store``), as the
    commands that only read open it: never upgraded, never created.

    Its tables as DataFrames: :meth:`~JudgmentStore.pools` and
    :meth:`~JudgmentStore.pool_docs` (pools), :meth:`~JudgmentStore.judgment_log`
    (every judgment and retraction), :meth:`~JudgmentStore.versions` and
    :meth:`~JudgmentStore.qrels` (qrels versions), :meth:`~JudgmentStore.runs`,
    :meth:`~JudgmentStore.topics`, :meth:`~JudgmentStore.assessor_kinds`.

    :param address: a SQLite file or a ``postgresql://`` URL.
    :returns: the store; close it (or use it in a ``with`` block) when done.
    :raises StoreError: no store there, a damaged one, or one made by a newer pooltool.
    """
    return JudgmentStore.open(address, upgrade=False)


__all__ = ["BUSY_TIMEOUT_S", "GradeLevel", "ImportSummary", "JudgmentStore", "open_store"]
