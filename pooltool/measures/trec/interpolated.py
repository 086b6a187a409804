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
from pooltool.measures.trec.ranked import Options, Topic


def interpolated_precision(topic: Topic, points: tuple[float, ...], _options: Options
                           ) -> list[float]:
    """``iprec_at_recall_x`` per recall point ``x`` (sorted)."""
    found, ret = topic.num_rel_ret, topic.num_ret
    end = float(found) / float(ret) if ret else C_NAN
    ranks = topic.rel_ranks
    precisions = np.arange(1, found + 1, dtype=np.float64) / ranks.astype(np.float64)
    best = np.maximum.accumulate(precisions[::-1])[::-1] if found else precisions
    if found:
        best = np.where(best > end, best, end) if ret else best
    values = []
    for x in points:
        cut = lround(x * topic.num_rel)
        if cut > found:
            values.append(0.0)
        elif cut == 0:
            values.append(float(best[0]) if found else end)
        else:
            values.append(float(best[cut - 1]))
    return values


def eleven_point_average(topic: Topic, points: tuple[float, ...], options: Options
                         ) -> list[float]:
    """``11pt_avg``: the mean of :func:`interpolated_precision` over ``points``
    (added from the highest point down, as the C loop does)."""
    total = 0.0
    for value in reversed(interpolated_precision(topic, points, options)):
        total += value
    return [total / float(len(points))]
