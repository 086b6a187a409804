"""Precision measures: ``P``, ``relative_P``, ``Rprec``, ``Rprec_mult``, ``success``.

Formulas (usnistgov/trec_eval 10.0; ``n`` documents retrieved, ``R`` = num_rel,
``rel(k)`` the relevant documents among the first ``k``, ranks past ``n`` adding none):

* ``P_k = rel(k) / k`` (``m_P.c``): missing ranks count as not relevant;
* ``relative_P_k = rel(k) / min(k, R)``, 0 when ``R = 0`` (``m_rel_P.c``);
* ``Rprec = rel(min(n, R)) / R``, 0 when ``min(n, R) = 0`` (``m_Rprec.c``);
* ``Rprec_mult_x = rel(min(c, n)) / c`` with ``c = (long)(x * R + 0.9)``, 0 when
  ``c = 0`` (``m_Rprec_mult.c``; precision at a multiple of R);
* ``success_k = 1`` when ``rel(k) > 0``, else 0 (``m_success.c``).
"""

from __future__ import annotations

import numpy as np

from pooltool.measures.trec.ranked import Options, Topic


def precision(topic: Topic, cutoffs: tuple[int, ...], _options: Options) -> list[float]:
    """``P_k`` per cutoff (fractions 0..1)."""
    found = topic.rel_within(np.array(cutoffs))
    return [float(r) / float(k) for r, k in zip(found.tolist(), cutoffs, strict=True)]


def relative_precision(topic: Topic, cutoffs: tuple[int, ...], _options: Options) -> list[float]:
    """``relative_P_k`` per cutoff."""
    if topic.num_rel == 0:
        return [0.0] * len(cutoffs)
    found = topic.rel_within(np.array(cutoffs))
    return [float(r) / float(min(k, topic.num_rel))
            for r, k in zip(found.tolist(), cutoffs, strict=True)]


def r_precision(topic: Topic, _params: tuple[()], _options: Options) -> list[float]:
    """``Rprec``."""
    look = min(topic.num_ret, topic.num_rel)
    if look == 0:
        return [0.0]
    return [float(topic.rel_within(np.array([look]))[0]) / float(topic.num_rel)]


def r_precision_mult(topic: Topic, multiples: tuple[float, ...], _options: Options) -> list[float]:
    """``Rprec_mult_x`` per multiple ``x`` of R."""
    values = []
    for x in multiples:
        cut = int(x * topic.num_rel + 0.9)
        if cut <= 0:
            values.append(0.0)
            continue
        found = int(topic.rel_within(np.array([min(cut, topic.num_ret)]))[0])
        values.append(float(found) / float(cut))
    return values


def success(topic: Topic, cutoffs: tuple[int, ...], _options: Options) -> list[float]:
    """``success_k`` per cutoff (0 or 1)."""
    return [1.0 if r else 0.0 for r in topic.rel_within(np.array(cutoffs)).tolist()]
