"""The judging session and write queue without the screen."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from judge_fixtures import Clock, log_rows, write_lock_held

from pooltool.errors import StoreBusy
from pooltool.judging.session import JudgingSession
from pooltool.store import JudgmentStore
from pooltool.store.journal import RETRY_WAIT_MS, WriteQueue, is_busy
from pooltool.store.journal_files import journal_path, journals
from pooltool.store.ui_writes import OPERATIONS, PendingWrite

pytestmark = pytest.mark.both_engines  # the write queue on a busy store (the write lock), claims, journals


@pytest.fixture
def writes(store_path: str) -> Iterator[WriteQueue]:
    store = JudgmentStore.open(store_path)
    store.set_busy_timeout(50)
    yield WriteQueue(store)
    store.close()


@pytest.fixture
def other(store_path: str) -> Iterator[JudgmentStore]:
    """A second connection to the same store: another assessor's app."""
    store = JudgmentStore.open(store_path)
    yield store
    store.close()


def test_undo_walks_back_through_earlier_sessions(writes: WriteQueue, store_path: str) -> None:
    first = JudgingSession(writes, "1", "alice")
    first.grade(1, 100)
    first.grade(2, 100)
    again = JudgingSession(writes, "1", "alice")
    assert again.docno == "d3"
    assert again.undo() == "d2"
    assert again.undo() == "d1"
    assert again.undo() is None
    assert list(log_rows(store_path)["retracts"].iloc[2:]) == [2, 1]


def test_grading_the_last_document_stays_there(writes: WriteQueue) -> None:
    session = JudgingSession(writes, "2", "alice")
    for _ in range(3):
        session.grade(0, 5)
    assert session.done and session.docno == "d6"
    assert session.next_unjudged() is None


def test_the_same_grade_pressed_again_writes_nothing(writes: WriteQueue,
                                                     store_path: str) -> None:
    """A tester pressed a grade key again on the last document: each press appended
    an identical judgment. Only a change of grade is a new judgment."""
    session = JudgingSession(writes, "2", "alice")
    for _ in range(3):
        assert session.grade(0, 5)
    assert session.docno == "d6"
    assert not session.grade(0, 7)
    assert session.grade(2, 9)
    assert not session.grade(2, 9)
    rows = log_rows(store_path).query("topic == '2' and assessor == 'alice'")
    assert rows[["docno", "grade"]].values.tolist() == [
        ["d1", 0], ["d2", 0], ["d6", 0], ["d6", 2]]
    assert session.undo() == "d6" and session.grade_of("d6") == 0


def test_undo_of_a_queued_grade_waits_for_its_id(writes: WriteQueue, store_path: str) -> None:
    session = JudgingSession(writes, "1", "alice")
    with write_lock_held(store_path):
        session.grade(3, 10)
        session.undo()
        assert writes.pending == 2 and not writes.flush()
    assert writes.flush()
    rows = log_rows(store_path)
    assert list(rows["retracts"].fillna(0)) == [0, 1]


