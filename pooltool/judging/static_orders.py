"""The static strategies' orders of one topic's documents (they never depend on the
judgments): depth, rundepth, round robin, and the fusions rrf, borda, combsum and rbp
(the catalogue, with the sources, is :mod:`pooltool.judging.strategies`' docstring).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from pooltool.judging.choosers import RankedRun, topic_documents

# --- static orders -------------------------------------------------------------------


def depth_order(runs: Sequence[RankedRun], k: int) -> list[str]:
    """The union of the runs' first ``k`` documents in docno order (ascending)."""
    return sorted({docno for run in runs for docno in run.docnos[:k]})


def run_depth_order(runs: Sequence[RankedRun], params: dict[str, float]) -> list[str]:
    """Per-run depths and priority runs (``rundepth``; see the module docstring)."""
    depth = {run.tag: int(params.get(f"k.{run.tag}", params["k"])) for run in runs}
    first = {docno for run in runs if params.get(f"first.{run.tag}", 0)
             for docno in run.docnos[:depth[run.tag]]}
    pooled = {docno for run in runs for docno in run.docnos[:depth[run.tag]]}
    return sorted(first) + sorted(pooled - first)


def round_robin_order(runs: Sequence[RankedRun], limit: int | None = None) -> list[str]:
    """Take@N: rank by rank, runs in the order given, each document at its first appearance;
    with ``limit``, only the first ``limit`` documents of that order."""
    if not runs:
        return []
    if limit is not None:
        return _round_robin_prefix(runs, limit)
    docnos = [d for run in runs for d in run.docnos]
    ranks = np.concatenate([np.arange(len(run.docnos)) for run in runs])
    which = np.concatenate([np.full(len(run.docnos), i) for i, run in enumerate(runs)])
    order = np.lexsort((which, ranks))
    return list(dict.fromkeys(docnos[i] for i in order.tolist()))


def _round_robin_prefix(runs: Sequence[RankedRun], limit: int) -> list[str]:
    """:func:`round_robin_order`'s first ``limit`` documents, walked rank by rank."""
    taken: dict[str, None] = {}
    for rank in range(max(len(run.docnos) for run in runs)):
        for run in runs:
            if rank < len(run.docnos):
                taken.setdefault(run.docnos[rank])
                if len(taken) == limit:
                    return list(taken)
    return list(taken)


def fused_order(runs: Sequence[RankedRun],
                weights: Callable[[RankedRun], Sequence[float] | np.ndarray],
                limit: int | None = None) -> list[str]:
    """Documents by the sum over runs of their weight in the run, largest first, ties in
    docno order; ``weights(run)`` gives the weight of each of its documents, best first.

    Each document's terms are added in increasing order, so the same terms in any run
    order give the same sum and documents with equal terms tie exactly. Only the
    documents that tie are sorted by docno (sorting every docno string was most of
    the time of a fusion).

    :param limit: give only the first ``limit`` documents of the order (a simulation
        judges no more of a topic): only the documents that can be among them are
        summed in that order (:func:`_may_lead`); ``None``: every document.
    :returns: docnos, best first.
    """
    codes, uniques = topic_documents(tuple(runs))
    if not len(codes):
        return []
    terms = np.concatenate([np.asarray(weights(run), dtype=np.float64) for run in runs])
    if limit is not None and limit < len(uniques):
        lines = _may_lead(codes, terms, len(uniques), limit)
        codes, terms = codes[lines], terms[lines]
    order = np.lexsort((terms, codes))
    starts = np.flatnonzero(np.r_[True, codes[order][1:] != codes[order][:-1]])
    totals = np.add.reduceat(terms[order], starts)
    documents = codes[order][starts]  # each total's document code
    by_total = np.argsort(-totals, kind="stable")
    sorted_totals = totals[by_total]
    tie = np.r_[False, sorted_totals[1:] == sorted_totals[:-1]]
    tied = by_total[tie | np.r_[tie[1:], False]]  # every document sharing its total
    docno_rank = np.zeros(len(totals), dtype=np.int64)  # alone in its total: no tie-break
    docno_rank[tied[np.argsort(uniques[documents[tied]])]] = np.arange(len(tied))
    ranked = documents[np.lexsort((docno_rank, -totals))][:limit]
    return [str(d) for d in uniques[ranked]]


