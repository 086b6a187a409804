"""The estimators of pooltool.analysis.estimate against hand-worked values and against
every possible sample of a tiny population (exact unbiasedness)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from pooltool.analysis.beta_draws import (
    _log_likelihood,
    posterior_priors,
    recall_draws,
    shortest_interval,
    total_draws,
    total_draws_batch,
    total_mean_batch,
)
from pooltool.analysis.estimate import (
    StratumCounts,
    counts_array,
    ht_retrieved,
    ht_total,
    ht_variance,
    normal_interval,
    ratio_recall,
    ratio_variance,
)
from pooltool.analysis.mover import Cells, mover_ratio, mover_total, wilson_shares


def test_ht_total_and_variance_by_hand() -> None:
    # R = 3 + 10 * 1/2 + 20 * 1/4 = 13
    # Var = 10^2 (1 - 2/10) s1^2 / 2 + 20^2 (1 - 4/20) s2^2 / 4 with s1^2 = 1*1/(2*1) = 1/2 and
    # s2^2 = 1*3/(4*3) = 1/4: 100 * 0.8 * 0.5 / 2 + 400 * 0.8 * 0.25 / 4 = 20 + 20 = 40
    strata = [StratumCounts(10, 2, 1), StratumCounts(20, 4, 1)]
    assert ht_total(3, strata) == 13.0
    assert ht_variance(strata) == pytest.approx(40.0)
    # a stratum without a relevant sampled document adds nothing, and a stratum sampled
    # whole adds no variance
    assert ht_total(3, [StratumCounts(10, 2, 1), StratumCounts(20, 4, 0)]) == 8.0
    assert ht_variance([StratumCounts(10, 2, 1), StratumCounts(20, 4, 0)]) == pytest.approx(20.0)
    assert ht_variance([StratumCounts(5, 5, 2)]) == 0.0


def test_ratio_recall_and_its_variance_by_hand() -> None:
    # pooled: 3 relevant, 2 of them in the top k; one stratum N=10, n=2: one sampled
    # relevant document, inside the top k. R = 3 + 5 = 8, Y = 2 + 5 = 7, ratio 7/8.
    # z: 1 - 7/8 = 1/8 for the relevant one, 0 for the other; mean 1/16,
    # s_z^2 = (1/64 - 2/256) / 1 = 1/128; Var = 100 * 0.8 * (1/128) / 2 / 64 = 0.3125 / 64
    strata = [StratumCounts(10, 2, 1, population_in=5, sampled_in=1, relevant_in=1)]
    assert ht_retrieved(2, strata) == 7.0
    assert ratio_recall(3, 2, strata) == 7 / 8
    assert ratio_variance(3, 2, strata) == pytest.approx(0.3125 / 64)
    assert ratio_recall(0, 0, [StratumCounts(10, 2, 0)]) == 0.0


def test_bad_counts_and_unsampled_strata_are_refused() -> None:
    with pytest.raises(ValueError, match="inconsistent"):
        StratumCounts(10, 2, 3)
    with pytest.raises(ValueError, match="no judged sampled document"):
        ht_total(0, [StratumCounts(10, 0, 0)])
    with pytest.raises(ValueError, match="needs 2"):
        ht_variance([StratumCounts(10, 1, 0)])


# a tiny population: pooled relevant 2; stratum A holds 4 documents (2 relevant; the
# first 2 are in the run's top k), stratum B holds 3 (1 relevant, not in the top k)
A_RELEVANT = [1, 0, 1, 0]
A_IN_TOP = [1, 1, 0, 0]
B_RELEVANT = [0, 1, 0]
B_IN_TOP = [0, 0, 0]
POOLED_RELEVANT, POOLED_REL_RET = 2, 1


def _counts(relevant: list[int], in_top: list[int], chosen: tuple[int, ...]) -> StratumCounts:
    return StratumCounts(
        population=len(relevant), sampled=len(chosen),
        relevant=sum(relevant[i] for i in chosen),
        population_in=sum(in_top), sampled_in=sum(in_top[i] for i in chosen),
        relevant_in=sum(relevant[i] * in_top[i] for i in chosen))


def _every_sample(n_a: int, n_b: int) -> list[list[StratumCounts]]:
    return [[_counts(A_RELEVANT, A_IN_TOP, a), _counts(B_RELEVANT, B_IN_TOP, b)]
            for a in itertools.combinations(range(4), n_a)
            for b in itertools.combinations(range(3), n_b)]


@pytest.mark.parametrize(("n_a", "n_b"), [(1, 1), (2, 2), (3, 2), (2, 1)])
def test_ht_estimates_are_unbiased_over_every_sample(n_a: int, n_b: int) -> None:
    """Every sample equally likely (stratified simple random sampling): the mean of the
    estimates over all of them is the true value, exactly."""
    samples = _every_sample(n_a, n_b)
    true_r = POOLED_RELEVANT + sum(A_RELEVANT) + sum(B_RELEVANT)  # 5
    true_y = POOLED_REL_RET + sum(r * t for r, t in zip(A_RELEVANT, A_IN_TOP, strict=True))  # 2
    totals = [Fraction(ht_total(POOLED_RELEVANT, s)).limit_denominator(100) for s in samples]
    retrieved = [Fraction(ht_retrieved(POOLED_REL_RET, s)).limit_denominator(100)
                 for s in samples]
    assert sum(totals) / len(samples) == true_r == 5
    assert sum(retrieved) / len(samples) == true_y == 2
    if min(n_a, n_b) >= 2:
        # the variance estimator is unbiased for the variance over the samples
        true_var = sum((t - true_r) ** 2 for t in totals) / len(samples)
        mean_estimate = sum(ht_variance(s) for s in samples) / len(samples)
        assert mean_estimate == pytest.approx(float(true_var), abs=1e-12)
        assert float(true_var) > 0


def test_normal_interval_collapses_where_the_beta_interval_does_not() -> None:
    """No sampled document relevant: the normal interval is one point, the Beta interval
    leaves room for the unsampled documents (and never goes below what is known)."""
    strata = [StratumCounts(100, 10, 0), StratumCounts(900, 10, 0)]
    low, high = normal_interval(ht_total(4, strata), ht_variance(strata))
    assert (low, high) == (4.0, 4.0)
    draws = total_draws(4, strata, np.random.default_rng(1))
    beta_low, beta_high = shortest_interval(draws)
    assert beta_low == 4.0
    assert 20 < beta_high < 300  # about 0.12 of 990 unsampled documents in the worst case
    recall = recall_draws(4, 2, [StratumCounts(100, 10, 0, 50, 5, 0)], np.random.default_rng(1))
    r_low, r_high = shortest_interval(recall)
    assert 0 < r_low < 0.5 < r_high <= 1.0
    # all sampled: no uncertainty left, so no width
    whole = shortest_interval(total_draws(4, [StratumCounts(5, 5, 2)],
                                            np.random.default_rng(1)))
    assert (float(whole[0]), float(whole[1])) == (6.0, 6.0)


def test_the_beta_interval_over_every_sample_of_one_topic() -> None:
    """Over every sample of the tiny population (one topic: the prior across topics has
    one topic to learn from), pooltool's 95% Beta interval of R covers the true R in 15
    of the 18 samples (computed, not simulated: every sample weighed equally), as the
    MOVER-Wilson interval does (the test below) and as Jeffreys' prior would."""
    samples = _every_sample(2, 2)
    covered = covered_jeffreys = 0
    for strata in samples:
        counts = counts_array([strata])
        rng = np.random.default_rng(7)
        prior = posterior_priors(counts, rng)
        low, high = shortest_interval(total_draws_batch(np.array([POOLED_RELEVANT]), counts,
                                                        rng, prior=prior)[0])
        covered += int(low <= 5 <= high)
        low, high = shortest_interval(total_draws(POOLED_RELEVANT, strata,
                                                  np.random.default_rng(7)))
        covered_jeffreys += int(low <= 5 <= high)
    assert (covered, covered_jeffreys) == (15, 15)


