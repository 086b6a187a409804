"""The ``beta`` interval of :mod:`pooltool.analysis.estimate`: posterior draws of
R and Recall@k under a hierarchical Beta-binomial model (pure functions).

pooltool's interval: a Bayesian interval that holds at small counts. Each
cell (a stratum; for Recall@k a stratum split into the documents inside and
outside the run's top k) gets a Beta posterior for its
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
posterior mean as the estimate beside the interval
(:mod:`pooltool.analysis.sample_estimates`): R's worked out given the prior's
draws (:func:`total_mean_batch`), Recall@k's the mean of its draws.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pooltool.analysis.estimate import StratumCounts, counts_array

#: Simulated draws of R per topic, and of the priors the topics share (the Cranfield
#: validation's setting; R has one cell per topic and stratum, so they are cheap).
DRAWS = 1000
#: Simulated draws behind each run's Recall@k and its interval (the first of the priors'
#: draws): a run x cutoff x topic x stratum makes two cells, so these were most of the
#: estimate's time (11 of 16 CPU-s in bench_estimate.py with 1000). With 250 there, an
#: interval end's Monte Carlo error (its spread over seeds) is 5-6% of the interval's
#: width per topic and 4-5% for a mean over topics, against 3-4% and 2% with 1000.
#: Checked on Cranfield (docs/estimates.md).
RECALL_DRAWS = 250
#: The hyperprior's grid: the prior mean m of a stratum's share on a logit scale
#: (``M_LOGITS``), the prior's weight c in documents on a log scale (``C_RANGE``).
M_LOGITS = np.linspace(-14.0, 14.0, 160)
C_RANGE = (1e-2, 1e4)
C_LOGS = np.linspace(np.log(C_RANGE[0]), np.log(C_RANGE[1]), 60)
BETA_METHOD = ("hierarchical Beta-binomial posterior per stratum, its prior's mean and weight "
               "drawn from their posterior across topics (Jeffreys' prior on the mean, "
               f"log-uniform weight {C_RANGE[0]:g}-{C_RANGE[1]:g} documents); the shortest "
               f"interval holding 95% of {DRAWS} draws of R, {RECALL_DRAWS} of Recall@k "
               "(Ericson 1969; Gelman et al. 2013, sec. 5.3; Chen & Shao 1999)")


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
    strata = counts.shape[1]
    a, b = np.full((strata, draws), 0.5), np.full((strata, draws), 0.5)
    logit, log_c = np.meshgrid(M_LOGITS, C_LOGS, indexing="ij")
    m, c = 1 / (1 + np.exp(-logit)), np.exp(log_c)
    alpha, beta = (m * c).ravel(), ((1 - m) * c).ravel()
    # Jeffreys' density of m per unit of logit, times a constant per unit of log c
    log_hyperprior = 0.5 * (np.log(m) + np.log1p(-m)).ravel()
    for h in range(strata):
        n, r = counts[:, h, 1], counts[:, h, 2]
        seen = n > 0
        if not seen.any():
            continue
        log_post = log_hyperprior + _log_likelihood(alpha, beta, n[seen], r[seen])
        weight = np.exp(log_post - log_post.max())
        cell = rng.choice(weight.size, size=draws, p=weight / weight.sum())
        i, j = np.unravel_index(cell, logit.shape)
        m_draw = _within(M_LOGITS, i, rng)
        c_draw = np.exp(_within(C_LOGS, j, rng))
        a[h] = c_draw / (1 + np.exp(-m_draw))
        b[h] = c_draw / (1 + np.exp(m_draw))
    return a, b


def _log_likelihood(alpha: np.ndarray, beta: np.ndarray, sampled: np.ndarray,
                    relevant: np.ndarray) -> np.ndarray:
    """``sum_t log B(r_t + alpha, n_t - r_t + beta) - log B(alpha, beta)`` at each grid
    point (``alpha, beta`` shape ``(points,)``; ``sampled, relevant`` the topics' n_t
    and r_t): the Beta-binomial likelihood of the topics' samples (up to the binomial
    coefficients, the same at every point). As ``B(x, y) = Gamma(x) Gamma(y) / Gamma(x +
    y)``, it is ``sum_t [L(alpha, r_t) + L(beta, n_t - r_t) - L(alpha + beta, n_t)]`` with
    ``L(x, v) = log Gamma(x + v) - log Gamma(x)`` (:func:`_log_rising`)."""
    return (_log_rising(alpha, relevant) + _log_rising(beta, sampled - relevant)
            - _log_rising(alpha + beta, sampled))


def _log_rising(x: np.ndarray, values: np.ndarray, rows: int = 256) -> np.ndarray:
    """``sum_t log(x (x + 1) ... (x + v_t - 1))`` per point ``x`` (shape ``(points,)``),
    over the non-negative integers ``values``: ``sum_i #{t: v_t > i} log(x + i)``, so
    one logarithm per point and step up to the largest value, however many topics
    (scipy's log-gamma would do as well, but importing scipy.special takes 0.7 s, more
    than the whole sum). ``rows`` steps at a time bound the memory."""
    tally = np.bincount(values)
    above = np.cumsum(tally[::-1])[::-1][1:]  # above[i]: the values greater than i
    out = np.zeros(x.shape)
    for low in range(0, len(above), rows):
        steps = np.arange(low, min(low + rows, len(above)))
        out += above[steps] @ np.log(x[None, :] + steps[:, None])
    return out


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
    :param prior: as :func:`stratum_draws_batch`, with ``draws`` draws if per draw.
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


def total_mean_batch(pooled_relevant: np.ndarray, counts: np.ndarray,
                     prior: Prior = JEFFREYS) -> np.ndarray:
    """The posterior mean of R per topic, given the prior's draws: the mean that
    :func:`total_draws_batch` draws tend to, worked out instead of drawn.

    Given a stratum's prior ``(a, b)``, its share of relevant documents has the posterior
    ``Beta(r + a, n - r + b)``, of mean ``(r + a) / (n + a + b)``, and its ``N - n``
    unsampled documents hold that share of relevant ones on average (the Beta-binomial
    mean), so ``E[R] = R_pool + sum_h (r_h + (N_h - n_h) mean_d (r_h + a_hd) / (n_h + a_hd
    + b_hd))`` over the prior's draws d (:func:`posterior_priors`). The Beta and binomial
    draws are integrated out exactly (Rao-Blackwellised: Casella & Robert 1996,
    'Rao-Blackwellisation of sampling schemes', Biometrika 83), so est_R carries only the
    Monte Carlo error of the prior's draws.

    :param pooled_relevant: shape ``(topics,)``.
    :param counts: from :func:`counts_array`, shape ``(topics, strata, 6)``.
    :param prior: as :func:`stratum_draws_batch`.
    :returns: float array ``(topics,)``, documents.
    """
    pop, n, r = counts[..., 0], counts[..., 1], counts[..., 2]
    a, b = (_per_draw(x) for x in prior)
    share = ((r[..., None] + a) / (n[..., None] + a + b)).mean(axis=-1)
    return pooled_relevant + r.sum(axis=1) + ((pop - n) * share).sum(axis=1)


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
