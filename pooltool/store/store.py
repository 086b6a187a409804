"""The judgment store: one SQLite file (WAL mode) reached through sqlite-utils.

What it keeps (schema in :mod:`pooltool.store.migrations`):

* topics and documents, each import recorded in ``imports``;
* runs with provenance (tag, source path, sha256, lines, import time) and their
  entries, in trec_eval order (:func:`pooltool.ranking.order_table`), as one
  compressed Arrow IPC blob per run (:mod:`pooltool.store.run_columns`),
  written in the same transaction. A run is never changed or deleted: a
  replaced or removed run is *retired* (``run_retirements``) and stays readable,
  so each pooling round still names the runs and file hashes that built it
  (``pool_round_runs``); the *live* runs are the ones not retired;
* pools (see :mod:`pooltool.pooling`);
* the append-only judgment log and named qrels versions (see
  :mod:`pooltool.store.judgments`).

Every import is one transaction: a bad line anywhere leaves the store as it
was. Writes take SQLite's write lock up front (``BEGIN IMMEDIATE``) and wait
up to :data:`BUSY_TIMEOUT_S` for another writer, so several processes (two
assessors) can share a store. A write that SQLite refuses for want of room or
permission (a full disk, a read-only file or folder) is rolled back whole and
raised as :class:`~pooltool.errors.StoreWriteFailed`. A store that cannot be
written can still be read (see :meth:`JudgmentStore.open`).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from sqlite_utils import Database

from pooltool.errors import (
    DuplicateRunTag,
    InvalidArgument,
    RunInPool,
    StoreError,
    StoreWriteFailed,
    UnknownRun,
    UnknownTopic,
)
from pooltool.formats.frames import check_run_frame
from pooltool.formats.run import plain_run_bytes, read_run, run_table
from pooltool.ranking import order_table
from pooltool.records import RUN_COLUMNS, Document, Topic, is_postgresql_url
from pooltool.store import migrations, run_columns
from pooltool.store.adaptive import AdaptiveTables
from pooltool.store.claims import ClaimTable
from pooltool.store.judged import JudgedRules
from pooltool.store.judgments import JudgmentLog
from pooltool.store.pools import PoolTables
from pooltool.store.postgresql import (
    PostgresConnection,
    RoleRefused,
    journal_base,
    open_store_database,
    shown_url,
)
from pooltool.store.provenance import bytes_sha256, file_sha256, utc_now
from pooltool.store.samples import SampleTables
from pooltool.store.topic_check import OnUnknownTopics, UnknownTopics, check_topics

BUSY_TIMEOUT_S = 30.0
_FILES_IN_FLIGHT = 2  # run files read and packed ahead, one thread each, while one is stored


class GradeLevel(NamedTuple):
    """One grade of the store's scale: the integer written to qrels, its key and name."""

    grade: int
    key: str
    name: str


DEFAULT_GRADE_SCALE = [
    GradeLevel(0, "0", "not relevant"),
    GradeLevel(1, "1", "related"),
    GradeLevel(2, "2", "highly relevant"),
    GradeLevel(3, "3", "perfectly relevant"),
]


@dataclass(frozen=True)
class ImportSummary:
    """What an import did: records read from the source, stored, and skipped as present."""

    source: str
    read: int
    added: int

    @property
    def skipped(self) -> int:
        """Records already in the store (identical), so not stored again."""
        return self.read - self.added


