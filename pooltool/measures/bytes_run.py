"""Encoding a plain run file straight from its bytes, for scoring only.

Why this exists beside :func:`pooltool.formats.run.read_run`, the one reader
of run files: scoring does not need the run's strings at all, only which
lines share a topic, each line's grade and score, and an order for docnos
tied on score. ``read_run`` has to build a Python string for every topic,
docno and tag; :func:`encode_bytes` instead splits the file into tokens with
numpy and hashes the docnos to 64-bit keys for the qrels lookup and the
duplicate check. On a generated 250,000-line run file that took about a
quarter off the time of :func:`pooltool.measures.recall.evaluate_recall_files`
in one process (147 against 202 ms with ``read_run``). Every key match is
confirmed on the bytes, so a hash collision can cost time but never change
a number.

It is a shortcut, not a second reader: it answers ``None`` whenever it
cannot be sure of giving exactly what ``read_run`` followed by
:func:`~pooltool.measures.per_topic.encode_run` gives: a byte outside
printable ASCII, TAB and LF (so no CR, no non-ASCII docno), a ``#``
comment, a blank line, a line without exactly six fields, several run
tags, a rank that is not plain digits, a score ``float()`` refuses or NaN,
or topics so scattered that per-block work would not pay. The caller then
reads the file with ``read_run``, which gives the same numbers or the
error naming the line.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from pooltool.errors import DuplicateDocno
from pooltool.measures.per_topic import EncodedRun
from pooltool.measures.qrels_index import NONPOOL, QrelsIndex

_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[[9, 10, 32]] = True
_PLAIN = bytes(range(0x20, 0x7F)) + b"\t\n"
_COMMENT_LINE = re.compile(rb"(?m)^[ \t]*#")
# bytes a score token may hold: digits, sign, point, exponent, inf/infinity/nan; 0 pads rows
_SCORE_BYTES = np.zeros(256, dtype=bool)
_SCORE_BYTES[list(b"0123456789+-.eEinftyaINFTYA\x00")] = True
_TAIL = 64  # zero bytes kept after the data so that 8-byte loads never run off its end
_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype="<u8")
_MULTIPLIERS = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                         0xD6E8FEB86659FD93, 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53,
                         0x94D049BB133111EB, 0xBF58476D1CE4E5B9], dtype=np.uint64)


def encode_bytes(data: bytes, qrels: QrelsIndex) -> tuple[str, EncodedRun] | None:
    """The run tag and :class:`~pooltool.measures.per_topic.EncodedRun` of a run file's bytes.

    :param data: the whole file.
    :param qrels: the prepared judgments.
    :returns: ``(run_tag, encoded)``, or ``None`` to use the general path.
    :raises DuplicateDocno: a docno is repeated within a topic (confirmed on the bytes).
    """
    fields = _fields(data)
    if fields is None or not _qrels_ready(qrels):
        return None
    a, starts, ends = fields
    tag = _single_tag(a, starts[5::6], ends[5::6])
    score = _scores(a, starts[4::6], ends[4::6])
    if tag is None or score is None or not _plain_ranks(a, starts[3::6], ends[3::6]):
        return None
    topics = _topic_blocks(a, starts[0::6], ends[0::6])
    if topics is None:
        return None
    topic_codes, names = topics
    docs = _gather(a, starts[2::6], ends[2::6])
    doc_hash = _hash_rows(docs)
    _check_duplicates(tag, topic_codes, names, docs, doc_hash)
    in_qrels = qrels.topic_index.get_indexer(np.array(names, dtype=object))
    topic_pos = in_qrels[topic_codes]
    scored = topic_pos >= 0
    ignored = sorted(name for name, pos in zip(names, in_qrels, strict=True) if pos < 0)
    docs, doc_hash, topic_pos, score = docs[scored], doc_hash[scored], topic_pos[scored], score[scored]
    grade = _grades(topic_pos, docs, doc_hash, qrels)
    docno = _tie_codes(topic_pos, score, docs)
    return tag, EncodedRun(topic_pos, score, docno, grade, ignored)


def _fields(data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Token start and end offsets, six per line, or ``None`` if the file is not plain."""
    if not data or data.translate(None, _PLAIN) or (b"#" in data and _COMMENT_LINE.search(data)):
        return None
    a = np.frombuffer(data + bytes(_TAIL), dtype=np.uint8)[: len(data)]
    space = _WHITESPACE[a]
    edges = np.flatnonzero(space[1:] != space[:-1]) + 1
    if not space[0]:
        edges = np.concatenate(([0], edges))
    if not space[-1]:
        edges = np.append(edges, len(a))
    starts, ends = edges[0::2], edges[1::2]
    newlines = np.flatnonzero(a == 10)
    if data[-1:] != b"\n":
        newlines = np.append(newlines, len(a))
    if len(starts) != 6 * len(newlines) or len(newlines) == 0:
        return None
    previous = np.concatenate(([-1], newlines[:-1]))
    if (starts[0::6] <= previous).any() or (ends[5::6] > newlines).any():
        return None
    return a, starts, ends


