"""Measures of the retrieved set as a whole: ``set_P``, ``set_relative_P``,
``set_recall``, ``set_map``, ``set_F``, ``utility`` (``m_set_P.c``, ``m_set_rel_P.c``,
``m_set_recall.c``, ``m_set_map.c``, ``m_set_F.c``, ``m_utility.c``).

With n retrieved, R relevant, ``a = num_rel_ret`` (each 0 when its denominator is 0):

* ``set_P = a / n``; ``set_relative_P = a / min(n, R)``; ``set_recall = a / R``;
* ``set_map = (a * a) / (n * R)``;
* ``set_F = (x + 1) P R / (x P + R)`` with ``P = a / n``, ``R = a / R``, ``x`` the
  parameter (default 1), 0 when ``a = 0``;
* ``utility = p1 a + p2 (n - a) + p3 (R - a) + p4 (N + a - n - R)`` with
  parameters ``p1..p4`` (default 1, -1, 0, 0) and N the collection size (``-N``).
"""

from __future__ import annotations

import numpy as np

from pooltool.errors import InvalidArgument
from pooltool.measures.trec.ranked import Options, Ranked


def _counts(ranked: Ranked) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(a, n, R)`` per topic as float64: relevant retrieved, retrieved, relevant."""
    return (ranked.num_rel_ret.astype(np.float64), ranked.num_ret.astype(np.float64),
            ranked.num_rel.astype(np.float64))


def set_precision(ranked: Ranked, _params: tuple[()], _options: Options) -> np.ndarray:
    """``set_P``."""
    a, n, _r = _counts(ranked)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > 0, a / n, 0.0)[:, None]


def set_relative_precision(ranked: Ranked, _params: tuple[()], _options: Options) -> np.ndarray:
    """``set_relative_P``."""
    a, n, big_r = _counts(ranked)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((n > 0) & (big_r > 0), a / np.minimum(n, big_r), 0.0)[:, None]


def set_recall(ranked: Ranked, _params: tuple[()], _options: Options) -> np.ndarray:
    """``set_recall``."""
    a, _n, big_r = _counts(ranked)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(big_r > 0, a / big_r, 0.0)[:, None]


def set_map(ranked: Ranked, _params: tuple[()], _options: Options) -> np.ndarray:
    """``set_map``."""
    a, n, big_r = _counts(ranked)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((n > 0) & (big_r > 0), (a * a) / (n * big_r), 0.0)[:, None]


def set_f(ranked: Ranked, params: tuple[float, ...], _options: Options) -> np.ndarray:
    """``set_F`` with ``x = params[0]``."""
    a, n, big_r = _counts(ranked)
    x = params[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        p = a / n
        r = a / big_r
        return np.where(a > 0, (x + 1.0) * p * r / (x * p + r), 0.0)[:, None]


def utility(ranked: Ranked, params: tuple[float, ...], options: Options) -> np.ndarray:
    """``utility`` with coefficients ``params`` (exactly four).

    :raises InvalidArgument: not four coefficients.
    """
    if len(params) != 4:
        raise InvalidArgument("utility takes exactly 4 coefficients, e.g. utility.1,-1,0,0")
    a, n, big_r = ranked.num_rel_ret, ranked.num_ret, ranked.num_rel
    return (params[0] * a + params[1] * (n - a) + params[2] * (big_r - a)
            + params[3] * (options.num_docs + a - n - big_r))[:, None]
