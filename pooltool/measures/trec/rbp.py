"""Rank-biased precision: ``rbp`` and ``rbp_resid`` (``m_rbp.c``, ``m_rbp_resid.c``).

Moffat and Zobel, ACM TOIS 27(1), 2008. With persistence p (parameter ``p``,
default 0.9; ``-m rbp.p=0.8``) and gains ``g_i`` (by default the grade, see
:mod:`pooltool.measures.trec.gains`) scaled to 0..1 when any lies outside it
(``(g - min) / (max - min)``, min and max taken with 0):

* ``rbp = (1 - p) sum_i g_i p^i`` over the retrieved documents (0-based rank i);
* ``rbp_resid = p^n + (1 - p) sum_{i unjudged} p^i``: the most judging the
  unjudged documents (no qrels line, or a negative grade) and every document past
  the end of the run could add; 0 when no retrieved document is unjudged (trec_eval's
  definition, not the full residual of Moffat and Zobel).

ir_measures' ``RBP(p=0.8)`` defaults to p = 0.8 and binary relevance (``rel=1``);
``RBP(p=..)`` maps here to ``rbp.p=..``, whose gains are trec_eval's graded ones.
"""

from __future__ import annotations

import numpy as np

from pooltool.measures.trec.c_arith import row_sums
from pooltool.measures.trec.gains import Gains, Pair, ranked_gains
from pooltool.measures.trec.ranked import Options, Ranked

DEFAULT_P = 0.9


def persistence(pairs: tuple[Pair, ...]) -> float:
    """The last ``p=`` parameter, else 0.9."""
    p = DEFAULT_P
    for name, value in pairs:
        if name == "p":
            p = value
    return p


def scaled(gains: Gains) -> Gains:
    """The gains scaled into 0..1 when any lies outside it: ``(g - min) / (max - min)``,
    min and max taken with 0."""
    values = [gain for _grade, gain, _count in gains.levels]
    low, high = min([0.0, *values]), max([0.0, *values])
    if low < 0 or high > 1:
        return gains.with_gains([(g - low) / (high - low) for g in values])
    return gains


def _weights(n: int, p: float) -> np.ndarray:
    """``p^i`` for i = 0 .. n (length n + 1), each the product of the one before and p."""
    weights = np.full(n + 1, p)
    weights[0] = 1.0
    return np.cumprod(weights)


def rbp(ranked: Ranked, pairs: tuple[Pair, ...], _options: Options) -> np.ndarray:
    """``rbp`` (``(T, 1)``)."""
    p = persistence(pairs)
    cells, gains, _table = ranked_gains(ranked, pairs, scaled)
    return ((1.0 - p) * cells.sums(gains * _weights(ranked.width, p)[cells.cols]))[:, None]


def rbp_residual(ranked: Ranked, pairs: tuple[Pair, ...], _options: Options) -> np.ndarray:
    """``rbp_resid``."""
    p = persistence(pairs)
    weights = _weights(ranked.width, p)
    unjudged = ranked.unjudged
    values = weights[ranked.num_ret] + (1 - p) * row_sums(np.where(unjudged, weights[:-1], 0.0))
    return np.where(unjudged.any(axis=1), values, 0.0)[:, None]
