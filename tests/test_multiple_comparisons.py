"""Holm-Bonferroni by hand; Tukey's HSD against scipy (one-way), the paired t test (two
blocked runs) and a two-way ANOVA worked by hand."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from pooltool.analysis.multiple_comparisons import holm, pairwise_hole_verdicts, tukey_hsd
from pooltool.errors import InvalidArgument


def test_holm_by_hand() -> None:
    """Sorted 0.01, 0.03, 0.04 times 3, 2, 1: 0.03, 0.06, 0.04, then the running max:
    0.03, 0.06, 0.06. Sorted 0.001, 0.04, 0.2, 0.5 times 4, 3, 2, 1: 0.004, 0.12, 0.4, 0.5."""
    assert holm(np.array([0.01, 0.04, 0.03])) == pytest.approx([0.03, 0.06, 0.06])
    assert holm(np.array([0.5, 0.2, 0.001, 0.04])) == pytest.approx([0.5, 0.4, 0.004, 0.12])
    assert holm(np.array([0.6, 0.7])) == pytest.approx([1.0, 1.0])


@pytest.mark.parametrize("shape", [(2, 5), (3, 8), (4, 3)])
def test_one_way_tukey_is_scipys(shape: tuple[int, int]) -> None:
    x = np.random.default_rng(shape[0] * 100 + shape[1]).random(shape)
    x[0] += 0.3
    expected = stats.tukey_hsd(*x)
    result = tukey_hsd(x, blocked=False)
    assert result.mean_difference == pytest.approx(expected.statistic, abs=1e-14)
    assert result.p_value == pytest.approx(expected.pvalue, abs=1e-9)
    assert result.df == shape[0] * (shape[1] - 1)


@pytest.mark.parametrize("seed", range(5))
def test_blocked_tukey_of_two_runs_is_the_paired_t_test(seed: int) -> None:
    """With two runs q = sqrt(2) |t| on (n - 1) degrees of freedom (module docstring)."""
    rng = np.random.default_rng(seed)
    x = rng.random((2, 9)) + rng.random(9)  # a topic effect shared by both runs
    expected = stats.ttest_rel(x[0], x[1]).pvalue
    assert tukey_hsd(x).p_value[0, 1] == pytest.approx(float(expected), rel=1e-6)


def test_blocked_tukey_by_hand() -> None:
    """Run means 5, 3, 4; topic means 2, 4, 6; grand mean 4. Residuals
    x - run - topic + 4: (0 0 0 / 0 1 -1 / 0 -1 1), SSE 4 on (3-1)(3-1) = 4 df: MSE 1,
    q(0, 1) = |5 - 3| / sqrt(1/3) = 2 sqrt 3."""
    x = np.array([[3.0, 5, 7], [1, 4, 4], [2, 3, 7]])
    result = tukey_hsd(x)
    assert result.mse == pytest.approx(1.0) and result.df == 4
    assert result.statistic[0, 1] == pytest.approx(2 * np.sqrt(3))
    assert result.p_value[0, 1] == pytest.approx(stats.studentized_range.sf(2 * np.sqrt(3), 3, 4))
    assert result.mean_difference[2, 0] == pytest.approx(-1.0)


def test_blocking_ignores_topic_effects() -> None:
    x = np.random.default_rng(3).random((3, 6))
    shifted = x + np.arange(6.0)  # topics of very different difficulty
    assert tukey_hsd(shifted).p_value == pytest.approx(tukey_hsd(x).p_value)
    assert tukey_hsd(shifted, blocked=False).p_value[0, 1] > tukey_hsd(x, blocked=False).p_value[0, 1]


@pytest.mark.parametrize("call", [
    lambda: holm(np.array([0.5, 1.5])),
    lambda: tukey_hsd(np.ones((1, 4))),
    lambda: tukey_hsd(np.ones((3, 4))),
])
def test_bad_arguments_are_refused(call: object) -> None:
    with pytest.raises(InvalidArgument):
        call()  # type: ignore[operator]


def test_pairwise_hole_verdicts_adjust_each_family_by_holm() -> None:
    """Three runs on 8 topics; the raw p-values come from scipy's ttest_rel."""
    rng = np.random.default_rng(12)
    base = rng.random(8)
    scores = {"A": base + 0.3 + rng.normal(0, 0.05, 8), "B": base + 0.25 + rng.normal(0, 0.05, 8),
              "C": base}
    holes = {tag: (s, s + rng.uniform(0, 0.2, 8)) for tag, s in scores.items()}
    result = pairwise_hole_verdicts(scores, holes)
    assert [(p.run_a, p.run_b) for p in result] == [("A", "B"), ("A", "C"), ("B", "C")]
    ends = {"observed": (scores, scores), "a_low_b_high": ({t: h[0] for t, h in holes.items()},
                                                           {t: h[1] for t, h in holes.items()}),
            "a_high_b_low": ({t: h[1] for t, h in holes.items()},
                             {t: h[0] for t, h in holes.items()})}
    for side, (of_a, of_b) in ends.items():
        raw = np.array([stats.ttest_rel(of_a[p.run_a], of_b[p.run_b]).pvalue for p in result])
        got = [getattr(p.verdict, side) for p in result]
        assert [t.p_value for t in got] == pytest.approx(holm(raw), rel=1e-12)
        assert {t.adjustment for t in got} == {"holm"}
    unadjusted = pairwise_hole_verdicts(scores, holes, adjust=False)
    assert unadjusted[0].verdict.observed.p_value == pytest.approx(
        float(stats.ttest_rel(scores["A"], scores["B"]).pvalue), rel=1e-12)
    with pytest.raises(InvalidArgument):
        pairwise_hole_verdicts({"A": base}, holes)
