"""What the judging app checks before it opens (:func:`~pooltool.tui.app.make_app`),
and ``judge --serve`` before any assessor is known (:func:`check_judgeable`): the
queue order, the pool, the topics, the grade scale; and the topics the picker
lists (:func:`picker_topics`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pooltool.errors import InvalidArgument, StoreError, StoreWriteFailed, UnknownTopic
from pooltool.judging.queue import ORDERS
from pooltool.records import topic_key
from pooltool.store import DEFAULT_POOL, JudgmentStore
from pooltool.tui.keys import check_grade_scale


def check_judgeable(db: str | Path, topics: Sequence[str] = (), order: str = "docno",
                    pool: str = DEFAULT_POOL) -> None:
    """What :func:`~pooltool.tui.app.make_app` checks before any assessor is known
    (``judge --serve``), and that the store can be written.

    :raises StoreError: as :func:`~pooltool.tui.app.make_app`, or the store cannot be
        written (:class:`~pooltool.errors.StoreWriteFailed`).
    :raises UnknownTopic: a topic with no pooled documents.
    """
    store = checked_store(db, "", topics, order, pool)
    read_only = store.read_only
    store.close()
    if read_only:
        raise StoreWriteFailed(f"{db}: the store can be read but not written (read-only file "
                               "or folder), and judging writes to it")


def checked_store(db: str | Path, assessor: str, topics: Sequence[str], order: str,
                   pool: str) -> JudgmentStore:
    """The store at ``db``, open, once order, pool, topics and grade scale are checked."""
    if order not in ORDERS:
        raise InvalidArgument(f"unknown queue order {order!r}; choose one of {', '.join(ORDERS)}")
    store = JudgmentStore.open(db)
    try:
        picker_topics(store, assessor, list(topics), pool)
        check_grade_scale(store.grade_scale())
    except BaseException:
        store.close()
        raise
    return store


def picker_topics(store: JudgmentStore, assessor: str, topics: list[str], pool: str) -> list[str]:
    """The picker's topics, in :func:`~pooltool.records.topic_key` order (2 before 10)."""
    pooled = sorted(store.pooled_topics(pool), key=topic_key)
    if not pooled:
        store.pool_id(pool)  # no such pool: says so
        raise StoreError(f"pool {pool!r} holds no documents: build it with 'pooltool pool'")
    missing = [t for t in topics if t not in set(pooled)]
    if missing:
        raise UnknownTopic(f"no pooled documents for topic(s) {', '.join(missing)}")
    assigned = [t for t in store.assigned_topics(assessor) if t in set(pooled)]
    return sorted(dict.fromkeys(topics or assigned or pooled), key=topic_key)
