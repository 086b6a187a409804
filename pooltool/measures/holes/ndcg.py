"""The hole of nDCG and nDCG@k: exact, by fractional programming over grade thresholds.

nDCG as trec_eval 10.0 computes it (``m_ndcg.c``, ``m_ndcg_cut.c``; Järvelin &
Kekäläinen, ACM TOIS 20(4), 2002): gain = grade (trec_eval's default gains; the
relevance level ``-l`` plays no part), ``DCG@k = sum_{i <= k} g_i / log2(i + 1)``,
nDCG@k = ``DCG@k / IDCG@k``, the ideal ranking being every judged qrels grade
sorted descending (cut at ``k``; without a cutoff, the whole ideal ranking),
and 0 when ``IDCG = 0``. An unjudged document graded ``g > 0`` raises both DCG
and the ideal, so nDCG is not monotone in the grades it gets.

*Reduction.* Fix how many unjudged documents get each grade. The ideal depends
on those counts only, and over the orders of those grades among the unjudged
positions DCG is largest with the grades descending down the ranking and
smallest ascending (rearrangement inequality: the discounts ``1/log2(i + 1)``
fall with the rank). Write ``t_g`` for the number of unjudged documents graded
``>= g`` (``U >= t_1 >= t_2 >= ... >= t_G >= 0``, ``G = max_grade``). A grade
``a`` is the number of thresholds ``g <= a``, so for the descending order

    ``DCG(t) = DCG_0 + sum_g W(t_g)``,  ``IDCG(t) = sum_g Z(m_g + t_g)``,

``W(t)`` the sum of the discounts of the first ``t`` unjudged positions (for the
ascending order: of the last ``t``), ``m_g`` the judged qrels documents graded
``>= g``, ``Z(x)`` the sum of the first ``min(x, K)`` ideal discounts (``K`` the
cutoff, or no cap). The max (min) of nDCG is the max (min) of ``DCG / IDCG`` over
the chains ``t``.

*Dinkelbach's method* (Dinkelbach, "On nonlinear fractional programming",
Management Science 13(7), 1967): ``max DCG/IDCG = λ`` exactly when
``max_t DCG(t) - λ IDCG(t) = 0``. For a fixed ``λ`` that objective is a sum of
one term per ``g`` under the chain constraint, maximised exactly by a dynamic
programme over ``g`` with prefix maxima (``O(G U)``); each step sets ``λ`` to the
ratio of the chain found, which rises strictly until the optimum, a finite
set's. Both ends are the ratios of real assignments, hence exact. Should the
iteration not settle in :data:`ITERATIONS` steps (rounding), the proven bound
``DCG_0 / IDCG_G <= nDCG <= min(1, DCG_G / IDCG_0)`` is returned instead (``_0``:
every unjudged document graded 0, ``_G``: graded ``max_grade``; DCG and IDCG both
rise with every grade), flagged not exact.
"""

from __future__ import annotations

import numpy as np

from pooltool.measures.holes.interval import Hole, prepare

#: Dinkelbach steps before giving up for the bound (each strictly raises λ; few are needed).
ITERATIONS = 100


def ndcg_hole(
    ranked: np.ndarray,
    qrels_grades: np.ndarray,
    max_grade: int,
    k: int | None = None,
) -> Hole:
    """The hole of nDCG (``ndcg``) or, with ``k``, of nDCG@k (``ndcg_cut.k``).

    The unjudged documents of the first ``k`` (without ``k``: of the ranked
    list) may be graded ``0..max_grade``; the ideal ranking gains each one.

    :param ranked: grades in trec_eval order, NaN unjudged; float ``(n,)``.
    :param qrels_grades: the topic's judged qrels grades; int ``(m,)``.
    :param max_grade: the highest grade an unjudged document can get.
    :param k: the cutoff, or ``None`` for nDCG over the whole ranking.
    :returns: a :class:`Hole` in 0..1, both ends exact (module docstring); in
        ``O(G U)`` per step, ``U`` the unjudged documents graded.
    :raises InvalidArgument: see :func:`~pooltool.measures.holes.interval.prepare`.
    """
    top = prepare(ranked, qrels_grades, 1, max_grade, k)
    discount = 1.0 / np.log2(np.arange(2, len(top.grades) + 2))
    slots = discount[top.unjudged]  # discounts of the unjudged positions, falling
    depth = len(top.judged_grades) + len(slots)
    cut = depth if k is None else min(k, depth)
    ideal = np.concatenate([[0.0], np.cumsum(1.0 / np.log2(np.arange(2, cut + 2)))])
    # m_g, the judged documents graded >= g, for g = 1..G
    at_least = np.array([int((top.judged_grades >= g).sum()) for g in range(1, max_grade + 1)])
    frac = _Fraction(float((top.grades * discount).sum()), ideal, at_least, len(slots))
    first = np.concatenate([[0.0], np.cumsum(slots)])
    last = np.concatenate([[0.0], np.cumsum(slots[::-1])])
    high, low = frac.optimum(first, maximise=True), frac.optimum(last, maximise=False)
    if high is None or low is None:
        return frac.bound(first)
    return Hole(low, high)


