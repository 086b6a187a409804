"""Adjudicated judgments: an adjudicator's grade that settles a disagreement.

An adjudication is an ordinary row of the judgment log (so it is live, retracted and
undone as any judgment is: :meth:`~pooltool.store.judgments.JudgmentLog.retract`),
written by the adjudicator with origin :data:`ORIGIN`, plus one row of table
``adjudications`` (migration ``m016_adjudications``) for each judgment it resolves:
the assessors' grades that disagreed when it was made. Both are written in one
transaction; neither table is ever updated.

The rules read from it:

* a judgment is an **adjudication** when ``adjudications`` names it (its
  ``judgment_id``); the qrels policy ``adjudicated`` takes the latest live
  adjudication of a pair (:mod:`pooltool.store.policy`);
* a disagreement is **resolved** when a live adjudication resolves every
  assessor's current own grade of the pair (a grade changed afterwards makes it a
  new disagreement: :mod:`pooltool.judging.adjudication`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pooltool.errors import InvalidArgument, StoreError
from pooltool.records import is_judged
from pooltool.store.core import StoreCore
from pooltool.store.engine import Engine
from pooltool.store.judged import LIVE
from pooltool.store.provenance import utc_now

if TYPE_CHECKING:
    import pandas as pd

ORIGIN = "adjudicate"
"""The ``origin`` of an adjudicated judgment's row in the log."""


MIGRATION = "m016_adjudications"


def has_adjudications(conn: Engine) -> bool:
    """Whether the store has the table (a shared store not upgraded yet lacks it: it
    holds no adjudication, and is read as such)."""
    return MIGRATION not in conn.pending_migrations()


def adjudication_ids(conn: Engine) -> frozenset[int]:
    """The ``judgment_id`` of every adjudication (live or retracted) in the store of
    ``conn`` (what policy ``adjudicated`` sets apart: :mod:`pooltool.store.policy`)."""
    if not has_adjudications(conn):
        return frozenset()
    rows = conn.execute("SELECT DISTINCT judgment_id FROM adjudications").fetchall()
    return frozenset(int(row[0]) for row in rows)


class AdjudicationTable(StoreCore):
    """Adjudication methods of :class:`~pooltool.store.JudgmentStore` (a mixin)."""

    def record_adjudication(self, topic: str, docno: str, grade: int, adjudicator: str,
                            resolves: Sequence[int], *, note: str | None = None,
                            ms_spent: int | None = None, judged_at: str | None = None) -> int:
        """Append the adjudicator's grade of a pair as a judgment and name the judgments
        it resolves, in one transaction.

        :param grade: the adjudicated grade (>= 0: a negative grade is no judgment).
        :param resolves: ``judgment_id``\\ s of live judgments of this topic and docno
            (the assessors' disagreeing grades), at least one.
        :param judged_at: when the adjudicator pressed the key (UTC, ISO 8601; default
            now: a write that waited in a journal keeps its key press's time).
        :returns: the adjudication's ``judgment_id`` (retract it to undo).
        :raises InvalidArgument: a negative grade, or no judgment to resolve.
        :raises StoreError: a resolved judgment that is not a live judgment of the pair.
        """
        if not is_judged(int(grade)):
            raise InvalidArgument(f"an adjudicated grade is a judgment: >= 0, not {grade}")
        if not resolves:
            raise InvalidArgument("an adjudication resolves at least one judgment")
        if not has_adjudications(self.conn):
            raise StoreError(f"the store lacks {MIGRATION}: upgrade it first ('pooltool store "
                             "upgrade', by its owner) to record adjudications")
        with self.writing() as conn:
            for judgment_id in resolves:
                row = conn.execute(
                    f"SELECT 1 FROM judgments j WHERE judgment_id = ? AND topic = ? AND docno = ? "
                    f"AND {LIVE}", [int(judgment_id), topic, docno]).fetchone()
                if row is None:
                    raise StoreError(f"judgment {judgment_id} is not a live judgment of topic "
                                     f"{topic} docno {docno}: it cannot be adjudicated")
            adjudication = conn.insert_id(
                "INSERT INTO judgments(topic, docno, grade, iteration, assessor, judged_at, "
                "ms_spent, note, origin) VALUES (?, ?, ?, '0', ?, ?, ?, ?, ?) "
                "RETURNING judgment_id",
                [topic, docno, int(grade), adjudicator, judged_at or utc_now(), ms_spent, note,
                 ORIGIN])
            conn.executemany("INSERT INTO adjudications(judgment_id, resolves) VALUES (?, ?)",
                             [(adjudication, int(j)) for j in sorted(set(resolves))])
        return adjudication

    def adjudication_ids(self) -> frozenset[int]:
        """:func:`adjudication_ids` of this store."""
        return adjudication_ids(self.conn)

    def live_adjudications(self, topics: Sequence[str] | None = None) -> pd.DataFrame:
        """Live adjudications and what each resolves, one row per resolved judgment.

        :param topics: only these topics (default: all).
        :returns: columns ``judgment_id, topic, docno, grade, assessor, judged_at, note,
            resolves`` (``assessor``: the adjudicator), in log order.
        """
        import pandas as pd  # here, not at the top: the store opens without pandas

        columns = "judgment_id, topic, docno, grade, assessor, judged_at, note, resolves"
        if not has_adjudications(self.conn):
            return pd.DataFrame(columns=columns.split(", "))
        rows = self.query(
            "SELECT j.judgment_id, j.topic, j.docno, j.grade, j.assessor, j.judged_at, j.note, "
            "a.resolves FROM judgments j JOIN adjudications a ON a.judgment_id = j.judgment_id "
            f"WHERE {LIVE} ORDER BY j.judgment_id, a.resolves")
        if topics is not None:
            rows = rows[rows["topic"].isin(list(topics))].reset_index(drop=True)
        return rows
