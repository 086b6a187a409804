"""Depth-k pooling: the union of every run's top k documents per topic.

"Top k" is in trec_eval order (:mod:`pooltool.ranking`: score descending,
docno descending, rank column ignored), the order in which NIST pooled
TREC-COVID. A store holds named pools (default ``main``). Pools only grow:
pooling again with more runs or a larger depth adds the documents not yet
in the pool, and each round is recorded (depth, runs, documents added), with
which runs retrieved each pooled document at which rank (``pool_hits``).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from pooltool.errors import StoreError
from pooltool.records import topic_key
from pooltool.store import JudgmentStore
from pooltool.store.provenance import utc_now

DEFAULT_POOL = "main"


@dataclass(frozen=True)
class PoolRound:
    """The outcome of one pooling round.

    :ivar docs_added: (topic, docno) pairs new to the pool in this round.
    :ivar pool_size: pairs in the pool after the round.
    :ivar contributions: one row per run: ``run_tag``; ``pooled``, its
        (topic, docno) pairs in its top ``depth``; ``unique``, those no other
        run of this round has in its top ``depth``; ``new``, those that were
        not in the pool before this round (a pair new to the pool counts for
        every run that retrieved it).
    """

    pool: str
    depth: int
    docs_added: int
    pool_size: int
    contributions: pd.DataFrame


def pool_runs(store: JudgmentStore, depth: int, run_tags: list[str] | None = None,
              pool: str = DEFAULT_POOL) -> PoolRound:
    """Pool the top ``depth`` documents of each run (all stored runs by default).

    One transaction: the round, the new pooled documents and the hits.

    :raises StoreError: depth below 1, or no runs to pool.
    :raises UnknownRun: a tag not in the store.
    """
    if depth < 1:
        raise StoreError(f"pool depth must be at least 1, got {depth}")
    tags = run_tags or store.run_tags()
    if not tags:
        raise StoreError("the store has no runs to pool: add some with 'pooltool add-runs'")
    run_ids = {tag: store.run_id(tag) for tag in tags}
    hits = _top_k_hits(store.conn, run_ids, depth)
    with store.writing() as conn:
        pool_id = _pool_id(store, pool)
        before = _pool_pairs(store, pool_id)
        round_id = int(conn.execute(
            "INSERT INTO pool_rounds(pool_id, depth, run_tags, docs_added, created_at) "
            "VALUES (?, ?, ?, 0, ?)", [pool_id, depth, json.dumps(tags), utc_now()]).lastrowid or 0)
        added = _insert_round(conn, list(run_ids.values()), depth, pool_id, round_id)
        conn.execute("UPDATE pool_rounds SET docs_added = ? WHERE round_id = ?", [added, round_id])
    size = len(before.topic) + added
    return PoolRound(pool, depth, added, size, _contributions(hits, before, run_ids, tags))


# A run's top k is one range scan of run_entries' primary key (run_id, trec_rank, topic).
_TOP_K = "FROM run_entries WHERE run_id = ? AND trec_rank <= ?"

# runs per statement in _insert_round (SQLite allows 999 parameters before 3.32)
_RUNS_PER_STATEMENT = 500


def _insert_round(conn: sqlite3.Connection, run_ids: list[int], depth: int,
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
            "INSERT OR IGNORE INTO pool_hits(pool_id, topic, docno, run_id, trec_rank, round_id) "
            f"SELECT ?, topic, docno, run_id, trec_rank, ? {top_k} "
            "ORDER BY topic, docno, run_id, trec_rank",
            [pool_id, round_id, *chunk, depth])
    return added


class _Pairs(NamedTuple):
    """(topic, docno) pairs as two arrays of str objects, and for hits the run of each:
    its position in the round's ``run_ids``."""

    topic: np.ndarray
    docno: np.ndarray
    run: np.ndarray


def _fetch_pairs(conn: sqlite3.Connection, sql: str,
                 params: list[Any]) -> tuple[list[str], list[str]]:
    """The (topic, docno) rows of a query as two lists. Small batches: tuples kept
    alive by the hundred thousand make Python's garbage collector crawl."""
    cursor = conn.execute(sql, params)
    topics: list[str] = []
    docnos: list[str] = []
    while rows := cursor.fetchmany(256):
        for column, values in zip((topics, docnos), zip(*rows, strict=True), strict=True):
            column.extend(values)
    return topics, docnos


