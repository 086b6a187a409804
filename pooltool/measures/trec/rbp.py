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

from pooltool.measures.trec.c_arith import seq_sum
from pooltool.measures.trec.gains import Pair, setup_gains
from pooltool.measures.trec.ranked import Options, Topic

DEFAULT_P = 0.9


def persistence(pairs: tuple[Pair, ...]) -> float:
    """The last ``p=`` parameter, else 0.9."""
    p = DEFAULT_P
    for name, value in pairs:
        if name == "p":
            p = value
    return p


def _weights(n: int, p: float) -> np.ndarray:
    """``p^i`` for i = 0 .. n (length n + 1), each the product of the one before and p."""
    weights = np.full(n + 1, p)
    weights[0] = 1.0
    return np.cumprod(weights)


def rbp(topic: Topic, pairs: tuple[Pair, ...], _options: Options) -> list[float]:
    """``rbp``."""
    p = persistence(pairs)
    gains = setup_gains(pairs, topic.rel_levels)
    values = [gain for _grade, gain, _count in gains.levels]
    low, high = min([0.0, *values]), max([0.0, *values])
    if low < 0 or high > 1:
        gains = gains.with_gains([(g - low) / (high - low) for g in values])
    results = gains.of(topic.rel)
    terms = results * _weights(len(results), p)[:-1]
    return [(1.0 - p) * seq_sum(np.where(results != 0, terms, 0.0))]


def rbp_residual(topic: Topic, pairs: tuple[Pair, ...], _options: Options) -> list[float]:
    """``rbp_resid``."""
    p = persistence(pairs)
    weights = _weights(topic.num_ret, p)
    unjudged = topic.rel < 0
    if not unjudged.any():
        return [0.0]
    return [float(weights[-1]) + (1 - p) * seq_sum(weights[:-1][unjudged])]
