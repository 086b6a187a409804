"""Holes of AP (``map``), AP@k (``map_cut``) and bpref: exact, by an exchange argument.

Inputs as in :mod:`pooltool.measures.holes.interval`. These measures see only
whether a document is relevant (grade ``>= level``), so an assignment is the
set of unjudged documents it makes relevant. For a fixed count ``r`` of them
``num_rel`` is fixed too, and the measure is largest when they are the *first*
``r`` unjudged documents and smallest when they are the *last* ``r``:

*Exchange lemma.* Let unjudged positions ``i < j``; compare A (``i`` relevant,
``j`` not) with B (``j`` relevant, ``i`` not), all else equal.

* AP: a relevant document strictly between ``i`` and ``j`` has one more
  relevant above it in A (``+1/t`` each, ``t < j``); documents above ``i`` or
  below ``j`` are unchanged; the moved document contributes ``(c + 1) / i`` in A
  and ``(c + m + 1) / j`` in B (``c`` relevant above ``i``, ``m`` between). So
  ``A - B >= (c + 1)/i - (c + m + 1)/j + m/j = (c + 1)(1/i - 1/j) >= 0``.
* bpref (``m_bpref.c``): each relevant document adds
  ``1 - min(n, R) / min(N, R)``, non-increasing in ``n``, the judged nonrelevant
  above it; in A every relevant document has at most as many nonrelevant above
  it as in B (the moved one: ``n_i <= n_j`` before the swap, ``+1`` in B for
  ``i``), and ``R``, ``N`` are equal.

Repeated exchanges turn any ``r``-set into the first (last) ``r``, so the max
(min) over all assignments is the max (min) over ``r = 0..U`` of these two
rankings: both ends are exact. AP's ``2 (U + 1)`` values are found in
``O(n + U)`` by adding the made documents one at a time, bpref's in
``O((n + U) log n)`` by prefix sums of capped counts.
"""

from __future__ import annotations

import numpy as np

from pooltool.measures.holes.interval import Hole, Ranked, prepare
from pooltool.records import is_relevant


def ap_hole(
    ranked: np.ndarray,
    qrels_grades: np.ndarray,
    max_grade: int,
    level: int = 1,
    k: int | None = None,
) -> Hole:
    """The hole of AP (``m_map.c``) or, with ``k``, of AP@k (``m_map_cut.c``).

    ``AP@k = (1 / num_rel) * sum over relevant ranks i <= k of (relevant in 1..i) / i``,
    0 when ``num_rel = 0``; without ``k`` every rank counts. The unjudged
    documents of the first ``k`` (without ``k``: of the whole ranked list) may
    be graded; each made relevant adds 1 to ``num_rel``.

    :param ranked: grades in trec_eval order, NaN unjudged; float ``(n,)``.
    :param qrels_grades: the topic's judged qrels grades; int ``(m,)``.
    :param max_grade: the highest grade an unjudged document can get.
    :param level: trec_eval ``-l``.
    :param k: ``map_cut``'s cutoff, or ``None`` for ``map``.
    :returns: a :class:`Hole` in 0..1, both ends exact (module docstring).
    :raises InvalidArgument: see :func:`~pooltool.measures.holes.interval.prepare`.
    """
    top = prepare(ranked, qrels_grades, level, max_grade, k)
    first, last = _ap_families(top)
    return Hole(float(last.min()), float(first.max()))


def bpref_hole(
    ranked: np.ndarray, qrels_grades: np.ndarray, max_grade: int, level: int = 1
) -> Hole:
    """The hole of bpref (Buckley & Voorhees, SIGIR 2004; ``m_bpref.c``).

    ``bpref = (1 / R) * sum over relevant retrieved d of
    (1 - min(n_d, R) / min(N, R))`` (the term is 1 when ``n_d = 0``), ``n_d``
    the judged nonrelevant documents above ``d``, ``R = num_rel``, ``N`` the
    judged nonrelevant documents of the topic's qrels (grades ``0..level-1``);
    0 when ``R = 0``. Every unjudged document of the ranked list is graded:
    relevant adds to ``R``, nonrelevant to ``N`` and to ``n`` below it.

    bpref skips unjudged documents, so its value as judged now may lie
    outside this interval (grading an unjudged document 0 changes it).

    Parameters, result and errors as :func:`ap_hole` (no cutoff); both ends exact.
    """
    top = prepare(ranked, qrels_grades, level, max_grade)
    num_nonrel = int((~is_relevant(top.judged_grades, level)).sum())
    first, last = _bpref_families(top, num_nonrel)
    return Hole(float(last.min()), float(first.max()))


