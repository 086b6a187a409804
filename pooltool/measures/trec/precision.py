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

from pooltool.measures.trec.ranked import Options, Ranked


def precision(ranked: Ranked, cutoffs: tuple[int, ...], _options: Options) -> np.ndarray:
    """``P_k`` per topic and cutoff (fractions 0..1, ``(T, K)``)."""
    ks = np.array(cutoffs, dtype=np.int64)
    return ranked.rel_within(ks) / ks.astype(np.float64)


def relative_precision(ranked: Ranked, cutoffs: tuple[int, ...], _options: Options) -> np.ndarray:
    """``relative_P_k`` per topic and cutoff."""
    ks = np.array(cutoffs, dtype=np.int64)
    big_r = ranked.num_rel[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        values = ranked.rel_within(ks) / np.minimum(ks, big_r).astype(np.float64)
    return np.where(big_r > 0, values, 0.0)


def r_precision(ranked: Ranked, _params: tuple[()], _options: Options) -> np.ndarray:
    """``Rprec``."""
    look = np.minimum(ranked.num_ret, ranked.num_rel)
    found = ranked.rel_within(look[:, None])[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        values = found / ranked.num_rel.astype(np.float64)
    return np.where(look > 0, values, 0.0)[:, None]


def r_precision_mult(ranked: Ranked, multiples: tuple[float, ...], _options: Options
                     ) -> np.ndarray:
    """``Rprec_mult_x`` per topic and multiple ``x`` of R."""
    xs = np.array(multiples, dtype=np.float64)
    cut = (xs[None, :] * ranked.num_rel[:, None] + 0.9).astype(np.int64)  # C's (long) cast
    found = ranked.rel_within(np.minimum(cut, ranked.num_ret[:, None]))
    with np.errstate(divide="ignore", invalid="ignore"):
        values = found / cut.astype(np.float64)
    return np.where(cut > 0, values, 0.0)


def success(ranked: Ranked, cutoffs: tuple[int, ...], _options: Options) -> np.ndarray:
    """``success_k`` per topic and cutoff (0 or 1)."""
    return (ranked.rel_within(np.array(cutoffs, dtype=np.int64)) > 0).astype(np.float64)
