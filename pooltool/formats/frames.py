"""The contracts of the run and qrels DataFrames that the Python API accepts.

They are what :func:`~pooltool.formats.run.read_run` and
:func:`~pooltool.formats.qrels.read_qrels` return; frames built by hand must
meet them too, since a number where a topic id belongs, or a missing value,
would otherwise be scored silently wrong. Topic ids and docnos are strings
("9" and "09" are different topics, as trec_eval compares them with strcmp).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pooltool.errors import FrameError

RUN_ID_COLUMNS = ("run_tag", "topic", "docno")
QRELS_ID_COLUMNS = ("topic", "docno")


def check_run_frame(frame: pd.DataFrame, *, with_rank: bool = False,
                    unique_docnos: bool = False) -> pd.DataFrame:
    """Check a runs frame: columns ``run_tag, topic, docno`` of ``str`` values (no missing
    ones) and ``score`` of numbers without NaN; with ``with_rank``, ``rank`` of integers;
    with ``unique_docnos``, no docno twice in a topic of a run (trec_eval refuses that).

    :returns: ``frame`` itself.
    :raises FrameError: a missing column, no rows, a value of the wrong kind, or a
        repeated docno.
    """
    needed = (*RUN_ID_COLUMNS, "score", *(("rank",) if with_rank else ()))
    _check_columns(frame, "runs", needed)
    _check_strings(frame, "runs", RUN_ID_COLUMNS)
    score = frame["score"]
    if not pd.api.types.is_numeric_dtype(score) or pd.api.types.is_bool_dtype(score) \
            or score.isna().any():
        raise FrameError("runs column 'score' must hold numbers, without NaN")
    if with_rank and not pd.api.types.is_integer_dtype(frame["rank"]):
        raise FrameError("runs column 'rank' must hold integers")
    if unique_docnos:
        repeated = frame.duplicated(list(RUN_ID_COLUMNS))
        if repeated.any():
            row = frame[repeated].iloc[0]
            raise FrameError(f"docno {row['docno']!r} appears twice for topic {row['topic']!r} "
                             f"in run {row['run_tag']!r}")
    return frame


def check_qrels_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Check a qrels frame: ``topic, docno`` of ``str`` values and integer ``grade``,
    one grade per (topic, docno).

    :returns: ``frame`` itself.
    :raises FrameError: a missing column, no rows, a value of the wrong kind, or a
        (topic, docno) with two different grades.
    """
    _check_columns(frame, "qrels", (*QRELS_ID_COLUMNS, "grade"))
    _check_strings(frame, "qrels", QRELS_ID_COLUMNS)
    if not pd.api.types.is_integer_dtype(frame["grade"]) or pd.api.types.is_bool_dtype(
            frame["grade"]):
        raise FrameError("qrels column 'grade' must hold integers")
    pairs = frame[["topic", "docno", "grade"]].drop_duplicates()
    clash = pairs.duplicated(["topic", "docno"], keep=False)
    if clash.any():
        row = pairs[clash].iloc[0]
        raise FrameError(f"docno {row['docno']!r} of topic {row['topic']!r} has two different "
                         "grades")
    return frame


def _check_columns(frame: pd.DataFrame, what: str, needed: tuple[str, ...]) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise FrameError(f"the {what} must be a pandas DataFrame, not {type(frame).__name__}")
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise FrameError(f"{what} frame lacks column(s) {', '.join(missing)}")
    if frame.empty:
        raise FrameError(f"the {what} frame has no rows")


def _check_strings(frame: pd.DataFrame, what: str, columns: tuple[str, ...]) -> None:
    for column in columns:
        kind = pd.api.types.infer_dtype(frame[column].to_numpy(dtype=object), skipna=False)
        if kind != "string":
            raise FrameError(f"{what} column {column!r} must hold strings with no missing "
                             f"values, found {kind} values ('9' and '09' are different topics)")


def pair_isin(frame: pd.DataFrame, other: pd.DataFrame) -> np.ndarray:
    """For each row of ``frame``, whether its (topic, docno) pair occurs in ``other``.

    :param frame: any frame with columns ``topic, docno``.
    :param other: any frame with columns ``topic, docno``.
    :returns: a boolean array, one value per row of ``frame``.
    """
    keys = pd.MultiIndex.from_frame(other[["topic", "docno"]])
    return np.asarray(pd.MultiIndex.from_frame(frame[["topic", "docno"]]).isin(keys))
