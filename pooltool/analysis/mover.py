"""The ``mover-wilson`` interval of :mod:`pooltool.analysis.estimate`: closed form,
around the Horvitz-Thompson estimate (pure functions).

An interval built around the Horvitz-Thompson estimate,
which it always contains (:func:`mover_total`): a Wilson score interval per
stratum (finite-population corrected), combined by the method of variance
estimates recovery (Zou & Donner 2008; Newcombe 1998); Recall@k by MOVER
for a ratio over the strata split into the run's first k and the rest
(:func:`mover_ratio`); the mean over topics by MOVER over the topics
(:func:`mover_mean`). Closed form, no draws. Not pooltool's default: it
uses no information across topics, so with a few sampled documents in a
stratum of hundreds a topic's interval of R spans hundreds of documents, yet
it covers less than 95% where the sample found a relevant document deep
down (Wilson's lower limit of 1 in 5 is far above 1 in 800), and the mean
of the per-topic ratio estimates is biased, so the interval of mean
Recall@k did not cover in 200 repetitions (figures in docs/estimates.md, from
``bench/bench_estimate_cranfield.py``). Kept for that comparison.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pooltool.analysis.estimate import Z95

MOVER_METHOD = ("mover-wilson: the Horvitz-Thompson estimate with a 95% interval combined "
                "from a Wilson score interval per stratum (finite-population corrected) by "
                "the method of variance estimates recovery; Recall@k by MOVER for a ratio "
                "(Wilson 1927; Newcombe 1998; Zou & Donner 2008)")


def wilson_shares(relevant: np.ndarray, sampled: np.ndarray,
                  population: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 95% Wilson score interval of each cell's share of relevant documents.

    The share's variance under simple random sampling without replacement is
    ``p (1 - p) / n * (N - n) / (N - 1)`` (Cochran 1977, eq. 3.7), so the score
    interval is Wilson's with the effective size ``n (N - 1) / (N - n)``
    (Wilson 1927, 'Probable inference, the law of succession, and statistical
    inference', JASA 22). A cell sampled whole has no width; a cell with no
    sampled document gets [0, 1]. Unlike the normal interval, a cell whose sample
    holds no relevant document keeps width: [0, z^2 / (n_eff + z^2)].

    :param relevant: r, relevant sampled documents per cell (any shape).
    :param sampled: n, judged sampled documents per cell, same shape.
    :param population: N, the cell's documents, same shape.
    :returns: ``(low, high)``, shares 0..1, the shape of the inputs.
    """
    r, n, big_n = (np.asarray(x, dtype=float) for x in (relevant, sampled, population))
    share = np.divide(r, n, out=np.zeros(r.shape), where=n > 0)
    partial = (n > 0) & (n < big_n)
    n_eff = np.divide(n * (big_n - 1), big_n - n, out=np.ones(r.shape), where=partial)
    z2 = Z95 ** 2
    scale = 1 + z2 / n_eff
    centre = (share + z2 / (2 * n_eff)) / scale
    half = Z95 / scale * np.sqrt(share * (1 - share) / n_eff + z2 / (4 * n_eff ** 2))
    low = np.where(partial, np.maximum(centre - half, 0.0), share)
    high = np.where(partial, np.minimum(centre + half, 1.0), share)
    empty = n == 0
    return np.where(empty, 0.0, low), np.where(empty, 1.0, high)


@dataclass(frozen=True)
class Cells:
    """Cells of a stratified sample, several topics at once: arrays ``(topics, cells)``.

    :ivar population: N, documents in the cell (0 for padding).
    :ivar sampled: n, judged sampled documents in it.
    :ivar relevant: r, of them relevant.
    :ivar share: the share of relevant documents that estimates the cell: r / n, or
        where n = 0 a stated stand-in (its stratum's share, for a post-stratum).
    """

    population: np.ndarray
    sampled: np.ndarray
    relevant: np.ndarray
    share: np.ndarray

    @classmethod
    def of(cls, population: np.ndarray, sampled: np.ndarray, relevant: np.ndarray,
           fallback: np.ndarray | None = None) -> Cells:
        """Cells whose share is r / n (``fallback`` where n = 0, else 0)."""
        empty = np.zeros(np.shape(population)) if fallback is None else fallback
        share = np.divide(relevant, sampled, out=np.asarray(empty, dtype=float).copy(),
                          where=sampled > 0)
        return cls(population, sampled, relevant, share)


