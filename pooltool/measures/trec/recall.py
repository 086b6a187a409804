"""``recall``: Recall at cutoffs (``m_recall.c``).

``recall_k = rel(k) / R``: the relevant documents among the first ``k`` (ranks past
the end of the run add none) over the topic's relevant documents R (grade >= ``-l``);
0 when ``R = 0``. The same definition as :mod:`pooltool.measures.per_topic`, which
``pooltool recall`` uses with its judgment columns.
"""

from __future__ import annotations

import numpy as np

from pooltool.measures.trec.ranked import Options, Topic


def recall(topic: Topic, cutoffs: tuple[int, ...], _options: Options) -> list[float]:
    """``recall_k`` per cutoff (fractions 0..1)."""
    if topic.num_rel == 0:
        return [0.0] * len(cutoffs)
    found = topic.rel_within(np.array(cutoffs))
    return [float(r) / float(topic.num_rel) for r in found.tolist()]
