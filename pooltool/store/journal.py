"""Writes from the judging UI: committed at once, retried while the store is busy,
and kept in a journal file until they are committed.

Part of the store (no Textual): the judging app writes through a
:class:`WriteQueue`, and every command that reads judgments first replays
the journals of judging processes that died (:func:`replay_abandoned`), so
no judgment waits unseen.

Every write (a grade, an undo, a skip mark, a note draft, ...) is committed
the moment it is submitted, in its own short transaction, on the UI thread.
When another process holds the store's write lock, SQLite waits at most
:data:`BUSY_WAIT_MS` (the app sets its connection's busy timeout to it); the write
then stays queued, in order, and the app retries it on a timer. The queue is then
:attr:`WriteQueue.busy`: later writes queue behind it without trying the lock (they
cannot be committed before it), and each retry waits at most :data:`RETRY_WAIT_MS`,
so a store locked for long (an import, ``BEGIN EXCLUSIVE`` held for minutes) freezes
the screen once for :data:`BUSY_WAIT_MS`, not on every key or retry. The log keeps
the order in which keys were pressed.

**A full disk.** A write the store cannot take because its disk is full
(:class:`~pooltool.errors.StoreFull`: SQLITE_FULL, PostgreSQL's ``disk_full``) is
kept, queued and journalled as a busy store's is (:attr:`WriteQueue.full` says why),
and retried on the timer until space returns. A journal that could not be written
(the journal's own disk is full too) keeps the writes in memory, and each retry
writes the whole queue to the journal again until it can (:attr:`WriteQueue.kept_on_disk`).

**Journal.** A write is data (an operation name from
:data:`~pooltool.store.ui_writes.OPERATIONS` and its arguments, with the time of
the key press), so a write that has to wait is also appended, as one JSON line, to
a journal file next to the store
(:func:`~pooltool.store.journal_files.journal_path`:
``<db>.pending-<assessor>-<pid>.jsonl``, flushed to disk). The journal is deleted
once the queue is empty. If the process dies
with writes still queued, the next app of that assessor on that store
replays its journals (:meth:`WriteQueue.recover`) before it opens a topic.
Each journalled write carries a random token, recorded in the store
(``ui_write_tokens``) in the same transaction as the write itself: a write
whose token is already there is not applied again, so replaying a journal
twice, or while the process that wrote it is still alive, adds nothing twice.
An undo of a grade that was still queued names the grade by its token.

**A lost server.** When the connection to a PostgreSQL store's server goes away
(:class:`~pooltool.errors.StoreConnectionLost`: the server stopped or restarted,
the network dropped), the write is kept, queued and journalled, as a busy store's
writes are, and so are the writes after it. The queue is then :attr:`WriteQueue.offline`:
it connects again on the app's timer with backoff (:data:`RECONNECT_FIRST_S`,
doubling up to :data:`RECONNECT_MAX_S`), not on every key press, and commits the
queue once the server is back. On a PostgreSQL store every write carries its token
from its first try: a connection lost after ``COMMIT`` was sent leaves unknown whether
the write was committed, and the token keeps its retry from adding it twice.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from pooltool.errors import (
    InvalidArgument,
    PooltoolError,
    StoreBusy,
    StoreConnectionLost,
    StoreFull,
)
from pooltool.store import JudgmentStore, workspace
from pooltool.store.journal_files import (
    journal_pid,
    journals,
    parse_journal_line,
    pending_writes,
    process_alive,
)
from pooltool.store.postgresql_errors import RoleRefused
from pooltool.store.ui_writes import OPERATIONS, PendingWrite

BUSY_WAIT_MS = 200
"""How long, in milliseconds, one write attempt waits for another writer."""
RETRY_WAIT_MS = 20
"""How long, in milliseconds, a retry waits for the lock once the queue is
:attr:`~WriteQueue.busy` (another writer held it longer than :data:`BUSY_WAIT_MS`)."""
RECONNECT_FIRST_S = 0.5
"""After the server went away, the first try to connect again comes this many seconds
later (the app's retry timer's period); each failed try doubles the wait ..."""
RECONNECT_MAX_S = 10.0
"""... up to this many seconds: once the server is back, the writes wait at most this
long, and a server that stays down is asked at most once in this time by each app."""

def is_busy(exc: sqlite3.OperationalError) -> bool:
    """Whether an error means another connection holds the lock."""
    return isinstance(exc, StoreBusy)



class WriteQueue:
    """Writes to one store, committed in submission order.

    :param store: the store the UI reads and writes (its connection belongs
        to the UI thread).
    :param journal: the file where writes that must wait are kept (``None``:
        kept in memory only; see the module docstring).
    """

    def __init__(self, store: JudgmentStore, journal: Path | None = None) -> None:
        self.store = store
        self.journal = journal
        self.failed: list[tuple[PendingWrite, PooltoolError]] = []
        self._journal_written = False
        self.journal_error: str | None = None
        """Why the journal could not be written (``None``: it could, or was not needed)."""
        self.lost: StoreConnectionLost | None = None
        """Why the store's server is unreachable (``None``: it is not known to be)."""
        self._queue: deque[PendingWrite] = deque()
        self._wait_s = RECONNECT_FIRST_S
        self._next_try = 0.0
        self._journal_ok = True  # every write queued is in the journal file
        self.busy = False
        """Whether another writer held the store's lock at the last try (a write, or a
        claim: :meth:`lock_busy`); cleared once a try gets the lock."""
        self.full: StoreFull | None = None
        """Why the store could not take the first queued write: its disk is full
        (``None``: it is not known to be)."""

    @property
    def kept_on_disk(self) -> bool:
        """Whether every write still queued is in the journal file (so the next pooltool
        command here commits it if this process ends)."""
        return self.journal is not None and self._journal_ok

    @property
    def offline(self) -> bool:
        """Whether the store's server went away and has not been reached again."""
        return self.lost is not None

    def connection_lost(self, exc: StoreConnectionLost) -> None:
        """The server went away (a write found it gone, or a read of the screen did):
        writes wait in the journal, and :meth:`flush` connects again first, with
        backoff. Nothing changes when the queue already knows."""
        if self.lost is None:
            self.lost, self._wait_s = exc, RECONNECT_FIRST_S
            self._next_try = time.monotonic() + self._wait_s

    def _reconnected(self) -> bool:
        """Whether the server can be written to: it was not lost, or connecting again
        (when the backoff allows a try now) worked; a failed try doubles the wait."""
        if self.lost is None:
            return True
        if time.monotonic() < self._next_try:
            return False
        try:
            self.store.reconnect()
        except StoreConnectionLost as exc:
            self.lost, self._wait_s = exc, min(self._wait_s * 2, RECONNECT_MAX_S)
            self._next_try = time.monotonic() + self._wait_s
            return False
        self.lost = None
        return True

    def lock_busy(self) -> None:
        """Another writer holds the store's lock (a claim found it so): until a write
        gets it, tries wait at most :data:`RETRY_WAIT_MS`."""
        self.busy = True

    @contextmanager
    def trying(self, ms: int | None = None) -> Iterator[None]:
        """Within the block, a try for the store's lock waits at most ``ms``
        milliseconds (``None``: the connection's own wait), and at most
        :data:`RETRY_WAIT_MS` while the queue is :attr:`busy`."""
        if self.busy:
            ms = RETRY_WAIT_MS if ms is None else min(ms, RETRY_WAIT_MS)
        if ms is None:
            yield
            return
        with self.store.waiting(ms):
            yield

    @property
    def pending(self) -> int:
        """Writes submitted but not yet committed."""
        return len(self._queue)

    def submit(self, kind: str, after: PendingWrite | None = None,
               **args: Any) -> PendingWrite:
        """Queue the operation ``kind`` with ``args`` (JSON values) and try to
        commit everything queued.

        A write that cannot be committed at once is appended to the journal.

        :param after: the queued write whose result this one needs (an undo of
            a queued grade; ``args`` then name it by its ``target`` token too).
        """
        if kind not in OPERATIONS:
            raise InvalidArgument(f"unknown write operation {kind!r}")
        write = PendingWrite(kind, args, after=after)
        self._queue.append(write)
        if not (self.busy and len(self._queue) > 1):  # behind a write waiting for the lock
            self.flush()
        if not write.done and self._journal_ok:
            self._journal([write])
        elif not write.done:  # an earlier try to journal failed: the whole queue again
            self._journal(self._queue, "w")
        return write

    def extend(self, writes: Iterable[PendingWrite]) -> None:
        """Queue writes read back from a journal (they keep their tokens and are not
        journalled again); :meth:`flush` or :meth:`drain` commits them."""
        self._queue.extend(writes)

    def flush(self) -> bool:
        """Commit queued writes in order, stopping at the first one the lock refuses
        or that finds the server gone (:meth:`connection_lost`; while it is, this
        first connects again, when the backoff allows a try).

        A write the store rejects for good (a :class:`PooltoolError`, such as
        an undo of a judgment already retracted, or a write the login's role may
        not make) is dropped and kept in :attr:`failed`, so that it cannot hold
        up the writes behind it. A write refused because the store's disk is full
        stays queued (:attr:`full`). Writes kept in memory only (the journal could
        not be written) are written to the journal again first.

        :returns: whether the queue is now empty.
        :raises sqlite3.OperationalError: an error other than a busy store, a full
            disk or a lost server.
        """
        if self._queue and self.journal is not None and not self._journal_ok:
            self._journal(self._queue, mode="w")  # space may have returned
        if not self._reconnected():
            return not self._queue
        while self._queue:
            write = self._queue[0]
            try:
                with self.trying():
                    write.result = self._commit(write)
            except StoreConnectionLost as exc:  # kept: committed once the server is back
                self.connection_lost(exc)
                return False
            except StoreFull as exc:  # kept: committed once space returns
                self.full = exc
                return False
            except RoleRefused as exc:  # this login may never write it (store roles)
                self.failed.append((write, exc))
            except sqlite3.OperationalError as exc:  # rolled back by store.writing()
                if not is_busy(exc):
                    raise
                self.busy = True
                return False
            except PooltoolError as exc:
                self.failed.append((write, exc))
            self.busy, self.full = False, None
            write.done = True
            self._queue.popleft()
        self.busy, self.full = False, None
        if self._journal_written and self.journal is not None:
            self.journal.unlink(missing_ok=True)
            self._journal_written = False
        self._journal_ok = True
        return True

    def _commit(self, write: PendingWrite) -> int | None:
        assert write.kind is not None
        kind, args = write.kind, write.args
        if write.after is not None and write.after.result is not None:
            args = {**args, "judgment_id": write.after.result}
        # a journalled write is applied once, even when a journal is replayed twice; on a
        # server every write is, from its first try: a connection lost after COMMIT was
        # sent leaves unknown whether it was committed, and its retry must not add it twice
        once = write.journaled or self.store.engine == "postgresql"
        recorded, write.sent = write.sent, True
        return workspace.apply_once(self.store, write.token if once else None,
                                    lambda: OPERATIONS[kind](self.store, args),
                                    look_up=recorded)

    def drain(self, timeout_s: float = 30.0) -> bool:
        """Retry until everything is committed or ``timeout_s`` seconds have passed (on
        quit). A server that went away is tried once, now: the writes then stay in the
        journal (the next pooltool command here commits them) rather than keep the
        caller waiting for a server that may be down for long.

        :returns: whether the queue is now empty.
        """
        deadline = time.monotonic() + timeout_s
        self._next_try = min(self._next_try, time.monotonic())
        while True:
            # quitting may wait: each try waits the connection's full wait, not a busy
            # queue's short one, which other writers queueing for the lock (many
            # assessors on one server) can pass over on every try until the deadline
            self.busy = False
            if self.flush():
                return True
            if time.monotonic() >= deadline or self.offline:
                return False
            time.sleep(0.05)

    # -- the journal ---------------------------------------------------------------

    def _journal(self, writes: Iterable[PendingWrite], mode: str = "a") -> None:
        writes = list(writes)
        for write in writes:
            write.journaled = True
        if self.journal is None:
            return
        self._journal_written = True
        try:
            with self.journal.open(mode, encoding="utf-8") as out:
                for write in writes:
                    out.write(json.dumps(write.record(), ensure_ascii=False) + "\n")
                out.flush()
                os.fsync(out.fileno())
        except OSError as exc:  # the writes stay queued in memory; the app says so
            if self._journal_ok:  # said once, not on every retry
                self.journal_error = f"{self.journal}: {exc.strerror or exc}"
            self._journal_ok = False
            return
        if mode == "w":
            self._journal_ok = True

    def recover(self, paths: Iterable[Path]) -> int:
        """Queue the writes of journals left by processes that died (see the module
        docstring), keep them in this queue's own journal, delete the old files
        and try to commit them. Unreadable lines (a write cut short) are ignored.

        Call it before any other write. :returns: how many writes were recovered.
        """
        recovered: dict[str, PendingWrite] = {}
        paths = [p for p in paths if p != self.journal] + (
            [self.journal] if self.journal is not None and self.journal.exists() else [])
        for path in paths:
            try:
                text = path.read_text(encoding="utf-8")
            except FileNotFoundError:
                continue
            for line in text.splitlines():
                write = parse_journal_line(line)
                if write is not None:
                    recovered.setdefault(write.token, write)
        if recovered:
            self._queue.extend(recovered.values())
            self._journal(recovered.values(), mode="w")
        for path in paths:
            if path != self.journal or not recovered:
                path.unlink(missing_ok=True)
        self.flush()
        return len(recovered)


