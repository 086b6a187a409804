"""Measures of ranks: ``recip_rank``, ``relstring``, ``unj`` (``m_recip_rank.c``,
``m_relstring.c``, ``m_unjudged.c``).

* ``recip_rank = 1 / r_1``, the rank of the first relevant document; 0 when none;
* ``relstring_N``: the codes of the first N documents (default 10) as characters:
  the grade for 0..9, ``>`` above 9, ``-`` for no qrels line, ``.`` for a negative
  grade (pooled, not judged); printed per topic only, quoted;
* ``unj_k = U(k) / k``: documents among the first k with no qrels line or a
  negative grade; ranks past the end count as judged.
"""

from __future__ import annotations

import numpy as np

from pooltool.measures.trec.ranked import RELVALUE_NONPOOL, RELVALUE_UNJUDGED, Options, Topic


def reciprocal_rank(topic: Topic, _params: tuple[()], _options: Options) -> list[float]:
    """``recip_rank``."""
    ranks = topic.rel_ranks
    return [1.0 / float(ranks[0])] if len(ranks) else [0.0]


def relstring(topic: Topic, params: tuple[float, ...], _options: Options) -> str:
    """``relstring``: one character per document of the first ``int(params[0])``."""
    length = max(0, min(int(params[0]), topic.num_ret))
    return "".join(_char(int(code)) for code in topic.rel[:length].tolist())


def _char(code: int) -> str:
    if code > 9:
        return ">"
    if code >= 0:
        return str(code)
    if code == RELVALUE_NONPOOL:
        return "-"
    return "." if code == RELVALUE_UNJUDGED else "<"


def unjudged(topic: Topic, cutoffs: tuple[int, ...], _options: Options) -> list[float]:
    """``unj_k`` per cutoff."""
    found = topic.unjudged_within(np.array(cutoffs))
    return [float(u) / float(k) for u, k in zip(found.tolist(), cutoffs, strict=True)]


def judged(topic: Topic, cutoffs: tuple[int, ...], _options: Options) -> list[float]:
    """``judged_k`` (ir_measures' ``Judged@k``, not a trec_eval measure): the documents
    among the first k that have a qrels line, negative grades included, over
    ``min(k, n)``; 0 when nothing is retrieved (ir_measures 0.4.3,
    ``providers/judged_provider.py``; ir_measures itself breaks score ties by docno
    ascending, pooltool by trec_eval's descending order)."""
    has_line = np.flatnonzero(topic.rel != RELVALUE_NONPOOL) + 1
    found = np.searchsorted(has_line, np.array(cutoffs), side="right")
    return [float(j) / float(min(k, topic.num_ret)) if topic.num_ret else 0.0
            for j, k in zip(found.tolist(), cutoffs, strict=True)]
