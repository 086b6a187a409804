"""Estimated R and Recall@k of runs from a pool and a judged sample beyond it
(``pooltool recall --estimate NAME``).

The estimators and the interval are those of :mod:`pooltool.analysis.estimate`
(Horvitz & Thompson 1952; ratio estimator, Cochran 1977; Beta-binomial
posterior intervals, Ericson 1969); the design
is :mod:`pooltool.analysis.sampling`. Everything here is per topic and then
averaged over topics as trec_eval averages Recall@k.

R and Recall@k are reported as posterior means of the model behind the
interval, so each estimate and its interval come from the same draws. Recall@k
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
samples (:func:`~pooltool.analysis.estimate.posterior_priors`, a hierarchical
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
(:func:`~pooltool.analysis.estimate.mover_total`) and Recall@k as the
post-stratified ratio ``Y / (Y + X)``: each stratum split into the run's
first k and the rest (post-strata; conditionally on how many sampled
documents fall in each part, each part's sample is a simple random sample of
it, Holt & Smith 1979, 'Post stratification', JRSS A 142), ``Y`` the known
relevant retrieved pooled documents plus each inside part's ``N r / n``,
``X`` the same outside, a part with no sampled document standing in with its
stratum's share ``r / n`` (interval [0, its size]); the interval by MOVER for
a ratio (:func:`~pooltool.analysis.estimate.mover_ratio`). It is closed form
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

import hashlib
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pooltool.analysis.estimate import (
    BETA_METHOD,
    DRAWS,
    INTERVAL_METHODS,
    MOVER_METHOD,
    Cells,
    mover_mean,
    mover_ratio,
    mover_total,
    posterior_priors,
    recall_draws_batch,
    shortest_interval,
    stratum_draws_batch,
)
from pooltool.analysis.sampling import Stratum, build_frame, draw_sample, parse_strata
from pooltool.errors import InvalidArgument, StoreError
from pooltool.ranking import stretches, trec_ranks
from pooltool.records import is_judged, is_relevant, topic_key
from pooltool.store import JudgmentStore


class CannotEstimate(ValueError):
    """The sample or the pool lacks judgments the estimate needs (the message says which)."""


@dataclass(frozen=True)
class Design:
    """A stored sample, as the estimator needs it.

    :ivar name: the sample's name.
    :ivar strata: its strata (:func:`~pooltool.analysis.sampling.parse_strata`).
    :ivar frame: ``collection`` (with the unretrieved stratum) or ``runs``.
    :ivar pooled: ``topic, docno`` of the pool the sample lies beyond, as it was when
        the sample was drawn.
    :ivar docs: ``topic, docno, stratum, inclusion`` of the sampled documents.
    :ivar sizes: ``topic, stratum, population, size`` (N_h and n_h drawn).
    :ivar best_ranks: ``topic, docno, best_rank`` over the sample's runs.
    :ivar base_pool: the name of that pool.
    :ivar pooled_later: ``topic, docno`` the base pool took after the draw (not part
        of the design: they lie in its strata; see :func:`stale_note`).
    """

    name: str
    strata: list[Stratum]
    frame: str
    pooled: pd.DataFrame
    docs: pd.DataFrame
    sizes: pd.DataFrame
    best_ranks: pd.DataFrame
    base_pool: str = ""
    pooled_later: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame({"topic": [], "docno": []}))


def stale_note(design: Design) -> str | None:
    """What it means for the estimate that the base pool grew after the sample was
    drawn (``None`` when it did not).

    The sample is a stratified simple random sample of the documents beyond the pool
    *as it was drawn*; documents pooled later lie in its strata, some of them in the
    sample. Counting them as pooled would count them twice (as pooled relevant, and
    through the strata's N_h / n_h weights) and bias R and Recall@k upward, so the
    estimate keeps the design: the pool as drawn, the later documents as stratum
    documents (their judgments count only where they are in the sample).
    """
    later = design.pooled_later
    if not len(later):
        return None
    keys = ["topic", "docno"]
    sampled = len(later.merge(design.docs[keys], on=keys))
    return (f"warning: pool {design.base_pool!r} took {len(later)} document(s) after sample "
            f"{design.name!r} was drawn, {sampled} of them sampled documents. The estimate "
            f"uses the pool as it was then ({len(design.pooled)} documents), as the sample's "
            "design requires: the later documents lie in its strata, and counting them as "
            "pooled would count them twice and bias R upward. Their judgments count only "
            "where they are in the sample, so the intervals are as wide as before the pool "
            "grew; for estimates beyond the grown pool, draw a new sample.")


def outside_note(design: Design, qrels: pd.DataFrame, level: int) -> str | None:
    """What it means for the estimate that the qrels hold relevant documents the design
    does not know (``None`` when they hold none): judged relevant (grade >= ``level``)
    in the design's topics, but neither in the pool the sample was drawn beyond (as
    drawn, or grown since: :func:`stale_note`) nor in the sample, e.g. another
    sample's documents or imported judgments. num_rel counts them; the estimate counts
    them only through its strata's N_h / n_h weights, as it would any unsampled
    document, so est_R and its interval may lie below num_rel. Using them would need
    a design that holds them (one sample, grown: ``sample --grow``).

    :param qrels: ``topic, docno, grade``.
    """
    keys = ["topic", "docno"]
    topics = set(design.sizes["topic"]) | set(design.pooled["topic"])
    relevant = qrels.loc[is_relevant(qrels["grade"], level).to_numpy(dtype=bool)
                         & qrels["topic"].isin(topics).to_numpy(dtype=bool), keys]
    known = pd.concat([design.pooled[keys], design.pooled_later[keys], design.docs[keys]])
    outside = relevant.drop_duplicates().merge(known.drop_duplicates(), on=keys, how="left",
                                               indicator=True)
    count = int((outside["_merge"] == "left_only").sum())
    if not count:
        return None
    return (f"note: {count} relevant document(s) in these qrels lie outside sample "
            f"{design.name!r}'s design (neither in the pool it was drawn beyond nor in the "
            "sample: another sample's, or imported judgments). num_rel counts them; the "
            "estimate counts them only as its strata's weights count any unsampled "
            "document, so est_R and its interval may lie below num_rel. For one estimate "
            "that uses them, grow one sample ('sample --grow') instead of drawing another.")


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
                    max_docs: int | None = None) -> Estimates:
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
    :param draws: simulated draws behind each interval.
    :param interval: ``beta`` (pooltool's: the hierarchical Beta-binomial posterior;
        est_R and est_recall its means) or ``mover-wilson`` (for comparison: est_R the
        Horvitz-Thompson estimate, est_recall the post-stratified ratio, intervals by
        MOVER from Wilson intervals; no draws).
    :param threads: runs x cutoffs estimated at once (``None``: :data:`THREADS`); each
        draws from its own random stream, so the results do not depend on it.
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
            f"{_first(f'{t} ({n})' for t, n in counts.items())}); the estimate counts every "
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
            f"{_first(f'{topics[i]}:{names[j]}' for i, j in empty)}); judge the sample "
            f"'{design.name}' first ('pooltool judge --pool {design.name}')")

    sampled = base[..., 1].sum(axis=1)
    model = _interval_model(interval, base, seed, draws)
    r_est, r_low, r_high, r_ht = model.total(r_pool)
    per_r = pd.DataFrame({"topic": topics, "pooled_relevant": r_pool, "sampled": sampled,
                          "est_R": r_est.astype(float), "est_R_low": r_low.astype(float),
                          "est_R_high": r_high.astype(float),
                          "est_R_ht": r_ht.astype(float)})
    depth = max(ks) if max_docs is None else min(max(ks), max_docs)
    placed = _place(runs, design, depth, grades, level, sample, topics)
    jobs = [(code, k) for code in range(len(placed.tags)) for k in ks]

    def estimate(job: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                 np.ndarray, tuple[float, float]]:
        code, k = job
        run = placed.of(code)
        have = np.zeros(len(topics), dtype=bool)
        have[run.topic] = True
        counts, rel_ret = _counts_at(base, run, k)
        scored_zero = len(topics) - int(have.sum()) if complete else 0
        return (have, *model.recall(r_pool[have], rel_ret[have], counts[have], have,
                                    (str(placed.tags[code]), str(k)), scored_zero))

    rows, summary = [], []
    for (code, k), (have, recall, low, high, mean_recall) in zip(
            jobs, _map(estimate, jobs, THREADS if threads is None else threads), strict=True):
        tag = placed.tags[code]
        chosen = np.flatnonzero(have)
        for pos, i in enumerate(chosen):
            rows.append((tag, topics[i], k, int(sampled[i]), r_est[i], r_low[i], r_high[i],
                         r_ht[i], recall[pos], low[pos], high[pos]))
        if len(chosen):
            counted = np.ones(len(topics), dtype=bool) if complete else have
            r_mean = model.mean_total(counted)
            summary.append((tag, k, int(counted.sum()), int(sampled[counted].sum()),
                            _pinned(r_est[counted].mean(), *r_mean), *r_mean,
                            r_ht[counted].mean(),
                            _pinned(recall.sum() / counted.sum(), *mean_recall),
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


Interval = tuple[np.ndarray, np.ndarray, np.ndarray]


class _BetaModel:
    """The ``beta`` interval: hierarchical Beta-binomial posterior draws (module docstring)."""

    name = "beta"

    method = BETA_METHOD

    def __init__(self, base: np.ndarray, seed: int, draws: int) -> None:
        self.base, self.seed, self.draws = base, seed, draws
        self.prior = posterior_priors(base, _stream(seed, "prior"), draws)
        self.r_draws = np.empty((0, draws))
        self.stratum_draws = np.empty((0, 0, draws))

    def total(self, r_pool: np.ndarray) -> tuple[np.ndarray, ...]:
        """Per topic: est_R (the draws' mean), its interval, and est_R_ht."""
        self.stratum_draws = stratum_draws_batch(self.base, _stream(self.seed, "R"),
                                                 self.draws, self.prior)
        self.r_draws = (r_pool + self.base[..., 2].sum(axis=1))[:, None] + \
            self.stratum_draws.sum(axis=1)
        low, high = shortest_interval(self.r_draws)
        return (_pinned(self.r_draws.mean(axis=1), low, high), low, high,
                r_pool + _weighted(self.base, 2))

    def mean_total(self, have: np.ndarray) -> tuple[float, float]:
        """The interval of mean R over the topics ``have``."""
        low, high = shortest_interval(self.r_draws[have].mean(axis=0))
        return float(low), float(high)

    def recall(self, r_pool: np.ndarray, rel_ret: np.ndarray, counts: np.ndarray,
               have: np.ndarray, labels: tuple[str, str], scored_zero: int = 0
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[float, float]]:
        """Per topic est_recall and its interval, and the interval of their mean (for
        the topics ``have`` and ``scored_zero`` more, each 0 in every draw (``-c``); a
        stratum that the run's first k leave whole or take whole reuses R's draws of
        it)."""
        draws = recall_draws_batch(r_pool, rel_ret, counts,
                                   _stream(self.seed, "recall", *labels), self.draws,
                                   self.prior, self.stratum_draws[have])
        low, high = shortest_interval(draws)
        mean_low, mean_high = shortest_interval(draws.sum(axis=0) / (len(draws) + scored_zero))
        return (_pinned(draws.mean(axis=1), low, high), low, high,
                (float(mean_low), float(mean_high)))


class _MoverModel:
    """The ``mover-wilson`` interval around the Horvitz-Thompson estimate
    (:func:`~pooltool.analysis.estimate.mover_total`)."""

    name = "mover-wilson"

    method = MOVER_METHOD

    def __init__(self, base: np.ndarray) -> None:
        self.base = base
        self.r = (np.empty(0),) * 3

    def total(self, r_pool: np.ndarray) -> tuple[np.ndarray, ...]:
        """Per topic: est_R (Horvitz-Thompson), its interval, and est_R_ht (the same).
        The lower end is never below the relevant documents judged (pooled and
        sampled): Wilson's lower share of a stratum times its size can be, and a
        tester saw 3.9999999999999907 beside num_rel 4."""
        estimate, low, high = mover_total(r_pool, Cells.of(*_fields(self.base, 0, 1, 2)))
        judged_relevant = r_pool + self.base[..., 2].sum(axis=1)
        self.r = (estimate, np.maximum(low, judged_relevant), high)
        return (*self.r, self.r[0])

    def mean_total(self, have: np.ndarray) -> tuple[float, float]:
        """The interval of mean R over the topics ``have`` (every stratum of them combined)."""
        return mover_mean(*(v[have] for v in self.r))[1:]

    def recall(self, r_pool: np.ndarray, rel_ret: np.ndarray, counts: np.ndarray,
               have: np.ndarray, labels: tuple[str, str], scored_zero: int = 0
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[float, float]]:
        """Per topic est_recall (post-stratified ratio) and its interval, and their mean's
        (with ``scored_zero`` more topics at 0, ``-c``)."""
        del have, labels  # closed form: nothing drawn
        pop, n, r, pop_in, n_in, r_in = _fields(counts, 0, 1, 2, 3, 4, 5)
        stratum_share = np.divide(r, n, out=np.zeros(r.shape), where=n > 0)
        inside = mover_total(rel_ret, Cells.of(pop_in, n_in, r_in, stratum_share))
        outside = mover_total(r_pool - rel_ret, Cells.of(pop - pop_in, n - n_in, r - r_in,
                                                         stratum_share))
        recall, low, high = mover_ratio(inside, outside)
        zeros = np.zeros(scored_zero)
        return recall, low, high, mover_mean(*(np.concatenate([v, zeros])
                                               for v in (recall, low, high)))[1:]


def _pinned(estimate: Any, low: Any, high: Any) -> Any:
    """The estimate, or the interval's one value where it has no width: a mean of equal
    draws can differ from them in the last bit (every stratum sampled whole: a tester
    saw est_recall 0.20202020202020196 below its _low 0.202020202020202)."""
    return np.where(np.asarray(low) == np.asarray(high), low, estimate)


def _fields(counts: np.ndarray, *fields: int) -> list[np.ndarray]:
    return [counts[..., f] for f in fields]


def _interval_model(interval: str, base: np.ndarray, seed: int,
                    draws: int) -> _BetaModel | _MoverModel:
    """The model of ``interval`` (:data:`~pooltool.analysis.estimate.INTERVAL_METHODS`).

    :raises InvalidArgument: an unknown interval method.
    """
    if interval == "beta":
        return _BetaModel(base, seed, draws)
    if interval == "mover-wilson":
        return _MoverModel(base)
    raise InvalidArgument(f"unknown interval method {interval!r}: choose "
                          f"{' or '.join(INTERVAL_METHODS)}")


def _stream(seed: int, *labels: str) -> np.random.Generator:
    """A random stream fixed by ``seed`` and ``labels`` (sha256 of the labels joined
    by tabs, first 8 bytes; numpy's SeedSequence), the same on every machine. The bit
    generator is SFC64 (Doty-Humphrey's small fast chaotic generator, in numpy), with
    which numpy's Beta draws take 50 ns where its default PCG64's take 69 ns: they are
    most of the estimate's time (bench/README.md)."""
    label = hashlib.sha256("\t".join(labels).encode()).digest()[:8]
    sequence = np.random.SeedSequence([seed % 2 ** 64, int.from_bytes(label, "big")])
    return np.random.Generator(np.random.SFC64(sequence))


def _weighted(counts: np.ndarray, field: int) -> np.ndarray:
    """sum_h N_h / n_h * counts[..., field] per topic (strata with n_h = 0 add 0)."""
    pop, n = counts[..., 0].astype(float), counts[..., 1].astype(float)
    weight = np.divide(pop, n, out=np.zeros(pop.shape), where=n > 0)
    return (weight * counts[..., field]).sum(axis=1)


#: Runs x cutoffs estimated at once, in threads (numpy's Beta and binomial draws, most of
#: the time, let other threads run); about 30 MB of draws each at 250 topics.
THREADS = min(os.cpu_count() or 1, 8)

_T = TypeVar("_T")
_R = TypeVar("_R")


def _map(function: Callable[[_T], _R], items: list[_T], threads: int) -> list[_R]:
    """``[function(item) for item in items]``, in ``threads`` threads when more than one."""
    if threads <= 1 or len(items) < 2:
        return [function(item) for item in items]
    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(function, items))


