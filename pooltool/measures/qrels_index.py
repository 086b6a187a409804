"""Qrels prepared once for fast lookups by every run that is measured against them.

A :class:`QrelsIndex` turns qrels (a DataFrame as :func:`pooltool.formats.qrels.read_qrels`
returns, or Arrow columns as :func:`pooltool.formats.qrels.read_qrels_table` returns)
into integer keys, so that joining a run of a million lines with its
judgments is a couple of vectorised ``searchsorted`` calls instead of a string
merge. It also fixes, once, the two numbers trec_eval derives from the qrels
alone: the number of relevant documents of every topic and the ``num_rel``
summary that ``-c`` prints.

Relevance follows ``form_res_rels.c`` (usnistgov/trec_eval 10.0): a document is
relevant when its grade is ``>= level`` (``-l``, default 1); a negative grade
is neither relevant nor judged (trec_eval's ``RELVALUE_UNJUDGED``); a document
with no qrels line is not judged (``RELVALUE_NONPOOL``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from pooltool.arrow import kernels
from pooltool.arrow.numbers import arrow_numbers, arrow_strings, numbers
from pooltool.errors import FrameError, InvalidArgument
from pooltool.formats.qrels import pair_codes
from pooltool.records import is_relevant

if TYPE_CHECKING:
    import pandas as pd

REQUIRED_QRELS_COLUMNS = ("topic", "docno", "grade")


@dataclass(frozen=True)
class QrelsIndex:
    """Judgments keyed by integers.

    :ivar topics: the qrels topics, sorted in ``strcmp`` order (as trec_eval
        loops over them); shape ``(T,)``, dtype object (str).
    :ivar num_rel: relevant documents per topic, ``grade >= max(level, 0)``;
        shape ``(T,)``, int64.
    :ivar positive_lines: qrels lines with grade > 0 over all topics, ignoring
        ``level``: what trec_eval prints as ``num_rel all`` under ``-c``
        (``te_calc_avg_num_rel`` in ``m_num_rel.c``).
    :ivar doc_index: the distinct judged docnos (Arrow strings), in order of
        first appearance in the qrels; a docno's position here is its code in ``keys``.
    :ivar keys: sorted ``topic_position * len(doc_index) + doc_position`` of
        every judgment; int64.
    :ivar grades: the grade of each key, aligned with ``keys``; int64.
    :ivar judgment_topics: the topic position of each key, aligned with ``keys``.
    :ivar judgment_docnos: the docno of each key (Arrow strings), aligned with ``keys``.
    :ivar level: the relevance level the index was built for.
    :ivar cache: derived lookups other modules build once per index
        (:mod:`pooltool.measures.arrow_run` keeps the judgments' fingerprint table here).
    """

    topics: np.ndarray
    num_rel: np.ndarray
    positive_lines: int
    doc_index: pa.Array
    keys: np.ndarray
    grades: np.ndarray
    judgment_topics: np.ndarray
    judgment_docnos: pa.Array
    level: int
    cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def topic_positions(self, names: Sequence[str]) -> np.ndarray:
        """Each name's position in :attr:`topics`, -1 for a topic without qrels (int64)."""
        if "topic_positions" not in self.cache:
            self.cache["topic_positions"] = {topic: pos for pos, topic in enumerate(self.topics)}
        positions: dict[str, int] = self.cache["topic_positions"]
        return np.array([positions.get(name, -1) for name in names], dtype=np.int64)

    def lookup(self, topic_pos: np.ndarray, doc_pos: np.ndarray) -> np.ndarray:
        """The grade of each (topic, docno) pair, or ``NONPOOL`` when it has no qrels line.

        :param topic_pos: positions in :attr:`topics` (all ``>= 0``).
        :param doc_pos: positions in :attr:`doc_index`, ``-1`` for a docno
            that no topic judged.
        :returns: int64 array of grades, :data:`NONPOOL` where not judged.
        """
        grades = np.full(len(topic_pos), NONPOOL, dtype=np.int64)
        known = doc_pos >= 0
        if not known.any() or len(self.keys) == 0:
            return grades
        key = topic_pos[known].astype(np.int64) * len(self.doc_index) + doc_pos[known]
        where = np.searchsorted(self.keys, key)
        where[where == len(self.keys)] = 0
        hit = self.keys[where] == key
        found = np.full(len(key), NONPOOL, dtype=np.int64)
        found[hit] = self.grades[where[hit]]
        grades[known] = found
        return grades


#: Grade given to a retrieved document that has no qrels line (trec_eval's
#: ``RELVALUE_NONPOOL`` is -1; any value below every real grade works, since
#: only "is it negative" and "is it >= level" are ever asked).
NONPOOL = np.iinfo(np.int64).min


def index_qrels(qrels: pd.DataFrame | pa.Table, level: int = 1) -> QrelsIndex:
    """Prepare ``qrels`` for :func:`pooltool.measures.per_topic.score_run`.

    :param qrels: one row per judgment with at least ``topic``, ``docno``
        (str) and ``grade`` (int) columns: a DataFrame as
        :func:`~pooltool.formats.qrels.read_qrels` returns, or an Arrow table
        as :func:`~pooltool.formats.qrels.read_qrels_table` returns. A pair
        given twice with the same grade counts once.
    :param level: minimum grade of a relevant document (trec_eval ``-l``), >= 0.
    :returns: the :class:`QrelsIndex`.
    :raises ValueError: a missing column, no judgments at all, ids that are
        not strings, a non-integer grade, a negative ``level``, or a
        (topic, docno) pair given two different grades.
    """
    check_level(level)
    table = _checked_table(qrels) if isinstance(qrels, pa.Table) else _frame_table(qrels)
    return _index(table, level)


def _index(table: pa.Table, level: int) -> QrelsIndex:
    """The index of distinct, checked judgments (``topic``, ``docno`` strings, int64 ``grade``)."""
    names = sorted(kernels.unique(table["topic"]).to_pylist())
    topics = np.array(names, dtype=object)
    topic_pos = numbers(kernels.index_in(table["topic"], arrow_strings(names)))
    docno = table["docno"].combine_chunks()
    encoded = kernels.dictionary_encode(docno)  # codes by first appearance
    doc_pos = numbers(encoded.indices).astype(np.int64)
    grades = numbers(table["grade"]).astype(np.int64)
    keys = topic_pos.astype(np.int64) * len(encoded.dictionary) + doc_pos
    order = np.argsort(keys, kind="stable")
    relevant = is_relevant(grades, max(level, 0))
    num_rel = np.bincount(topic_pos[relevant], minlength=len(topics)).astype(np.int64)
    return QrelsIndex(
        topics=topics,
        num_rel=num_rel,
        positive_lines=int(is_relevant(grades, 1).sum()),  # trec_eval -c: grade > 0, whatever -l
        doc_index=encoded.dictionary,
        keys=keys[order],
        grades=grades[order],
        judgment_topics=topic_pos[order].astype(np.int64),
        judgment_docnos=kernels.take(docno, arrow_numbers(order)),
        level=level,
    )


def check_level(level: int) -> None:
    """Refuse a relevance level trec_eval would misread.

    With ``-l`` below 0 trec_eval compares its internal codes for "not in the
    pool" (-1) and "in the pool, unjudged" (-2) with the level, so unjudged
    documents would count as relevant retrieved; pooltool refuses instead.

    :raises ValueError: ``level`` is not an integer >= 0.
    """
    if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or level < 0:
        raise InvalidArgument(f"relevance level must be an integer >= 0, got {level!r}")


def _frame_table(qrels: pd.DataFrame) -> pa.Table:
    """A checked qrels DataFrame's distinct judgments as Arrow columns."""
    from pooltool.formats.frames import check_qrels_frame  # pandas: only for a DataFrame

    frame = check_qrels_frame(qrels)[list(REQUIRED_QRELS_COLUMNS)].drop_duplicates()
    return pa.table({"topic": pa.array(frame["topic"].to_numpy(dtype=object), pa.string()),
                     "docno": pa.array(frame["docno"].to_numpy(dtype=object), pa.string()),
                     "grade": frame["grade"].to_numpy(dtype=np.int64)})


def _checked_table(qrels: pa.Table) -> pa.Table:
    """An Arrow qrels table's distinct judgments (first appearances, in file order), checked
    as :func:`~pooltool.formats.frames.check_qrels_frame` checks a frame.

    :raises FrameError: a missing column, no rows, ids that are not strings (or are
        missing), a grade that is not an integer, or a pair with two grades.
    """
    missing = [c for c in REQUIRED_QRELS_COLUMNS if c not in qrels.column_names]
    if missing:
        raise FrameError(f"qrels table lacks column(s) {', '.join(missing)}")
    if not qrels.num_rows:
        raise FrameError("the qrels table has no rows")
    for column in ("topic", "docno"):
        kind = qrels[column].type
        if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)) \
                or qrels[column].null_count:
            raise FrameError(f"qrels column {column!r} must hold strings with no missing values")
    grade = qrels["grade"]
    if not pa.types.is_integer(grade.type) or grade.null_count:
        raise FrameError("qrels column 'grade' must hold integers")
    table = kernels.cast_table(qrels.select(list(REQUIRED_QRELS_COLUMNS)), pa.schema(
        [("topic", pa.string()), ("docno", pa.string()), ("grade", pa.int64())]))
    key = pair_codes(table)
    order = np.argsort(key, kind="stable")
    repeat = np.flatnonzero(key[order][1:] == key[order][:-1])
    if not len(repeat):
        return table
    grade = numbers(table["grade"])
    clash = repeat[grade[order][1:][repeat] != grade[order][:-1][repeat]]
    if len(clash):
        row = table.slice(int(order[clash[0]]), 1).to_pylist()[0]
        raise FrameError(f"docno {row['docno']!r} of topic {row['topic']!r} has two different "
                         "grades")
    later = np.zeros(len(key), dtype=bool)
    later[order[repeat + 1]] = True  # each repeat's later lines (the sort is stable)
    return kernels.take(table, arrow_numbers(np.flatnonzero(~later)))
