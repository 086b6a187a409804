"""The topics of one run as trec_eval's measures see them (``form_res_rels.c``), as one
matrix of relevance codes, topics by ranks, that every measure family reads.

trec_eval turns each topic's retrieved documents into ``results_rel_list``: the
documents in trec_eval's order (score descending, docno descending; see
:mod:`pooltool.ranking`), cut to the first ``-M`` documents, each replaced by its
relevance code: its grade when the qrels judge it (grade >= 0), ``-1``
(``RELVALUE_NONPOOL``) when the qrels have no line for it, ``-2``
(``RELVALUE_UNJUDGED``) when its qrels line has a negative grade (pooltool reads a
negative grade as no judgment; trec_eval tells the two apart, and ``relstring``,
``infAP`` and ``bpref`` see the difference). ``-J`` keeps only the judged codes
(>= 0). ``rel_levels[g]`` counts the topic's judged documents of grade ``g`` in the
qrels, retrieved or not; ``num_rel`` counts those with grade >= ``-l``.

Under ``-c`` a qrels topic the run lacks is scored on trec_eval's stand-in ranking,
one document that no qrels judge (``bogus_ranking`` in ``trec_eval.c``), and a few
values are then set back to 0 (see :mod:`pooltool.measures.trec.evaluate`).

:class:`Ranked` holds the codes of many topics at once, one row per topic padded
past its last document with :data:`RELVALUE_PAD`, so that each measure is a few
numpy operations over all topics instead of a Python call per topic. trec_eval adds
each topic's terms left to right; ``np.cumsum`` along a row is that same fold, and
the padding and the documents a sum skips add exactly ``0.0``, which changes no
double (:mod:`pooltool.measures.trec.c_arith`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from pooltool.measures.per_topic import EncodedRun, ordered_lines
from pooltool.measures.qrels_index import NONPOOL, QrelsIndex
from pooltool.measures.trec.c_arith import row_prefix, row_sums
from pooltool.ranking import positions_in_groups
from pooltool.records import is_judged

RELVALUE_NONPOOL = -1
RELVALUE_UNJUDGED = -2
#: Not trec_eval's: the cells of a :class:`Ranked` row past the topic's last document.
RELVALUE_PAD = -3
#: Cells (topics x ranks) of one :class:`Ranked` at most, unless one topic alone is longer.
CELLS = 1 << 22
#: The highest relevance code a :class:`Ranked` holds in one byte: every family compares,
#: gathers and shifts the codes (by ``-RELVALUE_PAD`` at most), so a byte-wide matrix is
#: read eight times faster than an int64 one; a run with a higher grade keeps int64.
BYTE_CODES = 100


@dataclass(frozen=True)
class Topic:
    """One topic's ranked relevance codes and its qrels counts, as the holes read them
    (:mod:`pooltool.measures.trec.hole_columns`; the measures read a :class:`Ranked`).

    :ivar topic: the topic id.
    :ivar rel: relevance code of each retrieved document in trec_eval order
        (grade >= 0, :data:`RELVALUE_NONPOOL`, :data:`RELVALUE_UNJUDGED`); int64, shape ``(n,)``.
    :ivar rel_levels: judged qrels documents of the topic per grade ``0 .. max``
        (trec_eval's ``rel_levels``, its length ``num_rel_levels``); int64.
    :ivar level: minimum grade of a relevant document (``-l``), >= 0.
    :ivar present: ``False`` for a qrels topic the run lacks (scored under ``-c``).
    """

    topic: str
    rel: np.ndarray
    rel_levels: np.ndarray
    level: int
    present: bool = True


@dataclass(frozen=True)
class Options:
    """trec_eval's evaluation flags.

    :ivar level: ``-l``, minimum relevant grade, >= 0.
    :ivar complete: ``-c``, qrels topics the run lacks are scored and counted.
    :ivar max_docs: ``-M``, documents kept per topic, ``None`` for all.
    :ivar judged_only: ``-J``, drop unjudged documents from the ranking first.
    :ivar num_docs: ``-N``, documents in the collection (``utility``'s 4th coefficient).
    :ivar holes: not trec_eval's: also compute each value's hole (the ``low`` / ``high``
        of :mod:`pooltool.measures.trec.hole_columns`); ``False`` skips that work when
        nothing prints them (trec_eval's layout, the wide table).
    """

    level: int = 1
    complete: bool = False
    max_docs: int | None = None
    judged_only: bool = False
    num_docs: int = 0
    holes: bool = True


def level_counts(qrels: QrelsIndex) -> list[np.ndarray]:
    """``rel_levels`` of every qrels topic, in :attr:`QrelsIndex.topics` order."""
    return list(level_matrix(qrels)[1])


def level_matrix(qrels: QrelsIndex) -> tuple[np.ndarray, list[np.ndarray]]:
    """``rel_levels`` of every qrels topic as one matrix (int64, topics x (max grade + 1),
    zero-padded) and trimmed per topic (its length is trec_eval's ``num_rel_levels``);
    built once per index."""
    cached = qrels.cache.get("rel_levels")
    if cached is None:
        judged = is_judged(qrels.grades)
        topics, grades = qrels.judgment_topics[judged], qrels.grades[judged]
        width = int(grades.max()) + 1 if len(grades) else 0
        counts = np.zeros((len(qrels.topics), width), dtype=np.int64)
        np.add.at(counts, (topics, grades), 1)
        cached = (counts, [_trimmed(row) for row in counts])
        qrels.cache["rel_levels"] = cached
    found: tuple[np.ndarray, list[np.ndarray]] = cached
    return found


def _trimmed(row: np.ndarray) -> np.ndarray:
    nonzero = np.flatnonzero(row)
    return row[: nonzero[-1] + 1] if len(nonzero) else row[:0]


@dataclass(frozen=True)
class Ranked:
    """Topics of one run as a matrix of relevance codes, topics x ranks.

    :ivar topics: the topic ids, in qrels (``strcmp``) order; ``T`` of them.
    :ivar positions: each topic's position in the qrels' topics (int64, ``(T,)``).
    :ivar rel: relevance codes in trec_eval order (as :attr:`Topic.rel`), each row
        padded with :data:`RELVALUE_PAD` past its ``num_ret`` documents; ``(T, W)`` with
        ``W >= 1``, int8 when no code exceeds :data:`BYTE_CODES` (as :func:`ranked_batches`
        makes it), else int64.
    :ivar num_ret: documents retrieved per topic (after ``-M`` and ``-J``); int64, ``(T,)``.
    :ivar levels: judged qrels documents per topic and grade (zero-padded
        ``rel_levels``); int64, ``(T, G)``.
    :ivar level: minimum grade of a relevant document (``-l``), >= 0.
    :ivar present: ``False`` for a qrels topic the run lacks (scored under ``-c``); ``(T,)``.
    :ivar qrels: the judgments (per-topic gain tables are cached there, shared by runs).
    :ivar cache: values the measures of one family share (the gains of a parameter list).
    """

    topics: list[str]
    positions: np.ndarray
    rel: np.ndarray
    num_ret: np.ndarray
    levels: np.ndarray
    level: int
    present: np.ndarray
    qrels: QrelsIndex
    cache: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    def at_level(self, level: int) -> Ranked:
        """The same topics with another relevance level (and a cache of its own)."""
        return Ranked(self.topics, self.positions, self.rel, self.num_ret, self.levels, level,
                      self.present, self.qrels)

    def topic(self, row: int) -> Topic:
        """One row as a :class:`Topic` (for the holes)."""
        trimmed = level_matrix(self.qrels)[1][int(self.positions[row])]
        return Topic(self.topics[row], self.rel[row, :self.num_ret[row]].astype(np.int64),
                     trimmed, self.level, bool(self.present[row]))

    @property
    def width(self) -> int:
        """``W``, the ranks of a row."""
        return int(self.rel.shape[1])

    @cached_property
    def num_rel(self) -> np.ndarray:
        """Judged documents with grade >= level per topic (int64, ``(T,)``)."""
        return self.levels[:, self.level:].sum(axis=1)

    @cached_property
    def num_nonrel(self) -> np.ndarray:
        """Judged documents with grade < level per topic (int64, ``(T,)``)."""
        return self.levels[:, :self.level].sum(axis=1)

    @cached_property
    def relevant(self) -> np.ndarray:
        """Per cell: grade >= level (bool, ``(T, W)``)."""
        return self.rel >= self.level

    @cached_property
    def unjudged(self) -> np.ndarray:
        """Per cell: a retrieved document with a negative code (bool, ``(T, W)``)."""
        return (self.rel < 0) & (self.rel != RELVALUE_PAD)

    @cached_property
    def hits(self) -> Cells:
        """The relevant retrieved documents, topic by topic in rank order."""
        return Cells.of(self.relevant)

    @cached_property
    def unjudged_count(self) -> np.ndarray:
        """Unjudged documents at ranks 1 .. i + 1, per cell (int64, ``(T, W)``)."""
        return np.cumsum(self.unjudged, axis=1, dtype=np.int64)

    @property
    def num_rel_ret(self) -> np.ndarray:
        """Relevant documents retrieved per topic (int64, ``(T,)``)."""
        return self.hits.counts

    @property
    def num_unjudged(self) -> np.ndarray:
        """Unjudged documents retrieved per topic (int64, ``(T,)``)."""
        return self.unjudged_count[:, -1]

    @cached_property
    def precisions(self) -> np.ndarray:
        """``j / r_j`` at the j-th relevant document (rank ``r_j``), per :attr:`hits` cell
        (float64)."""
        hits = self.hits
        return (hits.index + 1) / (hits.cols + 1).astype(np.float64)

    def within(self, counts: np.ndarray, ks: np.ndarray) -> np.ndarray:
        """Of a per-cell running count, its value at rank ``k`` per topic and k (ranks past
        a row's end add nothing); ``ks`` int >= 0, ``(K,)`` or ``(T, K)`` -> int64 ``(T, K)``."""
        columns = np.minimum(np.broadcast_to(ks, (len(self.topics), np.shape(ks)[-1])),
                             self.width) - 1
        found = np.take_along_axis(counts, np.maximum(columns, 0), axis=1)
        return np.where(columns >= 0, found, 0)

    def rel_within(self, ks: np.ndarray) -> np.ndarray:
        """Relevant documents among the first k, per topic and k (int64, ``(T, K)``)."""
        return self.hits.within(ks)


@dataclass(frozen=True)
class Cells:
    """Some cells of a :class:`Ranked` (the relevant documents, say), row by row in rank
    order, for sums over them alone: a row's sum over its cells, added left to right, is
    its sum over the whole row with 0.0 elsewhere, at a fraction of the work.

    :ivar rows: each cell's row (int64, ``(N,)``, ascending).
    :ivar cols: each cell's column, its 0-based rank (int64, ascending within a row).
    :ivar index: each cell's 0-based position among its row's cells.
    :ivar starts: where each row's cells start in ``rows`` (int64, ``(T,)``).
    :ivar counts: cells per row (int64, ``(T,)``).
    :ivar width: ``W``, the ranks of a row.
    """

    rows: np.ndarray
    cols: np.ndarray
    index: np.ndarray
    starts: np.ndarray
    counts: np.ndarray
    width: int

    @classmethod
    def of(cls, mask: np.ndarray) -> Cells:
        """The true cells of a ``(T, W)`` bool matrix."""
        flat = np.flatnonzero(mask)  # and divided: a third of np.nonzero's time in 2-d
        rows = flat // max(mask.shape[1], 1)
        cols = flat - rows * mask.shape[1]
        counts = np.bincount(rows, minlength=mask.shape[0]).astype(np.int64)
        starts = np.cumsum(counts) - counts
        index = np.arange(len(rows), dtype=np.int64) - starts[rows]
        return cls(rows.astype(np.int64), cols.astype(np.int64), index, starts, counts,
                   mask.shape[1])

    def matrix(self, values: np.ndarray) -> np.ndarray:
        """The values of the cells packed to the left of each row, 0.0 after
        (float64, ``(T, max(1, most cells in a row))``)."""
        out = np.zeros((len(self.counts), max(1, int(self.counts.max(initial=0)))))
        out[self.rows, self.index] = values
        return out

    def sums(self, values: np.ndarray) -> np.ndarray:
        """Per row, its cells' values added left to right (float64, ``(T,)``)."""
        return row_sums(self.matrix(values))

    def prefix(self, values: np.ndarray) -> np.ndarray:
        """Per row, the running sums of its cells' values, ``[0, v0, v0+v1, ...]``."""
        return row_prefix(self.matrix(values))

    def within(self, ks: np.ndarray) -> np.ndarray:
        """Cells among the first k ranks, per row and k (``ks`` int >= 0, ``(K,)`` or
        ``(T, K)``; int64 ``(T, K)``)."""
        stride = self.width + 1
        keys = self.rows * stride + self.cols
        rows = np.arange(len(self.counts), dtype=np.int64)[:, None]
        bounds = rows * stride + np.minimum(np.asarray(ks, dtype=np.int64), self.width)
        return np.searchsorted(keys, bounds) - self.starts[:, None]

    def first(self) -> np.ndarray:
        """Each row's first cell's column, -1 for a row without cells (int64, ``(T,)``)."""
        cols = np.append(self.cols, -1)
        return np.where(self.counts > 0, cols[np.minimum(self.starts, len(self.cols))], -1)

    def count_before(self, other: Cells) -> np.ndarray:
        """Per cell of ``other`` (of the same matrix), this one's cells of its row ranked
        above it (int64, ``(len(other.rows),)``)."""
        stride = self.width + 1
        keys = self.rows * stride + self.cols
        return np.searchsorted(keys, other.rows * stride + other.cols) - self.starts[other.rows]

    def nonrel_above(self, ranked: Ranked) -> np.ndarray:
        """Per cell (a relevant document), the judged non-relevant documents above it: the
        ranks above, less the relevant and the unjudged ones (int64)."""
        return self.cols - self.index - ranked.unjudged_count[self.rows, self.cols]


def ranked_batches(encoded: EncodedRun, qrels: QrelsIndex, options: Options) -> Iterator[Ranked]:
    """Every topic to score of one run, in qrels topic order (``strcmp``), in batches of
    at most about :data:`CELLS` cells.

    :param encoded: the run's lines (topics without qrels already dropped).
    :param qrels: the judgments.
    :param options: the flags; without ``complete`` a qrels topic absent from the
        run is skipped (pooltool's rule, as in :mod:`pooltool.measures.recall`).
    :returns: :class:`Ranked` batches covering every qrels topic present (or every
        qrels topic under ``-c``); none when there is no topic to score.
    """
    topic_pos, rank, codes = _cut(*_line_codes(encoded, sort=options.judged_only), options)
    lengths = np.bincount(topic_pos, minlength=len(qrels.topics)).astype(np.int64)
    has_lines = np.bincount(encoded.topic_pos, minlength=len(qrels.topics)) > 0
    rows = np.arange(len(qrels.topics)) if options.complete else np.flatnonzero(has_lines)
    # trec_eval's bogus_ranking: one document no qrels judge, which -J drops too
    lengths[rows[~has_lines[rows]]] = 0 if options.judged_only else 1
    for chunk in _chunks(rows, lengths):
        yield _batch(chunk, topic_pos, rank, codes, lengths, has_lines, qrels, options)


def _line_codes(encoded: EncodedRun, sort: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(topic_pos, rank, code)`` of every line; with ``sort``, sorted by topic then trec_eval
    rank (``-J`` renumbers the ranks of each topic in that order), else in the encoder's
    order (each line goes to its cell by topic and rank, so the order does not matter);
    the codes int8 when none exceeds :data:`BYTE_CODES`, else int64."""
    topic_pos, rank, grade = ordered_lines(encoded)
    if sort and len(topic_pos) > 1 and (np.diff(topic_pos) < 0).any():  # grouped, not sorted
        # a stable sort by topic keeps each topic's lines in rank order when they come so
        # (as encode_table gives them), at a tenth of a lexsort's cost
        order = np.argsort(topic_pos, kind="stable")
        if not ((np.diff(rank[order]) > 0) | (np.diff(topic_pos[order]) != 0)).all():
            order = np.lexsort((rank, topic_pos))
        topic_pos, rank, grade = topic_pos[order], rank[order], grade[order]
    codes = np.where(grade == NONPOOL, RELVALUE_NONPOOL,
                     np.where(is_judged(grade), grade, RELVALUE_UNJUDGED))
    return topic_pos, rank, codes.astype(np.int8 if codes.max(initial=0) <= BYTE_CODES
                                         else np.int64)


def _cut(topic_pos: np.ndarray, rank: np.ndarray, codes: np.ndarray, options: Options
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``-M`` then ``-J``, in ``form_res_rels.c``'s order; ranks renumbered after ``-J``."""
    if options.max_docs is not None:
        keep = rank <= options.max_docs
        topic_pos, rank, codes = topic_pos[keep], rank[keep], codes[keep]
    if options.judged_only:
        keep = codes >= 0
        topic_pos, codes = topic_pos[keep], codes[keep]
        rank = positions_in_groups(topic_pos)
    return topic_pos, rank, codes


def _chunks(rows: np.ndarray, lengths: np.ndarray) -> Iterator[np.ndarray]:
    """``rows`` in consecutive groups whose rows x longest row stays within :data:`CELLS`."""
    start = 0
    while start < len(rows):
        widest = np.maximum.accumulate(np.maximum(lengths[rows[start:]], 1))
        cells = widest * np.arange(1, len(widest) + 1)
        stop = start + max(1, int(np.searchsorted(cells, CELLS, side="right")))
        yield rows[start:stop]
        start = stop


def _batch(chunk: np.ndarray, topic_pos: np.ndarray, rank: np.ndarray, codes: np.ndarray,
           lengths: np.ndarray, has_lines: np.ndarray, qrels: QrelsIndex,
           options: Options) -> Ranked:
    num_ret = lengths[chunk]
    rel = np.full((len(chunk), max(1, int(num_ret.max()))), RELVALUE_PAD, dtype=codes.dtype)
    row_of = np.full(len(qrels.topics), -1, dtype=np.int64)
    row_of[chunk] = np.arange(len(chunk))
    rows = row_of[topic_pos]
    lines = rows >= 0
    if not lines.all():
        rows, rank, codes = rows[lines], rank[lines], codes[lines]
    rel.ravel()[rows * rel.shape[1] + rank - 1] = codes
    present = has_lines[chunk]
    rel[~present & (num_ret > 0), 0] = RELVALUE_NONPOOL
    matrix = level_matrix(qrels)[0]
    return Ranked([str(qrels.topics[p]) for p in chunk], chunk, rel, num_ret, matrix[chunk],
                  options.level, present, qrels)
