"""One assessor judging one topic: the queue, their grades, and every key's effect.

No Textual here: the judging screen calls these methods and redraws. All
writes go through a :class:`~pooltool.tui.writes.WriteQueue`, so they are
committed at once (or retried in order while the store is busy).

Rules, in the order an assessor meets them:

* **Resume**: the session opens on the document the assessor last had on
  screen if they have not judged it yet; otherwise on the first document
  of the queue they have neither judged nor skipped; otherwise the first
  skipped one; otherwise (all judged) on the last document they viewed.
* **Grade**: appends a judgment (with the milliseconds the document was on
  screen, and a note written before the grade) and moves to the next
  unjudged document after it (wrapping round), or stays when the topic is done.
* **Undo**: retracts the assessor's most recent live judgment of a document
  in the queue (this session's or an earlier one's) and returns to that document; the
  document falls back to their previous grade, if any. Repeated undos walk
  back through the log.
* **Note**: on a graded document, a new judgment with the same grade and
  the note; on an ungraded one, the note waits for the grade (in memory:
  leaving the topic before grading drops it).
* **Skip**: marks an unjudged document as left for later and moves on;
  "next unjudged" prefers documents not skipped, then the skipped ones.
"""

from __future__ import annotations

from typing import NamedTuple

from pooltool import workspace
from pooltool.judging_stats import Pace, pace
from pooltool.pooling import DEFAULT_POOL
from pooltool.records import Document, Topic
from pooltool.store import JudgmentStore
from pooltool.topic_queue import hits_of, own_judgments, topic_queue
from pooltool.tui.writes import PendingWrite, WriteQueue


class Mark(NamedTuple):
    """An assessor's judgment of a document as the session knows it."""

    docno: str
    grade: int
    write: PendingWrite
    ms_spent: int | None
    previous: Mark | None


