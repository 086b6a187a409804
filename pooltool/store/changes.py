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

:meth:`pooltool.store.JudgmentStore.watch_changes` gives the watcher for a store;
:meth:`ChangeWatcher.poll` says what changed since the last poll.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

CHANNEL = "pooltool_judging"
"""The channel postgresql.sql's triggers notify (payload: the topic)."""


@dataclass(frozen=True)
class Changes:
    """What other writers changed since the last poll.

    :ivar topics: topics named by the changes (PostgreSQL).
    :ivar any_topic: something changed, on topics unknown (SQLite; a lost listener).
    :ivar lost: the watcher's connection went away (PostgreSQL): it watches no more.
    """

    topics: frozenset[str] = frozenset()
    any_topic: bool = False
    lost: bool = False

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
