"""Giving topics to assessors, optionally with an overlap judged by two.

Each topic gets one *primary* assessor. Topics are dealt largest pool first
to the assessor with the fewest pooled documents so far (ties: the order the
assessors were named in), which balances the work. Then a share of the topics
(``overlap``, rounded to the nearest whole topic) also gets a second,
*overlap* assessor, the least loaded of the others: these topics feed
:mod:`pooltool.judging.agreement`. Which topics overlap is fixed by ``seed`` (topics
sorted by sha256 of ``"<seed>\\t<topic>"``), so an assignment can be repeated.

Assigning topics again replaces their earlier assignment (other topics keep
theirs). The judging UI shows an assessor their assigned topics, or every
pooled topic when they have none.
"""

from __future__ import annotations

import hashlib

import pandas as pd

from pooltool.errors import StoreError, UnknownTopic
from pooltool.store import DEFAULT_POOL, JudgmentStore

ASSIGNMENT_COLUMNS = ["topic", "assessor", "role", "pooled"]


def plan_assignment(sizes: dict[str, int], assessors: list[str], overlap: float = 0.0,
                    seed: int = 0) -> pd.DataFrame:
    """Deal topics to assessors (pure: nothing is stored).

    :param sizes: pooled documents per topic.
    :param assessors: distinct assessor names, at least one.
    :param overlap: the share of topics (0..1) judged by a second assessor.
    :param seed: picks which topics overlap.
    :returns: columns :data:`ASSIGNMENT_COLUMNS`, sorted by topic, the primary first.
    :raises StoreError: no assessors, a blank name, repeated names, overlap outside 0..1,
        or overlap with a single assessor.
    """
    _check(assessors, overlap)
    load = dict.fromkeys(assessors, 0)
    rows: list[tuple[str, str, str, int]] = []
    primary: dict[str, str] = {}
    for topic in sorted(sizes, key=lambda t: (-sizes[t], t)):
        primary[topic] = _least_loaded(load, assessors, exclude=None)
        load[primary[topic]] += sizes[topic]
        rows.append((topic, primary[topic], "primary", sizes[topic]))
    for topic in _overlap_topics(list(sizes), overlap, seed):
        second = _least_loaded(load, assessors, exclude=primary[topic])
        load[second] += sizes[topic]
        rows.append((topic, second, "overlap", sizes[topic]))
    frame = pd.DataFrame(rows, columns=ASSIGNMENT_COLUMNS)
    return frame.sort_values("topic", kind="mergesort").reset_index(drop=True)


def _check(assessors: list[str], overlap: float) -> None:
    if not assessors:
        raise StoreError("name at least one assessor to assign topics to")
    if any(not name.strip() for name in assessors):
        raise StoreError("an assessor name must not be blank")
    if len(set(assessors)) != len(assessors):
        raise StoreError("an assessor is named twice")
    if not 0.0 <= overlap <= 1.0:
        raise StoreError(f"the overlap share must be between 0 and 1, got {overlap}")
    if overlap > 0 and len(assessors) < 2:
        raise StoreError("an overlap needs at least two assessors")


def _least_loaded(load: dict[str, int], assessors: list[str], exclude: str | None) -> str:
    candidates = [a for a in assessors if a != exclude]
    return min(candidates, key=lambda a: (load[a], assessors.index(a)))


def _overlap_topics(topics: list[str], overlap: float, seed: int) -> list[str]:
    count = int(round(overlap * len(topics) + 1e-9))
    keyed = sorted(topics, key=lambda t: hashlib.sha256(f"{seed}\t{t}".encode()).hexdigest())
    return sorted(keyed[:count])


def assign_topics(store: JudgmentStore, assessors: list[str], topics: list[str] | None = None,
                  overlap: float = 0.0, seed: int = 0, pool: str = DEFAULT_POOL) -> pd.DataFrame:
    """Assign pooled topics to assessors and store the assignment (one transaction).

    :param topics: the topics to assign (default: every pooled topic).
    :returns: the assignment, as :func:`plan_assignment`.
    :raises UnknownTopic: a topic with no pooled documents.
    :raises StoreError: see :func:`plan_assignment`; or no such pool.
    """
    counts = store.pool_docs(pool).groupby("topic").size()
    chosen = list(topics) if topics else list(counts.index)
    missing = [t for t in chosen if t not in counts.index]
    if missing:
        raise UnknownTopic(f"no pooled documents for topic(s) {', '.join(missing)}")
    plan = plan_assignment({t: int(counts[t]) for t in chosen}, assessors, overlap, seed)
    store.replace_assignments(
        chosen, [(r.topic, r.assessor, r.role) for r in plan.itertuples(index=False)])
    return plan