def test_posterior_priors_find_a_known_prior() -> None:
    """300 topics whose shares were drawn from Beta(4, 16) (mean 0.2, weight 20), 10
    sampled documents each: the drawn priors' mean and weight centre on the truth."""
    rng = np.random.default_rng(3)
    relevant = rng.binomial(10, rng.beta(4, 16, size=300))
    counts = counts_array([[StratumCounts(500, 10, int(r))] for r in relevant])
    a, b = posterior_priors(counts, np.random.default_rng(1))
    assert a.shape == b.shape == (1, 1000)
    mean, weight = a[0] / (a[0] + b[0]), a[0] + b[0]
    m_low, m_high = np.percentile(mean, [2.5, 97.5])
    c_low, c_high = np.percentile(weight, [2.5, 97.5])
    assert m_low < 0.2 < m_high and m_high - m_low < 0.06
    assert c_low < 20 < c_high < 40


def test_the_priors_likelihood_is_the_beta_binomial_one() -> None:
    """The hyperprior's log-likelihood on the grid, summed as logarithms per step, is
    ``sum_t log B(r_t + a, n_t - r_t + b) - log B(a, b)`` as scipy's log-beta gives it, at
    counts of a few documents and of hundreds (more than one block of steps)."""
    from scipy.special import betaln

    rng = np.random.default_rng(5)
    alpha, beta = rng.uniform(1e-6, 50, 400), rng.uniform(1e-6, 5000, 400)
    for most in (3, 40, 700):
        sampled = rng.integers(0, most + 1, 60)
        relevant = rng.binomial(sampled, 0.1)
        expected = sum(betaln(alpha + r, beta + n - r) - betaln(alpha, beta)
                       for n, r in zip(sampled, relevant, strict=True))
        got = _log_likelihood(alpha, beta, sampled, relevant)
        np.testing.assert_allclose(got, expected, rtol=1e-11, atol=1e-8)


