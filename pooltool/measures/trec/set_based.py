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

from pooltool.errors import InvalidArgument
from pooltool.measures.trec.ranked import Options, Topic


def set_precision(topic: Topic, _params: tuple[()], _options: Options) -> list[float]:
    """``set_P``."""
    return [float(topic.num_rel_ret) / float(topic.num_ret) if topic.num_ret else 0.0]


def set_relative_precision(topic: Topic, _params: tuple[()], _options: Options) -> list[float]:
    """``set_relative_P``."""
    if not (topic.num_ret and topic.num_rel):
        return [0.0]
    return [float(topic.num_rel_ret) / float(min(topic.num_ret, topic.num_rel))]


def set_recall(topic: Topic, _params: tuple[()], _options: Options) -> list[float]:
    """``set_recall``."""
    return [float(topic.num_rel_ret) / float(topic.num_rel) if topic.num_rel else 0.0]


def set_map(topic: Topic, _params: tuple[()], _options: Options) -> list[float]:
    """``set_map``."""
    if not (topic.num_ret and topic.num_rel):
        return [0.0]
    found = float(topic.num_rel_ret)
    return [(found * found) / (float(topic.num_ret) * float(topic.num_rel))]


def set_f(topic: Topic, params: tuple[float, ...], _options: Options) -> list[float]:
    """``set_F`` with ``x = params[0]``."""
    if not topic.num_rel_ret:
        return [0.0]
    p = float(topic.num_rel_ret) / float(topic.num_ret)
    r = float(topic.num_rel_ret) / float(topic.num_rel)
    x = params[0]
    return [(x + 1.0) * p * r / (x * p + r)]


def utility(topic: Topic, params: tuple[float, ...], options: Options) -> list[float]:
    """``utility`` with coefficients ``params`` (exactly four).

    :raises InvalidArgument: not four coefficients.
    """
    if len(params) != 4:
        raise InvalidArgument("utility takes exactly 4 coefficients, e.g. utility.1,-1,0,0")
    a, n, big_r = topic.num_rel_ret, topic.num_ret, topic.num_rel
    return [params[0] * a + params[1] * (n - a) + params[2] * (big_r - a)
            + params[3] * (options.num_docs + a - n - big_r)]
