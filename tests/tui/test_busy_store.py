"""A store another process keeps locked: the screen stays live, the writes wait in the
journal, and a key grades only the document on screen (issue 23, item 5)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from judge_fixtures import AppFactory, log_rows, wait_until, write_lock_held
from textual import events

from pooltool.store.journal import BUSY_WAIT_MS, RETRY_WAIT_MS
from pooltool.tui.screens.judge import TYPED_AHEAD_NOTICE, JudgeScreen

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


async def test_typed_ahead_keys_grade_nothing_and_tries_do_not_wait(
        app_factory: AppFactory, store_path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """alice grades d1 while the store is locked: its write waits once for the lock, and
    every later try (her next grade, the claims of the next documents, the timer's
    retries) waits at most RETRY_WAIT_MS. Three keys reach the app at once on d2 (typed
    ahead while the screen was busy): the first grades d2, the two others were pressed
    before d3 was on screen and grade nothing. Once the lock is released the log holds
    d1 and d2 only, each with the time it was on screen."""
    app = app_factory()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = app.screen
        assert isinstance(screen, JudgeScreen) and screen.session.docno == "d1"
        waits: list[int] = []
        begin = app.store.conn.begin_write

        def spied() -> None:
            waits.append(app.store.conn.lock_timeout_ms)
            begin()

        monkeypatch.setattr(app.store.conn, "begin_write", spied)
        assert await wait_until(pilot, lambda: screen.on_screen.drawn is not None)
        with locked(store_path):
            await pilot.press("2")
            assert (app.writes.pending, screen.session.docno) == (1, "d2")
            assert await wait_until(pilot, lambda: screen.on_screen.drawn is not None
                                    and screen.on_screen.drawn[0] == "d2")
            for key in "103":  # made now, handled after: typed ahead
                app._driver.send_message(events.Key(key, key))
            await pilot.pause()
            assert (app.writes.pending, screen.session.docno) == (2, "d3")
            assert [n.message for n in app._notifications].count(
                TYPED_AHEAD_NOTICE.format(docno="d3")) == 2
            assert "2 write(s) waiting: store busy" in status_line(app)
            await pilot.pause(2 * 0.5)  # the timer retries meanwhile
            assert app.writes.pending == 2
        assert waits[0] == BUSY_WAIT_MS and len(waits) >= 3  # d1, the claim of d2, a retry
        assert all(ms <= RETRY_WAIT_MS for ms in waits[1:]), waits
        assert await wait_until(pilot, lambda: app.writes.pending == 0)
        assert "waiting" not in status_line(app)
    rows = log_rows(store_path)
    assert list(zip(rows["docno"], rows["grade"], strict=True)) == [("d1", 2), ("d2", 1)]
    assert (rows["ms_spent"] > 0).all()
