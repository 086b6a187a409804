"""Binary preference: ``bpref`` and ``gm_bpref`` (``m_bpref.c``, ``m_gm_bpref.c``).

Buckley and Voorhees, SIGIR 2004. Only judged documents count: a retrieved document
with no qrels line or a negative grade is skipped. With R = num_rel, N the judged
non-relevant documents of the topic (grade < ``-l``), and ``s`` the judged
non-relevant documents ranked above a relevant retrieved document, that document
adds ``1 - min(s, R) / min(N, R)`` (1 when ``s = 0``); the sum is over R (0 when R = 0).
``gm_bpref`` is ``log(max(bpref, 0.00001))`` per topic and ``exp`` of their mean in
the ``all`` line, printed only there.
"""

from __future__ import annotations

import math

import numpy as np

from pooltool.measures.trec.average_precision import MIN_GEO_MEAN
from pooltool.measures.trec.c_arith import seq_sum
from pooltool.measures.trec.ranked import Options, Topic


def bpref(topic: Topic, _params: tuple[()], _options: Options) -> list[float]:
    """``bpref``."""
    rel, level, big_r = topic.rel, topic.level, topic.num_rel
    num_nonrel = int(topic.rel_levels[:level].sum())
    nonrel = (rel >= 0) & (rel < level)
    seen: np.ndarray = (np.cumsum(nonrel) - nonrel)[topic.relevant]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = 1.0 - (np.minimum(seen, big_r).astype(np.float64)
                       / float(min(num_nonrel, big_r)))
    total = seq_sum(np.where(seen > 0, terms, 1.0))
    if big_r:
        total /= big_r
    return [total]


def log_bpref(topic: Topic, params: tuple[()], options: Options) -> list[float]:
    """``gm_bpref``'s per-topic value, ``log(max(bpref, 0.00001))``."""
    return [math.log(max(bpref(topic, params, options)[0], MIN_GEO_MEAN))]
