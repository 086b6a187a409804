"""An assessor's working state per topic, kept in the store between sessions.

* **scan terms**: words and phrases the assessor asked to see highlighted;
* **skip marks**: documents left for later (``s`` in the judging UI);
* **position**: the document last on their screen, where the UI reopens;
* **note drafts**: a note written on a document not graded yet, kept until
  the assessor's next judgment of that document carries it (migration
  ``m003_durable_ui``);
* **last topic**: the topic the assessor worked on most recently (derived).

* **write tokens**: which journalled writes of the judging UI are committed, so
  that a journal replayed twice applies each write once.

These tables (migrations ``m002_judging_ui`` and ``m003_durable_ui``) are UI
state, not evidence: rows are replaced freely. The judgment log is never
touched here. Writers take an optional ``at`` (UTC, ISO 8601), the time the
assessor acted, for writes that waited for a busy store; default now.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from pooltool.errors import StoreError
from pooltool.store.engine import Engine
from pooltool.store.provenance import utc_now

if TYPE_CHECKING:
    from pooltool.store.store import JudgmentStore


def scan_terms(store: JudgmentStore, assessor: str, topic: str) -> list[str]:
    """The assessor's scan terms for a topic (empty when none were set)."""
    row = store.conn.execute(
        "SELECT terms FROM scan_terms WHERE assessor = ? AND topic = ?", [assessor, topic]
    ).fetchone()
    return [] if row is None else [str(t) for t in json.loads(row[0])]


def set_scan_terms(store: JudgmentStore, assessor: str, topic: str, terms: list[str],
                   at: str | None = None) -> None:
    """Replace the assessor's scan terms for a topic."""
    with store.writing() as conn:
        conn.execute(
            "INSERT INTO scan_terms(assessor, topic, terms, updated_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(assessor, topic) DO UPDATE SET terms = excluded.terms, "
            "updated_at = excluded.updated_at",
            [assessor, topic, json.dumps(terms), at or utc_now()])


def skipped(store: JudgmentStore, assessor: str, topic: str) -> set[str]:
    """Docnos the assessor skipped in a topic."""
    rows = store.conn.execute(
        "SELECT docno FROM skip_marks WHERE assessor = ? AND topic = ?", [assessor, topic])
    return {row[0] for row in rows}


def mark_skipped(store: JudgmentStore, assessor: str, topic: str, docno: str,
                 at: str | None = None) -> None:
    """Mark a document as skipped (left for later); marking it again is a no-op."""
    with store.writing() as conn:
        conn.execute(
            "INSERT OR IGNORE INTO skip_marks(assessor, topic, docno, skipped_at) "
            "VALUES (?, ?, ?, ?)", [assessor, topic, docno, at or utc_now()])


def last_position(store: JudgmentStore, assessor: str, topic: str) -> str | None:
    """The docno last on the assessor's screen for a topic, if recorded."""
    row = store.conn.execute(
        "SELECT docno FROM ui_positions WHERE assessor = ? AND topic = ?", [assessor, topic]
    ).fetchone()
    return None if row is None else str(row[0])


def save_position(store: JudgmentStore, assessor: str, topic: str, docno: str,
                  at: str | None = None) -> None:
    """Record the docno on the assessor's screen for a topic."""
    with store.writing() as conn:
        conn.execute(
            "INSERT INTO ui_positions(assessor, topic, docno, updated_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(assessor, topic) DO UPDATE SET docno = excluded.docno, "
            "updated_at = excluded.updated_at", [assessor, topic, docno, at or utc_now()])


def note_drafts(store: JudgmentStore, assessor: str, topic: str) -> dict[str, str]:
    """The assessor's note drafts in a topic: ``{docno: note}``."""
    rows = store.conn.execute(
        "SELECT docno, note FROM note_drafts WHERE assessor = ? AND topic = ?", [assessor, topic])
    return {str(docno): str(note) for docno, note in rows}


def save_note_draft(store: JudgmentStore, assessor: str, topic: str, docno: str,
                    note: str | None, at: str | None = None) -> None:
    """Keep ``note`` as the draft for a document (replacing any earlier one); an
    empty or ``None`` note removes the draft."""
    with store.writing() as conn:
        if not note:
            conn.execute("DELETE FROM note_drafts WHERE assessor = ? AND topic = ? AND docno = ?",
                         [assessor, topic, docno])
            return
        conn.execute(
            "INSERT INTO note_drafts(assessor, topic, docno, note, updated_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT(assessor, topic, docno) DO UPDATE SET "
            "note = excluded.note, updated_at = excluded.updated_at",
            [assessor, topic, docno, note, at or utc_now()])


def last_topic(store: JudgmentStore, assessor: str, topics: list[str] | None = None) -> str | None:
    """The topic the assessor used last in the judging UI, or ``None`` if none.

    "Used" is the latest of: a judgment they made in the UI (``origin`` 'tui'),
    the position saved when they left a topic, a skip mark, a note draft or
    scan terms; ties go to the topic that sorts last.

    :param topics: only consider these topics (default: any).
    """
    rows = store.conn.execute(
        "SELECT topic, MAX(at) FROM ("
        " SELECT topic, judged_at AS at FROM judgments WHERE assessor = :a AND origin = 'tui'"
        " UNION ALL SELECT topic, updated_at FROM ui_positions WHERE assessor = :a"
        " UNION ALL SELECT topic, skipped_at FROM skip_marks WHERE assessor = :a"
        " UNION ALL SELECT topic, updated_at FROM note_drafts WHERE assessor = :a"
        " UNION ALL SELECT topic, updated_at FROM scan_terms WHERE assessor = :a"
        ") AS activity GROUP BY topic", {"a": assessor}).fetchall()
    allowed = None if topics is None else set(topics)
    used = [(at, topic) for topic, at in rows if allowed is None or topic in allowed]
    return str(max(used)[1]) if used else None


def committed_result(store: JudgmentStore, token: str) -> int:
    """What the journalled write ``token`` returned when it was committed.

    :raises StoreError: it has not been committed.
    """
    row = store.conn.execute(
        "SELECT result FROM ui_write_tokens WHERE token = ?", [token]).fetchone()
    if row is None or row[0] is None:
        raise StoreError(f"the write {token} this one depends on was never committed")
    return int(row[0])


def apply_once(store: JudgmentStore, token: str | None,
               write: Callable[[], int | None], look_up: bool = True) -> int | None:
    """Run ``write`` in one transaction, recording ``token`` with its result, unless the
    token is recorded already (then return the recorded result, writing nothing).

    :param token: the journal token; ``None`` for a write that was never journalled
        (run as is, nothing recorded).
    :param look_up: whether the token may be recorded already; ``False`` for a token
        never sent to the store (a write's first try), which saves a statement under
        the write lock (recording it still fails on a token recorded twice).
    :returns: what ``write`` returned (e.g. a new ``judgment_id``), or the recorded one.
    """
    with store.writing() as conn:
        if token is not None and look_up:
            done = _recorded(conn, token)
            if done is not None:
                return done[0]
        result = write()
        if token is not None:  # with the commit: nothing reads it back in this transaction
            conn.execute_at_commit("INSERT INTO ui_write_tokens(token, result, applied_at) "
                                   "VALUES (?, ?, ?)", [token, result, utc_now()])
    return result


def _recorded(conn: Engine, token: str) -> tuple[int | None] | None:
    row = conn.execute("SELECT result FROM ui_write_tokens WHERE token = ?", [token]).fetchone()
    return None if row is None else (None if row[0] is None else int(row[0]),)

