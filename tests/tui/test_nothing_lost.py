"""Nothing is lost: note drafts, the time of the key press, and writes that wait for a
busy store survive quitting, and killing the process."""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from judge_fixtures import AppFactory, journal_base_of, log_rows, wait_until, write_lock_held
from textual.widgets import Input

from pooltool.judging.assignment import assign_topics
from pooltool.store import JudgmentStore, workspace
from pooltool.store.journal_files import journal_path, journals
from pooltool.store.provenance import utc_now
from pooltool.tui import app as app_module
from pooltool.tui.screens.judge import JudgeScreen
from pooltool.tui.screens.prompt import PromptScreen
from pooltool.tui.widgets.grade_bar import GradeBar

SIZE = (110, 30)


def drafts(store_path: str, assessor: str = "alice", topic: str = "1") -> dict[str, str]:
    with JudgmentStore.open(store_path) as store:
        return workspace.note_drafts(store, assessor, topic)


def journal_lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# -- 1. notes -------------------------------------------------------------------------


async def test_note_on_unjudged_document_survives_quit(app_factory: AppFactory,
                                                       store_path: str) -> None:
    async with app_factory().run_test(size=SIZE) as pilot:
        await pilot.press("n", *"see fig", "enter")
        assert drafts(store_path) == {"d1": "see fig"}  # saved at once
        await pilot.press("q")
    assert log_rows(store_path).empty
    async with app_factory().run_test(size=SIZE) as pilot:
        assert pilot.app.screen.query_one(GradeBar).note_waiting
        await pilot.press("n")
        assert isinstance(pilot.app.screen, PromptScreen)
        assert pilot.app.screen.query_one(Input).value == "see fig"
        await pilot.press("escape", "2")
    rows = log_rows(store_path)
    assert list(zip(rows["docno"], rows["grade"], rows["note"], strict=True)) == [
        ("d1", 2, "see fig")]
    assert drafts(store_path) == {}  # the grade took the draft


async def test_note_on_skipped_document_survives_leaving(app_factory: AppFactory,
                                                         store_path: str) -> None:
    async with app_factory().run_test(size=SIZE) as pilot:
        await pilot.press("s", "left", "n", *"later", "enter", "escape")  # back to the picker
    assert drafts(store_path) == {"d1": "later"}
    async with app_factory().run_test(size=SIZE) as pilot:
        assert isinstance(pilot.app.screen, JudgeScreen)
        assert pilot.app.screen.session.docno == "d1"  # where she left
        assert pilot.app.screen.query_one(GradeBar).skipped
        assert pilot.app.screen.query_one(GradeBar).note_waiting
        await pilot.press("1")
    rows = log_rows(store_path)
    assert list(zip(rows["docno"], rows["note"], strict=True)) == [("d1", "later")]
    assert drafts(store_path) == {}


async def test_note_window_shows_the_saved_note_for_editing(app_factory: AppFactory,
                                                            store_path: str) -> None:
    async with app_factory().run_test(size=SIZE) as pilot:
        await pilot.press("n", *"fig 3", "enter", "2")  # d1 graded with the note
    async with app_factory().run_test(size=SIZE) as pilot:
        await pilot.press("left", "n")
        assert pilot.app.screen.query_one(Input).value == "fig 3"
        await pilot.press("enter")  # unchanged: no new row
        await pilot.press("n", "backspace", *"4", "enter")
        await pilot.press("n")
        assert pilot.app.screen.query_one(Input).value == "fig 4"
        await pilot.press("escape", "3")  # a regrade without a new note...
        await pilot.press("left", "n")  # ...still shows the latest note
        assert pilot.app.screen.query_one(Input).value == "fig 4"
        await pilot.press("escape")
    rows = log_rows(store_path)
    assert list(zip(rows["docno"], rows["grade"], rows["note"].fillna(""), strict=True)) == [
        ("d1", 2, "fig 3"), ("d1", 2, "fig 4"), ("d1", 3, "")]
    assert math.isnan(rows["ms_spent"].iloc[1])


