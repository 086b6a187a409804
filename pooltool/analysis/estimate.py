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

Intervals (95%):

* ``beta`` (pooltool's interval): a Bayesian interval that holds at small
  counts. Each cell (a stratum; for Recall@k a stratum split into the
  documents inside and outside the run's top k) gets a Beta posterior for its
  share of relevant documents, and its unsampled documents a Beta-binomial
  count drawn from it (the finite-population posterior predictive). The Beta
  prior of a stratum is shared by the topics and learnt from all their samples:
  a hierarchical model whose prior mean and weight have a posterior of their
  own (:func:`posterior_priors`), from which each draw takes one, shared by
  the draws of every topic with the same index, so the uncertainty of what the
  topics have in common does not average out in a mean over topics. R and
  Recall@k are simulated from the cells' draws, and the interval is the
  shortest holding 95% of the draws (:func:`shortest_interval`); the interval
  of a mean over topics is that of the per-draw means. A stratum sampled with
  no relevant document still leaves room for relevant ones among its
  unsampled documents, so the interval does not collapse to a point while
  documents stay unjudged. Sources: the Beta-binomial posterior predictive of
  a finite population, Ericson 1969, 'Subjective Bayesian models in sampling
  finite populations' (JRSS B 31); the hierarchical Beta-binomial model and its
  grid, Gelman et al. 2013, 'Bayesian Data Analysis', 3rd ed., sec. 5.3, and
  intervals from draws, ibid. ch. 2; the shortest one, Chen & Shao 1999
  (J. Comput. Graph. Stat. 8). Validated on Cranfield campaigns of 5 to 225
  topics (docs/estimates.md). The interval
  is the model's, so it need not contain the Horvitz-Thompson estimate of R:
  a stratum whose sample found no relevant document adds 0 to that estimate
  but some relevant documents to the draws. pooltool therefore reports the
  draws' mean as the estimate beside the interval
  (:mod:`pooltool.analysis.sample_estimates`).
* ``mover-wilson``: an interval built around the Horvitz-Thompson estimate,
  which it always contains (:func:`mover_total`): a Wilson score interval per
  stratum (finite-population corrected), combined by the method of variance
  estimates recovery (Zou & Donner 2008; Newcombe 1998); Recall@k by MOVER
  for a ratio over the strata split into the run's first k and the rest
  (:func:`mover_ratio`); the mean over topics by MOVER over the topics
  (:func:`mover_mean`). Closed form, no draws. Not pooltool's default: it
  uses no information across topics, so with a few sampled documents in a
  stratum of hundreds a topic's interval of R spans hundreds of documents, yet
  it covers less than 95% where the sample found a relevant document deep
  down (Wilson's lower limit of 1 in 5 is far above 1 in 800), and the mean
  of the per-topic ratio estimates is biased, so the interval of mean
  Recall@k did not cover in 200 repetitions (figures in docs/estimates.md, from
  ``bench/bench_estimate_cranfield.py``). Kept for that comparison.
* ``normal``: estimate +- 1.96 standard errors (the textbook interval, here
  only for comparison: it has zero width when no sampled document is
  relevant).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pooltool.errors import InvalidArgument

Z95 = 1.959963984540054
#: Simulated draws behind every ``beta`` interval (the Cranfield validation's setting).
DRAWS = 1000
#: The hyperprior's grid: the prior mean m of a stratum's share on a logit scale
#: (``M_LOGITS``), the prior's weight c in documents on a log scale (``C_RANGE``).
M_LOGITS = np.linspace(-14.0, 14.0, 160)
C_RANGE = (1e-2, 1e4)
C_LOGS = np.linspace(np.log(C_RANGE[0]), np.log(C_RANGE[1]), 60)
#: The interval methods :func:`~pooltool.analysis.sample_estimates.estimate_recall` knows
#: (``beta``: what pooltool reports).
INTERVAL_METHODS = ("beta", "mover-wilson")
BETA_METHOD = ("hierarchical Beta-binomial posterior per stratum, its prior's mean and weight "
               "drawn from their posterior across topics (Jeffreys' prior on the mean, "
               f"log-uniform weight {C_RANGE[0]:g}-{C_RANGE[1]:g} documents); the shortest "
               f"interval holding 95% of {DRAWS} draws (Ericson 1969; Gelman et al. 2013, "
               "sec. 5.3; Chen & Shao 1999)")
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


Prior = tuple[np.ndarray, np.ndarray]
#: Jeffreys' prior, Beta(1/2, 1/2), for every stratum.
JEFFREYS: Prior = (np.array(0.5), np.array(0.5))


def posterior_priors(counts: np.ndarray, rng: np.random.Generator,
                     draws: int = DRAWS) -> Prior:
    """Each stratum's Beta prior drawn from its posterior across topics, one per draw
    (module docstring, ``beta``): the hierarchical Beta-binomial model.

    Per stratum h, topic t's share of relevant documents is ``p_t ~ Beta(m c, (1 - m)
    c)``, and its sample found ``r_t ~ Binomial(n_t, p_t)``. The hyperparameters have
    the prior ``m ~ Beta(1/2, 1/2)`` (Jeffreys') and ``log c`` uniform on
    :data:`C_RANGE` (from a prior worth a hundredth of a document, whose shares sit
    near 0 or 1, to one worth ten thousand, where every topic has the same share);
    their posterior ``p(m, c | r) ~ p(m, c) prod_t B(r_t + m c, n_t - r_t + (1 - m) c)
    / B(m c, (1 - m) c)`` is computed on a grid (:data:`M_LOGITS` x :data:`C_LOGS`),
    and each draw takes a grid cell from it and a point uniformly within the cell
    (Gelman et al. 2013, 'Bayesian Data Analysis', 3rd ed., sec. 5.3, the
    hierarchical Beta-binomial model and its grid). Given (m, c), a topic's share
    has the posterior ``Beta(r_t + m c, n_t - r_t + (1 - m) c)``
    (:func:`stratum_draws_batch`), so the draws carry the uncertainty of the
    across-topics prior as well as each topic's own, and a topic of few sampled
    documents borrows what the other topics' samples found.

    Why not the hyperprior of Gelman et al. (``(alpha + beta)^(-5/2)``, i.e. m
    uniform and density ``c^(-3/2)``): it favours small c, where a topic whose sample
    found nothing has almost no relevant documents left; on 20 Cranfield topics (10
    repetitions) its intervals covered R per topic 88.5% and Recall@100 85% (with
    Jeffreys' prior on m, 85% and 76%). Why not an empirical-Bayes fit (pooltool until 2026-11-30): the
    fit, even refitted on topics resampled with replacement, carries little of its
    own uncertainty where the samples of a deep stratum found one relevant document
    or none, and on 12-112 Cranfield topics its intervals of mean Recall@100 covered
    12-98%; its cap on c (49 documents) was also far below the deep strata's true
    c on Cranfield (about 400-500).

    :param counts: from :func:`counts_array`, shape ``(topics, strata, 6)``.
    :returns: ``(a, b)``, each shape ``(strata, draws)``; a stratum sampled in no
        topic gets Jeffreys' Beta(1/2, 1/2) (it has nothing unsampled to draw for).
    """
    from scipy.special import betaln

    strata = counts.shape[1]
    a, b = np.full((strata, draws), 0.5), np.full((strata, draws), 0.5)
    logit, log_c = np.meshgrid(M_LOGITS, C_LOGS, indexing="ij")
    m, c = 1 / (1 + np.exp(-logit)), np.exp(log_c)
    alpha, beta = m * c, (1 - m) * c
    # Jeffreys' density of m per unit of logit, times a constant per unit of log c
    log_hyperprior = 0.5 * (np.log(m) + np.log1p(-m))
    prior_norm = betaln(alpha, beta)
    for h in range(strata):
        n, r = counts[:, h, 1], counts[:, h, 2]
        seen = n > 0
        if not seen.any():
            continue
        pairs, times = np.unique(np.stack([n[seen], r[seen]], axis=1), axis=0,
                                 return_counts=True)
        log_post = log_hyperprior.copy()
        for (sampled, relevant), topics in zip(pairs, times, strict=True):
            log_post += topics * (betaln(alpha + relevant, beta + sampled - relevant)
                                  - prior_norm)
        weight = np.exp(log_post - log_post.max()).ravel()
        cell = rng.choice(weight.size, size=draws, p=weight / weight.sum())
        i, j = np.unravel_index(cell, logit.shape)
        m_draw = _within(M_LOGITS, i, rng)
        c_draw = np.exp(_within(C_LOGS, j, rng))
        a[h] = c_draw / (1 + np.exp(-m_draw))
        b[h] = c_draw / (1 + np.exp(m_draw))
    return a, b


def _within(grid: np.ndarray, index: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A point drawn uniformly within each chosen cell of an evenly spaced grid."""
    step = grid[1] - grid[0]
    return grid[index] + (rng.random(len(index)) - 0.5) * step


def _per_draw(value: np.ndarray) -> np.ndarray:
    """A prior's ``a`` or ``b`` as ``(strata, 1)`` (one per stratum) or as given
    (``(strata, draws)``, one per draw, or a scalar)."""
    value = np.asarray(value, dtype=float)
    return value[:, None] if value.ndim == 1 else value


def _unsampled_relevant(rng: np.random.Generator, unsampled: np.ndarray, sampled: np.ndarray,
                        relevant: np.ndarray, draws: int, prior: Prior,
                        known: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Draws of the relevant documents among each cell's unsampled ones: shape
    ``cells.shape + (draws,)``, from the Beta-binomial posterior predictive under
    ``prior`` (``(a, b)``, each a scalar, shape ``(strata,)`` or ``(strata, draws)``,
    broadcast over the cells' last axis, the strata). ``known``: a mask of cells
    (``cells.shape``) and draws already made for them under the same posterior
    (``cells.shape + (draws,)``), taken instead of new ones."""
    a, b = (np.broadcast_to(_per_draw(x), unsampled.shape[-1:] + (draws,)) for x in prior)
    out = np.zeros(unsampled.shape + (draws,))
    todo = unsampled > 0  # a cell with nothing unsampled adds nothing
    if known is not None:
        reuse, made = known
        out[reuse] = made[reuse]
        todo &= ~reuse
    cells = np.nonzero(todo)
    strata = cells[-1]
    share = rng.beta(relevant[cells][:, None] + a[strata],
                     (sampled - relevant)[cells][:, None] + b[strata])
    out[cells] = rng.binomial(unsampled[cells][:, None], share)
    return out


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


def stratum_draws_batch(counts: np.ndarray, rng: np.random.Generator, draws: int = DRAWS,
                        prior: Prior = JEFFREYS) -> np.ndarray:
    """Posterior draws of each stratum's relevant documents among its unsampled ones
    (module docstring, ``beta``).

    :param counts: from :func:`counts_array`, shape ``(topics, strata, 6)``.
    :param prior: the Beta prior per stratum or per stratum and draw
        (:func:`posterior_priors`); default Jeffreys'.
    :returns: float array ``(topics, strata, draws)``: ``U_h``, the drawn relevant
        documents among the stratum's N_h - n_h unsampled ones.
    """
    pop, n, r = counts[..., 0], counts[..., 1], counts[..., 2]
    return _unsampled_relevant(rng, pop - n, n, r, draws, prior)


def total_draws_batch(pooled_relevant: np.ndarray, counts: np.ndarray,
                      rng: np.random.Generator, draws: int = DRAWS,
                      prior: Prior = JEFFREYS) -> np.ndarray:
    """Posterior draws of R for several topics at once (module docstring, ``beta``).

    :param pooled_relevant: shape ``(topics,)``.
    :param counts: from :func:`counts_array`, shape ``(topics, strata, 6)``.
    :param prior: as :func:`stratum_draws_batch`.
    :returns: float array ``(topics, draws)``: ``R_pool + sum_h (r_h + U_h)``, ``U_h``
        the drawn relevant documents among the stratum's N_h - n_h unsampled ones.
    """
    unsampled = stratum_draws_batch(counts, rng, draws, prior).sum(axis=1)
    return (pooled_relevant + counts[..., 2].sum(axis=1))[:, None] + unsampled


def recall_draws_batch(pooled_relevant: np.ndarray, pooled_rel_ret: np.ndarray,
                       counts: np.ndarray, rng: np.random.Generator,
                       draws: int = DRAWS, prior: Prior = JEFFREYS,
                       stratum_draws: np.ndarray | None = None) -> np.ndarray:
    """Posterior draws of a run's Recall@k for several topics (module docstring,
    ``beta``): each stratum is split into the documents in the run's first k and
    the rest, each part with its own posterior.

    :param pooled_relevant: shape ``(topics,)``; ``pooled_rel_ret`` the same.
    :param counts: from :func:`counts_array`.
    :param prior: as :func:`stratum_draws_batch`.
    :param stratum_draws: :func:`stratum_draws_batch` of the same topics and prior, or
        ``None``. Where the run's first k hold none of a stratum's documents (or all
        of them), the part outside (inside) is the stratum itself, with the same
        posterior, so its draws are taken from here instead of drawn anew: the same
        model, fewer draws.
    :returns: float array ``(topics, draws)`` of fractions 0..1 (0 where the drawn R is 0).
    """
    pop, n, r = counts[..., 0], counts[..., 1], counts[..., 2]
    pop_in, n_in, r_in = counts[..., 3], counts[..., 4], counts[..., 5]
    whole_in = whole_out = None
    if stratum_draws is not None:
        whole_in, whole_out = (pop_in == pop, stratum_draws), (pop_in == 0, stratum_draws)
    inside = (pooled_rel_ret + r_in.sum(axis=1))[:, None] + _unsampled_relevant(
        rng, pop_in - n_in, n_in, r_in, draws, prior, whole_in).sum(axis=1)
    outside = (r - r_in).sum(axis=1)[:, None] + _unsampled_relevant(
        rng, (pop - pop_in) - (n - n_in), n - n_in, r - r_in, draws, prior,
        whole_out).sum(axis=1)
    total = (pooled_relevant - pooled_rel_ret)[:, None] + inside + outside
    return np.divide(inside, total, out=np.zeros(total.shape), where=total > 0)


def total_draws(pooled_relevant: int, strata: Sequence[StratumCounts],
                rng: np.random.Generator, draws: int = DRAWS) -> np.ndarray:
    """:func:`total_draws_batch` for one topic: shape ``(draws,)``."""
    return total_draws_batch(np.array([pooled_relevant]), counts_array([strata]), rng, draws)[0]


def recall_draws(pooled_relevant: int, pooled_rel_ret: int, strata: Sequence[StratumCounts],
                 rng: np.random.Generator, draws: int = DRAWS) -> np.ndarray:
    """:func:`recall_draws_batch` for one topic: shape ``(draws,)``."""
    return recall_draws_batch(np.array([pooled_relevant]), np.array([pooled_rel_ret]),
                              counts_array([strata]), rng, draws)[0]


def shortest_interval(draws: np.ndarray, mass: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The shortest interval holding ``mass`` of simulated draws, along the last axis
    (the highest-posterior-density interval of a unimodal posterior, estimated from
    draws as Chen & Shao 1999, 'Monte Carlo estimation of Bayesian credible and HPD
    intervals', J. Comput. Graph. Stat. 8: of the intervals from the i-th to the
    (i + ceil(mass n) - 1)-th smallest of n draws, the narrowest; the lowest of equally
    narrow ones).

    Why not the central (2.5th to 97.5th percentile) interval: R cannot fall below
    the relevant documents already judged, and Recall@k cannot pass 1, so where the
    draws pile up at such a bound the central interval's lower (upper) 2.5% is
    spent on nothing and it covers more than 95% (R per topic 98.7% on Cranfield,
    bench/README.md); the shortest interval spends it on the other side.

    :param draws: float array ``(..., n)``, n >= 1.
    :param mass: the share of the draws inside, 0 < mass <= 1.
    :returns: ``(low, high)``, arrays of the leading shape (0-d for one row).
    """
    ordered = np.sort(draws, axis=-1)
    n = ordered.shape[-1]
    inside = int(np.ceil(mass * n))
    widths = ordered[..., inside - 1:] - ordered[..., :n - inside + 1]
    start = np.argmin(widths, axis=-1)[..., None]
    low = np.take_along_axis(ordered, start, axis=-1)[..., 0]
    high = np.take_along_axis(ordered, start + inside - 1, axis=-1)[..., 0]
    return low, high


MOVER_METHOD = ("mover-wilson: the Horvitz-Thompson estimate with a 95% interval combined "
                "from a Wilson score interval per stratum (finite-population corrected) by "
                "the method of variance estimates recovery; Recall@k by MOVER for a ratio "
                "(Wilson 1927; Newcombe 1998; Zou & Donner 2008)")


def wilson_shares(relevant: np.ndarray, sampled: np.ndarray,
                  population: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 95% Wilson score interval of each cell's share of relevant documents.

    The share's variance under simple random sampling without replacement is
    ``p (1 - p) / n * (N - n) / (N - 1)`` (Cochran 1977, eq. 3.7), so the score
    interval is Wilson's with the effective size ``n (N - 1) / (N - n)``
    (Wilson 1927, 'Probable inference, the law of succession, and statistical
    inference', JASA 22). A cell sampled whole has no width; a cell with no
    sampled document gets [0, 1]. Unlike the normal interval, a cell whose sample
    holds no relevant document keeps width: [0, z^2 / (n_eff + z^2)].

    :param relevant: r, relevant sampled documents per cell (any shape).
    :param sampled: n, judged sampled documents per cell, same shape.
    :param population: N, the cell's documents, same shape.
    :returns: ``(low, high)``, shares 0..1, the shape of the inputs.
    """
    r, n, big_n = (np.asarray(x, dtype=float) for x in (relevant, sampled, population))
    share = np.divide(r, n, out=np.zeros(r.shape), where=n > 0)
    partial = (n > 0) & (n < big_n)
    n_eff = np.divide(n * (big_n - 1), big_n - n, out=np.ones(r.shape), where=partial)
    z2 = Z95 ** 2
    scale = 1 + z2 / n_eff
    centre = (share + z2 / (2 * n_eff)) / scale
    half = Z95 / scale * np.sqrt(share * (1 - share) / n_eff + z2 / (4 * n_eff ** 2))
    low = np.where(partial, np.maximum(centre - half, 0.0), share)
    high = np.where(partial, np.minimum(centre + half, 1.0), share)
    empty = n == 0
    return np.where(empty, 0.0, low), np.where(empty, 1.0, high)


@dataclass(frozen=True)
class Cells:
    """Cells of a stratified sample, several topics at once: arrays ``(topics, cells)``.

    :ivar population: N, documents in the cell (0 for padding).
    :ivar sampled: n, judged sampled documents in it.
    :ivar relevant: r, of them relevant.
    :ivar share: the share of relevant documents that estimates the cell: r / n, or
        where n = 0 a stated stand-in (its stratum's share, for a post-stratum).
    """

    population: np.ndarray
    sampled: np.ndarray
    relevant: np.ndarray
    share: np.ndarray

    @classmethod
    def of(cls, population: np.ndarray, sampled: np.ndarray, relevant: np.ndarray,
           fallback: np.ndarray | None = None) -> Cells:
        """Cells whose share is r / n (``fallback`` where n = 0, else 0)."""
        empty = np.zeros(np.shape(population)) if fallback is None else fallback
        share = np.divide(relevant, sampled, out=np.asarray(empty, dtype=float).copy(),
                          where=sampled > 0)
        return cls(population, sampled, relevant, share)


def mover_total(known: np.ndarray, cells: Cells) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A topic's total of relevant documents with its 95% MOVER-Wilson interval.

    Each cell's total ``T_h = N_h p_h`` gets the interval ``[L_h, U_h]``: its
    :func:`wilson_shares` times N_h, kept within what the sample proves (at least
    r_h, at most N_h - (n_h - r_h)). The cells are independent, so the method of
    variance estimates recovery (MOVER; Zou & Donner 2008, 'Construction of
    confidence limits about effect measures: a general approach', Statistics in
    Medicine 27; for sums and differences of proportions, Newcombe 1998,
    Statistics in Medicine 17) combines them around the estimate
    ``T = known + sum_h T_h``: ``L = T - sqrt(sum_h (T_h - L_h)^2)``,
    ``U = T + sqrt(sum_h (U_h - T_h)^2)``. The interval always holds T, has width
    while any sampled cell is not sampled whole, and never goes below what is
    known plus what was found.

    :param known: documents counted exactly (the pooled relevant ones), ``(topics,)``.
    :param cells: the cells, arrays ``(topics, cells)``.
    :returns: ``(estimate, low, high)``, each ``(topics,)`` (documents).
    """
    low, high = wilson_shares(cells.relevant, cells.sampled, cells.population)
    big_n = np.asarray(cells.population, dtype=float)
    total = big_n * cells.share
    proven = np.asarray(cells.relevant, dtype=float)
    possible = big_n - (cells.sampled - cells.relevant)
    below = total - np.maximum(big_n * low, proven)
    above = np.minimum(big_n * high, possible) - total
    estimate = known + total.sum(axis=-1)
    return (estimate, estimate - np.sqrt((below ** 2).sum(axis=-1)),
            estimate + np.sqrt((above ** 2).sum(axis=-1)))


def mover_ratio(inside: tuple[np.ndarray, np.ndarray, np.ndarray],
                outside: tuple[np.ndarray, np.ndarray, np.ndarray]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Recall ``Y / (Y + X)`` with a 95% interval from independent intervals of Y
    (relevant documents in the run's first k) and X (relevant documents outside).

    With ``t = Y / X`` and recall ``t / (1 + t)`` (increasing in t), the limits of
    t are where the MOVER interval of ``Y - t X`` has 0 as its end (Fieller's
    theorem with MOVER's recovered variances, 'MOVER-R': Donner & Zou 2012,
    'Closed-form confidence intervals for functions of the normal mean and
    standard deviation', Statistical Methods in Medical Research 21; Newcombe
    2016, 'MOVER-R confidence intervals for ratios and products of two
    independently estimated quantities', ibid.): with
    ``a = Y, b = X``, the lower limit solves ``(b^2 - dx^2) t^2 - 2ab t + a^2 -
    dy^2 = 0`` for ``dy = Y - Y_low, dx = X_high - X`` (its smaller positive
    root), the upper one the same with ``dy = Y_high - Y, dx = X - X_low`` (its
    larger root; none when X may be 0: recall up to 1). The estimate is 0 where
    Y + X is 0 (as trec_eval scores a topic without relevant documents).

    :param inside: ``(Y, Y_low, Y_high)``, arrays of one shape (documents).
    :param outside: ``(X, X_low, X_high)``, the same shape.
    :returns: ``(recall, low, high)``, fractions 0..1.
    """
    a, a_low, a_high = (np.asarray(v, dtype=float) for v in inside)
    b, b_low, b_high = (np.asarray(v, dtype=float) for v in outside)
    ab = a * b
    with np.errstate(divide="ignore", invalid="ignore"):
        c0 = a ** 2 - (a - a_low) ** 2
        c2 = b ** 2 - (b_high - b) ** 2
        root = np.sqrt(np.maximum(ab ** 2 - c0 * c2, 0.0))
        t_low = np.where(c0 > 0, c0 / (ab + root), 0.0)   # inf where ab + root = 0
        c0 = a ** 2 - (a_high - a) ** 2
        c2 = b ** 2 - (b - b_low) ** 2
        root = np.sqrt(np.maximum(ab ** 2 - c0 * c2, 0.0))
        t_high = np.where(c2 > 0, (ab + root) / c2, np.inf)
    recall = np.divide(a, a + b, out=np.zeros(a.shape), where=a + b > 0)
    return recall, _odds_to_share(t_low), _odds_to_share(t_high)


def _odds_to_share(t: np.ndarray) -> np.ndarray:
    """``t / (1 + t)``, 1 where t is infinite (or undefined: 0 / 0 limits)."""
    return np.where(np.isfinite(t), t / (1 + np.where(np.isfinite(t), t, 0.0)), 1.0)


def mover_mean(estimate: np.ndarray, low: np.ndarray,
               high: np.ndarray) -> tuple[float, float, float]:
    """The mean over topics of independent per-topic estimates, with the MOVER interval
    ``mean -+ sqrt(sum (estimate - low)^2 or (high - estimate)^2) / topics`` (Zou &
    Donner 2008). For R this is the same as combining every stratum of every topic.

    :param estimate: per-topic estimates ``(topics,)``; ``low, high`` their intervals.
    :returns: ``(mean, low, high)``.
    """
    count = len(estimate)
    mean = float(np.mean(estimate))
    return (mean, mean - float(np.sqrt(((estimate - low) ** 2).sum())) / count,
            mean + float(np.sqrt(((high - estimate) ** 2).sum())) / count)
