"""Inter-assessor agreement: raw agreement and Cohen's kappa.

For two assessors who judged the same documents (each assessor's own grade,
judged, i.e. >= 0, per document: the rules of :mod:`pooltool.store.judged`):

* ``agreement``: the fraction of documents given the same grade;
* ``binary_agreement`` and ``kappa``: the same on binary labels,
  relevant = grade >= ``threshold``; ``kappa`` is Cohen's kappa
  :math:`\\kappa = (p_o - p_e) / (1 - p_e)`, with :math:`p_o` the observed
  agreement and :math:`p_e = \\sum_k p_a(k)\\,p_b(k)` the agreement expected
  from each assessor's label shares;
* ``kappa_linear`` and ``kappa_quadratic``: weighted kappa on the grades,
  :math:`\\kappa_w = 1 - \\sum_{ij} w_{ij} O_{ij} / \\sum_{ij} w_{ij} E_{ij}`,
  where :math:`O` is the confusion matrix (counts), :math:`E_{ij} = r_i c_j / n`
  the counts expected from its margins, and :math:`w_{ij} = |g_i - g_j|`
  (linear) or :math:`(g_i - g_j)^2` (quadratic) on the grade values.

With grades 0..k this equals scikit-learn's
``cohen_kappa_score(a, b, labels=range(k + 1), weights=...)``; scikit-learn
without ``labels`` weighs by the position among the grades observed, which
differs when a grade in between was never given. Kappa is undefined (NaN)
when :math:`p_e = 1`, e.g. when both assessors gave one and the same label
to everything.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from pooltool.errors import InvalidArgument
from pooltool.records import is_judged, topic_key
from pooltool.store import JudgmentStore

WEIGHTS = ("linear", "quadratic")
AGREEMENT_COLUMNS = ["assessor_a", "assessor_b", "topic", "docs", "agreement",
                     "binary_agreement", "kappa", "kappa_linear", "kappa_quadratic"]


def cohen_kappa(a: Sequence[int], b: Sequence[int], weights: str | None = None) -> float:
    """Cohen's kappa of two label sequences (the same items, in the same order).

    :param weights: ``None`` (unweighted), ``"linear"`` or ``"quadratic"``
        (weights from the difference of the label values).
    :returns: kappa, at most 1; NaN when no items or when chance agreement is 1.
    :raises ValueError: sequences of different lengths, or unknown weights.
    """
    if len(a) != len(b):
        raise InvalidArgument(f"kappa needs two sequences of the same length, got {len(a)} and {len(b)}")
    if weights is not None and weights not in WEIGHTS:
        raise InvalidArgument(f"unknown kappa weights {weights!r}; choose linear or quadratic")
    if not a:
        return math.nan
    labels = sorted(set(a) | set(b))
    observed = _confusion(a, b, labels)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / len(a)
    w = _weights(labels, weights)
    denominator = float((w * expected).sum())
    if denominator == 0:
        return math.nan
    return 1.0 - float((w * observed).sum()) / denominator


def _confusion(a: Sequence[int], b: Sequence[int], labels: list[int]) -> np.ndarray:
    index = {label: i for i, label in enumerate(labels)}
    matrix = np.zeros((len(labels), len(labels)))
    for x, y in zip(a, b, strict=True):
        matrix[index[x], index[y]] += 1
    return matrix


def _weights(labels: list[int], weights: str | None) -> np.ndarray:
    values = np.asarray(labels, dtype=float)
    diff = np.abs(values[:, None] - values[None, :])
    if weights is None:
        diff = (diff > 0).astype(float)
    elif weights == "quadratic":
        diff = diff**2
    return np.asarray(diff, dtype=float)


def pair_agreement(a: Sequence[int], b: Sequence[int], threshold: int = 1) -> dict[str, float]:
    """Every agreement figure for two assessors' grades of the same documents.

    :param threshold: the lowest grade counted as relevant for the binary figures.
    :returns: ``docs, agreement, binary_agreement, kappa, kappa_linear, kappa_quadratic``.
    """
    ga, gb = np.asarray(a), np.asarray(b)
    ba, bb = [int(g >= threshold) for g in a], [int(g >= threshold) for g in b]
    n = len(a)
    return {
        "docs": n,
        "agreement": float((ga == gb).mean()) if n else math.nan,
        "binary_agreement": float((np.asarray(ba) == np.asarray(bb)).mean()) if n else math.nan,
        "kappa": cohen_kappa(ba, bb),
        "kappa_linear": cohen_kappa(list(a), list(b), "linear"),
        "kappa_quadratic": cohen_kappa(list(a), list(b), "quadratic"),
    }


def judged_grades(store: JudgmentStore, topics: list[str] | None = None) -> pd.DataFrame:
    """Each assessor's current grade of each document they judged (grades >= 0).

    :returns: columns ``topic, docno, assessor, grade``.
    """
    own = store.own_grades()
    own = own[is_judged(own["grade"])]
    if topics:
        own = own[own["topic"].isin(topics)]
    return own[["topic", "docno", "assessor", "grade"]].reset_index(drop=True)


def agreement_table(grades: pd.DataFrame, threshold: int = 1) -> pd.DataFrame:
    """Agreement per assessor pair and topic, plus one ``all`` row per pair.

    :param grades: columns ``topic, docno, assessor, grade`` (see :func:`judged_grades`).
    :param threshold: the lowest grade counted as relevant for ``kappa``.
    :returns: columns :data:`AGREEMENT_COLUMNS`, one row per (pair, topic)
        with at least one document judged by both, topics in
        :func:`~pooltool.records.topic_key` order (2 before 10), then the pair's
        ``all`` row over every topic (also when they share only one topic);
        pairs in name order.
    """
    rows = []
    for first, second in combinations(sorted(grades["assessor"].unique()), 2):
        both = _shared(grades, first, second)
        for topic in sorted(both["topic"].unique(), key=topic_key):
            rows.append(_row(first, second, str(topic), both[both["topic"] == topic], threshold))
        if len(both):
            rows.append(_row(first, second, "all", both, threshold))
    return pd.DataFrame(rows, columns=AGREEMENT_COLUMNS)


def _shared(grades: pd.DataFrame, first: str, second: str) -> pd.DataFrame:
    a = grades[grades["assessor"] == first]
    b = grades[grades["assessor"] == second]
    return a.merge(b, on=["topic", "docno"], suffixes=("_a", "_b"))


def _row(first: str, second: str, topic: str, part: pd.DataFrame,
         threshold: int) -> dict[str, object]:
    figures = pair_agreement(list(part["grade_a"]), list(part["grade_b"]), threshold)
    return {"assessor_a": first, "assessor_b": second, "topic": topic, **figures}


def store_agreement(store: JudgmentStore, threshold: int = 1,
                    topics: list[str] | None = None) -> pd.DataFrame:
    """:func:`agreement_table` over a store's judgment log (see :func:`judged_grades`)."""
    return agreement_table(judged_grades(store, topics), threshold)
