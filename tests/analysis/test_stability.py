"""Kendall's tau-b, tau_ap and rank changes, on hand-computed cases."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pooltool.analysis.stability import compare_rankings, kendall_tau_b, tau_ap


def test_three_runs_with_one_swap() -> None:
    result = compare_rankings(pd.Series({"x": 0.5, "y": 0.4, "z": 0.3}),
                              pd.Series({"x": 0.3, "y": 0.4, "z": 0.2}))
    assert result.ranks[["run_tag", "rank_a", "rank_b", "rank_change"]].values.tolist() == [
        ["x", 1, 2, 1], ["y", 2, 1, -1], ["z", 3, 3, 0]]
    # pairs (x,y) discordant, (x,z) and (y,z) concordant: (2 - 1) / 3
    assert result.kendall_tau == pytest.approx(1 / 3)
    # B order y, x, z: C(x) = 0 of 1 above, C(z) = 2 of 2 above -> 2/2 * (0 + 1) - 1 = 0
    assert result.tau_ap == 0.0
    assert (result.largest_rank_change, result.sum_rank_change) == (1, 2)


def test_a_swap_at_the_top_costs_tau_ap_more_than_at_the_bottom() -> None:
    reference = pd.Series({"a": 1, "b": 2, "c": 3, "d": 4})
    top_swap = pd.Series({"a": 2, "b": 1, "c": 3, "d": 4})
    bottom_swap = pd.Series({"a": 1, "b": 2, "c": 4, "d": 3})
    # top: C = 0/1, 2/2, 3/3 -> 2/3 * 2 - 1 = 1/3 ; bottom: 1/1, 2/2, 2/3 -> 2/3 * 8/3 - 1 = 7/9
    assert tau_ap(reference, top_swap) == pytest.approx(1 / 3)
    assert tau_ap(reference, bottom_swap) == pytest.approx(7 / 9)


def test_tau_b_with_ties() -> None:
    # x ties one pair; n0 = 6, n1 = 1, n2 = 0; nc = 5, nd = 0 -> 5 / sqrt(5 * 6)
    assert kendall_tau_b([1, 1, 2, 3], [1, 2, 3, 4]) == pytest.approx(5 / math.sqrt(30))
    assert math.isnan(kendall_tau_b([1, 1], [1, 2]))


@given(st.lists(st.tuples(st.sampled_from([0.1, 0.2, 0.5, 0.7]), st.integers(0, 3)),
                min_size=2, max_size=30))
@settings(deadline=None)  # the first call imports scipy.stats
def test_tau_b_is_scipys_to_the_last_bit_but_one(pairs: list[tuple[float, int]]) -> None:
    """scipy.stats.kendalltau (variant b) gives the same tau-b, ties included, up to
    rounding (it divides by the two square roots in turn: the last bit can differ,
    which would change the JSON outputs, so the O(n^2) count stays)."""
    import warnings

    from scipy.stats import kendalltau

    x, y = [p[0] for p in pairs], [float(p[1]) for p in pairs]
    ours = kendall_tau_b(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a constant side: scipy warns and gives NaN
        theirs = float(kendalltau(x, y, variant="b").statistic)
    assert (math.isnan(ours) and math.isnan(theirs)) or ours == pytest.approx(theirs, abs=1e-15)


def test_different_runs_are_refused() -> None:
    with pytest.raises(ValueError, match="same runs"):
        compare_rankings(pd.Series({"a": 1.0}), pd.Series({"b": 1.0}))


@given(st.lists(st.floats(0, 1), min_size=2, max_size=8, unique=True))
def test_identical_and_reversed_rankings(scores: list[float]) -> None:
    runs = pd.Series(scores, index=[f"r{i}" for i in range(len(scores))])
    same = compare_rankings(runs, runs)
    assert same.kendall_tau == pytest.approx(1.0) and same.tau_ap == pytest.approx(1.0)
    flipped = compare_rankings(runs, -runs)
    assert flipped.kendall_tau == pytest.approx(-1.0) and flipped.tau_ap == pytest.approx(-1.0)


def _plain_tau_ap(reference: list[str], other: list[str]) -> float:
    """Yilmaz et al.'s tau_ap of two orders without ties (best first), by its definition."""
    place = {run: i for i, run in enumerate(reference)}
    total = sum(sum(place[a] < place[other[i]] for a in other[:i]) / i
                for i in range(1, len(other)))
    return 2 * total / (len(other) - 1) - 1


