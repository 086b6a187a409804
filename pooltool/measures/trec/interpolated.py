"""Interpolated precision: ``iprec_at_recall`` and ``11pt_avg`` (``m_iprec_at_recall.c``,
``m_11pt_avg.c``).

The interpolated precision at recall point x is the highest precision at any rank
at or below the rank where ``c = lround(x * R)`` relevant documents have been
retrieved (``Int_Prec(X) = max Prec(Y), Y >= X``), including the precision at the
end of the run ``num_rel_ret / num_ret``; 0 when fewer than ``c`` relevant
documents are retrieved. At ``c = 0`` it is the value at the first relevant
document, or ``num_rel_ret / num_ret`` when there is none (NaN, printed ``-nan``,
when nothing at all is retrieved, as under ``-J`` for a topic the run lacks).
``11pt_avg`` is the mean of the values at its recall points (default 0, 0.1, ..., 1).
``lround`` rounds halves away from zero (trec_eval 10.0; 9.x added 0.9 and truncated).
"""

from __future__ import annotations

import numpy as np

from pooltool.measures.trec.c_arith import C_NAN, lround
from pooltool.measures.trec.ranked import Options, Ranked


def interpolated_precision(ranked: Ranked, points: tuple[float, ...], _options: Options
                           ) -> np.ndarray:
    """``iprec_at_recall_x`` per topic and recall point ``x`` (sorted), ``(T, X)``;
    computed once per batch (``11pt_avg`` reads the same values)."""
    key = ("iprec", points)
    if key not in ranked.cache:
        ranked.cache[key] = _interpolated(ranked, points)
    values: np.ndarray = ranked.cache[key]
    return values


def _interpolated(ranked: Ranked, points: tuple[float, ...]) -> np.ndarray:
    found, ret = ranked.num_rel_ret, ranked.num_ret
    with np.errstate(divide="ignore", invalid="ignore"):
        end = np.where(ret > 0, found / ret.astype(np.float64), C_NAN)
    # best[t, c - 1]: the highest precision at the c-th relevant document or below it
    best = np.maximum.accumulate(ranked.hits.matrix(ranked.precisions)[:, ::-1], axis=1)[:, ::-1]
    best = np.where(best > end[:, None], best, end[:, None])
    cut = lround(np.array(points, dtype=np.float64)[None, :] * ranked.num_rel[:, None])
    at = np.take_along_axis(best, np.clip(cut - 1, 0, best.shape[1] - 1), axis=1)
    values = np.where(cut > found[:, None], 0.0, at)
    return np.where((cut == 0) & (found[:, None] == 0), end[:, None], values)


def eleven_point_average(ranked: Ranked, points: tuple[float, ...], options: Options
                         ) -> np.ndarray:
    """``11pt_avg``: the mean of :func:`interpolated_precision` over ``points``
    (added from the highest point down, as the C loop does)."""
    values = interpolated_precision(ranked, points, options)
    total = np.zeros(len(ranked.topics))
    for column in values.T[::-1]:
        total = total + column
    return (total / float(len(points)))[:, None]