class JudgmentStore(JudgmentLog, JudgedRules, PoolTables, ClaimTable, SampleTables,
                    AdaptiveTables):
    """A pooltool store.

    Open one with :meth:`open` (a file) or :meth:`memory` (tests). The
    judgment-log methods (``record_judgment``, ``retract``, ``qrels``,
    ``import_qrels``, versions) come from
    :class:`~pooltool.store.judgments.JudgmentLog`; who judged what and
    assignments from :class:`~pooltool.store.judged.JudgedRules`; pools from
    :class:`~pooltool.store.pools.PoolTables`; claims on shown documents from
    :class:`~pooltool.store.claims.ClaimTable`; samples beyond a pool from
    :class:`~pooltool.store.samples.SampleTables`; adaptive pools from
    :class:`~pooltool.store.adaptive.AdaptiveTables`.

    :param conn: an open SQLite connection; the schema is brought up to date.
    :param read_only: ``conn`` was opened read-only (see :meth:`open`): the schema
        must already be current, and :meth:`writing` refuses at once.
    :raises StoreError: ``read_only`` and the schema is older than this pooltool's.
    """

    def __init__(self, conn: sqlite3.Connection | PostgresConnection, path: Path | None = None,
                 read_only: bool = False) -> None:
        self.path = path
        self.conn = conn  # type: ignore[assignment]  # a PostgresConnection speaks as sqlite3's
        self.read_only = read_only
        if isinstance(conn, PostgresConnection):
            self.engine = "postgresql"
            self.address = shown_url(conn.url)
            return
        self.engine = "sqlite"
        self.address = str(path or ":memory:")
        db = Database(conn)
        if path is not None and not read_only:
            db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA foreign_keys=ON")
        if read_only:
            _check_schema_is_current(db, path)
        else:
            migrations.apply(db)

    @classmethod
    def open(cls, path: str | Path, create: bool = False) -> JudgmentStore:
        """Open the store at ``path``.

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
            store = cls(open_store_database(str(path), create, utc_now()))
            store.set_busy_timeout(int(BUSY_TIMEOUT_S * 1000))
            return store
        path = Path(path)
        if not create and not path.exists():
            raise StoreError(
                f"no store at {path}: create one with 'pooltool --db {path} init'"
            )
        if not create and not _file_is_writable(path):
            return cls._open_read_only(path, "this process may not write the file")
        try:
            conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open a store at {path}: {exc}") from exc
        try:
            _check_is_store(conn, path, create)
            return cls(conn, path)
        except sqlite3.DatabaseError as exc:
            conn.close()
            failure = _write_failure(exc, path, "changed")
            if failure is not None and (create or _error_code(exc) == _SQLITE_FULL):
                raise failure from exc
            if not create and _error_code(exc) in (_SQLITE_READONLY, _SQLITE_CANTOPEN):
                return cls._open_read_only(path, str(exc))
            raise StoreError(f"{path} is not a pooltool store: {exc}") from exc
        except StoreError:
            conn.close()
            raise

    @classmethod
    def _open_read_only(cls, path: Path, cause: str) -> JudgmentStore:
        """Open a store that cannot be written (``cause``: why the normal open failed)."""
        uri = path.resolve().as_uri()
        tried = []
        for query in ("mode=ro", "immutable=1"):
            if query == "immutable=1" and _holds_wal_writes(path):
                raise StoreError(
                    f"{path}: cannot be read without writing ({cause}): its folder is "
                    f"read-only and {path}-wal holds writes not yet folded into the store; "
                    "make the folder writable and open the store once")
            conn = sqlite3.connect(f"{uri}?{query}", uri=True, timeout=BUSY_TIMEOUT_S)
            try:
                _check_is_store(conn, path, create=False)
                return cls(conn, path, read_only=True)
            except sqlite3.DatabaseError as exc:
                conn.close()
                tried.append(f"{query}: {exc}")
            except StoreError:
                conn.close()
                raise
        raise StoreError(f"{path}: cannot be written ({cause}) nor read read-only "
                         f"({'; '.join(tried)})")

    @classmethod
    def memory(cls) -> JudgmentStore:
        """A new store in memory (for tests and one-off analyses)."""
        return cls(sqlite3.connect(":memory:"))

    def write_lock_held_elsewhere(self) -> bool:
        """Whether another connection holds this store's write lock now (PostgreSQL:
        :meth:`~pooltool.store.postgresql.PostgresConnection.write_lock_held_elsewhere`;
        SQLite: :func:`write_lock_held` on the file, ``False`` in memory)."""
        if isinstance(self.conn, PostgresConnection):
            return self.conn.write_lock_held_elsewhere()
        return self.path is not None and write_lock_held(self.path)

    @property
    def journal_base(self) -> Path | None:
        """The name judging apps' journals of waiting writes go beside
        (:mod:`pooltool.store.journal`): the store file, a local name for a PostgreSQL
        store (:func:`~pooltool.store.postgresql.journal_base`), ``None`` in memory."""
        if isinstance(self.conn, PostgresConnection):
            return journal_base(self.conn.url)
        return self.path

    def close(self) -> None:
        """Close the connection (everything is already committed)."""
        self.conn.close()

    def __enter__(self) -> JudgmentStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def writing(self, what: str = "changed") -> Iterator[sqlite3.Connection]:
        """A write transaction: taken with ``BEGIN IMMEDIATE``, committed on exit,
        rolled back entirely on any exception, a failed ``COMMIT`` included (so the
        connection is never left inside a transaction). Nested use joins the outer one.

        :param what: the past participle for the failure message ("nothing was
            imported"; default "changed").
        :raises StoreWriteFailed: the store cannot be written (opened read-only,
            disk full, read-only file or folder); nothing was written.
        :raises sqlite3.OperationalError: the write lock was not had within the busy
            timeout ("database is locked").
        """
        if self.conn.in_transaction:
            yield self.conn
            return
        if self.read_only:
            raise StoreWriteFailed(f"{self.path}: the store can be read but not written "
                                   f"(read-only file or folder); nothing was {what}")
        try:
            self._begin_write()
            try:
                yield self.conn
                self.conn.commit()
            except BaseException:
                if self.conn.in_transaction:
                    self.conn.rollback()
                raise
        except RoleRefused as exc:
            raise exc.saying(what) from exc.__cause__
        except sqlite3.OperationalError as exc:
            failure = _write_failure(exc, self.path, what)
            if failure is None:
                raise
            raise failure from exc

    @contextmanager
    def unchecked_references(self) -> Iterator[None]:
        """SQLite: a write transaction opened within the block does not check foreign
        keys (``PRAGMA foreign_keys=OFF``, which SQLite takes only outside a
        transaction: within one, the block changes nothing), for bulk writes whose
        references the caller has checked itself (the checks are a quarter of the
        cost of writing a pool's rows). PostgreSQL always checks them."""
        if isinstance(self.conn, PostgresConnection) or self.conn.in_transaction:
            yield
            return
        self.conn.execute("PRAGMA foreign_keys=OFF")
        try:
            yield
        finally:
            self.conn.execute("PRAGMA foreign_keys=ON")

    def _begin_write(self) -> None:
        """Open a write transaction holding the store's write lock (waiting for it)."""
        if isinstance(self.conn, PostgresConnection):
            self.conn.begin_write()
        else:
            self.conn.execute("BEGIN IMMEDIATE")

    def set_busy_timeout(self, ms: int) -> None:
        """How long this connection waits for another writer's lock, in milliseconds
        (default :data:`BUSY_TIMEOUT_S`)."""
        if isinstance(self.conn, PostgresConnection):
            self.conn.lock_timeout_ms = int(ms)
        else:
            self.conn.execute(f"PRAGMA busy_timeout = {int(ms)}")

    @contextmanager
    def waiting(self, ms: int) -> Iterator[None]:
        """Within the block, wait at most ``ms`` milliseconds for another writer's lock;
        the connection's own wait (:meth:`set_busy_timeout`) again after it."""
        if isinstance(self.conn, PostgresConnection):
            before = self.conn.lock_timeout_ms
        else:
            before = int(self.conn.execute("PRAGMA busy_timeout").fetchone()[0])
        self.set_busy_timeout(ms)
        try:
            yield
        finally:
            self.set_busy_timeout(before)

    def query(self, sql: str, params: Iterable[Any] | dict[str, Any] = ()) -> pd.DataFrame:
        """Run a read-only SQL query and return the rows as a DataFrame (for the store's
        own modules: SQL against the store's tables lives in :mod:`pooltool.store`)."""
        if isinstance(self.conn, PostgresConnection):
            cursor = self.conn.execute(sql, params)
            columns = [column.name for column in cursor.description or []]
            return pd.DataFrame.from_records(cursor.fetchall(), columns=columns,
                                             coerce_float=True)
        return pd.read_sql_query(sql, self.conn, params=params)

    # -- settings -----------------------------------------------------------

    def setting(self, key: str, default: Any = None) -> Any:
        """A store setting (JSON value), or ``default`` when unset."""
        row = self.conn.execute("SELECT value FROM settings WHERE key = ?", [key]).fetchone()
        return default if row is None else json.loads(row[0])

    def set_setting(self, key: str, value: Any) -> None:
        """Set a store setting (any JSON-serialisable value)."""
        with self.writing() as conn:
            conn.execute(
                "INSERT INTO settings(key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [key, json.dumps(value)],
            )

    def grade_scale(self) -> list[GradeLevel]:
        """The grades assessors can give, with their keys and names (default 0-3)."""
        stored = self.setting("grade_scale")
        if stored is None:
            return list(DEFAULT_GRADE_SCALE)
        return [GradeLevel(int(g), str(k), str(n)) for g, k, n in stored]

    def set_grade_scale(self, scale: list[GradeLevel]) -> None:
        """Replace the grade scale.

        :raises StoreError: see :func:`check_grade_scale`. A key that a judging
            command uses is refused by ``pooltool grades set`` and when the
            judging app starts (the store does not know the app's keys).
        """
        scale = [GradeLevel(*level) for level in scale]
        check_grade_scale(scale)
        self.set_setting("grade_scale", [list(level) for level in scale])

    # -- topics and documents ------------------------------------------------

    def add_topics(self, topics: Iterable[Topic], source: str) -> ImportSummary:
        """Store topic statements (one transaction).

        A topic already stored with the same text is skipped; with a different
        text it is an error (topics are never overwritten in place).

        :raises StoreError: a topic id already holds a different statement.
        """
        rows = list(topics)
        with self.writing("imported") as conn:
            import_id = self._record_import(conn, "topics", source, len(rows))
            added = sum(self._add_topic(conn, t, import_id, source) for t in rows)
            conn.execute("UPDATE imports SET added = ? WHERE import_id = ?", [added, import_id])
        return ImportSummary(source, len(rows), added)

    def _add_topic(self, conn: sqlite3.Connection, topic: Topic, import_id: int,
                   source: str) -> bool:
        old = conn.execute(
            "SELECT title, description, narrative FROM topics WHERE topic = ?", [topic.topic]
        ).fetchone()
        if old is not None:
            if tuple(old) != tuple(topic[1:]):
                raise StoreError(
                    f"{source}: topic {topic.topic!r} is already stored with a different "
                    "statement (topics are never overwritten; nothing was imported)"
                )
            return False
        conn.execute("INSERT INTO topics VALUES (?, ?, ?, ?, ?)", [*topic, import_id])
        return True

    def add_documents(self, documents: Iterable[Document], source: str) -> ImportSummary:
        """Store documents for the judging UI (one transaction, streamed).

        A docno already stored keeps its first text; the new copy is counted
        as skipped.
        """
        with self.writing("imported") as conn:
            import_id = self._record_import(conn, "documents", source, 0)
            read = 0
            before = conn.total_changes
            for batch in _batches(documents, 5000):
                read += len(batch)
                conn.executemany(
                    "INSERT OR IGNORE INTO documents VALUES (?, ?, ?, ?)",
                    [(*doc, import_id) for doc in batch],
                )
            added = conn.total_changes - before
            conn.execute(
                "UPDATE imports SET lines = ?, added = ? WHERE import_id = ?",
                [read, added, import_id],
            )
        return ImportSummary(source, read, added)

    def topics(self) -> pd.DataFrame:
        """All topics: columns ``topic, title, description, narrative``."""
        return self.query("SELECT topic, title, description, narrative FROM topics ORDER BY topic")

    def topic(self, topic: str) -> Topic:
        """One topic statement.

        :raises UnknownTopic: no such topic in the store.
        """
        row = self.conn.execute(
            "SELECT topic, title, description, narrative FROM topics WHERE topic = ?", [topic]
        ).fetchone()
        if row is None:
            raise UnknownTopic(f"no topic {topic!r} in the store")
        return Topic(*row)

    def document(self, docno: str) -> Document | None:
        """A document's text, or ``None`` when the store has no text for it."""
        row = self.conn.execute(
            "SELECT docno, title, text FROM documents WHERE docno = ?", [docno]
        ).fetchone()
        return None if row is None else Document(*row)

    def _record_import(self, conn: sqlite3.Connection, kind: str, source: str, lines: int) -> int:
        path = Path(source)
        sha = file_sha256(path) if path.is_file() else ""
        cursor = conn.execute(
            "INSERT INTO imports(kind, source_path, sha256, lines, added, imported_at) "
            "VALUES (?, ?, ?, ?, 0, ?)",
            [kind, source, sha, lines, utc_now()],
        )
        return int(cursor.lastrowid or 0)

    # -- runs ----------------------------------------------------------------

    def add_runs(self, paths: str | Path | Iterable[str | Path], *,
                 replace: bool = False, force: bool = False,
                 strict_topics: bool = False,
                 on_unknown_topics: OnUnknownTopics | None = None) -> pd.DataFrame:
        """Import run files (one path or several), all in one transaction.

        Each file may hold several run tags; each tag becomes one run. Entries
        are stored with their trec_eval rank (score desc, docno desc).

        :param replace: a tag that has a live run already gets the new run; the
            old one is retired (kept, with its provenance, as replaced).
        :param force: with ``replace``, also replace a run that built a pool
            (the pool keeps its documents; its rounds still name the old run).
        :param strict_topics: refuse files with topics the store does not hold
            (when it holds topics; see :mod:`pooltool.store.topic_check`).
        :param on_unknown_topics: called after the import, once per file with
            such topics (when not ``strict_topics``).
        :returns: one row per run added: ``run_tag, source_path, lines, topics``.
        :raises FormatError: a malformed line (nothing is imported).
        :raises StoreError: a run tag already in the store (without
            ``replace``) or repeated across the files (nothing is imported).
        :raises RunInPool: ``replace`` without ``force`` of a run that built a
            pool (nothing is imported).
        :raises UnknownTopic: ``strict_topics`` and a file has unknown topics
            (nothing is imported).
        """
        if isinstance(paths, (str, Path)):
            paths = [paths]
        paths = list(paths)
        threads = len(paths) == 1  # several files: one reader thread each is enough

        def load(path: Path) -> tuple[list[tuple[str, run_columns.RunBlob]], str]:
            """A file's runs, each packed in trec_eval order, and the file's sha256."""
            runs, sha = _file_runs(path, threads)
            return [(tag, run_columns.pack(run)) for tag, run in runs], sha

        def store(path: str | Path,
                  loading: Future[tuple[list[tuple[str, run_columns.RunBlob]], str]]) -> None:
            runs, sha = loading.result()
            file_topics = set().union(*(run.topic_names for _, run in runs))
            found = check_topics(conn, file_topics, str(path), strict_topics)
            if found is not None:
                unknown.append(found)
            for tag, run in runs:
                earlier = [a["source_path"] for a in added if a["run_tag"] == tag]
                if earlier:
                    raise DuplicateRunTag(f"{path}: run tag {tag!r} is also in {earlier[0]}; "
                                     "nothing was imported")
                added.append(self._add_run(conn, tag, run, str(path), sha,
                                           replace=replace, force=force))

        added: list[dict[str, Any]] = []
        unknown: list[UnknownTopics] = []
        # Worker threads read and order the next files while this thread stores one (Arrow
        # lets go of the GIL); at most _FILES_IN_FLIGHT files are held at a time. Only this
        # thread uses ``conn``; files are stored in the order given, so errors come in
        # that order too.
        with self.writing("imported") as conn, \
                ThreadPoolExecutor(max_workers=_FILES_IN_FLIGHT) as reader:
            waiting: deque[tuple[str | Path,
                                 Future[tuple[list[tuple[str, run_columns.RunBlob]], str]]]]
            waiting = deque()
            for path in paths:
                waiting.append((path, reader.submit(load, Path(path))))
                if len(waiting) == _FILES_IN_FLIGHT:
                    store(*waiting.popleft())
            while waiting:
                store(*waiting.popleft())
        if on_unknown_topics is not None:
            for found in unknown:
                on_unknown_topics(found)
        return pd.DataFrame(added, columns=["run_tag", "source_path", "lines", "topics"])

    def add_run_frame(self, frame: pd.DataFrame, source: str = "<api>") -> pd.DataFrame:
        """Import runs given as a DataFrame (columns as :func:`read_run` returns).

        :returns: as :meth:`add_runs`.
        :raises FrameError: the frame breaks the run contract
            (:func:`~pooltool.formats.frames.check_run_frame`); nothing is imported.
        :raises DuplicateRunTag: a run tag already in the store.
        """
        check_run_frame(frame, with_rank=True, unique_docnos=True)
        with self.writing("imported") as conn:
            rows = [self._add_run(conn, str(tag), run_columns.pack(_ordered_table(entries)),
                                  source, "")
                    for tag, entries in frame.groupby("run_tag", sort=False)]
        return pd.DataFrame(rows, columns=["run_tag", "source_path", "lines", "topics"])

    def _add_run(self, conn: sqlite3.Connection, tag: str, run: run_columns.RunBlob,
                 source: str, sha: str, replace: bool = False,
                 force: bool = False) -> dict[str, Any]:
        """Store one run: its provenance row and its entries' blob; ``replace``,
        ``force``: as :meth:`add_runs`."""
        old = conn.execute(
            "SELECT run_id, source_path, imported_at FROM live_runs WHERE run_tag = ?", [tag]
        ).fetchone()
        if old is not None and not replace:
            raise DuplicateRunTag(
                f"{source}: run tag {tag!r} is already in the store "
                f"(imported from {old[1]} at {old[2]})"
            )
        if old is not None and not force:
            _check_not_pooled(conn, int(old[0]), f"{source}: replacing run {tag!r}", "imported")
        cursor = conn.execute(
            "INSERT INTO runs(run_tag, source_path, sha256, lines, topics, imported_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [tag, source, sha, run.lines, len(run.topic_names), utc_now()],
        )
        run_id = int(cursor.lastrowid or 0)
        conn.execute(
            "INSERT INTO run_columns(run_id, format, lines, sha256, source_sha256, entries) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [run_id, run_columns.FORMAT, run.lines, run.sha256, sha, run.blob])
        if old is not None:
            conn.execute("INSERT INTO run_retirements(run_id, replaced_by, retired_at) "
                         "VALUES (?, ?, ?)", [old[0], run_id, utc_now()])
        return {"run_tag": tag, "source_path": source, "lines": run.lines,
                "topics": len(run.topic_names)}

    def remove_run(self, tag: str, *, force: bool = False) -> dict[str, Any]:
        """Retire the live run ``tag``: it leaves the runs that pooling, ``runs()``
        and run lookups see, and stays in :meth:`run_history` with its entries.

        :param force: also remove a run that built a pool (the pool keeps its
            documents; its rounds still name the run and its file's sha256).
        :returns: the removed run's ``run_tag, source_path, sha256, imported_at``.
        :raises UnknownRun: no live run with this tag.
        :raises RunInPool: the run built a pool and ``force`` is false.
        """
        with self.writing() as conn:
            run_id = self.run_id(tag)
            if not force:
                _check_not_pooled(conn, run_id, f"removing run {tag!r}", "changed")
            conn.execute("INSERT INTO run_retirements(run_id, replaced_by, retired_at) "
                         "VALUES (?, NULL, ?)", [run_id, utc_now()])
            row = conn.execute("SELECT run_tag, source_path, sha256, imported_at FROM runs "
                               "WHERE run_id = ?", [run_id]).fetchone()
        return dict(zip(["run_tag", "source_path", "sha256", "imported_at"], row, strict=True))

    def runs(self) -> pd.DataFrame:
        """Live runs' provenance: ``run_tag, source_path, sha256, lines, topics,
        imported_at``, in import order."""
        return self.query(
            "SELECT run_tag, source_path, sha256, lines, topics, imported_at FROM live_runs "
            "ORDER BY run_id"
        )

    def run_history(self) -> pd.DataFrame:
        """Every run ever stored, live, replaced or removed, in import order.

        :returns: columns ``run_id, run_tag, source_path, sha256, lines, topics,
            imported_at``; ``status`` (``live``, ``replaced`` or ``removed``);
            ``retired_at`` (UTC, ISO 8601; empty while live); ``pooled_in``, the
            pooling rounds that used the run as ``POOL:ROUND`` separated by
            spaces (empty: none).
        """
        return self.query(
            "SELECT r.run_id, r.run_tag, r.source_path, r.sha256, r.lines, r.topics, "
            "r.imported_at, CASE WHEN t.run_id IS NULL THEN 'live' "
            "WHEN t.replaced_by IS NULL THEN 'removed' ELSE 'replaced' END AS status, "
            "COALESCE(t.retired_at, '') AS retired_at, "
            "COALESCE((SELECT group_concat(used, ' ') FROM (SELECT p.name || ':' || x.round_id "
            "AS used FROM pool_round_runs x JOIN pool_rounds o USING (round_id) JOIN pools p "
            "USING (pool_id) WHERE x.run_id = r.run_id ORDER BY x.round_id) AS uses), '') AS pooled_in "
            "FROM runs r LEFT JOIN run_retirements t USING (run_id) ORDER BY r.run_id")

    def run_tags(self) -> list[str]:
        """The tags of the live runs, in import order."""
        return [r[0] for r in self.conn.execute("SELECT run_tag FROM live_runs ORDER BY run_id")]

    def has_run(self, tag: str) -> bool:
        """Whether a live run has this tag."""
        return self.conn.execute(
            "SELECT 1 FROM live_runs WHERE run_tag = ?", [tag]).fetchone() is not None

    def run_id(self, tag: str) -> int:
        """The store's id of the live run with this tag.

        :raises UnknownRun: no live run with this tag.
        """
        row = self.conn.execute("SELECT run_id FROM live_runs WHERE run_tag = ?",
                                [tag]).fetchone()
        if row is None:
            known = ", ".join(self.run_tags()) or "none"
            raise UnknownRun(f"no run tagged {tag!r} in the store (runs: {known})")
        return int(row[0])

    def run_frame(self, tag: str) -> pd.DataFrame:
        """A stored run, as :func:`~pooltool.formats.run.read_run` would return it.

        :returns: columns ``run_tag, topic, docno, rank, score`` plus
            ``trec_rank``, topics in string order, each in trec_eval order.
        :raises UnknownRun: no run with this tag.
        """
        entries = self.run_entries([self.run_id(tag)])[0]
        frame = pd.DataFrame({
            "run_tag": pd.Series([tag] * entries.num_rows, dtype=object),
            "topic": pd.Series(pc.cast(entries["topic"], pa.string()).to_numpy(), dtype=object),
            "docno": pd.Series(entries["docno"].to_numpy(), dtype=object),
            **{name: entries[name].to_numpy() for name in ("rank", "score", "trec_rank")}})
        return frame[RUN_COLUMNS + ["trec_rank"]]

    def iter_run_tables(self, tags: list[str]) -> Iterator[pa.Table]:
        """Live runs as :func:`~pooltool.formats.run.run_table` reads run files, one
        table per tag, decoded one at a time as they are asked for: ``topic`` and
        ``run_tag`` (dictionaries of strings), ``docno`` (string), ``rank`` (int64),
        ``score`` (float64); topics in string order, each in trec_eval order.

        :raises UnknownRun: a tag of no live run (before any table is given).
        """
        run_ids = [self.run_id(tag) for tag in tags]
        for tag, run_id in zip(tags, run_ids, strict=True):
            entries = self.run_entries([run_id])[0]
            run_tag = pa.DictionaryArray.from_arrays(
                pa.array(np.zeros(entries.num_rows, dtype=np.int32)),
                pa.array([tag], pa.string()))
            yield entries.drop_columns(["trec_rank"]).append_column("run_tag", run_tag)

    def run_entries(self, run_ids: list[int], depth: int | None = None,
                    columns: list[str] | None = None) -> list[pa.Table]:
        """The entries of stored runs (live or retired), in the order of ``run_ids``:
        :func:`pooltool.store.run_columns.decode`'s columns (only ``columns`` when
        given; ``topic`` always) plus ``trec_rank`` (int64), only the first ``depth``
        per topic when ``depth`` is given. Blobs are decoded (their sha256 checked,
        and cut to ``depth``) in threads, a few at a time: a blob is read from the
        store only when a thread is about to be free for it, so that the blobs
        (compressed, 11 MB for a run of a million lines) are not all held at once.

        :raises UnknownRun: an id of no run.
        :raises StoreError: a blob that does not match its sha256.
        """
        def stored(run_id: int) -> tuple[bytes, str, str]:
            row = self.conn.execute("SELECT entries, sha256 FROM run_columns WHERE run_id = ?",
                                    [run_id]).fetchone()
            if row is None:
                raise UnknownRun(f"no run with id {run_id} in the store")
            return row[0], row[1], f"run {run_id}"

        def read(blob: bytes, sha256: str, what: str) -> pa.Table:
            return run_columns.with_trec_ranks(run_columns.decode(blob, sha256, what, columns),
                                               depth)

        threads = min(len(run_ids), os.cpu_count() or 1)
        if threads < 2:
            return [read(*stored(run_id)) for run_id in run_ids]
        tables: list[pa.Table] = []
        with ThreadPoolExecutor(max_workers=threads) as pool:
            waiting: deque[Future[pa.Table]] = deque()
            for run_id in run_ids:  # only this thread uses the connection
                waiting.append(pool.submit(read, *stored(run_id)))
                if len(waiting) > threads:
                    tables.append(waiting.popleft().result())
            tables += [future.result() for future in waiting]
        return tables


def _check_not_pooled(conn: sqlite3.Connection, run_id: int, doing: str, what: str) -> None:
    """Refuse to retire a run that built a pool (``doing``: what was asked, for the
    message; ``what``: the past participle for "nothing was ...").

    :raises RunInPool: the run was pooled in some round.
    """
    pooled = conn.execute(
        "SELECT p.name, group_concat(x.round_id, ', ') FROM pool_round_runs x "
        "JOIN pool_rounds o USING (round_id) JOIN pools p USING (pool_id) "
        "WHERE x.run_id = ? GROUP BY p.pool_id ORDER BY p.pool_id", [run_id]).fetchall()
    if pooled:
        built = "; ".join(f"pool {name!r} (round {rounds})" for name, rounds in pooled)
        raise RunInPool(f"{doing}, which built {built}, changes which runs the pool stands "
                        f"for; nothing was {what}")


def check_grade_scale(scale: list[GradeLevel]) -> None:
    """Refuse a grade scale that cannot be used.

    A scale needs at least one grade; grades are distinct integers >= 0 (a
    negative grade is "unjudged" to trec_eval and to the judging queue, so a
    document given it would never leave the queue); keys are distinct single
    printable, non-space characters.

    :raises StoreError: with the reason.
    """
    if not scale:
        raise InvalidArgument("a grade scale needs at least one grade")
    grades = [level.grade for level in scale]
    if any(isinstance(g, bool) or not isinstance(g, int) for g in grades):
        raise InvalidArgument("grades must be integers")
    if len(set(grades)) != len(grades):
        raise InvalidArgument("a grade scale needs distinct grades")
    negative = [str(g) for g in grades if g < 0]
    if negative:
        raise InvalidArgument(f"negative grade(s) {', '.join(negative)}: trec_eval reads a negative "
                         "grade as unjudged, so the document would stay in the judging queue; "
                         "use grades >= 0")
    keys = [level.key for level in scale]
    bad = [k for k in keys if not isinstance(k, str) or len(k) != 1 or not k.isprintable()
           or k.isspace()]
    if bad:
        raise InvalidArgument(f"grade keys must be single printable characters, not "
                         f"{', '.join(map(repr, bad))}")
    if len(set(keys)) != len(keys):
        raise InvalidArgument("a grade scale needs distinct keys")


_SQLITE_READONLY = 8
_SQLITE_FULL = 13
_SQLITE_CANTOPEN = 14  # also: a -wal file but no -shm, in a folder SQLite cannot write


def _error_code(exc: sqlite3.DatabaseError) -> int:
    """The primary SQLite result code of an error (extended codes folded), 0 if unknown."""
    return int(getattr(exc, "sqlite_errorcode", 0)) & 0xFF


def _write_failure(exc: sqlite3.DatabaseError, path: Path | None,
                   what: str) -> StoreWriteFailed | None:
    """The :class:`~pooltool.errors.StoreWriteFailed` an SQLite error stands for, if any.

    :param exc: an error SQLite raised while writing (or while opening, which
        writes the ``-wal`` and ``-shm`` files).
    :param path: the store file (``None``: in memory).
    :param what: the past participle for "nothing was ...".
    :returns: for SQLITE_FULL (disk full, or a ``max_page_count`` reached) and
        SQLITE_READONLY (read-only file or folder): the error, with the store's
        path and the cause; ``None`` for any other error.
    """
    code = _error_code(exc)
    if code == _SQLITE_FULL:
        reason = f"the disk is full ({exc})"
    elif code == _SQLITE_READONLY:
        reason = f"the store cannot be written ({exc}): check the permissions of the file " \
                 "and its folder"
    else:
        return None
    return StoreWriteFailed(f"{path or ':memory:'}: {reason}; nothing was {what}")


def _check_schema_is_current(db: Database, path: Path | None) -> None:
    missing = migrations.pending(db)
    if missing:
        raise StoreError(f"{path}: the store's schema is older than this pooltool's "
                         f"(it lacks {', '.join(missing)}), and it cannot be upgraded "
                         "because it cannot be written; open it once where it can be")


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


def _check_is_store(conn: sqlite3.Connection, path: Path, create: bool) -> None:
    """Refuse to migrate a database that is neither a pooltool store nor (with create) empty."""
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    if not tables:
        if not create:
            raise StoreError(f"{path} is empty, not a pooltool store: create one with "
                             f"'pooltool --db {path} init'")
        return
    ours = migrations.migrations.migrations_table in tables and conn.execute(
        f"SELECT 1 FROM {migrations.migrations.migrations_table} WHERE migration_set = ?",
        [migrations.migrations.name]).fetchone()
    if not ours:
        shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        raise StoreError(f"{path} is a SQLite database of something else (tables: {shown}), "
                         "not a pooltool store; pooltool will not write into it")


def _file_runs(path: Path, threads: bool) -> tuple[list[tuple[str, pa.Table]], str]:
    """A run file's runs (one per run tag, in file order), each in trec_eval order
    (:func:`~pooltool.ranking.order_table`), and the file's sha256 (of the bytes read).

    Arrow's reader (:func:`~pooltool.formats.run.run_table`; ``threads``: its own
    threads) reads the file when it can vouch for it and no docno repeats within a
    topic; otherwise :func:`~pooltool.formats.run.read_run` does, and names the file
    and line of any error.

    :raises FormatError: a malformed line, a repeated docno included.
    """
    data = plain_run_bytes(path)
    table = None if data is None else run_table(data, threads)
    if data is None or table is None or run_columns.repeats_docno(table):
        frame = read_run(path)  # first: it refuses a pipe, which file_sha256 would wait on
        sha = file_sha256(path) if data is None else bytes_sha256(data)
        return [(str(tag), _ordered_table(entries))
                for tag, entries in frame.groupby("run_tag", sort=False)], sha
    sha = bytes_sha256(data)
    del data
    table = table.unify_dictionaries()
    tags = table["run_tag"].chunk(0).dictionary.to_pylist() if table.num_rows else []
    if len(tags) == 1:  # the usual case
        return [(str(tags[0]), order_table(table))], sha
    tag_of_row = pc.cast(table["run_tag"], pa.string())
    seen = pc.unique(tag_of_row).to_pylist()  # in order of first appearance
    return [(str(tag), order_table(table.filter(pc.equal(tag_of_row, tag)))) for tag in seen], sha


def _ordered_table(entries: pd.DataFrame) -> pa.Table:
    """A one-run frame (columns as :func:`~pooltool.formats.run.read_run` returns) as
    Arrow columns in trec_eval order."""
    table = pa.table({"topic": pa.array(entries["topic"].to_numpy(dtype=object), pa.string()),
                      "docno": pa.array(entries["docno"].to_numpy(dtype=object), pa.string()),
                      "rank": pa.array(entries["rank"].to_numpy(), pa.int64()),
                      "score": pa.array(entries["score"].to_numpy(), pa.float64())})
    return order_table(table)


def _batches(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


__all__ = ["BUSY_TIMEOUT_S", "GradeLevel", "ImportSummary", "JudgmentStore"]
