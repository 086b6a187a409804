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
place the rule lives; the judging screen, the topic picker,
:func:`pool_status` and :mod:`pooltool.judging.pace` all use it; "judged",
"own grade" and "assigned" are the store's rules, :mod:`pooltool.store.judged`):

* **judged by anyone**: judged (grade >= 0) in the current qrels (latest
  judgment, imported qrels included; a negative grade is unjudged, as in
  trec_eval);
* **judged by me**: the assessor's own grade of the pair is judged (>= 0);
* on a topic **assigned** to the assessor (primary or overlap role), the
  documents *to judge* are the pooled ones they have not judged themselves,
  so an overlap topic gets its second judgment;
* on any other topic, the documents to judge are the pooled ones nobody has
  judged;
* a pooled **copy** of another pooled document (the same normalised text: one unit of
  :meth:`~pooltool.store.JudgmentStore.pooled_copies`) is never to judge: the queue
  shows the first of them by docno, whose judgment the qrels give the others;
* the **queue** is the documents to judge plus those the assessor judged
  (so they can revisit and regrade them); **remaining** is the number of
  documents to judge.

The next document to judge is this module's rule plus four parts that live
where their state is, each stated once there and nowhere else:

* which documents, and in which order: here (:func:`queue_state`,
  :func:`order_queue`);
* which of them next (resume, "next unjudged" after the one on screen,
  skipped ones last, passing over what others took):
  :mod:`pooltool.judging.session`;
* on an adaptive pool, the strategy's choice instead:
  :class:`pooltool.judging.adaptive.AdaptivePicker` with the registry of
  :mod:`pooltool.judging.strategies`;
