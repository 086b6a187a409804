"""Holes of the counting measures: P@k, Recall@k, success@k, judged@k, RR and R-prec.

Inputs as in :mod:`pooltool.measures.holes.interval`. Each bound here is exact
(reached by an assignment named in its docstring). ``U_k`` is the number of
unjudged documents among the first ``k``, ``R_k`` the judged relevant ones;
when ``max_grade < level`` no assignment makes a document relevant and the
interval is one point.
"""

from __future__ import annotations

import numpy as np

from pooltool.errors import InvalidArgument
from pooltool.measures.holes.interval import Hole, Ranked, prepare, ratio


def precision_hole(
    ranked: np.ndarray, qrels_grades: np.ndarray, k: int, max_grade: int, level: int = 1
) -> Hole:
    """The hole of P@k (``m_P.c``): ``P@k = R_k / k``, missing ranks not relevant.

    :param ranked: grades in trec_eval order, NaN unjudged; float ``(n,)``.
    :param qrels_grades: the topic's judged qrels grades; int ``(m,)`` (unused
        by P@k, taken for one signature across measures).
    :param k: the cutoff, >= 1.
    :param max_grade: the highest grade an unjudged document can get.
    :param level: trec_eval ``-l``: grades ``>= level`` are relevant.
    :returns: ``[R_k / k, (R_k + U_k) / k]``, both exact (every unjudged
        top-``k`` document graded 0, resp. ``max_grade``); fractions 0..1.
    :raises InvalidArgument: see :func:`~pooltool.measures.holes.interval.prepare`.
    """
    top = prepare(ranked, qrels_grades, level, max_grade, k)
    rel, unj = _counts(top)
    return Hole(rel / k, (rel + unj) / k)


def recall_hole(
    ranked: np.ndarray, qrels_grades: np.ndarray, k: int, max_grade: int, level: int = 1
) -> Hole:
    """The hole of Recall@k (``m_recall.c``): ``R_k / num_rel``, 0 when ``num_rel = 0``.

    The high end is pooltool's ``recall_upper@k``
    (:mod:`pooltool.measures.per_topic`): ``(R_k + U_k) / (num_rel + U_k)``,
    each unjudged top-``k`` document judged relevant, which also adds it to
    ``num_rel``; ``(R + r) / (num_rel + r)`` rises with ``r`` since
    ``R <= num_rel``. The low end grades them all 0: ``R_k / num_rel``, and no
    assignment goes lower (``(R + r) / (N + r) >= R / N``). Both exact.

    Parameters, result and errors as :func:`precision_hole`.
    """
    top = prepare(ranked, qrels_grades, level, max_grade, k)
    rel, unj = _counts(top)
    return Hole(ratio(rel, top.num_rel), ratio(rel + unj, top.num_rel + unj))


def success_hole(
    ranked: np.ndarray, qrels_grades: np.ndarray, k: int, max_grade: int, level: int = 1
) -> Hole:
    """The hole of success@k (``m_success.c``): 1 when a relevant document is in the first ``k``.

    :returns: low 1 if ``R_k > 0`` else 0 (all unjudged graded 0); high 1 if
        ``R_k + U_k > 0`` (one graded ``max_grade >= level``) else 0. Exact.

    Parameters and errors as :func:`precision_hole`.
    """
    top = prepare(ranked, qrels_grades, level, max_grade, k)
    rel, unj = _counts(top)
    return Hole(float(rel > 0), float(rel + unj > 0))


