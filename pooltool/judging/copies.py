"""Copies in one topic's pool, as the judging screen shows them: the queue holds one
document of each unit of copies (:meth:`~pooltool.store.JudgmentStore.pooled_copies`;
:func:`pooltool.judging.queue.queue_state` leaves the others out), whose judgment the
qrels give the others (:mod:`pooltool.store.duplicates`). The screen says how many
copies the document on screen stands for, and an assessor who finds that one of them
is not a copy splits it off: the split is recorded (through the session's write queue,
so a busy or away store keeps it in the journal: :class:`PoolCopies` sets the copy
apart at once), and the copy joins the queue to be judged on its own."""

from __future__ import annotations

import pandas as pd

from pooltool.formats.frames import pair_isin
from pooltool.records import is_judged
from pooltool.store import DEFAULT_POOL, JudgmentStore
from pooltool.store.duplicates import DEFAULT_PROPAGATE


class PoolCopies:
    """The hidden copies of one topic's pool, by the docno shown for them.

    :param store: the store (its newest duplicate finding and splits).
    :param topic: the topic.
    :param pool: the pool.
    """

    def __init__(self, store: JudgmentStore, topic: str, pool: str = DEFAULT_POOL) -> None:
        self.store, self.topic, self.pool = store, topic, pool
        self.hidden: dict[str, list[str]] = {}
        self.split_off: set[str] = set()  # split here: kept apart while the store has not the split yet
        self.read()

    def read(self) -> None:
        """Read the copies again from the store (this session's splits kept apart)."""
        copies = self.store.pooled_copies(self.store.pool_pairs(self.pool, [self.topic]))
        hidden = {str(shown): sorted(set(map(str, group["docno"])) - self.split_off)
                  for shown, group in copies.groupby("shown")}
        self.hidden = {shown: docnos for shown, docnos in hidden.items() if docnos}

    def of(self, docno: str) -> list[str]:
        """The pooled copies ``docno`` stands for (none: it has none)."""
        return self.hidden.get(docno, [])

    def split(self, docno: str) -> str | None:
        """Set the first copy ``docno`` stands for apart (the caller records the split in
        the store: write ``split_copy``); returns that copy's docno (``None``: no copy)."""
        copies = self.of(docno)
        if not copies:
            return None
        self.split_off.add(copies[0])
        self.read()
        return copies[0]


def copies_text(count: int) -> str:
    """``3 copies in this pool`` (``1 copy``); empty for none."""
    if not count:
        return ""
    return f"{count} cop{'y' if count == 1 else 'ies'} in this pool"




def saved_judgments(store: JudgmentStore, pool: str = DEFAULT_POOL,
                    propagate: str = DEFAULT_PROPAGATE) -> pd.DataFrame:
    """Judgments copies saved (``pooltool status``): per pooled topic, the pooled pairs
    judged (grade >= 0) only through a copy's judgment under ``propagate``.

    :returns: columns ``topic, saved`` (int), one row per pooled topic.
    :raises StoreError: no such pool.
    """
    docs = store.pool_pairs(pool)
    own = store.qrels(propagate="none")
    derived = store.qrels(propagate=propagate)
    derived = derived[is_judged(derived["grade"]).to_numpy()]
    own = own[is_judged(own["grade"]).to_numpy()]
    saved = derived[~pair_isin(derived, own)]
    saved = saved[pair_isin(saved, docs)]
    counts = saved.groupby("topic").size()
    topics = pd.Series(sorted(set(docs["topic"])), dtype=object)
    return pd.DataFrame({"topic": topics,
                         "saved": topics.map(counts).fillna(0).astype("int64")})


__all__ = ["PoolCopies", "copies_text", "saved_judgments"]