def _mean_over_tie_orders(score_a: dict[str, float], score_b: dict[str, float]) -> float:
    """The oracle: the mean of the plain tau_ap over every order of the runs tied in B
    (the reference is given without ties)."""
    from itertools import permutations, product

    reference = sorted(score_a, key=lambda run: -score_a[run])
    levels = sorted(set(score_b.values()), reverse=True)
    groups = [[run for run in score_b if score_b[run] == level] for level in levels]
    values = [_plain_tau_ap(reference, [run for group in orders for run in group])
              for orders in product(*(permutations(group) for group in groups))]
    return sum(values) / len(values)


def test_ties_in_b_take_the_mean_over_every_order_of_the_tie() -> None:
    # A: r1 > r2 > r3 > r4 > r5; B ties r1, r3 at the top and r2, r4, r5 below
    score_a = {"r1": 0.9, "r2": 0.8, "r3": 0.7, "r4": 0.6, "r5": 0.5}
    score_b = {"r1": 0.6, "r2": 0.2, "r3": 0.6, "r4": 0.2, "r5": 0.2}
    result = compare_rankings(pd.Series(score_a), pd.Series(score_b))
    assert result.tau_ap == pytest.approx(_mean_over_tie_orders(score_a, score_b), abs=1e-12)
    # by hand, over the 12 orders: the run at position 2 is r3 (concordant) half the time:
    # 1/2. Each of r2, r4, r5 has 1, 2, 2 of {r1, r3} above it in A and stands at position
    # 3, 4 or 5 alike: E[1/(i-1)] = (1/2 + 1/3 + 1/4) / 3 = 13/36. At position i of the lower
    # group, its i - 3 tied runs above are concordant half the time: sum of (i-3)/2/(i-1).
    top = 1 / 2
    below = (1 + 2 + 2) * 13 / 36
    within = (1 / 3 + 2 / 4) / 2  # pairs inside the lower tie: half concordant, expected
    assert result.tau_ap == pytest.approx(2 / 4 * (top + below + within) - 1, abs=1e-12)


@given(st.lists(st.tuples(st.sampled_from([0.1, 0.2, 0.5]), st.sampled_from([0.0, 0.3, 0.6])),
                min_size=2, max_size=6))
@settings(deadline=None)
def test_tau_ap_depends_neither_on_tags_nor_on_their_order(pairs: list[tuple[float, float]]) -> None:
    """Renaming the runs so that their tag order reverses, and giving them in reverse
    order, leave tau_ap (and Kendall's tau-b) as they were, ties on both sides included."""
    tags = [f"r{i}" for i in range(len(pairs))]
    renamed = [f"r{len(pairs) - 1 - i}" for i in range(len(pairs))]
    a = pd.Series([p[0] for p in pairs], index=tags)
    b = pd.Series([p[1] for p in pairs], index=tags)
    first = compare_rankings(a, b)
    again = compare_rankings(pd.Series(a.to_numpy()[::-1], index=renamed[::-1]),
                             pd.Series(b.to_numpy()[::-1], index=renamed[::-1]))
    assert again.tau_ap == pytest.approx(first.tau_ap, abs=1e-12)
    assert (math.isnan(first.kendall_tau) and math.isnan(again.kendall_tau)) or \
        again.kendall_tau == pytest.approx(first.kendall_tau, abs=1e-12)
    if len(set(a)) == len(a):  # no tie in the reference: the mean over B's tie orders
        assert first.tau_ap == pytest.approx(_mean_over_tie_orders(a.to_dict(), b.to_dict()),
                                             abs=1e-12)


@settings(deadline=None, max_examples=60)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=0, max_size=8))
def test_ranking_correlations_are_the_series_functions_in_rank_a_order(
        pairs: list[tuple[int, int]]) -> None:
    """The lists path gives kendall_tau_b and tau_ap of the Series taken in order of rank A
    (score A descending, ties by tag), as compare_rankings took them, whatever the input
    order."""
    from pooltool.analysis.stability import ranking_correlations

    tags = [f"r{i}" for i in range(len(pairs))]
    a = [x / 3 for x, _ in pairs]
    b = [y / 7 for _, y in pairs]
    order = sorted(range(len(tags)), key=lambda i: (-a[i], tags[i]))
    by_rank = [tags[i] for i in order]
    expected_ap = tau_ap(-pd.Series(a, index=tags).reindex(by_rank),
                         -pd.Series(b, index=tags).reindex(by_rank))
    expected_tau = kendall_tau_b([a[i] for i in order], [b[i] for i in order])
    kendall, ap = ranking_correlations(tags[::-1], a[::-1], b[::-1])
    assert kendall == expected_tau or (math.isnan(kendall) and math.isnan(expected_tau))
    assert ap == expected_ap or (math.isnan(ap) and math.isnan(expected_ap))
