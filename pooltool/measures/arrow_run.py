"""Encoding a run read as Arrow columns straight into numbers, for scoring only.

:func:`pooltool.formats.run.run_table` reads a plain run file into Arrow
columns (or declines, and :func:`~pooltool.formats.run.read_run` reads it
line by line). Scoring needs no Python string per line: :func:`encode_table`
turns the columns into an :class:`~pooltool.measures.per_topic.EncodedRun`
already in trec_eval's order (topic, score descending, docno descending by
``strcmp``; ``form_res_rels.c``), giving exactly the counts that
:func:`~pooltool.measures.per_topic.encode_run` gives on the frame of the
same file.

Repeated docnos and qrels grades are found by joining on 64-bit
fingerprints of (topic, docno) (:mod:`pooltool.formats.fingerprint`):
distinct fingerprints prove that no docno repeats, and every fingerprint
match with the qrels is confirmed on the topic and docno strings. When a
collision leaves either in doubt, the lines are encoded again with Arrow's
exact hashing (:func:`_exact_grades`).

When :mod:`pooltool.native` is built, its compiled join answers first
(:func:`_native_join`): the same fingerprints, per topic, and trec_eval's order for
topics written best score first; whatever it declines takes the path above.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import numpy as np
import pyarrow as pa

from pooltool.arrow import kernels
from pooltool.arrow.numbers import arrow_numbers, numbers
from pooltool.errors import DuplicateDocno
from pooltool.formats.fingerprint import KeyTable, fingerprints, keyed, repeats, string_buffers
from pooltool.measures.per_topic import EncodedRun
from pooltool.measures.qrels_index import NONPOOL, QrelsIndex
from pooltool.native import run_pass
from pooltool.ranking import order_lines, positions_in_groups


def encode_table(table: pa.Table, qrels: QrelsIndex) -> tuple[str, EncodedRun] | None:
    """The run tag and encoded lines of a one-run table.

    :param table: :func:`~pooltool.formats.run.run_table`'s columns, ``n`` rows.
    :param qrels: the prepared judgments.
    :returns: ``(run_tag, encoded)``: the lines of topics in the qrels, in
        trec_eval's order, with grades and ``trec_rank``; ``None`` when the
        table holds several run tags (score its frame).
    :raises DuplicateDocno: a docno is repeated within a topic.
    """
    table = table.unify_dictionaries()
    tags = table["run_tag"].chunk(0).dictionary.to_pylist()  # the codes are not needed
    if len(tags) != 1:
        return None
    topic_codes, names = _labels(table["topic"])
    in_qrels = qrels.topic_positions(names)
    topic_pos = in_qrels[topic_codes]
    ignored = sorted(name for name, pos in zip(names, in_qrels, strict=True) if pos < 0)
    docno = table["docno"].combine_chunks()
    # one key per line: its qrels topic, or a code past them for topics without qrels
    topic_key = (np.where(topic_pos >= 0, topic_pos, len(qrels.topics) + topic_codes) if ignored
                 else topic_pos)
    score = numbers(table["score"])
    native = run_pass()
    joined = None if native is None else _native_join(native, docno, topic_key, score, qrels)
    if joined is not None and joined.order is not None:
        return tags[0], joined.encoded(topic_pos, score, ignored)
    grade = joined.grade if joined is not None else _grades(docno, topic_key, qrels)
    if grade is None:
        grade = _exact_grades(tags[0], docno, topic_codes, names, topic_pos, qrels)
    rows = None  # every line's topic is judged (the usual case): no copies
    if ignored:
        rows = np.flatnonzero(topic_pos >= 0)
        topic_pos, grade, score = topic_pos[rows], grade[rows], score[rows]
    order, ties = order_lines(topic_pos, score, docno, rows, sorted_groups=False)
    topic_pos, score, ties, grade = topic_pos[order], score[order], ties[order], grade[order]
    return tags[0], EncodedRun(topic_pos, score, ties, grade, ignored, positions_in_groups(topic_pos))


def _labels(column: pa.ChunkedArray) -> tuple[np.ndarray, list[str]]:
    """Per row, a code of its value, and the values by code, of a dictionary column
    whose chunks share one dictionary (``Table.unify_dictionaries``)."""
    codes = np.concatenate([numbers(chunk.indices) for chunk in column.chunks]).astype(np.int64)
    return codes, column.chunk(0).dictionary.to_pylist()


# --- grades and repeated docnos, by fingerprint ---------------------------------------


def _grades(docno: pa.Array, topic_key: np.ndarray, qrels: QrelsIndex) -> np.ndarray | None:
    """Each line's grade (:data:`NONPOOL` when not judged), or ``None`` when a fingerprint
    collision leaves a repeat or a match unproven (then :func:`_exact_grades` decides)."""
    judged = _judged_keys(qrels)
    key = keyed(fingerprints(docno), topic_key)
    if judged is None or repeats(key):  # a repeated docno, or a collision: settled exactly
        return None
    found = judged.find(key)
    lines = np.flatnonzero(found >= 0)
    judgments = found[lines]
    if not _same_pairs(docno, topic_key, lines, judgments, qrels):
        return None
    grade = np.full(len(key), NONPOOL, dtype=np.int64)
    grade[lines] = qrels.grades[judgments]
    return grade


@dataclass(frozen=True)
class _Joined:
    """What the compiled join gives for ``n`` lines: each line's grade, and, when every
    topic's lines are written best score first, trec_eval's order (else ``None``s):
    the rows in order, each position's rank in its topic and its tie code (int64 ``n``)."""

    grade: np.ndarray
    order: np.ndarray | None
    rank: np.ndarray | None
    ties: np.ndarray | None

    def encoded(self, topic_pos: np.ndarray, score: np.ndarray, ignored: list[str]) -> EncodedRun:
        """The :class:`EncodedRun` of the lines in order, those of topics without
        judgments (``topic_pos < 0``, whole stretches) left out."""
        assert self.order is not None and self.rank is not None and self.ties is not None
        order, rank, ties = self.order, self.rank, self.ties
        if ignored:
            kept = np.flatnonzero(topic_pos[order] >= 0)
            order, rank, ties = order[kept], rank[kept], ties[kept]
        return EncodedRun(topic_pos[order], score[order], ties, self.grade[order], ignored, rank)


