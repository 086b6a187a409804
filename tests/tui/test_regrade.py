"""Grades after "Topic done" and regrades (issue 24, item 10): once every document of
the topic is judged a grade key asks first, stray keys write nothing, and a regrade
says so on screen."""

from __future__ import annotations

from judge_fixtures import AppFactory, log_rows

from pooltool.tui.screens.confirm import ConfirmScreen
from pooltool.tui.screens.judge import JudgeScreen

SIZE = (110, 30)


def messages(app: object) -> list[str]:
    return [n.message for n in app._notifications]  # type: ignore[attr-defined]


async def test_keys_after_topic_done_ask_and_write_nothing_unless_confirmed(
        app_factory: AppFactory, store_path: str) -> None:
    app = app_factory(topics=("2",))  # topic 2 pools d1 d2 d6
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("1", "0", "1")
        assert "All 3 documents of topic 2 are judged." in messages(app)
        assert isinstance(app.screen, JudgeScreen) and app.screen.session.docno == "d6"
        await pilot.press(*"2" * 10)  # typing on: one question, no grade
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question == ("Every document of topic 2 is judged. "
                                       "Grade d6 2 (now 1)?")
        await pilot.press("n")
        assert isinstance(app.screen, JudgeScreen)
        assert len(log_rows(store_path)) == 3
        await pilot.press("2", "y")
        assert isinstance(app.screen, JudgeScreen)
    rows = log_rows(store_path)[["docno", "grade"]].values.tolist()
    assert rows == [["d1", 1], ["d2", 0], ["d6", 1], ["d6", 2]]
    assert ("d6 regraded: 1 → 2 (your earlier grade stays in the log; u undoes this one)."
            in messages(app))


async def test_a_regrade_before_the_end_says_so_without_asking(app_factory: AppFactory,
                                                               store_path: str) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("1", "left")  # d1 graded 1, back on it
        assert not any("regraded" in m for m in messages(app))
        await pilot.press("3")
        assert isinstance(app.screen, JudgeScreen)  # no question: the topic is not done
    assert log_rows(store_path)[["docno", "grade"]].values.tolist() == [["d1", 1], ["d1", 3]]
    assert ("d1 regraded: 1 → 3 (your earlier grade stays in the log; u undoes this one)."
            in messages(app))
