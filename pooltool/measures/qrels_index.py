"""Qrels prepared once for fast lookups by every run that is measured against them.

A :class:`QrelsIndex` turns a qrels DataFrame (:func:`pooltool.formats.qrels.read_qrels`
columns) into integer keys, so that joining a run of a million lines with its
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

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from pooltool.errors import InvalidArgument
from pooltool.formats.frames import check_qrels_frame

REQUIRED_QRELS_COLUMNS = ("topic", "docno", "grade")


@dataclass(frozen=True)
class QrelsIndex:
    """Judgments keyed by integers.

    :ivar topics: the qrels topics, sorted in ``strcmp`` order (as trec_eval
        loops over them); shape ``(T,)``, dtype object (str).
    :ivar topic_index: ``pd.Index`` over ``topics`` (topic -> position).
    :ivar num_rel: relevant documents per topic, ``grade >= max(level, 0)``;
        shape ``(T,)``, int64.
    :ivar positive_lines: qrels lines with grade > 0 over all topics, ignoring
        ``level``: what trec_eval prints as ``num_rel all`` under ``-c``
        (``te_calc_avg_num_rel`` in ``m_num_rel.c``).
    :ivar doc_index: ``pd.Index`` over the distinct judged docnos.
    :ivar keys: sorted ``topic_position * len(doc_index) + doc_position`` of
        every judgment; int64.
    :ivar grades: the grade of each key, aligned with ``keys``; int64.
    :ivar judgment_topics: the topic position of each key, aligned with ``keys``.
    :ivar judgment_docnos: the docno (str) of each key, aligned with ``keys``.
    :ivar level: the relevance level the index was built for.
    :ivar cache: derived lookups other modules build once per index
        (:mod:`pooltool.measures.arrow_run` keeps the judgments' fingerprint table here).
    """

    topics: np.ndarray
    topic_index: pd.Index
    num_rel: np.ndarray
    positive_lines: int
    doc_index: pd.Index
    keys: np.ndarray
    grades: np.ndarray
    judgment_topics: np.ndarray
    judgment_docnos: np.ndarray
    level: int
    cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

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


def index_qrels(qrels: pd.DataFrame, level: int = 1) -> QrelsIndex:
    """Prepare ``qrels`` for :func:`pooltool.measures.per_topic.score_run`.

    :param qrels: one row per judgment with at least ``topic``, ``docno``
        (str) and ``grade`` (int) columns, as
        :func:`~pooltool.formats.qrels.read_qrels` returns. A pair given twice
        with the same grade counts once.
    :param level: minimum grade of a relevant document (trec_eval ``-l``), >= 0.
    :returns: the :class:`QrelsIndex`.
    :raises ValueError: a missing column, no judgments at all, ids that are
        not strings, a non-integer grade, a negative ``level``, or a
        (topic, docno) pair given two different grades.
    """
    check_level(level)
    frame = _checked_qrels(qrels)
    topics = np.array(sorted(frame["topic"].unique()), dtype=object)
    topic_index = pd.Index(topics)
    topic_pos = topic_index.get_indexer(frame["topic"].to_numpy())
    doc_pos, doc_uniques = pd.factorize(frame["docno"].to_numpy())
    doc_index = pd.Index(doc_uniques)
    grades = frame["grade"].to_numpy(dtype=np.int64)
    keys = topic_pos.astype(np.int64) * len(doc_index) + doc_pos
    order = np.argsort(keys, kind="stable")
    relevant = grades >= max(level, 0)
    num_rel = np.bincount(topic_pos[relevant], minlength=len(topics)).astype(np.int64)
    return QrelsIndex(
        topics=topics,
        topic_index=topic_index,
        num_rel=num_rel,
        positive_lines=int((grades > 0).sum()),
        doc_index=doc_index,
        keys=keys[order],
        grades=grades[order],
        judgment_topics=topic_pos[order].astype(np.int64),
        judgment_docnos=frame["docno"].to_numpy(dtype=object)[order],
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


def _checked_qrels(qrels: pd.DataFrame) -> pd.DataFrame:
    return check_qrels_frame(qrels)[list(REQUIRED_QRELS_COLUMNS)].drop_duplicates()