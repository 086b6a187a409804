"""The judging screen driven from the keyboard, checked on the store's rows."""

from __future__ import annotations

import asyncio
import math
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from judge_fixtures import AppFactory, log_rows, wait_until
from textual.app import App

from pooltool.judging.assignment import assign_topics
from pooltool.store import JudgmentStore, workspace
from pooltool.tui.screens.judge import JudgeScreen
from pooltool.tui.screens.topic_picker import TopicPickerScreen
from pooltool.tui.widgets.document_view import DocumentView
from pooltool.tui.widgets.grade_bar import GradeBar

HANG_GUARD_S = 60  # the app waits 200 ms per write at most; far beyond that it hangs

SIZE = (110, 30)


def screen_of(app: App[None]) -> JudgeScreen:
    assert isinstance(app.screen, JudgeScreen)
    return app.screen


async def test_opens_on_first_document_in_docno_order(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE):
        screen = screen_of(app)
        assert screen.session.queue == ["d1", "d2", "d3", "d4", "d5"]
        assert screen.session.docno == "d1"
        assert "1 / 5" in screen.status_text().plain


async def test_grade_key_commits_at_once_and_moves_on(app_factory: AppFactory, store_path: str) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        rows = log_rows(store_path)  # another connection sees it while the app runs
        assert rows[["docno", "grade", "assessor"]].values.tolist() == [["d1", 2, "alice"]]
        assert screen_of(app).session.docno == "d2"
        assert "2 / 5" in screen_of(app).status_text().plain
        await pilot.press("0")
    rows = log_rows(store_path)
    assert list(rows["docno"]) == ["d1", "d2"]
    assert list(rows["grade"]) == [2, 0]
    assert set(rows["assessor"]) == {"alice"} and set(rows["origin"]) == {"tui"}
    assert all(ms >= 0 for ms in rows["ms_spent"])
    assert all(str(t).endswith("+00:00") for t in rows["judged_at"])


async def test_undo_appends_a_retraction_and_goes_back(app_factory: AppFactory, store_path: str) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2", "3", "u")
        assert screen_of(app).session.docno == "d2"
        assert app.screen.query_one(GradeBar).grade is None
        await pilot.press("u")
        assert screen_of(app).session.docno == "d1"
        await pilot.press("u")  # nothing left: a warning, no row
    rows = log_rows(store_path)
    assert len(rows) == 4
    assert list(rows["retracts"].iloc[2:]) == [2, 1]
    with JudgmentStore.open(store_path) as store:
        assert store.qrels().empty


async def test_regrade_then_undo_falls_back_to_previous_grade(app_factory: AppFactory,
                                                                store_path: str) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1", "left")
        assert app.screen.query_one(GradeBar).grade == 1
        await pilot.press("3")  # regrade d1
        assert screen_of(app).session.docno == "d2"  # moves on to the next unjudged
        await pilot.press("u")
        assert screen_of(app).session.grade_of("d1") == 1
    with JudgmentStore.open(store_path) as store:
        qrels = store.qrels()
    assert list(zip(qrels["docno"], qrels["grade"], strict=True)) == [("d1", 1)]