def mover_total(known: np.ndarray, cells: Cells) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A topic's total of relevant documents with its 95% MOVER-Wilson interval.

    Each cell's total ``T_h = N_h p_h`` gets the interval ``[L_h, U_h]``: its
    :func:`wilson_shares` times N_h, kept within what the sample proves (at least
    r_h, at most N_h - (n_h - r_h)). The cells are independent, so the method of
    variance estimates recovery (MOVER; Zou & Donner 2008, 'Construction of
    confidence limits about effect measures: a general approach', Statistics in
    Medicine 27; for sums and differences of proportions, Newcombe 1998,
    Statistics in Medicine 17) combines them around the estimate
    ``T = known + sum_h T_h``: ``L = T - sqrt(sum_h (T_h - L_h)^2)``,
    ``U = T + sqrt(sum_h (U_h - T_h)^2)``. The interval always holds T, has width
    while any sampled cell is not sampled whole, and never goes below what is
    known plus what was found.

    :param known: documents counted exactly (the pooled relevant ones), ``(topics,)``.
    :param cells: the cells, arrays ``(topics, cells)``.
    :returns: ``(estimate, low, high)``, each ``(topics,)`` (documents).
    """
    low, high = wilson_shares(cells.relevant, cells.sampled, cells.population)
    big_n = np.asarray(cells.population, dtype=float)
    total = big_n * cells.share
    proven = np.asarray(cells.relevant, dtype=float)
    possible = big_n - (cells.sampled - cells.relevant)
    below = total - np.maximum(big_n * low, proven)
    above = np.minimum(big_n * high, possible) - total
    estimate = known + total.sum(axis=-1)
    return (estimate, estimate - np.sqrt((below ** 2).sum(axis=-1)),
            estimate + np.sqrt((above ** 2).sum(axis=-1)))


def mover_ratio(inside: tuple[np.ndarray, np.ndarray, np.ndarray],
                outside: tuple[np.ndarray, np.ndarray, np.ndarray]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Recall ``Y / (Y + X)`` with a 95% interval from independent intervals of Y
    (relevant documents in the run's first k) and X (relevant documents outside).

    With ``t = Y / X`` and recall ``t / (1 + t)`` (increasing in t), the limits of
    t are where the MOVER interval of ``Y - t X`` has 0 as its end (Fieller's
    theorem with MOVER's recovered variances, 'MOVER-R': Donner & Zou 2012,
    'Closed-form confidence intervals for functions of the normal mean and
    standard deviation', Statistical Methods in Medical Research 21; Newcombe
    2016, 'MOVER-R confidence intervals for ratios and products of two
    independently estimated quantities', ibid.): with
    ``a = Y, b = X``, the lower limit solves ``(b^2 - dx^2) t^2 - 2ab t + a^2 -
    dy^2 = 0`` for ``dy = Y - Y_low, dx = X_high - X`` (its smaller positive
    root), the upper one the same with ``dy = Y_high - Y, dx = X - X_low`` (its
    larger root; none when X may be 0: recall up to 1). The estimate is 0 where
    Y + X is 0 (as trec_eval scores a topic without relevant documents).

    :param inside: ``(Y, Y_low, Y_high)``, arrays of one shape (documents).
    :param outside: ``(X, X_low, X_high)``, the same shape.
    :returns: ``(recall, low, high)``, fractions 0..1.
    """
    a, a_low, a_high = (np.asarray(v, dtype=float) for v in inside)
    b, b_low, b_high = (np.asarray(v, dtype=float) for v in outside)
    ab = a * b
    with np.errstate(divide="ignore", invalid="ignore"):
        c0 = a ** 2 - (a - a_low) ** 2
        c2 = b ** 2 - (b_high - b) ** 2
        root = np.sqrt(np.maximum(ab ** 2 - c0 * c2, 0.0))
        t_low = np.where(c0 > 0, c0 / (ab + root), 0.0)   # inf where ab + root = 0
        c0 = a ** 2 - (a_high - a) ** 2
        c2 = b ** 2 - (b - b_low) ** 2
        root = np.sqrt(np.maximum(ab ** 2 - c0 * c2, 0.0))
        t_high = np.where(c2 > 0, (ab + root) / c2, np.inf)
    recall = np.divide(a, a + b, out=np.zeros(a.shape), where=a + b > 0)
    return recall, _odds_to_share(t_low), _odds_to_share(t_high)


def _odds_to_share(t: np.ndarray) -> np.ndarray:
    """``t / (1 + t)``, 1 where t is infinite (or undefined: 0 / 0 limits)."""
    return np.where(np.isfinite(t), t / (1 + np.where(np.isfinite(t), t, 0.0)), 1.0)


def mover_mean(estimate: np.ndarray, low: np.ndarray,
               high: np.ndarray) -> tuple[float, float, float]:
    """The mean over topics of independent per-topic estimates, with the MOVER interval
    ``mean -+ sqrt(sum (estimate - low)^2 or (high - estimate)^2) / topics`` (Zou &
    Donner 2008). For R this is the same as combining every stratum of every topic.

    :param estimate: per-topic estimates ``(topics,)``; ``low, high`` their intervals.
    :returns: ``(mean, low, high)``.
    """
    count = len(estimate)
    mean = float(np.mean(estimate))
    return (mean, mean - float(np.sqrt(((estimate - low) ** 2).sum())) / count,
            mean + float(np.sqrt(((high - estimate) ** 2).sum())) / count)
