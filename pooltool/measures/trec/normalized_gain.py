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

from pooltool.measures.trec.c_arith import log2_table, row_sums
from pooltool.measures.trec.gains import Pair, ranked_gains
from pooltool.measures.trec.ranked import Options, Ranked

MIN_COST = 1.0


def binary_gain(ranked: Ranked, _params: tuple[()], _options: Options) -> np.ndarray:
    """``binG`` (``(T, 1)``)."""
    above = (ranked.ranks - ranked.rel_count).astype(np.int64)  # 3 + i - rel_so_far, minus 2
    table = log2_table(ranked.width + 2)
    terms = np.where(ranked.relevant, 1.0 / table[above + 2], 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = row_sums(terms) / ranked.num_rel.astype(np.float64)
    return np.where(ranked.num_rel_ret > 0, values, 0.0)[:, None]


def gain(ranked: Ranked, pairs: tuple[Pair, ...], _options: Options) -> np.ndarray:
    """``G``."""
    results, table = ranked_gains(ranked, pairs)
    ideal = np.zeros_like(results)
    shared = min(ranked.width, table.ideal.shape[1])
    ideal[:, :shared] = table.ideal[:, :shared]
    cost = np.where(ideal >= MIN_COST, ideal, MIN_COST)  # 0 past the ideal ranking: MIN_COST
    hits = results != 0
    argument = 2 + np.cumsum(cost, axis=1) - np.cumsum(results, axis=1)
    logs = np.zeros_like(results)
    logs[hits] = [math.log2(v) for v in argument[hits].tolist()]  # libm's log2, as the C code
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(hits, results / logs, 0.0)
    total_ideal = row_sums(table.ideal)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total_ideal > 0.0, row_sums(terms) / total_ideal, 0.0)[:, None]