def _top_k_hits(conn: sqlite3.Connection, run_ids: dict[str, int], depth: int) -> _Pairs:
    runs, topics, docnos = [], [], []
    for position, run_id in enumerate(run_ids.values()):
        run_topics, run_docnos = _fetch_pairs(conn, f"SELECT topic, docno {_TOP_K}",
                                              [run_id, depth])
        runs.append(np.full(len(run_topics), position, dtype=np.int64))
        topics += run_topics
        docnos += run_docnos
    return _Pairs(_objects(topics), _objects(docnos), np.concatenate(runs))


def _objects(values: list[str]) -> np.ndarray:
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


def _pool_id(store: JudgmentStore, pool: str) -> int:
    row = store.conn.execute("SELECT pool_id FROM pools WHERE name = ?", [pool]).fetchone()
    if row is not None:
        return int(row[0])
    cursor = store.conn.execute(
        "INSERT INTO pools(name, strategy, created_at) VALUES (?, 'depth', ?)", [pool, utc_now()])
    return int(cursor.lastrowid or 0)


def _pool_pairs(store: JudgmentStore, pool_id: int) -> _Pairs:
    topics, docnos = _fetch_pairs(
        store.conn, "SELECT topic, docno FROM pool_docs WHERE pool_id = ?", [pool_id])
    return _Pairs(_objects(topics), _objects(docnos), np.zeros(len(topics), dtype=np.int64))


def _contributions(hits: _Pairs, before: _Pairs, run_ids: dict[str, int],
                   tags: list[str]) -> pd.DataFrame:
    # one integer per distinct (topic, docno), over the hits and the pairs pooled before
    topic_codes, _ = pd.factorize(np.concatenate([hits.topic, before.topic]))
    docno_codes, docnos = pd.factorize(np.concatenate([hits.docno, before.docno]))
    pair = topic_codes.astype(np.int64) * max(len(docnos), 1) + docno_codes
    hit_pair, before_pair = pair[:len(hits.run)], pair[len(hits.run):]
    _, pair_of_hit, runs_per_pair = np.unique(hit_pair, return_inverse=True, return_counts=True)
    unique = runs_per_pair[pair_of_hit.reshape(-1)] == 1
    new = ~np.isin(hit_pair, before_pair)
    n = len(run_ids)
    table = pd.DataFrame(
        {"pooled": np.bincount(hits.run, minlength=n).astype(np.int64),
         "unique": np.bincount(hits.run, weights=unique, minlength=n).astype(np.int64),
         "new": np.bincount(hits.run, weights=new, minlength=n).astype(np.int64)},
        index=list(run_ids))
    return table.reindex(tags, fill_value=0).rename_axis("run_tag").reset_index()


def pool_docs(store: JudgmentStore, pool: str = DEFAULT_POOL) -> pd.DataFrame:
    """The pooled documents: ``topic, docno, round_id, runs`` (number of runs that hit it),
    ``best_rank`` (best trec_eval rank over those runs), ordered by topic and docno.

    :raises StoreError: no such pool.
    """
    pool_id = _existing_pool_id(store, pool)
    return store.query(
        "SELECT d.topic, d.docno, d.round_id, COUNT(h.run_id) AS runs, "
        "MIN(h.trec_rank) AS best_rank FROM pool_docs d LEFT JOIN pool_hits h "
        "ON h.pool_id = d.pool_id AND h.topic = d.topic AND h.docno = d.docno "
        "WHERE d.pool_id = ? GROUP BY d.topic, d.docno ORDER BY d.topic, d.docno", [pool_id])


def _existing_pool_id(store: JudgmentStore, pool: str) -> int:
    row = store.conn.execute("SELECT pool_id FROM pools WHERE name = ?", [pool]).fetchone()
    if row is None:
        raise StoreError(f"no pool {pool!r} in the store: build one with 'pooltool pool --depth K'")
    return int(row[0])


def pool_hits(store: JudgmentStore, pool: str = DEFAULT_POOL) -> pd.DataFrame:
    """Which runs retrieved each pooled document: ``topic, docno, run_tag, trec_rank``."""
    pool_id = _existing_pool_id(store, pool)
    return store.query(
        "SELECT h.topic, h.docno, r.run_tag, h.trec_rank FROM pool_hits h JOIN runs r "
        "USING (run_id) WHERE h.pool_id = ? ORDER BY h.topic, h.docno, r.run_tag", [pool_id])


