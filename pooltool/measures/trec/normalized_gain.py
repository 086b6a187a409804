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
from pooltool.measures.trec.gains import GainTable, Pair, ranked_gains
from pooltool.measures.trec.ranked import Options, Ranked

MIN_COST = 1.0


def binary_gain(ranked: Ranked, _params: tuple[()], _options: Options) -> np.ndarray:
    """``binG`` (``(T, 1)``)."""
    hits = ranked.hits
    above = hits.cols - hits.index  # 3 + i - rel_so_far, minus 2
    table = log2_table(ranked.width + 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = hits.sums(1.0 / table[above + 2]) / ranked.num_rel.astype(np.float64)
    return np.where(ranked.num_rel_ret > 0, values, 0.0)[:, None]


def gain(ranked: Ranked, pairs: tuple[Pair, ...], _options: Options) -> np.ndarray:
    """``G``."""
    cells, gains, table = ranked_gains(ranked, pairs)
    sum_cost = _cost_sums(ranked, table)[cells.rows, cells.cols]
    sum_results = cells.prefix(gains)[cells.rows, cells.index + 1]
    argument = 2 + sum_cost - sum_results
    terms = gains / _log2(argument)
    total_ideal = row_sums(table.ideal)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total_ideal > 0.0, cells.sums(terms) / total_ideal, 0.0)[:, None]


def _cost_sums(ranked: Ranked, table: GainTable) -> np.ndarray:
    """``C_i`` per cell: the running sums of ``max'(I_j)`` (float64, ``(T, W)``)."""
    ideal = np.zeros(ranked.rel.shape)
    shared = min(ranked.width, table.ideal.shape[1])
    ideal[:, :shared] = table.ideal[:, :shared]
    return np.cumsum(np.where(ideal >= MIN_COST, ideal, MIN_COST), axis=1)


def _log2(values: np.ndarray) -> np.ndarray:
    """libm's ``log2`` of each value, as the C code takes it (a table of whole numbers
    when every value is one, the usual case with integer gains)."""
    whole = values.astype(np.int64)
    if len(values) and whole.min() >= 1 and (whole == values).all():
        return log2_table(int(whole.max()))[whole]
    return np.array([math.log2(v) for v in values.tolist()], dtype=np.float64)