async def test_left_right_stop_at_the_ends(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("left")
        assert screen_of(app).session.position == 0
        await pilot.press(*["right"] * 7)
        assert screen_of(app).session.docno == "d5"


async def test_note_waits_for_grade_or_joins_the_existing_one(app_factory: AppFactory,
                                                              store_path: str) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", *"see fig", "enter")
        assert app.screen.query_one(GradeBar).note_waiting
        assert log_rows(store_path).empty
        await pilot.press("1", "left", "n", *" 2", "enter")  # the window holds "see fig"
        await pilot.press("n", "escape")  # cancelled: nothing written
    rows = log_rows(store_path)
    assert list(rows["note"]) == ["see fig", "see fig 2"]
    assert list(rows["grade"]) == [1, 1]
    assert math.isnan(rows["ms_spent"].iloc[1])  # a note is not a timed judgment


async def test_skip_marks_and_comes_back_last(app_factory: AppFactory, store_path: str) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("s")
        assert screen_of(app).session.docno == "d2"
        await pilot.press("0", "0", "0", "0")  # d2..d5
        assert screen_of(app).session.docno == "d1"  # the skipped one, last
        assert app.screen.query_one(GradeBar).skipped
    with JudgmentStore.open(store_path) as store:
        assert workspace.skipped(store, "alice", "1") == {"d1"}


async def test_j_jumps_to_next_unjudged(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right", "1", "1")  # d2, d3 judged; now on d4
        await pilot.press("left", "left", "left", "j")
        assert screen_of(app).session.docno == "d4"


async def test_resume_after_close_mid_topic(app_factory: AppFactory, store_path: str) -> None:
    async with app_factory().run_test(size=SIZE) as pilot:
        await pilot.press("2", "1", "q")
    async with app_factory().run_test(size=SIZE) as pilot:
        screen = screen_of(pilot.app)
        assert screen.session.docno == "d3"
        assert screen.session.judged == 2
        await pilot.press("left", "left", "q")  # viewing judged d1: reopen on first unjudged
    async with app_factory().run_test(size=SIZE) as pilot:
        assert screen_of(pilot.app).session.docno == "d3"
        await pilot.press("right", "escape")  # leave on unjudged d4: reopen there
    async with app_factory().run_test(size=SIZE) as pilot:
        assert screen_of(pilot.app).session.docno == "d4"
    assert len(log_rows(store_path)) == 2


async def test_resume_skips_skipped_documents(app_factory: AppFactory) -> None:
    async with app_factory().run_test(size=SIZE) as pilot:
        await pilot.press("s")
    async with app_factory().run_test(size=SIZE) as pilot:
        assert screen_of(pilot.app).session.docno == "d2"


@pytest.mark.both_engines  # two connections writing at once
async def test_two_apps_on_one_store_lose_no_row(app_factory: AppFactory, store_path: str) -> None:
    """Two assessors judge every document of topic 1 (an overlap assignment: on a
    shared topic they would be shown different documents) at the same time."""
    with JudgmentStore.open(store_path) as store:
        assign_topics(store, ["alice", "bob"], ["1"], overlap=1.0)
    alice, bob = app_factory("alice"), app_factory("bob")
    async with alice.run_test(size=SIZE) as pa, bob.run_test(size=SIZE) as pb:
        for a_key, b_key in zip("01230", "32101", strict=True):
            await pa.press(a_key)
            await pb.press(b_key)
        await pa.press("u")
        await pb.press("left", "2", "y")  # the topic is done: the regrade asks first
    rows = log_rows(store_path)
    assert len(rows) == 12
    alice_rows = rows[rows["assessor"] == "alice"]
    assert list(alice_rows["grade"].iloc[:5]) == [0, 1, 2, 3, 0]
    with JudgmentStore.open(store_path) as store:
        assert len(store.qrels(policy="assessor:bob")) == 5
        assert len(store.qrels(policy="assessor:alice")) == 4


@pytest.mark.both_engines  # the write lock
async def test_busy_store_queues_writes_without_freezing(app_factory: AppFactory, store_path: str) -> None:
    with JudgmentStore.open(store_path) as store:
        # her topic: no claims, so the second key grades d2 (on a shared topic d2 would
        # wait for its claim and grade nothing: test_busy_store)
        assign_topics(store, ["alice"], ["1"])
    app = app_factory()
    blocker, held = JudgmentStore.open(store_path), ExitStack()
    async with app.run_test(size=SIZE) as pilot:
        held.enter_context(blocker.writing())  # another writer holds the store's write lock
        # the lock is held throughout: an app that waited for it would never return
        # (wait_for turns that hang into a failure; it is no speed target)
        await asyncio.wait_for(pilot.press("2", "1"), timeout=HANG_GUARD_S)
        # the lock stays held, so the count can only grow to 2; at load 22 the press once
        # returned with the second write not queued yet (pending 1)
        assert await wait_until(pilot, lambda: app.writes.pending == 2)
        assert "waiting: store busy" in screen_of(app).status_text().plain
        held.close()
        assert await wait_until(pilot, lambda: app.writes.pending == 0)  # retried every 0.5 s
    blocker.close()
    rows = log_rows(store_path)
    assert list(zip(rows["docno"], rows["grade"], strict=True)) == [("d1", 2), ("d2", 1)]


async def test_missing_text_shows_notice_and_is_judgeable(app_factory: AppFactory, store_path: str) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*["right"] * 4)
        view = app.screen.query_one(DocumentView)
        assert screen_of(app).session.docno == "d5"
        assert view.has_class("-missing")
        await pilot.press("3")
    rows = log_rows(store_path)
    assert list(zip(rows["docno"], rows["grade"], strict=True)) == [("d5", 3)]


async def test_h_toggles_query_highlighting(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        assert screen_of(app).show_query
        await pilot.press("h")
        assert not screen_of(app).show_query
        await pilot.press("h")
        assert screen_of(app).show_query


async def test_scan_terms_kept_per_assessor_and_topic(app_factory: AppFactory, store_path: str) -> None:
    async with app_factory().run_test(size=SIZE) as pilot:
        await pilot.press("slash", *'plate "trailing edge"', "enter")
        assert screen_of(pilot.app).session.scan_terms == ["plate", "trailing edge"]
    async with app_factory().run_test(size=SIZE) as pilot:
        assert screen_of(pilot.app).session.scan_terms == ["plate", "trailing edge"]
    with JudgmentStore.open(store_path) as store:
        assert workspace.scan_terms(store, "bob", "1") == []
        assert workspace.scan_terms(store, "alice", "2") == []


async def test_runs_hidden_unless_store_setting(app_factory: AppFactory, store_path: str) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE):
        assert "run" not in screen_of(app).status_text().plain
    with JudgmentStore.open(store_path) as store:
        store.set_setting("show_runs", True)
    app = app_factory()
    async with app.run_test(size=SIZE):
        assert "runs: runB #1, runA #2" in screen_of(app).status_text().plain


async def test_help_opens_and_closes(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert type(app.screen).__name__ == "HelpScreen"
        await pilot.press("escape")
        assert isinstance(app.screen, JudgeScreen)


async def test_picker_opens_topic_and_shows_progress(app_factory: AppFactory) -> None:
    app = app_factory(topics=())
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, TopicPickerScreen)
        await pilot.press("down", "enter")
        assert screen_of(app).session.topic == "2"
        await pilot.press("1", "escape")
        assert isinstance(app.screen, TopicPickerScreen)
        assert "you judged 1 of 8" in str(app.screen.query_one("#picker-title").render())


async def test_random_order_is_reproducible(app_factory: AppFactory) -> None:
    orders = []
    for seed in (7, 7, 8):
        app = app_factory(order="random", seed=seed)
        async with app.run_test(size=SIZE):
            orders.append(screen_of(app).session.queue)
    assert orders[0] == orders[1] and sorted(orders[0]) == sorted(orders[2])


WRITER = """
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from pooltool.store import JudgmentStore
store, stop, n = JudgmentStore.open(sys.argv[1]), Path(sys.argv[2]), 0
while not stop.exists():
    store.record_judgment("1", f"d{n % 5 + 1}", n % 4, "bob", origin="script")
    n += 1
    time.sleep(0.002)
print(n)
"""


@pytest.mark.both_engines  # the write lock, another process
async def test_app_and_another_process_write_at_once(app_factory: AppFactory, store_path: str,
                                                    tmp_path: Path) -> None:
    stop = tmp_path / "writer.stop"
    with JudgmentStore.open(store_path) as store:  # bob judges the topic too: alice's
        assign_topics(store, ["alice"], ["1"])     # queue keeps it only as hers
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(store_path), str(stop)],
                              stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while log_rows(store_path).empty and time.monotonic() < deadline:
        time.sleep(0.05)
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        # the topic is done after five grades: each regrade then asks first (y)
        await asyncio.wait_for(pilot.press("1", "1", "1", "1", "1", *["left", "3", "y"] * 5),
                               timeout=HANG_GUARD_S)  # a hang guard, no speed target
    stop.touch()  # the app's exit committed whatever the busy writer had held up
    written = int(writer.communicate(timeout=30)[0])
    rows = log_rows(store_path)
    assert (rows["assessor"] == "bob").sum() == written > 0
    # five grades, then four regrades: the fifth ← stays on the first document,
    # already graded 3, so its 3 records nothing
    assert (rows["assessor"] == "alice").sum() == 9


