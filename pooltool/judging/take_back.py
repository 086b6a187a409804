"""Taking back a grade the store refused for good: the judging session forgets it
(:func:`take_back`), as if it had never been given."""

from __future__ import annotations

from pooltool.judging.session import JudgingSession
from pooltool.store.ui_writes import PendingWrite


def take_back(session: JudgingSession, write: PendingWrite) -> str | None:
    """Forget the grade of ``session`` whose ``write`` the store refused: it leaves the
    history, the document falls back to the grade before it (later grades of the
    document now follow that one), and a note drafted with it is a draft again (the
    draft's removal was refused with it). Returns its docno (``None``: not a grade of
    this session)."""
    found = next((mark for mark in session.history if mark.write is write), None)
    if found is None:
        return None
    session.history.remove(found)
    later, mark = [], session.marks.get(found.docno)
    while mark is not None and mark is not found:
        later.append(mark)
        mark = mark.previous
    below = found.previous
    for old in reversed(later):  # relink the grades given after it
        new = old._replace(previous=below)
        session.history[session.history.index(old)] = new
        below = new
    if below is None:
        session.marks.pop(found.docno, None)
    else:
        session.marks[found.docno] = below
    if write.args.get("clear_draft") and found.note:
        session.notes.setdefault(found.docno, found.note)
    return found.docno
