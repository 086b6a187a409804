"""What a judging session knows of one assessor on one topic, and reads: the queue,
the assessor's marks (:class:`Mark`), the documents others have judged or have on
screen (shared topics), and what the screen shows of the document.

:class:`~pooltool.judging.session.JudgingSession` adds every key's effect (moving,
writing); its module docstring states the rules."""

from __future__ import annotations

from typing import NamedTuple

from pooltool.errors import StoreConnectionLost, UnknownTopic
from pooltool.judging.adaptive import AdaptivePicker
from pooltool.judging.claiming import Renewal, SessionClaims
from pooltool.judging.copies import PoolCopies
from pooltool.judging.pace import Pace, pace
from pooltool.judging.queue import topic_queue
from pooltool.records import Document, Topic, is_judged
from pooltool.store import DEFAULT_POOL, JudgmentStore, workspace
from pooltool.store.claims import Claim, claim_minutes
from pooltool.store.journal import WriteQueue
from pooltool.store.ui_writes import PendingWrite


class Mark(NamedTuple):
    """An assessor's judgment of a document as the session knows it."""

    docno: str
    grade: int
    write: PendingWrite
    ms_spent: int | None  # counted for pace: active time, else wall time
    previous: Mark | None
    note: str | None = None


class SessionState:
    """The state of one assessor on one topic, as read from the store
    (:class:`~pooltool.judging.session.JudgingSession` adds the keys' effects).

    :param writes: the app's write queue (its store is the one read here).
    :param order: queue order, see :mod:`pooltool.judging.queue`.
    """

    def __init__(self, writes: WriteQueue, topic: str, assessor: str, order: str = "docno",
                 seed: int = 0, pool: str = DEFAULT_POOL) -> None:
        self.writes = writes
        self.store: JudgmentStore = writes.store
        self.topic, self.assessor, self.pool = topic, assessor, pool
        self.queue = topic_queue(self.store, topic, order, seed, pool, assessor)
        self.marks: dict[str, Mark] = {}
        self.history: list[Mark] = []
        queued = set(self.queue)
        for row in self.store.own_judgments(topic, assessor):
            if row.docno not in queued:  # judged outside this pool: not this queue's business
                continue
            self._push(Mark(row.docno, row.grade, PendingWrite.committed(row.judgment_id),
                            row.ms_spent, self.marks.get(row.docno), row.note))
        self.skipped = workspace.skipped(self.store, assessor, topic)
        self.scan_terms = workspace.scan_terms(self.store, assessor, topic)
        self.notes = workspace.note_drafts(self.store, assessor, topic)
        self.unrecorded: set[str] = set()  # adaptive choices the busy store did not take yet
        self.picker = AdaptivePicker(self.store, pool) \
            if self.store.adaptive_design(pool) is not None else None
        if self.picker is not None:
            self.queue = [docno for docno in self.queue if self.is_judged(docno)]
        self.shared = self.picker is not None or topic not in self.store.assigned_topics(assessor)
        self.claim_minutes = claim_minutes(self.store.setting("claim_minutes"))
        self.claims = SessionClaims(writes, topic, assessor, self.claim_minutes)
        self.judged_by_others = self._judged_by_others()
        self.copies = PoolCopies(self.store, topic, pool)
        self._position = 0
        self._statement: Topic | None = None

    # -- reading ------------------------------------------------------------

    @property
    def docno(self) -> str:
        """The docno on screen."""
        return self.queue[self.position]

    @property
    def position(self) -> int:
        """Where in the queue the document on screen is."""
        return self._position

    @position.setter
    def position(self, index: int) -> None:
        self._position = index
        if self.queue:
            self._claim(self.queue[index])

    def taken_by_others(self) -> set[str]:
        """On a shared topic, the docnos others have judged (see
        :meth:`~pooltool.store.JudgmentStore.judged_docnos`) or have on screen, read
        from the store now; documents the assessor judged are not in it. Empty on an
        assigned topic."""
        if not self.shared:
            return set()
        try:
            taken = self.store.taken_by_others(self.topic, self.assessor)
        except StoreConnectionLost:  # the server is away: what others had judged when last read
            taken = set(self.judged_by_others)
        return {d for d in taken if d not in self.marks}

    def _judged_by_others(self) -> set[str]:
        """On a shared topic, the queue's documents others have judged and the assessor
        has not (read from the store now); empty on an assigned topic."""
        if not self.shared:
            return set()
        return (self.store.judged_docnos(self.topic) & set(self.queue)) - {
            docno for docno in self.marks if self.is_judged(docno)}

    def others_judged(self) -> set[str]:
        """Re-read what others have judged (another assessor's judgment reached the
        store: :mod:`pooltool.store.changes`); returns the documents they judged since
        the last reading, and keeps the whole set in :attr:`judged_by_others`."""
        now = self._judged_by_others()
        new, self.judged_by_others = now - self.judged_by_others, now
        return new

    def _claim(self, docno: str) -> bool:
        """Claim the document on screen of a shared topic
        (:meth:`~pooltool.judging.claiming.SessionClaims.take`: a busy store leaves it
        :attr:`reserving`); returns whether the assessor may keep it on screen."""
        if not self.shared or self.is_judged(docno):
            return True
        return self.claims.take(docno)

    def _claim_first(self, docnos: list[str]) -> str | None:
        """The first of ``docnos`` (documents the assessor has not judged) they may show,
        claimed on a shared topic
        (:meth:`~pooltool.judging.claiming.SessionClaims.take_first`); ``None``: none."""
        if not self.shared:
            return docnos[0] if docnos else None
        return self.claims.take_first(docnos)

    @property
    def reserving(self) -> bool:
        """Whether the document on screen waits for its claim (a shared topic whose store
        was busy: :attr:`~pooltool.judging.claiming.SessionClaims.waiting`): it is not
        shown for grading until :meth:`~pooltool.judging.session.JudgingSession.confirm_claim`
        takes the claim."""
        return self.shared and bool(self.queue) and self.claims.waiting == self.docno

    def renew_claim(self) -> Renewal:
        """Renew the claim on the document on screen (:mod:`pooltool.judging.claiming`)."""
        if not self.shared or not self.queue or self.is_judged(self.docno):
            return "none"
        return self.claims.renew(self.docno)

    def release_claims(self) -> None:
        """Give up the assessor's claims on this topic (they leave it); best effort.
        While writes of theirs still wait for a busy store the claims are kept (they
        lapse), so nobody takes a document whose judgment is not in the store yet."""
        self.claims.release()

    def held_by_others(self) -> list[Claim]:
        """On a shared topic, others' claims on documents nobody has judged (read now):
        why nothing opens (:func:`~pooltool.judging.claiming.held_text`)."""
        if not self.shared:
            return []
        judged = self.store.judged_docnos(self.topic)
        mine = {docno for docno in self.marks if self.is_judged(docno)}
        return [claim for claim in self.store.claims_of_others(self.topic, self.assessor)
                if claim.docno not in judged and claim.docno not in mine]

    def is_judged(self, docno: str) -> bool:
        """Whether the assessor has judged the document: their own grade is >= 0
        (:func:`~pooltool.records.is_judged`; an own negative grade, which only an
        import can give, leaves it to judge, as the topic picker counts it)."""
        mark = self.marks.get(docno)
        return mark is not None and bool(is_judged(mark.grade))

    @property
    def judged(self) -> int:
        """Documents of the queue the assessor has judged."""
        return sum(self.is_judged(docno) for docno in self.marks)

    @property
    def remaining(self) -> int:
        """Documents of the queue the assessor has still to judge (on a shared topic,
        not those others have judged meanwhile)."""
        return len(self.queue) - self.judged - self.judged_by_others_only

    @property
    def judged_by_others_only(self) -> int:
        """Documents of the queue others have judged and the assessor has not."""
        return sum(not self.is_judged(docno) for docno in self.judged_by_others)

    @property
    def done(self) -> bool:
        """Whether every document of the queue is judged."""
        return self.judged >= len(self.queue)

    def saved_note(self, docno: str) -> str:
        """The note the note window opens on: the document's draft, else the
        assessor's latest note on it (of a live judgment), else ``""``."""
        if docno in self.notes:
            return self.notes[docno]
        for mark in reversed(self.history):
            if mark.docno == docno and mark.note:
                return mark.note
        return ""

    def grade_of(self, docno: str) -> int | None:
        """The assessor's current grade of a document, or ``None``."""
        mark = self.marks.get(docno)
        return None if mark is None else mark.grade

    def pace(self) -> Pace:
        """The assessor's pace on this topic (timed judgments only)."""
        return pace([m.ms_spent for m in self.history])

    def topic_statement(self) -> Topic:
        """The topic statement, or an empty one when the store has none. Read from the
        store once per session (the screen draws it on every document): a stored
        statement is never overwritten (:meth:`~pooltool.store.JudgmentStore.add_topics`);
        a missing one is read again, as it may be imported meanwhile."""
        if self._statement is None:
            try:
                self._statement = self.store.topic(self.topic)
            except UnknownTopic:
                return Topic(self.topic, "")
        return self._statement

    def document(self) -> Document | None:
        """The text of the document on screen (``None`` when the store has none)."""
        return self.store.document(self.docno)

    def hits(self) -> list[tuple[str, int]]:
        """Runs that retrieved the document on screen, with their ranks."""
        return self.store.hits_of(self.topic, self.docno, self.pool)

    def provenance(self) -> str:
        """Where the document on screen comes from, for the runs line: the runs and ranks
        that pooled it (``no run`` when none is recorded); in a sample, ``sample,
        stratum S``; in a pool mixed with a sample, nothing that tells the two apart."""
        strategy = self.store.pool_strategy(self.pool)
        if strategy == "mixed":
            return "hidden (pool and sample mixed)"
        if strategy == "sample":
            stratum = self.store.sample_stratum(self.pool, self.topic, self.docno)
            return f"sample, stratum {stratum}"
        return ", ".join(f"{tag} #{rank}" for tag, rank in self.hits()) or "no run"

    def _push(self, mark: Mark) -> None:
        self.marks[mark.docno] = mark
        self.history.append(mark)
