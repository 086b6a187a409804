"""Active judging time: idle gaps cut at idle_seconds, stored beside wall time, used by pace."""

from __future__ import annotations

from judge_fixtures import AppFactory, log_rows

from pooltool.judging.pace import judging_stats
from pooltool.store import JudgmentStore
from pooltool.tui.activity import ActivityClock
from pooltool.tui.screens.judge import JudgeScreen


class FakeTime:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_gaps_count_up_to_the_idle_limit() -> None:
    clock = FakeTime()
    activity = ActivityClock(idle_s=60, now=clock)
    clock.t += 5
    activity.touch()  # 5 s
    clock.t += 200
    activity.touch()  # 200 s away: 60 s count
    clock.t += 2
    assert activity.active_ms() == 67_000  # the open gap counts too
    activity.restart()
    clock.t += 90
    assert activity.active_ms() == 60_000


async def test_a_grade_stores_active_time_beside_wall_time(app_factory: AppFactory,
                                                           store_path: str) -> None:
    with JudgmentStore.open(store_path) as store:
        store.set_setting("idle_seconds", 30)
    app = app_factory()
    clock = FakeTime()
    async with app.run_test(size=(110, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, JudgeScreen) and screen.activity.idle_s == 30
        screen.activity.now = clock
        screen.activity.restart()
        clock.t += 4
        await pilot.press("down")  # reading: 4 s
        clock.t += 500  # away from the desk
        await pilot.press("2")  # the grade key: 30 s of the 500 count
    row = log_rows(store_path).iloc[0]
    assert row["docno"] == "d1" and row["ms_active"] == 34_000
    assert row["ms_spent"] < 34_000  # wall time ran on the real clock, a moment
    with JudgmentStore.open(store_path) as store:
        stats = judging_stats(store, "alice").iloc[0]
    assert stats["median_seconds"] == 34.0  # pace uses the active time
    assert round(stats["judgments_per_hour"], 6) == round(3600 / 34, 6)
