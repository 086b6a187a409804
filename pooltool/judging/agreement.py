"""Inter-assessor agreement: raw agreement, Cohen's kappa and Krippendorff's alpha.

For two assessors (or two groups of assessors, e.g. people and machines) who
judged the same documents (each assessor's own grade, judged, i.e. >= 0, per
document: the rules of :mod:`pooltool.store.judged`; a group's grade is the
latest own grade of any of its members):

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

* ``alpha_ordinal`` (or ``alpha_nominal``, ``alpha_interval``): Krippendorff's
  alpha on the grades at that level of measurement (:data:`ALPHA_LEVELS`; the
  column names it), :math:`\alpha = 1 - D_o / D_e` (observed over expected
  disagreement; nominal: any two different grades disagree alike; ordinal:
  by the grades given between them; interval: by the squared difference of
  the grade values), computed by the ``krippendorff`` package (Castro 2017,
  https://github.com/pln-fing-udelar/fast-krippendorff) over the value
  domain of every grade in the comparison; Krippendorff 2011, "Computing
  Krippendorff's alpha-reliability". NaN when only one grade occurs.

A pair's ``all`` row pools the documents of every topic the two judged in
common (each document once, whatever its topic): it is not a mean of the
per-topic rows.

With grades 0..k the kappas equal scikit-learn's
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

from pooltool.errors import InvalidArgument, PooltoolError
from pooltool.records import is_judged, is_relevant, topic_key
from pooltool.store import JudgmentStore

WEIGHTS = ("linear", "quadratic")
#: Krippendorff's levels of measurement alpha is computed at (the krippendorff package's
#: ``level_of_measurement``); grades are ordinal, the default.
ALPHA_LEVELS = ("nominal", "ordinal", "interval")
DEFAULT_ALPHA_LEVEL = "ordinal"


def agreement_columns(level: str = DEFAULT_ALPHA_LEVEL) -> list[str]:
    """The columns of :func:`agreement_table` with alpha at ``level`` (``alpha_LEVEL``)."""
    return ["assessor_a", "assessor_b", "kind_a", "kind_b", "topic", "docs", "agreement",
            "binary_agreement", "kappa", "kappa_linear", "kappa_quadratic", f"alpha_{level}"]


AGREEMENT_COLUMNS = agreement_columns()
#: The group names a side of :func:`side_grades` may take besides assessor names.
GROUPS = ("@people", "@machines")


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


def krippendorff_alpha(a: Sequence[int], b: Sequence[int], domain: Sequence[int],
                       level: str = DEFAULT_ALPHA_LEVEL) -> float:
    """Krippendorff's alpha of two coders' grades of the same items at a level of
    measurement, by the ``krippendorff`` package.

    :param domain: every grade the scale holds, ascending (the ordinal metric
        counts the grades between two values).
    :param level: ``nominal``, ``ordinal`` or ``interval`` (:data:`ALPHA_LEVELS`).
    :returns: alpha, at most 1; NaN with no items or when one grade is all there is.
    :raises InvalidArgument: an unknown level.
    """
    import krippendorff

    if level not in ALPHA_LEVELS:
        raise InvalidArgument(f"unknown level of measurement {level!r} for alpha; choose "
                              f"{', '.join(ALPHA_LEVELS)}")
    if not a or len(set(domain)) < 2:
        return math.nan
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(krippendorff.alpha(reliability_data=[list(a), list(b)],
                                        level_of_measurement=level,  # type: ignore[arg-type]  # one of ALPHA_LEVELS
                                        value_domain=list(domain)))


def pair_agreement(a: Sequence[int], b: Sequence[int], threshold: int = 1,
                   domain: Sequence[int] | None = None,
                   level: str = DEFAULT_ALPHA_LEVEL) -> dict[str, float]:
    """Every agreement figure for two assessors' grades of the same documents.

    :param threshold: the lowest grade counted as relevant for the binary figures.
    :param domain: the grade scale for alpha (default: the grades in ``a`` and ``b``).
    :param level: alpha's level of measurement (:data:`ALPHA_LEVELS`).
    :returns: ``docs, agreement, binary_agreement, kappa, kappa_linear,
        kappa_quadratic, alpha_LEVEL``.
    """
    ga, gb = np.asarray(a), np.asarray(b)
    ba, bb = ([int(is_relevant(g, threshold)) for g in side] for side in (a, b))
    n = len(a)
    return {
        "docs": n,
        "agreement": float((ga == gb).mean()) if n else math.nan,
        "binary_agreement": float((np.asarray(ba) == np.asarray(bb)).mean()) if n else math.nan,
        "kappa": cohen_kappa(ba, bb),
        "kappa_linear": cohen_kappa(list(a), list(b), "linear"),
        "kappa_quadratic": cohen_kappa(list(a), list(b), "quadratic"),
        f"alpha_{level}": krippendorff_alpha(a, b, sorted(set(domain if domain is not None
                                                               else [*a, *b])), level),
    }


def judged_grades(store: JudgmentStore, topics: list[str] | None = None) -> pd.DataFrame:
    """Each assessor's current grade of each document they judged (grades >= 0), not
    counting adjudications (an adjudicator's grade settles a disagreement: it is no
    independent judgment; :mod:`pooltool.judging.adjudication` compares with it).

    :returns: columns ``topic, docno, assessor, grade, judgment_id`` (log order).
    """
    own = store.own_grades(leave_out=store.adjudication_ids())
    own = own[is_judged(own["grade"])]
    if topics:
        own = own[own["topic"].isin(topics)]
    return own[["topic", "docno", "assessor", "grade", "judgment_id"]].reset_index(drop=True)


def side_grades(grades: pd.DataFrame, side: str, machines: frozenset[str]) -> pd.DataFrame:
    """One side of a comparison: an assessor, ``@people``, ``@machines`` or a comma list
    of assessors; a group's grade of a pair is the latest own grade of its members.

    :param grades: as :func:`judged_grades` returns.
    :param machines: the machine assessors.
    :returns: columns ``topic, docno, grade`` and ``assessor`` (the side's name),
        one row per pair.
    :raises PooltoolError: a side naming an assessor with no judgment, or an
        empty group.
    """
    names = _members(grades, side, machines)
    rows = grades[grades["assessor"].isin(names)].sort_values("judgment_id", kind="mergesort")
    rows = rows.drop_duplicates(["topic", "docno"], keep="last")
    return rows.assign(assessor=side)[["topic", "docno", "assessor", "grade"]]


def _members(grades: pd.DataFrame, side: str, machines: frozenset[str]) -> list[str]:
    everyone = sorted(set(grades["assessor"]))
    if side in GROUPS:
        want_machine = side == "@machines"
        names = [n for n in everyone if (n in machines) == want_machine]
        if not names:
            raise PooltoolError(f"{side}: no {side[1:]} have judged anything")
        return names
    names = [n.strip() for n in side.split(",")]
    unknown = [n for n in names if n not in everyone]
    if unknown:
        raise PooltoolError(f"no judgments by assessor {unknown[0]!r} (assessors: "
                            f"{', '.join(everyone) or 'none yet'}; groups: {', '.join(GROUPS)})")
    return names


def agreement_table(grades: pd.DataFrame, threshold: int = 1,
                    machines: frozenset[str] = frozenset(),
                    level: str = DEFAULT_ALPHA_LEVEL) -> pd.DataFrame:
    """Agreement per assessor pair and topic, plus one ``all`` row per pair.

    :param grades: columns ``topic, docno, assessor, grade`` (see :func:`judged_grades`).
    :param threshold: the lowest grade counted as relevant for ``kappa``.
    :param machines: the machine assessors (for ``kind_a`` / ``kind_b``).
    :param level: alpha's level of measurement (:data:`ALPHA_LEVELS`).
    :returns: columns :func:`agreement_columns` (``level``), one row per (pair, topic)
        with at least one document judged by both, topics in
        :func:`~pooltool.records.topic_key` order (2 before 10), then the pair's
        ``all`` row, which pools the documents of every topic (also when they
        share only one topic); pairs in name order. Alpha uses every grade in
        ``grades`` as its scale.
    """
    rows = []
    domain = sorted(set(grades["grade"].astype(int)))
    kinds = {name: _kind(name, machines) for name in grades["assessor"].unique()}
    for first, second in combinations(sorted(grades["assessor"].unique()), 2):
        both = _shared(grades, first, second)
        pair = {"assessor_a": first, "assessor_b": second,
                "kind_a": kinds[first], "kind_b": kinds[second]}
        for topic in sorted(both["topic"].unique(), key=topic_key):
            rows.append(_row(pair, str(topic), both[both["topic"] == topic], threshold, domain,
                             level))
        if len(both):
            rows.append(_row(pair, "all", both, threshold, domain, level))
    return pd.DataFrame(rows, columns=agreement_columns(level))


def _kind(name: str, machines: frozenset[str]) -> str:
    if name == "@people":
        return "person"
    if name == "@machines":
        return "machine"
    kinds = {"machine" if n.strip() in machines else "person" for n in name.split(",")}
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _shared(grades: pd.DataFrame, first: str, second: str) -> pd.DataFrame:
    a = grades[grades["assessor"] == first]
    b = grades[grades["assessor"] == second]
    return a.merge(b, on=["topic", "docno"], suffixes=("_a", "_b"))


def _row(pair: dict[str, str], topic: str, part: pd.DataFrame, threshold: int,
         domain: list[int], level: str) -> dict[str, object]:
    figures = pair_agreement(list(part["grade_a"].astype(int)), list(part["grade_b"].astype(int)),
                             threshold, domain, level)
    return {**pair, "topic": topic, **figures}


def store_agreement(store: JudgmentStore, threshold: int = 1, topics: list[str] | None = None,
                    sides: tuple[str, str] | None = None,
                    level: str = DEFAULT_ALPHA_LEVEL) -> pd.DataFrame:
    """:func:`agreement_table` over a store's judgment log (see :func:`judged_grades`):
    every pair of assessors, or the two ``sides`` (see :func:`side_grades`), alpha at
    ``level``.

    :raises PooltoolError: a side with no judgments, or two sides sharing an assessor.
    """
    grades = judged_grades(store, topics)
    machines = store.machines()
    if sides is None:
        return agreement_table(grades, threshold, machines, level)
    first, second = (_members(grades, side, machines) for side in sides)
    if set(first) & set(second):
        raise PooltoolError(f"{sides[0]} and {sides[1]} share assessors: "
                            f"{', '.join(sorted(set(first) & set(second)))}")
    both = pd.concat([side_grades(grades, side, machines) for side in sides], ignore_index=True)
    table = agreement_table(both, threshold, machines, level)
    if sides[0] > sides[1]:  # agreement_table orders a pair by name; keep the order asked
        table = swap_sides(table)
    return table


def swap_sides(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with sides a and b exchanged (names and kinds), columns in place."""
    swapped = table.rename(columns={"assessor_a": "assessor_b", "assessor_b": "assessor_a",
                                    "kind_a": "kind_b", "kind_b": "kind_a"})
    return swapped[table.columns]