async def test_empty_note_removes_the_draft_and_undo_restores_it(app_factory: AppFactory,
                                                                 store_path: str) -> None:
    async with app_factory().run_test(size=SIZE) as pilot:
        await pilot.press("n", *"x", "enter")
        await pilot.press("n", "backspace", "enter")
        assert drafts(store_path) == {}
        assert not pilot.app.screen.query_one(GradeBar).note_waiting
        await pilot.press("n", *"keep me", "enter", "1", "u")  # graded with it, then undone
        assert pilot.app.screen.session.docno == "d1"
        assert pilot.app.screen.query_one(GradeBar).note_waiting
    assert drafts(store_path) == {"d1": "keep me"}
    rows = log_rows(store_path)
    assert list(rows["note"].fillna("")) == ["keep me", ""] and rows["retracts"].iloc[1] == 1


# -- 2. the time of the key press ---------------------------------------------------------


@pytest.mark.both_engines  # the write lock
async def test_busy_store_keeps_the_key_press_time(app_factory: AppFactory,
                                                   store_path: str) -> None:
    app = app_factory()
    blocker, held = JudgmentStore.open(store_path), ExitStack()
    opened = time.monotonic()  # before the document is on screen
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.3)
        held.enter_context(blocker.writing())  # another writer holds the write lock
        before = utc_now()
        await pilot.press("2")
        pressed = utc_now()
        on_screen_ms = (time.monotonic() - opened) * 1000  # an upper bound, whatever the load
        await pilot.pause(0.6)  # the store stays busy past a retry (every 0.5 s)
        assert app.writes.pending == 1
        released = utc_now()
        held.close()
        assert await wait_until(pilot, lambda: app.writes.pending == 0)
    blocker.close()
    rows = log_rows(store_path)
    judged_at = rows["judged_at"].iloc[0]
    assert before <= judged_at <= pressed < released
    assert 250 <= rows["ms_spent"].iloc[0] <= on_screen_ms  # up to the key press, not the write


# -- 7. the journal of waiting writes ------------------------------------------------------