def test_est_r_is_the_mean_of_the_draws_of_r() -> None:
    """est_R (:func:`total_mean_batch`, the Beta and binomial draws integrated out given
    the prior's draws) is what the mean of ever more draws of R under the same prior
    draws tends to: 400,000 draws per topic agree within 4 standard errors (the draws'
    spread over the root of their number, an upper bound as the prior's draws are the
    same in every round)."""
    rng = np.random.default_rng(11)
    counts = counts_array([[StratumCounts(300, 10, int(r1)), StratumCounts(40, 8, int(r2))]
                           for r1, r2 in zip(rng.binomial(10, 0.1, 25), rng.binomial(8, 0.4, 25),
                                             strict=True)])
    pooled = rng.integers(0, 20, 25)
    prior = posterior_priors(counts, rng)
    exact = total_mean_batch(pooled, counts, prior)
    draws = np.concatenate([total_draws_batch(pooled, counts, rng, prior=prior)
                            for _ in range(400)], axis=1)
    error = draws.std(axis=1) / np.sqrt(draws.shape[1])
    assert (np.abs(draws.mean(axis=1) - exact) < 4 * error).all()
    assert (error < 0.05).all()  # a test that can fail: the draws pin est_R to 0.2 documents


def test_nothing_relevant_in_any_sample_leaves_zero_in_the_interval() -> None:
    """30 topics, 5 of 800 documents sampled in each, none relevant (as with -l 2 where
    no document has grade 2): R per topic and mean R have intervals from 0 up (an
    empirical-Bayes prior with a pseudo-count had put mean R at [0.21, 0.87])."""
    counts = counts_array([[StratumCounts(800, 5, 0)] for _ in range(30)])
    rng = np.random.default_rng(2)
    prior = posterior_priors(counts, rng)
    draws = total_draws_batch(np.zeros(30), counts, rng, prior=prior)
    low, high = shortest_interval(draws)
    assert (low == 0).all() and (high > 0).all()
    mean_low, mean_high = shortest_interval(draws.mean(axis=0))
    assert float(mean_low) == 0 < float(mean_high) < 20


