"""Writing results: DataFrame -> table, CSV, TSV, JSON or JSONL.

Data goes to stdout (or the stream given); messages and warnings go to
stderr, so output can be piped. ``table`` is for people (rich), the others
for scripts.
"""

from __future__ import annotations

import json
import math
import sys
from typing import IO, Any

import pandas as pd

FORMATS = ("table", "csv", "tsv", "json", "jsonl")


def emit(frame: pd.DataFrame, fmt: str = "table", stream: IO[str] | None = None,
         title: str | None = None) -> None:
    """Write ``frame`` to ``stream`` (stdout by default) in format ``fmt``.

    :param frame: the rows to write; the index is not written.
    :param fmt: one of :data:`FORMATS`.
    :param title: a caption for ``table`` output (ignored by other formats).
    :raises ValueError: unknown ``fmt``.
    """
    out = stream if stream is not None else sys.stdout
    if fmt == "table":
        _emit_table(frame, out, title)
    elif fmt in ("csv", "tsv"):
        frame.to_csv(out, index=False, sep="," if fmt == "csv" else "\t", lineterminator="\n")
    elif fmt == "json":
        emit_json(records(frame), out)
    elif fmt == "jsonl":
        for row in records(frame):
            out.write(json.dumps(row) + "\n")
    else:
        raise ValueError(f"unknown output format {fmt!r}; choose one of {', '.join(FORMATS)}")


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of ``frame`` as JSON-ready dicts (numpy scalars made plain, NaN made null)."""
    return [{k: plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


def plain(value: Any) -> Any:
    """A numpy/pandas scalar as the matching plain Python value; NaN becomes ``None``."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def emit_json(obj: Any, stream: IO[str] | None = None) -> None:
    """Write ``obj`` as indented JSON followed by a newline (NaN written as ``null``)."""
    out = stream if stream is not None else sys.stdout
    out.write(json.dumps(_json_ready(obj), indent=2, allow_nan=False) + "\n")


def _json_ready(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _json_ready(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_ready(v) for v in obj]
    return plain(obj)


def _emit_table(frame: pd.DataFrame, out: IO[str], title: str | None) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, show_edge=False, header_style="bold")
    for column in frame.columns:
        numeric = pd.api.types.is_numeric_dtype(frame[column])
        table.add_column(str(column), justify="right" if numeric else "left")
    for row in frame.itertuples(index=False):
        table.add_row(*(_cell(v) for v in row))
    Console(file=out, width=max(80, _width(out)), soft_wrap=False).print(table)


def _cell(value: Any) -> str:
    value = plain(value)
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def _width(out: IO[str]) -> int:
    try:
        import os

        return os.get_terminal_size(out.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return 160
