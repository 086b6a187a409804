"""The store's PostgreSQL server goes away under a judging app (issue 22, item 2): the
grade being saved waits in the journal, a notice says so, and once the server is back
the app connects again by itself, commits the journal (each judgment with the time of
its key press) and drops the notice. Each test has a server of its own, which it stops
(``pg_ctl stop -m fast``: "terminating connection due to administrator command") and
starts again."""

from __future__ import annotations

import json
import time
from pathlib import Path

from judge_fixtures import build_store, journal_base_of, log_rows, pane_words
from postgresql_server import Server
from textual.widgets import DataTable, Static

from pooltool.judging.assignment import assign_topics
from pooltool.store import JudgmentStore
from pooltool.store.journal import RECONNECT_MAX_S, WriteQueue
from pooltool.store.journal_files import journal_path
from pooltool.store.provenance import utc_now
from pooltool.tui.app import make_app
from pooltool.tui.screens.judge import UNREACHABLE_TEXT, UNREAD_NOTICE, JudgeScreen
from pooltool.tui.screens.topic_picker import TopicPickerScreen
from pooltool.tui.write_notices import UNREACHABLE_NOTICE

SIZE = (110, 30)
BACK_WITHIN_S = RECONNECT_MAX_S + 10  # the longest backoff wait, and slack for a loaded machine


def journal_lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_write_queue_keeps_writes_while_the_server_is_away(own_postgresql_server: Server) -> None:
    server = own_postgresql_server
    url = build_store(server.create_database())
    journal = journal_path(journal_base_of(url), "carol")
    with JudgmentStore.open(url) as store:
        writes = WriteQueue(store, journal)
        writes.submit("judgment", topic="1", docno="d1", grade=1, assessor="carol",
                      at="2030-01-01T10:00:00Z")
        server.halt()
        kept = writes.submit("judgment", topic="1", docno="d2", grade=2, assessor="carol",
                             at="2030-01-01T10:00:05Z")
        assert (kept.done, writes.pending, writes.failed, writes.offline) == (False, 1, [], True)
        assert "the PostgreSQL server went away" in str(writes.lost)
        assert [(line["kind"], line["args"]["docno"]) for line in  # type: ignore[index]
                journal_lines(journal)] == [("judgment", "d2")]

        tries: list[float] = []
        reconnect = store.reconnect

        def counted() -> None:
            tries.append(time.monotonic())
            reconnect()

        store.reconnect = counted  # type: ignore[method-assign]
        started = time.monotonic()
        while time.monotonic() - started < 2.0:  # a timer's flush every 50 ms
            assert writes.flush() is False
            time.sleep(0.05)
        # backoff: tries 0.5 s and 1.5 s after the loss (then 3.5 s), not one per flush
        assert 1 <= len(tries) <= 3
        assert all(b - a >= 0.9 for a, b in zip(tries, tries[1:], strict=False))

        server.start_again()
        deadline = time.monotonic() + BACK_WITHIN_S
        while not writes.flush():
            assert time.monotonic() < deadline, "the queue did not connect again"
            time.sleep(0.1)
        assert (kept.done, writes.offline, writes.failed, journal.exists()) == (
            True, False, [], False)
    rows = log_rows(url)
    assert list(zip(rows["docno"], rows["grade"], rows["judged_at"], strict=True)) == [
        ("d1", 1, "2030-01-01T10:00:00Z"), ("d2", 2, "2030-01-01T10:00:05Z")]


def status_line(app: object) -> str:
    screen = app.screen  # type: ignore[attr-defined]
    return str(screen.query_one("#status", Static).render())


