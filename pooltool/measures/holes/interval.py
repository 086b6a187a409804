"""The interval a measure can take over the grades its unjudged documents could get.

A topic's ranked list is given as ``ranked``: a float array, shape ``(n,)``, the
grade of each retrieved document in trec_eval order (:mod:`pooltool.ranking`;
after ``-M``), NaN where the document is unjudged (no qrels line, or a negative
grade: :func:`pooltool.records.is_judged`). ``qrels_grades`` holds the
grades of every judged qrels document of the topic (retrieved or not), shape
``(m,)``; negative grades in it are unjudged and ignored. It gives ``num_rel``
(grades ``>= level``, ``m_num_rel.c``) and the ideal ranking of nDCG.

An *assignment* gives each unjudged document of the ranked list (for a measure
with a cutoff ``k``: of its first ``k`` documents) a grade in ``0..max_grade``;
that document then joins the qrels with that grade, raising ``num_rel`` and the
ideal ranking when relevant. Unjudged documents outside the ranked list (or past
``k``) stay unjudged. A :class:`Hole` is ``[min, max]`` of the measure over every
assignment; ``low_exact`` / ``high_exact`` say whether the end is reached by
some assignment (otherwise it is a proven bound, looser than the true end).

For every measure here but bpref and judged@k, a document left unjudged counts
as grade 0 (trec_eval's reading), so the score as judged now is the value of
one assignment and lies in the hole. bpref skips unjudged documents, so its
score now may lie outside; judged@k is 1 under every full assignment, so its
hole is over partial ones (see :func:`~pooltool.measures.holes.judged_hole`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pooltool.errors import InvalidArgument
from pooltool.records import is_judged, is_relevant


@dataclass(frozen=True)
class Hole:
    """The range of a measure over the assignments of grades to unjudged documents.

    :ivar low: the smallest value (or a proven lower bound), same unit as the measure.
    :ivar high: the largest value (or a proven upper bound).
    :ivar low_exact: some assignment reaches ``low``.
    :ivar high_exact: some assignment reaches ``high``.
    """

    low: float
    high: float
    low_exact: bool = True
    high_exact: bool = True

    @property
    def width(self) -> float:
        """``high - low``: how much judging the unjudged documents could move the measure."""
        return self.high - self.low


@dataclass(frozen=True)
class Ranked:
    """A ranked list split into what the holes' formulas use.

    :ivar relevant: bool ``(n,)``, judged with grade ``>= level``.
    :ivar unjudged: bool ``(n,)``, NaN in ``ranked``.
    :ivar grades: float ``(n,)``, the judged grades, 0 at unjudged positions.
    :ivar judged_grades: int ``(m,)``, the qrels' judged grades (>= 0).
    :ivar num_rel: judged qrels documents with grade ``>= level``.
    :ivar can_relevant: ``max_grade >= level``: an assignment can make a document relevant.
    """

    relevant: np.ndarray
    unjudged: np.ndarray
    grades: np.ndarray
    judged_grades: np.ndarray
    num_rel: int
    can_relevant: bool


def prepare(
    ranked: np.ndarray,
    qrels_grades: np.ndarray,
    level: int,
    max_grade: int,
    k: int | None = None,
) -> Ranked:
    """Check the inputs of a hole function and split the ranked list (first ``k`` only).

    :raises InvalidArgument: ``k < 1``; ``level < 1`` (grade 0 would be relevant,
        and no assignment could make a document nonrelevant: not supported);
        ``max_grade < 0``; or a judged grade of ``ranked`` or ``qrels_grades``
        above ``max_grade``.
    """
    if k is not None and k < 1:
        raise InvalidArgument(f"the cutoff k must be at least 1, not {k}")
    if level < 1:
        raise InvalidArgument(f"the relevance level must be at least 1, not {level}")
    if max_grade < 0:
        raise InvalidArgument(f"max_grade must be >= 0, not {max_grade}")
    ranked = np.asarray(ranked, dtype=np.float64)
    if k is not None:
        ranked = ranked[:k]
    judged = np.asarray(qrels_grades, dtype=np.int64)
    judged = judged[is_judged(judged)]
    unjudged = ~is_judged(ranked)  # NaN is not judged
    grades = np.where(unjudged, 0.0, ranked)
    if grades.size and grades.max() > max_grade or judged.size and judged.max() > max_grade:
        raise InvalidArgument(f"a judged grade is above max_grade {max_grade}")
    return Ranked(
        relevant=~unjudged & is_relevant(grades, level),
        unjudged=unjudged,
        grades=grades,
        judged_grades=judged,
        num_rel=int(is_relevant(judged, level).sum()),
        can_relevant=max_grade >= level,
    )


def ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``, 0 when the denominator is 0 (trec_eval's habit)."""
    return numerator / denominator if denominator else 0.0
