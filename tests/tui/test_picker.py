"""The topic picker: numeric topic order, the last-used topic highlighted, and
"remaining" counted as ``pooltool status`` counts it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from judge_fixtures import build_store, screen_text
from textual.app import App
from textual.widgets import DataTable

from pooltool.judging.queue import pool_status
from pooltool.pooling import pool_runs
from pooltool.store import JudgmentStore
from pooltool.tui.app import JudgeApp, make_app
from pooltool.tui.screens.judge import JudgeScreen
from pooltool.tui.screens.topic_picker import COLUMNS, TopicPickerScreen

SIZE = (110, 30)
SHARE = "Judged % all·me"


@pytest.fixture
def three_topics(new_store: str) -> str:
    """The fixture store plus topic 10 (d1 d2 d3 pooled), so string order would be 1, 10, 2."""
    path = build_store(new_store)
    with JudgmentStore.open(path) as store:
        store.add_run_frame(pd.DataFrame(
            [("runC", "10", d, i + 1, 3.0 - i) for i, d in enumerate(["d1", "d2", "d3"])],
            columns=["run_tag", "topic", "docno", "rank", "score"]))
        pool_runs(store, depth=10)
    return path


def rows_of(app: JudgeApp) -> dict[str, dict[str, str]]:
    """The picker's rows, topic -> column -> the text shown, in display order."""
    screen = app.screen
    assert isinstance(screen, TopicPickerScreen)
    table = screen.query_one("#topics", DataTable)
    return {str(row.key.value): dict(zip(COLUMNS, map(str, table.get_row(row.key)), strict=True))
            for row in table.ordered_rows}


def cursor_topic(app: App[None]) -> str:
    table = app.screen.query_one("#topics", DataTable)
    return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)


async def test_topics_in_numeric_order(three_topics: str) -> None:
    app = make_app(three_topics, "alice")
    async with app.run_test(size=SIZE):
        assert list(rows_of(app)) == ["1", "2", "10"]
        assert cursor_topic(app) == "1"  # a new assessor starts at the top
    assert make_app(three_topics, "alice", ["10", "2"]).listed_topics() == ["2", "10"]


async def test_reopening_highlights_the_topic_used_last(three_topics: str) -> None:
    async with make_app(three_topics, "alice").run_test(size=SIZE) as pilot:
        await pilot.press("enter", "1", "escape")  # topic 1
        await pilot.press("down", "down", "enter", "2")  # topic 10 ...
        assert isinstance(pilot.app.screen, JudgeScreen)
        assert pilot.app.screen.session.topic == "10"
        await pilot.press("q")  # ... quit on its judging screen
    app = make_app(three_topics, "alice")
    async with app.run_test(size=SIZE) as pilot:
        assert cursor_topic(app) == "10"
        await pilot.press("enter")
        assert isinstance(app.screen, JudgeScreen) and app.screen.session.topic == "10"
        await pilot.press("escape", "up")  # back on the picker, the cursor stays put...
        assert cursor_topic(app) == "2"
        await pilot.press("r")  # ...and a refresh keeps it
        assert cursor_topic(app) == "2"
    async with make_app(three_topics, "bob").run_test(size=SIZE) as pilot:
        assert cursor_topic(pilot.app) == "1"  # alice's use is hers


async def test_remaining_counts_what_nobody_judged(three_topics: str, tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n1 0 d4 0\n10 0 d1 -1\n")
    with JudgmentStore.open(three_topics) as store:
        store.import_qrels(qrels, "imported")
        unjudged = pool_status(store).set_index("topic")["unjudged"].to_dict()
    assert unjudged == {"1": 1, "2": 3, "10": 3}
    app = make_app(three_topics, "carol")  # a new assessor
    async with app.run_test(size=SIZE) as pilot:
        rows = rows_of(app)
        assert {t: int(r["Left"]) for t, r in rows.items()} == unjudged
        assert [rows["1"][c] for c in COLUMNS[2:7]] == ["5", "4", "0", "1", "2"]
        # judged by anyone: 4 of 5 (the bar: 80% of 6 cells); by carol: none
        assert rows["1"][SHARE] == "████░░  80%·  0%"
        await pilot.press("enter")  # topic 1: carol's queue is d5, the one nobody judged
        assert isinstance(app.screen, JudgeScreen) and app.screen.session.queue == ["d5"]
        await pilot.press("3", "escape")
        rows = rows_of(app)
        assert [rows["1"][c] for c in COLUMNS[2:7]] == ["5", "5", "1", "0", "3"]
        assert rows["1"][SHARE] == "██████ 100%· 20%"
        assert "you judged 1 of 11" in str(app.screen.query_one("#picker-title").render())


async def test_a_topic_with_an_empty_queue_does_not_open(three_topics: str) -> None:
    """Topic 10, not assigned to carol and judged by others, leaves her nothing to judge:
    the picker says so (Remaining 0, 100%) and stays; assigned to her, it opens."""
    with JudgmentStore.open(three_topics) as store:
        for docno in ("d1", "d2", "d3"):
            store.record_judgment("10", docno, 1, "alice")
    app = make_app(three_topics, "carol", ["10"])
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, TopicPickerScreen)
        row = rows_of(app)["10"]
        assert row["Left"] == "0" and row[SHARE] == "██████ 100%·  0%"
        await pilot.press("enter")
        assert isinstance(app.screen, TopicPickerScreen)
    with JudgmentStore.open(three_topics) as store:
        from pooltool.judging.assignment import assign_topics
        assign_topics(store, ["carol"], ["10"], rebalance=True)  # alice judged it all
    app = make_app(three_topics, "carol", ["10"])
    async with app.run_test(size=SIZE):
        assert isinstance(app.screen, JudgeScreen)
        assert app.screen.session.queue == ["d1", "d2", "d3"]
        assert app.screen.session.remaining == 3


async def test_refresh_picks_up_a_changed_assignment(three_topics: str) -> None:
    """An open picker lists dan's assigned topics after 'r', without a restart."""
    app = make_app(three_topics, "dan")
    async with app.run_test(size=SIZE) as pilot:
        assert list(rows_of(app)) == ["1", "2", "10"]  # nothing assigned: every topic
        with JudgmentStore.open(three_topics) as store:
            from pooltool.judging.assignment import assign_topics
            assign_topics(store, ["dan"], ["2"])
        await pilot.press("r")
        assert list(rows_of(app)) == ["2"]


async def test_question_mark_on_the_topic_list_shows_every_key(three_topics: str) -> None:
    """At 80x24 the picker's footer names ? Help; the help lists the judging keys,
    then the topic list's (r refreshes) and the dialogs'; Esc goes back to the list."""
    app = make_app(three_topics, "alice")
    async with app.run_test(size=(80, 24)) as pilot:
        assert "? Help" in screen_text(app).splitlines()[-1]
        await pilot.press("question_mark")
        assert type(app.screen).__name__ == "HelpScreen"
        shown = screen_text(app)
        for _ in range(6):  # the help scrolls: read it page by page
            await pilot.press("pagedown")
            shown += screen_text(app)
        assert "On the topic list" in shown and "refresh: progress" in shown
        assert "Ctrl+Q" in shown and "quit, from any screen" in shown
        await pilot.press("escape")
        assert isinstance(app.screen, TopicPickerScreen)
