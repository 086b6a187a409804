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

import numpy as np

from pooltool.measures.trec.average_precision import geometric_logs
from pooltool.measures.trec.ranked import Options, Ranked


def bpref(ranked: Ranked, _params: tuple[()], _options: Options) -> np.ndarray:
    """``bpref`` (``(T, 1)``)."""
    big_r = ranked.num_rel
    hits = ranked.hits
    seen = hits.nonrel_above(ranked)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = 1.0 - (np.minimum(seen, big_r[hits.rows]).astype(np.float64)
                       / np.minimum(ranked.num_nonrel, big_r)[hits.rows].astype(np.float64))
    total = hits.sums(np.where(seen > 0, terms, 1.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(big_r > 0, total / big_r, total)[:, None]


def log_bpref(ranked: Ranked, params: tuple[()], options: Options) -> np.ndarray:
    """``gm_bpref``'s per-topic value, ``log(max(bpref, 0.00001))``."""
    return geometric_logs(bpref(ranked, params, options))