def _mover_r(pooled_relevant: int, strata: list[StratumCounts]) -> tuple[float, float, float]:
    cells = Cells.of(*(np.array([[getattr(s, f) for s in strata]])
                       for f in ("population", "sampled", "relevant")))
    estimate, low, high = mover_total(np.array([pooled_relevant]), cells)
    return float(estimate[0]), float(low[0]), float(high[0])


def _mover_recall(pooled_relevant: int, pooled_rel_ret: int,
                  strata: list[StratumCounts]) -> tuple[float, float, float]:
    """As sample_estimates does it: in and out of the top k as post-strata, an empty
    one standing in with its stratum's share."""
    def row(*values: int) -> np.ndarray:
        return np.array([values], dtype=np.int64)

    share = row(*(0 for _ in strata)).astype(float)
    share[0] = [s.relevant / s.sampled for s in strata]
    inside = mover_total(np.array([pooled_rel_ret]), Cells.of(
        row(*(s.population_in for s in strata)), row(*(s.sampled_in for s in strata)),
        row(*(s.relevant_in for s in strata)), share))
    outside = mover_total(np.array([pooled_relevant - pooled_rel_ret]), Cells.of(
        row(*(s.population - s.population_in for s in strata)),
        row(*(s.sampled - s.sampled_in for s in strata)),
        row(*(s.relevant - s.relevant_in for s in strata)), share))
    recall, low, high = mover_ratio(inside, outside)
    return float(recall[0]), float(low[0]), float(high[0])


def test_wilson_shares_by_hand() -> None:
    # N = 7, n = 4: effective size n (N - 1) / (N - n) = 8; r = 0 gives [0, z^2 / (8 + z^2)]
    # N = 10, n = 2, r = 1: effective size 2.25, p = 1/2, centre 1/2, half-width
    # z / (1 + z^2/2.25) * sqrt(0.25/2.25 + z^2 / (4 * 2.25^2)) = 0.397062
    # no sampled document: [0, 1]; sampled whole: the share itself
    low, high = wilson_shares(np.array([0, 1, 0, 2]), np.array([4, 2, 0, 3]),
                              np.array([7, 10, 5, 3]))
    z2 = 1.959963984540054 ** 2
    assert low == pytest.approx([0, 0.5 - 0.397062, 0, 2 / 3], abs=1e-6)
    assert high == pytest.approx([z2 / (8 + z2), 0.5 + 0.397062, 1, 2 / 3], abs=1e-6)


def test_mover_wilson_r_by_hand() -> None:
    # pooled relevant 3; stratum A: N=7, n=4, r=0 (total 0, interval [0, 7 * 0.324408]);
    # stratum B: N=10, n=2, r=1 (total 5, interval [10 * 0.102938, 10 * 0.897062]).
    # R = 3 + 0 + 5 = 8 (the Horvitz-Thompson estimate); low = 8 - sqrt(0^2 + 3.97062^2);
    # high = 8 + sqrt(2.270853^2 + 3.970612^2) = 12.574115
    strata = [StratumCounts(7, 4, 0), StratumCounts(10, 2, 1)]
    estimate, low, high = _mover_r(3, strata)
    assert estimate == ht_total(3, strata) == 8.0
    assert (low, high) == pytest.approx((4.029388, 12.574115), abs=1e-6)
    # no relevant document in any sample: still width above (not the normal's zero width)
    estimate, low, high = _mover_r(4, [StratumCounts(100, 10, 0), StratumCounts(900, 10, 0)])
    assert (estimate, low) == (4.0, 4.0) and high > 200
    # sampled whole: nothing left to estimate
    assert _mover_r(4, [StratumCounts(5, 5, 2)]) == (6.0, 6.0, 6.0)


