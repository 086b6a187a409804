"""Gain values per grade, as trec_eval sets them up for ``ndcg``, ``ndcg_rel``, ``Rndcg``,
``G`` and ``rbp`` (``setup_gains`` and ``get_gain`` in ``gain_init.c``).

By default a grade's gain is the grade. Parameters ``GRADE=GAIN`` (``-m
ndcg.1=3,2=9``, ir_measures has no such parameter) replace the gains of those
grades; a name that is not an integer (``rbp``'s ``p``) is no gain. The levels are
then sorted by gain with glibc's merge sort and trec_eval's comparator, which
truncates the difference of two gains to an integer (so 0.5 and 0.3 tie), and the
ideal ranking takes them from the last (highest) down: each level's judged
documents in turn, stopping at the first level whose gain is not positive (and
empty when the last level's gain is not positive, even with no document at it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pooltool.measures.trec.c_arith import c_atol, c_int, msort
from pooltool.measures.trec.ranked import Topic

#: A gain parameter as given: (name, value), e.g. ("2", 9.0) or ("p", 0.8).
Pair = tuple[str, float]


@dataclass(frozen=True)
class Gains:
    """A topic's gain levels, in trec_eval's sorted order.

    :ivar levels: ``(grade, gain, documents at that grade)`` per level, sorted by gain.
    """

    levels: tuple[tuple[int, float, int], ...]

    def of(self, rel: np.ndarray) -> np.ndarray:
        """The gain of each relevance code (0.0 for a code with no level), float64."""
        lookup: dict[int, float] = {}
        for grade, gain, _count in reversed(self.levels):  # the first match wins
            lookup[grade] = gain
        if not len(rel):
            return np.zeros(0, dtype=np.float64)
        values, inverse = np.unique(rel, return_inverse=True)
        return np.array([lookup.get(int(v), 0.0) for v in values])[inverse]

    @property
    def initial(self) -> float:
        """The gain of the last (highest) level, whatever its count: where the ideal
        ranking starts (0.0 with no levels)."""
        return self.levels[-1][1] if self.levels else 0.0

    def ideal(self) -> tuple[np.ndarray, float]:
        """The ideal ranking's positive gains, by position, and the gain the walk finds
        right after them (<= 0; 0.0 when the levels run out).

        :returns: ``(gains, after)``: float64 ``(L,)`` and a float.
        """
        run: list[float] = []
        if self.initial <= 0.0:  # the C loops test the top level's gain before any count
            return np.zeros(0, dtype=np.float64), self.initial
        for _grade, gain, count in reversed(self.levels):
            if count <= 0:
                continue
            if gain <= 0.0:
                return np.array(run, dtype=np.float64), gain
            run.extend([gain] * count)
        return np.array(run, dtype=np.float64), 0.0

    def with_gains(self, gains: list[float]) -> Gains:
        """The same levels with new gain values (``rbp``'s normalisation)."""
        return Gains(tuple((g, new, n) for (g, _old, n), new in zip(self.levels, gains,
                                                                   strict=True)))


def valid_int(text: str) -> bool:
    """``valid_int`` of ``gain_init.c``: an optional sign, then one or more digits."""
    body = text[1:] if text[:1] in ("+", "-") else text
    return bool(body) and all("0" <= c <= "9" for c in body)


def topic_gains(topic: Topic, pairs: tuple[Pair, ...]) -> tuple[Gains, np.ndarray]:
    """:func:`setup_gains` of a topic and the gain of each of its retrieved documents,
    computed once per topic and parameter list (``ndcg``, ``G``, ``Rndcg``... share them)."""
    key = ("gains", pairs)
    if key not in topic.cache:
        gains = setup_gains(pairs, topic.rel_levels)
        topic.cache[key] = (gains, gains.of(topic.rel))
    found: tuple[Gains, np.ndarray] = topic.cache[key]
    return found


def setup_gains(pairs: tuple[Pair, ...], rel_levels: np.ndarray) -> Gains:
    """``setup_gains``: parameters first, then each grade ``0 .. len(rel_levels) - 1`` not
    named there with gain = grade, all with their document counts, then sorted."""
    levels: list[list[float]] = []
    for name, value in pairs:
        if valid_int(name):
            levels.append([c_atol(name), float(value), 0])
    for grade, count in enumerate(rel_levels.tolist()):
        named = next((lv for lv in levels if lv[0] == grade), None)
        if named is not None:
            named[2] = count
        else:
            levels.append([grade, float(grade), count])
    ordered = msort(levels, lambda a, b: c_int(a[1] - b[1]))
    return Gains(tuple((int(g), float(v), int(n)) for g, v, n in ordered))
