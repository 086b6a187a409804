"""Agreement of any number of assessors, with missing judgments: Fleiss' kappa and
Krippendorff's alpha.

A *unit* is a judged document of a topic; each assessor gives it at most one grade
(their own grade, >= 0, as :func:`~pooltool.judging.agreement.judged_grades` reads it),
and most assessors give none (missing). Units judged by fewer than two assessors carry
no information on agreement and are left out of both figures.

* ``fleiss_kappa``: Fleiss (1971), "Measuring nominal scale agreement among many
  raters", with :math:`n_i` judgments of unit :math:`i`, :math:`n_{ij}` of them grade
  :math:`j`: :math:`P_i = (\\sum_j n_{ij}^2 - n_i) / (n_i (n_i - 1))`,
  :math:`\\bar P` their mean, :math:`p_j = \\sum_i n_{ij} / \\sum_i n_i`,
  :math:`\\bar P_e = \\sum_j p_j^2`, :math:`\\kappa = (\\bar P - \\bar P_e) / (1 - \\bar P_e)`.
  With as many judgments of every unit this is statsmodels' ``fleiss_kappa``; with
  missing ones, :math:`P_i` uses each unit's own :math:`n_i` (nominal: grades are
  categories).
* ``alpha_LEVEL``: Krippendorff's alpha at a level of measurement (nominal, ordinal,
  interval), by the ``krippendorff`` package on the assessors × units matrix with
  missing values (Krippendorff 2011, "Computing Krippendorff's alpha-reliability"),
  over the grades of the whole comparison as its value domain.

An undefined figure is NaN and ``undefined`` says why: no unit judged by two
assessors, or no variation (one grade is all there is). The ``all`` row pools the
units of every topic (each (topic, docno) one unit); it is not a mean of the topic rows.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from pooltool.judging.agreement import ALPHA_LEVELS, DEFAULT_ALPHA_LEVEL
from pooltool.records import topic_key

NO_PAIRS = "no document judged by two or more assessors"
NO_VARIATION = "no variation: every judgment has the same grade"


def multi_rater_columns(level: str = DEFAULT_ALPHA_LEVEL) -> list[str]:
    """The columns of :func:`multi_rater_table` with alpha at ``level``."""
    return ["topic", "assessors", "docs", "judgments", "fleiss_kappa", f"alpha_{level}",
            "undefined"]


def fleiss_kappa(counts: np.ndarray) -> float:
    """Fleiss' kappa of a units × grades count matrix (see the module docstring); units
    with fewer than two judgments are left out.

    :returns: kappa, at most 1; NaN when no unit has two judgments or one grade is all.
    """
    counts = np.asarray(counts, dtype=float)
    n = counts.sum(axis=1)
    counts, n = counts[n >= 2], n[n >= 2]
    if len(n) == 0:
        return math.nan
    p_i = ((counts**2).sum(axis=1) - n) / (n * (n - 1))
    p_j = counts.sum(axis=0) / n.sum()
    expected = float((p_j**2).sum())
    if expected == 1.0:
        return math.nan
    return (float(p_i.mean()) - expected) / (1.0 - expected)


def multi_rater_table(grades: pd.DataFrame, level: str = DEFAULT_ALPHA_LEVEL) -> pd.DataFrame:
    """Fleiss' kappa and Krippendorff's alpha per topic, plus an ``all`` row.

    :param grades: columns ``topic, docno, assessor, grade`` (one grade per assessor and
        unit; see :func:`~pooltool.judging.agreement.judged_grades`).
    :param level: alpha's level of measurement (:data:`~pooltool.judging.agreement.ALPHA_LEVELS`).
    :returns: columns :func:`multi_rater_columns`: ``assessors`` who judged a shared
        unit, ``docs`` the units judged by two or more, ``judgments`` theirs;
        topics in :func:`~pooltool.records.topic_key` order, then ``all``.
    :raises ValueError: an unknown level.
    """
    if level not in ALPHA_LEVELS:
        raise ValueError(f"unknown level of measurement {level!r}")
    domain = sorted(set(grades["grade"].astype(int)))
    rows = [_row(str(topic), grades[grades["topic"] == topic], domain, level)
            for topic in sorted(grades["topic"].unique(), key=topic_key)]
    if len(grades):
        rows.append(_row("all", grades, domain, level))
    return pd.DataFrame(rows, columns=multi_rater_columns(level))


def _row(topic: str, part: pd.DataFrame, domain: list[int], level: str) -> dict[str, object]:
    shared = part.groupby(["topic", "docno"])["assessor"].transform("size") >= 2
    part = part[shared]
    figures: dict[str, object] = {
        "topic": topic, "assessors": part["assessor"].nunique(),
        "docs": part.groupby(["topic", "docno"]).ngroups, "judgments": len(part)}
    if part.empty:
        return {**figures, "fleiss_kappa": math.nan, f"alpha_{level}": math.nan,
                "undefined": NO_PAIRS}
    if part["grade"].nunique() < 2:
        return {**figures, "fleiss_kappa": math.nan, f"alpha_{level}": math.nan,
                "undefined": NO_VARIATION}
    counts = pd.crosstab([part["topic"], part["docno"]], part["grade"].astype(int))
    return {**figures, "fleiss_kappa": fleiss_kappa(counts.to_numpy()),
            f"alpha_{level}": _alpha(part, domain, level), "undefined": ""}


def _alpha(part: pd.DataFrame, domain: list[int], level: str) -> float:
    import krippendorff

    matrix = part.pivot_table(index="assessor", columns=["topic", "docno"], values="grade",
                              aggfunc="first")
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(krippendorff.alpha(reliability_data=matrix.to_numpy(dtype=float),
                                        level_of_measurement=level,  # type: ignore[arg-type]
                                        value_domain=domain))