class JudgingSession:
    """The state of one assessor on one topic.

    :param writes: the app's write queue (its store is the one read here).
    :param order: queue order, see :mod:`pooltool.topic_queue`.
    """

    def __init__(self, writes: WriteQueue, topic: str, assessor: str, order: str = "docno",
                 seed: int = 0, pool: str = DEFAULT_POOL) -> None:
        self.writes = writes
        self.store: JudgmentStore = writes.store
        self.topic, self.assessor, self.pool = topic, assessor, pool
        self.queue = topic_queue(self.store, topic, order, seed, pool)
        self.marks: dict[str, Mark] = {}
        self.history: list[Mark] = []
        queued = set(self.queue)
        for row in own_judgments(self.store, topic, assessor):
            if row.docno not in queued:  # judged outside this pool: not this queue's business
                continue
            self._push(Mark(row.docno, row.grade, PendingWrite.committed(row.judgment_id),
                            row.ms_spent, self.marks.get(row.docno)))
        self.skipped = workspace.skipped(self.store, assessor, topic)
        self.scan_terms = workspace.scan_terms(self.store, assessor, topic)
        self.notes: dict[str, str] = {}
        self.position = self._resume()

    # -- reading ------------------------------------------------------------

    @property
    def docno(self) -> str:
        """The docno on screen."""
        return self.queue[self.position]

    @property
    def judged(self) -> int:
        """Documents of the queue the assessor has judged."""
        return len(self.marks)

    @property
    def done(self) -> bool:
        """Whether every document of the queue is judged."""
        return len(self.marks) >= len(self.queue)

    def grade_of(self, docno: str) -> int | None:
        """The assessor's current grade of a document, or ``None``."""
        mark = self.marks.get(docno)
        return None if mark is None else mark.grade

    def pace(self) -> Pace:
        """The assessor's pace on this topic (timed judgments only)."""
        return pace([m.ms_spent for m in self.history])

    def topic_statement(self) -> Topic:
        """The topic statement, or an empty one when the store has none."""
        row = self.store.conn.execute(
            "SELECT topic, title, description, narrative FROM topics WHERE topic = ?",
            [self.topic]).fetchone()
        return Topic(self.topic, "") if row is None else Topic(*row)

    def document(self) -> Document | None:
        """The text of the document on screen (``None`` when the store has none)."""
        return self.store.document(self.docno)

    def hits(self) -> list[tuple[str, int]]:
        """Runs that retrieved the document on screen, with their ranks."""
        return hits_of(self.store, self.topic, self.docno, self.pool)

    # -- moving -------------------------------------------------------------

    def move(self, step: int) -> None:
        """Go ``step`` documents forward (or back), stopping at either end."""
        self.position = max(0, min(len(self.queue) - 1, self.position + step))

    def next_unjudged(self, start: int | None = None) -> int | None:
        """The next unjudged document after ``start`` (default: the one on screen),
        wrapping round; not skipped ones first. ``None`` when all are judged."""
        start = self.position if start is None else start
        n = len(self.queue)
        order = [(start + 1 + i) % n for i in range(n)]
        fresh = [i for i in order if self.queue[i] not in self.marks]
        unskipped = [i for i in fresh if self.queue[i] not in self.skipped]
        candidates = unskipped or fresh
        return candidates[0] if candidates else None

    def jump_unjudged(self) -> bool:
        """Go to :meth:`next_unjudged`; returns whether there was one."""
        target = self.next_unjudged()
        if target is not None:
            self.position = target
        return target is not None

    def _resume(self) -> int:
        last = workspace.last_position(self.store, self.assessor, self.topic)
        index = {d: i for i, d in enumerate(self.queue)}
        if last in index and last not in self.marks:
            return index[last]
        first = self.next_unjudged(start=len(self.queue) - 1)
        if first is not None:
            return first
        return index.get(last or "", 0)

    # -- writing ------------------------------------------------------------

    def grade(self, grade: int, ms_spent: int | None) -> None:
        """Judge the document on screen and move on (see the module docstring)."""
        docno = self.docno
        note = self.notes.pop(docno, None)
        self._record(docno, grade, ms_spent, note)
        self.jump_unjudged()

    def _record(self, docno: str, grade: int, ms_spent: int | None, note: str | None) -> None:
        topic, assessor = self.topic, self.assessor
        write = self.writes.submit(lambda s: s.record_judgment(
            topic, docno, grade, assessor, ms_spent=ms_spent, note=note, origin="tui"))
        self._push(Mark(docno, grade, write, ms_spent, self.marks.get(docno)))

    def _push(self, mark: Mark) -> None:
        self.marks[mark.docno] = mark
        self.history.append(mark)

    def undo(self) -> str | None:
        """Retract the assessor's latest live judgment of the topic and go back to it.

        :returns: the docno whose judgment was undone, or ``None`` when there is none.
        """
        if not self.history:
            return None
        mark = self.history.pop()
        assessor = self.assessor
        self.writes.submit(lambda s: s.retract(_judgment_id(mark.write), assessor, origin="tui"))
        if mark.previous is None:
            del self.marks[mark.docno]
        else:
            self.marks[mark.docno] = mark.previous
        self.position = self.queue.index(mark.docno)
        return mark.docno

    def note(self, text: str) -> bool:
        """Attach a note to the document on screen.

        :returns: whether it was stored at once (``False``: it waits for the grade).
        """
        mark = self.marks.get(self.docno)
        if mark is None:
            self.notes[self.docno] = text
            return False
        self._record(self.docno, mark.grade, None, text)
        return True

    def skip(self) -> None:
        """Leave the document on screen for later and move on."""
        docno, topic, assessor = self.docno, self.topic, self.assessor
        if docno not in self.marks and docno not in self.skipped:
            self.skipped.add(docno)
            self.writes.submit(lambda s: workspace.mark_skipped(s, assessor, topic, docno))
        self.jump_unjudged()

    def set_scan_terms(self, terms: list[str]) -> None:
        """Replace the assessor's scan terms for this topic (kept in the store)."""
        self.scan_terms = list(terms)
        topic, assessor = self.topic, self.assessor
        self.writes.submit(lambda s: workspace.set_scan_terms(s, assessor, topic, list(terms)))

    def save_position(self) -> None:
        """Remember the document on screen, to reopen on it."""
        docno, topic, assessor = self.docno, self.topic, self.assessor
        self.writes.submit(lambda s: workspace.save_position(s, assessor, topic, docno))


def _judgment_id(write: PendingWrite) -> int:
    if write.result is None:
        raise RuntimeError("the judgment to retract was never committed")
    return write.result
