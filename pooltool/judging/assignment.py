"""Giving topics to assessors, optionally with an overlap judged by two.

Each topic gets one *primary* assessor. Topics are dealt most work first to
the assessor with the least work so far (ties: the order the assessors were
named in), which balances the work. The work of a topic is its pooled
documents that nobody has judged yet (:func:`~pooltool.judging.queue.judging_queue`:
judgments imported with import-qrels count as judged, as the judging queue
counts them), so qrels imported before assigning shrink the work dealt. Then a share of the topics
(``overlap``, rounded to the nearest whole topic) also gets a second,
*overlap* assessor, the least loaded of the others: these topics feed
:mod:`pooltool.judging.agreement`. Which topics overlap is fixed by ``seed`` (topics
sorted by sha256 of ``"<seed>\\t<topic>"``), so an assignment can be repeated.

Work done stays where it is: a topic on which assessors have already judged
pooled documents keeps as its primary the assessor who judged most of them
(ties: the earliest name in ``assessors``, then name order), whoever is named
now; only ``rebalance`` deals such topics anew. Kept topics count in the load
of the assessor they stay with.

Assigning topics again replaces their earlier assignment (other topics keep
theirs). The judging UI shows an assessor their assigned topics, or every
pooled topic when they have none; an open app picks up a new assignment when
a topic opens and when its topic list is refreshed (``r``).
"""

from __future__ import annotations

import hashlib

import pandas as pd

from pooltool.errors import InvalidArgument, UnknownTopic
from pooltool.formats.frames import pair_isin
from pooltool.records import is_judged, topic_key
from pooltool.store import DEFAULT_POOL, JudgmentStore

ASSIGNMENT_COLUMNS = ["topic", "assessor", "role", "pooled", "unjudged", "judged"]


def plan_assignment(sizes: dict[str, int], assessors: list[str], overlap: float = 0.0,
                    seed: int = 0, judged: dict[str, dict[str, int]] | None = None,
                    keep_judged: bool = True,
                    unjudged: dict[str, int] | None = None) -> pd.DataFrame:
    """Deal topics to assessors (pure: nothing is stored).

    :param sizes: pooled documents per topic.
    :param unjudged: per topic, the pooled documents nobody has judged yet, the work
        dealt (default: ``sizes``, nothing judged).
    :param assessors: distinct assessor names, at least one.
    :param overlap: the share of topics (0..1) judged by a second assessor.
    :param seed: picks which topics overlap.
    :param judged: per topic, the pooled documents each assessor has judged
        (``{topic: {assessor: count}}``; default none).
    :param keep_judged: a topic with judged documents keeps its top assessor as
        primary (module docstring); false: every topic is dealt anew.
    :returns: columns :data:`ASSIGNMENT_COLUMNS` (``unjudged``: the topic's work;
        ``judged``: the pooled documents that assessor has judged on the topic), topics
        in :func:`~pooltool.records.topic_key` order (2 before 10), the primary first.
    :raises StoreError: no assessors, a blank name, repeated names, overlap outside 0..1,
        or overlap with a single assessor.
    """
    _check(assessors, overlap)
    judged = judged or {}
    work = {topic: (unjudged or sizes).get(topic, 0) for topic in sizes}
    load = dict.fromkeys(assessors, 0)
    primary = {topic: _most_judged(judged[topic], assessors) for topic in sizes
               if keep_judged and any(judged.get(topic, {}).values())}
    for topic, name in primary.items():
        load[name] = load.get(name, 0) + work[topic]
    for topic in sorted(set(sizes) - set(primary), key=lambda t: (-work[t], -sizes[t], t)):
        primary[topic] = _least_loaded(load, assessors, exclude=None)
        load[primary[topic]] += work[topic]
    rows = [(t, primary[t], "primary", sizes[t], work[t]) for t in sizes]
    for topic in _overlap_topics(list(sizes), overlap, seed):
        second = _least_loaded(load, assessors, exclude=primary[topic])
        load[second] += work[topic]
        rows.append((topic, second, "overlap", sizes[topic], work[topic]))
    done = [judged.get(topic, {}).get(name, 0) for topic, name, *_ in rows]
    frame = pd.DataFrame([(*row, n) for row, n in zip(rows, done, strict=True)],
                         columns=ASSIGNMENT_COLUMNS)
    roles = {"primary": 0, "overlap": 1}
    order = sorted(range(len(frame)), key=lambda i: (topic_key(str(frame["topic"].iat[i])),
                                                     roles[frame["role"].iat[i]]))
    return frame.iloc[order].reset_index(drop=True)


