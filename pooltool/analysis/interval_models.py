"""The interval models of :func:`~pooltool.analysis.sample_estimates.estimate_recall`:
``beta`` (:class:`BetaModel`, posterior draws from reproducible random streams) and
``mover-wilson`` (:class:`MoverModel`, closed form).
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from pooltool.analysis.beta_draws import (
    BETA_METHOD,
    posterior_priors,
    recall_draws_batch,
    shortest_interval,
    stratum_draws_batch,
    total_mean_batch,
)
from pooltool.analysis.estimate import INTERVAL_METHODS
from pooltool.analysis.mover import MOVER_METHOD, Cells, mover_mean, mover_ratio, mover_total
from pooltool.errors import InvalidArgument


class BetaModel:
    """The ``beta`` interval: hierarchical Beta-binomial posterior draws (module docstring).

    est_R is R's posterior mean worked out given the prior's draws
    (:func:`~pooltool.analysis.beta_draws.total_mean_batch`), est_recall the mean of
    Recall@k's draws; the intervals come from ``draws`` draws of R and ``recall_draws``
    of Recall@k (the first of the prior's).
    """

    name = "beta"

    method = BETA_METHOD

    def __init__(self, base: np.ndarray, seed: int, draws: int, recall_draws: int) -> None:
        self.base, self.seed, self.draws = base, seed, draws
        self.recall_draws = min(recall_draws, draws)
        self.prior = posterior_priors(base, _stream(seed, "prior"), draws)
        self.r_draws = np.empty((0, draws))
        self.stratum_draws = np.empty((0, 0, draws))

    def total(self, r_pool: np.ndarray) -> tuple[np.ndarray, ...]:
        """Per topic: est_R (the posterior mean), its interval, and est_R_ht."""
        self.stratum_draws = stratum_draws_batch(self.base, _stream(self.seed, "R"),
                                                 self.draws, self.prior)
        self.r_draws = (r_pool + self.base[..., 2].sum(axis=1))[:, None] + \
            self.stratum_draws.sum(axis=1)
        low, high = shortest_interval(self.r_draws)
        return (pinned(total_mean_batch(r_pool, self.base, self.prior), low, high), low, high,
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
        used = self.recall_draws
        draws = recall_draws_batch(r_pool, rel_ret, counts,
                                   _stream(self.seed, "recall", *labels), used,
                                   (self.prior[0][:, :used], self.prior[1][:, :used]),
                                   self.stratum_draws[have][..., :used])
        low, high = shortest_interval(draws)
        mean_low, mean_high = shortest_interval(draws.sum(axis=0) / (len(draws) + scored_zero))
        return (pinned(draws.mean(axis=1), low, high), low, high,
                (float(mean_low), float(mean_high)))


class MoverModel:
    """The ``mover-wilson`` interval around the Horvitz-Thompson estimate
    (:func:`~pooltool.analysis.mover.mover_total`)."""

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


def pinned(estimate: Any, low: Any, high: Any) -> Any:
    """The estimate, or the interval's one value where it has no width: a mean of equal
    draws can differ from them in the last bit (every stratum sampled whole: a tester
    saw est_recall 0.20202020202020196 below its _low 0.202020202020202)."""
    return np.where(np.asarray(low) == np.asarray(high), low, estimate)


def _fields(counts: np.ndarray, *fields: int) -> list[np.ndarray]:
    return [counts[..., f] for f in fields]


def interval_model(interval: str, base: np.ndarray, seed: int, draws: int,
                   recall_draws: int) -> BetaModel | MoverModel:
    """The model of ``interval`` (:data:`~pooltool.analysis.estimate.INTERVAL_METHODS`);
    ``draws`` and ``recall_draws`` as :class:`BetaModel`'s.

    :raises InvalidArgument: an unknown interval method.
    """
    if interval == "beta":
        return BetaModel(base, seed, draws, recall_draws)
    if interval == "mover-wilson":
        return MoverModel(base)
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
