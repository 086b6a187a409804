"""Active judging time: idle gaps cut at idle_seconds, stored beside wall time, used by pace."""

from __future__ import annotations

import random

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


def test_active_time_never_exceeds_the_time_spent() -> None:
    """Both from one reading of the clock, rounded alike: 1.9996 s on screen, all of it
    active, is 2000 ms of each (wall time truncated and active time rounded gave 1999
    and 2000); and over many random sessions active <= spent."""
    clock = FakeTime()
    activity = ActivityClock(idle_s=60, now=clock)
    clock.t += 1.9996
    activity.touch()
    assert activity.measure() == (2000, 2000)
    generator = random.Random(24)
    for _ in range(2000):
        activity.restart()
        for _ in range(generator.randrange(4)):
            clock.t += generator.choice([0.0004, 0.0015, 0.5, 61.0, generator.random()])
            activity.touch()
        clock.t += generator.random() / 100
        spent, active = activity.measure()
        assert active <= spent


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
    assert row["ms_spent"] == 504_000  # the wall time, on the same clock
    with JudgmentStore.open(store_path) as store:
        stats = judging_stats(store, "alice").iloc[0]
    assert stats["median_seconds"] == 34.0  # pace uses the active time
    assert round(stats["judgments_per_hour"], 6) == round(3600 / 34, 6)
