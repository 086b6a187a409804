"""``recall``: Recall at cutoffs (``m_recall.c``).

``recall_k = rel(k) / R``: the relevant documents among the first ``k`` (ranks past
the end of the run add none) over the topic's relevant documents R (grade >= ``-l``);
0 when ``R = 0``. The same definition as :mod:`pooltool.measures.per_topic`, which
``pooltool recall`` uses with its judgment columns.
"""

from __future__ import annotations

import numpy as np

from pooltool.measures.trec.ranked import Options, Ranked


def recall(ranked: Ranked, cutoffs: tuple[int, ...], _options: Options) -> np.ndarray:
    """``recall_k`` per topic and cutoff (fractions 0..1, ``(T, K)``)."""
    big_r = ranked.num_rel[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        values = ranked.rel_within(np.array(cutoffs, dtype=np.int64)) / big_r.astype(np.float64)
    return np.where(big_r > 0, values, 0.0)