class JournalReplay(NamedTuple):
    """What :func:`replay_abandoned` did: writes committed, and the journals still
    holding writes that could not be committed (store busy or read-only), with the
    number of writes each holds."""

    replayed: int
    waiting: dict[Path, int]


def replay_abandoned(store: JudgmentStore, timeout_s: float = 5.0) -> JournalReplay:
    """Commit the writes of journals whose judging process is gone, and delete each
    journal once all its writes are in the store. A journal of a running process is
    left to it. Each write carries its token, so a write already committed is not
    applied twice (see the module docstring).

    :param timeout_s: how long to retry a journal's writes while the store is busy.
    :returns: the writes replayed, and the journals left waiting (with their writes).
    :raises StoreConnectionLost: the store's server went away (nothing more can be read).
    :raises sqlite3.OperationalError: a write refused for a reason other than a busy
        store (e.g. a read-only store: callers say so and go on reading).
    """
    if store.journal_base is None:
        return JournalReplay(0, {})
    replayed, waiting = 0, {}
    for path in journals(store.journal_base):
        if process_alive(journal_pid(path)):
            continue
        queue = WriteQueue(store)
        queue.extend(pending_writes(path))
        count = queue.pending
        if queue.drain(timeout_s):
            replayed += count
            path.unlink(missing_ok=True)
        elif queue.lost is not None:
            raise queue.lost
        else:
            waiting[path] = queue.pending
    return JournalReplay(replayed, waiting)


def waiting_writes(db: str | Path) -> dict[Path, int]:
    """Writes waiting in every journal next to the store (of running judging apps, and
    of dead ones not replayed yet): ``{journal: number of writes}``."""
    return {path: len(pending_writes(path)) for path in journals(db)}