class _Fraction:
    """``DCG(t) / IDCG(t)`` over the threshold chains ``t`` (module docstring)."""

    def __init__(self, dcg0: float, ideal: np.ndarray, at_least: np.ndarray, slots: int):
        self.dcg0, self.ideal, self.at_least = dcg0, ideal, at_least
        self.t = np.arange(slots + 1)
        cut = len(ideal) - 1
        # IDCG's term of grade g at t_g = t: row g - 1, column t
        self.ideal_terms = ideal[np.minimum(at_least[:, None] + self.t[None, :], cut)]

    def ratio(self, placed: np.ndarray, chain: np.ndarray) -> float:
        """nDCG of one chain ``(t_1..t_G)``; ``placed`` is ``W`` (``(U + 1,)``)."""
        rows = np.arange(len(chain))
        denominator = float(self.ideal_terms[rows, chain].sum())
        numerator = self.dcg0 + float(placed[chain].sum())
        return numerator / denominator if denominator > 0 else 0.0

    def optimum(self, placed: np.ndarray, maximise: bool) -> float | None:
        """The max (min) ratio by Dinkelbach's method, ``None`` if it does not settle."""
        zero = np.zeros(len(self.at_least), dtype=np.int64)
        value = self.ratio(placed, zero)
        sign = 1.0 if maximise else -1.0
        for _ in range(ITERATIONS):
            chain = self._best_chain(sign * (placed[None, :] - value * self.ideal_terms))
            found = self.ratio(placed, chain)
            if not sign * (found - value) > 0:
                return value
            value = found
        return None

    def _best_chain(self, terms: np.ndarray) -> np.ndarray:
        """The chain ``t_1 >= ... >= t_G`` that maximises ``sum_g terms[g - 1, t_g]``."""
        grades = len(terms)
        if grades == 0:
            return np.zeros(0, dtype=np.int64)
        best_below: list[np.ndarray] = [np.zeros(0, dtype=np.int64)] * grades
        total = terms[grades - 1]
        for g in range(grades - 2, -1, -1):  # fold grade g + 2 into grade g + 1 (0-based g)
            best_below[g + 1] = _prefix_argmax(total)
            total = terms[g] + total[best_below[g + 1]]
        chain = np.zeros(grades, dtype=np.int64)
        chain[0] = int(np.argmax(total))
        for g in range(1, grades):
            chain[g] = best_below[g][chain[g - 1]]
        return chain

    def bound(self, first: np.ndarray) -> Hole:
        """The proven bound ``[DCG_0 / IDCG_G, min(1, DCG_G / IDCG_0)]`` (module docstring)."""
        grades = len(self.at_least)
        none = np.zeros(grades, dtype=np.int64)
        every = np.full(grades, self.t[-1], dtype=np.int64)
        rows = np.arange(grades)
        ideal0 = float(self.ideal_terms[rows, none].sum())
        ideal_g = float(self.ideal_terms[rows, every].sum())
        dcg_g = self.dcg0 + grades * float(first[-1])
        low = self.dcg0 / ideal_g if ideal_g > 0 else 0.0
        high = min(1.0, dcg_g / ideal0) if ideal0 > 0 else 1.0
        return Hole(low, high, low_exact=False, high_exact=False)


def _prefix_argmax(values: np.ndarray) -> np.ndarray:
    """``out[t]`` = an index of the largest of ``values[0..t]`` (the last that reaches it)."""
    reaches = values == np.maximum.accumulate(values)
    return np.maximum.accumulate(np.where(reaches, np.arange(len(values)), 0))
