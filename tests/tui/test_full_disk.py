"""A full disk while judging: the write is kept, the screen says so, it is retried, and
quitting with writes not saved asks first (issue 23, item 6).

SQLITE_FULL is real here: the app's own connection may not grow the store file
(``PRAGMA max_page_count`` at its page count, after ``VACUUM`` left no free page), so a
write needing a new page (a long note: overflow pages) fails as on a full disk.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from judge_fixtures import AppFactory, build_store, log_rows, wait_until, write_lock_held
from textual.widgets import Input

from pooltool.judging.session import JudgingSession
from pooltool.store import JudgmentStore, workspace
from pooltool.store.journal import WriteQueue
from pooltool.tui.app import make_app
from pooltool.tui.screens.confirm import ConfirmScreen
from pooltool.tui.screens.judge import JudgeScreen
from pooltool.tui.screens.prompt import PromptScreen
from pooltool.tui.write_notices import FULL_NOTICE, SAVED_NOTICE, quit_question

SIZE = (110, 30)
NOTE = "long note " * 600  # 6,000 characters: more than a page (4,096 bytes)


def status_line(app: object) -> str:
    return str(app.screen.query_one("#status").render())  # type: ignore[attr-defined]


@pytest.mark.sqlite_only  # SQLITE_FULL through max_page_count on the store file
async def test_a_full_disk_keeps_the_writes_until_space_returns(app_factory: AppFactory,
                                                                store_path: str) -> None:
    with sqlite3.connect(store_path) as conn:
        conn.execute("VACUUM")
    app = app_factory()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        raw = app.store.conn.raw
        pages = raw.execute("PRAGMA page_count").fetchone()[0]
        assert raw.execute(f"PRAGMA max_page_count = {pages}").fetchone()[0] == pages
        assert raw.execute("PRAGMA freelist_count").fetchone()[0] == 0
        await pilot.press("n")
        assert isinstance(app.screen, PromptScreen)
        app.screen.query_one(Input).value = NOTE
        await pilot.press("enter", "2")  # the note's draft, then d1's grade with the note
        assert app.is_running and isinstance(app.screen, JudgeScreen)
        assert app.writes.pending == 2 and app.writes.full is not None
        assert app.screen.session.docno == "d2"  # judging goes on
        assert "2 write(s) not saved yet: the disk is full" in status_line(app)
        assert FULL_NOTICE in [n.message for n in app._notifications]
        assert app.writes.journal is not None
        lines = [json.loads(line) for line in app.writes.journal.read_text().splitlines()]
        assert [(line["kind"], line["args"]["docno"]) for line in lines] == [
            ("note_draft", "d1"), ("judgment", "d1")]

        await pilot.press("q")  # asks first (q saves the position first: a third write)
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question == (
            "3 write(s) are not saved yet: the disk is full. They stay in the journal next "
            "to the store, and the next pooltool command here saves them. Quit anyway?")
        await pilot.press("n")
        assert app.is_running and isinstance(app.screen, JudgeScreen)
        await pilot.pause(2 * 0.5)  # retried (every 0.5 s): still full
        assert app.writes.pending == 3

        raw.execute("PRAGMA max_page_count = 4294967294")  # space returns
        assert await wait_until(pilot, lambda: app.writes.pending == 0)
        # the notice is a message the app handles after the retry that emptied the queue
        # (checked at once, it was missing once under load)
        assert await wait_until(pilot, lambda: SAVED_NOTICE.format(saved=3) in [
            n.message for n in app._notifications])
        assert "not saved" not in status_line(app)
        assert not app.writes.journal.exists()
        await pilot.press("q")  # nothing waits: quits without asking
        assert not app.is_running
    rows = log_rows(store_path)
    assert list(zip(rows["docno"], rows["grade"], rows["note"], strict=True)) == [
        ("d1", 2, NOTE.strip())]
    with JudgmentStore.open(store_path) as store:
        assert workspace.note_drafts(store, "alice", "1") == {}  # the grade took the draft


def test_writes_kept_in_memory_reach_the_journal_once_it_can_be_written(
        store_path: str, tmp_path: Path) -> None:
    """The journal's disk could not take the writes either (here: its folder is missing):
    they wait in memory, and the first retry after the journal can be written puts the
    whole queue in it, in order, while the store still refuses them."""
    store = JudgmentStore.open(store_path)
    store.set_busy_timeout(50)
    folder = tmp_path / "journals"
    writes = WriteQueue(store, folder / "alice.jsonl")
    session = JudgingSession(writes, "1", "alice")  # claims d1 at once, as on an idle store
    with write_lock_held(store_path):  # then the store is busy for the grades
        session.grade(2, 10)
        session.grade(1, 10)
        assert writes.pending == 2 and not writes.kept_on_disk
        assert writes.journal_error is not None and "No such file" in writes.journal_error
        folder.mkdir()  # space returns
        assert not writes.flush()  # the store is still locked...
        assert writes.kept_on_disk  # ...but the journal holds both writes now
        lines = [json.loads(line) for line in (folder / "alice.jsonl").read_text().splitlines()]
        assert [(line["args"]["docno"], line["args"]["grade"]) for line in lines] == [
            ("d1", 2), ("d2", 1)]
    assert writes.flush() and not (folder / "alice.jsonl").exists()
    assert list(zip(log_rows(store_path)["docno"], log_rows(store_path)["grade"],
                    strict=True)) == [("d1", 2), ("d2", 1)]
    store.close()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB filesystem of its own (tmpfs), to fill for real; skipped where this
    process may not mount one (it needs root)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)],
                          capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip("mounting a small filesystem (mount -t tmpfs) needs root")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], capture_output=True, check=False)


def fill(folder: Path) -> Path:
    """Fill the filesystem of ``folder`` with one file, until it refuses a byte more."""
    filler = folder / "filler"
    with filler.open("wb", buffering=0) as out:
        for size in (1 << 16, 1 << 10, 1):
            try:
                while out.write(b"\0" * size):
                    pass
            except OSError:  # ENOSPC: the rest in smaller pieces
                continue
    return filler


async def test_a_really_full_disk_keeps_the_grade_in_memory_until_space_returns(
        small_disk: Path) -> None:
    """The store and its journal on one full filesystem: the grade stays in memory (the
    journal cannot be written either; the screen and the quit question say so) and is
    committed once the filler is deleted."""
    path = build_store(small_disk / "store.db")
    app = make_app(path, "alice", ["1"])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert isinstance(app.screen, JudgeScreen)
        filler = fill(small_disk)
        await pilot.press("2")
        assert app.is_running and app.writes.pending == 1 and app.writes.full is not None
        assert not app.writes.kept_on_disk
        assert "1 write(s) not saved yet: the disk is full" in status_line(app)
        assert quit_question(app.writes).endswith(
            "The journal could not be written either: quitting now loses them. Quit anyway?")
        filler.unlink()  # space returns
        assert await wait_until(pilot, lambda: app.writes.pending == 0)
    assert list(zip(log_rows(path)["docno"], log_rows(path)["grade"], strict=True)) == [
        ("d1", 2)]