@pytest.mark.both_engines  # the journal, the write lock
async def test_writes_waiting_when_the_app_stops_are_replayed(app_factory: AppFactory,
                                                              store_path: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(app_module, "QUIT_WAIT_S", 0.2)  # the app ends with writes queued
    with JudgmentStore.open(store_path) as store:
        # her topic: no claims, so each key reaches a document the busy store shows (on a
        # shared topic the next document would wait for its claim: test_busy_store)
        assign_topics(store, ["alice"], ["1"])
    blocker, held = JudgmentStore.open(store_path), ExitStack()
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        held.enter_context(blocker.writing())  # another writer holds the write lock
        before = utc_now()
        await pilot.press("2", "1", "u", "0", "n", *"late", "enter", "s")
        assert app.writes.pending == 6
        journal = app.writes.journal
        assert journal is not None and journal == journal_path(journal_base_of(store_path), "alice")
        kinds = [line["kind"] for line in journal_lines(journal)]
        assert kinds == ["judgment", "judgment", "retract", "judgment", "note_draft", "skip"]
    held.close()
    blocker.close()
    assert log_rows(store_path).empty and journal.exists()
    saved = journal.with_suffix(".copy")
    shutil.copy(journal, saved)

    app = app_factory()
    async with app.run_test(size=SIZE):
        assert app.recovered == 6 and app.writes.pending == 0
        assert app.screen.session.judged == 2  # the replayed grades are on screen
        assert app.screen.session.docno == "d4"  # d3 is skipped (and has the note draft)
    assert journals(journal_base_of(store_path), "alice") == []
    rows = log_rows(store_path)
    assert list(zip(rows["docno"], rows["grade"].fillna(-9), rows["retracts"].fillna(0),
                    strict=True)) == [("d1", 2, 0), ("d2", 1, 0), ("d2", -9, 2), ("d2", 0, 0)]
    assert all(before <= t < utc_now() for t in rows["judged_at"])
    assert drafts(store_path) == {"d3": "late"}

    shutil.move(saved, journal_path(journal_base_of(store_path), "alice", pid=1))  # the same journal again
    async with app_factory().run_test(size=SIZE):
        pass
    assert len(log_rows(store_path)) == 4  # nothing applied twice


KILLED = """
import os, signal, sys
from pooltool.tui.app import make_app
from pooltool.judging.session import JudgingSession
app = make_app(sys.argv[1], "carol", ["1"])
session = JudgingSession(app.writes, "1", "carol")
session.grade(3, 1200)
session.grade(1, 800)
session.undo()
print(app.writes.pending, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def run_killed_app(store_path: str) -> subprocess.CompletedProcess[str]:
    """Run :data:`KILLED` (carol grades twice and undoes once) while another connection
    holds the write lock, so its three writes are left in its journal."""
    with write_lock_held(store_path):
        return subprocess.run([sys.executable, "-c", KILLED, str(store_path)],
                              capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


@pytest.mark.both_engines  # the journal, the write lock
async def test_writes_of_a_killed_process_are_replayed(app_factory: AppFactory,
                                                       store_path: str) -> None:
    child = run_killed_app(store_path)
    assert child.returncode == -signal.SIGKILL and child.stdout.strip() == "3"
    assert log_rows(store_path).empty
    assert len(journals(journal_base_of(store_path), "carol")) == 1
    app = app_factory("carol")
    async with app.run_test(size=SIZE):
        assert app.recovered == 3
    rows = log_rows(store_path)
    assert list(zip(rows["docno"], rows["grade"].fillna(-9), rows["ms_spent"].fillna(0),
                    strict=True)) == [("d1", 3, 1200), ("d2", 1, 800), ("d2", -9, 0)]
    assert rows["retracts"].iloc[2] == rows["judgment_id"].iloc[1]
    assert journals(journal_base_of(store_path), "carol") == []


@pytest.mark.both_engines  # where the journal is
def test_a_killed_apps_journal_shows_up_in_export_and_status(store_path: str) -> None:
    """No judgment waits unseen: the next command that reads judgments commits the
    writes a killed judging app left in its journal (it was short before)."""
    from click.testing import CliRunner

    from pooltool.cli import cli

    child = run_killed_app(store_path)
    assert child.returncode == -signal.SIGKILL and len(journals(journal_base_of(store_path), "carol")) == 1
    exported = CliRunner().invoke(cli, ["--db", str(store_path), "export-qrels"])
    assert exported.exit_code == 0, exported.output
    assert exported.stdout == "1 0 d1 3\n"  # d2's grade was undone before the kill
    assert exported.stderr == ("committed 3 write(s) left by judging or adjudication apps "
                               "that ended\n")
    assert journals(journal_base_of(store_path)) == []
    again = CliRunner().invoke(cli, ["--db", str(store_path), "export-qrels"])
    assert again.stdout == "1 0 d1 3\n" and again.stderr == ""
    assert len(log_rows(store_path)) == 3  # nothing applied twice


@pytest.mark.both_engines  # where the journal is
def test_status_shows_writes_waiting_in_a_running_apps_journal(store_path: str) -> None:
    """A journal of a live process (this one) is left to it, and status names it."""
    import json

    from click.testing import CliRunner

    from pooltool.cli import cli

    journal = journal_path(journal_base_of(store_path), "dora")  # named after this process: alive
    journal.write_text(json.dumps({"token": "t1", "kind": "judgment", "args": {
        "topic": "1", "docno": "d2", "grade": 1, "assessor": "dora"}}) + "\n")
    status = CliRunner().invoke(cli, ["--db", str(store_path), "status"])
    assert status.exit_code == 0, status.output
    assert status.stderr == (f"1 judging write(s) wait in {journal} (a judging app still "
                             "retrying while the store is busy)\n")
    document = json.loads(CliRunner().invoke(
        cli, ["--db", str(store_path), "status", "--format", "json"]).stdout)
    assert document["waiting_writes"] == {str(journal): 1}
    assert log_rows(store_path).empty and journal.exists()
