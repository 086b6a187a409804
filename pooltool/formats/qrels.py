"""Reading and writing TREC qrels files.

A qrels line has four whitespace-separated columns::

    topic iteration docno grade

The iteration column is kept as text (TREC-COVID writes ``0.5``) and ignored
by every measure. Grades are integers; negative grades are kept as given
(trec_eval reads them as neither relevant nor judged, e.g. -1 "pooled but not
judged", -2 "junk"). Blank lines and lines starting with ``#`` are skipped.
A line repeated word for word (the same topic, iteration, docno and grade) is kept
once, and the repeats are counted (:func:`folded_lines`). A (topic, docno) pair given
again with another grade is an error, since no single grade can be chosen without a
policy; given again under another column 2 value is an error too: that is how diversity
qrels (TREC Web track: column 2 the subtopic) and trec_eval's qrels_jg (column 2 the
judgment group) write a line per subtopic or group, which a qrels of one grade per pair
cannot keep, and keeping one of them would lose the rest.

A plain file (a path, not ``.gz``) is read by Apache Arrow's CSV reader
through :func:`pooltool.formats.columns.read_columns`, which cuts lines and
fields by the same rules; whatever it refuses, and any file with a grade it
cannot vouch for or a pair given twice, is read by :func:`iter_qrels`, line
by line, which gives the same rows or the error naming the line.
:func:`read_qrels` gives the rows as a DataFrame, :func:`read_qrels_table` as
Arrow columns (without loading pandas).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import IO, TYPE_CHECKING

import numpy as np
import pyarrow as pa

from pooltool.arrow import kernels
from pooltool.arrow.numbers import numbers
from pooltool.errors import FormatError
from pooltool.formats.columns import integers, read_columns
from pooltool.formats.source import (
    INTEGER,
    Source,
    check_identifier,
    in_int64,
    is_skipped,
    open_text,
    plain_file_bytes,
    refuse_byte_order_mark,
    source_name,
    split_fields,
)
from pooltool.records import QRELS_COLUMNS, Qrel

if TYPE_CHECKING:
    import pandas as pd


def read_qrels(source: Source) -> pd.DataFrame:
    """Read a TREC qrels file.

    :param source: a path (``.gz`` accepted), an open text stream, or the text.
    :returns: one row per distinct (topic, docno), in file order, with columns
        ``topic, iteration, docno`` (str) and ``grade`` (int64); the number of repeated
        lines kept once is :func:`folded_lines` of it.
    :raises FormatError: an empty file, a leading UTF-8 byte order mark (trec_eval
        reads it into the first topic id), wrong column count, a grade that is
        not an integer (ASCII digits with an optional sign, in 64-bit range),
        or a (topic, docno) given twice with different grades or iterations; the
        message names file and line.
    """
    import pandas as pd

    refuse_byte_order_mark(source)
    table = _read_fast(source)
    if table is not None:
        frame = pd.DataFrame({name: table[name].to_numpy() for name in _TEXT})
        frame["grade"] = table["grade"].to_numpy()
        return frame
    folded: list[int] = []
    frame = pd.DataFrame(_read_lines(source, folded), columns=QRELS_COLUMNS)
    frame = frame.astype({"grade": "int64"})
    frame.attrs["folded_lines"] = len(folded)
    return frame


def folded_lines(qrels: pd.DataFrame) -> int:
    """How many lines of the file :func:`read_qrels` read were repeats of an earlier
    line, word for word, and kept once."""
    return int(qrels.attrs.get("folded_lines", 0))


def read_qrels_table(source: Source) -> pa.Table:
    """:func:`read_qrels` as Arrow columns: the same rows, values and errors.

    :returns: columns ``topic, iteration, docno`` (string) and ``grade`` (int64).
    :raises FormatError: see :func:`read_qrels`.
    """
    refuse_byte_order_mark(source)
    table = _read_fast(source)
    if table is not None:
        return table
    rows = _read_lines(source)
    return pa.table({name: pa.array([row[i] for row in rows], _TYPES[name])
                     for i, name in enumerate(QRELS_COLUMNS)})


def _read_lines(source: Source, folded: list[int] | None = None) -> list[Qrel]:
    """:func:`iter_qrels` on the whole source (``folded``: as there).

    :raises FormatError: see :func:`read_qrels`, an empty file included.
    """
    name = source_name(source)
    with open_text(source) as handle:
        rows = list(iter_qrels(handle, name, folded))
    if not rows:
        raise FormatError(name, 0, "holds no qrels lines")
    return rows


def iter_qrels(lines: Iterable[str], name: str = "<string>",
               folded: list[int] | None = None) -> Iterator[Qrel]:
    """Parse qrels lines strictly, yielding one :class:`Qrel` per distinct pair.

    :param folded: if given, the number of each line that repeats an earlier one word
        for word (kept once) is appended to it.
    :raises FormatError: see :func:`read_qrels`.
    """
    seen: dict[tuple[str, str], tuple[Qrel, int]] = {}
    for number, line in enumerate(lines, start=1):
        fields = split_fields(line)
        if is_skipped(fields):
            continue
        qrel = parse_qrels_fields(fields, name, number)
        key = (qrel.topic, qrel.docno)
        if key in seen:
            _check_repeat(qrel, *seen[key], name, number)
            if folded is not None:
                folded.append(number)
            continue
        seen[key] = (qrel, number)
        yield qrel


def _check_repeat(qrel: Qrel, earlier: Qrel, first: int, name: str, number: int) -> None:
    """Refuse a pair given again with another grade or iteration (see the module)."""
    where = f"docno {qrel.docno!r} for topic {qrel.topic!r}"
    if earlier.grade != qrel.grade:
        raise FormatError(name, number, f"{where} has grade {qrel.grade} here but grade "
                                        f"{earlier.grade} on line {first}")
    if earlier.iteration != qrel.iteration:
        raise FormatError(name, number, (
            f"{where} is given again under column 2 {qrel.iteration!r} (line {first}: "
            f"{earlier.iteration!r}): qrels with a subtopic or judgment group in column 2 "
            "(diversity qrels, qrels_jg) are not read; give one line per (topic, docno)"))


def parse_qrels_fields(fields: list[str], name: str, number: int) -> Qrel:
    """Check one split qrels line and turn it into a :class:`Qrel`.

    :raises FormatError: wrong column count, non-integer grade, a topic id or docno
        with a control character.
    """
    if len(fields) != 4:
        raise FormatError(
            name, number, f"expected 4 columns (topic iteration docno grade), got {len(fields)}"
        )
    topic, iteration, docno, grade_text = fields
    check_identifier(topic, "topic id", name, number)
    check_identifier(docno, "docno", name, number)
    if not INTEGER.fullmatch(grade_text):
        raise FormatError(name, number, f"grade {grade_text!r} is not an integer")
    grade = int(grade_text)
    if not in_int64(grade):
        raise FormatError(name, number, f"grade {grade_text} is out of range (64-bit integer)")
    return Qrel(topic, iteration, docno, grade)


# --- the fast path -----------------------------------------------------------------

_TEXT = ("topic", "iteration", "docno")
_TYPES = {**{name: pa.string() for name in _TEXT}, "grade": pa.int64()}
_READ_TYPES = {**_TYPES, "grade": pa.string()}  # checked as text, then cast


def _read_fast(source: Source) -> pa.Table | None:
    """The rows :func:`iter_qrels` would give, read by
    :func:`pooltool.formats.columns.read_columns`; ``None`` to let :func:`iter_qrels`
    decide: a source that is not a plain file, anything ``read_columns`` refuses, a
    grade that is not ``-?[0-9]+`` in the int64 range, or a (topic, docno) pair given
    twice (kept once or refused there)."""
    data = plain_file_bytes(source)
    table = None if data is None else read_columns(data, QRELS_COLUMNS, _READ_TYPES)
    if table is None or not integers(table["grade"]):
        return None
    try:
        grade = kernels.cast(table["grade"], pa.int64())
    except pa.ArrowInvalid:  # out of the int64 range
        return None
    table = table.set_column(table.schema.get_field_index("grade"), "grade", grade)
    return None if _repeats_pair(table) else table


def _repeats_pair(table: pa.Table) -> bool:
    key = np.sort(pair_codes(table))
    return bool((key[1:] == key[:-1]).any())


def pair_codes(table: pa.Table) -> np.ndarray:
    """One int64 per row, equal for rows of equal (``topic``, ``docno``) strings, distinct
    otherwise (Arrow's hashing: no pandas)."""
    topic = kernels.dictionary_encode(table["topic"].combine_chunks())
    docno = kernels.dictionary_encode(table["docno"].combine_chunks())
    return (numbers(topic.indices).astype(np.int64) * len(docno.dictionary)
            + numbers(docno.indices))


def write_qrels(frame: pd.DataFrame, handle: IO[str]) -> None:
    """Write qrels rows (columns ``topic, iteration, docno, grade``) as TREC lines."""
    for row in frame.itertuples(index=False):
        handle.write(f"{row.topic} {row.iteration} {row.docno} {row.grade}\n")
