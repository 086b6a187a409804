"""The hits of a depth-k pooling round (:meth:`~pooltool.store.pools.PoolTables.add_pool_round`):
gathered from the runs' top k in batches of whole topics, sorted in ``pool_hits``' key
order and made Python values on a second thread (:func:`made_ahead`), while the
caller's thread writes the slice before, and the pool documents they add.

A module of its own so that the store opens without Arrow and numpy (``init`` loads
neither); the pool methods import it when they pool.
"""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, NamedTuple, TypeVar, cast

import numpy as np
import pyarrow as pa

from pooltool.arrow import kernels
from pooltool.arrow.numbers import arrow_numbers, arrow_strings, numbers
from pooltool.ranking import stretches
from pooltool.store.engine import Engine
from pooltool.store.pools import PoolPairs

Item = TypeVar("Item")

# hits of whole topics sorted and written at a time: small enough that the next batch's
# sort runs beside this one's inserts (one batch of 450,000 hits left nothing to overlap)
HITS_PER_BATCH = 1 << 16


def topic_batches(tops: list[pa.Table], hits: int) -> Iterator[PoolPairs]:
    """The rows of runs' top k in batches of whole topics, in topic string order.

    :param tops: per run, rows grouped by topic in string order (as stored:
        :func:`pooltool.store.run_columns.decode`), with ``topic`` (string or
        dictionary), ``docno`` and ``trec_rank``; runs may hold different topics.
    :param hits: rows to gather before a batch is given (a batch holds at least
        one topic, so one larger topic makes a larger batch).
    :returns: per batch, its rows as :class:`PoolPairs` (``run``: the position
        in ``tops``), each run's rows of the batch in their stored order.
    """
    spans = [_topic_spans(top) for top in tops]
    rows: dict[str, int] = {}
    for names, bounds in spans:
        for name, size in zip(names, np.diff(bounds).tolist(), strict=True):
            rows[name] = rows.get(name, 0) + size
    batch: list[str] = []
    gathered = 0
    for name in sorted(rows):
        batch.append(name)
        gathered += rows[name]
        if gathered >= hits:
            yield _batch_pairs(tops, spans, batch[0], batch[-1])
            batch, gathered = [], 0
    if batch:
        yield _batch_pairs(tops, spans, batch[0], batch[-1])


def _topic_spans(top: pa.Table) -> tuple[list[str], np.ndarray]:
    """A run's topics in the order its rows hold them, and where each topic's rows start
    (one more bound: the number of rows)."""
    topic = top["topic"].combine_chunks()
    if not pa.types.is_dictionary(topic.type):
        topic = kernels.dictionary_encode(topic)
    codes = numbers(topic.indices)
    starts, _ = stretches(codes)
    names = kernels.take(topic.dictionary, arrow_numbers(codes[starts])).to_pylist()
    return [str(name) for name in names], np.append(starts, len(codes))


def _batch_pairs(tops: list[pa.Table], spans: list[tuple[list[str], np.ndarray]],
                 first: str, last: str) -> PoolPairs:
    """The rows of the topics from ``first`` to ``last`` (string order) of every run."""
    parts = []
    for position, (top, (names, bounds)) in enumerate(zip(tops, spans, strict=True)):
        start, stop = bounds[bisect_left(names, first)], bounds[bisect_right(names, last)]
        if stop > start:
            parts.append((position, top.slice(int(start), int(stop - start))))
    run = np.repeat(np.array([p for p, _ in parts], dtype=np.int64),
                    [part.num_rows for _, part in parts])
    topic = [kernels.cast(part["topic"], pa.string()).combine_chunks() for _, part in parts]
    docno = [part["docno"].combine_chunks() for _, part in parts]
    rank = [numbers(part["trec_rank"]) for _, part in parts]
    return PoolPairs(pa.concat_arrays(topic) if topic else arrow_strings([]),
                     pa.concat_arrays(docno) if docno else arrow_strings([]),
                     run, np.concatenate(rank) if rank else run)


def no_pairs() -> PoolPairs:
    empty = np.zeros(0, dtype=np.int64)
    return PoolPairs(arrow_strings([]), arrow_strings([]), empty, empty)


def sorted_hits(hits: PoolPairs, run_ids: list[int]) -> PoolPairs:
    """``hits`` sorted by topic, docno (string order), run id (``hits.run``: positions
    in ``run_ids``) and trec_eval rank: the order of ``pool_hits``' primary key."""
    run_id = np.asarray(run_ids, dtype=np.int64)[hits.run]
    keys = pa.table({"topic": hits.topic, "docno": hits.docno, "run_id": arrow_numbers(run_id),
                     "trec_rank": arrow_numbers(hits.trec_rank)})
    order = kernels.sort_indices(keys, [
        (name, "ascending") for name in ("topic", "docno", "run_id", "trec_rank")])
    rows = numbers(order)
    return PoolPairs(kernels.take(hits.topic, order), kernels.take(hits.docno, order), hits.run[rows],
                     hits.trec_rank[rows])


