"""Reading and writing TREC qrels files.

A qrels line has four whitespace-separated columns::

    topic iteration docno grade

The iteration column is kept as text (TREC-COVID writes ``0.5``) and ignored
by every measure. Grades are integers; negative grades are kept as given
(trec_eval reads them as neither relevant nor judged, e.g. -1 "pooled but not
judged", -2 "junk"). Blank lines and lines starting with ``#`` are skipped.
A (topic, docno) pair given twice with the same grade is kept once; given
twice with different grades it is an error, since no single grade can be
chosen without a policy.

A plain file (a path, not ``.gz``) is read by Apache Arrow's CSV reader
through :func:`pooltool.formats.columns.read_columns`, which cuts lines and
fields by the same rules; whatever it refuses, and any file with a grade it
cannot vouch for or a pair given twice, is read by :func:`iter_qrels`, line
by line, which gives the same frame or the error naming the line.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import IO

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pooltool.errors import FormatError
from pooltool.formats.columns import integers, read_columns
from pooltool.formats.source import (
    INTEGER,
    Source,
    in_int64,
    is_skipped,
    open_text,
    plain_file_bytes,
    refuse_byte_order_mark,
    source_name,
    split_fields,
)
from pooltool.records import QRELS_COLUMNS, Qrel


def read_qrels(source: Source) -> pd.DataFrame:
    """Read a TREC qrels file.

    :param source: a path (``.gz`` accepted), an open text stream, or the text.
    :returns: one row per distinct (topic, docno), in file order, with columns
        ``topic, iteration, docno`` (str) and ``grade`` (int64).
    :raises FormatError: an empty file, a leading UTF-8 byte order mark (trec_eval
        reads it into the first topic id), wrong column count, a grade that is
        not an integer (ASCII digits with an optional sign, in 64-bit range),
        or a (topic, docno) given twice with different grades; the message
        names file and line.
    """
    refuse_byte_order_mark(source)
    data = plain_file_bytes(source)
    frame = _read_fast(data) if data is not None else None
    if frame is not None:
        return frame
    name = source_name(source)
    with open_text(source) as handle:
        rows = list(iter_qrels(handle, name))
    if not rows:
        raise FormatError(name, 0, "holds no qrels lines")
    frame = pd.DataFrame(rows, columns=QRELS_COLUMNS)
    return frame.astype({"grade": "int64"})


def iter_qrels(lines: Iterable[str], name: str = "<string>") -> Iterator[Qrel]:
    """Parse qrels lines strictly, yielding one :class:`Qrel` per distinct pair.

    :raises FormatError: see :func:`read_qrels`.
    """
    seen: dict[tuple[str, str], tuple[int, int]] = {}
    for number, line in enumerate(lines, start=1):
        fields = split_fields(line)
        if is_skipped(fields):
            continue
        qrel = parse_qrels_fields(fields, name, number)
        key = (qrel.topic, qrel.docno)
        if key in seen:
            grade, first = seen[key]
            if grade != qrel.grade:
                raise FormatError(
                    name,
                    number,
                    f"docno {qrel.docno!r} for topic {qrel.topic!r} has grade {qrel.grade} "
                    f"here but grade {grade} on line {first}",
                )
            continue
        seen[key] = (qrel.grade, number)
        yield qrel


def parse_qrels_fields(fields: list[str], name: str, number: int) -> Qrel:
    """Check one split qrels line and turn it into a :class:`Qrel`.

    :raises FormatError: wrong column count or non-integer grade.
    """
    if len(fields) != 4:
        raise FormatError(
            name, number, f"expected 4 columns (topic iteration docno grade), got {len(fields)}"
        )
    topic, iteration, docno, grade_text = fields
    if not INTEGER.fullmatch(grade_text):
        raise FormatError(name, number, f"grade {grade_text!r} is not an integer")
    grade = int(grade_text)
    if not in_int64(grade):
        raise FormatError(name, number, f"grade {grade_text} is out of range (64-bit integer)")
    return Qrel(topic, iteration, docno, grade)


# --- the fast path -----------------------------------------------------------------

_TEXT = ("topic", "iteration", "docno")
_TYPES = {**{name: pa.string() for name in _TEXT}, "grade": pa.string()}


def _read_fast(data: bytes) -> pd.DataFrame | None:
    """The frame :func:`iter_qrels` would give, read by
    :func:`pooltool.formats.columns.read_columns`; ``None`` to let :func:`iter_qrels`
    decide: anything ``read_columns`` refuses, a grade that is not ``-?[0-9]+`` in the
    int64 range, or a (topic, docno) pair given twice (kept once or refused there)."""
    table = read_columns(data, QRELS_COLUMNS, _TYPES)
    if table is None or not integers(table["grade"]):
        return None
    try:
        grade = pc.cast(table["grade"], pa.int64()).to_numpy()
    except pa.ArrowInvalid:  # out of the int64 range
        return None
    frame = pd.DataFrame({name: table[name].to_numpy() for name in _TEXT})
    frame["grade"] = grade
    return None if _repeats_pair(frame) else frame


def _repeats_pair(frame: pd.DataFrame) -> bool:
    topic, _ = pd.factorize(frame["topic"].to_numpy())
    docno, docnos = pd.factorize(frame["docno"].to_numpy())
    key = np.sort(topic.astype(np.int64) * len(docnos) + docno)
    return bool((key[1:] == key[:-1]).any())


def write_qrels(frame: pd.DataFrame, handle: IO[str]) -> None:
    """Write qrels rows (columns ``topic, iteration, docno, grade``) as TREC lines."""
    for row in frame.itertuples(index=False):
        handle.write(f"{row.topic} {row.iteration} {row.docno} {row.grade}\n")
