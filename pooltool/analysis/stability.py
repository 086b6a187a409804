"""System-ranking stability: Kendall's tau-b, tau_ap and rank changes between two rankings.

Runs are ranked by a score (higher is better). The correlations do not depend
on run tags or on the order runs are given in: Kendall's tau-b counts a tied
pair as neither concordant nor discordant, and tau_ap takes the expectation
over every order of runs tied in the compared ranking (Urbano and Marrero's
tau_AP,a) with ties in the reference broken by the compared ranking (see
:func:`tau_ap`). Only the ranks shown (``rank_a``, ``rank_b``) break ties by
run tag, so that each run has a place in a table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from pooltool.errors import InvalidArgument


@dataclass(frozen=True)
class RankingComparison:
    """Two rankings of the same runs compared.

    :ivar ranks: one row per run: ``run_tag, score_a, score_b, rank_a, rank_b,
        rank_change`` (``rank_b - rank_a``; negative means it moved up), in
        order of ``rank_a``.
    :ivar kendall_tau: Kendall's tau-b of the scores (ties counted as in
        tau-b); NaN with fewer than two runs or when either side is constant.
    :ivar tau_ap: tau_ap of ranking B against reference ranking A.
    :ivar largest_rank_change: the largest ``|rank_change|``.
    :ivar sum_rank_change: the sum of ``|rank_change|`` over runs (SRE in
        Lipani et al.'s pool-bias reports).
    """

    ranks: pd.DataFrame
    kendall_tau: float
    tau_ap: float
    largest_rank_change: int
    sum_rank_change: int


def compare_rankings(score_a: pd.Series, score_b: pd.Series) -> RankingComparison:
    """Compare the rankings of runs induced by two scores.

    :param score_a: the reference score per run (index: run tag), e.g. Recall@k
        under the full qrels.
    :param score_b: the other score per run, same index.
    :raises ValueError: the two indexes hold different runs, or a score is NaN.
    """
    if not isinstance(score_a, pd.Series) or not isinstance(score_b, pd.Series):
        raise InvalidArgument("the scores must be pandas Series indexed by run tag")
    if score_a.isna().any() or score_b.isna().any():
        raise InvalidArgument("a run's score is NaN: every run needs a score on both sides")
    if set(score_a.index) != set(score_b.index):
        raise InvalidArgument("the two rankings must hold the same runs")
    frame = pd.DataFrame({"score_a": score_a, "score_b": score_b.reindex(score_a.index)})
    frame.index.name = "run_tag"
    frame["rank_a"] = _ranks(frame["score_a"])
    frame["rank_b"] = _ranks(frame["score_b"])
    frame["rank_change"] = frame["rank_b"] - frame["rank_a"]
    frame = frame.sort_values("rank_a").reset_index()
    moves = frame["rank_change"].abs()
    kendall, ap = ranking_correlations(frame["run_tag"].tolist(), frame["score_a"].tolist(),
                                       frame["score_b"].tolist())
    return RankingComparison(ranks=frame, kendall_tau=kendall, tau_ap=ap,
                             largest_rank_change=int(moves.max()) if len(frame) else 0,
                             sum_rank_change=int(moves.sum()))


def ranking_correlations(tags: Sequence[str], score_a: Sequence[float],
                         score_b: Sequence[float]) -> tuple[float, float]:
    """Kendall's tau-b and tau_ap of two scores of the same runs, as
    :func:`compare_rankings` gives them, without its table (a simulation compares
    two rankings per strategy and budget).

    :param tags: the run tags, each once; ``score_a`` (the reference) and ``score_b``:
        their scores, same order, higher is better.
    :returns: ``(kendall_tau, tau_ap)``; each NaN as :func:`kendall_tau_b` and
        :func:`tau_ap` say.
    :raises InvalidArgument: a score is NaN.
    """
    if any(math.isnan(value) for value in (*score_a, *score_b)):
        raise InvalidArgument("a run's score is NaN: every run needs a score on both sides")
    # in order of rank_a (score A descending, ties by tag): tau_ap sums in that order
    order = sorted(range(len(tags)), key=lambda i: (-score_a[i], str(tags[i])))
    a = [float(score_a[i]) for i in order]
    b = [float(score_b[i]) for i in order]
    return kendall_tau_b(a, b), _tau_ap([tags[i] for i in order], [-v for v in a],
                                        [-v for v in b])


def _ranks(scores: pd.Series) -> pd.Series:
    """1-based ranks by score descending, ties broken by run tag ascending."""
    order = sorted(scores.index, key=lambda tag: (-scores[tag], str(tag)))
    return pd.Series({tag: i for i, tag in enumerate(order, start=1)}).reindex(scores.index)


def kendall_tau_b(x: list[float], y: list[float]) -> float:
    """Kendall's tau-b between paired values ``x`` and ``y``.

    .. math:: \\tau_b = \\frac{n_c - n_d}{\\sqrt{(n_0 - n_1)(n_0 - n_2)}}

    with :math:`n_c`/:math:`n_d` concordant/discordant pairs, :math:`n_0 =
    n(n-1)/2`, and :math:`n_1`, :math:`n_2` the pairs tied in ``x`` and in
    ``y``. O(n^2), fine for the tens to hundreds of runs of a campaign.

    :returns: a value in [-1, 1], or NaN when fewer than two values or either
        side is constant.
    """
    n = len(x)
    concordant = discordant = ties_x = ties_y = 0
    for i in range(n):
        for j in range(i + 1, n):
            sx = (x[i] > x[j]) - (x[i] < x[j])
            sy = (y[i] > y[j]) - (y[i] < y[j])
            ties_x += sx == 0
            ties_y += sy == 0
            sign = sx * sy
            concordant += sign > 0
            discordant += sign < 0
    pairs = n * (n - 1) // 2
    denominator = math.sqrt((pairs - ties_x) * (pairs - ties_y))
    return (concordant - discordant) / denominator if denominator else math.nan


def tau_ap(reference_rank: pd.Series, other_rank: pd.Series) -> float:
    """tau_ap of ``other_rank`` against ``reference_rank`` (Yilmaz, Aslam and Robertson 2008),
    with ties treated as Urbano and Marrero 2017 do for the compared ranking.

    Without ties:

    .. math:: \\tau_{ap} = \\frac{2}{N-1} \\sum_{i=2}^{N} \\frac{C(i)}{i-1} - 1

    where runs are taken in the order of ``other_rank`` and :math:`C(i)` is the
    number of runs above position :math:`i` that are also above it in
    ``reference_rank``. Errors near the top weigh more than in Kendall's tau.

    Ties in ``other_rank``: the expectation of that sum over every order of
    each tied group, all equally likely (tau_AP,a of Urbano and Marrero 2017,
    "The treatment of ties in AP correlation", ICTIR, the accuracy scenario;
    the port of their ircor package, pyircore, computes it; the tests check it
    against the mean over every order of the tied runs). A run at
    positions :math:`p+1 .. p+t` of a tied group of :math:`t` runs with
    :math:`p` runs above the group adds :math:`c \\cdot \\frac1t \\sum_{j=0}^{t-1}
    \\frac{1}{p+j}` (:math:`c`: runs above the group also above it in the
    reference; nothing when :math:`p = 0`), and each group adds
    :math:`\\frac{1}{2t} \\sum_{j=0}^{t-2} \\frac{j+1}{p+j+1}` per run (a pair
    inside the group is concordant half the time). Ties in
    ``reference_rank`` (which tau_AP,a leaves undefined) are broken by
    ``other_rank``: a pair tied in the reference is no swap. Runs tied in both
    are then interchangeable, so the value depends neither on run tags nor on
    the order runs are given in.

    :param reference_rank: ranks per run tag, lower is better (any numbers:
        equal values are ties), e.g. minus the scores.
    :param other_rank: the compared ranks of the same runs (same convention).
    :returns: a value in [-1, 1]; NaN with fewer than two runs.
    """
    runs = list(other_rank.index)
    return _tau_ap(runs, [float(reference_rank[run]) for run in runs],
                   [float(other_rank[run]) for run in runs])


def _tau_ap(runs: list[str], reference_rank: list[float], other_rank: list[float]) -> float:
    """:func:`tau_ap` of ranks given as lists in the order of ``runs`` (the order its
    sum is taken in)."""
    n = len(runs)
    if n < 2:
        return math.nan
    other = dict(zip(runs, other_rank, strict=True))
    reference = {run: (rank, other[run]) for run, rank in zip(runs, reference_rank, strict=True)}
    total = 0.0
    for run in runs:
        above = [r for r in runs if other[r] < other[run]]
        p, t = len(above), sum(other[r] == other[run] for r in runs)
        if p:
            concordant = sum(reference[r] < reference[run] for r in above)
            total += concordant * sum(1.0 / (p + j) for j in range(t)) / t
        total += sum((j + 1) / (p + j + 1) for j in range(t - 1)) / (2 * t)
    return 2.0 * total / (n - 1) - 1.0