def _ap_families(top: Ranked) -> tuple[np.ndarray, np.ndarray]:
    """AP with the first ``r`` (resp. the last ``r``) unjudged documents made relevant,
    ``r = 0..U``, in ``O(n + U)``: float ``(U + 1,)`` each.

    Making unjudged rank ``q`` relevant adds its precision ``C(q) / q`` and ``1 / i``
    for every relevant rank ``i > q``. In the first-``r`` family the ``r - 1``
    made before it sit above ``q`` (``C(q) = J(q) + r``) and none below; in the
    last-``r`` family none sit above (``C(q) = J(q) + 1``) and ``r - 1`` below.
    ``J(q)``: judged relevant above ``q``.
    """
    ranks = np.arange(1, len(top.relevant) + 1, dtype=np.float64)
    judged_upto = np.cumsum(top.relevant)
    base = float((top.relevant * judged_upto / ranks).sum())
    after = np.cumsum((top.relevant / ranks)[::-1])[::-1] - top.relevant / ranks  # S(q)
    q = np.flatnonzero(top.unjudged) if top.can_relevant else np.zeros(0, dtype=np.int64)
    made = np.arange(1, len(q) + 1)
    above, below, rank = judged_upto[q], after[q], ranks[q]  # unjudged: own rank not relevant
    first = base + np.cumsum((above + made) / rank + below)
    below_made = np.concatenate([[0.0], np.cumsum(1.0 / rank[::-1])[:-1]])  # T(r - 1)
    last = base + np.cumsum((above[::-1] + 1) / rank[::-1] + below[::-1] + below_made)
    num_rel = top.num_rel + np.arange(len(q) + 1)
    divide = np.maximum(num_rel, 1)
    sums_first, sums_last = np.concatenate([[base], first]), np.concatenate([[base], last])
    return (np.where(num_rel > 0, sums_first / divide, 0.0),
            np.where(num_rel > 0, sums_last / divide, 0.0))


def _bpref_families(top: Ranked, judged_nonrel: int) -> tuple[np.ndarray, np.ndarray]:
    """bpref with the first ``r`` (resp. last ``r``) unjudged documents made relevant and
    the rest nonrelevant, ``r = 0..U``, in ``O((n + U) log n)``: float ``(U + 1,)`` each.

    With every document judged,
    ``bpref = (R_ret - sum_d min(n_d, R) / max(1, min(N, R))) / R`` over the relevant
    retrieved ``d`` (``m_bpref.c``'s terms; a term with ``n_d = 0`` is 1 either way).
    Down the ranking ``jn`` (judged nonrelevant above) and ``u`` (unjudged above)
    never fall, so each sum of ``min(., cap)`` is a prefix sum and a binary search
    (:func:`_capped`). First ``r``: a made document has ``n = jn``, a judged
    relevant one ``jn + max(0, u - r)``. Last ``r`` (the ``w = U - r`` left
    nonrelevant all stand above every made one): a made document has
    ``n = jn + w``, a judged relevant one ``jn + min(u, w)``.
    """
    nonrel = ~top.relevant & ~top.unjudged
    jn = np.cumsum(nonrel) - nonrel  # judged nonrelevant above each rank
    un = np.cumsum(top.unjudged) - top.unjudged  # unjudged above each rank
    rel = np.flatnonzero(top.relevant)
    jn_rel, u_rel = jn[rel], un[rel]
    b_rel = jn_rel + u_rel
    a = jn[top.unjudged]
    count = len(a)
    r = np.arange(count + 1) if top.can_relevant else np.zeros(1, dtype=np.int64)
    w = count - r
    num_rel = top.num_rel + r
    scale = np.maximum(np.minimum(judged_nonrel + w, num_rel), 1)
    n_rel, zero, end = len(rel), np.zeros_like(r), np.full_like(r, count)
    split = np.searchsorted(u_rel, r, side="right")  # judged relevant with u <= r
    first = (_capped(a, zero, r, num_rel) + _capped(jn_rel, zero, split, num_rel)
             + _capped(b_rel, split, np.full_like(r, n_rel), num_rel + r)
             - (n_rel - split) * r)
    split = np.searchsorted(u_rel, w, side="right")  # judged relevant with u <= w
    last = (_capped(a, w, end, num_rel - w) + r * w
            + _capped(b_rel, zero, split, num_rel)
            + _capped(jn_rel, split, np.full_like(r, n_rel), num_rel - w)
            + (n_rel - split) * w)
    retrieved, divide = n_rel + r, np.maximum(num_rel, 1)
    high = np.where(num_rel > 0, (retrieved - first / scale) / divide, 0.0)
    low = np.where(num_rel > 0, (retrieved - last / scale) / divide, 0.0)
    return high, low


def _capped(values: np.ndarray, lo: np.ndarray, hi: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """``sum_{lo <= i < hi} min(values[i], cap)`` for each ``(lo, hi, cap)``, int arrays of
    one shape; ``values`` never falls, so the ``values <= cap`` of a range are its head."""
    prefix = np.concatenate([[0], np.cumsum(values)])
    head = np.clip(np.searchsorted(values, cap, side="right"), lo, hi)
    return prefix[head] - prefix[lo] + (hi - head) * cap
