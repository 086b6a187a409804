"""An open judging app shows other assessors' judgments without a restart, on both
engines: another connection to the store records a judgment, and within a few
ticks of the app's watch timer the topic picker's counts and the judging
screen's progress show it (:mod:`pooltool.store.changes`)."""

from __future__ import annotations

import time

import pytest
from judge_fixtures import WAIT_S, build_store, wait_until
from test_picker import rows_of

from pooltool.store import JudgmentStore
from pooltool.store.changes import Changes, ChangeWatcher
from pooltool.store.postgresql_notifications import NotificationWatcher
from pooltool.tui.app import JudgeApp, make_app
from pooltool.tui.screens.judge import JudgeScreen

pytestmark = pytest.mark.both_engines  # change notifications (LISTEN on PostgreSQL, polling on SQLite)

SIZE = (110, 30)


@pytest.fixture
def address(store_address: str) -> str:
    """The judging fixture store (topic 1 pools d1-d5, topic 2 d1 d2 d6), once on SQLite
    and once on PostgreSQL."""
    build_store(store_address)  # a URL opens as a path does
    return store_address


def poll_until_changed(watcher: ChangeWatcher) -> Changes:
    """The watcher's changes once there are some (a notification may take a moment to
    arrive), or none after :data:`WAIT_S` seconds."""
    deadline = time.monotonic() + WAIT_S
    changes = watcher.poll()
    while not changes and time.monotonic() < deadline:
        time.sleep(0.05)
        changes = watcher.poll()
    return changes


def status_line(app: JudgeApp) -> str:
    return str(app.screen.query_one("#status").render())


def test_a_watcher_sees_another_connections_judgment(address: str) -> None:
    with JudgmentStore.open(address) as store, JudgmentStore.open(address) as other:
        watcher = store.watch_changes()
        assert not watcher.poll()
        other.record_judgment("2", "d6", 1, "bob")
        changes = poll_until_changed(watcher)
        assert changes.touches("2")
        assert changes.topics == (frozenset({"2"}) if store.engine == "postgresql"
                                  else frozenset())
        assert not watcher.poll()
        watcher.close()


async def test_the_topic_picker_counts_others_judgments(address: str) -> None:
    app = make_app(address, "alice", ["1", "2"])
    with JudgmentStore.open(address) as other:
        async with app.run_test(size=SIZE) as pilot:
            assert rows_of(app)["2"]["By all"] == "0"
            other.record_judgment("2", "d6", 1, "bob")
            assert await wait_until(pilot, lambda: rows_of(app)["2"]["By all"] == "1")
            assert rows_of(app)["2"]["Left"] == "2" and rows_of(app)["2"]["By me"] == "0"


async def test_the_judging_screen_counts_others_judgments(address: str) -> None:
    app = make_app(address, "alice", ["1"])
    with JudgmentStore.open(address) as other:
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, JudgeScreen)
            on_screen = screen.session.docno
            elsewhere = next(d for d in screen.session.queue if d != on_screen)
            total = len(screen.session.queue)
            assert status_line(app).endswith(f"· you 0 · left {total} of {total}")
            assert "others" not in status_line(app)
            other.record_judgment("1", elsewhere, 0, "bob")
            assert await wait_until(
                pilot, lambda: f"· you 0 · others 1 · left {total - 1} of {total}" in status_line(app))
            assert screen.session.remaining == len(screen.session.queue) - 1
            assert not list(app._notifications)
            other.record_judgment("1", on_screen, 1, "bob")
            assert await wait_until(
                pilot, lambda: f"· you 0 · others 2 · left {total - 2} of {total}" in status_line(app))
            # the status line is drawn at once, the notice is a message the app handles
            # next: under load the first check could come between them (it failed once)
            assert await wait_until(pilot, lambda: bool(app._notifications))
            [notice] = list(app._notifications)
            assert notice.message == (f"{on_screen} was just judged by another assessor: j goes "
                                      "to the next document nobody has judged.")
            await pilot.press("j")
            assert screen.session.docno not in {on_screen, elsewhere}


def test_a_lost_listener_reports_one_change_then_none(postgresql_store_url: str) -> None:
    with JudgmentStore.open(postgresql_store_url) as store:
        watcher = store.watch_changes()
        assert isinstance(watcher, NotificationWatcher) and watcher.conn is not None
        pid = watcher.conn.raw.info.backend_pid
        store.conn.execute("SELECT pg_terminate_backend(?)", [pid])
        changes = poll_until_changed(watcher)  # the server may take a moment to end it
        assert changes == Changes(any_topic=True, lost=True)  # the app makes a new watcher
        assert not watcher.poll() and watcher.conn is None
