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
