"""The hole of every measure: the interval a score can take over the grades its
unjudged documents could get.

For one topic, each function takes the ranked list's grades in trec_eval
order with NaN for unjudged documents, the topic's judged qrels grades, the
highest grade an unjudged document can get and the measure's parameters, and
returns a :class:`Hole` ``[low, high]``; the conventions (which unjudged
documents are graded, what "exact" means) are in
:mod:`pooltool.measures.holes.interval`, each bound's definition and proof in
its function's docstring.

In Python::

    import numpy as np
    from pooltool.measures.holes import ndcg_hole

    ranked = np.array([2, np.nan, 0, 1, np.nan])      # grades down the ranking
    ndcg_hole(ranked, np.array([2, 0, 1, 1]), max_grade=2, k=5)   # Hole(low=..., high=...)
"""

from __future__ import annotations

from pooltool.measures.holes.average_precision import ap_hole, bpref_hole
from pooltool.measures.holes.counting import (
    judged_hole,
    precision_hole,
    recall_hole,
    reciprocal_rank_hole,
    rprec_hole,
    success_hole,
)
from pooltool.measures.holes.interval import Hole
from pooltool.measures.holes.ndcg import ndcg_hole
from pooltool.measures.holes.rbp import rbp_hole

__all__ = [
    "Hole",
    "ap_hole",
    "bpref_hole",
    "judged_hole",
    "ndcg_hole",
    "precision_hole",
    "rbp_hole",
    "recall_hole",
    "reciprocal_rank_hole",
    "rprec_hole",
    "success_hole",
]