async def test_the_judging_app_waits_for_the_server_and_saves_the_journal(
        own_postgresql_server: Server) -> None:
    server = own_postgresql_server
    url = build_store(server.create_database())
    app = make_app(url, "carol", ["1"])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert isinstance(app.screen, JudgeScreen)
        await pilot.press("1")  # d1 relevant: committed
        await pilot.pause()
        assert app.screen.session.docno == "d2" and app.writes.pending == 0
        server.halt()
        before = utc_now()
        await pilot.press("2")  # d2: the server is gone
        pressed = utc_now()
        await pilot.pause()
        assert app.is_running and app.writes.offline
        assert app.writes.pending == 1 and app.writes.failed == []
        journal = app.writes.journal
        assert journal is not None
        assert [(line["kind"], line["args"]["docno"], line["args"]["grade"])  # type: ignore[index]
                for line in journal_lines(journal)] == [("judgment", "d2", 2)]
        assert [n.message for n in app._notifications] == [UNREACHABLE_NOTICE]
        assert app.sub_title == "assessor carol · store's server unreachable"
        assert "store's server unreachable: 1 write(s) wait in the journal" in status_line(app)
        assert app.screen.session.grade_of("d2") == 2
        assert (app.screen.session.docno, app.screen.unread) == ("d3", "d3")  # moved on

        server.start_again()
        deadline = time.monotonic() + BACK_WITHIN_S
        while app.writes.offline or app.writes.pending:
            assert time.monotonic() < deadline, "the app did not connect again"
            await pilot.pause(0.2)
        await pilot.pause()
        assert not journal.exists()
        assert [n.message for n in app._notifications] == [
            "The store's server is back: 1 waiting write(s) saved."]
        assert app.sub_title == "assessor carol"
        assert "unreachable" not in status_line(app)
        assert app.screen.unread is None and "Wings" in pane_words(app)  # d3 read now
        await pilot.press("0")  # d3: writes go straight to the store again
        await pilot.pause()
        assert app.writes.pending == 0
    rows = log_rows(url)
    assert list(zip(rows["docno"], rows["grade"], strict=True)) == [
        ("d1", 1), ("d2", 2), ("d3", 0)]
    assert before <= rows["judged_at"].iloc[1] <= pressed  # the key press's time


async def test_a_document_the_lost_server_kept_from_the_screen_is_not_graded(
        own_postgresql_server: Server) -> None:
    """On her assigned topic carol grades d1 (its text was on screen) after the server
    stopped: the next document's text cannot be read, so it is shown as unreadable
    and its grade key grades nothing; the topic list keeps its rows and a topic does
    not open, and nothing ends the app. Once the server is back the topic opens on
    d2's text and its grade is taken."""
    server = own_postgresql_server
    url = build_store(server.create_database())
    with JudgmentStore.open(url) as store:
        assign_topics(store, ["carol"], ["1"])
    app = make_app(url, "carol", ["1"])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        server.halt()
        await pilot.press("1")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, JudgeScreen)
        assert (screen.session.docno, screen.unread, app.writes.pending) == ("d2", "d2", 1)
        assert UNREACHABLE_TEXT.split(":")[0] in pane_words(app)  # (a toast covers the rest)
        await pilot.press("2")
        await pilot.pause()
        assert screen.session.grade_of("d2") is None and app.writes.pending == 1
        assert UNREAD_NOTICE.format(docno="d2") in [n.message for n in app._notifications]
        await pilot.press("escape")  # to the topic list: its reload fails, its rows stay
        await pilot.pause()
        assert isinstance(app.screen, TopicPickerScreen)
        assert app.screen.query_one("#topics", DataTable).row_count == 1
        await pilot.press("enter")  # opening the topic reads the store: it stays closed
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, TopicPickerScreen)
        assert app.writes.pending == 2  # the grade, and the position left

        server.start_again()
        deadline = time.monotonic() + BACK_WITHIN_S
        while app.writes.offline or app.writes.pending:
            assert time.monotonic() < deadline, "the app did not connect again"
            await pilot.pause(0.2)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, JudgeScreen) and app.screen.session.docno == "d2"
        assert app.screen.unread is None and "Heat transfer" in pane_words(app)
        await pilot.press("2")
        await pilot.pause()
    rows = log_rows(url)
    assert list(zip(rows["docno"], rows["grade"], strict=True)) == [("d1", 1), ("d2", 2)]
