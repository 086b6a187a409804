"""One assessor judging one topic: the queue, their grades, and every key's effect.

No Textual here: the judging screen calls these methods and redraws. All
writes go through a :class:`~pooltool.store.journal.WriteQueue`, so they are
committed at once (or retried in order while the store is busy).

The queue is the assessor's queue of :mod:`pooltool.judging.queue`, whose
docstring states the rule and says which part of choosing the next document
lives where; this module holds the navigation part. The queue may be empty
(the app then does not open the topic).

Rules, in the order an assessor meets them:

* **Resume**: the session opens on the document the assessor last had on
  screen if they have not judged it yet; otherwise on the first document
  of the queue they have neither judged nor skipped; otherwise the first
  skipped one; otherwise (all judged) on the last document they viewed, else
  on the first one they judged. On a shared topic where every document left
  is taken by others and the assessor has judged none, the queue is empty
  (nothing to judge now: the app does not open the topic).
* **Grade**: appends a judgment (with the time of the key press, the
  milliseconds the document was on screen until then, and the note drafted
  for it, whose draft is cleared in the same transaction) and moves to the
  next unjudged document after it (wrapping round), or stays when the topic
  is done. The grade the assessor already gave the document, pressed again
  with no note drafted, writes nothing (the log holds each change of grade
  once, not a key pressed twice) and moves on the same way.
* **Undo**: retracts the assessor's most recent live judgment of a document
  in the queue (this session's or an earlier one's) and returns to that document; the
  document falls back to their previous grade, if any. Repeated undos walk
  back through the log. When the document is left ungraded, a note that
  went with the undone grade becomes its draft again.
* **Note**: the note window opens on the document's draft, else on the
  assessor's latest note on it. On a graded document a changed note is a new
  judgment with the same grade and the note; on an ungraded one it is saved
  at once as a draft (:func:`pooltool.store.workspace.save_note_draft`) that joins
  the next grade (an empty note removes the draft).
* **Skip**: marks an unjudged document as left for later and moves on;
  "next unjudged" prefers documents not skipped, then the skipped ones.
* **Shared topics** (not assigned to the assessor): the document on screen is
  claimed in the store (:mod:`pooltool.store.claims`), and "next unjudged"
  re-reads the store first, passing over documents another assessor has
  judged meanwhile or has on screen (a claim that has not lapsed), so two
  assessors on one topic are shown different documents; ← → pass over them
  too. The claim is the arbiter: when another app claimed the chosen document
  between that read and this claim, the claim is refused and the next
  document is taken instead (read and claim are two steps, so two apps can
  choose one document at once; only one of them shows it). On an assigned
  topic (``assign``, ``--overlap`` for deliberate double judging) claims do
  not apply. Renewing and giving up claims: :mod:`pooltool.judging.claiming`.
* **A claim the busy store did not take**: the document is put on screen but not
  for grading (:attr:`~pooltool.judging.session_state.SessionState.reserving`: the
  screen says it waits, and grade keys grade nothing) until :meth:`JudgingSession.confirm_claim`,
  retried by the app's timer, takes it; when another assessor got it meanwhile,
  the next unjudged document is taken instead (none left: back to the document the
  assessor judged last, else it keeps waiting).
* **Others' judgments** (shared topics): when another assessor's judgment reaches
  the store (the app watches it: :mod:`pooltool.store.changes`),
  :meth:`JudgingSession.others_judged` re-reads which documents of the queue
  others have judged; they no longer count as left to judge.
* **Adaptive pools** (``pool --strategy``): the queue is the documents the
  assessor judged plus the one the strategy chooses for them next
  (:class:`~pooltool.judging.adaptive.AdaptivePicker`: from the store's log,
  the session's writes still waiting, and the other assessors' claims; the
  choice is claimed on every topic). "Next unjudged" asks the strategy again,
  so the queue grows one document at a time until the topic's budget is used.
  While the store is busy a choice is made at once and joins the pool at the
  next choice; until its claim holds it waits, as any document of a shared topic
  does (above).
"""

