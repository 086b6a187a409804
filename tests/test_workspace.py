"""An assessor's working state kept in the store: note drafts and the last topic used."""

from __future__ import annotations

import pytest

from pooltool.store import JudgmentStore, workspace

pytestmark = pytest.mark.both_engines  # the store's own SQL, rewritten for PostgreSQL


def test_note_drafts_per_assessor_topic_and_document(memory_store: JudgmentStore) -> None:
    store = memory_store
    workspace.save_note_draft(store, "ann", "1", "d1", "see fig 3", at="2026-01-01T00:00:00.000+00:00")
    workspace.save_note_draft(store, "ann", "1", "d2", "table 2")
    workspace.save_note_draft(store, "ann", "1", "d1", "see fig 4")  # replaces
    workspace.save_note_draft(store, "ben", "1", "d1", "ben's")
    assert workspace.note_drafts(store, "ann", "1") == {"d1": "see fig 4", "d2": "table 2"}
    assert workspace.note_drafts(store, "ann", "2") == {}
    workspace.save_note_draft(store, "ann", "1", "d2", None)  # removes
    workspace.save_note_draft(store, "ann", "1", "d1", "")
    assert workspace.note_drafts(store, "ann", "1") == {}
    assert workspace.note_drafts(store, "ben", "1") == {"d1": "ben's"}


def test_last_topic_is_the_latest_activity_of_that_assessor(memory_store: JudgmentStore) -> None:
    store = memory_store
    assert workspace.last_topic(store, "ann") is None
    store.record_judgment("10", "d1", 1, "ann", origin="tui", judged_at="2026-01-01T10:00:00.000+00:00")
    store.record_judgment("2", "d1", 1, "ann", origin="qrels:x",  # imported: not UI use
                          judged_at="2026-01-01T12:00:00.000+00:00")
    store.record_judgment("3", "d1", 1, "ben", origin="tui",  # someone else
                          judged_at="2026-01-01T13:00:00.000+00:00")
    assert workspace.last_topic(store, "ann") == "10"
    workspace.save_position(store, "ann", "7", "d9", at="2026-01-01T11:00:00.000+00:00")
    assert workspace.last_topic(store, "ann") == "7"
    workspace.mark_skipped(store, "ann", "8", "d9", at="2026-01-01T11:30:00.000+00:00")
    assert workspace.last_topic(store, "ann") == "8"
    assert workspace.last_topic(store, "ann", topics=["10", "7"]) == "7"
    assert workspace.last_topic(store, "ann", topics=["1"]) is None
