"""The store's pool tables: named pools, pooling rounds, pooled documents and hits.

The SQL behind :mod:`pooltool.pooling` (which decides what to pool) and the
judging queue. Tables (migration ``m001_initial``): ``pools`` (one row per
named pool), ``pool_rounds`` (depth, run tags, documents added), ``pool_docs``
(each pooled (topic, docno) with the round that added it) and ``pool_hits``
(which run retrieved a pooled document at which trec_eval rank).
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pooltool.errors import InvalidArgument, StoreError
from pooltool.store.provenance import utc_now

DEFAULT_POOL = "main"


class PoolPairs(NamedTuple):
    """(topic, docno) pairs as two Arrow ``string`` arrays of ``n`` values, and, for
    hits, the run of each pair as its position in the list of run ids asked for and
    the trec_eval rank it had there (int64 arrays of ``n``; zeros otherwise)."""

    topic: pa.Array
    docno: pa.Array
    run: np.ndarray
    trec_rank: np.ndarray


class PoolTables:
    """Pool methods of :class:`~pooltool.store.JudgmentStore` (a mixin)."""

    conn: sqlite3.Connection

    def writing(self) -> AbstractContextManager[sqlite3.Connection]:  # provided by the store
        raise NotImplementedError

    def query(self, sql: str, params: Any = ()) -> pd.DataFrame:  # provided by the store
        raise NotImplementedError

    def run_id(self, tag: str) -> int:  # provided by the store
        raise NotImplementedError

    def run_entries(self, run_ids: list[int], depth: int | None = None) -> list[pa.Table]:
        raise NotImplementedError  # provided by the store

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

    def not_depth_pool_reason(self, pool: str) -> str | None:
        """Why ``pool`` is not a depth-k pool (adaptive, a sample, mixed), as a sentence
        fragment after the pool's name, or ``None`` when it is one.

        :raises StoreError: no such pool.
        """
        return _not_depth_reason(self.conn, self.pool_id(pool))

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
        each pair's run as its position in ``run_ids`` and its trec_eval rank there."""
        tops = self.run_entries(run_ids, depth)
        runs = np.repeat(np.arange(len(tops), dtype=np.int64), [t.num_rows for t in tops])
        topic = pa.chunked_array([chunk for t in tops for chunk in
                                  pc.cast(t["topic"], pa.string()).chunks], pa.string())
        docno = pa.chunked_array([chunk for t in tops for chunk in t["docno"].chunks],
                                 pa.string())
        rank = np.concatenate([t["trec_rank"].to_numpy() for t in tops] or [runs])
        return PoolPairs(topic.combine_chunks(), docno.combine_chunks(), runs, rank)

    def add_pool_round(self, pool: str, depth: int, run_tags: list[str],
                       hits: PoolPairs | None = None) -> tuple[PoolPairs, int]:
        """Record a pooling round and pool the runs' top ``depth`` (one transaction).

        The pool is created (strategy ``depth``) when it does not exist. Every hit
        of the runs' top ``depth`` is stored in ``pool_hits``, and the pairs not
        pooled yet in ``pool_docs``, both tagged with the new round.

        :param hits: the runs' top ``depth`` as :meth:`top_k_pairs` gives it for the
            runs of ``run_tags`` (read here when not given).
        :returns: the pairs that were in the pool before the round, and the number
            of pairs the round added.
        :raises UnknownRun: a tag not in the store.
        :raises InvalidArgument: the pool exists and is not a depth-k pool (an
            adaptive pool, a sample, a mixed pool): its documents are chosen otherwise.
        """
        run_ids = [self.run_id(tag) for tag in run_tags]
        if hits is None:
            hits = self.top_k_pairs(run_ids, depth)
        with self.writing() as conn:
            pool_id = self._pool_id_or_none(pool)
            if pool_id is not None:
                _check_depth_pool(conn, pool, pool_id)
            else:
                pool_id = int(conn.execute(
                    "INSERT INTO pools(name, strategy, created_at) VALUES (?, 'depth', ?)",
                    [pool, utc_now()]).lastrowid or 0)
            before = self._pool_pairs(pool_id)
            round_id = int(conn.execute(
                "INSERT INTO pool_rounds(pool_id, depth, run_tags, docs_added, created_at) "
                "VALUES (?, ?, ?, 0, ?)",
                [pool_id, depth, json.dumps(run_tags), utc_now()]).lastrowid or 0)
            added = _insert_round(conn, hits, run_ids, pool_id, round_id)
            conn.execute("UPDATE pool_rounds SET docs_added = ? WHERE round_id = ?",
                         [added, round_id])
        return before, added

    def _pool_pairs(self, pool_id: int) -> PoolPairs:
        topics, docnos = self._fetch_pairs(
            "SELECT topic, docno FROM pool_docs WHERE pool_id = ?", [pool_id])
        zeros = np.zeros(len(topics), dtype=np.int64)
        return PoolPairs(pa.array(topics, pa.string()), pa.array(docnos, pa.string()), zeros, zeros)

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
            f"WHERE d.pool_id = ? {only}GROUP BY d.topic, d.docno, d.round_id "
            "ORDER BY d.topic, d.docno",
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
        tops = self.run_entries([self.run_id(tag) for tag in run_tags], depth)
        frames = [pd.DataFrame({
            "run_tag": pd.Series([tag] * top.num_rows, dtype=object),
            "topic": pd.Series(pc.cast(top["topic"], pa.string()).to_numpy(), dtype=object),
            "docno": pd.Series(top["docno"].to_numpy(), dtype=object),
            "score": top["score"].to_numpy(), "trec_rank": top["trec_rank"].to_numpy()})
            for tag, top in zip(run_tags, tops, strict=True)]
        return pd.concat(frames, ignore_index=True)