def pool_rounds(store: JudgmentStore, pool: str = DEFAULT_POOL) -> pd.DataFrame:
    """The pooling rounds of a pool: ``round_id, depth, run_tags, docs_added, created_at``."""
    pool_id = _existing_pool_id(store, pool)
    return store.query(
        "SELECT round_id, depth, run_tags, docs_added, created_at FROM pool_rounds "
        "WHERE pool_id = ? ORDER BY round_id", [pool_id])


def judging_queue(store: JudgmentStore, pool: str = DEFAULT_POOL,
                  policy: str = "latest") -> pd.DataFrame:
    """Pooled documents that still need a judgment, as :func:`pool_docs` returns them.

    A pair counts as judged when the current qrels (under ``policy``) give it a
    grade >= 0; a negative grade (e.g. -1 "pooled but not judged") leaves it
    in the queue, as trec_eval treats it as unjudged.
    """
    docs = pool_docs(store, pool)
    return docs[~_judged_mask(docs, store.qrels(policy=policy))].reset_index(drop=True)


def _judged_mask(pairs: pd.DataFrame, qrels: pd.DataFrame) -> pd.Series:
    return pd.Series(pair_isin(pairs, qrels[qrels["grade"] >= 0]), index=pairs.index)


def pair_isin(frame: pd.DataFrame, other: pd.DataFrame) -> np.ndarray:
    """For each row of ``frame``, whether its (topic, docno) pair occurs in ``other``."""
    keys = pd.MultiIndex.from_frame(other[["topic", "docno"]])
    return np.asarray(pd.MultiIndex.from_frame(frame[["topic", "docno"]]).isin(keys))


def pool_status(store: JudgmentStore, pool: str = DEFAULT_POOL, level: int = 1,
                policy: str = "latest") -> pd.DataFrame:
    """Judging progress per topic of a pool.

    :returns: one row per pooled topic: ``topic``; ``pooled`` (pairs in the
        pool); ``judged`` (pooled pairs with a grade >= 0); ``unjudged``;
        ``relevant`` (pooled pairs with grade >= ``level``); ``judged_outside``
        (judgments of the topic for documents not in the pool); ``done``
        (judged / pooled, a fraction 0..1).
    """
    docs = pool_docs(store, pool)
    qrels = store.qrels(policy=policy)
    docs = docs.merge(qrels[["topic", "docno", "grade"]], on=["topic", "docno"], how="left")
    per_topic = docs.groupby("topic", sort=True).agg(
        pooled=("docno", "size"),
        judged=("grade", lambda g: int((g >= 0).sum())),
        relevant=("grade", lambda g: int((g >= level).sum())),
    )
    per_topic["unjudged"] = per_topic["pooled"] - per_topic["judged"]
    outside = _judged_outside(qrels, docs)
    per_topic["judged_outside"] = outside.reindex(per_topic.index, fill_value=0).astype("int64")
    per_topic["done"] = per_topic["judged"] / per_topic["pooled"]
    columns = ["pooled", "judged", "unjudged", "relevant", "judged_outside", "done"]
    order = sorted(per_topic.index, key=topic_key)
    return per_topic.loc[order, columns].reset_index()


def _judged_outside(qrels: pd.DataFrame, docs: pd.DataFrame) -> pd.Series:
    outside = qrels[~pair_isin(qrels, docs) & (qrels["grade"] >= 0).to_numpy()]
    return outside.groupby("topic").size()


def pool_contributors(store: JudgmentStore, pool: str = DEFAULT_POOL) -> tuple[list[str], int]:
    """The runs that built a pool (in first-pooled order) and its largest depth.

    :raises StoreError: no such pool.
    """
    rounds = pool_rounds(store, pool)
    tags: list[str] = []
    for listed in rounds["run_tags"]:
        tags += [t for t in json.loads(listed) if t not in tags]
    return tags, int(rounds["depth"].max())


def top_entries(store: JudgmentStore, run_tags: list[str], depth: int) -> pd.DataFrame:
    """The first ``depth`` documents per topic of stored runs, in trec_eval order.

    :returns: columns ``run_tag, topic, docno, score, trec_rank``.
    :raises UnknownRun: a tag not in the store.
    """
    frames = [
        store.query("SELECT ? AS run_tag, topic, docno, score, trec_rank FROM run_entries "
                    "WHERE run_id = ? AND trec_rank <= ?", [tag, store.run_id(tag), depth])
        for tag in run_tags
    ]
    return pd.concat(frames, ignore_index=True)
