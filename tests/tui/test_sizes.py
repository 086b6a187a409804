"""Terminal sizes and the topic list's keys (issue 24, items 8 and 11): at every size
from a phone's 20x10 to 200x50 the app judges or says what it needs, at start and
when the terminal shrinks under it; Home/End move the cursor to the first/last topic;
the 80x24 topic list shows every column whole."""

from __future__ import annotations

import pytest
from judge_fixtures import AppFactory, log_rows, screen_text, wait_until
from textual.widgets import DataTable

from pooltool.tui.screens.judge import JudgeScreen
from pooltool.tui.screens.too_small import TooSmallScreen
from pooltool.tui.screens.topic_picker import TopicPickerScreen

SIZES = [(20, 10), (30, 12), (40, 15), (80, 24), (200, 50)]
NEEDS = "pooltool judge needs 40x12 at least"


@pytest.mark.parametrize("size", SIZES)
async def test_the_judging_screen_judges_or_says_what_it_needs(
        app_factory: AppFactory, store_path: str, size: tuple[int, int]) -> None:
    app = app_factory()
    async with app.run_test(size=size) as pilot:
        await pilot.press("2")
        small = size[0] < 40
        assert isinstance(app.screen, TooSmallScreen if small else JudgeScreen)
        if small:
            assert f"Terminal {size[0]}x{size[1]}:" in " ".join(screen_text(app).split())
            assert NEEDS in " ".join(screen_text(app).split())
    rows = log_rows(store_path)[["docno", "grade"]].values.tolist()
    assert rows == ([] if size[0] < 40 else [["d1", 2]])


@pytest.mark.parametrize("size", SIZES)
async def test_the_topic_list_opens_a_topic_or_says_what_it_needs(
        app_factory: AppFactory, size: tuple[int, int]) -> None:
    app = app_factory(topics=())
    async with app.run_test(size=size) as pilot:
        await pilot.press("enter")
        if size[0] < 40:
            assert isinstance(app.screen, TooSmallScreen)
            assert NEEDS in " ".join(screen_text(app).split())
        else:
            assert isinstance(app.screen, JudgeScreen) and app.screen.session.topic == "1"


async def test_shrinking_under_the_judging_screen_covers_it_and_loses_nothing(
        app_factory: AppFactory, store_path: str) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("1")  # d1
        for columns, rows in [(30, 12), (20, 10), (39, 30)]:
            await pilot.resize_terminal(columns, rows)
            assert await wait_until(pilot, lambda: isinstance(app.screen, TooSmallScreen))
            assert f"Terminal {columns}x{rows}:" in " ".join(screen_text(app).split())
            await pilot.press("2")  # under the cover, a grade key does nothing
        await pilot.resize_terminal(40, 12)
        assert await wait_until(pilot, lambda: isinstance(app.screen, JudgeScreen))
        assert isinstance(app.screen, JudgeScreen) and app.screen.session.docno == "d2"
        await pilot.press("0")  # d2
    assert log_rows(store_path)[["docno", "grade"]].values.tolist() == [["d1", 1], ["d2", 0]]


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_home_and_end_move_to_the_first_and_last_topic(
        app_factory: AppFactory, size: tuple[int, int]) -> None:
    app = app_factory(topics=())
    async with app.run_test(size=size) as pilot:
        table = app.screen.query_one("#topics", DataTable)
        await pilot.press("end")
        assert (table.cursor_row, table.scroll_x) == (1, 0)
        await pilot.press("home")
        assert (table.cursor_row, table.scroll_x) == (0, 0)
        await pilot.press("end", "enter")  # opens the topic the cursor shows
        assert isinstance(app.screen, JudgeScreen) and app.screen.session.topic == "2"


async def test_the_80x24_topic_list_shows_its_last_column_whole(app_factory: AppFactory) -> None:
    app = app_factory(topics=())
    async with app.run_test(size=(80, 24)):
        assert isinstance(app.screen, TopicPickerScreen)
        table = app.screen.query_one("#topics", DataTable)
        assert table.virtual_size.width <= table.size.width == 80
        header = next(line for line in screen_text(app).splitlines() if "Topic" in line)
        assert header.rstrip().endswith("Judged % all·me")
