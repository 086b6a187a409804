"""Encoding a run read as Arrow columns straight into numbers, for scoring only.

:func:`pooltool.formats.run.run_table` reads a plain run file into Arrow
columns (or declines, and :func:`~pooltool.formats.run.read_run` reads it
line by line). Scoring needs no Python string per line: :func:`encode_table`
turns the columns into an :class:`~pooltool.measures.per_topic.EncodedRun`
with Arrow's hash and sort kernels, giving exactly what
:func:`~pooltool.measures.per_topic.encode_run` gives on the frame of the
same file.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pooltool.errors import DuplicateDocno
from pooltool.measures.per_topic import EncodedRun
from pooltool.measures.qrels_index import QrelsIndex


def encode_table(table: pa.Table, qrels: QrelsIndex) -> tuple[str, EncodedRun] | None:
    """The run tag and encoded lines of a one-run table.

    :param table: :func:`~pooltool.formats.run.run_table`'s columns, ``n`` rows.
    :param qrels: the prepared judgments.
    :returns: ``(run_tag, encoded)``: the lines of topics in the qrels, with
        grades, and integer codes that order tied docnos as ``strcmp`` does;
        ``None`` when the table holds several run tags (score its frame).
    :raises DuplicateDocno: a docno is repeated within a topic.
    """
    table = table.unify_dictionaries()
    tags = _labels(table["run_tag"])[1]
    if len(tags) != 1:
        return None
    topic_codes, names = _labels(table["topic"])
    doc_codes, docnos, doc_pos = _doc_codes(table["docno"], qrels)
    _check_duplicates(tags[0], topic_codes, names, doc_codes, docnos)
    in_qrels = qrels.topic_index.get_indexer(np.array(names, dtype=object))
    topic_pos = in_qrels[topic_codes]
    scored = topic_pos >= 0
    ignored = sorted(name for name, pos in zip(names, in_qrels, strict=True) if pos < 0)
    topic_pos, doc_codes = topic_pos[scored], doc_codes[scored]
    score = table["score"].to_numpy()[scored]
    grade = qrels.lookup(topic_pos, doc_pos[doc_codes])
    ties = _tie_codes(topic_pos, score, doc_codes, docnos)
    return tags[0], EncodedRun(topic_pos, score, ties, grade, ignored)


def _labels(column: pa.ChunkedArray) -> tuple[np.ndarray, list[str]]:
    """Per row, a code of its value, and the values by code, of a dictionary column
    whose chunks share one dictionary (``Table.unify_dictionaries``)."""
    codes = np.concatenate([chunk.indices.to_numpy() for chunk in column.chunks]).astype(np.int64)
    return codes, column.chunk(0).dictionary.to_pylist()


def _doc_codes(docno: pa.ChunkedArray, qrels: QrelsIndex) -> tuple[np.ndarray, pa.Array, np.ndarray]:
    """Per row a code of its docno, the docnos by code, and per code the docno's position
    among the judged docnos (-1 if no topic judged it); one hash pass over both."""
    judged = _judged_docnos(qrels)
    encoded = pc.dictionary_encode(pa.concat_arrays([judged, *docno.chunks]))
    codes = encoded.indices.to_numpy()[len(judged):].astype(np.int64)
    doc_pos = np.arange(len(encoded.dictionary), dtype=np.int64)
    doc_pos[len(judged):] = -1
    return codes, encoded.dictionary, doc_pos


def _judged_docnos(qrels: QrelsIndex) -> pa.Array:
    """``qrels.doc_index`` as an Arrow array, built once per index (in ``qrels.cache``)."""
    if "arrow_docnos" not in qrels.cache:
        qrels.cache["arrow_docnos"] = pa.array(qrels.doc_index.to_numpy(dtype=object), pa.string())
    return qrels.cache["arrow_docnos"]


def _check_duplicates(
    tag: str, topic_codes: np.ndarray, names: list[str], doc_codes: np.ndarray, docnos: pa.Array
) -> None:
    """:raises DuplicateDocno: the first line whose (topic, docno) came before (a hash pass)."""
    repeated = pd.Series(topic_codes * len(docnos) + doc_codes, copy=False).duplicated().to_numpy()
    if repeated.any():
        line = int(np.argmax(repeated))
        raise DuplicateDocno(tag, names[topic_codes[line]], docnos[doc_codes[line]].as_py())


def _tie_codes(
    topic_pos: np.ndarray, score: np.ndarray, doc_codes: np.ndarray, docnos: pa.Array
) -> np.ndarray:
    """Integers that order lines tied on (topic, score) as their docnos compare (``strcmp``),
    0 elsewhere.

    Files are usually written topic by topic, best score first, so ties are
    neighbours; otherwise the lines are sorted first.
    """
    same_topic = topic_pos[1:] == topic_pos[:-1]
    grouped = int(np.count_nonzero(~same_topic)) + 1 == len(np.unique(topic_pos))
    if len(score) > 1 and grouped and (score[1:][same_topic] <= score[:-1][same_topic]).all():
        order = np.arange(len(score))
    else:
        order = np.lexsort((score, topic_pos))
    same = (topic_pos[order][1:] == topic_pos[order][:-1]) & (score[order][1:] == score[order][:-1])
    codes = np.zeros(len(score), dtype=np.int64)
    if same.any():
        tied = np.zeros(len(score), dtype=bool)
        tied[order[1:][same]] = True
        tied[order[:-1][same]] = True
        distinct, inverse = np.unique(doc_codes[tied], return_inverse=True)
        by_text = pc.sort_indices(docnos.take(pa.array(distinct))).to_numpy()
        rank = np.empty(len(distinct), dtype=np.int64)
        rank[by_text] = np.arange(len(distinct))
        codes[tied] = rank[inverse]
    return codes
