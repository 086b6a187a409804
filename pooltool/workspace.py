"""An assessor's working state per topic, kept in the store between sessions.

* **scan terms**: words and phrases the assessor asked to see highlighted;
* **skip marks**: documents left for later (``s`` in the judging UI);
* **position**: the document last on their screen, where the UI reopens.

These tables (migration ``m002_judging_ui``) are UI state, not evidence: rows
are replaced freely. The judgment log is never touched here.
"""

from __future__ import annotations

import json

from pooltool.store import JudgmentStore
from pooltool.store.store import utc_now


def scan_terms(store: JudgmentStore, assessor: str, topic: str) -> list[str]:
    """The assessor's scan terms for a topic (empty when none were set)."""
    row = store.conn.execute(
        "SELECT terms FROM scan_terms WHERE assessor = ? AND topic = ?", [assessor, topic]
    ).fetchone()
    return [] if row is None else [str(t) for t in json.loads(row[0])]


def set_scan_terms(store: JudgmentStore, assessor: str, topic: str, terms: list[str]) -> None:
    """Replace the assessor's scan terms for a topic."""
    with store.writing() as conn:
        conn.execute(
            "INSERT INTO scan_terms(assessor, topic, terms, updated_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(assessor, topic) DO UPDATE SET terms = excluded.terms, "
            "updated_at = excluded.updated_at",
            [assessor, topic, json.dumps(terms), utc_now()])


def skipped(store: JudgmentStore, assessor: str, topic: str) -> set[str]:
    """Docnos the assessor skipped in a topic."""
    rows = store.conn.execute(
        "SELECT docno FROM skip_marks WHERE assessor = ? AND topic = ?", [assessor, topic])
    return {row[0] for row in rows}


def mark_skipped(store: JudgmentStore, assessor: str, topic: str, docno: str) -> None:
    """Mark a document as skipped (left for later); marking it again is a no-op."""
    with store.writing() as conn:
        conn.execute(
            "INSERT OR IGNORE INTO skip_marks(assessor, topic, docno, skipped_at) "
            "VALUES (?, ?, ?, ?)", [assessor, topic, docno, utc_now()])


def last_position(store: JudgmentStore, assessor: str, topic: str) -> str | None:
    """The docno last on the assessor's screen for a topic, if recorded."""
    row = store.conn.execute(
        "SELECT docno FROM ui_positions WHERE assessor = ? AND topic = ?", [assessor, topic]
    ).fetchone()
    return None if row is None else str(row[0])


def save_position(store: JudgmentStore, assessor: str, topic: str, docno: str) -> None:
    """Record the docno on the assessor's screen for a topic."""
    with store.writing() as conn:
        conn.execute(
            "INSERT INTO ui_positions(assessor, topic, docno, updated_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(assessor, topic) DO UPDATE SET docno = excluded.docno, "
            "updated_at = excluded.updated_at", [assessor, topic, docno, utc_now()])