def _may_lead(codes: np.ndarray, terms: np.ndarray, documents: int, limit: int) -> np.ndarray:
    """The lines of the documents whose sum may be among the ``limit`` largest.

    Each document's sum is first taken in line order (``np.bincount``). Any order of
    adding m terms is within (m - 1) u S of their exact sum (u the unit roundoff, S the
    sum of the terms' magnitudes; Higham, 'Accuracy and Stability of Numerical
    Algorithms', 2002, eq. 4.4), so two orders of one document differ by at most
    delta = 2 (m - 1) u S. With a the ``limit``-th largest first sum, ``limit``
    documents sum to at least a - delta in the increasing order; a document whose first
    sum is below a - 2 delta sums to less than that, below ``limit`` others, and cannot
    lead. ``delta`` is taken over every document (largest m and S) with room to spare:
    4 m eps S, eps = 2 u.

    :returns: positions of the lines kept, increasing.
    """
    first = np.bincount(codes, weights=terms, minlength=documents)
    most = int(np.bincount(codes, minlength=documents).max())
    size = float(np.bincount(codes, weights=np.abs(terms), minlength=documents).max())
    delta = 4 * most * np.finfo(np.float64).eps * size
    bar = np.partition(first, documents - limit)[documents - limit]
    return np.flatnonzero(first[codes] >= bar - 2 * delta)


def borda_order(runs: Sequence[RankedRun], limit: int | None = None) -> list[str]:
    """Borda count (Aslam and Montague 2001); see the module docstring.

    A document's points are the sum over all runs of the share a run gives each
    document it lacks, which is the same for every document, plus for each run
    that retrieves it its points there minus that share; the order needs only
    the second part.
    """
    c = len(topic_documents(tuple(runs))[1])  # the documents any run retrieves

    def weights(run: RankedRun) -> np.ndarray:
        share = (c - len(run.docnos) + 1) / 2
        return (c + 1 - np.arange(1, len(run.docnos) + 1)) - share

    return fused_order(runs, weights, limit)


def min_max(run: RankedRun) -> np.ndarray:
    """The run's scores min-max normalised to 0..1 (all 1 when they are all equal);
    float64, shape ``(len(run.scores),)``."""
    scores = np.asarray(run.scores, dtype=np.float64)
    low, high = min(run.scores, default=0.0), max(run.scores, default=0.0)
    return np.ones(len(scores)) if high == low else (scores - low) / (high - low)


def rrf_weights(k: float) -> Callable[[RankedRun], np.ndarray]:
    """Reciprocal rank fusion: 1 / (k + rank) for ranks 1, 2, ... (float64 arrays, read
    only)."""
    return lambda run: _rrf_terms(k, len(run.docnos))


@lru_cache(maxsize=16)
def _rrf_terms(k: float, n: int) -> np.ndarray:
    """1 / (k + rank) for ranks 1..n, kept per (k, n): most runs of a topic are as long."""
    terms = 1 / (k + np.arange(1, n + 1))
    terms.flags.writeable = False
    return terms


def rbp_weights(p: float) -> Callable[[RankedRun], np.ndarray]:
    """Rank-biased precision weights: (1 - p) p^(rank - 1) for ranks 1, 2, ..."""
    return lambda run: _rbp_terms(p, len(run.docnos))


@lru_cache(maxsize=16)
def _rbp_terms(p: float, n: int) -> np.ndarray:
    """(1 - p) p^(rank - 1) for ranks 1..n, with Python's ``**`` (numpy's vectorised
    power may differ in the last bit), as a read-only float64 array; kept per (p, n):
    most runs of a topic are as long."""
    terms = np.array([(1 - p) * p ** (rank - 1) for rank in range(1, n + 1)], dtype=np.float64)
    terms.flags.writeable = False
    return terms
