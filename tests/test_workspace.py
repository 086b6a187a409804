"""An assessor's working state kept in the store: note drafts and the last topic used."""

from __future__ import annotations

import pytest

from pooltool.errors import StoreError
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


def _tokens(store: JudgmentStore) -> list[list[object]]:
    return store.query("SELECT token, result FROM ui_write_tokens ORDER BY token").values.tolist()


def test_a_write_applied_once_records_its_token_with_the_commit(
        memory_store: JudgmentStore) -> None:
    """The token goes with the commit (on a server, in one round trip with it): the
    judgment and its token stand together, and the token's second try writes nothing."""
    store = memory_store
    first = workspace.apply_once(store, "t-1", lambda: store.record_judgment("1", "d1", 2, "ann"),
                                 look_up=False)
    again = workspace.apply_once(store, "t-1", lambda: store.record_judgment("1", "d1", 0, "ann"))
    assert again == first
    assert _tokens(store) == [["t-1", first]]
    assert store.query("SELECT docno, grade FROM judgments").values.tolist() == [["d1", 2]]


def test_a_token_recorded_twice_rolls_back_the_whole_write(memory_store: JudgmentStore) -> None:
    """A token already recorded, tried as a first try (no look-up), fails at the commit
    on a server: the judgment written before it in the transaction is rolled back too,
    and the store is writable afterwards."""
    store = memory_store
    first = workspace.apply_once(store, "t-1", lambda: store.record_judgment("1", "d1", 2, "ann"),
                                 look_up=False)
    with pytest.raises(StoreError):
        workspace.apply_once(store, "t-1", lambda: store.record_judgment("1", "d2", 1, "ann"),
                             look_up=False)
    assert store.query("SELECT docno FROM judgments").values.tolist() == [["d1"]]
    assert _tokens(store) == [["t-1", first]]
    later = workspace.apply_once(store, "t-2", lambda: store.record_judgment("1", "d3", 0, "ann"),
                                 look_up=False)
    assert _tokens(store) == [["t-1", first], ["t-2", later]]


def test_a_statement_after_one_kept_for_the_commit_sees_it(memory_store: JudgmentStore) -> None:
    """A statement kept for the commit runs before any later one of the transaction,
    so the order written is the order run."""
    store = memory_store
    with store.writing() as conn:
        conn.execute_at_commit("INSERT INTO ui_write_tokens(token, result, applied_at) "
                               "VALUES (?, ?, ?)", ["t-9", 7, "2026-12-05T00:00:00Z"])
        seen = conn.execute("SELECT result FROM ui_write_tokens WHERE token = ?",
                            ["t-9"]).fetchone()
    assert seen is not None and int(seen[0]) == 7
    assert _tokens(store) == [["t-9", 7]]