def test_mover_recall_by_hand() -> None:
    # pooled: 3 relevant, 2 in the top k; one stratum N=10, n=2, r=1: the relevant sampled
    # document in the top k (in-cell N=5, n=1, r=1), the other out (N=5, n=1, r=0).
    # Y = 2 + 5 = 7 in [2 + max(5 * 0.206594, 1), 7]; X = 1 + 0 in [1, 1 + 5 * 0.793451].
    # Recall 7/8; its lower limit t = Y/X solves (1 - 3.96725^2) t^2 - 14 t + 49 - 3.96703^2
    # = 0: t = 1.10058, recall t / (1 + t) = 0.523941; its upper limit is the estimate
    # (Y cannot be larger, X cannot be smaller)
    strata = [StratumCounts(10, 2, 1, population_in=5, sampled_in=1, relevant_in=1)]
    recall, low, high = _mover_recall(3, 2, strata)
    assert recall == 7 / 8
    assert (low, high) == pytest.approx((0.523941, 7 / 8), abs=1e-5)
    # nothing relevant anywhere: recall 0, interval [0, 1] is all that is known
    assert _mover_recall(0, 0, [StratumCounts(10, 2, 0, 5, 1, 0)]) == (0.0, 0.0, 1.0)


def test_mover_wilson_by_enumeration_of_a_small_population() -> None:
    """Over every sample of the tiny population (each equally likely): est_R is the
    Horvitz-Thompson estimate (so unbiased, exactly), every estimate lies in its interval,
    and the intervals cover the true R and the true Recall@k at the rates computed here:
    under the nominal 95% (15 and 13 of 18; the Beta interval with Jeffreys' prior covers
    R in 15 too, the test above). Samples of 2 from strata of 3 and 4, post-strata of one
    sampled document: the small counts where Wilson's interval is least accurate."""
    samples = _every_sample(2, 2)
    true_r, true_recall = 5, 2 / 5
    covered_r = covered_recall = 0
    estimates = []
    for strata in samples:
        estimate, low, high = _mover_r(POOLED_RELEVANT, strata)
        assert estimate == ht_total(POOLED_RELEVANT, strata) and low <= estimate <= high
        estimates.append(Fraction(estimate).limit_denominator(100))
        covered_r += int(low <= true_r <= high)
        recall, r_low, r_high = _mover_recall(POOLED_RELEVANT, POOLED_REL_RET, strata)
        assert r_low <= recall <= r_high
        covered_recall += int(r_low <= true_recall <= r_high)
    assert sum(estimates) / len(samples) == true_r
    assert len(samples) == 18
    assert (covered_r, covered_recall) == (15, 13)


def test_shortest_interval_by_hand() -> None:
    # 20 draws, 95%: 19 of them; draws piled at a floor of 4 (as R is at the judged
    # relevant documents): the shortest window starts there, where the central one
    # (2.5th to 97.5th percentile) would reach up to the largest draw
    draws = np.array([4.0] * 12 + [5.0] * 4 + [6.0] * 2 + [7.0, 30.0])
    low, high = shortest_interval(draws)
    assert (float(low), float(high)) == (4.0, 7.0)
    assert np.percentile(draws, 97.5) > 7.0
    # two rows at once; equally narrow windows: the lowest
    rows = np.array([[1.0, 2.0, 3.0, 4.0], [10.0, 0.0, 5.0, 5.0]])
    low, high = shortest_interval(rows, mass=0.5)
    assert low.tolist() == [1.0, 5.0] and high.tolist() == [2.0, 5.0]


def test_mean_caveat_follows_the_cranfield_validation() -> None:
    from pooltool.analysis.sample_estimates import mean_caveat

    # the Beta intervals of means covered on Cranfield campaigns of 5 to 225 topics
    assert mean_caveat("beta", 225) == mean_caveat("beta", 5) == ""
    assert mean_caveat("beta", 3).startswith(
        "the intervals of means over topics are validated from 5 topics up (Cranfield); "
        "with 3, they and est_R rest on the prior more than on the samples (est_R leans high")
    # MOVER-Wilson (for comparison only): its mean Recall@k is biased from 12 topics up
    assert mean_caveat("mover-wilson", 8) == ""
    assert mean_caveat("mover-wilson", 30).startswith(
        "the MOVER-Wilson interval of a mean Recall@k over 30 topics is not to be trusted")