def judged_hole(ranked: np.ndarray, k: int) -> Hole:
    """The hole of judged@k (ir_measures 0.4.3 ``Judged@k``): ``J_k / min(k, num_ret)``.

    Under every full assignment judged@k is 1, so this one interval is over
    *partial* judging: any subset of the unjudged top-``k`` documents judged.

    :param ranked: grades in trec_eval order, NaN unjudged; float ``(n,)``.
        Pass a document with a negative qrels grade as a number (ir_measures
        counts any qrels line as judged), or NaN to count it unjudged.
    :param k: the cutoff, >= 1.
    :returns: ``[J_k / min(k, n), 1]`` (none judged, resp. all judged), both
        exact; ``[0, 0]`` when nothing was retrieved.
    :raises InvalidArgument: ``k < 1``.
    """
    if k < 1:
        raise InvalidArgument(f"the cutoff k must be at least 1, not {k}")
    top = np.asarray(ranked, dtype=np.float64)[:k]
    judged = int((~np.isnan(top)).sum())
    return Hole(ratio(judged, len(top)), float(len(top) > 0))


def _counts(top: Ranked) -> tuple[int, int]:
    """``(R, U)``: judged relevant and assignable unjudged documents (0 if none can be relevant)."""
    return int(top.relevant.sum()), int(top.unjudged.sum()) if top.can_relevant else 0


def reciprocal_rank_hole(
    ranked: np.ndarray, qrels_grades: np.ndarray, max_grade: int, level: int = 1
) -> Hole:
    """The hole of RR (``m_recip_rank.c``): ``1 / rank`` of the first relevant document, 0 if none.

    Every unjudged document of the ranked list may be graded. Low: all graded
    0, ``1 / rank`` of the first judged relevant one; high: the first unjudged
    one graded ``max_grade``, ``1 / min(first relevant, first unjudged)``. Exact.

    :param ranked: grades in trec_eval order, NaN unjudged; float ``(n,)``.
    :param qrels_grades: the topic's judged qrels grades; int ``(m,)``.
    :param max_grade: the highest grade an unjudged document can get.
    :param level: trec_eval ``-l``.
    :returns: a :class:`Hole` with values in 0..1.
    :raises InvalidArgument: see :func:`~pooltool.measures.holes.interval.prepare`.
    """
    top = prepare(ranked, qrels_grades, level, max_grade)
    best = top.relevant | (top.unjudged & top.can_relevant)
    return Hole(_first_reciprocal(top.relevant), _first_reciprocal(best))


def _first_reciprocal(hits: np.ndarray) -> float:
    """``1 / (1 + index of the first True)``, 0 when there is none."""
    where = np.flatnonzero(hits)
    return 1.0 / float(where[0] + 1) if where.size else 0.0


def rprec_hole(
    ranked: np.ndarray, qrels_grades: np.ndarray, max_grade: int, level: int = 1
) -> Hole:
    """The hole of R-precision (``m_Rprec.c``): relevant among the first ``R`` over ``R``,
    ``R = num_rel``, 0 when ``R = 0``.

    Every unjudged document of the ranked list may be graded. With ``r`` of
    them made relevant, ``R = num_rel + r`` and only where they stand matters:
    the first ``r`` unjudged documents give the most relevant ones in the first
    ``R`` (``min(r, U(R))``, ``U(m)`` the unjudged among the first ``m``), the
    last ``r`` the fewest (``max(0, r - (U - U(R)))``). Both ends are the max
    and min over ``r = 0..U`` of these, so both are exact.

    Parameters, result and errors as :func:`reciprocal_rank_hole`.
    """
    top = prepare(ranked, qrels_grades, level, max_grade)
    total = int(top.unjudged.sum()) if top.can_relevant else 0
    r = np.arange(total + 1)
    depth = top.num_rel + r
    rel_upto = np.concatenate([[0], np.cumsum(top.relevant)])
    unj_upto = np.concatenate([[0], np.cumsum(top.unjudged)])
    at = np.minimum(depth, len(top.relevant))
    judged_rel, unj_in = rel_upto[at], unj_upto[at]
    with np.errstate(invalid="ignore", divide="ignore"):
        high = np.where(depth > 0, (judged_rel + np.minimum(r, unj_in)) / depth, 0.0)
        low = np.where(depth > 0,
                       (judged_rel + np.maximum(0, r - (total - unj_in))) / depth, 0.0)
    return Hole(float(low.min()), float(high.max()))
