"""Holes of AP (``map``), AP@k (``map_cut``) and bpref: exact, by an exchange argument.

Inputs as in :mod:`pooltool.measures.holes.interval`. These measures see only
whether a document is relevant (grade ``>= level``), so an assignment is the
set of unjudged documents it makes relevant. For a fixed count ``r`` of them
``num_rel`` is fixed too, and the measure is largest when they are the *first*
``r`` unjudged documents and smallest when they are the *last* ``r``:

*Exchange lemma.* Let unjudged positions ``i < j``; compare A (``i`` relevant,
``j`` not) with B (``j`` relevant, ``i`` not), all else equal.

* AP: a relevant document strictly between ``i`` and ``j`` has one more
  relevant above it in A (``+1/t`` each, ``t < j``); documents above ``i`` or
  below ``j`` are unchanged; the moved document contributes ``(c + 1) / i`` in A
  and ``(c + m + 1) / j`` in B (``c`` relevant above ``i``, ``m`` between). So
  ``A - B >= (c + 1)/i - (c + m + 1)/j + m/j = (c + 1)(1/i - 1/j) >= 0``.
* bpref (``m_bpref.c``): each relevant document adds
  ``1 - min(n, R) / min(N, R)``, non-increasing in ``n``, the judged nonrelevant
  above it; in A every relevant document has at most as many nonrelevant above
  it as in B (the moved one: ``n_i <= n_j`` before the swap, ``+1`` in B for
  ``i``), and ``R``, ``N`` are equal.

Repeated exchanges turn any ``r``-set into the first (last) ``r``, so the max
(min) over all assignments is the max (min) over ``r = 0..U`` of these two
rankings: both ends are exact, at a cost of ``U + 1`` evaluations.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pooltool.measures.holes.interval import Hole, Ranked, prepare
from pooltool.records import is_relevant

#: A measure of fully judged binary rankings: ``(relevant (rows, n), made relevant
#: (rows,)) -> values (rows,)``.
Measure = Callable[[np.ndarray, np.ndarray], np.ndarray]


def ap_hole(
    ranked: np.ndarray,
    qrels_grades: np.ndarray,
    max_grade: int,
    level: int = 1,
    k: int | None = None,
) -> Hole:
    """The hole of AP (``m_map.c``) or, with ``k``, of AP@k (``m_map_cut.c``).

    ``AP@k = (1 / num_rel) * sum over relevant ranks i <= k of (relevant in 1..i) / i``,
    0 when ``num_rel = 0``; without ``k`` every rank counts. The unjudged
    documents of the first ``k`` (without ``k``: of the whole ranked list) may
    be graded; each made relevant adds 1 to ``num_rel``.

    :param ranked: grades in trec_eval order, NaN unjudged; float ``(n,)``.
    :param qrels_grades: the topic's judged qrels grades; int ``(m,)``.
    :param max_grade: the highest grade an unjudged document can get.
    :param level: trec_eval ``-l``.
    :param k: ``map_cut``'s cutoff, or ``None`` for ``map``.
    :returns: a :class:`Hole` in 0..1, both ends exact (module docstring).
    :raises InvalidArgument: see :func:`~pooltool.measures.holes.interval.prepare`.
    """
    top = prepare(ranked, qrels_grades, level, max_grade, k)
    return _extremes(top, lambda relevant, made: _ap(relevant, top.num_rel + made))


def bpref_hole(
    ranked: np.ndarray, qrels_grades: np.ndarray, max_grade: int, level: int = 1
) -> Hole:
    """The hole of bpref (Buckley & Voorhees, SIGIR 2004; ``m_bpref.c``).

    ``bpref = (1 / R) * sum over relevant retrieved d of
    (1 - min(n_d, R) / min(N, R))`` (the term is 1 when ``n_d = 0``), ``n_d``
    the judged nonrelevant documents above ``d``, ``R = num_rel``, ``N`` the
    judged nonrelevant documents of the topic's qrels (grades ``0..level-1``);
    0 when ``R = 0``. Every unjudged document of the ranked list is graded:
    relevant adds to ``R``, nonrelevant to ``N`` and to ``n`` below it.

    bpref skips unjudged documents, so its value as judged now may lie
    outside this interval (grading an unjudged document 0 changes it).

    Parameters, result and errors as :func:`ap_hole` (no cutoff); both ends exact.
    """
    top = prepare(ranked, qrels_grades, level, max_grade)
    num_nonrel = int((~is_relevant(top.judged_grades, level)).sum()) + int(top.unjudged.sum())
    return _extremes(top, lambda relevant, made: _bpref(relevant, top.num_rel + made,
                                                        num_nonrel - made))


#: Rows x ranks of one block of rankings evaluated at once (memory, not speed).
_BLOCK = 1 << 21


def _extremes(top: Ranked, measure: Measure) -> Hole:
    """Min and max of ``measure`` over the first / last ``r`` unjudged made relevant,
    ``r = 0..U``, evaluated a block of rankings at a time."""
    order = np.cumsum(top.unjudged)  # 1-based order of each unjudged position
    count = int(order[-1]) if len(order) and top.can_relevant else 0
    rows = max(1, _BLOCK // max(len(order), 1))
    low, high = np.inf, -np.inf
    for start in range(0, count + 1, rows):
        made = np.arange(start, min(count + 1, start + rows))
        first = top.unjudged & (order[None, :] <= made[:, None])
        last = top.unjudged & (order[None, :] > count - made[:, None])
        high = max(high, float(measure(top.relevant | first, made).max()))
        low = min(low, float(measure(top.relevant | last, made).min()))
    return Hole(low, high)


def _ap(relevant: np.ndarray, num_rel: np.ndarray) -> np.ndarray:
    """AP of each row of a binary ranking matrix ``(rows, n)``, ``num_rel`` per row."""
    ranks = np.arange(1, relevant.shape[1] + 1, dtype=np.float64)
    total = (relevant * np.cumsum(relevant, axis=1) / ranks).sum(axis=1)
    return np.where(num_rel > 0, total / np.maximum(num_rel, 1), 0.0)


def _bpref(relevant: np.ndarray, num_rel: np.ndarray, num_nonrel: np.ndarray) -> np.ndarray:
    """bpref of each row of a fully judged binary ranking matrix ``(rows, n)``, as
    ``m_bpref.c`` adds it up; ``num_rel``, ``num_nonrel`` per row."""
    above = np.cumsum(~relevant, axis=1)  # at a relevant rank: the nonrelevant above it
    scale = np.maximum(np.minimum(num_nonrel, num_rel), 1)[:, None]  # above > 0: N >= 1
    capped = np.minimum(above, num_rel[:, None])
    terms = np.where(above > 0, 1.0 - capped / scale, 1.0)
    total = (relevant * terms).sum(axis=1)
    return np.where(num_rel > 0, total / np.maximum(num_rel, 1), 0.0)
