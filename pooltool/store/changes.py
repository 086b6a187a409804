"""Noticing other connections' writes: what an open judging app polls on a timer, so
that other assessors' judgments and claims show without a restart.

* **SQLite**: ``PRAGMA data_version`` on the store's own connection changes when
  another connection commits to the file (https://www.sqlite.org/pragma.html#pragma_data_version);
  it costs no I/O, and says nothing of which topic changed.
* **PostgreSQL**: a second connection listens on :data:`CHANNEL`, which the triggers
  of ``pooltool/store/postgresql.sql`` notify with the topic on every judgment
  and every claim taken or renewed (the app's own writes too: the topic is all a
  notification says). A poll reads the notifications that have arrived, without
  waiting (https://www.postgresql.org/docs/current/sql-listen.html).

:func:`watch` gives the watcher for a store; :meth:`ChangeWatcher.poll` says what
changed since the last poll.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from pooltool.store.postgresql import PostgresConnection

if TYPE_CHECKING:
    from pooltool.store.store import JudgmentStore

CHANNEL = "pooltool_judging"
"""The channel postgresql.sql's triggers notify (payload: the topic)."""


@dataclass(frozen=True)
class Changes:
    """What other writers changed since the last poll.

    :ivar topics: topics named by the changes (PostgreSQL).
    :ivar any_topic: something changed, on topics unknown (SQLite; a lost listener).
    """

    topics: frozenset[str] = frozenset()
    any_topic: bool = False

    def __bool__(self) -> bool:
        return self.any_topic or bool(self.topics)

    def touches(self, topic: str) -> bool:
        """Whether ``topic`` may have changed."""
        return self.any_topic or topic in self.topics


class ChangeWatcher(Protocol):
    """Polled on a timer; :meth:`poll` never waits."""

    def poll(self) -> Changes:
        """What changed since the previous poll (or since the watcher was made)."""
        ...

    def close(self) -> None:
        """Stop watching (close any connection of its own)."""
        ...


def watch(store: JudgmentStore) -> ChangeWatcher:
    """The watcher for ``store``: :class:`DataVersionWatcher` on SQLite,
    :class:`NotificationWatcher` on PostgreSQL (it opens a connection of its own).

    :raises StoreError: the PostgreSQL server cannot be reached.
    """
    if isinstance(store.conn, PostgresConnection):
        return NotificationWatcher(store.conn.url)
    return DataVersionWatcher(store)


class DataVersionWatcher:
    """SQLite: compares ``PRAGMA data_version`` of the store's connection with the
    value at the previous poll (the connection's own commits leave it alone)."""

    def __init__(self, store: JudgmentStore) -> None:
        self.store = store
        self.version = self._version()

    def _version(self) -> int:
        return int(self.store.conn.execute("PRAGMA data_version").fetchone()[0])

    def poll(self) -> Changes:
        version = self._version()
        changed, self.version = version != self.version, version
        return Changes(any_topic=changed)

    def close(self) -> None:
        """Nothing to close: the store's connection is the store's."""


class NotificationWatcher:
    """PostgreSQL: a connection of its own that ``LISTEN``\\ s on :data:`CHANNEL`.
    A lost connection reports one change on any topic, then watches no more."""

    def __init__(self, url: str) -> None:
        self.conn: PostgresConnection | None = PostgresConnection(url)
        self.conn.executescript(f"LISTEN {CHANNEL}")

    def poll(self) -> Changes:
        import psycopg

        if self.conn is None:
            return Changes()
        try:
            topics = frozenset(note.payload for note in self.conn.raw.notifies(timeout=0))
        except psycopg.Error:
            self.close()
            return Changes(any_topic=True)
        return Changes(topics=topics)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None
