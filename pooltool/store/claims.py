"""Claims on shown documents: two assessors on one shared topic see different documents.

A judging app claims the document it shows on a topic that is not assigned to
its assessor (on an assigned topic every assessor judges every document, so
claims do not apply). A claim lasts :data:`DEFAULT_CLAIM_MINUTES` minutes
(store setting ``claim_minutes``) from the assessor's last action on it; it
lapses when the app dies or idles, and another assessor can then take the
document. One claim per (topic, docno); claims are working state, replaced
freely (table ``claims``, migration ``m008_claims``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pooltool.records import is_judged
from pooltool.store.core import StoreCore
from pooltool.store.provenance import utc_now

DEFAULT_CLAIM_MINUTES = 5.0

CLAIM_WAIT_MS = 2_000
"""How long, in milliseconds, a judging app waits for the store's write lock to claim
the document it is about to show (a store still busy then leaves it shown unclaimed).
Longer than a write's wait (:data:`~pooltool.store.journal.BUSY_WAIT_MS`): a write
that must wait is journalled and retried, but a claim decides which of two apps shows
a document. Short enough that the screen does not freeze for long while another
process holds the lock (an import). PostgreSQL's advisory lock serves waiters in turn;
SQLite's waiters poll, so with many writers a claim can time out
(``bench/bench_store_load.py``, bench/README.md)."""


def _stamp(moment: datetime) -> str:
    """A time as :func:`~pooltool.store.provenance.utc_now` writes it (comparable as text)."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


class ClaimTable(StoreCore):
    """Claim methods of :class:`~pooltool.store.JudgmentStore` (a mixin)."""

    def claim(self, topic: str, docno: str, assessor: str, minutes: float) -> bool:
        """Claim a document for ``minutes`` from now (renewing the assessor's own claim).

        Read and decided under the store's write lock, so of two apps claiming one
        document at once exactly one gets it.

        :returns: whether the assessor holds the claim now (``False``: another
            assessor's claim has not lapsed, or another assessor has judged the
            document: its current grade, as
            :meth:`~pooltool.store.JudgmentStore.judged_docnos` counts it, is
            theirs and judged).
        """
        now = datetime.now(UTC)
        with self.writing() as conn:
            row = conn.execute("SELECT assessor, expires_at FROM claims WHERE topic = ? "
                               "AND docno = ?", [topic, docno]).fetchone()
            if row is not None and row[0] != assessor and row[1] > _stamp(now):
                return False
            current = self.current_judgment(topic, docno)
            if current is not None and current[0] != assessor and is_judged(current[1]):
                return False
            conn.execute(
                "INSERT INTO claims(topic, docno, assessor, claimed_at, expires_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT(topic, docno) DO UPDATE SET "
                "assessor = excluded.assessor, claimed_at = excluded.claimed_at, "
                "expires_at = excluded.expires_at",
                [topic, docno, assessor, _stamp(now), _stamp(now + timedelta(minutes=minutes))])
        return True

    def claimed_by_others(self, topic: str, assessor: str) -> set[str]:
        """Docnos of a topic that other assessors hold claims on that have not lapsed."""
        rows = self.conn.execute(
            "SELECT docno FROM claims WHERE topic = ? AND assessor != ? AND expires_at > ?",
            [topic, assessor, utc_now()])
        return {str(row[0]) for row in rows}

    def release_claims(self, topic: str, assessor: str) -> None:
        """Drop the assessor's claims on a topic (they left it)."""
        with self.writing() as conn:
            conn.execute("DELETE FROM claims WHERE topic = ? AND assessor = ?", [topic, assessor])

