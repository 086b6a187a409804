"""The hole of rank-biased precision, whose residual is the classic case of a hole.

RBP (Moffat & Zobel, "Rank-biased precision for measurement of retrieval
effectiveness", ACM TOIS 27(1), 2008; trec_eval 10.0 ``m_rbp.c``):
``RBP = (1 - p) * sum_{i >= 1} gain_i * p^(i - 1)``, ``p`` the persistence.
RBP is a sum of terms each rising with its own gain, so grading every
unjudged document 0 (gain 0) gives the exact low end and grading every one
``max_grade`` the exact high end. Moffat & Zobel's *residual* also counts the
documents past the end of the ranking, ``p^n`` of the weight (``m_rbp_resid.c``
reports ``p^n + (1 - p) * sum over unjudged i of p^(i - 1)`` when the ranking has
an unjudged document, else 0); ``beyond_end=True`` adds that tail to the high end.
"""

from __future__ import annotations

import numpy as np

from pooltool.errors import InvalidArgument
from pooltool.measures.holes.interval import Hole, prepare


def rbp_hole(
    ranked: np.ndarray,
    max_grade: int,
    p: float = 0.9,
    level: int | None = None,
    beyond_end: bool = False,
) -> Hole:
    """The hole of RBP(p) over the unjudged documents of the ranked list.

    Gains: with ``level``, binary (1 when grade ``>= level``, Moffat & Zobel's
    RBP; ir_measures ``RBP(rel=level)``); without, graded,
    ``grade / max_grade`` when ``max_grade > 1`` (trec_eval's rescaling of
    gains into 0..1, ``m_rbp.c``, for qrels whose grades span ``0..max_grade``)
    and ``grade`` otherwise.

    :param ranked: grades in trec_eval order, NaN unjudged; float ``(n,)``.
    :param max_grade: the highest grade an unjudged document can get (and the
        top of the gain scale).
    :param p: the persistence, ``0 < p < 1``.
    :param level: binary gains at this relevance level, or ``None`` for graded gains.
    :param beyond_end: add the weight ``p^n`` of the ranks past the end
        (Moffat & Zobel's residual); the high end is then a bound that no
        assignment of this ranking's documents reaches (``high_exact=False``
        when ``p^n > 0``).
    :returns: a :class:`Hole` in 0..1; ``high - low`` is the residual.
    :raises InvalidArgument: ``p`` outside ``(0, 1)``, or as
        :func:`~pooltool.measures.holes.interval.prepare`.
    """
    if not 0.0 < p < 1.0:
        raise InvalidArgument(f"the persistence p must be in (0, 1), not {p}")
    top = prepare(ranked, np.zeros(0, dtype=np.int64), 1 if level is None else level, max_grade)
    if level is not None:
        gain = top.relevant.astype(np.float64)
        best = 1.0 if top.can_relevant else 0.0
    else:
        scale = float(max_grade) if max_grade > 1 else 1.0
        gain, best = top.grades / scale, max_grade / scale
    weight = (1.0 - p) * p ** np.arange(len(gain), dtype=np.float64)
    low = float((gain * weight).sum())
    high = low + best * float(weight[top.unjudged].sum())
    tail = p ** len(gain) if beyond_end else 0.0
    return Hole(low, high + tail, high_exact=tail == 0.0)
