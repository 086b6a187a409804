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

#: A measure of a fully judged binary ranking: ``(relevant (n,), made relevant) -> value``.
Measure = Callable[[np.ndarray, int], float]


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
    num_nonrel = int((~is_relevant(top.judged_grades, level)).sum())

    def bpref(relevant: np.ndarray, made: int) -> float:
        return _bpref(relevant, ~relevant, top.num_rel + made,
                      num_nonrel + int(top.unjudged.sum()) - made)

    return _extremes(top, bpref)


def _extremes(top: Ranked, measure: Measure) -> Hole:
    """Min and max of ``measure`` over the first / last ``r`` unjudged made relevant."""
    positions = np.flatnonzero(top.unjudged)
    count = len(positions) if top.can_relevant else 0
    lows: list[float] = []
    highs: list[float] = []
    for r in range(count + 1):
        for chosen, out in ((positions[:r], highs), (positions[len(positions) - r:], lows)):
            relevant = top.relevant.copy()
            relevant[chosen] = True
            out.append(measure(relevant, r))
    if not top.can_relevant:
        value = measure(top.relevant, 0)
        return Hole(value, value)
    return Hole(min(lows), max(highs))


def _ap(relevant: np.ndarray, num_rel: int) -> float:
    """AP of a binary ranking with ``num_rel`` relevant documents in the qrels."""
    if num_rel == 0:
        return 0.0
    ranks = np.flatnonzero(relevant) + 1.0
    return float((np.arange(1, len(ranks) + 1) / ranks).sum() / num_rel)


def _bpref(relevant: np.ndarray, nonrel: np.ndarray, num_rel: int, num_nonrel: int) -> float:
    """bpref of a ranking whose every document is judged, as ``m_bpref.c`` adds it up."""
    if num_rel == 0:
        return 0.0
    above = np.cumsum(nonrel)[relevant]  # nonrelevant above each relevant document
    scale = max(min(num_nonrel, num_rel), 1)  # above > 0 implies num_nonrel >= 1
    terms = np.where(above > 0, 1.0 - np.minimum(above, num_rel) / scale, 1.0)
    return float(terms.sum() / num_rel)
