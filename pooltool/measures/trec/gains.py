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

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pooltool.measures.qrels_index import QrelsIndex
from pooltool.measures.trec.c_arith import c_atol, c_int, msort
from pooltool.measures.trec.ranked import RELVALUE_PAD, Cells, Ranked, level_matrix

#: A gain parameter as given: (name, value), e.g. ("2", 9.0) or ("p", 0.8).
Pair = tuple[str, float]


@dataclass(frozen=True)
class Gains:
    """A topic's gain levels, in trec_eval's sorted order.

    :ivar levels: ``(grade, gain, documents at that grade)`` per level, sorted by gain.
    """

    levels: tuple[tuple[int, float, int], ...]

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


@dataclass(frozen=True)
class GainTable:
    """The gains of every topic of a qrels for one parameter list, as matrices.

    :ivar by_code: the gain of relevance code ``c`` at column ``c - RELVALUE_PAD``
        (0.0 for the padding and for a code with no level); float64, ``(Q, G + 4)``.
    :ivar ideal: the ideal ranking's positive gains (:meth:`Gains.ideal`), zero-padded;
        float64, ``(Q, L)`` with ``L >= 1``.
    :ivar size: the ideal ranking's length per topic (int64, ``(Q,)``).
    :ivar after: the gain the walk finds right after the ideal ranking (``(Q,)``).
    :ivar initial: :attr:`Gains.initial` per topic (``(Q,)``).
    """

    by_code: np.ndarray
    ideal: np.ndarray
    size: np.ndarray
    after: np.ndarray
    initial: np.ndarray


def gain_table(qrels: QrelsIndex, pairs: tuple[Pair, ...],
               adjust: Callable[[Gains], Gains] | None = None) -> GainTable:
    """:func:`setup_gains` of every qrels topic (then ``adjust``, e.g. ``rbp``'s scaling),
    built once per index, parameter list and adjustment."""
    key = f"gain_table {pairs!r} {adjust.__qualname__ if adjust else ''}"
    if key not in qrels.cache:
        topics = [setup_gains(pairs, levels) for levels in level_matrix(qrels)[1]]
        if adjust is not None:
            topics = [adjust(gains) for gains in topics]
        qrels.cache[key] = _table(topics, level_matrix(qrels)[0].shape[1] - 1)
    table: GainTable = qrels.cache[key]
    return table


def _table(topics: list[Gains], top_code: int) -> GainTable:
    by_code = np.zeros((len(topics), top_code + 1 - RELVALUE_PAD), dtype=np.float64)
    ideals = [gains.ideal() for gains in topics]
    size = np.array([len(ideal) for ideal, _after in ideals], dtype=np.int64)
    ideal = np.zeros((len(topics), max(1, int(size.max(initial=0)))), dtype=np.float64)
    for row, (gains, (gain_run, _after)) in enumerate(zip(topics, ideals, strict=True)):
        for code, gain, _count in reversed(gains.levels):  # the first match wins
            if RELVALUE_PAD < code <= top_code:  # a level no document can have: no column
                by_code[row, code - RELVALUE_PAD] = gain
        ideal[row, :len(gain_run)] = gain_run
    return GainTable(by_code, ideal, size, np.array([after for _ideal, after in ideals]),
                     np.array([gains.initial for gains in topics]))


def ranked_gains(ranked: Ranked, pairs: tuple[Pair, ...],
                 adjust: Callable[[Gains], Gains] | None = None
                 ) -> tuple[Cells, np.ndarray, GainTable]:
    """The cells of ``ranked`` whose gain is not 0, their gains (float64, aligned with the
    cells) and the table's rows of its topics; computed once per batch and parameter
    list (``ndcg``, ``G``, ``Rndcg``... share them)."""
    key = ("gains", pairs, adjust)
    if key not in ranked.cache:
        full = gain_table(ranked.qrels, pairs, adjust)
        rows = ranked.positions
        table = GainTable(full.by_code[rows], full.ideal[rows], full.size[rows],
                          full.after[rows], full.initial[rows])
        gains = np.take_along_axis(table.by_code, ranked.rel - RELVALUE_PAD, axis=1)
        cells = Cells.of(gains != 0)
        ranked.cache[key] = (cells, gains[cells.rows, cells.cols], table)
    found: tuple[Cells, np.ndarray, GainTable] = ranked.cache[key]
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
