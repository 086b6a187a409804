"""Tables written for other tools: Parquet and JSON Lines for pandas, polars and DuckDB,
and the nested JSON dicts ranx and ir_measures take.

* ``parquet``: Apache Parquet through pyarrow, the frame's columns and types as they
  are (ids as strings, grades and times as integers, a missing value as null).
* ``jsonl``: one JSON object per row, keys the column names, null for a missing value
  (``pandas.read_json(path, lines=True)``, ``polars.read_ndjson``, DuckDB's
  ``read_json``).
* ``json``: ``{topic: {docno: value}}``, the dict ``ranx.Qrels.from_dict`` /
  ``ranx.Run.from_dict`` and ``ir_measures.calc_aggregate`` take for qrels (value: the
  grade) and runs (value: the score).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, TYPE_CHECKING

from pooltool.errors import InvalidArgument

if TYPE_CHECKING:
    import pandas as pd

#: The formats :func:`write_table` writes.
TABLE_FORMATS = ("parquet", "jsonl")


def write_table(frame: pd.DataFrame, fmt: str, output: Path | None, stdout: IO[str]) -> None:
    """Write ``frame`` as ``fmt`` (one of :data:`TABLE_FORMATS`) to ``output``, or
    ``jsonl`` to ``stdout`` when ``output`` is ``None``.

    :raises InvalidArgument: an unknown format, or ``parquet`` without a file (its bytes
        are not text for a terminal).
    :raises OSError: the file cannot be written.
    """
    if fmt == "parquet":
        if output is None:
            raise InvalidArgument("parquet is written to a file: give -o FILE")
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), output)
    elif fmt == "jsonl":
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in _records(frame))
        if output is None:
            stdout.write(text)
        else:
            output.write_text(text, encoding="utf-8")
    else:
        raise InvalidArgument(f"unknown table format {fmt!r}: use one of {TABLE_FORMATS}")


def nested_dict(frame: pd.DataFrame, value: str) -> dict[str, dict[str, int | float]]:
    """``{topic: {docno: value}}`` from columns ``topic, docno`` and ``value``, topics and
    docnos in the frame's order (ranx's and ir_measures' dict of qrels or of a run).

    :raises InvalidArgument: a (topic, docno) given twice (a dict holds one value).
    """
    nested: dict[str, dict[str, int | float]] = {}
    for topic, docno, number in zip(frame["topic"], frame["docno"], frame[value].tolist(),
                                    strict=True):
        per_topic = nested.setdefault(str(topic), {})
        if str(docno) in per_topic:
            raise InvalidArgument(f"docno {docno!r} is given twice for topic {topic!r}: a "
                                  "dict holds one value per pair")
        per_topic[str(docno)] = number
    return nested


def _records(frame: pd.DataFrame) -> list[dict[str, object]]:
    """The rows as plain Python values, a missing value (NaN, None, NA) as ``None``."""
    import pandas as pd

    columns = list(frame.columns)
    return [{column: (None if value is None or (not isinstance(value, str) and pd.isna(value))
                      else value) for column, value in zip(columns, values, strict=True)}
            for values in frame.astype(object).itertuples(index=False, name=None)]
