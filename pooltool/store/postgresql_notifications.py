"""The PostgreSQL store's change watcher: ``LISTEN`` on the channel its triggers notify."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pooltool.store.changes import CHANNEL, Changes

if TYPE_CHECKING:
    from pooltool.store.postgresql import PostgresqlEngine


class NotificationWatcher:
    """PostgreSQL: a connection of its own that ``LISTEN``\\ s on :data:`CHANNEL`.
    A lost connection reports one change on any topic, marked ``lost``, then watches
    no more (the judging app makes a new watcher once the server is back)."""

    def __init__(self, engine: PostgresqlEngine) -> None:
        self.conn: PostgresqlEngine | None = engine
        engine.executescript(f"LISTEN {CHANNEL}")

    def poll(self) -> Changes:
        import psycopg

        if self.conn is None:
            return Changes()
        try:
            topics = frozenset(note.payload for note in self.conn.raw.notifies(timeout=0))
        except psycopg.Error:
            self.close()
            return Changes(any_topic=True, lost=True)
        return Changes(topics=topics)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None