def test_a_drain_tries_with_the_full_wait_when_the_queue_is_busy(
        writes: WriteQueue, store_path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """On quit each try waits the connection's full wait (50 ms here), not the busy
    queue's RETRY_WAIT_MS, which writers queueing for the lock could pass over on every
    try until the drain gave up (writes left in the journal)."""
    waits: list[int] = []
    commit = writes._commit

    def noting(write: PendingWrite) -> int | None:
        waits.append(writes.store.conn.lock_timeout_ms)
        return commit(write)

    monkeypatch.setattr(writes, "_commit", noting)
    with write_lock_held(store_path):
        writes.submit("judgment", topic="1", docno="d1", grade=1, assessor="alice")
        assert writes.busy and writes.pending == 1
    assert writes.drain(5.0)
    assert waits == [50, 50] and RETRY_WAIT_MS != 50
    assert log_rows(store_path)[["docno", "grade"]].values.tolist() == [["d1", 1]]


def test_other_errors_are_raised(writes: WriteQueue, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(store: JudgmentStore, args: dict[str, object]) -> int:
        store.conn.execute("SELECT * FROM no_such_table")
        return 0

    monkeypatch.setitem(OPERATIONS, "broken", broken)
    # a bug, not a refusal: raised as the engine's own error, neither kept nor dropped
    with pytest.raises((sqlite3.DatabaseError, psycopg.Error), match="no such table|does not exist"):
        writes.submit("broken")
    with pytest.raises(ValueError, match="unknown write operation"):
        writes.submit("nothing")


def test_a_write_the_store_rejects_is_dropped_not_blocking(writes: WriteQueue,
                                                           store_path: str) -> None:
    session = JudgingSession(writes, "1", "alice")
    session.grade(1, 10)
    writes.store.retract(1, "alice")  # e.g. another app of alice's undid it first
    assert session.undo() == "d1"  # the retraction the store refuses...
    session.grade(2, 10)  # ...does not hold up the next write
    assert writes.pending == 0
    assert [str(error) for _, error in writes.failed] == ["judgment 1 is already retracted"]
    assert list(log_rows(store_path)["grade"].fillna(-9)) == [1, -9, 2]


def test_is_busy() -> None:
    assert is_busy(StoreBusy("database is locked"))
    assert not is_busy(sqlite3.OperationalError("no such table: x"))


def test_judgments_outside_the_pool_are_ignored(writes: WriteQueue) -> None:
    writes.store.record_judgment("1", "elsewhere", 2, "alice")
    session = JudgingSession(writes, "1", "alice")
    assert session.judged == 0 and session.undo() is None


def test_an_unwritable_journal_keeps_writes_in_memory(store_path: str, tmp_path: Path) -> None:
    store = JudgmentStore.open(store_path)
    store.set_busy_timeout(50)
    writes = WriteQueue(store, tmp_path / "no such folder" / "journal.jsonl")
    session = JudgingSession(writes, "1", "alice")  # claims d1 at once, as on an idle store
    with write_lock_held(store_path):  # then the store is busy for the grade
        session.grade(2, 10)
        assert writes.pending == 1 and writes.journal_error is not None
        assert "no such folder" in writes.journal_error
    assert writes.flush()
    assert list(log_rows(store_path)["grade"]) == [2]
    store.close()


def test_journal_files_by_assessor_oldest_first(tmp_path: Path) -> None:
    db = tmp_path / "s[1].db"
    old, new = journal_path(db, "ann b", pid=20), journal_path(db, "ann b", pid=3)
    assert old.name == "s[1].db.pending-ann_b-20.jsonl"
    for path in (old, new, journal_path(db, "ann", pid=4), tmp_path / "s[1].db.pending-ann_b-x.jsonl"):
        path.write_text("")
    os.utime(old, (1, 1))
    assert journals(db, "ann b") == [old, new]


def test_own_negative_grade_is_still_to_judge_as_the_picker_counts(
        writes: WriteQueue) -> None:
    """An imported -1 under alice's own name: the picker and the screen both count
    the document as remaining (they disagreed, 5 against 4)."""
    from pooltool.judging.queue import topic_progress

    writes.store.record_judgment("1", "d1", -1, "alice")
    writes.store.record_judgment("1", "d3", 2, "alice")
    session = JudgingSession(writes, "1", "alice")
    picker = topic_progress(writes.store, "alice", ["1"]).iloc[0]
    assert (session.judged, session.remaining) == (1, 4)
    assert (int(picker["queue"]), int(picker["remaining"])) == (5, 4)
    assert session.docno == "d1"  # opens on the first document still to judge
    assert session.grade_of("d1") == -1  # the own grade is still shown


def test_two_assessors_on_one_shared_topic_see_different_documents(
        writes: WriteQueue, other: JudgmentStore) -> None:
    """alice and bob open topic 1 (assigned to neither) on two connections: bob is not
    shown the document alice has on screen, nor the ones she judged meanwhile."""
    alice = JudgingSession(writes, "1", "alice")
    assert alice.docno == "d1"
    bob = JudgingSession(WriteQueue(other), "1", "bob")
    assert bob.docno == "d2"  # d1 is on alice's screen
    alice.grade(1, 100)  # judges d1, moves to d3 (d2 is bob's)
    assert alice.docno == "d3"
    bob.grade(0, 100)  # judges d2; d3 is alice's: bob goes on to d4
    assert bob.docno == "d4"
    alice.release_claims()  # alice leaves the topic: d3 is free again
    bob.grade(2, 100)
    assert bob.docno == "d5"
    assert bob.next_unjudged() == bob.queue.index("d3")
    claims = other.query("SELECT docno, assessor FROM claims ORDER BY docno")
    assert claims.values.tolist() == [["d2", "bob"], ["d4", "bob"], ["d5", "bob"]]


def test_claims_lapse_and_do_not_apply_to_assigned_topics(
        writes: WriteQueue, other: JudgmentStore) -> None:
    from pooltool.judging.assignment import assign_topics

    clock = Clock()
    writes.store.claim_clock = other.claim_clock = clock
    alice = JudgingSession(writes, "1", "alice")
    clock.advance(4.9)  # alice's claim on d1 holds for 5 minutes...
    assert JudgingSession(WriteQueue(other), "1", "bob").docno == "d2"
    clock.advance(0.2)  # ...then lapses (her app died, or she left it on screen unrenewed)
    assert JudgingSession(WriteQueue(other), "1", "bob").docno == "d1"
    assign_topics(writes.store, ["alice", "bob"], ["1"], overlap=1.0)
    writes.store.set_setting("claim_minutes", 5)
    alice = JudgingSession(writes, "1", "alice")
    bob = JudgingSession(WriteQueue(other), "1", "bob")
    assert (alice.shared, bob.shared) == (False, False)
    assert alice.docno == bob.docno == "d1"  # both judge every document


def test_a_document_claimed_after_the_read_is_passed_over(
        writes: WriteQueue, other: JudgmentStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """bob's app chooses d2 from a read of the store made before carol's app claimed it
    (two apps choosing at once): his claim is refused and he is shown d3 instead."""
    bob = JudgingSession(WriteQueue(other), "1", "bob")
    assert bob.docno == "d1"
    monkeypatch.setattr(bob, "taken_by_others", set)  # his read: nothing taken yet
    assert writes.store.claim("1", "d2", "carol", 5)  # carol's app claims d2 meanwhile
    bob.grade(1, 100)
    assert bob.docno == "d3"
    claims = other.query("SELECT docno, assessor FROM claims ORDER BY docno")
    assert claims.values.tolist() == [["d1", "bob"], ["d2", "carol"], ["d3", "bob"]]


def test_a_shared_topic_whose_documents_left_are_all_taken_offers_nothing(
        writes: WriteQueue, other: JudgmentStore) -> None:
    """Every document of topic 1 nobody has judged is on carol's screen: bob, who has
    judged none, has nothing to judge (an empty queue: the app does not open the
    topic); alice, who judged d1, opens on it."""
    writes.store.record_judgment("1", "d1", 2, "alice")
    for docno in ("d2", "d3", "d4", "d5"):
        assert writes.store.claim("1", docno, "carol", 5)
    assert JudgingSession(WriteQueue(other), "1", "bob").queue == []
    alice = JudgingSession(writes, "1", "alice")
    assert (alice.docno, alice.judged, alice.next_unjudged()) == ("d1", 1, None)


def test_claims_are_kept_while_a_judgment_waits_for_the_store(
        writes: WriteQueue, store_path: Path) -> None:
    """alice grades d1 while another process holds the write lock, then leaves the
    topic: her claims stay until her judgment is in the store (else bob could take
    d1 before it is, and judge it twice), and go once it is."""
    alice = JudgingSession(writes, "1", "alice")
    with write_lock_held(store_path):
        alice.grade(2, 100)
    assert writes.pending == 1
    alice.release_claims()
    assert writes.store.claimed_by_others("1", "bob") == {"d1"}  # d2: waits for its claim (busy)
    assert writes.flush()
    alice.release_claims()
    assert writes.store.claimed_by_others("1", "bob") == set()
