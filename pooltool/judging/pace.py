"""How fast judging goes: judgments per hour, seconds per document, ETA.

Only *timed* judgments count: live log rows with a time (what the judging
UI records; imported qrels carry no time; an undone judgment is not live, so
it counts neither here nor in the qrels). The time is the *active* time
(``ms_active``: the app in use, idle gaps cut at ``idle_seconds``, see
:mod:`pooltool.tui.activity`); rows recorded before it existed use their
wall time ``ms_spent``. A regrade is a new
timed judgment and counts again. Each time is capped at :data:`IDLE_CAP_MS`,
so a document left on screen over lunch does not sink the rate.

* ``judgments_per_hour`` = 3,600,000 x judgments / sum of capped milliseconds;
* ``median_seconds`` = the median capped time per judgment, in seconds;
* ``remaining`` = documents still to judge, by the queue rule of
  :mod:`pooltool.judging.queue` (:func:`~pooltool.judging.queue.queue_state`),
  over the topics the judging UI lists for the assessor: their assigned
  topics (:mod:`pooltool.judging.assignment`; there, what they have not judged
  themselves), or every pooled topic when they have none (there, what nobody
  has judged); in the ``all`` row, the pooled documents nobody has given a
  grade >= 0;
* ``eta_hours`` = remaining / judgments_per_hour (for ``all``: over the sum of
  the assessors' rates, as they judge in parallel).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import NamedTuple

import pandas as pd

from pooltool.judging.queue import judging_queue, queue_state
from pooltool.store import DEFAULT_POOL, JudgmentStore

IDLE_CAP_MS = 10 * 60 * 1000
STATS_COLUMNS = ["assessor", "judgments", "judgments_per_hour", "median_seconds",
                 "remaining", "eta_hours"]


class Pace(NamedTuple):
    """Judging speed: judgments per hour and median seconds per judgment (NaN if unknown)."""

    per_hour: float
    median_seconds: float


def pace(ms_values: Sequence[int | None]) -> Pace:
    """The pace of a list of on-screen times (milliseconds; ``None`` ignored)."""
    capped = [min(int(v), IDLE_CAP_MS) for v in ms_values if v is not None and v >= 0]
    total = sum(capped)
    if not capped or total == 0:
        return Pace(math.nan, math.nan)
    return Pace(3_600_000 * len(capped) / total, statistics.median(capped) / 1000)


def eta_hours(remaining: int, per_hour: float) -> float:
    """Hours to judge ``remaining`` documents at ``per_hour`` (0 when nothing remains)."""
    if remaining == 0:
        return 0.0
    return remaining / per_hour if per_hour > 0 else math.nan


def judging_stats(store: JudgmentStore, assessor: str | None = None,
                  pool: str = DEFAULT_POOL) -> pd.DataFrame:
    """Judging speed per assessor, and an ``all`` row (see the module docstring).

    :param assessor: only this assessor's row (and no ``all`` row).
    :returns: columns :data:`STATS_COLUMNS`, one row per assessor with timed
        judgments or assigned topics, in name order, then ``all``.
    """
    timed = store.timed_judgments()
    names = sorted(set(timed["assessor"]) | set(store.assigned_assessors()))
    if assessor is not None:
        names = [assessor]
    pooled = store.has_pool(pool)
    rows = [_assessor_row(store, name, timed, pooled, pool) for name in names]
    if assessor is None:
        rows.append(_all_row(store, timed, pooled, pool, rows))
    return pd.DataFrame(rows, columns=STATS_COLUMNS)


def _assessor_row(store: JudgmentStore, name: str, timed: pd.DataFrame,
                  pooled: bool, pool: str) -> dict[str, object]:
    ms = timed.loc[timed["assessor"] == name, "ms_spent"].tolist()
    speed = pace(ms)
    remaining = _remaining(store, name, pool) if pooled else 0
    return {"assessor": name, "judgments": len(ms), "judgments_per_hour": speed.per_hour,
            "median_seconds": speed.median_seconds, "remaining": remaining,
            "eta_hours": eta_hours(remaining, speed.per_hour)}


def _remaining(store: JudgmentStore, name: str, pool: str) -> int:
    state = queue_state(store, name, store.assigned_topics(name) or None, pool)
    return int(state["todo"].sum())


def _all_row(store: JudgmentStore, timed: pd.DataFrame, pooled: bool, pool: str,
             rows: list[dict[str, object]]) -> dict[str, object]:
    rates = pd.Series([r["judgments_per_hour"] for r in rows], dtype=float)
    per_hour = float(rates.sum(min_count=1))
    remaining = len(judging_queue(store, pool)) if pooled else 0
    return {"assessor": "all", "judgments": len(timed), "judgments_per_hour": per_hour,
            "median_seconds": pace(timed["ms_spent"].tolist()).median_seconds,
            "remaining": remaining, "eta_hours": eta_hours(remaining, per_hour)}
