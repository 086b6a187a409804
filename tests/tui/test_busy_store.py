"""A store another process keeps locked: the screen stays live, the writes wait in the
journal, and a key grades only the document on screen (issue 23, item 5); a document
whose claim the busy store did not take is not shown for grading until it holds."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from judge_fixtures import AppFactory, log_rows, pane_words, wait_until, write_lock_held
from textual import events

from pooltool.store import JudgmentStore
from pooltool.store.journal import BUSY_WAIT_MS, RETRY_WAIT_MS
from pooltool.store.ui_writes import PendingWrite
from pooltool.tui.screens.judge import (
    RESERVING_NOTICE,
    RESERVING_TEXT,
    TYPED_AHEAD_NOTICE,
    JudgeScreen,
)

pytestmark = pytest.mark.both_engines  # the write lock: SQLite's file lock, PostgreSQL's lock

SIZE = (110, 30)


@contextmanager
def locked(address: str) -> Iterator[None]:
    """Another connection holds the store's write lock: ``BEGIN EXCLUSIVE`` on a SQLite
    file, the store's write lock on PostgreSQL."""
    if "://" not in str(address):
        conn = sqlite3.connect(address)
        conn.execute("BEGIN EXCLUSIVE")
        try:
            yield
        finally:
            conn.rollback()
            conn.close()
    else:
        with write_lock_held(address):
            yield


def status_line(app: object) -> str:
    return str(app.screen.query_one("#status").render())  # type: ignore[attr-defined]


def shown(screen: JudgeScreen, docno: str) -> bool:
    """Whether ``docno`` is drawn for grading (its claim holds)."""
    drawn = screen.on_screen.drawn
    return not screen.session.reserving and drawn is not None and drawn[0] == docno


async def test_typed_ahead_keys_grade_nothing_and_write_retries_do_not_wait(
        app_factory: AppFactory, store_path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """alice grades d1 while the store is locked: its write waits once for the lock, and
    the timer's retries of it wait at most RETRY_WAIT_MS (d2 meanwhile waits for its
    claim: the next test). Once the lock is released d2 shows; three keys reach the app
    at once on d2 (typed ahead while the screen was busy): the first grades d2, the two
    others were pressed before d3 was on screen and grade nothing. The log holds d1 and
    d2 only, each with the time it was on screen."""
    app = app_factory()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = app.screen
        assert isinstance(screen, JudgeScreen) and screen.session.docno == "d1"
        waits: list[int] = []  # each write's wait for the lock
        commit = app.writes._commit

        def spied(write: PendingWrite) -> int | None:
            waits.append(app.store.conn.lock_timeout_ms)
            return commit(write)

        monkeypatch.setattr(app.writes, "_commit", spied)
        assert await wait_until(pilot, lambda: shown(screen, "d1"))
        with locked(store_path):
            await pilot.press("2")
            assert (app.writes.pending, screen.session.docno) == (1, "d2")
            assert await wait_until(pilot, lambda: len(waits) >= 3)  # the timer's retries
            assert "1 write(s) waiting: store busy" in status_line(app)
            while_locked = list(waits)
        assert while_locked[0] == BUSY_WAIT_MS
        assert all(ms <= RETRY_WAIT_MS for ms in while_locked[1:]), while_locked
        assert await wait_until(pilot, lambda: shown(screen, "d2"))
        for key in "103":  # made now, handled after: typed ahead
            app._driver.send_message(events.Key(key, key))
        await pilot.pause()
        assert screen.session.docno == "d3"
        assert [n.message for n in app._notifications].count(
            TYPED_AHEAD_NOTICE.format(docno="d3")) == 2
        assert await wait_until(pilot, lambda: app.writes.pending == 0)
        assert "waiting" not in status_line(app)
    rows = log_rows(store_path)
    assert list(zip(rows["docno"], rows["grade"], strict=True)) == [("d1", 2), ("d2", 1)]
    assert (rows["ms_spent"] > 0).all()


async def test_a_document_whose_claim_waits_is_not_shown_nor_graded(
        app_factory: AppFactory, store_path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """alice grades d1 while another connection keeps the store locked: d2's claim is
    not taken, so its text is not shown (the pane says it waits) and a grade key grades
    nothing; the timer tries the claim again with the connection's full wait, not the
    busy queue's short one. Once the lock is released the claim holds, d2 shows, and a
    key grades it (keys pressed while it waited do not count for it)."""
    app = app_factory()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = app.screen
        assert isinstance(screen, JudgeScreen)
        tries: list[int] = []  # each claim's wait for the lock
        claim = app.store.claim

        def spied(*args: object) -> bool:
            tries.append(app.store.conn.lock_timeout_ms)
            return claim(*args)

        monkeypatch.setattr(app.store, "claim", spied)
        assert await wait_until(pilot, lambda: shown(screen, "d1"))
        with locked(store_path):
            await pilot.press("2")
            assert screen.session.docno == "d2" and screen.session.reserving
            assert screen.session.claims.held != "d2"
            assert RESERVING_TEXT.split(":")[0] in pane_words(app)
            assert "composite slabs" not in pane_words(app)  # d2's text
            await pilot.press("1")
            assert RESERVING_NOTICE in [n.message for n in app._notifications]
            assert await wait_until(pilot, lambda: len(tries) >= 2)  # the timer's tries
            assert tries[-1] == BUSY_WAIT_MS and screen.session.reserving
            assert [h.docno for h in screen.session.history] == ["d1"]
        assert await wait_until(pilot, lambda: shown(screen, "d2"))
        assert screen.session.claims.held == "d2"
        assert await wait_until(pilot, lambda: app.writes.pending == 0)
        assert claimed(store_path) == [("d1", "alice"), ("d2", "alice")]
        await pilot.press("0")
        assert screen.session.docno == "d3"
        assert await wait_until(pilot, lambda: app.writes.pending == 0)
    rows = log_rows(store_path)
    assert list(zip(rows["docno"], rows["grade"], strict=True)) == [("d1", 2), ("d2", 0)]


def claimed(address: str) -> list[tuple[str, str]]:
    """The claims in the store, (docno, assessor) by docno."""
    with JudgmentStore.open(address) as store:
        rows = store.query("SELECT docno, assessor FROM claims ORDER BY docno")
    return [(str(docno), str(who)) for docno, who in rows.values.tolist()]