#: Why ``pool --depth`` cannot grow a pool made otherwise, by the pool's strategy.
_NOT_DEPTH_POOLS = {
    "sample": "is a sample (drawn with 'pooltool sample'): grow it with "
              "'pooltool sample --grow'",
    "mixed": "is a mixed pool (a pool and a sample judged together with 'pooltool judge "
             "--with-sample'): it follows its two pools; grow the pool or the sample instead",
}


def _check_depth_pool(conn: sqlite3.Connection, pool: str, pool_id: int) -> None:
    """Refuse a pooling round into a pool that is not a depth-k pool.

    :raises InvalidArgument: an adaptive pool, a sample or a mixed pool.
    """
    why = _not_depth_reason(conn, pool_id)
    if why is not None:
        raise InvalidArgument(f"pool {pool!r} {why}; 'pool --depth' adds only to depth-k "
                              "pools: choose another --name")


def _not_depth_reason(conn: sqlite3.Connection, pool_id: int) -> str | None:
    """Why a pool is not a depth-k pool (a sentence fragment), or ``None`` when it is."""
    strategy = str(conn.execute("SELECT strategy FROM pools WHERE pool_id = ?",
                                [pool_id]).fetchone()[0])
    adaptive = conn.execute("SELECT 1 FROM adaptive_pools WHERE pool_id = ?",
                            [pool_id]).fetchone() is not None
    if adaptive:
        return (f"is an adaptive pool (strategy {strategy}): its documents are chosen one "
                "at a time by 'pooltool judge', within its budget")
    if strategy != "depth":
        return _NOT_DEPTH_POOLS.get(strategy, f"was made by strategy {strategy}")
    return None


def _insert_round(conn: sqlite3.Connection, hits: PoolPairs, run_ids: list[int], pool_id: int,
                  round_id: int) -> int:
    """Store the hits (``hits.run``: positions in ``run_ids``), and the pairs not pooled
    yet as pool documents of this round; returns the number of pairs added.

    Rows are sorted in the tables' primary-key order, so each table is written in
    one sweep, a slice of :data:`_ROWS_PER_SLICE` rows at a time; a docno twice in
    a topic of one run keeps its best rank (the first row inserted wins).
    """
    if not len(hits.run):
        return 0
    table = pa.table({"topic": hits.topic, "docno": hits.docno,
                      "run_id": np.asarray(run_ids, dtype=np.int64)[hits.run],
                      "trec_rank": hits.trec_rank})
    table = table.take(pc.sort_indices(table, sort_keys=[
        (name, "ascending") for name in ("topic", "docno", "run_id", "trec_rank")]))
    topic, docno = table["topic"].combine_chunks(), table["docno"].combine_chunks()
    new_pair = np.ones(table.num_rows, dtype=bool)
    new_pair[1:] = ~np.logical_and(
        pc.equal(topic[1:], topic[:-1]).to_numpy(zero_copy_only=False),
        pc.equal(docno[1:], docno[:-1]).to_numpy(zero_copy_only=False))
    added = 0
    for start in range(0, table.num_rows, _ROWS_PER_SLICE):
        added += _insert_slice(conn, table.slice(start, _ROWS_PER_SLICE),
                               new_pair[start:start + _ROWS_PER_SLICE], pool_id, round_id)
    return added


_ROWS_PER_SLICE = 65_536  # hits made Python objects at a time (memory stays flat)


def _insert_slice(conn: sqlite3.Connection, hits: pa.Table, new_pair: np.ndarray,
                  pool_id: int, round_id: int) -> int:
    """Insert sorted hits (``topic, docno, run_id, trec_rank``) and, where ``new_pair``,
    their pair into ``pool_docs``; returns the number of pool documents added."""
    first = pa.array(np.flatnonzero(new_pair))
    topics, docnos = hits["topic"].to_pylist(), hits["docno"].to_pylist()
    before = conn.total_changes
    _insert_rows(conn, "pool_docs(pool_id, topic, docno, round_id)",
                 [itertools.repeat(pool_id), hits["topic"].take(first).to_pylist(),
                  hits["docno"].take(first).to_pylist(), itertools.repeat(round_id)],
                 len(first))
    added = conn.total_changes - before
    _insert_rows(conn, "pool_hits(pool_id, topic, docno, run_id, trec_rank, round_id)",
                 [itertools.repeat(pool_id), topics, docnos, hits["run_id"].to_pylist(),
                  hits["trec_rank"].to_pylist(), itertools.repeat(round_id)], len(topics))
    return added


_ROWS_PER_STATEMENT = 100  # 600 parameters at most: SQLite before 3.32 allows 999


def _insert_rows(conn: sqlite3.Connection, table: str, columns: list[Iterable[Any]],
                 rows: int) -> None:
    """``INSERT OR IGNORE`` ``rows`` rows given column by column, :data:`_ROWS_PER_STATEMENT`
    to a statement (fewer round trips from Python than one row to a statement).

    :param table: the table and its column list, as in ``INSERT INTO table(a, b)``.
    """
    width = len(columns)
    row = "(" + ", ".join("?" * width) + ")"
    values = itertools.chain.from_iterable(zip(*columns, strict=False))  # repeat() never ends
    whole = rows // _ROWS_PER_STATEMENT
    many = f"INSERT OR IGNORE INTO {table} VALUES " + ", ".join([row] * _ROWS_PER_STATEMENT)
    conn.executemany(many, (list(itertools.islice(values, width * _ROWS_PER_STATEMENT))
                            for _ in range(whole)))
    rest = list(values)
    if rest:
        conn.execute(f"INSERT OR IGNORE INTO {table} VALUES "
                     + ", ".join([row] * (len(rest) // width)), rest)