from __future__ import annotations

import sqlite3
from typing import Literal

from pooltool.judging.adaptive import topic_stopping
from pooltool.judging.session_state import Mark, SessionState
from pooltool.records import is_judged, is_relevant
from pooltool.store import DEFAULT_POOL, workspace
from pooltool.store.journal import WriteQueue
from pooltool.store.provenance import utc_now
from pooltool.store.ui_writes import PendingWrite

NoteOutcome = Literal["recorded", "draft", "cleared", "unchanged"]


class JudgingSession(SessionState):
    """The state of one assessor on one topic
    (:class:`~pooltool.judging.session_state.SessionState`), and every key's effect;
    it opens on the document the module docstring's rules put on screen.

    :param writes: the app's write queue (its store is the one read here).
    :param order: queue order, see :mod:`pooltool.judging.queue`.
    """

    def __init__(self, writes: WriteQueue, topic: str, assessor: str, order: str = "docno",
                 seed: int = 0, pool: str = DEFAULT_POOL) -> None:
        super().__init__(writes, topic, assessor, order, seed, pool)
        self._resume()

    # -- moving -------------------------------------------------------------

    def move(self, step: int) -> None:
        """Go ``step`` documents forward (or back), stopping at either end. On a
        shared topic the documents others have judged or have on screen
        (:meth:`taken_by_others`) are passed over, and so is one another app claims
        first (between this read and the claim), so that ← after a grade goes back
        to the document just graded, never to one another assessor is judging."""
        taken = self.taken_by_others()
        direction = 1 if step > 0 else -1
        end = len(self.queue) if step > 0 else -1
        index = self.position
        for _ in range(abs(step)):
            index = next((i for i in range(index + direction, end, direction)
                          if self.queue[i] not in taken), index)
        while index != self.position and not self._claim(self.queue[index]):
            taken.add(self.queue[index])
            index = next((i for i in range(index + direction, end, direction)
                          if self.queue[i] not in taken), self.position)
        self._position = index

    def next_unjudged(self, start: int | None = None) -> int | None:
        """The next unjudged document after ``start`` (default: the one on screen),
        wrapping round; not skipped ones first. ``None`` when all are judged."""
        if self.picker is not None:
            return self._adaptive_next()
        candidates = self._unjudged_after(start)
        return candidates[0] if candidates else None

    def _unjudged_after(self, start: int | None) -> list[int]:
        """Queue positions to judge after ``start``, wrapping round, in the order
        :meth:`next_unjudged` prefers them; on a shared topic without those
        :meth:`taken_by_others`."""
        start = self.position if start is None else start
        n = len(self.queue)
        order = [(start + 1 + i) % n for i in range(n)]
        taken = self.taken_by_others() | {docno for docno in self.marks if self.is_judged(docno)}
        fresh = [i for i in order if self.queue[i] not in taken]  # a set: read per key
        unskipped = [i for i in fresh if self.queue[i] not in self.skipped]
        return unskipped + [i for i in fresh if self.queue[i] in self.skipped]

    def _take_unjudged(self, start: int | None = None) -> int | None:
        """:meth:`next_unjudged`, claimed and put on screen: on a shared topic, a
        document another app claims first (after the store was read, before this
        claim) is passed over for the next one, in the same claim. ``None``: none
        left (nothing moves)."""
        if self.picker is not None:
            target = self._adaptive_next()
            if target is not None:
                self.position = target
            return target
        candidates = {self.queue[index]: index for index in self._unjudged_after(start)}
        docno = self._claim_first(list(candidates))
        if docno is None:
            return None
        self._position = candidates[docno]
        return self._position

    def _adaptive_next(self) -> int | None:
        """The strategy's choice for the assessor, added to the queue (``None``: none)."""
        assert self.picker is not None
        pending = [(m.docno, bool(is_relevant(m.grade, self.picker.level))) for m in self.marks.values()
                   if not m.write.done and is_judged(m.grade)]
        try:
            with self.writes.trying():  # no wait while the store is known busy
                for shown in sorted(self.unrecorded):
                    self.store.add_choice(self.pool, self.topic, shown,
                                          self.picker.hits(self.topic, shown))
                self.unrecorded.clear()
                docno = self.picker.choose(self.topic, self.assessor, pending)
        except sqlite3.OperationalError:  # busy: shown now, recorded in the pool later
            docno = self.picker.next_for(self.topic, self.assessor, pending)
            if docno is not None:
                self.unrecorded.add(docno)
        if docno is None:
            return None
        if docno not in self.queue:
            self.queue.append(docno)
        return self.queue.index(docno)

    def confirm_claim(self) -> bool:
        """Try again the claim of the document on screen that waits for it
        (:attr:`reserving`; see the module docstring); returns whether what the screen
        shows changed (the claim was taken, or another document is on screen)."""
        if not self.reserving:
            return False
        docno = self.docno
        outcome = self.claims.confirm()
        if outcome == "busy":
            return False
        if outcome == "refused" and self._take_unjudged() is None:
            mine = [mark.docno for mark in self.history if mark.docno in self.queue]
            if not mine:  # nothing else to show: it waits for the claim still
                self.claims.waiting = docno
                return False
            self._position = self.queue.index(mine[-1])
        return True

    def stopping(self) -> dict[str, object] | None:
        """On an adaptive pool, the topic's budget and stopping estimate
        (:func:`~pooltool.judging.adaptive.topic_stopping`); ``None`` otherwise."""
        return None if self.picker is None else topic_stopping(self.picker, self.topic)

    def jump_unjudged(self) -> bool:
        """Go to :meth:`next_unjudged` (claimed, see :meth:`_take_unjudged`); returns
        whether there was one."""
        return self._take_unjudged() is not None

    def _resume(self) -> None:
        """Put the document the session opens on on screen (module docstring); on a
        shared topic where every document left is taken by others and the assessor
        has judged none, the queue is emptied (nothing to judge now)."""
        last = workspace.last_position(self.store, self.assessor, self.topic)
        if self.picker is not None:
            chosen = self._adaptive_next()
            self.position = chosen if chosen is not None else max(0, len(self.queue) - 1)
            return
        index = {d: i for i, d in enumerate(self.queue)}
        if last in index and not self.is_judged(last or "") \
                and last not in self.taken_by_others() and self._claim(last or ""):
            self._position = index[last or ""]
            return
        if self._take_unjudged(start=len(self.queue) - 1) is not None:
            return
        own = [i for i, d in enumerate(self.queue) if self.is_judged(d)]
        if last in index and self.is_judged(last or ""):
            self._position = index[last or ""]
        elif own:
            self._position = own[0]
        else:  # a shared topic whose documents left are all taken by others
            self.queue = []

    # -- writing ------------------------------------------------------------

    def grade(self, grade: int, ms_spent: int | None, judged_at: str | None = None,
              ms_active: int | None = None) -> bool:
        """Judge the document on screen and move on (see the module docstring).

        :param ms_spent: milliseconds the document was on screen before the key press.
        :param ms_active: of those, the active milliseconds (:mod:`pooltool.tui.activity`).
        :param judged_at: the time of the key press (UTC, ISO 8601); default now.
        :returns: whether a judgment was written (``False``: the assessor's grade
            of the document already was ``grade`` and no note was drafted).
        """
        docno = self.docno
        unchanged = self.grade_of(docno) == grade and docno not in self.notes
        if not unchanged:
            note = self.notes.pop(docno, None)
            self._record(docno, grade, ms_spent, note, judged_at or utc_now(),
                         clear_draft=note is not None, ms_active=ms_active)
        self.jump_unjudged()
        return not unchanged

    def _record(self, docno: str, grade: int, ms_spent: int | None, note: str | None,
                judged_at: str, clear_draft: bool = False, ms_active: int | None = None) -> None:
        write = self.writes.submit(
            "judgment", topic=self.topic, docno=docno, grade=grade, assessor=self.assessor,
            ms_spent=ms_spent, ms_active=ms_active, note=note, at=judged_at,
            clear_draft=clear_draft)
        counted = ms_active if ms_active is not None else ms_spent
        self._push(Mark(docno, grade, write, counted, self.marks.get(docno), note))

    def undo(self) -> str | None:
        """Retract the assessor's latest live judgment of the topic and go back to it.

        :returns: the docno whose judgment was undone, or ``None`` when there is none.
        """
        if not self.history:
            return None
        mark = self.history.pop()
        if mark.write.done:
            self.writes.submit("retract", assessor=self.assessor,
                               judgment_id=_judgment_id(mark.write))
        else:  # still queued: name it by its journal token
            self.writes.submit("retract", after=mark.write, assessor=self.assessor,
                               target=mark.write.token)
        if mark.previous is None:
            del self.marks[mark.docno]
            if mark.note and mark.docno not in self.notes:
                self._save_draft(mark.docno, mark.note)
        else:
            self.marks[mark.docno] = mark.previous
        self.position = self.queue.index(mark.docno)
        return mark.docno

    def note(self, text: str) -> NoteOutcome:
        """Set the note of the document on screen (see the module docstring).

        :returns: ``"recorded"`` (a judgment with the note), ``"draft"`` (kept
            for the grade), ``"cleared"`` (the draft removed) or ``"unchanged"``.
        """
        docno, text = self.docno, text.strip()
        mark = self.marks.get(docno)
        if text == self.saved_note(docno):
            return "unchanged"
        if mark is None:
            self._save_draft(docno, text)
            return "draft" if text else "cleared"
        if not text:  # the log keeps notes: a blank one would only add a row
            return "unchanged"
        self._record(docno, mark.grade, None, text, utc_now())
        return "recorded"

    def _save_draft(self, docno: str, text: str) -> None:
        if text:
            self.notes[docno] = text
        else:
            self.notes.pop(docno, None)
        self.writes.submit("note_draft", assessor=self.assessor, topic=self.topic, docno=docno,
                           note=text or None, at=utc_now())

    def split_copy(self) -> str | None:
        """Split the first copy the document on screen stands for off its group
        (:class:`~pooltool.judging.copies.PoolCopies`) and open it, next in the queue.

        The split is a write of the queue (a busy store keeps it in the journal).

        :returns: its docno (``None``: the document has no copy here).
        """
        docno = self.copies.split(self.docno)
        if docno is not None:
            self.writes.submit("split_copy", topic=self.topic, docno=docno,
                               assessor=self.assessor, at=utc_now())
            self.queue.insert(self.position + 1, docno)
            self.position += 1
        return docno

    def skip(self) -> None:
        """Leave the document on screen for later and move on."""
        docno = self.docno
        if not self.is_judged(docno) and docno not in self.skipped:
            self.skipped.add(docno)
            self.writes.submit("skip", assessor=self.assessor, topic=self.topic, docno=docno,
                               at=utc_now())
        self.jump_unjudged()

    def set_scan_terms(self, terms: list[str]) -> None:
        """Replace the assessor's scan terms for this topic (kept in the store)."""
        self.scan_terms = list(terms)
        self.writes.submit("scan_terms", assessor=self.assessor, topic=self.topic,
                           terms=list(terms), at=utc_now())

    def save_position(self) -> None:
        """Remember the document on screen, to reopen on it."""
        self.writes.submit("position", assessor=self.assessor, topic=self.topic,
                           docno=self.docno, at=utc_now())


def _judgment_id(write: PendingWrite) -> int:
    if write.result is None:
        raise RuntimeError("the judgment to retract was never committed")
    return write.result
