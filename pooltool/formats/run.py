"""Reading and writing TREC run files.

A run line has six whitespace-separated columns::

    topic Q0 docno rank score run_tag

Blank lines and lines starting with ``#`` are skipped. Text after the sixth
column is ignored, as trec_eval ignores it (``parse_results_line`` in
``get_trec_results.c``; trec_eval's own ``results.trunc`` relies on it).
Several run tags in one file are several runs (trec_eval would keep only the
last line's tag and score them as one). The reader is strict where trec_eval is lax (see
``get_trec_results.c`` and ``form_res_rels.c`` in usnistgov/trec_eval 10.0):

* a score that is not a finite-or-infinite number (``abc``, ``NaN``) is an error;
  trec_eval's ``atof`` silently reads it as 0;
* a docno repeated for one topic of one run is an error, as in trec_eval;
* a rank that is not an integer is an error (the rank is kept for provenance
  only: ordering ignores it, see :mod:`pooltool.ranking`).

Every error is a :class:`~pooltool.errors.FormatError` naming file and line.

:func:`read_run` is the one reader of run files, and it has two paths that give
the same frame. A well-formed file is read by Apache Arrow's multi-threaded
CSV reader (:func:`run_table`, through :func:`pooltool.formats.columns.read_columns`,
which cuts lines and fields by the same rules and refuses what it cannot
show to be cut the same way); anything it refuses, and any check that fails
on the columns it gives, sends the file to :func:`iter_run_entries`, line by
line, which gives the frame or the error naming the line. Before Arrow, the
compiled pass (:mod:`pooltool.formats.run_pass`, :mod:`pooltool.native`, when
built) reads the plainest files in one pass over their bytes and declines the rest.
``tests/test_formats_run.py`` holds the two paths to the same frame, or the
same error, on hand-made and generated files, and the fast path to values
written down by hand (with the compiled pass and without it: ``tests/reader_paths.py``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from pooltool.arrow import kernels
from pooltool.errors import FormatError
from pooltool.formats.columns import integers, read_columns
from pooltool.formats.run_pass import LineOrder, line_order, pass_table
from pooltool.formats.source import (
    INTEGER,
    NUMBER,
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
from pooltool.records import RUN_COLUMNS, RunEntry

if TYPE_CHECKING:
    import pandas as pd


def read_run(source: Source, *, check_duplicates: bool = True) -> pd.DataFrame:
    """Read a TREC run file into a DataFrame (:func:`read_run_lines`' frame).

    :param source: a path (``.gz`` accepted), an open text stream, or the
        run's text itself.
    :param check_duplicates: refuse a docno repeated within one topic of one
        run, as trec_eval does. ``False`` leaves that check to the caller and
        saves about a quarter of the time (the measures find repeats on codes
        they build anyway); the frame may then hold repeats.
    :returns: one row per run line, in file order, with columns
        ``run_tag, topic, docno`` (str), ``rank`` (int64, as written) and
        ``score`` (float64).
    :raises FormatError: an empty file, a leading UTF-8 byte order mark (trec_eval
        reads it into the first topic id), fewer than 6 columns, a rank that is
        not an integer, a score that is not a decimal number (ASCII digits;
        ``inf`` allowed) or is NaN, or (with ``check_duplicates``) a docno
        repeated within one topic of one run; the message names file and line.
    """
    return read_run_lines(source, check_duplicates=check_duplicates).frame


@dataclass(frozen=True)
class RunLines:
    """What :func:`read_run_lines` returns.

    :ivar frame: :func:`read_run`'s frame.
    :ivar order: the compiled join's :class:`~pooltool.formats.run_pass.LineOrder` of a
        one-run file the compiled pass read (its proof that no docno repeats, and the
        lines' order within each topic); ``None`` when another path read the file or
        the join declined.
    """

    frame: pd.DataFrame
    order: LineOrder | None


def read_run_lines(source: Source, *, check_duplicates: bool = True) -> RunLines:
    """:func:`read_run`, with the order of the lines where the compiled join found it.

    :param source: see :func:`read_run`.
    :param check_duplicates: see :func:`read_run`.
    :returns: a :class:`RunLines`.
    :raises FormatError: see :func:`read_run`.
    """
    refuse_byte_order_mark(source)
    data, text = _contents(source)
    read = _read_fast(data, check_duplicates) if data is not None else None
    if read is not None:
        return read
    lines = (_read_text(source) if text is None else text).splitlines()
    entries = iter_run_entries(lines, source_name(source), check_duplicates=check_duplicates)
    frame = _entries_frame(entries)
    if frame.empty:
        raise FormatError(source_name(source), 0, "holds no run lines")
    return RunLines(frame, None)


def iter_run_entries(
    lines: Iterable[str], name: str = "<string>", *, check_duplicates: bool = True
) -> Iterator[RunEntry]:
    """Parse run lines one by one, strictly, yielding :class:`RunEntry` records.

    :param lines: the lines of the file (with or without line endings).
    :param name: the file name used in error messages.
    :param check_duplicates: see :func:`read_run`.
    :raises FormatError: see :func:`read_run`.
    """
    first_line: dict[tuple[str, str, str], int] = {}
    for number, line in enumerate(lines, start=1):
        fields = split_fields(line)
        if is_skipped(fields):
            continue
        entry = parse_run_fields(fields, name, number)
        if check_duplicates:
            key = (entry.run_tag, entry.topic, entry.docno)
            if key in first_line:
                raise FormatError(
                    name,
                    number,
                    f"docno {entry.docno!r} appears twice for topic {entry.topic!r} in run "
                    f"{entry.run_tag!r} (first on line {first_line[key]})",
                )
            first_line[key] = number
        yield entry


def parse_run_fields(fields: list[str], name: str, number: int) -> RunEntry:
    """Check one split run line and turn it into a :class:`RunEntry`.

    :raises FormatError: fewer than 6 columns, non-integer rank, bad score, a topic id,
        docno or run tag with a control character.
    """
    if len(fields) < 6:
        raise FormatError(
            name, number, f"expected 6 columns (topic Q0 docno rank score tag), got {len(fields)}"
        )
    topic, _q0, docno, rank_text, score_text, tag = fields[:6]
    for value, what in ((topic, "topic id"), (docno, "docno"), (tag, "run tag")):
        check_identifier(value, what, name, number)
    if not INTEGER.fullmatch(rank_text):
        raise FormatError(name, number, f"rank {rank_text!r} is not an integer")
    rank = int(rank_text)
    if not in_int64(rank):
        raise FormatError(name, number, f"rank {rank_text!r} is out of range (64-bit integer)")
    if not NUMBER.fullmatch(score_text):
        raise FormatError(name, number, f"score {score_text!r} is not a number")
    score = float(score_text)
    if math.isnan(score):
        raise FormatError(name, number, f"score {score_text!r} is not a number (NaN)")
    return RunEntry(topic, docno, rank, score, tag)


def _contents(source: Source) -> tuple[bytes | None, str | None]:
    """The bytes for the fast path (``None`` if there are none) and, when the source had
    to be read as text, that text."""
    data = plain_file_bytes(source)
    if data is not None:
        return data, None
    text = _read_text(source)
    return _utf8(text), text


def _read_text(source: Source) -> str:
    with open_text(source) as handle:
        return handle.read()


def _utf8(text: str) -> bytes | None:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate in a str source
        return None


def _entries_frame(entries: Iterable[RunEntry]) -> pd.DataFrame:
    import pandas as pd

    rows = list(entries)
    frame = pd.DataFrame(rows, columns=list(RunEntry._fields))
    return frame[RUN_COLUMNS].astype(
        {"run_tag": object, "topic": object, "docno": object, "rank": "int64", "score": "float64"}
    ).reset_index(drop=True)


# --- the fast path -----------------------------------------------------------------

_NAMES = ["topic", "q0", "docno", "rank", "score", "run_tag"]
_TYPES = {"topic": pa.string(), "docno": pa.string(), "rank": pa.string(), "score": pa.float64(),
          "run_tag": pa.string()}
# Arrow's int64 conversion takes exactly ``-?[0-9]+`` in range, and hexadecimal
# ``0x10``/``0X10``, which the line reader refuses: bytes without an ``x`` or ``X``
# hold no hexadecimal rank, so the rank is converted by the CSV reader itself (no
# string column, no check of it, no cast: about 0.8 ms of a 30,000-line file's 11).
_INTEGER_RANK_TYPES = {**_TYPES, "rank": pa.int64()}
_LABELS = ("topic", "run_tag")  # few distinct values: dictionary-encoded once read (cheaper
# than Arrow's CSV reader building dictionaries block by block)


def read_run_table(source: Source, threads: bool = True) -> pa.Table | None:
    """The lines of a plain run file as Arrow columns, when the fast reader can vouch for them.

    :param source: a path; anything else (text, a stream, a ``.gz`` file, a
        missing file) gives ``None``.
    :param threads: see :func:`pooltool.formats.columns.read_columns`.
    :returns: see :func:`run_table`.
    """
    data = plain_run_bytes(source)
    return None if data is None else run_table(data, threads)


def plain_run_bytes(source: Source) -> bytes | None:
    """The bytes of a plain run file, as stored, for :func:`run_table` (and the file's
    sha256, so that it is read once); ``None`` for anything else (see
    :func:`~pooltool.formats.source.plain_file_bytes`).

    :raises FormatError: the file starts with a byte order mark or holds a NUL byte.
    """
    refuse_byte_order_mark(source)
    return plain_file_bytes(source)


def run_table(data: bytes, threads: bool = True) -> pa.Table | None:
    """Run lines read by :func:`pooltool.formats.columns.read_columns`, or ``None`` to read
    them with :func:`iter_run_entries` instead (which then gives the same values or the error).

    :param data: a file's bytes, a leading byte order mark removed.
    :returns: one row per run line, in file order: ``topic`` and ``run_tag``
        (dictionaries of strings), ``docno`` (string), ``rank`` (int64) and
        ``score`` (float64); ``None`` for anything ``read_columns`` refuses, a
        NaN score, or a rank that is not ``-?[0-9]+`` in the int64 range (a
        rank ``+1`` is fine for the line reader; it decides).
        Repeated docnos are not looked for. The compiled pass
        (:func:`pooltool.formats.run_pass.pass_table`) reads the plainest files;
        what it declines goes on to Arrow's reader.
    """
    table = pass_table(data)
    if table is not None:
        return table
    decimal_only = b"x" not in data and b"X" not in data
    types = _INTEGER_RANK_TYPES if decimal_only else _TYPES
    table = read_columns(data, _NAMES, types, threads, labels=_LABELS)
    if table is None or kernels.call("any", kernels.call("is_nan", table["score"])).as_py():
        return None
    if decimal_only:
        return table
    if not integers(table["rank"]):
        return None
    try:
        rank = kernels.cast(table["rank"], pa.int64())
    except pa.ArrowInvalid:  # out of the int64 range
        return None
    return table.set_column(table.schema.get_field_index("rank"), "rank", rank)


def run_frame(table: pa.Table) -> pd.DataFrame:
    """:func:`run_table`'s columns as :func:`read_run` returns them (strings as ``str`` objects)."""
    import pandas as pd

    text = {name: pd.Series(table[name].to_numpy(), dtype=object)
            for name in ("run_tag", "topic", "docno")}
    return pd.DataFrame({**text, "rank": table["rank"].to_numpy(), "score": table["score"].to_numpy()})


def _read_fast(data: bytes, check_duplicates: bool) -> RunLines | None:
    """The frame :func:`iter_run_entries` would give, or ``None`` to let it decide."""
    table = run_table(data)
    if table is None:
        return None
    # the compiled join proves a one-run file free of repeats (and gives the lines'
    # order) in a third of the time of hashing the frame's strings (_repeats_docno)
    order = line_order(table) if check_duplicates else None
    frame = run_frame(table)
    if check_duplicates and order is None and _repeats_docno(frame):
        return None
    return RunLines(frame, order)


def _repeats_docno(frame: pd.DataFrame) -> bool:
    """Whether a (run_tag, topic, docno) occurs twice, found on integer codes.

    Should the combined code overflow int64, distinct keys may collide: that
    only sends the file to the strict path, equal keys stay equal.
    """
    import pandas as pd

    key = np.zeros(len(frame), dtype=np.int64)
    for column in ("run_tag", "topic", "docno"):
        values = frame[column].to_numpy()
        if column == "run_tag" and (values == values[0]).all():
            continue  # one run, the usual case
        codes, uniques = pd.factorize(values)
        key = key * len(uniques) + codes
    ordered = np.sort(key)
    return bool((ordered[1:] == ordered[:-1]).any())


def write_run(frame: pd.DataFrame, handle) -> None:  # type: ignore[no-untyped-def]
    """Write a run DataFrame (columns as :func:`read_run` returns) as TREC run lines.

    Scores are written with ``repr`` so they read back to the same double.
    """
    for row in frame.itertuples(index=False):
        handle.write(f"{row.topic} Q0 {row.docno} {row.rank} {row.score!r} {row.run_tag}\n")
