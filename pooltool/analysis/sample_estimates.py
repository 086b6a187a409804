"""Estimated R and Recall@k of runs from a pool and a judged sample beyond it
(``pooltool recall --estimate NAME``).

The estimators and the interval are those of :mod:`pooltool.analysis.estimate`
(Horvitz & Thompson 1952; ratio estimator, Cochran 1977; Beta-binomial
posterior intervals, Ericson 1969); the design
is :mod:`pooltool.analysis.sampling`. Everything here is per topic and then
averaged over topics as trec_eval averages Recall@k.

R and Recall@k are reported as posterior means of the model behind the
interval: est_R worked out given the draws of the prior the topics share (the
Beta and binomial draws integrated out:
:func:`~pooltool.analysis.beta_draws.total_mean_batch`), est_recall the mean of
the draws its interval comes from (1000 draws of R, 250 of each Recall@k; until
2026-12-04 est_R was the mean of R's draws, and Recall@k had 1000). Recall@k
is not the Horvitz-Thompson ratio estimate
(:func:`~pooltool.analysis.estimate.ratio_recall`): with a few sampled
documents in strata of hundreds, the ratio of two estimates is badly biased per
topic (on Cranfield, depth-10 pool, 20 sampled documents per topic: mean
Recall@100 0.88 estimated for 0.71 true), and fell outside its own interval.
The Horvitz-Thompson estimate of R (unbiased over samples, Horvitz & Thompson
1952) is reported beside it as ``est_R_ht``; it is not the model's, so it may
lie outside the interval (a stratum whose sample found nothing relevant adds 0
to it, but some relevant documents to the draws), as ``est_R`` did when it was
the Horvitz-Thompson figure (on 11 of 30 topics in one tester's store).

The prior of each stratum is shared by the topics and learnt from all their
samples (:func:`~pooltool.analysis.beta_draws.posterior_priors`, a hierarchical
Beta-binomial model), so a topic whose sample of a large stratum found nothing
borrows the other topics' rate instead of a fixed prior (Jeffreys' puts dozens
of relevant documents into a stratum of hundreds), and the uncertainty of that
shared rate, drawn from its posterior, widens the interval of a mean over topics
as much as the samples leave it uncertain: with 20 sampled documents per topic
in a campaign of 12 topics the interval of mean Recall@k is wide, because the
samples cannot rule out a few relevant documents in each deep stratum of
hundreds. On Cranfield it covered at every campaign size tried, 5 to 225 topics
(docs/estimates.md); an empirical-Bayes fit of the prior, used before, covered the true
mean Recall@100 12-98% of the time below 225 topics.

``estimate_recall(..., interval="mover-wilson")`` gives, for comparison, the
Horvitz-Thompson estimate of R with a MOVER-Wilson interval around it
(:func:`~pooltool.analysis.mover.mover_total`) and Recall@k as the
post-stratified ratio ``Y / (Y + X)``: each stratum split into the run's
first k and the rest (post-strata; conditionally on how many sampled
documents fall in each part, each part's sample is a simple random sample of
it, Holt & Smith 1979, 'Post stratification', JRSS A 142), ``Y`` the known
relevant retrieved pooled documents plus each inside part's ``N r / n``,
``X`` the same outside, a part with no sampled document standing in with its
stratum's share ``r / n`` (interval [0, its size]); the interval by MOVER for
a ratio (:func:`~pooltool.analysis.mover.mover_ratio`). It is closed form
(no draws) and always holds its estimate, but over many topics does not cover
as the Beta interval does (docs/estimates.md).

The simulated draws are reproducible: they come from random streams seeded by
the sample's stored seed and a label (the prior's refits, R, and each run tag
and cutoff), so the same store and sample give the same intervals on every
run, and a run's interval does not depend on which other runs are asked for,
nor on how many runs and cutoffs are estimated at once in threads.

What counts:

* **pooled relevant** ``R_pool``: pooled documents with grade >= level. Every
  pooled document must be judged (grade >= 0), else the topic is refused.
* a stratum's **sample** is its sampled documents that are judged (grade >= 0);
  judging a random part of the sample first keeps it a simple random sample.
  Each non-empty stratum needs at least one judged sampled document.
* a run's first k documents are placed by the design: pooled, in a stratum (by
  their best rank over the sample's runs), or outside the frame (then they are
  not counted: R is R of the frame).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from pooltool.analysis.beta_draws import DRAWS, RECALL_DRAWS
from pooltool.analysis.interval_models import interval_model, pinned
from pooltool.analysis.run_placement import Lines, Placed, counts_at, place
from pooltool.analysis.sample_design import Design, first_few
from pooltool.records import is_judged, is_relevant, topic_key


class CannotEstimate(ValueError):
    """The sample or the pool lacks judgments the estimate needs (the message says which)."""


@dataclass(frozen=True)
class Estimates:
    """What :func:`estimate_recall` returns.

    :ivar per_topic: one row per run x topic x k: ``run_tag, topic, k, sampled``
        (judged sampled documents of the topic), ``est_R`` (the posterior mean of R,
        documents), ``est_R_low, est_R_high`` (its 95% interval), ``est_R_ht`` (the
        Horvitz-Thompson estimate of R, documents), ``est_recall`` (the posterior
        mean of Recall@k, 0..1), ``est_recall_low, est_recall_high`` (its 95%
        interval).
    :ivar summary: one row per run x k: ``run_tag, k, num_q, sampled`` (summed over
        topics) and the same estimate columns as means over the topics, with the
        95% interval of the mean.
    :ivar method: the interval method, named with its sources.
    :ivar caveat: ``""``, or why the intervals of means over topics are not to be
        trusted as 95% (:func:`mean_caveat`).
    :ivar interval: the interval method chosen, by name: ``beta`` or ``mover-wilson``.
    :ivar topics: one row per topic of the design: ``topic, pooled_relevant``
        (relevant pooled documents), ``sampled``, ``est_R, est_R_low, est_R_high,
        est_R_ht`` (as in ``per_topic``; no run needed).
    """

    per_topic: pd.DataFrame
    summary: pd.DataFrame
    method: str
    topics: pd.DataFrame
    caveat: str = ""
    interval: str = "beta"


#: The fewest topics at which the Beta intervals of means over topics were validated
#: (Cranfield campaigns of 5, 8, 12, 20, 40, 60, 112 and 225 topics, 200 repetitions each).
MEAN_VALIDATED_TOPICS = 5


def mean_caveat(interval: str, topics: int) -> str:
    """What to say of the intervals of means over ``topics`` topics (``""``: nothing)
    of the interval method named ``interval`` (``beta`` or ``mover-wilson``),
    from the Cranfield validation (docs/estimates.md): the
    Beta intervals of means covered at every campaign size tried, from
    :data:`MEAN_VALIDATED_TOPICS` topics up; MOVER-Wilson's held at 5 and 8 topics,
    but from 12 topics up its interval of mean Recall@k covered 0-71.5% (the ratio
    estimate's bias)."""
    if interval == "mover-wilson":
        if topics < 10:  # held at 5 and 8 topics, failed from 12 up
            return ""
        return (f"the MOVER-Wilson interval of a mean Recall@k over {topics} topics is not "
                "to be trusted (on Cranfield, from 12 topics up, it covered the true mean "
                "0-71.5% of the time: the ratio estimate's bias); its per-topic intervals "
                "and that of mean R held")
    if topics >= MEAN_VALIDATED_TOPICS:
        return ""
    return (f"the intervals of means over topics are validated from {MEAN_VALIDATED_TOPICS} "
            f"topics up (Cranfield); with {topics}, they and est_R rest on the prior more "
            "than on the samples (est_R leans high: on 5 Cranfield topics by 13 documents "
            "a topic; est_R_ht is unbiased)")


ESTIMATE_COLUMNS = ["est_R", "est_R_low", "est_R_high", "est_R_ht",
                    "est_recall", "est_recall_low", "est_recall_high"]


def estimate_recall(runs: pd.DataFrame, qrels: pd.DataFrame, design: Design,
                    ks: Sequence[int], level: int = 1, seed: int = 0,
                    draws: int = DRAWS, interval: str = "beta",
                    threads: int | None = None, complete: bool = False,
                    max_docs: int | None = None,
                    recall_draws: int = RECALL_DRAWS) -> Estimates:
    """Estimate R and each run's Recall@k per topic, with 95% intervals.

    :param runs: ``run_tag, topic, docno, score`` (any order; trec_eval order is used).
        With a ``trec_rank`` column (each line's trec_eval rank, as
        :func:`~pooltool.ranking.order_run` adds it and
        :meth:`~pooltool.store.JudgmentStore.run_frame` gives stored runs, already in
        that order) the lines are not ordered again.
    :param qrels: ``topic, docno, grade`` (the current qrels: pool and sample judgments).
    :param design: the sample (see :class:`Design`).
    :param ks: cutoffs (>= 1).
    :param level: the lowest relevant grade.
    :param seed: the seed of the simulated draws (the sample's stored seed; the same
        seed, the same intervals).
    :param draws: simulated draws behind each interval of R (and of the priors).
    :param recall_draws: simulated draws behind each interval of Recall@k (at most
        ``draws``).
    :param interval: ``beta`` (pooltool's: the hierarchical Beta-binomial posterior;
        est_R and est_recall its means) or ``mover-wilson`` (for comparison: est_R the
        Horvitz-Thompson estimate, est_recall the post-stratified ratio, intervals by
        MOVER from Wilson intervals; no draws).
    :param threads: runs x cutoffs estimated at once (``None``: :data:`THREADS`); each
        draws from its own random stream, so the results do not depend on it. With more
        than one, the first part of the runs is estimated while the rest of the lines
        are placed (:func:`~pooltool.analysis.run_placement.place`).
    :param complete: trec_eval's ``-c``: a run is averaged over all the design's
        topics, a topic it did not retrieve for scoring Recall@k 0 in every draw
        (``num_q`` counts it); else over the design's topics it retrieved documents for.
    :param max_docs: trec_eval's ``-M``: only each run's first ``max_docs`` documents
        per topic count (``None``: all), as :func:`~pooltool.measures.evaluate_recall`.
    :returns: see :class:`Estimates`.
    :raises CannotEstimate: a pooled document unjudged, or a non-empty stratum with
        no judged sampled document (each named, up to ten).
    :raises InvalidArgument: an unknown interval method.
    """
    topics = sorted(set(design.pooled["topic"]) | set(design.sizes["topic"]), key=topic_key)
    t_index = {t: i for i, t in enumerate(topics)}
    names = [s.name for s in design.strata]
    s_index = {n: j for j, n in enumerate(names)}
    grades = qrels[["topic", "docno", "grade"]]

    pooled = design.pooled[["topic", "docno"]].merge(grades, on=["topic", "docno"], how="left")
    unjudged = pooled[~is_judged(pooled["grade"]).to_numpy(dtype=bool)]
    if len(unjudged):
        counts = unjudged.groupby("topic").size()
        raise CannotEstimate(
            f"{len(unjudged)} pooled document(s) have no judgment yet (or a negative "
            f"grade, which counts as none) (topics "
            f"{first_few(f'{t} ({n})' for t, n in counts.items())}); the estimate counts every "
            "pooled relevant document, so judge the pool first ('pooltool status')")
    pooled_rel = is_relevant(pooled["grade"], level).to_numpy(dtype=bool)
    r_pool = np.zeros(len(topics), dtype=np.int64)
    np.add.at(r_pool, pooled["topic"].map(t_index).to_numpy(dtype=np.int64), pooled_rel)

    sample = design.docs[["topic", "docno", "stratum"]].merge(grades, on=["topic", "docno"],
                                                               how="left")
    sample = sample[is_judged(sample["grade"]).to_numpy(dtype=bool)]
    sample = sample.assign(relevant=is_relevant(sample["grade"], level).to_numpy(dtype=bool))
    base = np.zeros((len(topics), len(names), 6), dtype=np.int64)
    sizes = design.sizes
    base[sizes["topic"].map(t_index).to_numpy(dtype=np.int64),
         sizes["stratum"].map(s_index).to_numpy(dtype=np.int64), 0] = sizes["population"]
    ti = sample["topic"].map(t_index).to_numpy(dtype=np.int64)
    si = sample["stratum"].map(s_index).to_numpy(dtype=np.int64)
    np.add.at(base[..., 1], (ti, si), 1)
    np.add.at(base[..., 2], (ti, si), sample["relevant"].to_numpy(dtype=np.int64))
    empty = np.argwhere((base[..., 0] > 0) & (base[..., 1] == 0))
    if len(empty):
        raise CannotEstimate(
            f"{len(empty)} stratum(s) have no judged sampled document (topic:stratum "
            f"{first_few(f'{topics[i]}:{names[j]}' for i, j in empty)}); judge the sample "
            f"'{design.name}' first ('pooltool judge --pool {design.name}')")

    sampled = base[..., 1].sum(axis=1)
    model = interval_model(interval, base, seed, draws, recall_draws)
    r_est, r_low, r_high, r_ht = model.total(r_pool)
    per_r = pd.DataFrame({"topic": topics, "pooled_relevant": r_pool, "sampled": sampled,
                          "est_R": r_est.astype(float), "est_R_low": r_low.astype(float),
                          "est_R_high": r_high.astype(float),
                          "est_R_ht": r_ht.astype(float)})
    depth = max(ks) if max_docs is None else min(max(ks), max_docs)
    threads = THREADS if threads is None else threads
    parts = place(runs, design, depth, grades, level, sample, topics, split=threads > 1)

    def estimate(run: Lines, tag: Any, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                         np.ndarray, tuple[float, float]]:
        have = np.zeros(len(topics), dtype=bool)
        have[run.topic] = True
        counts, rel_ret = counts_at(base, run, k)
        scored_zero = len(topics) - int(have.sum()) if complete else 0
        return (have, *model.recall(r_pool[have], rel_ret[have], counts[have], have,
                                    (str(tag), str(k)), scored_zero))

    rows, summary = [], []
    for tag, k, (have, recall, low, high, mean_recall) in _by_run(parts, ks, estimate, threads):
        chosen = np.flatnonzero(have)
        for pos, i in enumerate(chosen):
            rows.append((tag, topics[i], k, int(sampled[i]), r_est[i], r_low[i], r_high[i],
                         r_ht[i], recall[pos], low[pos], high[pos]))
        if len(chosen):
            counted = np.ones(len(topics), dtype=bool) if complete else have
            r_mean = model.mean_total(counted)
            summary.append((tag, k, int(counted.sum()), int(sampled[counted].sum()),
                            pinned(r_est[counted].mean(), *r_mean), *r_mean,
                            r_ht[counted].mean(),
                            pinned(recall.sum() / counted.sum(), *mean_recall),
                            *mean_recall))
    per_topic = pd.DataFrame(rows, columns=["run_tag", "topic", "k", "sampled",
                                            *ESTIMATE_COLUMNS])
    summary_frame = pd.DataFrame(summary, columns=["run_tag", "k", "num_q", "sampled",
                                                   *ESTIMATE_COLUMNS])
    for frame in (per_topic, summary_frame):
        for column in ESTIMATE_COLUMNS:
            frame[column] = frame[column].astype(float)
    exact = not (base[..., 0] > base[..., 1]).any()  # every stratum sampled whole
    return Estimates(per_topic, summary_frame, model.method, per_r,
                     "" if exact else mean_caveat(model.name, len(topics)), model.name)


#: Runs x cutoffs estimated at once, in threads (numpy's Beta and binomial draws, most of
#: the time, let other threads run); about 30 MB of draws each at 250 topics.
THREADS = min(os.cpu_count() or 1, 8)

_Result = TypeVar("_Result")


def _by_run(parts: Iterator[Placed], ks: Sequence[int],
            estimate: Callable[[Lines, Any, int], _Result],
            threads: int) -> list[tuple[Any, int, _Result]]:
    """``(tag, k, estimate(lines, tag, k))`` for every run of every part and every k, in
    that order; in ``threads`` threads when more than one, where the runs of a part are
    estimated while the next part is placed (``parts`` is advanced as the jobs are
    handed out)."""
    jobs = ((tag, placed.of(code), k) for placed in parts
            for code, tag in enumerate(placed.tags) for k in ks)
    if threads <= 1:
        return [(tag, k, estimate(lines, tag, k)) for tag, lines, k in jobs]
    with ThreadPoolExecutor(max_workers=threads) as pool:
        futures = [(tag, k, pool.submit(estimate, lines, tag, k)) for tag, lines, k in jobs]
        return [(tag, k, future.result()) for tag, k, future in futures]
