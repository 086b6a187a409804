"""The hole of nDCG and nDCG@k: exact by enumerating grade counts, else a proven bound.

nDCG as trec_eval 10.0 computes it (``m_ndcg.c``, ``m_ndcg_cut.c``; Järvelin &
Kekäläinen, ACM TOIS 20(4), 2002): gain = grade (trec_eval's default gains; the
relevance level ``-l`` plays no part), ``DCG@k = sum_{i <= k} g_i / log2(i + 1)``,
nDCG@k = ``DCG@k / IDCG@k``, the ideal ranking being every judged qrels grade
sorted descending (cut at ``k``; without a cutoff, the whole ideal ranking),
and 0 when ``IDCG = 0``. An unjudged document graded ``g > 0`` raises both DCG and
the ideal, so nDCG is not monotone in the grades it gets.

*Exact ends.* Fix the counts ``c_1..c_G`` of unjudged documents given each
grade (``G = max_grade``). The ideal depends on the counts only. Over the
orders of those grades among the unjudged positions, DCG is largest with the
grades in descending order down the ranking and smallest in ascending order
(rearrangement inequality: the discounts ``1/log2(i+1)`` fall with the rank).
So the max (min) over all assignments is the max (min) over the
``C(U + G, G)`` count vectors of those two DCGs over the ideal, which this
module evaluates at once with prefix sums, when they number at most ``limit``.

*Bound*, past ``limit``: DCG and IDCG both rise with every grade, so for any
assignment ``DCG_0 <= DCG <= DCG_G`` and ``IDCG_0 <= IDCG <= IDCG_G`` (``_0``:
every unjudged document graded 0, ``_G``: graded ``max_grade``), hence
``DCG_0 / IDCG_G <= nDCG <= min(1, DCG_G / IDCG_0)``: proven, not reached in general.
"""

from __future__ import annotations

from math import comb

import numpy as np

from pooltool.measures.holes.interval import Hole, prepare

#: The most grade-count vectors :func:`ndcg_hole` enumerates before it falls back on the bound.
LIMIT = 200_000


def ndcg_hole(
    ranked: np.ndarray,
    qrels_grades: np.ndarray,
    max_grade: int,
    k: int | None = None,
    limit: int = LIMIT,
) -> Hole:
    """The hole of nDCG (``ndcg``) or, with ``k``, of nDCG@k (``ndcg_cut.k``).

    The unjudged documents of the first ``k`` (without ``k``: of the ranked
    list) may be graded ``0..max_grade``; the ideal ranking gains each one.

    :param ranked: grades in trec_eval order, NaN unjudged; float ``(n,)``.
    :param qrels_grades: the topic's judged qrels grades; int ``(m,)``.
    :param max_grade: the highest grade an unjudged document can get.
    :param k: the cutoff, or ``None`` for nDCG over the whole ranking.
    :param limit: enumerate the grade counts when ``C(U + G, G) <= limit``.
    :returns: a :class:`Hole` in 0..1: exact ends when enumerated, else the
        proven bound of the module docstring (``low_exact = high_exact = False``
        unless no document is unjudged).
    :raises InvalidArgument: see :func:`~pooltool.measures.holes.interval.prepare`.
    """
    top = prepare(ranked, qrels_grades, 1, max_grade, k)
    discount = 1.0 / np.log2(np.arange(2, len(top.grades) + 2))
    slots = discount[top.unjudged]  # discounts of the unjudged positions, falling
    dcg0 = float((top.grades * discount).sum())
    judged = np.bincount(top.judged_grades, minlength=max_grade + 1)
    depth = len(top.judged_grades) + len(slots)
    ideal_discount = 1.0 / np.log2(np.arange(2, (depth if k is None else min(k, depth)) + 2))
    if comb(len(slots) + max_grade, max_grade) > limit:
        return _bound(dcg0, slots, judged, ideal_discount, max_grade)
    counts = _count_vectors(len(slots), max_grade)  # (v, G): column g-1 = count of grade g
    ideal = _ideal(judged, counts, ideal_discount)
    high = dcg0 + _placed(counts, np.concatenate([[0.0], np.cumsum(slots)]))
    low = dcg0 + _placed(counts, np.concatenate([[0.0], np.cumsum(slots[::-1])]))
    with np.errstate(invalid="ignore", divide="ignore"):
        high_ratio = np.where(ideal > 0, high / ideal, 0.0)
        low_ratio = np.where(ideal > 0, low / ideal, 0.0)
    return Hole(float(low_ratio.min()), float(high_ratio.max()))


def _count_vectors(total: int, grades: int) -> np.ndarray:
    """Every ``(c_1..c_G)`` of non-negative integers with sum ``<= total``; int ``(v, G)``."""
    vectors = np.zeros((1, 0), dtype=np.int64)
    for _ in range(grades):
        room = total - vectors.sum(axis=1)
        repeat = room + 1
        base = np.repeat(vectors, repeat, axis=0)
        starts = np.cumsum(repeat) - repeat
        added = np.arange(int(repeat.sum())) - np.repeat(starts, repeat)
        vectors = np.column_stack([base, added])
    return vectors


def _placed(counts: np.ndarray, prefix: np.ndarray) -> np.ndarray:
    """DCG the assigned grades add when grade ``G`` takes the first ``c_G`` slots, ``G - 1``
    the next ``c_{G-1}``, ...; ``prefix`` are the slots' cumulative discounts, ``(U + 1,)``."""
    gained = np.zeros(len(counts))
    start = np.zeros(len(counts), dtype=np.int64)
    for grade in range(counts.shape[1], 0, -1):
        end = start + counts[:, grade - 1]
        gained += grade * (prefix[end] - prefix[start])
        start = end
    return gained


def _ideal(judged: np.ndarray, counts: np.ndarray, discount: np.ndarray) -> np.ndarray:
    """IDCG of the judged grade counts ``judged`` (by grade) plus each row of ``counts``."""
    prefix = np.concatenate([[0.0], np.cumsum(discount)])
    cut = len(discount)
    ideal = np.zeros(len(counts))
    start = np.zeros(len(counts), dtype=np.int64)
    for grade in range(counts.shape[1], 0, -1):
        end = start + judged[grade] + counts[:, grade - 1]
        ideal += grade * (prefix[np.minimum(end, cut)] - prefix[np.minimum(start, cut)])
        start = end
    return ideal


def _bound(
    dcg0: float, slots: np.ndarray, judged: np.ndarray, discount: np.ndarray, max_grade: int
) -> Hole:
    """The proven bound ``[DCG_0 / IDCG_G, min(1, DCG_G / IDCG_0)]`` (module docstring)."""
    none = np.zeros((1, max_grade), dtype=np.int64)
    every = none.copy()
    every[0, max_grade - 1] = len(slots)
    ideal0 = float(_ideal(judged, none, discount)[0])
    ideal_g = float(_ideal(judged, every, discount)[0])
    dcg_g = dcg0 + max_grade * float(slots.sum())
    low = dcg0 / ideal_g if ideal_g > 0 else 0.0
    high = min(1.0, dcg_g / ideal0) if ideal0 > 0 else 1.0
    return Hole(low, high, low_exact=False, high_exact=False)
