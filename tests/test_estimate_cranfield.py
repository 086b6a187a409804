"""Estimates from a sample beyond a Cranfield pool, against the truth of the full cranqrel.

The quick version of bench/bench_estimate_cranfield.py (200 repetitions over all
225 topics; figures in the README): 8 seeded repetitions over the first 100
topics, three runs written in tests/cranfield_sampling.py, pool depth 10, 20
sampled documents per topic in the default strata (equal allocation); the Beta
interval pooltool reports, the MOVER-Wilson and normal ones beside it. Bounds
are loose enough for 8 repetitions and tight enough to catch a broken estimator
or interval.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cranfield_sampling import Experiment, load, summarize

from pooltool.analysis.sampling import DEFAULT_STRATA

# repeated campaigns over Cranfield (minutes on 2 cores): CI runs them (POOLTOOL_TEST_SLOW=1)
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def figures(shared_data: Path) -> dict[str, float]:
    collection = load(shared_data / "cranfield")
    experiment = Experiment(collection, pool_depth=10, strata=DEFAULT_STRATA,
                            topics=collection.topics[:100])
    return summarize([experiment.trial(seed, budget=20, draws=1000) for seed in range(8)])


def test_horvitz_thompson_r_is_unbiased(figures: dict[str, float]) -> None:
    assert figures["topics"] == 100 and figures["repetitions"] == 8
    assert abs(figures["R_mean_error"]) <= 3 * figures["R_mean_error_se"]


def test_every_estimate_lies_in_its_own_interval(figures: dict[str, float]) -> None:
    # est_R and est_recall are posterior means of the draws their intervals come from: of
    # 8 x 100 per-topic R and Recall@100 estimates and the 16 means, none falls outside
    # (est_R was the Horvitz-Thompson figure, outside its interval on 11 of a tester's 30)
    assert figures["estimates_outside_interval"] == 0
    # the posterior mean of R leans high (prior mass in strata whose sample found
    # nothing): +1.46 documents per topic here (est_R_ht is the unbiased figure)
    assert 0 <= figures["R_posterior_mean_error"] < 2


def test_beta_intervals_cover_where_normal_ones_do_not(figures: dict[str, float]) -> None:
    # per topic x repetition (800 pairs): the Beta-binomial interval covers the true R and
    # the true Recall@100 at about the nominal rate; the normal interval, zero-width
    # wherever a stratum's sample found nothing relevant, covers well under two in three
    assert 0.90 <= figures["R_beta_coverage"] <= 1.0
    assert 0.90 <= figures["recall_beta_coverage"] <= 1.0
    assert figures["R_normal_coverage"] < 0.6
    assert figures["recall_normal_coverage"] < 0.6
    # and it is not wide by being useless: a few dozen documents for R of about 7
    assert figures["R_beta_width"] < 40
    assert 0.5 < figures["true_R_mean"] / 10 < 1.0


def test_the_mean_interval_covers(figures: dict[str, float]) -> None:
    # the interval of the mean over topics carries the uncertainty of the prior the
    # topics share (drawn from its posterior): it covers in most of the 8 repetitions
    # (96-97.5% over 200 at 225 topics, README), and it is not wide by being useless
    assert figures["mean_R_beta_coverage"] >= 6 / 8
    assert figures["mean_recall_beta_coverage"] >= 6 / 8
    assert figures["mean_R_beta_width"] < 10
    assert figures["mean_recall_beta_width"] < 0.5


def test_the_mover_wilson_interval_holds_its_estimate_but_is_not_better(
        figures: dict[str, float]) -> None:
    # MOVER-Wilson around the Horvitz-Thompson R (estimate_recall(interval='mover-wilson'),
    # kept for this comparison): every estimate lies in its own interval, and a topic's
    # interval of R covers, but spans about 400 documents where the Beta one spans about 27
    # (Wilson's 1 in 5 upper limit of a stratum of hundreds, with no other topic to learn from)
    assert figures["mover_estimates_outside_interval"] == 0
    assert figures["R_mover_coverage"] >= 0.9
    assert figures["R_mover_width"] > 10 * figures["R_beta_width"]
    # the mean of the per-topic ratio estimates of Recall@100 is biased high (0.86 for a
    # true 0.68 here), so the interval of the mean misses it (0 of 8 here)
    assert figures["mean_recall_mover_estimate_mean"] > figures["mean_recall_true"] + 0.1
    assert figures["mean_recall_mover_coverage"] <= 2 / 8


def test_a_campaign_of_few_topics_gets_intervals_that_cover(shared_data: Path) -> None:
    """With 8 topics the prior the topics share is learnt from few samples; its
    posterior says so, and the intervals widen instead of going wrong (an empirical-Bayes
    fit with Jeffreys' prior as fallback had put about 112 relevant documents too many
    into each topic: R per topic covered 20%; 200 repetitions, bench/README.md)."""
    collection = load(shared_data / "cranfield")
    experiment = Experiment(collection, pool_depth=10, strata=DEFAULT_STRATA,
                            topics=collection.topics[::28][:8])
    covered = 0
    for seed in range(10):
        estimates = experiment.reported(seed, budget=20)
        assert estimates.interval == "beta" and estimates.caveat == ""
        assert estimates.method.startswith("hierarchical Beta-binomial posterior")
        rows = estimates.per_topic.set_index("topic").reindex(experiment.topics)
        covered += int(((rows["est_R_low"] <= experiment.true_r)
                        & (experiment.true_r <= rows["est_R_high"])).sum())
        assert (rows["est_R"] - experiment.true_r).abs().mean() < 30
    assert covered / 80 >= 0.9  # 100% over 100 repetitions
