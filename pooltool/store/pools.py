"""The store's pool tables: named pools, pooling rounds, pooled documents and hits.

The SQL behind :mod:`pooltool.pooling` (which decides what to pool) and the
judging queue. Tables (migration ``m001_initial``): ``pools`` (one row per
named pool), ``pool_rounds`` (depth, run tags, documents added), ``pool_docs``
(each pooled (topic, docno) with the round that added it) and ``pool_hits``
(which run retrieved a pooled document at which trec_eval rank).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from pooltool.errors import InvalidArgument, StoreError, UnknownRun
from pooltool.store.core import StoreCore
from pooltool.store.engine import Engine
from pooltool.store.provenance import utc_now

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    import pyarrow as pa

DEFAULT_POOL = "main"


class PoolPairs(NamedTuple):
    """(topic, docno) pairs as two Arrow ``string`` arrays of ``n`` values, and, for
    hits, the run of each pair as its position in the list of run ids asked for and
    the trec_eval rank it had there (int64 arrays of ``n``; zeros otherwise)."""

    topic: pa.Array
    docno: pa.Array
    run: np.ndarray
    trec_rank: np.ndarray


class PoolTables(StoreCore):
    """Pool methods of :class:`~pooltool.store.JudgmentStore` (a mixin)."""

    # -- which pools exist -------------------------------------------------------

    def pools(self) -> pd.DataFrame:
        """Every pool, oldest first: ``name, strategy`` (``depth``, an adaptive strategy
        with its parameters, or a sample's design), ``created_at`` (UTC) and ``docs``
        (its pooled topic-document pairs)."""
        return self.query(
            "SELECT p.name, p.strategy, p.created_at, COUNT(d.docno) AS docs FROM pools p "
            "LEFT JOIN pool_docs d ON d.pool_id = p.pool_id "
            "GROUP BY p.pool_id, p.name, p.strategy, p.created_at ORDER BY p.pool_id")

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

    def add_pool_round(self, pool: str, depth: int, run_tags: list[str],
                       on_batch: Callable[[PoolPairs, PoolPairs], None] | None = None,
                       ) -> tuple[int, int]:
        """Record a pooling round and pool the runs' top ``depth`` (one transaction).

        The pool is created (strategy ``depth``) when it does not exist. Every hit
        of the runs' top ``depth`` (trec_eval rank) is stored in ``pool_hits``, and
        the pairs not pooled yet in ``pool_docs``, both tagged with the new round.
        The hits are sorted and written a batch of whole topics at a time (about
        :data:`~pooltool.store.pool_hits.HITS_PER_BATCH` hits), so memory does not grow
        with the number of topics beyond the runs' top ``depth`` themselves.

        :param on_batch: called once per batch with its hits (each pair's run as its
            position among the distinct tags of ``run_tags``, in order of first
            appearance, and its trec_eval rank there; sorted by topic and docno, in
            string order, then run id: see :func:`~pooltool.store.pool_hits.pair_starts`) and the pairs of
            the batch's topics that were in the pool before the round; the batches
            hold every hit once.
        :returns: the number of pairs in the pool before the round, and the number
            the round added.
        :raises UnknownRun: a tag not in the store.
        :raises InvalidArgument: the pool exists and is not a depth-k pool (an
            adaptive pool, a sample, a mixed pool): its documents are chosen otherwise.
        """
        from pooltool.store import pool_hits  # Arrow and numpy: not when init opens the store

        run_ids = list(dict.fromkeys(self.run_id(tag) for tag in run_tags))
        tops = self.run_entries(run_ids, depth, columns=["topic", "docno"])
        # the rows written refer to the pool and round made or checked here, and to
        # runs checked here: SQLite need not check each row's references again
        with self.unchecked_references(), self.writing() as conn:
            pool_id = self._pool_id_or_none(pool)
            if pool_id is not None:
                _check_depth_pool(conn, pool, pool_id)
            else:
                pool_id = conn.insert_id(
                    "INSERT INTO pools(name, strategy, created_at) VALUES (?, 'depth', ?) "
                    "RETURNING pool_id",
                    [pool, utc_now()])
            _check_runs_stored(conn, run_ids)
            before = int(conn.execute("SELECT COUNT(*) FROM pool_docs WHERE pool_id = ?",
                                      [pool_id]).fetchone()[0])
            round_id = conn.insert_id(
                "INSERT INTO pool_rounds(pool_id, depth, run_tags, docs_added, created_at) "
                "VALUES (?, ?, ?, 0, ?) RETURNING round_id",
                [pool_id, depth, json.dumps(run_tags), utc_now()])
            added = 0
            with pool_hits.made_ahead(pool_hits.hit_rows(tops, run_ids)) as slices:
                for rows in slices:
                    pool_hits.insert_hits(conn, rows, pool_id, round_id)
                    if rows.batch is not None:  # the batch's hits are all stored
                        added += self._add_docs(conn, rows.batch, pool_id, round_id, before,
                                                on_batch)
            conn.execute("UPDATE pool_rounds SET docs_added = ? WHERE round_id = ?",
                         [added, round_id])
        return before, added

    def _add_docs(self, conn: Engine, hits: PoolPairs, pool_id: int, round_id: int,
                  before: int, on_batch: Callable[[PoolPairs, PoolPairs], None] | None) -> int:
        """Pool a batch's pairs not pooled yet (its hits stored already), after handing
        ``on_batch`` the batch's hits and its topics' pairs pooled before the round
        (read first: ``before`` is the pool's size before the round, 0 when empty);
        returns the number of pairs added."""
        from pooltool.store import pool_hits

        pooled = self._pool_pairs(pool_id, hits.topic) if before else pool_hits.no_pairs()
        added = pool_hits.insert_docs(conn, hits, pool_id, round_id)
        if on_batch is not None:
            on_batch(hits, pooled)
        return added

    def _pool_pairs(self, pool_id: int, topics: pa.Array) -> PoolPairs:
        """The pairs of a pool in the given topics (a string array, repeats allowed)."""
        import numpy as np

        from pooltool.arrow import kernels
        from pooltool.arrow.numbers import arrow_strings

        topics, docnos = self._fetch_pairs(
            "SELECT topic, docno FROM pool_docs WHERE pool_id = ? "
            "AND topic IN (SELECT value FROM json_each(?))",
            [pool_id, json.dumps(kernels.unique(topics).to_pylist())])
        zeros = np.zeros(len(topics), dtype=np.int64)
        return PoolPairs(arrow_strings(topics), arrow_strings(docnos), zeros, zeros)

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
        only, params = self._pool_topics(pool, topics, "d.topic")
        return self.query(
            "SELECT d.topic, d.docno, d.round_id, COUNT(h.run_id) AS runs, "
            "MIN(h.trec_rank) AS best_rank FROM pool_docs d LEFT JOIN pool_hits h "
            "ON h.pool_id = d.pool_id AND h.topic = d.topic AND h.docno = d.docno "
            f"WHERE d.pool_id = ? {only}GROUP BY d.topic, d.docno, d.round_id "
            "ORDER BY d.topic, d.docno",
            params)

    def pool_pairs(self, pool: str = DEFAULT_POOL,
                   topics: Sequence[str] | None = None) -> pd.DataFrame:
        """The pooled pairs alone: ``topic, docno``, ordered by topic and docno (string
        order), as :meth:`pool_docs` lists them without each pair's runs and best rank.
        For readers that need only the pairs (the topic picker's counts, a judging
        session's copies, ``status``, assignments): working out the runs joins and groups
        every pool_hits row, most of a PostgreSQL server's time per topic-picker read.

        :param topics: only these topics (default: all).
        :raises StoreError: no such pool.
        """
        only, params = self._pool_topics(pool, topics, "topic")
        return self.query(f"SELECT topic, docno FROM pool_docs WHERE pool_id = ? {only}"
                          "ORDER BY topic, docno", params)

    def _pool_topics(self, pool: str, topics: Sequence[str] | None,
                     column: str) -> tuple[str, list[Any]]:
        """The ``AND`` clause keeping ``column``'s topics in ``topics`` (empty for all)
        and the parameters of ``pool_id = ?`` and that clause.

        :raises StoreError: no such pool.
        """
        params: list[Any] = [self.pool_id(pool)]
        if topics is None:
            return "", params
        return f"AND {column} IN (SELECT value FROM json_each(?)) ", [*params,
                                                                     json.dumps(list(topics))]

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
        import pandas as pd  # here, not at the top: the store opens without pandas
        import pyarrow as pa
        import pyarrow.compute as pc

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


def _check_runs_stored(conn: Engine, run_ids: list[int]) -> None:
    """:raises UnknownRun: a run id of no stored run (runs are never deleted)."""
    distinct = sorted(set(run_ids))
    found = conn.execute("SELECT COUNT(*) FROM runs WHERE run_id IN "
                         "(SELECT CAST(value AS INTEGER) FROM json_each(?))", [json.dumps(distinct)])
    if int(found.fetchone()[0]) != len(distinct):
        raise UnknownRun(f"runs {distinct} are not all in the store")


def _check_depth_pool(conn: Engine, pool: str, pool_id: int) -> None:
    """Refuse a pooling round into a pool that is not a depth-k pool.

    :raises InvalidArgument: an adaptive pool, a sample or a mixed pool.
    """
    why = _not_depth_reason(conn, pool_id)
    if why is not None:
        raise InvalidArgument(f"pool {pool!r} {why}; 'pool --depth' adds only to depth-k "
                              "pools: choose another --name")


def _not_depth_reason(conn: Engine, pool_id: int) -> str | None:
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
