"""The store's pool tables: named pools, pooling rounds, pooled documents and hits.

The SQL behind :mod:`pooltool.pooling` (which decides what to pool) and the
judging queue. Tables (migration ``m001_initial``): ``pools`` (one row per
named pool), ``pool_rounds`` (depth, run tags, documents added), ``pool_docs``
(each pooled (topic, docno) with the round that added it) and ``pool_hits``
(which run retrieved a pooled document at which trec_eval rank).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from pooltool.errors import StoreError
from pooltool.store.provenance import utc_now

DEFAULT_POOL = "main"

# runs per statement when a round is inserted (SQLite allows 999 parameters before 3.32)
_RUNS_PER_STATEMENT = 500


class PoolPairs(NamedTuple):
    """(topic, docno) pairs as two arrays of ``str`` objects, and, for hits, the run of
    each pair as its position in the list of run ids asked for (0 otherwise)."""

    topic: np.ndarray
    docno: np.ndarray
    run: np.ndarray


class PoolTables:
    """Pool methods of :class:`~pooltool.store.JudgmentStore` (a mixin)."""

    conn: sqlite3.Connection

    def writing(self) -> AbstractContextManager[sqlite3.Connection]:  # provided by the store
        raise NotImplementedError

    def query(self, sql: str, params: Any = ()) -> pd.DataFrame:  # provided by the store
        raise NotImplementedError

    def run_id(self, tag: str) -> int:  # provided by the store
        raise NotImplementedError

    # -- which pools exist -------------------------------------------------------

    def has_pool(self, pool: str) -> bool:
        """Whether a pool of this name exists (it may still hold no documents)."""
        return self._pool_id_or_none(pool) is not None

    def pool_id(self, pool: str) -> int:
        """The store's id of a pool.

        :raises StoreError: no such pool.
        """
        pool_id = self._pool_id_or_none(pool)
        if pool_id is None:
            raise StoreError(f"no pool {pool!r} in the store: build one with "
                             "'pooltool pool --depth K'")
        return pool_id

    def _pool_id_or_none(self, pool: str) -> int | None:
        row = self.conn.execute("SELECT pool_id FROM pools WHERE name = ?", [pool]).fetchone()
        return None if row is None else int(row[0])

    def pooled_topics(self, pool: str = DEFAULT_POOL) -> list[str]:
        """The topics with at least one pooled document (string order; empty when the
        pool does not exist or is empty)."""
        rows = self.conn.execute(
            "SELECT DISTINCT d.topic FROM pool_docs d JOIN pools p USING (pool_id) "
            "WHERE p.name = ? ORDER BY d.topic", [pool])
        return [str(row[0]) for row in rows]

    # -- writing a round ------------------------------------------------------------

    def top_k_pairs(self, run_ids: list[int], depth: int) -> PoolPairs:
        """The (topic, docno) pairs of each run's top ``depth`` (trec_eval rank), with
        each pair's run as its position in ``run_ids``."""
        runs, topics, docnos = [], [], []
        for position, run_id in enumerate(run_ids):
            run_topics, run_docnos = self._fetch_pairs(
                "SELECT topic, docno FROM run_entries WHERE run_id = ? AND trec_rank <= ?",
                [run_id, depth])
            runs.append(np.full(len(run_topics), position, dtype=np.int64))
            topics += run_topics
            docnos += run_docnos
        return PoolPairs(_objects(topics), _objects(docnos),
                         np.concatenate(runs) if runs else np.zeros(0, dtype=np.int64))

    def add_pool_round(self, pool: str, depth: int, run_tags: list[str]) -> tuple[PoolPairs, int]:
        """Record a pooling round and pool the runs' top ``depth`` (one transaction).

        The pool is created (strategy ``depth``) when it does not exist. Every hit
        of the runs' top ``depth`` is stored in ``pool_hits``, and the pairs not
        pooled yet in ``pool_docs``, both tagged with the new round.

        :returns: the pairs that were in the pool before the round, and the number
            of pairs the round added.
        :raises UnknownRun: a tag not in the store.
        """
        run_ids = [self.run_id(tag) for tag in run_tags]
        with self.writing() as conn:
            pool_id = self._pool_id_or_none(pool)
            if pool_id is None:
                pool_id = int(conn.execute(
                    "INSERT INTO pools(name, strategy, created_at) VALUES (?, 'depth', ?)",
                    [pool, utc_now()]).lastrowid or 0)
            before = self._pool_pairs(pool_id)
            round_id = int(conn.execute(
                "INSERT INTO pool_rounds(pool_id, depth, run_tags, docs_added, created_at) "
                "VALUES (?, ?, ?, 0, ?)",
                [pool_id, depth, json.dumps(run_tags), utc_now()]).lastrowid or 0)
            added = self._insert_round(conn, run_ids, depth, pool_id, round_id)
            conn.execute("UPDATE pool_rounds SET docs_added = ? WHERE round_id = ?",
                         [added, round_id])
        return before, added

    def _insert_round(self, conn: sqlite3.Connection, run_ids: list[int], depth: int,
                      pool_id: int, round_id: int) -> int:
        """Store the runs' top ``depth`` as hits, and the pairs not pooled yet as pool
        documents of this round; returns the number of pairs added.

        Rows go SQLite to SQLite, sorted in the tables' primary-key order, so each
        table is written in one sweep.
        """
        added = 0
        for start in range(0, len(run_ids), _RUNS_PER_STATEMENT):
            chunk = run_ids[start:start + _RUNS_PER_STATEMENT]
            top_k = (f"FROM run_entries WHERE run_id IN ({', '.join('?' * len(chunk))}) "
                     "AND trec_rank <= ?")
            added += conn.execute(
                "INSERT OR IGNORE INTO pool_docs(pool_id, topic, docno, round_id) "
                f"SELECT ?, topic, docno, ? {top_k} ORDER BY topic, docno",
                [pool_id, round_id, *chunk, depth]).rowcount
            # a docno twice in a topic of one run (only add_run_frame lets that in) keeps
            # its best rank: the first row inserted wins
            conn.execute(
                "INSERT OR IGNORE INTO pool_hits(pool_id, topic, docno, run_id, trec_rank, "
                f"round_id) SELECT ?, topic, docno, run_id, trec_rank, ? {top_k} "
                "ORDER BY topic, docno, run_id, trec_rank",
                [pool_id, round_id, *chunk, depth])
        return added

    def _pool_pairs(self, pool_id: int) -> PoolPairs:
        topics, docnos = self._fetch_pairs(
            "SELECT topic, docno FROM pool_docs WHERE pool_id = ?", [pool_id])
        return PoolPairs(_objects(topics), _objects(docnos), np.zeros(len(topics), dtype=np.int64))

    def _fetch_pairs(self, sql: str, params: list[Any]) -> tuple[list[str], list[str]]:
        """The (topic, docno) rows of a query as two lists. Small batches: tuples kept
        alive by the hundred thousand make Python's garbage collector crawl."""
        cursor = self.conn.execute(sql, params)
        topics: list[str] = []
        docnos: list[str] = []
        while rows := cursor.fetchmany(256):
            for column, values in zip((topics, docnos), zip(*rows, strict=True), strict=True):
                column.extend(values)
        return topics, docnos

    # -- reading a pool ---------------------------------------------------------------

    def pool_docs(self, pool: str = DEFAULT_POOL,
                  topics: Sequence[str] | None = None) -> pd.DataFrame:
        """The pooled documents: ``topic, docno, round_id, runs`` (number of runs that
        hit it), ``best_rank`` (best trec_eval rank over those runs), ordered by topic
        and docno (string order).

        :param topics: only these topics (default: all).
        :raises StoreError: no such pool.
        """
        only = "" if topics is None else "AND d.topic IN (SELECT value FROM json_each(?)) "
        params: list[Any] = [self.pool_id(pool)]
        if topics is not None:
            params.append(json.dumps(list(topics)))
        return self.query(
            "SELECT d.topic, d.docno, d.round_id, COUNT(h.run_id) AS runs, "
            "MIN(h.trec_rank) AS best_rank FROM pool_docs d LEFT JOIN pool_hits h "
            "ON h.pool_id = d.pool_id AND h.topic = d.topic AND h.docno = d.docno "
            f"WHERE d.pool_id = ? {only}GROUP BY d.topic, d.docno ORDER BY d.topic, d.docno",
            params)

    def topic_pool_docs(self, topic: str, pool: str = DEFAULT_POOL) -> list[tuple[str, int | None]]:
        """A topic's pooled documents as ``(docno, best_rank)`` pairs (best trec_eval rank
        over the runs that hit it; ``None`` when no hit is recorded); empty when the
        topic has none.

        :raises StoreError: no such pool.
        """
        rows = self.conn.execute(
            "SELECT d.docno, MIN(h.trec_rank) FROM pool_docs d LEFT JOIN pool_hits h "
            "ON h.pool_id = d.pool_id AND h.topic = d.topic AND h.docno = d.docno "
            "WHERE d.pool_id = ? AND d.topic = ? GROUP BY d.docno ORDER BY d.docno",
            [self.pool_id(pool), topic]).fetchall()
        return [(str(docno), None if rank is None else int(rank)) for docno, rank in rows]

    def pool_hits(self, pool: str = DEFAULT_POOL) -> pd.DataFrame:
        """Which runs retrieved each pooled document: ``topic, docno, run_tag, trec_rank``.

        :raises StoreError: no such pool.
        """
        return self.query(
            "SELECT h.topic, h.docno, r.run_tag, h.trec_rank FROM pool_hits h JOIN runs r "
            "USING (run_id) WHERE h.pool_id = ? ORDER BY h.topic, h.docno, r.run_tag",
            [self.pool_id(pool)])

    def hits_of(self, topic: str, docno: str,
                pool: str = DEFAULT_POOL) -> list[tuple[str, int]]:
        """Which pooled runs retrieved a document, and at which trec_eval rank, best
        first (ties by run tag); empty when none or no such pool."""
        rows = self.conn.execute(
            "SELECT r.run_tag, h.trec_rank FROM pool_hits h JOIN runs r USING (run_id) "
            "JOIN pools p USING (pool_id) WHERE p.name = ? AND h.topic = ? AND h.docno = ? "
            "ORDER BY h.trec_rank, r.run_tag", [pool, topic, docno]).fetchall()
        return [(str(tag), int(rank)) for tag, rank in rows]

    def pool_rounds(self, pool: str = DEFAULT_POOL) -> pd.DataFrame:
        """The pooling rounds of a pool: ``round_id, depth, run_tags`` (a JSON list),
        ``docs_added, created_at``, oldest first.

        :raises StoreError: no such pool.
        """
        return self.query(
            "SELECT round_id, depth, run_tags, docs_added, created_at FROM pool_rounds "
            "WHERE pool_id = ? ORDER BY round_id", [self.pool_id(pool)])

    def top_entries(self, run_tags: list[str], depth: int) -> pd.DataFrame:
        """The first ``depth`` documents per topic of stored runs, in trec_eval order.

        :returns: columns ``run_tag, topic, docno, score, trec_rank``.
        :raises UnknownRun: a tag not in the store.
        """
        frames = [
            self.query("SELECT ? AS run_tag, topic, docno, score, trec_rank FROM run_entries "
                       "WHERE run_id = ? AND trec_rank <= ?", [tag, self.run_id(tag), depth])
            for tag in run_tags
        ]
        return pd.concat(frames, ignore_index=True)


def _objects(values: list[str]) -> np.ndarray:
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array
