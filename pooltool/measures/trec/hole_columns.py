"""The ``low`` and ``high`` of one topic's values: each measure's hole
(:mod:`pooltool.measures.holes`) on the ranked list the measure itself scored.

Measures with a hole (trec_eval names; ir_measures spellings map onto them):
``P.k``, ``recall.k``, ``success.k``, ``judged.k``, ``recip_rank``, ``Rprec``,
``map``, ``map_cut.k``, ``bpref``, ``ndcg`` and ``rbp`` with their default gains
(``ndcg`` with no parameters, ``rbp`` with only ``p=``), and ``ndcg_cut.k``. Every
other measure has none (``None``), nor at relevance level 0 (``-l 0``: grade 0
relevant, which the holes do not support) any but ``ndcg``, ``ndcg_cut``, ``rbp`` and
``judged``, which do not depend on the level.

The ranked list is the topic's after ``-M`` and ``-J`` (so under ``-J`` there is
nothing unjudged and the hole is ``[value, value]``); a document with no qrels line
or a negative grade is unjudged (for ``judged.k``, as its value, only one with no
qrels line). An unjudged document can get any grade up to ``max_grade``, the
highest grade of the qrels (at least the level); for ``rbp`` up to the topic's own
highest grade (at least 1), so that trec_eval's rescaling of the gains into 0..1
(``m_rbp.c``) is the same for every assignment. A qrels topic the run lacks, scored
under ``-c`` on trec_eval's stand-in ranking, gets ``[value, value]``: the run has
no ranking to judge.

bpref skips unjudged documents, so its value as judged now may lie outside its
hole (:func:`~pooltool.measures.holes.bpref_hole`); every other value lies inside.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pooltool.errors import InvalidArgument
from pooltool.measures import holes
from pooltool.measures.trec.ranked import RELVALUE_NONPOOL, Topic
from pooltool.measures.trec.rbp import persistence
from pooltool.measures.trec.select import Request

#: A hole function of one cutoff (or ``None``) on ``(ranked, qrels_grades, max_grade, level, k)``.
_Cut = Callable[[np.ndarray, np.ndarray, int, int, int | None], holes.Hole]

_BY_CUTOFF: dict[str, _Cut] = {
    "P": lambda r, q, g, lv, k: holes.precision_hole(r, q, _k(k), g, lv),
    "recall": lambda r, q, g, lv, k: holes.recall_hole(r, q, _k(k), g, lv),
    "success": lambda r, q, g, lv, k: holes.success_hole(r, q, _k(k), g, lv),
    "map_cut": lambda r, q, g, lv, k: holes.ap_hole(r, q, g, lv, k),
    "ndcg_cut": lambda r, q, g, _lv, k: holes.ndcg_hole(r, q, g, k),
    "map": lambda r, q, g, lv, _k: holes.ap_hole(r, q, g, lv),
    "Rprec": lambda r, q, g, lv, _k: holes.rprec_hole(r, q, g, lv),
    "recip_rank": lambda r, q, g, lv, _k: holes.reciprocal_rank_hole(r, q, g, lv),
    "bpref": lambda r, q, g, lv, _k: holes.bpref_hole(r, q, g, lv),
    "ndcg": lambda r, q, g, _lv, _k: holes.ndcg_hole(r, q, g),
}

#: Measures whose value (and hole) do not depend on the relevance level.
_LEVEL_FREE = frozenset(["ndcg", "ndcg_cut", "rbp", "judged"])

#: Measures with a hole (``judged`` and ``rbp`` are handled apart).
COVERED = frozenset([*_BY_CUTOFF, "judged", "rbp"])


def _k(k: int | None) -> int:
    assert k is not None
    return k


def qrels_max_grade(rel_levels: list[np.ndarray]) -> int:
    """The highest judged grade of the qrels (``rel_levels`` of every topic), 0 when none."""
    return max((len(levels) - 1 for levels in rel_levels), default=0)


def topic_holes(topic: Topic, request: Request, values: list[object],
                max_grade: int) -> list[tuple[float, float] | None]:
    """Per value of ``request`` on ``topic``, its hole ``(low, high)`` or ``None``.

    :param topic: the topic as the measure saw it (its ``level`` the request's).
    :param request: the measure.
    :param values: the topic's values of ``request`` (one per printed name), used for a
        topic the run lacks.
    :param max_grade: the highest grade of the qrels (:func:`qrels_max_grade`).
    :returns: one entry per printed name, fractions in 0..1.
    """
    name = request.measure.name
    none: list[tuple[float, float] | None] = [None] * len(request.names)
    if not covered(request) or topic.level < 1 and name not in _LEVEL_FREE:
        return none
    if not topic.present:
        return [(float(v), float(v)) for v in values]  # type: ignore[arg-type]
    ranked = np.where(topic.rel < 0, np.nan, topic.rel).astype(np.float64)
    qrels_grades = np.repeat(np.arange(len(topic.rel_levels)), topic.rel_levels)
    grade = max(max_grade, topic.level)
    cutoffs: list[int | None] = (list(request.params.values)  # type: ignore[arg-type]
                                 if request.measure.kind == "cut_long" else [None])
    try:
        if name == "judged":
            judged = np.where(topic.rel == RELVALUE_NONPOOL, np.nan, 0.0)
            found = [holes.judged_hole(judged, _k(k)) for k in cutoffs]
        elif name == "rbp":
            top = max(len(topic.rel_levels) - 1, 1)
            found = [holes.rbp_hole(ranked, top, persistence(request.params.values))]  # type: ignore[arg-type]
        else:
            found = [_BY_CUTOFF[name](ranked, qrels_grades, grade, topic.level, k)
                     for k in cutoffs]
    except InvalidArgument:
        return none
    return [(hole.low, hole.high) for hole in found]


def covered(request: Request) -> bool:
    """``request`` has a hole: a covered measure with trec_eval's default gains."""
    name = request.measure.name
    if name not in COVERED:
        return False
    if name == "ndcg":
        return not request.params.values
    if name == "rbp":
        return all(pair[0] == "p" for pair in request.params.values)  # type: ignore[index]
    return True