async def test_punctuation_and_letter_grade_keys_work(app_factory: AppFactory,
                                                      store_path: str) -> None:
    """A grade key like ``-`` is bound by its Textual name (``minus``) and records."""
    from pooltool.store import GradeLevel

    with JudgmentStore.open(store_path) as store:
        store.set_grade_scale([GradeLevel(0, "-", "no"), GradeLevel(1, "r", "yes")])
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("minus", "r")
    rows = log_rows(store_path)
    assert rows[["docno", "grade"]].values.tolist() == [["d1", 0], ["d2", 1]]


@pytest.mark.both_engines  # claims
async def test_left_right_pass_over_what_others_judge_on_a_shared_topic(
        app_factory: AppFactory, store_path: str) -> None:
    """alice grades d1 and goes on to d3 (d2 is on bob's screen): ← takes her back to
    d1, which she regrades, never to bob's d2; → from d1 passes over d2 too."""
    alice, bob = app_factory("alice"), app_factory("bob")
    async with alice.run_test(size=SIZE) as pa, bob.run_test(size=SIZE):
        assert screen_of(bob).session.docno == "d2"
        await pa.press("1")
        assert screen_of(alice).session.docno == "d3"
        await pa.press("left")
        assert screen_of(alice).session.docno == "d1"
        await pa.press("right")
        assert screen_of(alice).session.docno == "d3"
        await pa.press("left", "2")
    rows = log_rows(store_path)
    alice_rows = rows[rows["assessor"] == "alice"]
    assert alice_rows[["docno", "grade"]].values.tolist() == [["d1", 1], ["d1", 2]]
