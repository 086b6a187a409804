"""One topic of one run as trec_eval's measures see it (``form_res_rels.c``).

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
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from pooltool.measures.per_topic import EncodedRun, ordered_lines
from pooltool.measures.qrels_index import NONPOOL, QrelsIndex
from pooltool.records import is_judged

RELVALUE_NONPOOL = -1
RELVALUE_UNJUDGED = -2


@dataclass(frozen=True)
class Topic:
    """One topic's ranked relevance codes and its qrels counts.

    :ivar topic: the topic id.
    :ivar rel: relevance code of each retrieved document in trec_eval order
        (grade >= 0, :data:`RELVALUE_NONPOOL`, :data:`RELVALUE_UNJUDGED`); int64, shape ``(n,)``.
    :ivar rel_levels: judged qrels documents of the topic per grade ``0 .. max``
        (trec_eval's ``rel_levels``, its length ``num_rel_levels``); int64.
    :ivar level: minimum grade of a relevant document (``-l``), >= 0.
    :ivar present: ``False`` for a qrels topic the run lacks (scored under ``-c``).
    :ivar cache: values the measures of one family share (the gains of a parameter list).
    """

    topic: str
    rel: np.ndarray
    rel_levels: np.ndarray
    level: int
    present: bool = True
    cache: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def num_ret(self) -> int:
        """Documents retrieved (after ``-M`` and ``-J``)."""
        return len(self.rel)

    @cached_property
    def num_rel(self) -> int:
        """Judged documents with grade >= level (``num_rel`` of ``form_res_rels.c``)."""
        return int(self.rel_levels[self.level:].sum())

    @cached_property
    def relevant(self) -> np.ndarray:
        """Per retrieved document: grade >= level (bool, shape ``(n,)``)."""
        return self.rel >= self.level

    @cached_property
    def rel_ranks(self) -> np.ndarray:
        """1-based ranks of the relevant retrieved documents, increasing (int64)."""
        return np.flatnonzero(self.relevant).astype(np.int64) + 1

    @property
    def num_rel_ret(self) -> int:
        """Relevant documents retrieved."""
        return len(self.rel_ranks)

    @cached_property
    def unjudged_ranks(self) -> np.ndarray:
        """1-based ranks of retrieved documents with a negative code (no qrels line, or a
        negative grade), increasing (int64)."""
        return np.flatnonzero(self.rel < 0).astype(np.int64) + 1

    def rel_within(self, ks: np.ndarray) -> np.ndarray:
        """Relevant documents among the first ``k`` (ranks past the end add none), per k."""
        return np.searchsorted(self.rel_ranks, ks, side="right").astype(np.int64)

    def unjudged_within(self, ks: np.ndarray) -> np.ndarray:
        """Documents with a negative code among the first ``k``, per k."""
        return np.searchsorted(self.unjudged_ranks, ks, side="right").astype(np.int64)


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
    cached = qrels.cache.get("rel_levels")
    if cached is None:
        judged = is_judged(qrels.grades)
        topics, grades = qrels.judgment_topics[judged], qrels.grades[judged]
        width = int(grades.max()) + 1 if len(grades) else 0
        counts = np.zeros((len(qrels.topics), width), dtype=np.int64)
        np.add.at(counts, (topics, grades), 1)
        cached = [_trimmed(row) for row in counts]
        qrels.cache["rel_levels"] = cached
    return list(cached)


def _trimmed(row: np.ndarray) -> np.ndarray:
    nonzero = np.flatnonzero(row)
    return row[: nonzero[-1] + 1] if len(nonzero) else row[:0]


def ranked_topics(encoded: EncodedRun, qrels: QrelsIndex, options: Options) -> Iterator[Topic]:
    """Every topic to score of one run, in qrels topic order (``strcmp``).

    :param encoded: the run's lines (topics without qrels already dropped).
    :param qrels: the judgments.
    :param options: the flags; without ``complete`` a qrels topic absent from the
        run is skipped (pooltool's rule, as in :mod:`pooltool.measures.recall`).
    :returns: one :class:`Topic` per qrels topic present (or every qrels topic under ``-c``).
    """
    topic_pos, rank, grade = ordered_lines(encoded)
    if len(topic_pos) > 1 and (np.diff(topic_pos) < 0).any():  # topics grouped, not sorted
        order = np.lexsort((rank, topic_pos))
        topic_pos, grade = topic_pos[order], grade[order]
    codes = np.where(grade == NONPOOL, RELVALUE_NONPOOL,
                     np.where(is_judged(grade), grade, RELVALUE_UNJUDGED)).astype(np.int64)
    bounds = np.searchsorted(topic_pos, np.arange(len(qrels.topics) + 1))
    levels = level_counts(qrels)
    for pos, name in enumerate(qrels.topics):
        rel = codes[bounds[pos]:bounds[pos + 1]]
        present = len(rel) > 0
        if not present:
            if not options.complete:
                continue
            rel = np.array([RELVALUE_NONPOOL], dtype=np.int64)  # trec_eval's bogus_ranking
        yield Topic(str(name), _cut(rel, options), levels[pos], options.level, present)


def _cut(rel: np.ndarray, options: Options) -> np.ndarray:
    """``-M`` then ``-J``, in ``form_res_rels.c``'s order."""
    if options.max_docs is not None:
        rel = rel[:options.max_docs]
    if options.judged_only:
        rel = rel[rel >= 0]
    return rel
