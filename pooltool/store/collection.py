"""The collection in the store: topic statements and documents, each import recorded
in ``imports`` (kind, source, sha256, records read and stored)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pooltool.errors import StoreError, UnknownTopic
from pooltool.records import Document, Topic
from pooltool.store.core import StoreCore
from pooltool.store.engine import Engine
from pooltool.store.provenance import file_sha256, utc_now

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class ImportSummary:
    """What an import did: records read from the source, stored, and skipped as present."""

    source: str
    read: int
    added: int

    @property
    def skipped(self) -> int:
        """Records already in the store (identical), so not stored again."""
        return self.read - self.added



class CollectionTables(StoreCore):
    """Topic and document methods of :class:`~pooltool.store.JudgmentStore` (a mixin)."""

    def add_topics(self, topics: Iterable[Topic], source: str) -> ImportSummary:
        """Store topic statements (one transaction).

        A topic already stored with the same text is skipped; with a different
        text it is an error (topics are never overwritten in place).

        :raises StoreError: a topic id already holds a different statement.
        """
        rows = list(topics)
        with self.writing("imported") as conn:
            import_id = self._record_import(conn, "topics", source, len(rows))
            added = sum(self._add_topic(conn, t, import_id, source) for t in rows)
            conn.execute("UPDATE imports SET added = ? WHERE import_id = ?", [added, import_id])
        return ImportSummary(source, len(rows), added)

    def _add_topic(self, conn: Engine, topic: Topic, import_id: int,
                   source: str) -> bool:
        old = conn.execute(
            "SELECT title, description, narrative FROM topics WHERE topic = ?", [topic.topic]
        ).fetchone()
        if old is not None:
            if tuple(old) != tuple(topic[1:]):
                raise StoreError(
                    f"{source}: topic {topic.topic!r} is already stored with a different "
                    "statement (topics are never overwritten; nothing was imported)"
                )
            return False
        conn.execute("INSERT INTO topics VALUES (?, ?, ?, ?, ?)", [*topic, import_id])
        return True

    def add_documents(self, documents: Iterable[Document], source: str) -> ImportSummary:
        """Store documents for the judging UI (one transaction, streamed).

        A docno already stored keeps its first text; the new copy is counted
        as skipped.
        """
        with self.writing("imported") as conn:
            import_id = self._record_import(conn, "documents", source, 0)
            read = 0
            before = conn.total_changes
            for batch in _batches(documents, 5000):
                read += len(batch)
                conn.executemany(
                    "INSERT OR IGNORE INTO documents VALUES (?, ?, ?, ?)",
                    [(*doc, import_id) for doc in batch],
                )
            added = conn.total_changes - before
            conn.execute(
                "UPDATE imports SET lines = ?, added = ? WHERE import_id = ?",
                [read, added, import_id],
            )
        return ImportSummary(source, read, added)

    def topics(self) -> pd.DataFrame:
        """All topics: columns ``topic, title, description, narrative``."""
        return self.query("SELECT topic, title, description, narrative FROM topics ORDER BY topic")

    def topic(self, topic: str) -> Topic:
        """One topic statement.

        :raises UnknownTopic: no such topic in the store.
        """
        row = self.conn.execute(
            "SELECT topic, title, description, narrative FROM topics WHERE topic = ?", [topic]
        ).fetchone()
        if row is None:
            raise UnknownTopic(f"no topic {topic!r} in the store")
        return Topic(*row)

    def document(self, docno: str) -> Document | None:
        """A document's text, or ``None`` when the store has no text for it."""
        row = self.conn.execute(
            "SELECT docno, title, text FROM documents WHERE docno = ?", [docno]
        ).fetchone()
        return None if row is None else Document(*row)

    def _record_import(self, conn: Engine, kind: str, source: str, lines: int) -> int:
        path = Path(source)
        sha = file_sha256(path) if path.is_file() else ""
        return conn.insert_id(
            "INSERT INTO imports(kind, source_path, sha256, lines, added, imported_at) "
            "VALUES (?, ?, ?, ?, 0, ?) RETURNING import_id",
            [kind, source, sha, lines, utc_now()],
        )


def _batches(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch



__all__ = ["CollectionTables", "ImportSummary"]