@dataclass(frozen=True)
class _Lines:
    """Run lines placed in the design, as arrays of one length (one row a line).

    :ivar topic: the topic's position in the design's topics.
    :ivar rank: the line's trec_eval rank.
    :ivar stratum: the stratum's position in the design, -1 for a pooled line or one
        outside the frame.
    :ivar pooled, sampled, relevant: pooled; in the judged sample; relevant (pooled or
        judged sampled documents only: the design's evidence).
    """

    topic: np.ndarray
    rank: np.ndarray
    stratum: np.ndarray
    pooled: np.ndarray
    sampled: np.ndarray
    relevant: np.ndarray

    def part(self, rows: slice) -> _Lines:
        """The lines ``rows``."""
        return _Lines(self.topic[rows], self.rank[rows], self.stratum[rows], self.pooled[rows],
                      self.sampled[rows], self.relevant[rows])


@dataclass(frozen=True)
class _Placed:
    """The lines of every run, run after run.

    :ivar tags: the run tags, in the order they first appear in the input.
    :ivar bounds: run ``i``'s lines are ``lines`` ``bounds[i]`` to ``bounds[i + 1]``.
    """

    tags: list[Any]
    bounds: np.ndarray
    lines: _Lines

    def of(self, code: int) -> _Lines:
        """The lines of run ``tags[code]``."""
        return self.lines.part(slice(self.bounds[code], self.bounds[code + 1]))


