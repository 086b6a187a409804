"""Every pair of runs compared over topics by a paired test, with a verdict that knows
about the holes: the Python side of ``pooltool compare``.

For runs scored on the same topics with one measure (values, and each value's hole
``[low, high]``: :func:`pooltool.measures.topic_scores.topic_scores`), each pair is
tested (:mod:`pooltool.analysis.significance`: paired t, Fisher's randomization,
paired bootstrap; or Tukey's HSD over all runs at once,
:func:`pooltool.analysis.multiple_comparisons.tukey_hsd`, topics as blocks) at three
sets of scores: as judged; the better run (higher mean as judged) at its per-topic
lows against the worse at its highs; and the better at its highs against the worse
at its lows. Those two ends are the furthest the unjudged documents could move the
pair's per-topic differences (:func:`~pooltool.analysis.significance.hole_verdict`).
A verdict *holds* when it is the same at all three; otherwise judging the unjudged
documents could reverse it. With Holm's adjustment the pairs' p-values are adjusted
together within each of the three sets
(:func:`~pooltool.analysis.multiple_comparisons.pairwise_hole_verdicts`); Tukey's HSD
is a family test by itself, run at the judged scores and, per pair, with the two
runs moved to their ends and every other run as judged.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from pooltool.analysis.multiple_comparisons import TukeyHSD, pairwise_hole_verdicts, tukey_hsd
from pooltool.analysis.significance import (
    HoleVerdict,
    PairedTest,
    Test,
    paired_bootstrap,
    paired_t,
    randomization_test,
)
from pooltool.errors import InvalidArgument

TESTS = ("t", "randomization", "bootstrap")
ADJUSTMENTS = ("holm", "tukey", "none")
PAIR_COLUMNS = ["run_a", "run_b", "mean_a", "mean_b", "difference", "p_value", "verdict",
                "difference_worst", "p_worst", "difference_best", "p_best", "hole", "sentence"]


@dataclass(frozen=True)
class Comparison:
    """What :func:`compare_runs` returns.

    :ivar pairs: one row per pair of runs, in order of the better run's mean, then the
        worse's: ``run_a`` (the higher mean as judged; ties by run tag), ``run_b``;
        ``mean_a, mean_b, difference`` (mean a - b, as judged); ``p_value`` (adjusted
        unless ``none``); ``verdict`` (``a``: run_a significantly better, ``b``: run_b
        better, ``none``: not significant at ``alpha``); ``difference_worst``,
        ``p_worst`` (run_a at its lows, run_b at its highs); ``difference_best``,
        ``p_best`` (run_a at its highs, run_b at its lows); ``hole`` (``holds``: the
        same verdict at both ends; ``could reverse``: judging the unjudged documents
        could change it; ``no hole``: the measure has no hole bound, ends are NaN);
        ``sentence``, the verdict in words.
    :ivar runs: one row per run, input order: ``run_tag, mean, low, high`` (the means of
        the per-topic values and hole ends over the compared topics).
    :ivar test, adjustment, alpha, seed, samples: how the pairs were tested (``seed``
        and ``samples`` are ``None`` when nothing was drawn).
    :ivar topics: the topics compared, in the order given.
    """

    pairs: pd.DataFrame
    runs: pd.DataFrame
    test: str
    adjustment: str
    alpha: float
    seed: int | None
    samples: int | None
    topics: list[str]


def paired_test(name: str, samples: int, seed: int) -> Test:
    """The paired test called ``name`` (:data:`TESTS`), its seed and draws bound.

    :raises InvalidArgument: an unknown test.
    """
    if name == "t":
        return paired_t
    if name == "randomization":
        return functools.partial(randomization_test, samples=samples, seed=seed)
    if name == "bootstrap":
        return functools.partial(paired_bootstrap, samples=samples, seed=seed)
    raise InvalidArgument(f"unknown test {name!r}; choose one of {', '.join(TESTS)}")


def compare_runs(values: pd.DataFrame, measure: str, test: str = "t", adjustment: str = "holm",
                 alpha: float = 0.05, samples: int = 100_000, seed: int = 0) -> Comparison:
    """Every pair of runs by a paired test over topics, at the judged scores and at the
    two ends of their holes.

    :param values: one row per run x topic: ``run_tag, topic, value, low, high``
        (``low``/``high`` NaN for a measure without a hole); every run on the same
        topics.
    :param measure: the measure's name, for the sentences.
    :param test: one of :data:`TESTS` (with ``adjustment="tukey"`` only ``t``: Tukey's
        HSD is the test).
    :param adjustment: ``holm`` (Holm 1979), ``tukey`` (Tukey's HSD, topics as blocks)
        or ``none``.
    :param alpha: the significance level, ``0 < alpha < 1``.
    :param samples: draws of the randomization and bootstrap tests (exact randomization
        for 20 topics or fewer).
    :param seed: their seed (``numpy.random.default_rng``).
    :returns: a :class:`Comparison`.
    :raises InvalidArgument: fewer than 2 runs or 2 topics, runs on different topics,
        an unknown test or adjustment, ``tukey`` with another test than ``t``.
    """
    if adjustment not in ADJUSTMENTS:
        raise InvalidArgument(f"unknown adjustment {adjustment!r}; choose one of "
                              f"{', '.join(ADJUSTMENTS)}")
    if adjustment == "tukey" and test != "t":
        raise InvalidArgument(f"Tukey's HSD is a test of its own; it does not go with the "
                              f"{test} test (use --adjust holm)")
    per_topic, ends, topics = _matrices(values)
    tags = list(per_topic)
    means = {tag: float(np.mean(per_topic[tag])) for tag in tags}
    # the better run of each pair first: its lows meet the worse run's highs
    order = sorted(tags, key=lambda tag: (-means[tag], tag))
    has_hole = all(not np.isnan(ends[tag]).any() for tag in tags)
    holes = ({tag: (ends[tag][0], ends[tag][1]) for tag in tags} if has_hole else
             {tag: (per_topic[tag], per_topic[tag]) for tag in tags})
    ordered = {tag: per_topic[tag] for tag in order}
    if adjustment == "tukey":
        verdicts = _tukey_verdicts(ordered, holes, alpha)
    else:
        chosen = paired_test(test, samples, seed)
        verdicts = [(p.run_a, p.run_b, p.verdict) for p in pairwise_hole_verdicts(
            ordered, holes, chosen, alpha, adjust=adjustment == "holm")]
    pairs = pd.DataFrame([_pair_row(a, b, v, means, has_hole, measure)
                          for a, b, v in verdicts], columns=PAIR_COLUMNS)
    runs = pd.DataFrame({"run_tag": tags, "mean": [means[t] for t in tags],
                         "low": [float(np.mean(ends[t][0])) for t in tags],
                         "high": [float(np.mean(ends[t][1])) for t in tags]})
    drawn = test != "t" and not (test == "randomization" and len(topics) <= 20)
    return Comparison(pairs, runs, test if adjustment != "tukey" else "tukey", adjustment,
                      alpha, seed if drawn else None, samples if drawn else None, topics)


def _matrices(values: pd.DataFrame) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray],
                                              list[str]]:
    """Per run, its values and its ``(2, n)`` hole ends over the shared topics."""
    tags = list(dict.fromkeys(values["run_tag"]))
    if len(tags) < 2:
        raise InvalidArgument("a comparison needs at least 2 runs")
    topics = list(dict.fromkeys(values["topic"]))
    per_topic, ends = {}, {}
    for tag in tags:
        mine = values[values["run_tag"] == tag].set_index("topic")
        if set(mine.index) != set(topics):
            raise InvalidArgument(f"run {tag!r} is not scored on the same topics as the others")
        mine = mine.loc[topics]
        per_topic[tag] = mine["value"].to_numpy(dtype=np.float64)
        ends[tag] = mine[["low", "high"]].to_numpy(dtype=np.float64).T
    return per_topic, ends, topics


def _tukey_verdicts(per_topic: dict[str, np.ndarray],
                    holes: dict[str, tuple[np.ndarray, np.ndarray]],
                    alpha: float) -> list[tuple[str, str, HoleVerdict]]:
    """Tukey's HSD of each pair at the judged values and with the pair at its two ends."""
    tags = list(per_topic)
    matrix = np.array([per_topic[tag] for tag in tags])
    judged = tukey_hsd(matrix)
    out = []
    for i, j in combinations(range(len(tags)), 2):
        tests = [_tukey_pair(judged, i, j, len(matrix[0]))]
        for a_end, b_end in ((0, 1), (1, 0)):
            moved = matrix.copy()
            moved[i], moved[j] = holes[tags[i]][a_end], holes[tags[j]][b_end]
            tests.append(_tukey_pair(tukey_hsd(moved), i, j, len(matrix[0])))
        out.append((tags[i], tags[j], HoleVerdict(tests[0], tests[1], tests[2], alpha)))
    return out


def _tukey_pair(result: TukeyHSD, i: int, j: int, topics: int) -> PairedTest:
    return PairedTest("tukey", float(result.p_value[i, j]), float(result.mean_difference[i, j]),
                      topics, adjustment="tukey")


def _pair_row(run_a: str, run_b: str, verdict: HoleVerdict, means: dict[str, float],
              has_hole: bool, measure: str) -> dict[str, object]:
    worst, best = verdict.a_low_b_high, verdict.a_high_b_low
    return {"run_a": run_a, "run_b": run_b, "mean_a": means[run_a], "mean_b": means[run_b],
            "difference": verdict.observed.mean_difference,
            "p_value": verdict.observed.p_value, "verdict": _side(verdict.verdict),
            "difference_worst": worst.mean_difference if has_hole else np.nan,
            "p_worst": worst.p_value if has_hole else np.nan,
            "difference_best": best.mean_difference if has_hole else np.nan,
            "p_best": best.p_value if has_hole else np.nan,
            "hole": ("holds" if verdict.holds else "could reverse") if has_hole else "no hole",
            "sentence": sentence(run_a, run_b, verdict, has_hole, measure)}


def _side(verdict: int) -> str:
    return {1: "a", -1: "b", 0: "none"}[verdict]


def sentence(run_a: str, run_b: str, verdict: HoleVerdict, has_hole: bool, measure: str) -> str:
    """One pair's verdict in words, with what the holes allow."""
    seen = verdict.observed
    found = f"(mean difference {seen.mean_difference:.4f}, p = {seen.p_value:.4g})"
    worst, best = verdict.a_low_b_high, verdict.a_high_b_low
    at_worst = (f"at {run_a}'s lows and {run_b}'s highs the difference is "
                f"{worst.mean_difference:.4f} (p = {worst.p_value:.4g})")
    at_best = (f"at {run_a}'s highs and {run_b}'s lows it is {best.mean_difference:.4f} "
               f"(p = {best.p_value:.4g})")
    if verdict.verdict == 0:
        said = f"No significant difference between {run_a} and {run_b} on {measure} {found}"
    else:
        better, worse = (run_a, run_b) if verdict.verdict > 0 else (run_b, run_a)
        said = f"{better} is significantly better than {worse} on {measure} {found}"
    if not has_hole:
        return f"{said}; {measure} has no hole bound, so what judging could do is not known."
    if verdict.holds:
        return f"{said}, and the same at both ends of the holes: {at_worst}; {at_best}."
    return f"{said}, but judging the unjudged documents could change that: {at_worst}; {at_best}."
