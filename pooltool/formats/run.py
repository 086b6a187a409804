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
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Iterator

import numpy as np
import pandas as pd

from pooltool.errors import FormatError
from pooltool.formats.source import Source, open_text, source_name
from pooltool.records import RUN_COLUMNS, RunEntry


def read_run(source: Source) -> pd.DataFrame:
    """Read a TREC run file into a DataFrame.

    :param source: a path (``.gz`` accepted), an open text stream, or the
        run's text itself.
    :returns: one row per run line, in file order, with columns
        ``run_tag, topic, docno`` (str), ``rank`` (int64, as written) and
        ``score`` (float64).
    :raises FormatError: fewer than 6 columns, a rank that is not an integer,
        a non-numeric or NaN score, or a docno repeated within one topic of
        one run; the message names file and line.
    """
    name = source_name(source)
    with open_text(source) as handle:
        text = handle.read()
    frame = _read_fast(text)
    if frame is None:
        frame = _entries_frame(iter_run_entries(text.splitlines(), name))
    return frame


def iter_run_entries(lines: Iterable[str], name: str = "<string>") -> Iterator[RunEntry]:
    """Parse run lines one by one, strictly, yielding :class:`RunEntry` records.

    :param lines: the lines of the file (with or without line endings).
    :param name: the file name used in error messages.
    :raises FormatError: see :func:`read_run`.
    """
    first_line: dict[tuple[str, str, str], int] = {}
    for number, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        entry = parse_run_fields(fields, name, number)
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

    :raises FormatError: fewer than 6 columns, non-integer rank, bad score.
    """
    if len(fields) < 6:
        raise FormatError(
            name, number, f"expected 6 columns (topic Q0 docno rank score tag), got {len(fields)}"
        )
    topic, _q0, docno, rank_text, score_text, tag = fields[:6]
    try:
        rank = int(rank_text)
    except ValueError:
        raise FormatError(name, number, f"rank {rank_text!r} is not an integer") from None
    if not -(2**63) <= rank < 2**63:
        raise FormatError(name, number, f"rank {rank_text!r} is out of range (64-bit integer)")
    try:
        score = float(score_text)
    except ValueError:
        raise FormatError(name, number, f"score {score_text!r} is not a number") from None
    if math.isnan(score):
        raise FormatError(name, number, f"score {score_text!r} is not a number (NaN)")
    return RunEntry(topic, docno, rank, score, tag)


def _entries_frame(entries: Iterable[RunEntry]) -> pd.DataFrame:
    rows = list(entries)
    frame = pd.DataFrame(rows, columns=list(RunEntry._fields))
    return _typed(frame[RUN_COLUMNS])


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.astype(
        {"run_tag": object, "topic": object, "docno": object, "rank": "int64", "score": "float64"}
    ).reset_index(drop=True)


def _read_fast(text: str) -> pd.DataFrame | None:
    """Parse well-formed text with pandas' C reader; ``None`` sends the text to the strict path.

    Any doubt (a comment line, a short or long line, a bad number, a
    duplicate, a character the two paths could split differently) returns
    ``None`` so that :func:`iter_run_entries` reports the exact line; the
    result is identical to the strict path's when it is not ``None``.
    """
    if not text.strip() or "#" in text or _has_odd_characters(text):
        return None
    try:
        frame = pd.read_csv(
            io.BytesIO(text.encode("utf-8")),
            sep=r"\s+",
            header=None,
            # "rest" holds a seventh field, if any: such text goes to the strict path. (A
            # first line of 8+ fields makes pandas take the first as the index, which
            # still leaves text in "rest"; a later long line is a ParserError.)
            names=["topic", "q0", "docno", "rank", "score", "run_tag", "rest"],
            dtype=object,
            keep_default_na=False,
            na_filter=False,
            quoting=csv.QUOTE_NONE,
            engine="c",
        )
        # numpy converts str objects with Python's int() and float(), as the strict path does
        rank = frame["rank"].to_numpy().astype(np.int64)
        score = frame["score"].to_numpy().astype(np.float64)
    except (ValueError, OverflowError, UnicodeError, pd.errors.ParserError):
        return None
    if (frame["rest"].to_numpy() != "").any() or np.isnan(score).any():
        return None
    if (frame["run_tag"].to_numpy() == "").any():
        return None
    if frame.duplicated(["run_tag", "topic", "docno"]).any():
        return None
    return frame[RUN_COLUMNS].assign(rank=rank, score=score)


# str.split() splits on these (and str.splitlines() breaks lines on some), pandas'
# whitespace separator does not; NUL is kept off the C reader too.
_ODD_ASCII = ("\x00", "\x0b", "\x0c", "\x0d", "\x1c", "\x1d", "\x1e", "\x1f")
_ODD_UNICODE = ("\x85", "\xa0", "\u1680", *map(chr, range(0x2000, 0x200B)),
                "\u2028", "\u2029", "\u202f", "\u205f", "\u3000")


def _has_odd_characters(text: str) -> bool:
    odd = _ODD_ASCII if text.isascii() else _ODD_ASCII + _ODD_UNICODE
    return any(c in text for c in odd)


def write_run(frame: pd.DataFrame, handle) -> None:  # type: ignore[no-untyped-def]
    """Write a run DataFrame (columns as :func:`read_run` returns) as TREC run lines.

    Scores are written with ``repr`` so they read back to the same double.
    """
    for row in frame.itertuples(index=False):
        handle.write(f"{row.topic} Q0 {row.docno} {row.rank} {row.score!r} {row.run_tag}\n")