def _most_judged(counts: dict[str, int], assessors: list[str]) -> str:
    """The assessor with the most judged documents; ties: named first, then by name."""
    named = {name: i for i, name in enumerate(assessors)}
    return min((c for c in counts if counts[c] > 0),
               key=lambda c: (-counts[c], named.get(c, len(named)), c))


def _check(assessors: list[str], overlap: float) -> None:
    if not assessors:
        raise InvalidArgument("name at least one assessor to assign topics to")
    if any(not name.strip() for name in assessors):
        raise InvalidArgument("an assessor name must not be blank")
    if len(set(assessors)) != len(assessors):
        raise InvalidArgument("an assessor is named twice")
    if not 0.0 <= overlap <= 1.0:
        raise InvalidArgument(f"the overlap share must be between 0 and 1, got {overlap}")
    if overlap > 0 and len(assessors) < 2:
        raise InvalidArgument("an overlap needs at least two assessors")


def _least_loaded(load: dict[str, int], assessors: list[str], exclude: str | None) -> str:
    candidates = [a for a in assessors if a != exclude] or list(assessors)
    return min(candidates, key=lambda a: (load[a], assessors.index(a)))


def _overlap_topics(topics: list[str], overlap: float, seed: int) -> list[str]:
    count = int(round(overlap * len(topics) + 1e-9))
    keyed = sorted(topics, key=lambda t: hashlib.sha256(f"{seed}\t{t}".encode()).hexdigest())
    return sorted(keyed[:count])


def assign_topics(store: JudgmentStore, assessors: list[str], topics: list[str] | None = None,
                  overlap: float = 0.0, seed: int = 0, pool: str = DEFAULT_POOL,
                  rebalance: bool = False) -> pd.DataFrame:
    """Assign pooled topics to assessors and store the assignment (one transaction).

    :param topics: the topics to assign (default: every pooled topic).
    :param rebalance: deal every topic anew, also those on which assessors have
        judged (by default they stay with the assessor who judged most of them).
    :returns: the assignment, as :func:`plan_assignment`, its work (``unjudged``) the
        pooled documents nobody has judged (imported qrels included).
    :raises UnknownTopic: a topic with no pooled documents.
    :raises StoreError: see :func:`plan_assignment`; or no such pool.
    """
    counts = store.pool_pairs(pool).groupby("topic").size()
    chosen = list(topics) if topics else list(counts.index)
    missing = [t for t in chosen if t not in counts.index]
    if missing:
        raise UnknownTopic(f"no pooled documents for topic(s) {', '.join(missing)}")
    from pooltool.judging.queue import judging_queue

    left = judging_queue(store, pool).groupby("topic").size()
    plan = plan_assignment({t: int(counts[t]) for t in chosen}, assessors, overlap, seed,
                           judged_per_topic(store, pool), keep_judged=not rebalance,
                           unjudged={t: int(left.get(t, 0)) for t in chosen})
    store.replace_assignments(
        chosen, [(r.topic, r.assessor, r.role) for r in plan.itertuples(index=False)])
    return plan


def judged_per_topic(store: JudgmentStore, pool: str = DEFAULT_POOL) -> dict[str, dict[str, int]]:
    """Pooled documents each assessor has judged in pooltool (own grade >= 0; judgments
    imported from qrels files do not count: their assessor judges no more), per topic:
    ``{topic: {assessor: count}}``."""
    own = store.own_grades(imported=False)
    own = own[is_judged(own["grade"]).to_numpy()]
    own = own[pair_isin(own, store.pool_pairs(pool))]
    counts = own.groupby(["topic", "assessor"]).size()
    table: dict[str, dict[str, int]] = {}
    for (topic, name), count in counts.items():
        table.setdefault(str(topic), {})[str(name)] = int(count)
    return table

