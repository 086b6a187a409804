"""Normalised discounted cumulative gain: ``ndcg``, ``ndcg_cut``, ``ndcg_rel``, ``Rndcg``
(and ``dcg``, ``ideal_dcg``, outside ``all_trec``); ``m_ndcg.c``, ``m_ndcg_cut.c``,
``m_ndcg_rel.c``, ``m_Rndcg.c``. Jarvelin and Kekalainen, ACM TOIS 20, 2002.

With ``g_i`` the gain of the document at 0-based rank i (see
:mod:`pooltool.measures.trec.gains`; by default its grade, 0 for documents with no
judgment) and ``I_i`` the ideal ranking's gains:

* ``dcg = sum_i g_i / log2(i + 2)`` over every retrieved document;
  ``ideal_dcg`` the same over the ideal ranking (positive gains only);
* ``ndcg = dcg / ideal_dcg`` (0 when ideal_dcg = 0); the gains ignore ``-l``;
* ``ndcg_cut_k``: both sums over the first k ranks only; the gains are the grades
  themselves (grade > 0), and ``GRADE=GAIN`` parameters are not taken;
* ``ndcg_rel``: the mean, over the ideal ranking's positive-gain documents, of the
  ndcg at the rank of each retrieved one (the ndcg of the whole run for those not
  retrieved);
* ``Rndcg``: the mean of ndcg at the ranks where the ideal gain changes (the R
  levels), plus once at the end of the run if it lies past the ideal ranking.

Every sum runs left to right, each logarithm is libm's ``log2``, as in the C code.
"""

from __future__ import annotations

import numpy as np

from pooltool.measures.trec.c_arith import C_NAN, discounts, seq_prefix, seq_sum
from pooltool.measures.trec.gains import Pair, topic_gains
from pooltool.measures.trec.ranked import Options, Topic


def _dcg_terms(gains: np.ndarray) -> np.ndarray:
    """``g_i / log2(i + 2)`` per rank (0.0 where the gain is 0)."""
    return np.where(gains != 0, gains / discounts(len(gains)), 0.0)


def _sums(topic: Topic, pairs: tuple[Pair, ...]) -> tuple[float, float]:
    gains, results = topic_gains(topic, pairs)
    ideal, _after = gains.ideal()
    return seq_sum(_dcg_terms(results)), seq_sum(ideal / discounts(len(ideal)))


def ndcg(topic: Topic, pairs: tuple[Pair, ...], _options: Options) -> list[float]:
    """``ndcg``."""
    dcg, ideal = _sums(topic, pairs)
    return [dcg / ideal if ideal > 0.0 else 0.0]


def dcg(topic: Topic, pairs: tuple[Pair, ...], _options: Options) -> list[float]:
    """``dcg``."""
    return [_sums(topic, pairs)[0]]


def ideal_dcg(topic: Topic, pairs: tuple[Pair, ...], _options: Options) -> list[float]:
    """``ideal_dcg``."""
    return [_sums(topic, pairs)[1]]


def ndcg_cut(topic: Topic, cutoffs: tuple[int, ...], _options: Options) -> list[float]:
    """``ndcg_cut_k`` per cutoff."""
    grades = np.where(topic.rel > 0, topic.rel, 0).astype(np.float64)
    results = seq_prefix(_dcg_terms(grades))
    levels = topic.rel_levels
    ideal_gains = np.repeat(np.arange(len(levels) - 1, 0, -1, dtype=np.float64),
                            levels[:0:-1]) if len(levels) > 1 else np.zeros(0)
    ideal = seq_prefix(ideal_gains / discounts(len(ideal_gains)))
    values = []
    for k in cutoffs:
        value = float(results[min(k, len(results) - 1)])
        best = float(ideal[min(k, len(ideal) - 1)])
        values.append(value / best if best > 0.0 else value)
    return values


def ndcg_rel(topic: Topic, pairs: tuple[Pair, ...], _options: Options) -> list[float]:
    """``ndcg_rel``."""
    gains, results = topic_gains(topic, pairs)
    ideal, _after = gains.ideal()
    size = len(ideal)
    run_dcg = np.cumsum(_dcg_terms(results)) if len(results) else np.zeros(0)
    ideal_dcg_at = np.cumsum(ideal / discounts(size)) if size else np.zeros(0)
    hits = np.flatnonzero(results > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        best = (ideal_dcg_at[np.minimum(hits, size - 1)] if size
                else np.zeros(len(hits)))
        terms = run_dcg[hits] / best
    total = seq_sum(terms)
    final_dcg = float(run_dcg[-1]) if len(run_dcg) else 0.0
    final_ideal = float(ideal_dcg_at[-1]) if size else 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        total += float(np.float64(size - len(hits)) * final_dcg / np.float64(final_ideal))
    return [total / size if total > 0.0 else 0.0]


def r_ndcg(topic: Topic, pairs: tuple[Pair, ...], _options: Options) -> list[float]:
    """``Rndcg``."""
    if topic.num_rel == 0:
        return [0.0]
    gains, results = topic_gains(topic, pairs)
    ideal, after = gains.ideal()
    size, ret = len(ideal), topic.num_ret
    run = seq_prefix(_dcg_terms(results))  # run[i]: dcg of ranks 0..i-1
    best = seq_prefix(ideal / discounts(size))          # best[i]: ideal dcg of 0..i-1
    walk = np.append(ideal, after)                      # the ideal gain at ranks 0..size
    before = np.append(gains.initial, walk[:-1])
    changes = np.flatnonzero(walk != before)
    total, count = 0.0, 0
    for i in changes.tolist():  # a change at rank i: the ndcg of ranks 0..i-1
        if best[i] > 0.0:
            total += float(run[min(i, ret)]) / float(best[i])
            count += 1
    if ret > size + 1 and best[size] > 0.0:  # the implied change at the run's end
        total += float(run[ret]) / float(best[size])
        count += 1
    return [total / count if count else C_NAN]
