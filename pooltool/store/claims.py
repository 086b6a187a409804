"""Claims on shown documents: two assessors on one shared topic see different documents.

A judging app claims the document it shows on a topic that is not assigned to
its assessor (on an assigned topic every assessor judges every document, so
claims do not apply). A claim lasts :data:`DEFAULT_CLAIM_MINUTES` minutes
(store setting ``claim_minutes``) from the assessor's last action on it; it
lapses when the app dies or idles, and another assessor can then take the
document. The judging app renews the claim on the document it shows while it stays
on screen (:class:`~pooltool.judging.claiming.SessionClaims`), and gives its claims
up on every way out of the judging screen. One claim per (topic, docno); claims are
working state, replaced freely (table ``claims``, migration ``m008_claims``).

Claims are stamped and compared with the store's :attr:`ClaimTable.claim_clock`
(UTC now; tests give it another clock rather than sleep).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, NamedTuple

from pooltool.errors import InvalidArgument
from pooltool.records import JUDGED_MIN_GRADE
from pooltool.store.core import StoreCore
from pooltool.store.judged import LIVE, PERSON

DEFAULT_CLAIM_MINUTES = 5.0

CLAIM_WAIT_MS = 2_000
"""How long, in milliseconds, a judging app waits for the store's write lock to claim
the document it is about to show (a store still busy then leaves it waiting, not
shown for grading, and the app tries again: :mod:`pooltool.judging.claiming`).
Longer than a write's wait (:data:`~pooltool.store.journal.BUSY_WAIT_MS`): a write
that must wait is journalled and retried, but a claim decides which of two apps shows
a document. Once a write or a claim found the lock held that long, later claims do not wait
until a write gets the lock again (:attr:`~pooltool.store.journal.WriteQueue.busy`),
so another process holding the lock for long (an import) freezes the screen once,
not on every document. PostgreSQL's advisory lock serves waiters in turn;
SQLite's waiters poll, so with many writers a claim can time out
(``bench/bench_store_load.py``, bench/README.md)."""


def _stamp(moment: datetime) -> str:
    """A time as :func:`~pooltool.store.provenance.utc_now` writes it (comparable as text)."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


def utc_clock() -> datetime:
    """Now, in UTC (the claim clock of a store, unless a test gives it another)."""
    return datetime.now(UTC)


CLAIM_CANDIDATES = 8
"""How many candidates one claim statement decides (:meth:`ClaimTable.claim_first`):
the first one is usually free; a fixed count (fewer are padded with the last) keeps
one statement text, which a PostgreSQL connection prepares once."""


def _claim_statement(candidates: int) -> str:
    """The statement that claims the first of ``candidates`` ``(position, docno)`` rows
    that another assessor neither holds nor judged, returning its docno (no row: none
    was free). The judged rule is :meth:`~pooltool.store.JudgmentStore.current_judgment`'s
    (policy ``latest``, people only): a person's latest live judgment of the pair with a
    grade >= 0 gives the pair its grade when there is one (else a negative one leaves it
    unjudged), so another assessor judged it when that row is theirs.
    Parameters: topic, assessor, now, expiry; the candidates' pairs; topic, assessor,
    now (others' claims); topic, assessor, assessor (others' judgments)."""
    rows = ", ".join(["(?, ?)"] * candidates)
    return (
        "INSERT INTO claims(topic, docno, assessor, claimed_at, expires_at) "
        f"SELECT ?, c.column2, ?, ?, ? FROM (VALUES {rows}) AS c "
        "WHERE NOT EXISTS (SELECT 1 FROM claims h WHERE h.topic = ? AND h.docno = c.column2 "
        "AND h.assessor != ? AND h.expires_at > ?) "
        "AND COALESCE((SELECT j.assessor FROM judgments j WHERE j.topic = ? "
        f"AND j.docno = c.column2 AND j.grade >= {JUDGED_MIN_GRADE} AND {LIVE} AND {PERSON} "
        "ORDER BY j.judgment_id DESC LIMIT 1), ?) = ? "
        "ORDER BY c.column1 LIMIT 1 "
        "ON CONFLICT(topic, docno) DO UPDATE SET assessor = excluded.assessor, "
        "claimed_at = excluded.claimed_at, expires_at = excluded.expires_at "
        "RETURNING docno")


CLAIM_STATEMENT = _claim_statement(CLAIM_CANDIDATES)
""":func:`_claim_statement` of :data:`CLAIM_CANDIDATES` candidates."""


def check_claim_minutes(minutes: float) -> float:
    """``minutes`` as a claim's length, checked.

    :raises InvalidArgument: not more than 0 (a claim of 0 minutes lapses at once, which
        would turn claims off: two assessors would be shown one document).
    """
    if not minutes > 0:
        raise InvalidArgument(f"a claim lasts more than 0 minutes, not {minutes:g}")
    return float(minutes)


def claim_minutes(setting: object) -> float:
    """How long claims last, from the store's ``claim_minutes`` setting (``None``:
    unset): :data:`DEFAULT_CLAIM_MINUTES` when unset, or when not more than 0 (which
    an older pooltool accepted, and which would turn claims off)."""
    try:
        minutes = float(setting)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return DEFAULT_CLAIM_MINUTES
    return minutes if minutes > 0 else DEFAULT_CLAIM_MINUTES


