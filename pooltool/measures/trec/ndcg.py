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

from pooltool.measures.trec.c_arith import C_NAN, discounts, row_prefix, row_sums
from pooltool.measures.trec.gains import GainTable, Pair, ranked_gains
from pooltool.measures.trec.ranked import Cells, Options, Ranked, level_matrix


def _dcg_terms(cells: Cells, gains: np.ndarray) -> np.ndarray:
    """``g_i / log2(i + 2)`` per cell with a gain."""
    return gains / discounts(cells.width)[cells.cols]


def _ideal_terms(table: GainTable) -> np.ndarray:
    """The ideal ranking's ``I_i / log2(i + 2)`` (0.0 past it), ``(T, L)``."""
    return table.ideal / discounts(table.ideal.shape[1])


def _sums(ranked: Ranked, pairs: tuple[Pair, ...]) -> tuple[np.ndarray, np.ndarray]:
    cells, gains, table = ranked_gains(ranked, pairs)
    return cells.sums(_dcg_terms(cells, gains)), row_sums(_ideal_terms(table))


def ndcg(ranked: Ranked, pairs: tuple[Pair, ...], _options: Options) -> np.ndarray:
    """``ndcg`` (``(T, 1)``)."""
    dcg_sum, ideal = _sums(ranked, pairs)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ideal > 0.0, dcg_sum / ideal, 0.0)[:, None]


def dcg(ranked: Ranked, pairs: tuple[Pair, ...], _options: Options) -> np.ndarray:
    """``dcg``."""
    return _sums(ranked, pairs)[0][:, None]


def ideal_dcg(ranked: Ranked, pairs: tuple[Pair, ...], _options: Options) -> np.ndarray:
    """``ideal_dcg``."""
    return _sums(ranked, pairs)[1][:, None]


def ndcg_cut(ranked: Ranked, cutoffs: tuple[int, ...], _options: Options) -> np.ndarray:
    """``ndcg_cut_k`` per topic and cutoff."""
    cells = Cells.of(ranked.rel > 0)
    grades = ranked.rel[cells.rows, cells.cols].astype(np.float64)
    ks = np.array(cutoffs, dtype=np.int64)
    value = np.take_along_axis(cells.prefix(_dcg_terms(cells, grades)), cells.within(ks), axis=1)
    ideal = row_prefix(_ideal_terms(_grade_ideal(ranked)))
    best = ideal[:, np.minimum(ks, ideal.shape[1] - 1)]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(best > 0.0, value / best, value)


def _grade_ideal(ranked: Ranked) -> GainTable:
    """ndcg_cut's ideal ranking: the judged grades > 0, highest first (gains ignored)."""
    key = "grade_ideal"
    if key not in ranked.qrels.cache:
        matrix = level_matrix(ranked.qrels)[0]
        size = matrix[:, 1:].sum(axis=1)
        ideal = np.zeros((len(matrix), max(1, int(size.max(initial=0)))), dtype=np.float64)
        for row, counts in enumerate(matrix):
            run = np.repeat(np.arange(len(counts) - 1, 0, -1, dtype=np.float64), counts[:0:-1])
            ideal[row, :len(run)] = run
        empty = np.zeros(len(matrix))
        ranked.qrels.cache[key] = GainTable(np.zeros((len(matrix), 0)), ideal, size, empty, empty)
    table: GainTable = ranked.qrels.cache[key]
    return GainTable(table.by_code, table.ideal[ranked.positions], table.size[ranked.positions],
                     table.after, table.initial)


def ndcg_rel(ranked: Ranked, pairs: tuple[Pair, ...], _options: Options) -> np.ndarray:
    """``ndcg_rel``."""
    cells, gains, table = ranked_gains(ranked, pairs)
    size = table.size
    run_dcg = cells.prefix(_dcg_terms(cells, gains))
    ideal_dcg_at = np.cumsum(_ideal_terms(table), axis=1)
    hits = gains > 0
    rows = cells.rows
    best = np.where(size[rows] > 0, ideal_dcg_at[rows, np.minimum(cells.cols, ideal_dcg_at.shape[1] - 1)],
                    0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(hits, run_dcg[rows, cells.index + 1] / best, 0.0)
    total = cells.sums(terms)
    final_dcg = run_dcg[:, -1]
    final_ideal = ideal_dcg_at[:, -1]
    found = np.bincount(rows[hits], minlength=len(size))
    with np.errstate(divide="ignore", invalid="ignore"):
        total = total + (size - found).astype(np.float64) * final_dcg / final_ideal
        return np.where(total > 0.0, total / size, 0.0)[:, None]


def r_ndcg(ranked: Ranked, pairs: tuple[Pair, ...], _options: Options) -> np.ndarray:
    """``Rndcg``."""
    cells, gains, table = ranked_gains(ranked, pairs)
    size, ret = table.size, ranked.num_ret
    run = cells.prefix(_dcg_terms(cells, gains))  # run at cells.within(i): dcg of ranks 0..i-1
    best = row_prefix(_ideal_terms(table))  # best[t, i]: ideal dcg of 0..i-1
    steps = np.arange(best.shape[1])
    inside = steps[None, :] <= size[:, None]
    # walk[t, i]: the ideal gain at rank i (after the ideal ranking: table.after)
    walk = np.append(table.ideal, np.zeros((len(size), 1)), axis=1)
    np.put_along_axis(walk, size[:, None], table.after[:, None], axis=1)
    before = np.concatenate((table.initial[:, None], walk[:, :-1]), axis=1)
    change = inside & (walk != before) & (best > 0.0)
    at = np.take_along_axis(run, cells.within(np.minimum(steps[None, :], ret[:, None])), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        total = row_sums(np.where(change, at / best, 0.0))
    count = change.sum(axis=1)
    best_end = np.take_along_axis(best, size[:, None], axis=1)[:, 0]
    end = (ret > size + 1) & (best_end > 0.0)  # the implied change at the run's end
    run_end = run[:, -1]
    with np.errstate(divide="ignore", invalid="ignore"):
        total = np.where(end, total + run_end / best_end, total)
        values = np.where(count + end > 0, total / (count + end), C_NAN)
    return np.where(ranked.num_rel > 0, values, 0.0)[:, None]
