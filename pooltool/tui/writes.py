"""Writes from the judging UI: committed at once, retried while the store is busy.

Every write (a grade, an undo, a skip mark, ...) is committed the moment it
is submitted, in its own short transaction, on the UI thread. When another
process holds the store's write lock, SQLite waits at most
:data:`BUSY_WAIT_MS` (the app sets its connection's busy timeout to it), so
the screen never freezes for longer; the write then stays queued, in order,
and the app retries it on a timer. Later writes queue behind it, so the log
keeps the order in which keys were pressed.
"""

from __future__ import annotations

import sqlite3
import time
from collections import deque
from collections.abc import Callable

from pooltool.store import JudgmentStore

BUSY_WAIT_MS = 200
"""How long, in milliseconds, one write attempt waits for another writer."""

Operation = Callable[[JudgmentStore], "int | None"]


class PendingWrite:
    """One write; ``result`` (e.g. the new ``judgment_id``) is set once it is committed."""

    __slots__ = ("operation", "result", "done")

    def __init__(self, operation: Operation | None = None, result: int | None = None) -> None:
        self.operation = operation
        self.result = result
        self.done = operation is None

    @classmethod
    def committed(cls, result: int) -> PendingWrite:
        """A write already in the store (loaded from the log)."""
        return cls(None, result)


def is_busy(exc: sqlite3.OperationalError) -> bool:
    """Whether an SQLite error means another connection holds the lock."""
    message = str(exc).lower()
    return "locked" in message or "busy" in message


class WriteQueue:
    """Writes to one store, committed in submission order.

    :param store: the store the UI reads and writes (its connection belongs
        to the UI thread).
    """

    def __init__(self, store: JudgmentStore) -> None:
        self.store = store
        self._queue: deque[PendingWrite] = deque()

    @property
    def pending(self) -> int:
        """Writes submitted but not yet committed."""
        return len(self._queue)

    def submit(self, operation: Operation) -> PendingWrite:
        """Queue ``operation`` (called with the store) and try to commit everything queued."""
        write = PendingWrite(operation)
        self._queue.append(write)
        self.flush()
        return write

    def flush(self) -> bool:
        """Commit queued writes in order, stopping at the first one the lock refuses.

        :returns: whether the queue is now empty.
        :raises sqlite3.OperationalError: an error other than a busy store.
        """
        while self._queue:
            write = self._queue[0]
            try:
                write.result = write.operation(self.store) if write.operation else None
            except sqlite3.OperationalError as exc:
                if self.store.conn.in_transaction:
                    self.store.conn.rollback()
                if not is_busy(exc):
                    raise
                return False
            write.done = True
            self._queue.popleft()
        return True

    def drain(self, timeout_s: float = 30.0) -> bool:
        """Retry until everything is committed or ``timeout_s`` seconds have passed (on quit).

        :returns: whether the queue is now empty.
        """
        deadline = time.monotonic() + timeout_s
        while not self.flush():
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)
        return True