class Claim(NamedTuple):
    """Another assessor's claim that has not lapsed: ``expires_at`` in UTC."""

    docno: str
    assessor: str
    expires_at: datetime


class ClaimTable(StoreCore):
    """Claim methods of :class:`~pooltool.store.JudgmentStore` (a mixin).

    :ivar claim_clock: gives the time claims are stamped and compared with (UTC);
        :func:`utc_clock` unless replaced (tests replace it instead of sleeping).
    """

    claim_clock: Callable[[], datetime] = staticmethod(utc_clock)

    if TYPE_CHECKING:  # pooltool.store.judged's
        def judged_statement(self) -> str: ...

        def judged_docnos(self, topic: str) -> set[str]: ...

    def claim(self, topic: str, docno: str, assessor: str, minutes: float) -> bool:
        """Claim a document for ``minutes`` from now (renewing the assessor's own claim).

        Decided under the store's write lock, so of two apps claiming one document at
        once exactly one gets it (:meth:`claim_first` of the one document).

        :returns: whether the assessor holds the claim now (``False``: another
            assessor's claim has not lapsed, or another assessor has judged the
            document: its current grade, as
            :meth:`~pooltool.store.JudgmentStore.judged_docnos` counts it, is
            theirs and judged).
        :raises InvalidArgument: ``minutes`` is not more than 0.
        """
        return self.claim_first(topic, [docno], assessor, minutes) == docno

    def claim_first(self, topic: str, docnos: Sequence[str], assessor: str,
                    minutes: float) -> str | None:
        """Claim the first of ``docnos`` that another assessor neither holds (a claim
        that has not lapsed) nor has judged (the current judgment of the pair,
        :meth:`~pooltool.store.JudgmentStore.current_judgment`, is theirs and judged),
        in one transaction under the store's write lock: when other apps took the next
        documents between the read the candidates came from and this claim (apps on one
        topic choose alike), the one after them is claimed without a transaction each.
        :data:`CLAIM_CANDIDATES` candidates at a time are decided and the claim written
        in one statement (:data:`CLAIM_STATEMENT`): a grade key's claim is one round
        trip to a server inside its transaction, where reading the claims, the
        candidate's judgments and writing the claim were three.

        :returns: the docno claimed (``None``: another assessor holds or judged each).
        :raises InvalidArgument: ``minutes`` is not more than 0.
        """
        minutes = check_claim_minutes(minutes)
        if not docnos:
            return None
        now = self.claim_clock()
        stamp, expires = _stamp(now), _stamp(now + timedelta(minutes=minutes))
        with self.writing() as conn:
            for start in range(0, len(docnos), CLAIM_CANDIDATES):
                chunk = list(docnos[start:start + CLAIM_CANDIDATES])
                chunk += [chunk[-1]] * (CLAIM_CANDIDATES - len(chunk))  # one statement text
                row = conn.execute(CLAIM_STATEMENT, [
                    topic, assessor, stamp, expires,
                    *(value for pair in enumerate(chunk) for value in pair),
                    topic, assessor, stamp, topic, assessor, assessor]).fetchone()
                if row is not None:
                    return str(row[0])
        return None

    def claimed_by_others(self, topic: str, assessor: str) -> set[str]:
        """Docnos of a topic that other assessors hold claims on that have not lapsed."""
        return {claim.docno for claim in self.claims_of_others(topic, assessor)}

    def taken_by_others(self, topic: str, assessor: str) -> set[str]:
        """Docnos of a topic that another assessor has on screen (:meth:`claimed_by_others`)
        or anyone has judged (:meth:`~pooltool.store.JudgmentStore.judged_docnos`), read
        in one statement: the judging screen reads it on every move."""
        rows = self.conn.execute(
            f"{self.judged_statement()} UNION SELECT docno FROM claims WHERE topic = ? "
            "AND assessor != ? AND expires_at > ?",
            [topic, topic, assessor, _stamp(self.claim_clock())]).fetchall()
        taken = {row[0] for row in rows}
        if None in taken:  # a duplicate finding in force: judged docnos from the qrels
            return self.judged_docnos(topic) | self.claimed_by_others(topic, assessor)
        return {str(docno) for docno in taken}

    def claims_of_others(self, topic: str, assessor: str) -> list[Claim]:
        """The claims other assessors hold on a topic that have not lapsed, by docno."""
        rows = self.conn.execute(
            "SELECT docno, assessor, expires_at FROM claims WHERE topic = ? AND assessor != ? "
            "AND expires_at > ? ORDER BY docno", [topic, assessor, _stamp(self.claim_clock())])
        return [Claim(str(docno), str(who), datetime.fromisoformat(str(expires)))
                for docno, who, expires in rows]

    def release_claims(self, topic: str, assessor: str) -> None:
        """Drop the assessor's claims on a topic (they left it)."""
        with self.writing() as conn:
            conn.execute("DELETE FROM claims WHERE topic = ? AND assessor = ?", [topic, assessor])