def _gather(a: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The tokens as rows of a zero-padded uint8 matrix, width a multiple of 8.

    Each 8-byte column is one vectorised load per token from a
    little-endian uint64 view of the buffer with a one-byte stride (so any
    offset is an element), masked to the token's length; ``a`` must be
    followed by at least :data:`_TAIL` readable bytes (see :func:`_fields`).
    """
    length = end - start
    width = -(-int(length.max()) // 8) * 8
    if width > _TAIL:
        columns = np.arange(width)
        rows = a.take(start[:, None] + columns, mode="clip")
        rows[columns >= length[:, None]] = 0
        return rows
    base = a.base if isinstance(a.base, np.ndarray) else a
    loads = np.ndarray((len(base) - 7,), dtype="<u8", buffer=base, strides=(1,))
    words = np.empty((len(start), width // 8), dtype="<u8")
    for j in range(width // 8):
        words[:, j] = loads[start + 8 * j] & _MASKS[np.clip(length - 8 * j, 0, 8)]
    return words.view(np.uint8)


def _as_text(rows: np.ndarray) -> np.ndarray:
    """Matrix rows as a numpy bytes array (``S`` dtype; zero padding is invisible)."""
    return np.ascontiguousarray(rows).view(f"S{rows.shape[1]}").ravel()


def _single_tag(a: np.ndarray, start: np.ndarray, end: np.ndarray) -> str | None:
    rows = _gather(a, start, end)
    if not (rows == rows[0]).all():
        return None
    return bytes(_as_text(rows[:1])[0]).decode("ascii")


def _scores(a: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray | None:
    """Scores read as ``float()`` reads them; ``None`` on a refusal, a NaN, or a byte that
    ``read_run``'s ASCII-decimal rule refuses and numpy may take (``1_000``)."""
    rows = _gather(a, start, end)
    if not _SCORE_BYTES[rows].all():
        return None
    try:
        score = _as_text(rows).astype(np.float64)
    except ValueError:
        return None
    return None if np.isnan(score).any() else score


def _plain_ranks(a: np.ndarray, start: np.ndarray, end: np.ndarray) -> bool:
    """Plain digits, short enough for int64 (longer ones go to ``read_run`` to be judged)."""
    if len(start) and (end - start).max() > 18:
        return False
    rows = _gather(a, start, end)
    return bool((((rows >= 48) & (rows <= 57)) | (rows == 0)).all())


def _topic_blocks(
    a: np.ndarray, start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, list[str]] | None:
    """Per line, a code of its topic, and the topic names by code.

    Lines are grouped in blocks of equal topics (runs are written topic by
    topic); only the blocks' first lines are decoded.
    """
    rows = _gather(a, start, end)
    first = np.flatnonzero(np.concatenate(([True], (rows[1:] != rows[:-1]).any(axis=1))))
    if len(first) > max(64, len(rows) // 16):
        return None
    names: dict[str, int] = {}
    block_codes = [names.setdefault(bytes(t).decode("ascii"), len(names))
                   for t in _as_text(rows[first])]
    lengths = np.diff(np.append(first, len(rows)))
    return np.repeat(np.array(block_codes, dtype=np.int64), lengths), list(names)


def _hash_rows(rows: np.ndarray) -> np.ndarray:
    """A 64-bit key per zero-padded row; trailing zero words do not change it."""
    words = np.ascontiguousarray(rows).view(np.uint64)
    key = np.zeros(len(rows), dtype=np.uint64)
    for i in range(words.shape[1]):
        key = (key ^ words[:, i]) * _MULTIPLIERS[i % len(_MULTIPLIERS)]
        key ^= key >> np.uint64(29)
    return key


def _mix(key: np.ndarray, salt: np.ndarray) -> np.ndarray:
    mixed = (key ^ (salt.astype(np.uint64) * _MULTIPLIERS[3])) * _MULTIPLIERS[4]
    return mixed ^ (mixed >> np.uint64(31))


def _check_duplicates(
    tag: str, topic_codes: np.ndarray, names: list[str], docs: np.ndarray, doc_hash: np.ndarray
) -> None:
    key = _mix(doc_hash, topic_codes)
    ordered = np.sort(key)
    if not (ordered[1:] == ordered[:-1]).any():
        return
    order = np.argsort(key, kind="stable")
    same = np.flatnonzero(key[order][1:] == key[order][:-1])
    if not len(same):
        return
    left, right = order[same], order[same + 1]
    text = _as_text(docs)
    real = (topic_codes[left] == topic_codes[right]) & (text[left] == text[right])
    if real.any():
        line = right[np.flatnonzero(real)[0]]
        raise DuplicateDocno(tag, names[topic_codes[line]], bytes(text[line]).decode("ascii"))


def _grades(
    topic_pos: np.ndarray, docs: np.ndarray, doc_hash: np.ndarray, qrels: QrelsIndex
) -> np.ndarray:
    """Each line's grade, :data:`NONPOOL` where the (topic, docno) has no qrels line."""
    keys, entries, judged_text = qrels.cache["bytes_run"]
    width = judged_text.dtype.itemsize
    key = _mix(_hash_rows(_fit(docs, -(-width // 8) * 8)), topic_pos)
    grade = np.full(len(key), NONPOOL, dtype=np.int64)
    where = keys.get_indexer(key)
    hit = np.flatnonzero(where >= 0)
    entry = entries[where[hit]]
    text = _as_text(docs)
    same = (qrels.judgment_topics[entry] == topic_pos[hit]) & (judged_text[entry] == text[hit])
    grade[hit[same]] = qrels.grades[entry[same]]
    return grade


def _fit(rows: np.ndarray, width: int) -> np.ndarray:
    """``rows`` cut or zero-padded to ``width`` columns."""
    if rows.shape[1] >= width:
        return np.ascontiguousarray(rows[:, :width])
    return np.pad(rows, ((0, 0), (0, width - rows.shape[1])))


def _qrels_ready(qrels: QrelsIndex) -> bool:
    """Build, once per index, a hash index of the (topic, docno) keys of the judgments,
    the judgment behind each key and the judged docnos as bytes (in ``qrels.cache``).

    :returns: False when two judgments share a key (then the lookup could miss one).
    """
    if "bytes_run" not in qrels.cache:
        text = np.array([d.encode("utf-8") for d in qrels.judgment_docnos], dtype=bytes)
        width = -(-text.dtype.itemsize // 8) * 8
        rows = np.frombuffer(text.astype(f"S{width}").tobytes(), dtype=np.uint8).reshape(-1, width)
        key = _mix(_hash_rows(rows), qrels.judgment_topics)
        order = np.argsort(key, kind="stable")
        keys = pd.Index(key[order])
        qrels.cache["bytes_run"] = (keys if keys.is_unique else None, order, text)
    return qrels.cache["bytes_run"][0] is not None


def _tie_codes(topic_pos: np.ndarray, score: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """Integers that order lines tied on (topic, score) as their docnos compare (``strcmp``).

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
        _, codes[tied] = np.unique(_as_text(docs[tied]), return_inverse=True)
    return codes
