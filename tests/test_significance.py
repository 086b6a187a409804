"""Paired tests against scipy and hand counts, and the hole verdict's wiring and meaning."""

from __future__ import annotations

import itertools
from functools import partial

import numpy as np
import pytest
from scipy import stats

from pooltool.analysis.significance import (
    PairedTest,
    hole_verdict,
    paired_bootstrap,
    paired_t,
    randomization_test,
)
from pooltool.errors import InvalidArgument


def pairs(seed: int, count: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Seeded per-topic scores; half are on a grid of tenths so that ties occur."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        n = int(rng.integers(2, 13))
        a, b = rng.random(n), rng.random(n) + rng.normal(0, 0.2)
        if i % 2:
            a, b = np.round(a, 1), np.round(b, 1)
        out.append((a, b))
    return out


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")  # scipy, on near-equal d
@pytest.mark.parametrize(("a", "b"), pairs(5, 30))
def test_paired_t_is_scipys_ttest_rel(a: np.ndarray, b: np.ndarray) -> None:
    expected = stats.ttest_rel(a, b)
    result = paired_t(a, b)
    if np.isnan(expected.pvalue):  # every difference equal: scipy gives NaN
        assert result.p_value == (1.0 if (a == b).all() else 0.0)
    else:
        assert result.p_value == pytest.approx(float(expected.pvalue), rel=1e-12, abs=1e-15)
    assert result.mean_difference == pytest.approx(float(np.mean(a - b)), abs=1e-15)
    assert (result.test, result.seed, result.samples, result.exact) == ("t", None, None, True)


def test_paired_t_on_equal_differences() -> None:
    assert paired_t(np.array([1.0, 2.0]), np.array([1.0, 2.0])).p_value == 1.0
    assert paired_t(np.array([1.0, 2.0]), np.array([0.5, 1.5])).p_value == 0.0


@pytest.mark.parametrize(("a", "b"), pairs(7, 30))
def test_exact_randomization_is_scipys_exact_permutation_test(a: np.ndarray,
                                                              b: np.ndarray) -> None:
    expected = stats.permutation_test(
        (a, b), lambda x, y, axis: np.mean(x - y, axis=axis), vectorized=True,
        permutation_type="samples", n_resamples=np.inf, alternative="two-sided").pvalue
    result = randomization_test(a, b)
    assert result.exact and result.seed is None and result.samples is None
    assert result.p_value == pytest.approx(float(expected), abs=1e-12)


def test_randomization_counted_by_hand() -> None:
    """d = (1, 2, 3): the 8 sums of ±1 ±2 ±3 are 6, 4, 2, 0, 0, -2, -4, -6; |S| >= 6 for
    2 of them, p = 2/8. d = (1, 1, 1, 1): |S| >= 4 for 2 of 16, p = 1/8. d = (1, -1):
    sums 0, 2, -2, 0, all |S| >= 0, p = 1."""
    zeros3, zeros4 = np.zeros(3), np.zeros(4)
    assert randomization_test(np.array([1.0, 2.0, 3.0]), zeros3).p_value == 0.25
    assert randomization_test(np.ones(4), zeros4).p_value == 0.125
    assert randomization_test(np.array([1.0, 0.0]), np.array([0.0, 1.0])).p_value == 1.0


def test_sampled_randomization_states_its_seed_and_is_near_the_exact_value() -> None:
    a, b = pairs(11, 4)[3]
    a, b = np.tile(a, 2)[:14], np.tile(b, 2)[:14]
    exact = randomization_test(a, b).p_value
    drawn = randomization_test(a, b, samples=40_000, seed=3, exact_limit=10)
    assert (drawn.seed, drawn.samples, drawn.exact) == (3, 40_000, False)
    assert abs(drawn.p_value - exact) < 4 * np.sqrt(exact * (1 - exact) / 40_000) + 1e-4
    assert drawn == randomization_test(a, b, samples=40_000, seed=3, exact_limit=10)
    never_zero = randomization_test(np.arange(30.0) + 1, np.zeros(30), samples=999, seed=1)
    assert never_zero.p_value == 1 / 1000


def exact_bootstrap_p(d: np.ndarray) -> float:
    """The bootstrap p-value with every one of the n^n equally likely resamples counted."""
    z = d - d.mean()
    means = [z[list(idx)].mean() for idx in itertools.product(range(len(d)), repeat=len(d))]
    return float(np.mean(np.abs(means) >= abs(d.mean()) - 1e-12))


@pytest.mark.parametrize("d", [np.array([0.3, -0.1, 0.2, 0.05]),
                               np.array([0.5, 0.4, -0.2, 0.1, 0.0])])
def test_bootstrap_is_near_its_exact_distribution(d: np.ndarray) -> None:
    exact = exact_bootstrap_p(d)
    result = paired_bootstrap(d, np.zeros(len(d)), samples=50_000, seed=9)
    assert (result.seed, result.samples, result.exact) == (9, 50_000, False)
    assert abs(result.p_value - exact) < 4 * np.sqrt(exact * (1 - exact) / 50_000) + 1e-4


def test_bootstrap_of_a_constant_difference() -> None:
    """Shifted to mean 0 a constant difference has no spread: no resample reaches it."""
    assert paired_bootstrap(np.ones(5), np.zeros(5), samples=99).p_value == 1 / 100
    assert paired_bootstrap(np.ones(5), np.ones(5), samples=99).p_value == 1.0


def test_hole_verdict_tests_each_run_at_the_opposite_ends() -> None:
    seen: list[tuple[list[float], list[float]]] = []

    def recording(a: np.ndarray, b: np.ndarray) -> PairedTest:
        seen.append((a.tolist(), b.tolist()))
        return paired_t(a, b)

    hole_verdict(np.array([0.5, 0.6]), np.array([0.1, 0.2]),
                 (np.array([0.4, 0.5]), np.array([0.7, 0.8])),
                 (np.array([0.0, 0.1]), np.array([0.3, 0.9])), test=recording)
    assert seen == [([0.5, 0.6], [0.1, 0.2]), ([0.4, 0.5], [0.3, 0.9]),
                    ([0.7, 0.8], [0.0, 0.1])]


def test_a_difference_holds_or_could_reverse() -> None:
    """Ten topics, A ahead by 0.3 +- 0.05. Holes of 0.01: A stays significantly better at
    both ends. Holes of 0.4 on B: at B's highs B is ahead, so the verdict could reverse."""
    rng = np.random.default_rng(4)
    b = rng.uniform(0.2, 0.5, 10)
    a = b + 0.3 + rng.uniform(-0.05, 0.05, 10)
    narrow = hole_verdict(a, b, (a, a + 0.01), (b, b + 0.01))
    assert narrow.verdict == 1 and narrow.holds and not narrow.could_reverse
    wide = hole_verdict(a, b, (a, a), (b, b + 0.4), test=partial(randomization_test, seed=2))
    assert wide.verdict == 1 and wide.a_low_b_high.verdict() == -1 and wide.could_reverse


def test_no_difference_that_a_hole_could_make_significant() -> None:
    a = np.array([0.5, 0.4, 0.6, 0.5])
    b = np.array([0.5, 0.5, 0.5, 0.5])
    verdict = hole_verdict(a, b, (a, a + 0.5), (b, b))
    assert verdict.verdict == 0 and verdict.could_reverse


@pytest.mark.parametrize("call", [
    lambda: paired_t(np.array([1.0]), np.array([1.0])),
    lambda: paired_t(np.array([1.0, 2.0]), np.array([1.0, 2.0, 3.0])),
    lambda: randomization_test(np.array([1.0, np.nan]), np.array([1.0, 2.0])),
    lambda: paired_bootstrap(np.array([1.0, 2.0]), np.array([1.0, 2.0]), samples=0),
    lambda: hole_verdict(np.ones(2), np.ones(2), (np.ones(2), np.zeros(2)),
                         (np.ones(2), np.ones(2))),
    lambda: hole_verdict(np.ones(2), np.ones(2), (np.ones(2), np.ones(2)),
                         (np.ones(2), np.ones(2)), alpha=1.0),
])
def test_bad_arguments_are_refused(call: object) -> None:
    with pytest.raises(InvalidArgument):
        call()  # type: ignore[operator]
