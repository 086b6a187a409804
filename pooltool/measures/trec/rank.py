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

from pooltool.measures.trec.ranked import RELVALUE_NONPOOL, RELVALUE_PAD, RELVALUE_UNJUDGED, Options, Ranked

#: The character of each code from RELVALUE_PAD up (``-3`` never printed, ``-2`` ``.``,
#: ``-1`` ``-``, grades 0..9 their digit) ; codes above 9 print ``>``.
_CHARS = np.frombuffer(b"<.-0123456789", dtype=np.uint8)
assert RELVALUE_UNJUDGED - RELVALUE_PAD == 1 and RELVALUE_NONPOOL - RELVALUE_PAD == 2


def reciprocal_rank(ranked: Ranked, _params: tuple[()], _options: Options) -> np.ndarray:
    """``recip_rank``."""
    first = ranked.hits.first() + 1
    with np.errstate(divide="ignore"):
        return np.where(first > 0, 1.0 / first.astype(np.float64), 0.0)[:, None]


def relstring(ranked: Ranked, params: tuple[float, ...], _options: Options) -> list[str]:
    """``relstring``: per topic one character per document of the first ``int(params[0])``."""
    length = np.clip(np.minimum(int(params[0]), ranked.num_ret), 0, None)
    codes = ranked.rel[:, :max(0, int(length.max(initial=0)))]
    chars = _CHARS[np.clip(codes - RELVALUE_PAD, 0, len(_CHARS) - 1)]
    chars[codes > 9] = ord(">")
    return [row[:n].tobytes().decode("ascii") for row, n in zip(chars, length.tolist(), strict=True)]


def unjudged(ranked: Ranked, cutoffs: tuple[int, ...], _options: Options) -> np.ndarray:
    """``unj_k`` per topic and cutoff."""
    ks = np.array(cutoffs, dtype=np.int64)
    return ranked.within(ranked.unjudged_count, ks) / ks.astype(np.float64)


def judged(ranked: Ranked, cutoffs: tuple[int, ...], _options: Options) -> np.ndarray:
    """``judged_k`` (ir_measures' ``Judged@k``, not a trec_eval measure): the documents
    among the first k that have a qrels line, negative grades included, over
    ``min(k, n)``; 0 when nothing is retrieved (ir_measures 0.4.3,
    ``providers/judged_provider.py``; ir_measures itself breaks score ties by docno
    ascending, pooltool by trec_eval's descending order)."""
    ks = np.array(cutoffs, dtype=np.int64)
    has_line = np.cumsum((ranked.rel != RELVALUE_NONPOOL) & (ranked.rel != RELVALUE_PAD), axis=1)
    n = ranked.num_ret[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        values = ranked.within(has_line, ks) / np.minimum(ks, n).astype(np.float64)
    return np.where(n > 0, values, 0.0)
