"""A plain run file read by the compiled pass (:mod:`pooltool.native`), as the same
Arrow columns :func:`pooltool.formats.run.run_table` gives.

The pass reads every line of the bytes once: fields cut at runs of spaces and TABs,
the rank as ``-?[0-9]+`` in the int64 range, the score as the correctly rounded double
(the value Python's ``float`` and trec_eval's ``atof`` give), topics and run tags
coded in order of first appearance (what ``dictionary_encode`` gives). It declines
(``None``) whatever the Python readers treat specially or refuse: a byte that is not
printable ASCII, space, TAB or a line end (control characters, NUL, a byte order
mark, UTF-8), a CR not before LF, a comment line, a line of other than six fields, a
rank or score of another form (``+1``, ``0x10``, ``inf``, ``nan``), a rank past
int64, a file of no line; the Python path then reads the file as it would without
the pass, with the same values or the same file:line error.

:func:`trec_order` checks by the compiled join, without judgments, that no docno
repeats within a topic of a one-run table and puts it in trec_eval's order, for the
store's import (which refuses repeats and stores runs in that order);
:func:`line_order` gives the same check and the order of the lines alone, for
:func:`pooltool.formats.run.read_run_lines` (no second check of repeats, and the
lines' trec_eval ranks without sorting them again).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from pooltool.arrow import kernels
from pooltool.arrow.numbers import arrow_numbers, arrow_strings, numbers
from pooltool.formats.fingerprint import string_buffers
from pooltool.native import run_pass

_COLUMNS = ["topic", "docno", "rank", "score", "run_tag"]


def pass_table(data: bytes) -> pa.Table | None:
    """:func:`~pooltool.formats.run.run_table`'s columns read by the compiled pass.

    :param data: a run file's bytes.
    :returns: ``n`` rows, in file order: ``topic`` and ``run_tag`` (dictionaries of
        strings, int32 codes in order of first appearance), ``docno`` (string),
        ``rank`` (int64), ``score`` (float64); ``None`` when the pass is not built,
        is switched off (``POOLTOOL_NATIVE=0``) or declines the bytes.
    """
    native = run_pass()
    read = None if native is None else native.read_run(data)
    if read is None:
        return None
    count, topic_codes, topics, offsets, docnos, ranks, scores, tag_codes, tags = read
    columns = [_labels(count, topic_codes, topics),
               pa.StringArray.from_buffers(count, pa.py_buffer(offsets), pa.py_buffer(docnos)),
               _numbers(pa.int64(), count, ranks), _numbers(pa.float64(), count, scores),
               _labels(count, tag_codes, tags)]
    return pa.table(columns, names=_COLUMNS)


def _numbers(kind: pa.DataType, count: int, values: bytes) -> pa.Array:
    """The first ``count`` numbers of ``values`` (machine order) as an Arrow array, no copy."""
    return pa.Array.from_buffers(kind, count, [None, pa.py_buffer(values)])


def _labels(count: int, codes: bytes, labels: list[str]) -> pa.DictionaryArray:
    # arrow_strings, not pa.array: pa.array loads pandas (recall on files never does)
    return pa.DictionaryArray.from_arrays(_numbers(pa.int32(), count, codes), arrow_strings(labels))


@dataclass(frozen=True)
class NoRepeats:
    """The compiled join's answer for a one-run table (:func:`trec_order`): no docno
    repeats within a topic (the join saw each docno's fingerprint once in its topic's
    stretch of lines); ``ordered``: the rows in trec_eval's order, or ``None`` when a
    topic's lines are not written best score first (then they are still to be ordered:
    :func:`pooltool.ranking.order_table`)."""

    ordered: pa.Table | None


def trec_order(table: pa.Table) -> NoRepeats | None:
    """Whether a one-run table repeats no docno within a topic, and its rows in
    trec_eval's order, by the compiled pass's join without judgments (``trec_order``).

    :param table: ``n`` rows of :func:`~pooltool.formats.run.run_table`'s columns.
    :returns: ``None`` when the pass is not built or is switched off, the table is
        empty or holds other than one run tag, or the join declines (a fingerprint
        twice within a topic: a repeat or a collision; a topic in two stretches of
        lines): the caller then checks and orders the table as it would without the
        pass. Else :class:`NoRepeats`, whose ``ordered`` is the rows and columns
        :func:`pooltool.ranking.order_table` gives (topics in string order, each by
        score descending, then docno descending as ``strcmp`` compares; ``topic``
        re-coded, int32 codes into its topics in string order) when every topic's
        lines are written best score first.
    """
    joined = _join(table)
    if joined is None:
        return None
    table, topic, order = joined
    if order.rows is None:  # checked, but a topic is not written best score first
        return NoRepeats(None)
    return NoRepeats(_stretches_by_topic(table, topic.dictionary, order.topics, order.rows))


@dataclass(frozen=True)
class LineOrder:
    """The compiled join's answer for a one-run table (:func:`line_order`): no docno
    repeats within a topic, each topic's lines are one stretch of the file.

    :ivar topics: int32 ``n``: each line's topic code (file order; equal topics, equal
        codes; the codes need not sort as the topics do).
    :ivar rows: int64 ``n``: the lines (positions in the file) in trec_eval's order
        within each topic's stretch (score descending, then docno descending as
        ``strcmp`` compares), the stretches where the file has them; ``None`` when a
        topic's lines are not written best score first (then they are still to be
        ordered).
    """

    topics: np.ndarray
    rows: np.ndarray | None


def line_order(table: pa.Table) -> LineOrder | None:
    """:func:`trec_order`'s join without the reordered table: the proof that no docno
    repeats within a topic of a one-run table (what
    :func:`pooltool.formats.run.read_run` otherwise checks on hashed codes), and the
    order of its lines, for their trec_eval ranks
    (:func:`pooltool.ranking.ranks_of_order`).

    :param table: ``n`` rows of :func:`~pooltool.formats.run.run_table`'s columns.
    :returns: ``None`` in :func:`trec_order`'s cases, else :class:`LineOrder`.
    """
    joined = _join(table)
    return None if joined is None else joined[2]


def _join(table: pa.Table) -> tuple[pa.Table, pa.DictionaryArray, LineOrder] | None:
    """The compiled join of a one-run table: the table with unified dictionaries, its
    topic column in one chunk, and the join's :class:`LineOrder` (``None``: see
    :func:`trec_order`)."""
    native = run_pass()
    if native is None or not table.num_rows:
        return None
    table = table.unify_dictionaries()
    topic = table["topic"].combine_chunks()
    if len(table["run_tag"].chunk(0).dictionary) != 1 or topic.null_count:
        return None
    offsets, text = string_buffers(table["docno"])
    codes = numbers(topic.indices)
    within = native.trec_order(offsets, text, codes.astype(np.int64),
                               np.ascontiguousarray(numbers(table["score"]), dtype=np.float64))
    if within is None:
        return None
    rows = np.frombuffer(within, dtype=np.int64) if within else None
    return table, topic, LineOrder(codes, rows)


def _stretches_by_topic(table: pa.Table, topics: pa.Array, codes: np.ndarray,
                        within: np.ndarray) -> pa.Table:
    """``table``'s rows in ``within``'s order, its stretches (one a topic: the join saw
    to it; ``codes``: the lines' topic codes) sorted by topic as ``strcmp`` compares,
    and ``topic`` coded into the topics in that order (as
    :func:`pooltool.ranking.order_table` codes it)."""
    # where the code changes (np.diff with prepend: about 4 times as long)
    starts = np.concatenate([[0], np.flatnonzero(codes[1:] != codes[:-1]) + 1])
    ends = np.append(starts[1:], len(codes))
    stretch_topics = kernels.take(topics, arrow_numbers(codes[starts]))
    by_name = numbers(kernels.call("array_sort_indices", stretch_topics))
    rows = np.concatenate([within[starts[s]:ends[s]] for s in by_name])
    topic_codes = np.repeat(np.arange(len(starts), dtype=np.int32), (ends - starts)[by_name])
    topic_column = pa.DictionaryArray.from_arrays(arrow_numbers(topic_codes),
                                                  kernels.take(stretch_topics, arrow_numbers(by_name)))
    at = table.schema.get_field_index("topic")  # the topics are new: not taken
    return kernels.take(table.remove_column(at), arrow_numbers(rows)).add_column(at, "topic", topic_column)
