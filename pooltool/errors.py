"""The exceptions pooltool raises.

Every error a user can cause derives from :class:`PooltoolError`; the CLI prints
its message on stderr (``Error: ...``) and exits with status 1, never with a
traceback.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path


class PooltoolError(Exception):
    """Base class of every error pooltool reports to a user."""


class FormatError(PooltoolError):
    """A line of an input file is malformed.

    :param path: the file (or ``"<string>"`` for inline text).
    :param line: the 1-based line number of the offending line (0 when the
        problem is with the file as a whole).
    :param reason: what is wrong, as a sentence fragment
        ("expected 6 columns, got 5").
    """

    def __init__(self, path: str | Path, line: int, reason: str) -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {reason}")


class StoreError(PooltoolError):
    """The judgment store cannot do what was asked (missing store, bad state)."""


class StoreWriteFailed(StoreError, sqlite3.OperationalError):
    """SQLite could not write the store (disk full, read-only file or folder); the
    transaction was rolled back, so nothing of it was stored.

    Also an :class:`sqlite3.OperationalError`, the error SQLite raised, so code that
    handles SQLite's errors still sees it as one.
    """


class StoreFull(StoreWriteFailed):
    """The store's disk is full (SQLite's SQLITE_FULL, also when a ``max_page_count`` is
    reached; PostgreSQL's ``disk_full``): nothing of the write was stored, and the same
    write can succeed once space returns (a judging app keeps it and retries)."""


class StoreBusy(StoreError, sqlite3.OperationalError):
    """Another connection held the store's write lock longer than this one waits
    (SQLite's SQLITE_BUSY, PostgreSQL's lock timeout); nothing of the write was stored.

    Also an :class:`sqlite3.OperationalError` ("database is locked ..."), the error
    SQLite raises for it.
    """


class StoreRefused(StoreError, sqlite3.IntegrityError):
    """The store's schema refused a write: an append-only log's trigger, a unique or
    foreign key, a check. The transaction was rolled back.

    Also an :class:`sqlite3.IntegrityError`, the error SQLite raises for it.
    """


class StoreDamaged(StoreError):
    """The store's file is damaged (SQLite's "database disk image is malformed", "file is
    not a database"): ``pooltool store check`` says what is broken."""


class StoreConnectionLost(StoreError, sqlite3.OperationalError):
    """The connection to a store's server went away (the PostgreSQL server stopped or
    restarted, the network dropped), or could not be made again: the statement or
    transaction under way was not committed. The store reconnects on its next use
    outside a transaction (see :meth:`pooltool.store.JudgmentStore.reconnect`); a
    judging app keeps its writes in its journal until then
    (:class:`pooltool.store.journal.WriteQueue`).

    Also an :class:`sqlite3.OperationalError`, DB-API's error for "an unexpected
    disconnect" (PEP 249), so that best-effort writes that tolerate a busy store
    (claims) tolerate a lost server too."""


class UnknownTopic(StoreError):
    """A topic id was named that the store does not hold."""


class UnknownDocnos(StoreError):
    """An input names docnos that no document of the store has, and was refused
    (``--strict-docs``)."""


class UnknownRun(StoreError):
    """A run tag was named that the store does not hold."""


class RunInPool(StoreError):
    """A run that built a pool was to be replaced or removed without ``force``."""


class NoGrades(StoreError):
    """The qrels asked for (a version under a policy) hold no grade: nothing to measure
    against; the message says how to reach the grades the log holds."""


class UnknownVersion(StoreError):
    """A qrels version name was named that the store does not hold."""


class InvalidArgument(PooltoolError, ValueError):
    """A bad argument to a function or command: a value out of its range (a depth or a
    cutoff below 1), an unknown name (policy, queue order, output format), a blank
    name. The one error for this kind everywhere; also a :class:`ValueError`."""


class DuplicateRunTag(StoreError):
    """Two inputs (run files, or a file and the store) hold runs with the same tag."""


class NothingToScore(PooltoolError):
    """A run shares no topic with the qrels, and ``complete`` (``-c``) is off."""


class DuplicateDocno(PooltoolError, ValueError):
    """A docno appears twice for one topic of one run (trec_eval refuses too).

    Also a :class:`ValueError`, as the measures raise for any unscorable frame.
    """

    def __init__(self, run_tag: str, topic: str, docno: str) -> None:
        self.run_tag, self.topic, self.docno = run_tag, topic, docno
        super().__init__(f"docno {docno!r} appears twice for topic {topic!r} in run {run_tag!r}")


class FrameError(InvalidArgument):
    """A DataFrame given to the Python API lacks a column or holds values of the wrong kind
    (a number where a topic id string belongs, a missing value, a NaN score)."""


class NotCached(PooltoolError):
    """An ir_datasets dataset's files are not in its local cache (pooltool never downloads)."""
