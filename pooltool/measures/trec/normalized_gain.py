"""Gain measures: ``G`` and ``binG`` (``m_G.c``, ``m_binG.c``; experimental in trec_eval).

* ``binG = sum over relevant retrieved documents of 1 / log2(2 + s) / R``, with s the
  non-relevant (or unjudged) documents ranked above it; 0 when none is retrieved;
* ``G``: with ``g_i`` the gain at rank i (see :mod:`pooltool.measures.trec.gains`),
  ``S_i = sum_{j<=i} g_j`` and ``C_i = sum_{j<=i} max'(I_j)`` where ``I_j`` is the
  ideal ranking's gain (0 past it) and ``max'(x) = x`` when ``x >= 1`` else 1,
  ``G = sum_i g_i / log2(2 + C_i - S_i)`` over documents with ``g_i != 0``, divided by
  the ideal ranking's total gain (0 when that is 0).
"""

from __future__ import annotations

import math

import numpy as np

from pooltool.measures.trec.c_arith import log2_table, seq_sum
from pooltool.measures.trec.gains import Pair, topic_gains
from pooltool.measures.trec.ranked import Options, Topic

MIN_COST = 1.0


def binary_gain(topic: Topic, _params: tuple[()], _options: Options) -> list[float]:
    """``binG``."""
    ranks = topic.rel_ranks
    if not len(ranks):
        return [0.0]
    above = ranks - np.arange(1, len(ranks) + 1)  # 3 + i - rel_so_far, minus 2
    table = log2_table(int(above.max()) + 2)
    return [seq_sum(1.0 / table[above + 2]) / float(topic.num_rel)]


def gain(topic: Topic, pairs: tuple[Pair, ...], _options: Options) -> list[float]:
    """``G``."""
    gains, results = topic_gains(topic, pairs)
    ideal, _after = gains.ideal()
    n = len(results)
    cost = np.full(n, MIN_COST)
    shared = min(n, len(ideal))
    cost[:shared] = np.where(ideal[:shared] >= MIN_COST, ideal[:shared], MIN_COST)
    sum_results = np.cumsum(results)
    sum_cost = np.cumsum(cost)
    hits = np.flatnonzero(results != 0)
    terms = [float(results[i]) / math.log2(2 + float(sum_cost[i]) - float(sum_results[i]))
             for i in hits.tolist()]
    total_ideal = seq_sum(ideal)
    return [seq_sum(np.array(terms)) / total_ideal if total_ideal > 0.0 else 0.0]
