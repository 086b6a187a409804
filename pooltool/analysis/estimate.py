"""Estimating what a pool missed from a stratified sample beyond it (pure functions).

The design (see :mod:`pooltool.analysis.sampling`): per topic, the documents of
the *frame* that the pool did not take are split into strata; stratum h holds
``N_h`` documents, of which a simple random sample without replacement of
``n_h`` is judged, so each has inclusion probability ``pi_h = n_h / N_h``.

Estimators (per topic; counts are documents):

* **R** (relevant documents in the frame): the Horvitz-Thompson estimator
  ``R_hat = R_pool + sum_h r_h / pi_h`` with ``R_pool`` the pooled relevant
  documents (all judged, so known) and ``r_h`` the sampled relevant ones
  (Horvitz & Thompson 1952, 'A generalization of sampling without replacement
  from a finite universe'; used for R in infAP, Yilmaz & Aslam 2006, and
  statAP, Aslam, Pavlu & Yilmaz 2006). Its variance under stratified simple
  random sampling is ``sum_h N_h^2 (1 - n_h/N_h) s_h^2 / n_h``, estimated
  without bias by the sample variance ``s_h^2`` of the 0/1 relevance values
  (Cochran 1977, 'Sampling Techniques', eq. 5.7 and thm. 5.4).
* **Recall@k** of a run: the ratio estimator ``Y_hat / R_hat``, ``Y_hat`` the
  same Horvitz-Thompson sum over the run's first k documents (relevant pooled
  ones, plus sampled relevant ones in the top k over ``pi_h``); 0 when
  ``R_hat`` is 0, as trec_eval scores a topic without relevant documents.
  Its linearised variance is Cochran 1977, eq. 6.13 (stratified, separate
  strata combined: ``z = y - ratio * x``).

Intervals (95%): ``beta``, pooltool's, from posterior draws
(:mod:`pooltool.analysis.beta_draws`); ``mover-wilson``, closed form around the
Horvitz-Thompson estimate, for comparison (:mod:`pooltool.analysis.mover`);
``normal`` (:func:`normal_interval`): estimate +- 1.96 standard errors (the
textbook interval, here only for comparison: it has zero width when no sampled
document is relevant).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pooltool.errors import InvalidArgument

Z95 = 1.959963984540054
#: The interval methods :func:`~pooltool.analysis.sample_estimates.estimate_recall` knows
#: (``beta``: what pooltool reports).
INTERVAL_METHODS = ("beta", "mover-wilson")
NORMAL_METHOD = "normal: estimate +- 1.96 standard errors (Cochran 1977)"


@dataclass(frozen=True)
class StratumCounts:
    """One stratum of one topic, and what its judged sample found.

    :param population: N_h, the stratum's documents (not pooled), >= 1.
    :param sampled: n_h, sampled documents that are judged, 0..N_h.
    :param relevant: r_h, sampled documents judged relevant, 0..n_h.
    :param population_in: of N_h, the documents in the run's first k (Recall@k only).
    :param sampled_in: of n_h, those in the run's first k.
    :param relevant_in: of r_h, those in the run's first k.
    :raises InvalidArgument: counts out of order (e.g. relevant > sampled).
    """

    population: int
    sampled: int
    relevant: int
    population_in: int = 0
    sampled_in: int = 0
    relevant_in: int = 0

    def __post_init__(self) -> None:
        ok = (0 <= self.relevant <= self.sampled <= self.population
              and 0 <= self.relevant_in <= self.sampled_in <= self.population_in
              and self.sampled_in <= self.sampled and self.relevant_in <= self.relevant
              and self.population_in <= self.population
              and self.sampled - self.sampled_in <= self.population - self.population_in
              and self.relevant - self.relevant_in <= self.sampled - self.sampled_in)
        if not ok:
            raise InvalidArgument(f"inconsistent stratum counts: {self}")

    @property
    def weight(self) -> float:
        """1 / pi_h = N_h / n_h (each sampled document stands for this many); needs n_h >= 1."""
        return self.population / self.sampled


def _check_sampled(strata: Sequence[StratumCounts]) -> None:
    for stratum in strata:
        if stratum.sampled == 0:
            raise InvalidArgument(f"a stratum of {stratum.population} document(s) has no judged "
                             "sampled document, so its relevant documents cannot be estimated")


def ht_total(pooled_relevant: int, strata: Sequence[StratumCounts]) -> float:
    """The Horvitz-Thompson estimate of R, a topic's relevant documents in the frame.

    :param pooled_relevant: relevant pooled documents (known exactly).
    :param strata: the topic's strata (each with n_h >= 1).
    :returns: ``R_pool + sum_h N_h r_h / n_h`` (documents; not an integer in general).
    :raises InvalidArgument: a stratum with no judged sampled document.
    """
    _check_sampled(strata)
    return pooled_relevant + sum(s.weight * s.relevant for s in strata)


def ht_variance(strata: Sequence[StratumCounts]) -> float:
    """The unbiased estimate of the variance of :func:`ht_total` (documents squared).

    ``sum_h N_h^2 (1 - n_h/N_h) s_h^2 / n_h`` with ``s_h^2 = r_h (n_h - r_h) /
    (n_h (n_h - 1))``; a stratum sampled whole adds 0. Cochran 1977, eq. 5.7.

    :raises InvalidArgument: a stratum with n_h < 2 that is not sampled whole (no
        variance estimate exists).
    """
    total = 0.0
    for s in _sampled_in_part(strata):
        s2 = s.relevant * (s.sampled - s.relevant) / (s.sampled * (s.sampled - 1))
        total += s.population ** 2 * (1 - s.sampled / s.population) * s2 / s.sampled
    return total


def _sampled_in_part(strata: Sequence[StratumCounts]) -> list[StratumCounts]:
    """The strata that add to a variance: those not sampled whole.

    :raises InvalidArgument: such a stratum has fewer than 2 judged sampled documents
        (no variance estimate exists).
    """
    partial = [s for s in strata if s.sampled != s.population]
    for s in partial:
        if s.sampled < 2:
            raise InvalidArgument(f"a stratum of {s.population} documents with {s.sampled} "
                                  "judged sampled document(s) has no variance estimate (needs 2)")
    return partial


def ht_retrieved(pooled_rel_ret: int, strata: Sequence[StratumCounts]) -> float:
    """The Horvitz-Thompson estimate of the relevant documents in a run's first k:
    ``pooled_rel_ret + sum_h N_h r_in_h / n_h`` (documents).

    :raises InvalidArgument: a stratum with no judged sampled document.
    """
    _check_sampled(strata)
    return pooled_rel_ret + sum(s.weight * s.relevant_in for s in strata)


def ratio_recall(pooled_relevant: int, pooled_rel_ret: int,
                 strata: Sequence[StratumCounts]) -> float:
    """The ratio estimate of Recall@k: :func:`ht_retrieved` / :func:`ht_total`
    (a fraction 0..1; 0 when the estimated R is 0).

    :raises InvalidArgument: a stratum with no judged sampled document.
    """
    total = ht_total(pooled_relevant, strata)
    return 0.0 if total == 0 else ht_retrieved(pooled_rel_ret, strata) / total


def ratio_variance(pooled_relevant: int, pooled_rel_ret: int,
                   strata: Sequence[StratumCounts]) -> float:
    """The linearised variance of :func:`ratio_recall` (Cochran 1977, eq. 6.13):
    ``sum_h N_h^2 (1 - f_h) s_zh^2 / n_h / R_hat^2`` with ``z = y - ratio * x``
    (``x``: relevant, ``y``: relevant and in the top k); 0 when R_hat is 0.

    :raises InvalidArgument: as :func:`ht_variance`.
    """
    total = ht_total(pooled_relevant, strata)
    if total == 0:
        return 0.0
    ratio = ht_retrieved(pooled_rel_ret, strata) / total
    variance = 0.0
    for s in _sampled_in_part(strata):
        # z is 1 - ratio (relevant, in the top k), -ratio (relevant, not in it), 0 (other)
        ins, outs = s.relevant_in, s.relevant - s.relevant_in
        mean = (ins * (1 - ratio) - outs * ratio) / s.sampled
        squares = ins * (1 - ratio) ** 2 + outs * ratio ** 2
        s2 = (squares - s.sampled * mean ** 2) / (s.sampled - 1)
        variance += s.population ** 2 * (1 - s.sampled / s.population) * s2 / s.sampled
    return variance / total ** 2


def normal_interval(estimate: float, variance: float) -> tuple[float, float]:
    """``estimate +- 1.96 sqrt(variance)`` (no clipping)."""
    half = Z95 * float(np.sqrt(max(variance, 0.0)))
    return estimate - half, estimate + half


def counts_array(topics: Sequence[Sequence[StratumCounts]]) -> np.ndarray:
    """Stack the strata of several topics: int64 array ``(topics, strata, 6)`` in the
    field order of :class:`StratumCounts` (topics with fewer strata padded with
    empty ones)."""
    width = max((len(t) for t in topics), default=0)
    out = np.zeros((len(topics), width, 6), dtype=np.int64)
    for i, strata in enumerate(topics):
        for j, s in enumerate(strata):
            out[i, j] = (s.population, s.sampled, s.relevant,
                         s.population_in, s.sampled_in, s.relevant_in)
    return out