def _counts_at(base: np.ndarray, run: _Lines, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The design's counts (``base``, ``(topics, strata, 6)``) with the run's first ``k``
    in each cell filled in (fields 3-5: documents, judged sampled ones, relevant ones),
    and the relevant pooled documents in its first ``k`` per topic."""
    topics, strata = base.shape[:2]
    top = run.rank <= k
    rel_ret = np.bincount(run.topic[top & run.pooled & run.relevant], minlength=topics)
    framed = top & (run.stratum >= 0)
    cell = run.topic[framed] * strata + run.stratum[framed]
    counts = base.copy()
    for field_, rows in ((3, slice(None)), (4, run.sampled[framed]),
                         (5, run.relevant[framed])):
        counts[..., field_] = np.bincount(cell[rows], minlength=topics * strata).reshape(
            topics, strata)
    return counts, rel_ret


def _place(runs: pd.DataFrame, design: Design, depth: int, grades: pd.DataFrame, level: int,
           sample: pd.DataFrame, topics: list[str]) -> _Placed:
    """Each run's first ``depth`` documents in the design's topics, placed: pooled, in a
    stratum (by best rank) or outside the frame, sampled, relevant (see :class:`_Lines`).

    The lines' trec_eval ranks are ``runs["trec_rank"]`` when given, else computed
    (:func:`~pooltool.ranking.trec_ranks`); the lines are not reordered, only grouped
    by run. Every (topic, docno) is looked up once in a table of the pairs the design
    knows (best ranks over the sample's runs, the pool, the judged sample), by integer
    pair codes (a join of millions of run lines on two string columns is slow)."""
    stretches = _Stretches(runs["topic"].to_numpy(dtype=object))
    topic = stretches.spread(pd.Index(topics).get_indexer(stretches.firsts))
    in_design = np.flatnonzero(topic >= 0)
    if "trec_rank" in runs.columns:
        rank = runs["trec_rank"].to_numpy(dtype=np.int64)
    else:
        rank = trec_ranks(runs[["run_tag", "topic", "docno", "score"]])
    by_tag = _Stretches(runs["run_tag"].to_numpy(dtype=object)[in_design])
    tag_of_stretch, tags = pd.factorize(by_tag.firsts)
    tag = by_tag.spread(tag_of_stretch)
    top = rank[in_design] <= depth
    by_run = np.argsort(tag[top], kind="stable")
    lines = in_design[top][by_run]
    bounds = np.searchsorted(tag[top][by_run], np.arange(len(tags) + 1))
    flags = _flags(design, grades, level, sample)
    ranks = design.best_ranks
    rank_topic, flag_topic = (pd.Index(topics).get_indexer(f["topic"]) for f in (ranks, flags))
    ranked, flagged = np.flatnonzero(rank_topic >= 0), np.flatnonzero(flag_topic >= 0)
    line_key, rank_key, flag_key = _pair_keys(
        [topic[lines], rank_topic[ranked], flag_topic[flagged]],
        [runs["docno"].iloc[lines], ranks["docno"].iloc[ranked], flags["docno"].iloc[flagged]])
    known_key, known = _known_pairs(rank_key, ranks["best_rank"].to_numpy(dtype=float)[ranked],
                                    flag_key, flags.iloc[flagged], design.strata)
    at = pd.Index(known_key).get_indexer(line_key)
    at[at < 0] = len(known_key)  # the row of a pair the design does not know
    return _Placed(list(tags), bounds, _Lines(topic[lines], rank[lines],
                                              *(column[at] for column in known)))


class _Stretches:
    """The stretches of equal consecutive values of a column (run lines come run by
    run and topic by topic), so that a lookup or a factorisation is done once per
    stretch, not per line: for the topics of 7.5M run lines, 0.08 s where
    ``Index.get_indexer`` on every line took 1.1 s. Any order works; the gain is in
    how long the stretches are."""

    def __init__(self, values: np.ndarray) -> None:
        starts, self.lengths = stretches(values)
        self.firsts = values[starts]

    def spread(self, per_stretch: np.ndarray) -> np.ndarray:
        """A value per stretch (in the order of :attr:`firsts`) as a value per line."""
        return np.repeat(np.asarray(per_stretch), self.lengths)


def _known_pairs(rank_key: np.ndarray, best_rank: np.ndarray, flag_key: np.ndarray,
                 flags: pd.DataFrame, strata: list[Stratum]
                 ) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """The pairs the design knows (keys of :func:`_pair_keys`: ``rank_key`` with their
    best ranks, ``flag_key`` with their ``flags`` rows), placed as :class:`_Lines`
    places a line: ``stratum, pooled, sampled, relevant``, each with one more row last
    for a pair the design does not know (no best rank, no flag)."""
    in_ranks = pd.Index(rank_key).get_indexer(flag_key)
    extra = np.flatnonzero(in_ranks < 0)
    known_key = np.concatenate([rank_key, flag_key[extra]])
    best = np.concatenate([best_rank, np.full(len(extra) + 1, np.nan)])
    flag_row = np.full(len(known_key) + 1, len(flag_key))  # past the end: no flag
    flag_row[in_ranks[in_ranks >= 0]] = np.flatnonzero(in_ranks >= 0)
    flag_row[len(rank_key):len(known_key)] = extra
    pooled, sampled, relevant = (np.append(flags[c].to_numpy(dtype=bool), False)[flag_row]
                                 for c in ("pooled", "sampled", "relevant"))
    stratum = np.full(len(best), -1, dtype=np.int64)
    for j, s in enumerate(strata):
        stratum[s.holds(best) & (stratum < 0) & ~pooled] = j
    return known_key, (stratum, pooled, sampled, relevant)


def _flags(design: Design, grades: pd.DataFrame, level: int,
           sample: pd.DataFrame) -> pd.DataFrame:
    """``topic, docno, pooled, sampled, relevant``: the design's pooled and judged sampled
    documents (only they are its evidence of relevance), one row a pair."""
    flags = pd.concat([design.pooled[["topic", "docno"]].assign(pooled=True, sampled=False),
                       sample[["topic", "docno"]].assign(pooled=False, sampled=True)])
    flags = flags.groupby(["topic", "docno"], as_index=False)[["pooled", "sampled"]].any()
    flags = flags.merge(grades, on=["topic", "docno"], how="left")
    return flags.assign(relevant=is_relevant(flags["grade"], level).to_numpy(dtype=bool))


def _pair_keys(topics: list[np.ndarray], docnos: list[pd.Series]) -> list[np.ndarray]:
    """One int64 key per (topic position, docno) of each part (``topics[i]`` and
    ``docnos[i]`` of one length), equal for equal pairs across all of them (docno codes
    from one dictionary encoding)."""
    codes, count = _codes(docnos)
    bounds = np.cumsum([0] + [len(d) for d in docnos])
    return [np.asarray(t, dtype=np.int64) * max(count, 1) + codes[a:b]
            for t, a, b in zip(topics, bounds[:-1], bounds[1:], strict=True)]


def _codes(columns: list[pd.Series]) -> tuple[np.ndarray, int]:
    """Codes of the strings of ``columns`` taken as one column (equal strings, equal
    codes), and how many distinct strings: Arrow's hash dictionary encoding (faster than
    pandas' factorize on millions of Python strings; a column pandas holds in Arrow is
    not copied out to Python strings)."""
    values = pa.concat_arrays([_arrow_strings(c) for c in columns])
    encoded = pc.dictionary_encode(values)
    return (encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64),
            len(encoded.dictionary))


def _arrow_strings(column: pd.Series) -> pa.Array:
    """A column of strings as one Arrow ``large_string`` array."""
    if isinstance(column.dtype, pd.StringDtype) and column.dtype.storage == "pyarrow":
        strings = pa.array(column.array)
        if isinstance(strings, pa.ChunkedArray):
            strings = strings.combine_chunks()
        return strings.cast(pa.large_string())
    return pa.array(column.to_numpy(dtype=object), type=pa.large_string())


def _first(items: object, limit: int = 10) -> str:
    listed = list(items)  # type: ignore[call-overload]
    shown = ", ".join(str(i) for i in listed[:limit])
    return shown + (f" and {len(listed) - limit} more" if len(listed) > limit else "")


def load_design(store: JudgmentStore, name: str) -> Design:
    """Read a stored sample (``pooltool sample``) as a :class:`Design`, with its base
    pool as it was when the sample was drawn (:func:`stale_note`).

    :raises StoreError: no such sample (or its base pool is gone).
    """
    design = store.sample_design(name)
    sizes = store.sample_strata(name)
    base = store.sample_base_pool(name)
    later = base["drawn_after"].to_numpy(dtype=bool)
    return Design(
        name=name, strata=parse_strata(design["strata"]), frame=design["frame"],
        pooled=base.loc[~later, ["topic", "docno"]].reset_index(drop=True),
        docs=store.sample_docs(name), sizes=sizes,
        best_ranks=store.best_ranks(design["run_ids"], sorted(set(sizes["topic"]))),
        base_pool=str(design["base_pool"]),
        pooled_later=base.loc[later, ["topic", "docno"]].reset_index(drop=True))


def draw_and_store(store: JudgmentStore, name: str, base_pool: str, spec: str, budget: int,
                   seed: int, allocation: str) -> tuple[dict[str, Any], pd.DataFrame]:
    """Draw a stratified sample beyond ``base_pool`` (:mod:`pooltool.analysis.sampling`)
    and store it as sample and pool ``name``.

    :returns: the design (``strata, frame, allocation, budget, seed``) and the
        strata table (``topic, stratum, population, size``).
    :raises ValueError: a bad spec, budget or allocation, or the unretrieved
        stratum without the collection's documents in the store.
    :raises StoreError: no such pool, a pool without documents, or the name taken.
    """
    strata = parse_strata(spec)
    if store.has_pool(name) or store.has_sample(name):
        raise StoreError(f"a pool or sample named {name!r} exists already; choose another name")
    run_ids = store.pool_run_ids(base_pool)
    topics = store.pooled_topics(base_pool)
    if not topics or not run_ids:
        raise StoreError(f"pool {base_pool!r} has no pooled documents from runs: pool first "
                         "('pooltool pool --depth K')")
    frame = _frame(store, base_pool, run_ids, topics, strata)
    docs, sizes = draw_sample(frame, budget, seed, allocation)
    design = {"strata": ",".join(s.name for s in strata),
              "frame": "collection" if any(s.low is None for s in strata) else "runs",
              "allocation": allocation, "budget": budget, "seed": seed}
    store.add_sample(name, base_pool, design, run_ids, docs, sizes)
    return design, sizes


def _frame(store: JudgmentStore, base_pool: str, run_ids: list[int], topics: list[str],
           strata: list[Stratum]) -> pd.DataFrame:
    """The sampling frame of :func:`~pooltool.analysis.sampling.build_frame` from the store."""
    collection = store.docnos() if any(s.low is None for s in strata) else None
    return build_frame(topics, store.pool_docs(base_pool), store.best_ranks(run_ids, topics),
                       strata, collection)


def grow_and_store(store: JudgmentStore, name: str, more: int) -> tuple[dict[str, Any],
                                                                          pd.DataFrame]:
    """Grow sample ``name`` by ``more`` documents per topic, keeping every earlier draw.

    The design stays: the same frame, strata, allocation and seed, with the budget
    raised to ``budget + more``. Each stratum's documents are drawn in one fixed
    order (sha256 of seed, topic and docno; :mod:`pooltool.analysis.sampling`), so
    the grown sample is a longer prefix of each stratum's order: it holds every
    document drawn before and is itself a stratified simple random sample, of
    sizes n_h' >= n_h (inclusion n_h' / N_h). Judgments of the earlier documents
    stay valid; the new documents need judging.

    :returns: the design (budget raised) and the strata table after the growth
        (``topic, stratum, population, size``).
    :raises StoreError: no such sample, or its frame changed since it was drawn (the
        pool or the store's documents changed: draw a new sample), or a stratum the
        new allocation would shrink.
    """
    design = store.sample_design(name)
    strata = parse_strata(design["strata"])
    before = store.sample_strata(name)
    topics = sorted(set(before["topic"]))
    frame = _frame(store, design["base_pool"], design["run_ids"], topics, strata)
    budget = int(design["budget"]) + more
    docs, sizes = draw_sample(frame, budget, int(design["seed"]), design["allocation"])
    merged = before.merge(sizes, on=["topic", "stratum"], how="outer",
                          suffixes=("_before", ""))
    changed = merged[merged["population_before"] != merged["population"]]
    if len(changed):
        where = _first(changed["topic"].astype(str) + ":" + changed["stratum"].astype(str))
        raise StoreError(
            f"the frame of sample {name!r} changed since it was drawn (strata sizes differ "
            f"in {where}): "
            "the pool or the store's documents changed, so earlier draws would not be a "
            "simple random sample of it; draw a new sample")
    shrunk = merged[merged["size"] < merged["size_before"]]
    if len(shrunk):
        raise StoreError(f"growing sample {name!r} to {budget} per topic would take documents "
                         f"from stratum(s) {_first(set(shrunk['stratum']))} "
                         f"({design['allocation']} allocation); grow by more")
    added = docs[~docs.set_index(["topic", "docno"]).index.isin(
        store.sample_docs(name).set_index(["topic", "docno"]).index)]
    store.grow_sample(name, budget, added, sizes)
    return {**design, "budget": budget, "added": len(added)}, sizes