def pair_starts(hits: PoolPairs) -> np.ndarray:
    """Of hits sorted by (topic, docno), whether each is the first of its pair (bool)."""
    first = np.ones(len(hits.run), dtype=bool)
    if len(first) > 1:
        first[1:] = ~np.logical_and(_bools(kernels.call("equal", hits.topic[1:], hits.topic[:-1])),
                                    _bools(kernels.call("equal", hits.docno[1:], hits.docno[:-1])))
    return first


def _bools(values: pa.Array) -> np.ndarray:
    """A boolean Arrow array without nulls as numpy bools (through uint8:
    ``.to_numpy()`` would load pandas)."""
    return numbers(kernels.cast(values, pa.uint8())).view(bool)


class HitRows(NamedTuple):
    """A slice of a batch's sorted hits as Python values, ready to be bound
    (:func:`hit_rows`).

    :ivar values: one list per column of :data:`HIT_COLUMNS`, all of one length (up
        to :data:`_ROWS_PER_SLICE`).
    :ivar batch: on the last slice of a batch, the whole batch's hits as
        :func:`sorted_hits` gives them (``run``: positions in the run ids); ``None``
        on the others.
    """

    values: list[list[Any]]
    batch: PoolPairs | None


#: The columns of ``pool_hits`` that vary from hit to hit, in :attr:`HitRows.values`' order.
HIT_COLUMNS = ("topic", "docno", "run_id", "trec_rank")


def hit_rows(tops: list[pa.Table], run_ids: list[int]) -> Iterator[HitRows]:
    """The hits of runs' top k (as :func:`topic_batches` takes them; ``run_ids``: the
    runs' ids, in the order of ``tops``) in ``pool_hits``' primary-key order, in
    batches of whole topics (about :data:`HITS_PER_BATCH` hits) sorted by
    :func:`sorted_hits`, each batch given as slices of :data:`_ROWS_PER_SLICE` rows
    made Python values (so memory holds one slice of Python objects, not a batch)."""
    for batch in topic_batches(tops, HITS_PER_BATCH):
        hits = sorted_hits(batch, run_ids)
        table = pa.table({"topic": hits.topic, "docno": hits.docno,
                          "run_id": arrow_numbers(np.asarray(run_ids, dtype=np.int64)[hits.run]),
                          "trec_rank": arrow_numbers(hits.trec_rank)})
        starts = range(0, table.num_rows, _ROWS_PER_SLICE)
        for start in starts:
            part = table.slice(start, _ROWS_PER_SLICE)
            yield HitRows([part[name].to_pylist() for name in HIT_COLUMNS],
                          hits if start == starts[-1] else None)
        if not starts:
            yield HitRows([[] for _ in HIT_COLUMNS], hits)


@contextmanager
def made_ahead(items: Iterator[Item]) -> Iterator[Iterator[Item]]:
    """``items``, each made on a second thread while the caller uses the one before.

    The caller's inserts (SQLite's statements, PostgreSQL's round trips) run without
    Python's lock, so the next slice's sort and Python values are made on the other
    core meanwhile. One item ahead at most: memory holds two slices of Python values.
    Leaving the block waits for the item being made, if any; an error raised on the
    thread is raised where its item is taken.
    """
    end = object()
    with ThreadPoolExecutor(max_workers=1) as maker:
        def taken() -> Iterator[Item]:
            coming = maker.submit(next, items, end)
            while (item := coming.result()) is not end:
                coming = maker.submit(next, items, end)
                yield cast(Item, item)
        yield taken()


def insert_hits(conn: Engine, rows: HitRows, pool_id: int, round_id: int) -> None:
    """Store a slice of a round's hits (:func:`hit_rows`: in ``pool_hits``' primary-key
    order, so the table is written in one sweep) through
    :meth:`~pooltool.store.engine.Engine.insert_ignoring` (COPY on PostgreSQL); a
    docno twice in a topic of one run keeps its best rank (the first row inserted
    wins)."""
    if rows.values[0]:
        conn.insert_ignoring("pool_hits", {"pool_id": pool_id, "round_id": round_id},
                             HIT_COLUMNS, rows.values)


def insert_docs(conn: Engine, hits: PoolPairs, pool_id: int, round_id: int) -> int:
    """Store the pairs of a batch's hits (stored already: :func:`insert_hits`) not
    pooled yet as pool documents of this round; returns the number of pairs added.

    The pool documents are copied from the hits by one statement, inside the engine:
    a pair new to the pool has all its hits in this round, and the pairs pooled
    before are skipped (about 0.1 CPU-s less than binding them from Python for
    354,000 pairs; 0.18-0.31 against 0.32-0.43 CPU-s measured again in round 6).
    """
    if not len(hits.run):
        return 0
    before = conn.total_changes
    conn.execute("INSERT OR IGNORE INTO pool_docs(pool_id, topic, docno, round_id) "
                 "SELECT pool_id, topic, docno, round_id FROM pool_hits "
                 "WHERE pool_id = ? AND round_id = ? AND topic IN (SELECT value FROM json_each(?))",
                 [pool_id, round_id, json.dumps(kernels.unique(hits.topic).to_pylist())])
    return conn.total_changes - before


_ROWS_PER_SLICE = 65_536  # hits made Python objects at a time (memory stays flat)
