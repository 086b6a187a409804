"""Multiple comparisons among runs: Holm-Bonferroni's step-down adjustment and Tukey's HSD.

* :func:`holm`: adjusted p-values of a family of tests (Holm, "A simple
  sequentially rejective multiple test procedure", Scand. J. Statist. 6, 1979).
* :func:`tukey_hsd`: every pair of runs at once by Tukey's honestly significant
  difference over the studentized range (Tukey 1949/1953). ``blocked=True``
  treats topics as blocks: the error term is that of the two-way ANOVA
  ``score ~ run + topic`` without interaction, as Carterette argues for IR
  ("Multiple testing in statistical analysis of systems-based information
  retrieval experiments", ACM TOIS 30(1), 2012); ``blocked=False`` is the
  one-way test of ``scipy.stats.tukey_hsd`` (runs as independent groups).
* :func:`pairwise_hole_verdicts`: every pair of runs by a paired test, at the
  scores as judged and at both ends of the holes
  (:func:`pooltool.analysis.significance.hole_verdict`), Holm-adjusted within
  each of those three sets of scores.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np
from scipy import stats

from pooltool.analysis.significance import HoleVerdict, PairedTest, Test, hole_verdict, paired_t
from pooltool.errors import InvalidArgument


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values, in the input's order.

    With the ``m`` p-values sorted ascending, ``p_(1) <= ... <= p_(m)``, the
    adjusted value of ``p_(i)`` is ``max_{j <= i} min(1, (m - j + 1) p_(j))``;
    rejecting where it is ``< alpha`` controls the family-wise error rate at
    ``alpha`` (Holm 1979).

    :param p_values: float ``(m,)``, each in 0..1.
    :returns: float ``(m,)``, each in 0..1, at least its raw p-value.
    :raises InvalidArgument: a p-value outside 0..1 or NaN, or not one-dimensional.
    """
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1 or not ((p >= 0) & (p <= 1)).all():
        raise InvalidArgument("p-values must be a one-dimensional array of values in 0..1")
    order = np.argsort(p, kind="stable")
    m = len(p)
    stepped = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(stepped)
    return adjusted


@dataclass(frozen=True)
class TukeyHSD:
    """Tukey's HSD over every pair of runs.

    :ivar mean_difference: float ``(r, r)``, ``[i, j]`` = mean score of run ``i``
        minus run ``j`` over the topics.
    :ivar statistic: float ``(r, r)``, the studentized range ``|diff| / sqrt(MSE / n)``.
    :ivar p_value: float ``(r, r)``, ``P(Q > statistic)`` for the studentized
        range with ``r`` means and ``df`` degrees of freedom; 1 on the diagonal.
    :ivar mse: the error mean square, in the measure's unit squared.
    :ivar df: its degrees of freedom: ``(r - 1)(n - 1)`` blocked, ``r (n - 1)`` not.
    :ivar blocked: topics were blocks.
    """

    mean_difference: np.ndarray
    statistic: np.ndarray
    p_value: np.ndarray
    mse: float
    df: int
    blocked: bool


def tukey_hsd(scores: np.ndarray, blocked: bool = True) -> TukeyHSD:
    """Tukey's HSD test of every pair of runs measured on the same topics.

    For runs ``i, j``: ``q = |mean_i - mean_j| / sqrt(MSE / n)`` and
    ``p = P(Q_{r, df} > q)`` (``scipy.stats.studentized_range``). Blocked:
    ``MSE = sum_ij (x_ij - mean_i - mean_j' + grand)^2 / ((r - 1)(n - 1))``
    (``mean_j'`` topic ``j``'s mean over runs); with two runs this p-value is
    that of the paired t test, since ``q = sqrt(2) |t|``. Not blocked:
    ``MSE = sum_ij (x_ij - mean_i)^2 / (r (n - 1))``, ``scipy.stats.tukey_hsd``.

    :param scores: float ``(r, n)``: ``r >= 2`` runs by ``n >= 2`` topics.
    :param blocked: topics as blocks (two-way ANOVA error) or not (one-way).
    :returns: a :class:`TukeyHSD`.
    :raises InvalidArgument: wrong shape, NaN or infinite scores, or an error
        mean square of 0 (every score explained; the test is undefined).
    """
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2 or not np.isfinite(x).all():
        raise InvalidArgument(f"scores must be finite, at least 2 runs by 2 topics, got {x.shape}")
    r, n = x.shape
    run_mean = x.mean(axis=1)
    if blocked:
        residual = x - run_mean[:, None] - x.mean(axis=0)[None, :] + x.mean()
        df = (r - 1) * (n - 1)
    else:
        residual = x - run_mean[:, None]
        df = r * (n - 1)
    mse = float((residual ** 2).sum() / df)
    if mse == 0.0:
        raise InvalidArgument("the error mean square is 0: Tukey's HSD is undefined")
    diff = run_mean[:, None] - run_mean[None, :]
    q = np.abs(diff) / np.sqrt(mse / n)
    p = np.asarray(stats.studentized_range.sf(q, r, df), dtype=np.float64)
    np.fill_diagonal(p, 1.0)
    return TukeyHSD(diff, q, np.minimum(p, 1.0), mse, df, blocked)