* who holds a document on a shared topic (leases): :mod:`pooltool.store.claims`;
* the skip marks and the last position an assessor had: :mod:`pooltool.store.workspace`.
"""

from __future__ import annotations

import hashlib

import pandas as pd

from pooltool.errors import InvalidArgument, UnknownTopic
from pooltool.formats.frames import pair_isin
from pooltool.records import is_judged, is_relevant, topic_key
from pooltool.store import DEFAULT_POOL, JudgmentStore

ORDERS = ("docno", "rank", "random")


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
    raise InvalidArgument(f"unknown queue order {order!r}; choose one of {', '.join(ORDERS)}")


def assessor_seed(seed: int, assessor: str) -> int:
    """A seed of the ``random`` order of its own for each assessor: the first 8 bytes of
    ``sha256("<seed>\\t<assessor>")`` as an integer. A queue that mixes a pool with a
    sample beyond it (``judge --with-sample``) is shuffled with it, so no two
    assessors see the documents in one order and none can learn where the sample sits."""
    digest = hashlib.sha256(f"{seed}\t{assessor}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


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
    rows = store.topic_pool_docs(topic, pool)
    if not rows:
        raise UnknownTopic(f"topic {topic!r} has no documents in pool {pool!r}")
    if assessor is not None:
        # the rule over the rows just read: pool_docs would read them again, with each
        # one's runs (a join and grouping over pool_hits, 50 ms of a server's time)
        pairs = pd.DataFrame({"topic": topic, "docno": [docno for docno, _ in rows]})
        state = _queue_rule(store, assessor, pairs, [topic])
        queued = set(state.loc[state["queued"], "docno"])
        rows = [row for row in rows if row[0] in queued]
    return order_queue(rows, order, seed, topic)


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
    scope = topics or None  # the store reads only these topics' rows
    return _queue_rule(store, assessor, store.pool_pairs(pool, scope), scope)


def _queue_rule(store: JudgmentStore, assessor: str, docs: pd.DataFrame,
                scope: list[str] | None) -> pd.DataFrame:
    """:func:`queue_state` of the pooled pairs ``docs`` (columns ``topic, docno`` at
    least) of the topics ``scope`` (``None``: all)."""
    latest = store.current_grades(scope)
    docs = docs.merge(latest[["topic", "docno", "grade"]], on=["topic", "docno"], how="left")
    docs["judged_any"] = is_judged(docs["grade"]).astype(bool)
    docs["judged_me"] = pair_isin(docs, store.judged_by(assessor)).astype(bool)
    docs["assigned"] = docs["topic"].isin(store.assigned_topics(assessor)).astype(bool)
    copy = pair_isin(docs, store.pooled_copies(docs)).astype(bool)  # shown through another
    docs["todo"] = ~docs["judged_me"] & ~copy & (docs["assigned"] | ~docs["judged_any"])
    docs["queued"] = docs["todo"] | docs["judged_me"]
    return docs.reset_index(drop=True)


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
    counts = pd.DataFrame({"topic": docs["topic"], "pooled": 1,
                           "judged_any": docs["judged_any"], "judged_me": docs["judged_me"],
                           "queue": docs["queued"], "remaining": docs["todo"],
                           "relevant": is_relevant(docs["grade"], level)})
    # one vectorised sum per column (a per-group function took most of a refresh)
    table = counts.groupby("topic", sort=True).sum().astype("int64").reset_index()
    table["done"] = [1.0 if q == 0 else (q - r) / q
                     for q, r in zip(table["queue"], table["remaining"], strict=True)]
    table = table.iloc[sorted(range(len(table)), key=lambda i: topic_key(table["topic"].iat[i]))]
    table = table.reset_index(drop=True)
    titles = store.topics().set_index("topic")["title"]
    table.insert(1, "title", table["topic"].map(titles).astype(object).fillna(""))
    return table[["topic", "title", "pooled", "judged_any", "judged_me", "queue",
                  "remaining", "relevant", "done"]]


def judging_queue(store: JudgmentStore, pool: str = DEFAULT_POOL,
                  policy: str = "latest") -> pd.DataFrame:
    """Pooled documents that still need a judgment by anyone, as
    :meth:`~pooltool.store.JudgmentStore.pool_docs` returns them.

    A pair is judged when the current qrels (under ``policy``) give it a grade
    >= 0 (:func:`~pooltool.records.is_judged`); a negative grade leaves it in
    the queue, as trec_eval treats it as unjudged.

    :raises StoreError: no such pool, or an unknown policy.
    """
    docs = store.pool_docs(pool)
    judged = _judged_qrels(store.qrels(policy=policy))
    return docs[~pair_isin(docs, judged)].reset_index(drop=True)


def _judged_qrels(qrels: pd.DataFrame) -> pd.DataFrame:
    return qrels[is_judged(qrels["grade"]).to_numpy()]


def pool_status(store: JudgmentStore, pool: str = DEFAULT_POOL, level: int = 1,
                policy: str = "latest") -> pd.DataFrame:
    """Judging progress per topic of a pool, by anyone (``pooltool status``).

    :param level: the lowest grade counted as relevant (trec_eval ``-l``).
    :param policy: how the qrels pick one grade per pair (see
        :mod:`pooltool.store.judgments`).
    :returns: one row per pooled topic, in :func:`~pooltool.records.topic_key`
        order (2 before 10): ``topic``; ``pooled`` (pairs in the pool);
        ``judged`` (pooled pairs with a grade >= 0); ``unjudged``; ``relevant``
        (pooled pairs with grade >= ``level``); ``judged_outside`` (judged pairs
        of the topic not in the pool); ``done`` (judged / pooled, 0..1).
    :raises StoreError: no such pool, or an unknown policy.
    """
    docs = store.pool_pairs(pool)
    qrels = store.qrels(policy=policy)
    docs = docs.merge(qrels[["topic", "docno", "grade"]], on=["topic", "docno"], how="left")
    per_topic = docs.groupby("topic", sort=True).agg(
        pooled=("docno", "size"),
        judged=("grade", lambda g: int(is_judged(g).sum())),
        relevant=("grade", lambda g: int(is_relevant(g, level).sum())),
    )
    per_topic["unjudged"] = per_topic["pooled"] - per_topic["judged"]
    judged = _judged_qrels(qrels)
    outside = judged[~pair_isin(judged, docs)].groupby("topic").size()
    per_topic["judged_outside"] = outside.reindex(per_topic.index, fill_value=0).astype("int64")
    per_topic["done"] = per_topic["judged"] / per_topic["pooled"]
    columns = ["pooled", "judged", "unjudged", "relevant", "judged_outside", "done"]
    order = sorted(per_topic.index, key=topic_key)
    return per_topic.loc[order, columns].reset_index()
