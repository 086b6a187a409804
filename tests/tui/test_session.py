"""The judging session and write queue without the screen."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from judge_fixtures import log_rows

from pooltool.store import JudgmentStore
from pooltool.tui.session import JudgingSession
from pooltool.tui.writes import WriteQueue, is_busy


@pytest.fixture
def writes(store_path: Path) -> Iterator[WriteQueue]:
    store = JudgmentStore.open(store_path)
    store.conn.execute("PRAGMA busy_timeout = 50")
    yield WriteQueue(store)
    store.close()


def test_undo_walks_back_through_earlier_sessions(writes: WriteQueue, store_path: Path) -> None:
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


def test_undo_of_a_queued_grade_waits_for_its_id(writes: WriteQueue, store_path: Path) -> None:
    session = JudgingSession(writes, "1", "alice")
    blocker = sqlite3.connect(store_path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    session.grade(3, 10)
    session.undo()
    assert writes.pending == 2 and not writes.flush()
    blocker.execute("COMMIT")
    assert writes.flush()
    rows = log_rows(store_path)
    assert list(rows["retracts"].fillna(0)) == [0, 1]
    blocker.close()


def test_other_errors_are_raised(writes: WriteQueue) -> None:
    def broken(store: JudgmentStore) -> int:
        store.conn.execute("SELECT * FROM no_such_table")
        return 0

    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        writes.submit(broken)


def test_is_busy() -> None:
    assert is_busy(sqlite3.OperationalError("database is locked"))
    assert not is_busy(sqlite3.OperationalError("no such table: x"))


def test_judgments_outside_the_pool_are_ignored(writes: WriteQueue) -> None:
    writes.store.record_judgment("1", "elsewhere", 2, "alice")
    session = JudgingSession(writes, "1", "alice")
    assert session.judged == 0 and session.undo() is None
