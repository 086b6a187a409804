"""Judging pace, remaining work and ETA."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from pooltool.judging.assignment import assign_topics
from pooltool.judging.pace import IDLE_CAP_MS, STATS_COLUMNS, eta_hours, judging_stats, pace
from pooltool.pooling import pool_runs
from pooltool.store import JudgmentStore

pytestmark = pytest.mark.both_engines  # the store's own SQL, rewritten for PostgreSQL


def test_pace_from_times() -> None:
    speed = pace([1000, 3000, None, 2000])
    assert speed.per_hour == pytest.approx(3_600_000 * 3 / 6000)
    assert speed.median_seconds == 2.0


def test_pace_caps_idle_time() -> None:
    assert pace([3 * IDLE_CAP_MS]).per_hour == pytest.approx(6.0)
    assert all(math.isnan(v) for v in pace([]))


def test_eta() -> None:
    assert eta_hours(0, math.nan) == 0.0
    assert eta_hours(30, 60.0) == 0.5
    assert math.isnan(eta_hours(3, math.nan))


def test_judging_stats_per_assessor_and_all(memory_store: JudgmentStore) -> None:
    store = memory_store
    run = pd.DataFrame([("r", t, f"d{i}", i + 1, 9.0 - i) for t in "12" for i in range(5)],
                       columns=["run_tag", "topic", "docno", "rank", "score"])
    store.add_run_frame(run)
    pool_runs(store, depth=5)
    assign_topics(store, ["ann"], topics=["1"])
    for docno, ms in (("d0", 2000), ("d1", 4000)):
        store.record_judgment("1", docno, 1, "ann", ms_spent=ms)
    store.record_judgment("2", "d0", 0, "ben", ms_spent=1000)
    store.record_judgment("2", "d1", 0, "qrels")  # untimed: not counted
    stats = judging_stats(store)
    assert list(stats.columns) == STATS_COLUMNS
    rows = stats.set_index("assessor")
    assert list(rows.index) == ["ann", "ben", "all"]
    assert rows.loc["ann", "judgments"] == 2
    assert rows.loc["ann", "judgments_per_hour"] == pytest.approx(1200.0)
    assert rows.loc["ann", "median_seconds"] == pytest.approx(3.0)
    assert rows.loc["ann", "remaining"] == 3  # her topic 1: 5 pooled, 2 judged
    assert rows.loc["ann", "eta_hours"] == pytest.approx(3 / 1200)
    assert rows.loc["ben", "remaining"] == 6  # no assignment: pooled, judged by nobody
    assert rows.loc["all", "judgments_per_hour"] == pytest.approx(1200.0 + 3600.0)
    assert rows.loc["all", "eta_hours"] == pytest.approx(6 / 4800)
    only = judging_stats(store, assessor="ben")
    assert list(only["assessor"]) == ["ben"]


def test_assessor_assigned_but_not_started(memory_store: JudgmentStore) -> None:
    """An assigned assessor with no judgment yet: all their topic remains (no error),
    while another assessor's judgments exist in the store."""
    store = memory_store
    run = pd.DataFrame([("r", t, f"d{i}", i + 1, 9.0 - i) for t in "12" for i in range(4)],
                       columns=["run_tag", "topic", "docno", "rank", "score"])
    store.add_run_frame(run)
    pool_runs(store, depth=4)
    assign_topics(store, ["cat"], topics=["2"])
    store.record_judgment("2", "d0", 1, "ann", ms_spent=1000)
    rows = judging_stats(store).set_index("assessor")
    assert rows.loc["cat", "judgments"] == 0 and rows.loc["cat", "remaining"] == 4
    assert math.isnan(rows.loc["cat", "eta_hours"])
    assert rows.loc["all", "remaining"] == 7
