"""The judging queue of one topic, and where each assessor stands in it.

The queue is the topic's pooled documents in one of three reproducible orders
(:data:`ORDERS`):

``docno`` (default)
    Docnos sorted as strings (code-point order, as SQLite and trec_eval's
    ``strcmp`` compare them), so ``"10"`` comes before ``"9"``. NIST shows
    assessors the pool in docno order so that the order says nothing about
    the systems.
``rank``
    By the best trec_eval rank any pooled run gave the document (1 first),
    ties broken by docno. Documents with no recorded hit come last.
``random``
    By the sha256 of ``"<seed>\\t<topic>\\t<docno>"`` (hex, ascending), ties
    broken by docno. The same seed gives the same order on any machine and
    Python version, and documents added to the pool later slot in without
    reshuffling the rest.

Which documents an assessor's queue holds (:func:`queue_state`, the one
place the rule lives; the judging screen, the topic picker and
:mod:`pooltool.judging_stats` all use it):

* **judged by anyone**: a grade >= 0 in the current qrels (latest judgment,
  imported qrels included; a negative grade is unjudged, as in trec_eval);
* **judged by me**: the assessor's latest live judgment of the pair has a
  grade >= 0;
* on a topic **assigned** to the assessor (primary or overlap role), the
  documents *to judge* are the pooled ones they have not judged themselves,
  so an overlap topic gets its second judgment;
* on any other topic, the documents to judge are the pooled ones nobody has
  judged;
* the **queue** is the documents to judge plus those the assessor judged
  (so they can revisit and regrade them); **remaining** is the number of
  documents to judge.
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

import pandas as pd

from pooltool.assignment import assigned_topics
from pooltool.errors import StoreError, UnknownTopic
from pooltool.pooling import DEFAULT_POOL, pair_isin, pool_docs
from pooltool.records import topic_key
from pooltool.store import JudgmentStore

ORDERS = ("docno", "rank", "random")


class OwnJudgment(NamedTuple):
    """One live judgment of an assessor: the log row id, the document, its grade,
    the time spent on it and its note."""

    judgment_id: int
    docno: str
    grade: int
    ms_spent: int | None
    note: str | None = None


def order_queue(rows: list[tuple[str, int | None]], order: str = "docno", seed: int = 0,
                topic: str = "") -> list[str]:
    """Put a topic's pooled documents in queue order.

    :param rows: ``(docno, best_rank)`` pairs; ``best_rank`` may be ``None``.
    :param order: one of :data:`ORDERS` (see the module docstring).
    :param seed: the seed of the ``random`` order.
    :param topic: the topic id (part of the ``random`` key).
    :returns: the docnos in queue order.
    :raises StoreError: unknown order.
    """
    if order == "docno":
        return sorted(docno for docno, _ in rows)
    if order == "rank":
        return [d for d, _ in sorted(rows, key=lambda r: (r[1] is None, r[1] or 0, r[0]))]
    if order == "random":
        return sorted((d for d, _ in rows), key=lambda d: (_random_key(seed, topic, d), d))
    raise StoreError(f"unknown queue order {order!r}; choose one of {', '.join(ORDERS)}")


def _random_key(seed: int, topic: str, docno: str) -> str:
    return hashlib.sha256(f"{seed}\t{topic}\t{docno}".encode()).hexdigest()


def topic_queue(store: JudgmentStore, topic: str, order: str = "docno", seed: int = 0,
                pool: str = DEFAULT_POOL, assessor: str | None = None) -> list[str]:
    """The docnos of a topic's judging queue, in ``order``.

    :param assessor: keep only this assessor's queue (see the module docstring;
        it may be empty); default: every pooled document.
    :raises StoreError: no such pool, or an unknown order.
    :raises UnknownTopic: the topic has no pooled documents.
    """
    rows = store.conn.execute(
        "SELECT d.docno, MIN(h.trec_rank) FROM pool_docs d JOIN pools p USING (pool_id) "
        "LEFT JOIN pool_hits h ON h.pool_id = d.pool_id AND h.topic = d.topic "
        "AND h.docno = d.docno WHERE p.name = ? AND d.topic = ? GROUP BY d.docno",
        [pool, topic]).fetchall()
    if not rows:
        _check_pool(store, pool)
        raise UnknownTopic(f"topic {topic!r} has no documents in pool {pool!r}")
    if assessor is not None:
        state = queue_state(store, assessor, [topic], pool)
        queued = set(state.loc[state["queued"], "docno"])
        rows = [row for row in rows if row[0] in queued]
    return order_queue(rows, order, seed, topic)


def _check_pool(store: JudgmentStore, pool: str) -> None:
    if store.conn.execute("SELECT 1 FROM pools WHERE name = ?", [pool]).fetchone() is None:
        raise StoreError(f"no pool {pool!r} in the store: build one with 'pooltool pool --depth K'")


def own_judgments(store: JudgmentStore, topic: str, assessor: str) -> list[OwnJudgment]:
    """An assessor's live judgments of a topic, oldest first (several per document
    when they regraded it; the last one is their current grade)."""
    rows = store.conn.execute(
        "SELECT judgment_id, docno, grade, ms_spent, note FROM judgments j "
        "WHERE topic = ? AND assessor = ? AND grade IS NOT NULL AND NOT EXISTS "
        "(SELECT 1 FROM judgments r WHERE r.retracts = j.judgment_id) ORDER BY judgment_id",
        [topic, assessor]).fetchall()
    return [OwnJudgment(*row) for row in rows]


def judged_by(store: JudgmentStore, assessor: str) -> pd.DataFrame:
    """The ``topic, docno`` pairs an assessor has judged: their latest live
    judgment of the pair has a grade >= 0 (a negative grade is unjudged, as in
    trec_eval); none (not an error) for an assessor who has judged nothing yet."""
    rows = store.query(
        "SELECT topic, docno, grade FROM judgments j WHERE assessor = ? "
        "AND grade IS NOT NULL AND NOT EXISTS "
        "(SELECT 1 FROM judgments r WHERE r.retracts = j.judgment_id) ORDER BY judgment_id",
        [assessor])
    latest = rows.drop_duplicates(["topic", "docno"], keep="last")
    return latest.loc[latest["grade"] >= 0, ["topic", "docno"]].reset_index(drop=True)


def queue_state(store: JudgmentStore, assessor: str, topics: list[str] | None = None,
                pool: str = DEFAULT_POOL) -> pd.DataFrame:
    """The queue rule (module docstring) applied to every pooled pair.

    :param topics: only these topics (default: all pooled topics).
    :returns: one row per pooled pair: ``topic, docno, grade`` (current
        qrels, NaN when none), ``judged_any``, ``judged_me``, ``assigned``
        (the topic is assigned to ``assessor``), ``queued`` (in their queue)
        and ``todo`` (still to judge: what "remaining" counts).
    :raises StoreError: no such pool.
    """
    docs = pool_docs(store, pool)
    if topics:
        docs = docs[docs["topic"].isin(topics)]
    latest = store.qrels()
    docs = docs.merge(latest[["topic", "docno", "grade"]], on=["topic", "docno"], how="left")
    docs["judged_any"] = (docs["grade"] >= 0).astype(bool)
    docs["judged_me"] = pair_isin(docs, judged_by(store, assessor)).astype(bool)
    docs["assigned"] = docs["topic"].isin(assigned_topics(store, assessor)).astype(bool)
    docs["todo"] = ~docs["judged_me"] & (docs["assigned"] | ~docs["judged_any"])
    docs["queued"] = docs["todo"] | docs["judged_me"]
    return docs.reset_index(drop=True)


def hits_of(store: JudgmentStore, topic: str, docno: str,
            pool: str = DEFAULT_POOL) -> list[tuple[str, int]]:
    """Which pooled runs retrieved a document, and at which trec_eval rank, best first."""
    return store.conn.execute(
        "SELECT r.run_tag, h.trec_rank FROM pool_hits h JOIN runs r USING (run_id) "
        "JOIN pools p USING (pool_id) WHERE p.name = ? AND h.topic = ? AND h.docno = ? "
        "ORDER BY h.trec_rank, r.run_tag", [pool, topic, docno]).fetchall()


def topic_progress(store: JudgmentStore, assessor: str, topics: list[str] | None = None,
                   pool: str = DEFAULT_POOL, level: int = 1) -> pd.DataFrame:
    """Judging progress of each pooled topic, for the topic picker.

    :param topics: only these topics (default: all pooled topics).
    :param level: the lowest grade counted as relevant.
    :returns: one row per topic, topics in :func:`~pooltool.records.topic_key`
        order (2 before 10): ``topic, title, pooled``; ``judged_any`` (pooled
        documents with a grade >= 0 in the current qrels, by anyone, imported
        qrels included); ``judged_me`` (pooled documents ``assessor`` has
        judged); ``queue`` (the size of their queue) and ``remaining`` (what
        is left to judge in it), both by the rule of the module docstring;
        ``relevant`` (grade >= ``level`` in the current qrels); ``done``
        ((queue - remaining) / queue, 0..1; 1 for an empty queue).
    :raises StoreError: no such pool.
    """
    docs = queue_state(store, assessor, topics, pool)
    table = docs.groupby("topic", sort=True).agg(
        pooled=("docno", "size"),
        judged_any=("judged_any", "sum"),
        judged_me=("judged_me", "sum"),
        queue=("queued", "sum"),
        remaining=("todo", "sum"),
        relevant=("grade", lambda g: int((g >= level).sum())),
    ).reset_index()
    for column in ("judged_any", "judged_me", "queue", "remaining"):
        table[column] = table[column].astype("int64")
    table["done"] = [1.0 if q == 0 else (q - r) / q
                     for q, r in zip(table["queue"], table["remaining"], strict=True)]
    table = table.iloc[sorted(range(len(table)), key=lambda i: topic_key(table["topic"].iat[i]))]
    table = table.reset_index(drop=True)
    titles = store.topics().set_index("topic")["title"]
    table.insert(1, "title", table["topic"].map(titles).astype(object).fillna(""))
    return table[["topic", "title", "pooled", "judged_any", "judged_me", "queue",
                  "remaining", "relevant", "done"]]