@dataclass(frozen=True)
class PairVerdict:
    """One pair of runs of :func:`pairwise_hole_verdicts`.

    :ivar run_a: the first run's tag (earlier in the input's order).
    :ivar run_b: the second's; differences are ``run_a - run_b``.
    :ivar verdict: the :class:`~pooltool.analysis.significance.HoleVerdict`,
        its three p-values Holm-adjusted (``adjustment="holm"``) when asked.
    """

    run_a: str
    run_b: str
    verdict: HoleVerdict


def pairwise_hole_verdicts(
    scores: Mapping[str, np.ndarray],
    holes: Mapping[str, tuple[np.ndarray, np.ndarray]],
    test: Test = paired_t,
    alpha: float = 0.05,
    adjust: bool = True,
) -> list[PairVerdict]:
    """Every pair of runs by a paired test that knows about the holes, Holm-adjusted.

    Each pair gets :func:`~pooltool.analysis.significance.hole_verdict`. With
    ``adjust``, the ``r (r - 1) / 2`` p-values at the scores as judged are
    adjusted together by :func:`holm`, and likewise those at the
    ``A low / B high`` ends and those at the ``A high / B low`` ends, so that
    each verdict controls the family-wise error rate at ``alpha``.

    :param scores: run tag -> per-topic scores as judged, float ``(n,)``, the
        same topics in the same order for every run.
    :param holes: run tag -> ``(low, high)`` per topic, float ``(n,)`` each.
    :param test: the paired test (see ``hole_verdict``).
    :param alpha: the family-wise significance level, ``0 < alpha < 1``.
    :param adjust: Holm-adjust the p-values (else raw).
    :returns: one :class:`PairVerdict` per pair, in ``combinations`` order of ``scores``.
    :raises InvalidArgument: fewer than 2 runs, a run without holes, or as ``hole_verdict``.
    """
    tags = list(scores)
    if len(tags) < 2 or set(tags) - set(holes):
        raise InvalidArgument("need at least 2 runs, each with its holes")
    pairs = list(combinations(tags, 2))
    verdicts = [hole_verdict(scores[a], scores[b], holes[a], holes[b], test, alpha)
                for a, b in pairs]
    if adjust:
        verdicts = _adjusted(verdicts)
    return [PairVerdict(a, b, v) for (a, b), v in zip(pairs, verdicts, strict=True)]


def _adjusted(verdicts: list[HoleVerdict]) -> list[HoleVerdict]:
    """The verdicts with each of their three p-value families Holm-adjusted."""
    sides = ("observed", "a_low_b_high", "a_high_b_low")
    adjusted: dict[str, list[PairedTest]] = {}
    for side in sides:
        tests = [getattr(v, side) for v in verdicts]
        p = holm(np.array([t.p_value for t in tests]))
        adjusted[side] = [replace(t, p_value=float(q), adjustment="holm")
                          for t, q in zip(tests, p, strict=True)]
    return [replace(v, observed=observed, a_low_b_high=worst, a_high_b_low=best)
            for v, observed, worst, best in zip(verdicts, adjusted["observed"],
                                                adjusted["a_low_b_high"],
                                                adjusted["a_high_b_low"], strict=True)]
