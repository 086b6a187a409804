"""Paired significance tests between two runs over topics, and whether a verdict
survives the holes of the scores.

Inputs: ``a`` and ``b``, float arrays of shape ``(n,)``, one score per topic of
run A and run B (the same topics in the same order, e.g. nDCG@10 per topic);
the tests are on the per-topic differences ``d = a - b``. Every test is
two-sided and returns a :class:`PairedTest`.

* :func:`paired_t`: Student's paired t test (``scipy.stats.ttest_rel``).
* :func:`randomization_test`: Fisher's randomization (permutation) test of the
  paired differences (Fisher 1935; Smucker, Allan & Carterette, CIKM 2007):
  under the null each ``d_i`` is as likely to be ``-d_i``; exact over all
  ``2^n`` sign flips when ``n <= exact_limit``, else seeded random flips.
* :func:`paired_bootstrap`: the bootstrap test of a zero mean difference
  (Efron & Tibshirani, *An Introduction to the Bootstrap*, 1993, §16.4: the
  differences shifted to mean 0 and resampled with replacement; Sakai,
  SIGIR 2006, uses it to compare IR runs), seeded.

:func:`hole_verdict` runs a test at the scores as judged and at the two
extremes the holes allow (:mod:`pooltool.measures.holes`): A at its low with B
at its high, and A at its high with B at its low. The verdict *holds* only when
it is the same at all three; otherwise judging the unjudged documents could
reverse it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from pooltool.errors import InvalidArgument

#: Sign-flip enumeration is exact up to this many topics (2^20 flips).
EXACT_LIMIT = 20
#: Random sign flips or bootstrap resamples drawn when not exact.
SAMPLES = 100_000
#: The default seed of the random tests (stated in each result).
SEED = 0


@dataclass(frozen=True)
class PairedTest:
    """The result of a paired two-sided test of ``mean(a - b) = 0``.

    :ivar test: ``"t"``, ``"randomization"`` or ``"bootstrap"``.
    :ivar p_value: the two-sided p-value, 0..1.
    :ivar mean_difference: ``mean(a - b)`` over the topics, in the measure's unit.
    :ivar num_topics: ``n``, the topics paired.
    :ivar seed: the random generator's seed (``numpy.random.default_rng``),
        ``None`` when nothing was drawn.
    :ivar samples: the sign flips or resamples drawn, ``None`` when nothing was drawn.
    :ivar exact: the p-value is exact (analytic, or every sign flip counted).
    :ivar adjustment: ``"holm"`` when ``p_value`` is adjusted for a family of
        comparisons (:func:`pooltool.analysis.multiple_comparisons.pairwise_hole_verdicts`),
        ``None`` when raw.
    """

    test: str
    p_value: float
    mean_difference: float
    num_topics: int
    seed: int | None = None
    samples: int | None = None
    exact: bool = True
    adjustment: str | None = None

    def verdict(self, alpha: float = 0.05) -> int:
        """1 when A is significantly better (``p < alpha``, mean difference > 0), -1 when B
        is, 0 when the difference is not significant."""
        if self.p_value >= alpha or self.mean_difference == 0:
            return 0
        return 1 if self.mean_difference > 0 else -1


#: A paired test: ``(a, b) -> PairedTest``.
Test = Callable[[np.ndarray, np.ndarray], PairedTest]


def differences(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a - b`` as float64 ``(n,)``.

    :raises InvalidArgument: shapes differ, not one-dimensional, fewer than 2
        topics, or a value is NaN or infinite.
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise InvalidArgument(f"the two runs need one score per topic each, got {a.shape} "
                              f"and {b.shape}")
    if len(a) < 2:
        raise InvalidArgument(f"a paired test needs at least 2 topics, got {len(a)}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise InvalidArgument("a per-topic score is NaN or infinite")
    return a - b


def paired_t(a: np.ndarray, b: np.ndarray) -> PairedTest:
    """Student's paired t test: ``t = mean(d) / (sd(d) / sqrt(n))``, ``n - 1`` degrees of
    freedom, ``p = 2 * P(T > |t|)`` (scipy.stats.ttest_rel's definition).

    When every ``d_i`` is equal scipy returns NaN; here ``p = 1`` when they are all
    0 (no difference) and ``p = 0`` otherwise (a constant, nonzero difference).

    :param a: run A's per-topic scores, float ``(n,)``.
    :param b: run B's, same topics, same order.
    :returns: a :class:`PairedTest` with ``test="t"``, ``exact=True``.
    :raises InvalidArgument: see :func:`differences`.
    """
    d = differences(a, b)
    n, mean = len(d), float(d.mean())
    sd = float(d.std(ddof=1))
    if sd == 0.0:
        p = 1.0 if mean == 0.0 else 0.0
    else:
        p = float(2.0 * stats.t.sf(abs(mean) / (sd / np.sqrt(n)), n - 1))
    return PairedTest("t", p, mean, n)


def randomization_test(
    a: np.ndarray,
    b: np.ndarray,
    samples: int = SAMPLES,
    seed: int = SEED,
    exact_limit: int = EXACT_LIMIT,
) -> PairedTest:
    """Fisher's paired randomization test with statistic ``|sum(s_i d_i)|``, ``s_i = ±1``.

    ``p`` is the share of sign vectors whose ``|sum(s_i d_i)|`` is at least the
    observed ``|sum(d_i)|`` (within ``1e-9 * sum|d_i|``, for rounding). Exact
    when ``n <= exact_limit``: every one of the ``2^n`` vectors is counted,
    the observed one included. Otherwise ``samples`` vectors are drawn
    uniformly with ``numpy.random.default_rng(seed)`` and
    ``p = (1 + count) / (1 + samples)`` (the observed vector counted once, so
    that p is never 0: Phipson & Smyth, 2010).

    :param a: run A's per-topic scores, float ``(n,)``.
    :param b: run B's, same topics, same order.
    :param samples: sign vectors drawn when not exact, >= 1.
    :param seed: the generator's seed when not exact.
    :param exact_limit: the most topics enumerated (memory and time grow as ``2^n``).
    :returns: a :class:`PairedTest` with ``test="randomization"``; ``seed`` and
        ``samples`` set only when drawn.
    :raises InvalidArgument: see :func:`differences`; ``samples < 1``.
    """
    d = differences(a, b)
    observed = abs(float(d.sum()))
    tolerance = 1e-9 * float(np.abs(d).sum())
    if len(d) <= exact_limit:
        count = _count_all_flips(d, observed - tolerance)
        return PairedTest("randomization", count / 2.0 ** len(d), float(d.mean()), len(d))
    if samples < 1:
        raise InvalidArgument(f"samples must be at least 1, not {samples}")
    rng = np.random.default_rng(seed)
    count = 0
    for size in _chunks(samples):
        signs = rng.integers(0, 2, size=(size, len(d)), dtype=np.int8) * 2 - 1
        count += int((np.abs(signs @ d) >= observed - tolerance).sum())
    return PairedTest("randomization", (1 + count) / (1 + samples), float(d.mean()), len(d),
                      seed=seed, samples=samples, exact=False)


def _count_all_flips(d: np.ndarray, threshold: float) -> int:
    """How many of the ``2^n`` sign vectors give ``|sum(s_i d_i)| >= threshold``."""
    n = len(d)
    count = 0
    for start, size in _spans(2 ** n):
        codes = np.arange(start, start + size, dtype=np.int64)[:, None]
        signs = ((codes >> np.arange(n)) & 1) * 2 - 1
        count += int((np.abs(signs @ d) >= threshold).sum())
    return count


def _spans(total: int, chunk: int = 1 << 15) -> list[tuple[int, int]]:
    """``(start, size)`` pieces of ``range(total)`` of at most ``chunk``."""
    return [(start, min(chunk, total - start)) for start in range(0, total, chunk)]


def _chunks(total: int) -> list[int]:
    """The sizes of :func:`_spans`."""
    return [size for _, size in _spans(total)]


def paired_bootstrap(
    a: np.ndarray, b: np.ndarray, samples: int = SAMPLES, seed: int = SEED
) -> PairedTest:
    """The paired bootstrap test of ``mean(d) = 0`` (Efron & Tibshirani 1993, §16.4).

    The differences are shifted to mean 0 (``z = d - mean(d)``, the null made
    true); ``samples`` resamples of ``n`` topics with replacement are drawn with
    ``numpy.random.default_rng(seed)``, and ``p = (1 + count) / (1 + samples)``,
    ``count`` the resamples with ``|mean(z*)| >= |mean(d)|`` (within
    ``1e-12 * max|d|``).

    :param a: run A's per-topic scores, float ``(n,)``.
    :param b: run B's, same topics, same order.
    :param samples: resamples, >= 1.
    :param seed: the generator's seed.
    :returns: a :class:`PairedTest` with ``test="bootstrap"``, ``exact=False``.
    :raises InvalidArgument: see :func:`differences`; ``samples < 1``.
    """
    d = differences(a, b)
    if samples < 1:
        raise InvalidArgument(f"samples must be at least 1, not {samples}")
    mean = float(d.mean())
    z = d - mean
    threshold = abs(mean) - 1e-12 * float(np.abs(d).max())
    rng = np.random.default_rng(seed)
    count = 0
    for size in _chunks(samples):
        picks = rng.integers(0, len(d), size=(size, len(d)))
        count += int((np.abs(z[picks].mean(axis=1)) >= threshold).sum())
    return PairedTest("bootstrap", (1 + count) / (1 + samples), mean, len(d),
                      seed=seed, samples=samples, exact=False)


@dataclass(frozen=True)
class HoleVerdict:
    """A paired test at the scores as judged and at the two ends of the runs' holes.

    :ivar observed: the test on the scores as judged.
    :ivar a_low_b_high: the test with A at its per-topic lows, B at its highs
        (the worst case for A).
    :ivar a_high_b_low: A at its highs, B at its lows (the best case for A).
    :ivar alpha: the significance level of the verdicts.
    """

    observed: PairedTest
    a_low_b_high: PairedTest
    a_high_b_low: PairedTest
    alpha: float

    @property
    def verdict(self) -> int:
        """The verdict on the scores as judged (see :meth:`PairedTest.verdict`)."""
        return self.observed.verdict(self.alpha)

    @property
    def holds(self) -> bool:
        """The verdict is the same at the judged scores and at both extremes."""
        ends = {self.a_low_b_high.verdict(self.alpha), self.a_high_b_low.verdict(self.alpha)}
        return ends == {self.verdict}

    @property
    def could_reverse(self) -> bool:
        """``not holds``: judging the unjudged documents could change the verdict."""
        return not self.holds


def hole_verdict(
    a: np.ndarray,
    b: np.ndarray,
    a_holes: tuple[np.ndarray, np.ndarray],
    b_holes: tuple[np.ndarray, np.ndarray],
    test: Test = paired_t,
    alpha: float = 0.05,
) -> HoleVerdict:
    """Whether a paired test's verdict survives the holes of both runs' scores.

    Each topic's difference ``a_i - b_i`` can be, whatever grades the unjudged
    documents get, no lower than ``low(a_i) - high(b_i)`` and no higher than
    ``high(a_i) - low(b_i)``: the two extremes tested here. The two runs are
    taken as independent, so these ends are the widest the difference can
    go (a document both runs retrieved raises both when judged relevant,
    and may not reach them). A verdict that is the same at both ends is
    evidence, not proof, that no grading reverses it: a test's p-value is not
    monotone in the differences (the t statistic's variance moves too).

    :param a: run A's per-topic scores as judged, float ``(n,)``.
    :param b: run B's, same topics, same order.
    :param a_holes: ``(low, high)``, run A's per-topic hole ends, float ``(n,)``
        each (e.g. :func:`pooltool.measures.holes.ndcg_hole` per topic).
    :param b_holes: run B's.
    :param test: the paired test, e.g. :func:`paired_t`, or a
        :func:`randomization_test` with its seed bound by ``functools.partial``.
    :param alpha: the significance level, ``0 < alpha < 1``.
    :returns: a :class:`HoleVerdict`.
    :raises InvalidArgument: ``alpha`` out of range, a low above its high, or as :func:`differences`.
    """
    if not 0.0 < alpha < 1.0:
        raise InvalidArgument(f"alpha must be in (0, 1), not {alpha}")
    (a_low, a_high), (b_low, b_high) = (_ends(a_holes), _ends(b_holes))
    return HoleVerdict(test(a, b), test(a_low, b_high), test(a_high, b_low), alpha)


def _ends(holes: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The lows and highs as float arrays, checked."""
    low, high = (np.asarray(side, dtype=np.float64) for side in holes)
    if (low > high).any():
        raise InvalidArgument("a hole's low is above its high")
    return low, high
