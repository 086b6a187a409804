"""What the judging app says about writes it could not save: the notices of a busy
store, a full disk and an unreachable server, a write refused for good
(:func:`refused_text`), and the question before quitting with writes not saved
(:func:`quit_question`)."""

from __future__ import annotations

from pooltool.store.journal import WriteQueue
from pooltool.store.ui_writes import PendingWrite


def refused_text(write: PendingWrite, error: Exception) -> str:
    """The notice of a write the store refused for good
    (:attr:`~pooltool.store.journal.WriteQueue.failed`)."""
    args = write.args
    if write.kind == "judgment":
        return (f"Your grade {args.get('grade')} of {args.get('docno')} was not saved, and "
                f"the document is unjudged again: {error}")
    if write.kind == "retract":
        return f"Your undo was not saved, and the judgment stays: {error}"
    if write.kind == "split_copy":
        return f"Your split of {args.get('docno')} off its copies was not saved: {error}"
    return f"A write could not be saved: {error}"


UNREACHABLE_NOTICE = ("The store's server is unreachable: your grades wait in a journal and "
                      "are saved when it is back.")
UNREACHABLE_NOTICE_S = 24 * 3600.0
"""The notice of a lost server stays until the server is back
(:meth:`~pooltool.tui.app.JudgeApp.server_back`)."""
BACK_NOTICE = "The store's server is back: {saved} waiting write(s) saved."
FULL_NOTICE = ("Your judgment is not saved yet: the disk is full. It is kept and saved as "
               "soon as there is space again; free some space on the store's disk.")
SAVED_NOTICE = "There is space again: {saved} waiting write(s) saved."
BUSY_NOTICE = ("The store is busy (another writer): your judgment is kept in a journal "
               "next to the store and saved in a moment, or when you next open pooltool "
               "judge if this app is stopped first.")


def quit_question(writes: WriteQueue) -> str:
    """What quitting with writes not saved yet would leave, and the question: why they
    wait (full disk, busy store, unreachable server) and where they stay."""
    count = writes.pending
    why = ("the disk is full" if writes.full is not None else
           "the store's server is unreachable" if writes.offline else
           "the store is busy (another writer holds it)")
    kept = ("They stay in the journal next to the store, and the next pooltool command "
            "here saves them." if writes.kept_on_disk else
            "There is no journal (a store in memory): quitting now loses them."
            if writes.journal is None else
            "The journal could not be written either: quitting now loses them.")
    return f"{count} write(s) are not saved yet: {why}. {kept} Quit anyway?"
