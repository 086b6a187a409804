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

from pooltool.measures.trec.c_arith import seq_prefix, seq_sum
from pooltool.measures.trec.ranked import RELVALUE_NONPOOL, RELVALUE_UNJUDGED, Options, Topic

MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001


def _precisions(topic: Topic) -> np.ndarray:
    """``j / r_j`` at each relevant retrieved document (float64, in rank order)."""
    ranks = topic.rel_ranks
    return np.arange(1, len(ranks) + 1, dtype=np.float64) / ranks.astype(np.float64)


def average_precision(topic: Topic, _params: tuple[()], _options: Options) -> list[float]:
    """``map``'s per-topic value, AP."""
    if topic.num_rel_ret == 0:
        return [0.0]
    return [seq_sum(_precisions(topic)) / float(topic.num_rel)]


def log_average_precision(topic: Topic, _params: tuple[()], _options: Options) -> list[float]:
    """``gm_map``'s per-topic value, ``log(max(AP, 0.00001))``."""
    ap = average_precision(topic, (), _options)[0]
    return [math.log(max(ap, MIN_GEO_MEAN))]


def average_precision_cut(topic: Topic, cutoffs: tuple[int, ...], _options: Options
                          ) -> list[float]:
    """``map_cut_k`` per cutoff."""
    if topic.num_rel == 0:
        return [0.0] * len(cutoffs)
    partial = seq_prefix(_precisions(topic))
    found = topic.rel_within(np.array(cutoffs))
    return [float(partial[j]) / float(topic.num_rel) for j in found.tolist()]


def inferred_average_precision(topic: Topic, _params: tuple[()], _options: Options
                               ) -> list[float]:
    """``infAP``."""
    rel = topic.rel
    kept = rel != RELVALUE_NONPOOL
    pooled = np.flatnonzero(kept)
    codes = rel[pooled]
    unjudged = codes == RELVALUE_UNJUDGED
    nonrel = (codes >= 0) & (codes < topic.level)
    hit = ~unjudged & ~nonrel
    u: np.ndarray = (np.cumsum(unjudged) - unjudged)[hit]
    s: np.ndarray = (np.cumsum(nonrel) - nonrel)[hit]
    r = np.arange(1, int(hit.sum()) + 1, dtype=np.int64)
    j = pooled[hit].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((r - 1 + s + u) / j) * (
            (r - 1 + INFAP_EPSILON) / (r - 1 + s + 2 * INFAP_EPSILON))
    terms = np.where(j == 0, 1.0, terms)
    total = seq_sum(terms)
    if topic.num_rel:
        total /= topic.num_rel
    return [total]