def _native_join(native: ModuleType, docno: pa.Array, topic_key: np.ndarray, score: np.ndarray,
                 qrels: QrelsIndex) -> _Joined | None:
    """The grades (as :func:`_grades` gives them) and trec_eval's order (as
    :func:`~pooltool.ranking.order_lines` gives it, the tie codes aside: they order
    each tie as its docnos do, ``k .. 1``) by the compiled join (``native.join_grades``):
    per topic, the docnos' fingerprints (:func:`~pooltool.formats.fingerprint.fingerprints`)
    checked for repeats and looked up among that topic's judgments, each match
    confirmed on the bytes. ``None`` when it declines: a fingerprint twice within a
    topic (a repeat or a collision), or a topic in two stretches of lines; the
    vectorised join then decides."""
    if "native_judged" not in qrels.cache:
        offsets, text = string_buffers(qrels.judgment_docnos)
        topics = np.ascontiguousarray(qrels.judgment_topics, dtype=np.int64)
        index = native.judged_index(topics, offsets, text, len(qrels.topics))
        grades = np.ascontiguousarray(qrels.grades, dtype=np.int64)
        qrels.cache["native_judged"] = (index, offsets, text, grades)
    index, judged_offsets, judged_text, judged_grades = qrels.cache["native_judged"]
    offsets, text = string_buffers(docno)
    joined = native.join_grades(offsets, text, np.ascontiguousarray(topic_key, dtype=np.int64),
                                np.ascontiguousarray(score, dtype=np.float64), index, len(qrels.topics),
                                judged_offsets, judged_text, judged_grades, int(NONPOOL))
    if joined is None:
        return None
    arrays = [None if part is None else np.frombuffer(part, dtype=np.int64) for part in joined]
    grade, order, rank, ties = arrays
    assert grade is not None
    return _Joined(grade, order, rank, ties)


def _judged_keys(qrels: QrelsIndex) -> KeyTable | None:
    """The judgments by (topic, docno) fingerprint; ``None`` when two judgments share
    one (built once per index, in ``qrels.cache``)."""
    if "judged_keys" not in qrels.cache:
        key = keyed(fingerprints(qrels.judgment_docnos), qrels.judgment_topics)
        unique = not repeats(key)
        qrels.cache["judged_keys"] = KeyTable(key, np.arange(len(key))) if unique else None
    table: KeyTable | None = qrels.cache["judged_keys"]
    return table


def _same_pairs(docno: pa.Array, topic_key: np.ndarray, lines: np.ndarray, judgments: np.ndarray,
                qrels: QrelsIndex) -> bool:
    """Whether each line and the judgment its fingerprint matched have the same topic and docno."""
    if not (topic_key[lines] == qrels.judgment_topics[judgments]).all():
        return False
    ours = kernels.take(docno, arrow_numbers(lines))
    theirs = kernels.take(qrels.judgment_docnos, arrow_numbers(judgments))
    return bool(kernels.call("all", kernels.call("equal", ours, theirs)).as_py())


# --- the exact path: Arrow's hashing -------------------------------------------------


def _exact_grades(tag: str, docno: pa.Array, topic_codes: np.ndarray, names: list[str],
                  topic_pos: np.ndarray, qrels: QrelsIndex) -> np.ndarray:
    """Each line's grade, with docnos hashed by ``dictionary_encode`` together with the
    judged docnos.

    :raises DuplicateDocno: the first line whose (topic, docno) came before.
    """
    judged = qrels.doc_index
    encoded = kernels.dictionary_encode(pa.concat_arrays([judged, docno]))
    doc_codes = numbers(encoded.indices)[len(judged):].astype(np.int64)
    _check_duplicates(tag, topic_codes, names, doc_codes, encoded.dictionary)
    doc_pos = np.where(doc_codes < len(judged), doc_codes, -1)
    grade = np.full(len(docno), NONPOOL, dtype=np.int64)
    scored = topic_pos >= 0
    grade[scored] = qrels.lookup(topic_pos[scored], doc_pos[scored])
    return grade


def _check_duplicates(
    tag: str, topic_codes: np.ndarray, names: list[str], doc_codes: np.ndarray, docnos: pa.Array
) -> None:
    """:raises DuplicateDocno: the first line whose (topic, docno) came before."""
    key = topic_codes * len(docnos) + doc_codes
    order = np.argsort(key, kind="stable")
    same = np.flatnonzero(key[order][1:] == key[order][:-1])
    if len(same):
        line = int(order[same + 1].min())
        raise DuplicateDocno(tag, names[topic_codes[line]], docnos[doc_codes[line]].as_py())
