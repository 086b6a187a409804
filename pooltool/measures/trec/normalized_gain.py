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
from pooltool.measures.trec.gains import Pair, gain_table, ranked_gains
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
    sum_cost = _cost_sums(ranked, pairs)[ranked.positions[cells.rows], cells.cols]
    sum_results = cells.prefix(gains)[cells.rows, cells.index + 1]
    argument = 2 + sum_cost - sum_results
    terms = gains / _log2(argument)
    total_ideal = row_sums(table.ideal)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total_ideal > 0.0, cells.sums(terms) / total_ideal, 0.0)[:, None]


def _cost_sums(ranked: Ranked, pairs: tuple[Pair, ...]) -> np.ndarray:
    """``C_i`` of every qrels topic: the running sums of ``max'(I_j)`` over at least
    ``W`` ranks (float64, ``(Q, >= W)``); the same for every run, so kept in the qrels' cache
    and rebuilt only for a wider run."""
    key = f"G cost {pairs!r}"
    sums: np.ndarray | None = ranked.qrels.cache.get(key)
    if sums is None or sums.shape[1] < ranked.width:
        table = gain_table(ranked.qrels, pairs)
        ideal = np.zeros((len(table.ideal), max(ranked.width, table.ideal.shape[1])))
        ideal[:, :table.ideal.shape[1]] = table.ideal
        sums = np.cumsum(np.where(ideal >= MIN_COST, ideal, MIN_COST), axis=1)
        ranked.qrels.cache[key] = sums
    return sums


def _log2(values: np.ndarray) -> np.ndarray:
    """libm's ``log2`` of each value, as the C code takes it (a table of whole numbers
    when every value is one, the usual case with integer gains)."""
    whole = values.astype(np.int64)
    if len(values) and whole.min() >= 1 and (whole == values).all():
        return log2_table(int(whole.max()))[whole]
    return np.array([math.log2(v) for v in values.tolist()], dtype=np.float64)
