"""The claims of one judging session on a shared topic: taken, renewed, given up, and
told when others hold what is left.

No Textual here. The session (:class:`~pooltool.judging.session.JudgingSession`)
claims the document it puts on screen (:mod:`pooltool.store.claims`); the rules of
this module:

* **Taking** a claim waits for the store's write lock at most
  :data:`~pooltool.store.claims.CLAIM_WAIT_MS`, and not at all once the write queue
  knows the store is busy (:attr:`~pooltool.store.journal.WriteQueue.busy`): a store
  locked for long never freezes the screen on every document.
* **Waiting**: a claim the busy store did not take leaves the document not shown for
  grading (:attr:`SessionClaims.waiting`): another app may be showing it, and judging
  it would judge it twice. The app's timer retries it (:meth:`SessionClaims.confirm`)
  with the connection's own wait, not the busy queue's short one (with many writers
  queueing for the lock a short try almost never gets it), until it is taken or
  refused.
* **Renewing**: while a document stays on screen its claim is renewed (the app's
  timer calls :meth:`SessionClaims.renew`) once a third of its length has passed
  (:data:`RENEW_SHARE`), so reading for longer than a claim lasts never lets a second
  assessor open it. A renewal that finds another assessor's claim (this one lapsed
  while the store was busy) says so (``"lost"``).
* **Giving up**: :meth:`SessionClaims.release` drops every claim of the assessor on
  the topic (the app calls it on every way out of the judging screen), unless writes
  of theirs still wait for the store (the claims then lapse on their own, so nobody
  takes a document whose judgment is not in the store yet).
* **Why nothing opens**: :func:`held_text` says who holds the documents left and
  when they come back, for a topic whose documents left are all on others' screens.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from contextlib import nullcontext
from datetime import datetime, timedelta
from typing import Literal

from pooltool.store.claims import CLAIM_WAIT_MS, Claim
from pooltool.store.journal import BUSY_WAIT_MS, WriteQueue, is_busy
from pooltool.text import visible

RENEW_SHARE = 1 / 3
"""A claim is renewed once this share of its length has passed since it was taken."""

Renewal = Literal["renewed", "kept", "lost", "busy", "none"]
"""What :meth:`SessionClaims.renew` did: renewed (or taken, for a document shown
unclaimed on a store that cannot be written), nothing needed yet, refused (another
assessor's claim), not done (the store is busy, or the claim still waits: tried again
on the next tick), or nothing to claim."""

Outcome = Literal["taken", "refused", "busy", "none"]
"""What a claim did: taken, refused (another assessor holds or judged the document),
not taken (the store's lock stayed held) or not possible (the store cannot be written)."""


class SessionClaims:
    """One assessor's claims on one topic, through the app's write queue's store.

    :param writes: the app's write queue (its store, and whether the store is busy).
    :param minutes: how long a claim lasts (more than 0).
    """

    def __init__(self, writes: WriteQueue, topic: str, assessor: str, minutes: float) -> None:
        self.writes, self.store = writes, writes.store
        self.topic, self.assessor, self.minutes = topic, assessor, minutes
        self.held: str | None = None
        """The docno this session holds a claim on (``None``: none)."""
        self.taken_at: datetime | None = None
        """When that claim was taken or last renewed (the store's claim clock)."""
        self.waiting: str | None = None
        """The docno whose claim the busy store did not take (``None``: none): the
        session puts it on screen, but not for grading, until :meth:`confirm` takes it."""

    def take(self, docno: str, wait_ms: int = CLAIM_WAIT_MS) -> bool:
        """Claim ``docno`` (see the module docstring); returns whether the assessor may
        put it on screen (``False``: another assessor holds it or judged it). A store
        still busy after the wait leaves it :attr:`waiting` (``True``); a read-only one,
        shown unclaimed (``True``: nothing can be judged there anyway)."""
        return self._taken(docno, self._claim(docno, wait_ms)) != "refused"

    def confirm(self) -> Outcome:
        """Try the :attr:`waiting` claim again, waiting the connection's own wait for the
        store's lock even while the write queue is busy (the app's timer calls this);
        returns what the claim did (``busy``: it still waits; ``refused``: the session
        must put another document on screen). Nothing waiting: ``none``."""
        if self.waiting is None:
            return "none"
        return self._taken(self.waiting, self._claim(self.waiting, None))

    def _taken(self, docno: str, outcome: Outcome) -> Outcome:
        """Note what the claim of ``docno`` did (:attr:`held`, :attr:`waiting`); returns
        ``outcome``. A refused claim of another document leaves the waiting one waiting:
        the session stays on it."""
        if outcome == "busy":
            self.waiting = docno
        elif outcome != "refused" or self.waiting == docno:
            self.waiting = None
        if outcome == "taken":
            self.held, self.taken_at = docno, self.store.claim_clock()
        elif outcome != "refused":
            self.held = self.taken_at = None
        return outcome

    def take_first(self, docnos: list[str], wait_ms: int = CLAIM_WAIT_MS) -> str | None:
        """Claim the first of ``docnos`` that another assessor neither holds nor judged,
        in one transaction (:meth:`~pooltool.store.JudgmentStore.claim_first`); returns
        the docno to put on screen (``None``: all are taken). A store still busy after
        the wait leaves the first of them :attr:`waiting`; a read-only one, shown
        unclaimed, as :meth:`take` does."""
        if not docnos:
            return None
        try:
            with self.writes.trying(wait_ms):
                docno = self.store.claim_first(self.topic, docnos, self.assessor, self.minutes)
        except sqlite3.OperationalError as exc:
            if is_busy(exc):
                self.writes.lock_busy()
            self._taken(docnos[0], "busy" if is_busy(exc) else "none")
            return docnos[0]
        if docno is not None:
            self._taken(docno, "taken")
        return docno

    def renew(self, docno: str) -> Renewal:
        """Renew the claim on ``docno``, the document on screen, when due (see the
        module docstring); a document shown unclaimed is claimed now. A claim still
        :attr:`waiting` is left to :meth:`confirm` (``busy``)."""
        if self.waiting == docno:
            return "busy"
        now = self.store.claim_clock()
        due = timedelta(minutes=self.minutes * RENEW_SHARE)
        if self.held == docno and self.taken_at is not None and now - self.taken_at < due:
            return "kept"
        outcome = self._claim(docno, BUSY_WAIT_MS)
        if outcome in ("busy", "none"):  # none: a store that cannot be written
            return outcome
        if outcome == "refused":
            self.held = self.taken_at = None
            return "lost"
        self.held, self.taken_at = docno, now
        return "renewed"

    def _claim(self, docno: str, wait_ms: int | None) -> Outcome:
        """Ask the store for the claim, waiting at most ``wait_ms`` for its write lock
        (at most :data:`~pooltool.store.journal.RETRY_WAIT_MS` while the write queue is
        busy; ``None``: the connection's own wait, busy or not): ``taken``, ``refused``
        (another assessor holds or judged it), ``busy`` (the lock stayed held: the write
        queue learns the store is busy) or ``none`` (the store cannot be written, e.g.
        read-only)."""
        try:
            with nullcontext() if wait_ms is None else self.writes.trying(wait_ms):
                taken = self.store.claim(self.topic, docno, self.assessor, self.minutes)
        except sqlite3.OperationalError as exc:
            if is_busy(exc):
                self.writes.lock_busy()
                return "busy"
            return "none"
        return "taken" if taken else "refused"

    def release(self) -> None:
        """Give up the assessor's claims on the topic (best effort; see the module
        docstring for claims kept while writes wait)."""
        if self.writes.pending:
            return
        try:
            self.store.release_claims(self.topic, self.assessor)
        except sqlite3.OperationalError:
            return
        self.held = self.taken_at = None


def held_text(claims: list[Claim]) -> str:
    """Who has the documents left on screen, and when they come back:
    ``3 documents are being judged by bob; they come back when released or at 10:05``
    (several assessors: ``by bob (2) and carol (1)``). The time is the earliest a claim
    lapses, in the local time zone, as ``HH:MM``. Empty when ``claims`` is."""
    if not claims:
        return ""
    count = len(claims)
    noun = "document is" if count == 1 else "documents are"
    who = Counter(claim.assessor for claim in claims)
    names = sorted(who, key=lambda name: (-who[name], name))
    by = visible(names[0]) if len(names) == 1 else (
        ", ".join(f"{visible(n)} ({who[n]})" for n in names[:-1])
        + f" and {visible(names[-1])} ({who[names[-1]]})")
    back = min(claim.expires_at for claim in claims).astimezone().strftime("%H:%M")
    it = "it comes" if count == 1 else "they come"
    return f"{count} {noun} being judged by {by}; {it} back when released or at {back}"
