"""The writes the apps make through a :class:`~pooltool.store.journal.WriteQueue`, as
data: an operation name (its journal name) and its arguments (JSON values), and
:class:`PendingWrite`, one write with its journal line.

A write the store cannot take at once waits in a journal as ``{kind, args}``; whoever
replays the journal (the writer's next app, or the next command that reads the store:
:func:`~pooltool.store.journal.replay_abandoned`) looks its operation up here, so every
write an app journals has its operation in :data:`OPERATIONS`: the judging app's
grades, undos, skip marks, note drafts, scan terms, positions and duplicate splits,
and the adjudication app's adjudications and their undos.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from pooltool.store import JudgmentStore, workspace

Operation = Callable[[JudgmentStore, dict[str, Any]], "int | None"]
OPERATIONS: dict[str, Operation] = {}
"""The writes the apps make, by name: ``operation(store, args)``."""


def operation(name: str) -> Callable[[Operation], Operation]:
    """Register a write operation under ``name`` (its journal name)."""
    def register(function: Operation) -> Operation:
        OPERATIONS[name] = function
        return function
    return register


@operation("judgment")
def _judgment(store: JudgmentStore, a: dict[str, Any]) -> int:
    """A grade (``note``: a note going with it; ``clear_draft``: the note was a draft)."""
    judgment_id = store.record_judgment(
        a["topic"], a["docno"], a["grade"], a["assessor"], ms_spent=a.get("ms_spent"),
        ms_active=a.get("ms_active"),
        note=a.get("note"), origin="tui", judged_at=a.get("at"))
    if a.get("clear_draft"):
        workspace.save_note_draft(store, a["assessor"], a["topic"], a["docno"], None)
    return judgment_id


@operation("retract")
def _retract(store: JudgmentStore, a: dict[str, Any]) -> int:
    """An undo: ``judgment_id``, or ``target``, the token of a journalled grade (or
    adjudication); ``origin``: the app's (default the judging app's, ``tui``)."""
    judgment_id = a.get("judgment_id")
    if judgment_id is None:
        judgment_id = workspace.committed_result(store, a["target"])
    return store.retract(int(judgment_id), a["assessor"], origin=a.get("origin", "tui"))


@operation("adjudication")
def _adjudication(store: JudgmentStore, a: dict[str, Any]) -> int:
    """An adjudicator's grade of a pair, naming the judgments it resolves (``resolves``)."""
    return store.record_adjudication(a["topic"], a["docno"], a["grade"], a["adjudicator"],
                                     list(a["resolves"]), judged_at=a.get("at"))


@operation("split_copy")
def _split_copy(store: JudgmentStore, a: dict[str, Any]) -> int:
    """A duplicate split: ``docno`` is not a copy of its group on ``topic``."""
    return store.split_copy(a["topic"], a["docno"], a["assessor"], origin="judge",
                            split_at=a.get("at"))


@operation("skip")
def _skip(store: JudgmentStore, a: dict[str, Any]) -> None:
    workspace.mark_skipped(store, a["assessor"], a["topic"], a["docno"], at=a.get("at"))


@operation("scan_terms")
def _scan_terms(store: JudgmentStore, a: dict[str, Any]) -> None:
    workspace.set_scan_terms(store, a["assessor"], a["topic"], list(a["terms"]), at=a.get("at"))


@operation("position")
def _position(store: JudgmentStore, a: dict[str, Any]) -> None:
    workspace.save_position(store, a["assessor"], a["topic"], a["docno"], at=a.get("at"))


@operation("note_draft")
def _note_draft(store: JudgmentStore, a: dict[str, Any]) -> None:
    workspace.save_note_draft(store, a["assessor"], a["topic"], a["docno"], a.get("note"),
                              at=a.get("at"))


class PendingWrite:
    """One write; ``result`` (e.g. the new ``judgment_id``) is set once it is committed.

    :param kind: a name in :data:`OPERATIONS` (``None``: a write loaded as committed).
    :param after: for an undo of a grade still queued, that grade's write (its
        result is the judgment to retract, once committed).
    """

    __slots__ = ("kind", "args", "result", "done", "token", "journaled", "after", "sent")

    def __init__(self, kind: str | None = None, args: dict[str, Any] | None = None,
                 result: int | None = None, token: str | None = None,
                 after: PendingWrite | None = None) -> None:
        self.kind, self.args, self.result, self.after = kind, args or {}, result, after
        self.done = kind is None
        self.token = token or uuid.uuid4().hex
        self.journaled = False
        self.sent = token is not None
        """Whether the token may be recorded in the store: it came from a journal, or a
        commit of the write was tried (a new token, never sent, cannot be)."""

    @classmethod
    def committed(cls, result: int) -> PendingWrite:
        """A write already in the store (loaded from the log)."""
        return cls(None, None, result)

    def record(self) -> dict[str, Any]:
        """The journal line of this write."""
        return {"token": self.token, "kind": self.kind, "args": self.args}
