"""Average precision: ``map``, ``gm_map``, ``map_cut``, ``infAP`` (``m_map.c``,
``m_gm_map.c``, ``m_map_cut.c``, ``m_infap.c``).

With ``r_j`` the rank of the j-th relevant retrieved document and R = num_rel:

* ``map`` (per topic: AP) ``= sum_j (j / r_j) / R``, 0 when nothing relevant is
  retrieved; the sum runs left to right as in the C loop;
* ``map_cut_k``: the same sum over ``r_j <= k`` only, over R (0 when R = 0);
* ``gm_map``: per topic ``log(max(AP, 0.00001))``; the ``all`` line is
  ``exp(mean of the logs)`` (``te_calc_avg_meas_s_gm``), printed only there;
* ``infAP`` (Yilmaz and Aslam, CIKM 2006): documents with no qrels line are skipped
  and those with a negative grade (pooled, not judged) counted as ``u``; at the
  relevant document at 0-based position ``j > 0``, with ``r`` relevant (itself
  included), ``s`` judged non-relevant and ``u`` such documents above it, it adds
  ``1/(j+1) + (j/(j+1)) * ((r-1+s+u)/j) * ((r-1+e)/(r-1+s+2e))``, ``e = 0.00001``, and
  1 at ``j = 0``; the sum is over R.
"""

from __future__ import annotations

import math

import numpy as np

from pooltool.measures.trec.ranked import RELVALUE_UNJUDGED, Cells, Options, Ranked

MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001


def average_precision(ranked: Ranked, _params: tuple[()], _options: Options) -> np.ndarray:
    """``map``'s per-topic value, AP (``(T, 1)``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        values = ranked.hits.sums(ranked.precisions) / ranked.num_rel.astype(np.float64)
    return np.where(ranked.num_rel_ret > 0, values, 0.0)[:, None]


def log_average_precision(ranked: Ranked, _params: tuple[()], options: Options) -> np.ndarray:
    """``gm_map``'s per-topic value, ``log(max(AP, 0.00001))`` (libm's ``log``)."""
    return geometric_logs(average_precision(ranked, (), options))


def geometric_logs(values: np.ndarray) -> np.ndarray:
    """``log(max(v, 0.00001))`` of each value, with the C library's ``log``."""
    return np.array([[math.log(max(v, MIN_GEO_MEAN))] for v in values[:, 0].tolist()],
                    dtype=np.float64).reshape(-1, 1)


def average_precision_cut(ranked: Ranked, cutoffs: tuple[int, ...], _options: Options
                          ) -> np.ndarray:
    """``map_cut_k`` per topic and cutoff."""
    partial = ranked.hits.prefix(ranked.precisions)
    found = ranked.rel_within(np.array(cutoffs, dtype=np.int64))
    big_r = ranked.num_rel[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.take_along_axis(partial, found, axis=1) / big_r.astype(np.float64)
    return np.where(big_r > 0, values, 0.0)


def inferred_average_precision(ranked: Ranked, _params: tuple[()], _options: Options
                               ) -> np.ndarray:
    """``infAP``."""
    hits = ranked.hits
    # at a relevant document: r relevant (itself included), s judged non-relevant and u
    # pooled-unjudged (negative grade) documents above it
    r = hits.index + 1
    s = hits.nonrel_above(ranked)
    u = Cells.of(ranked.rel == RELVALUE_UNJUDGED).count_before(hits)
    j = hits.cols.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((r - 1 + s + u) / j) * (
            (r - 1 + INFAP_EPSILON) / (r - 1 + s + 2 * INFAP_EPSILON))
    total = hits.sums(np.where(j == 0, 1.0, terms))
    big_r = ranked.num_rel
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(big_r > 0, total / big_r, total)[:, None]
