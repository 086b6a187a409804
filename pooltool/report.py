"""Writing results: DataFrame or columns -> table, CSV, TSV, JSON or JSONL.

Data goes to stdout (or the stream given); messages and warnings go to
stderr, so output can be piped. ``table`` is for people (rich), the others
for scripts.

A table never cuts a value or a header. Its width is ``COLUMNS`` when that is
set, else the terminal's, else (output to a file or a pipe) unlimited. When
the columns do not fit, a command's compact column set is shown (the hidden
ones are named on stderr); what still does not fit is split into several
tables, each repeating the key columns (run tag, topic, k). The choice can be
forced with :data:`COLUMN_CHOICE` (the CLI's ``--columns`` / ``--all-columns``).

Data is shown, never obeyed: every text value, header and title goes through
:func:`pooltool.text.visible` (ESC as ``\\x1b``, a bidi override as ``\\u202e``;
TAB and line breaks kept in table cells and in CSV/TSV, which quote them). JSON
keeps values exact: it writes every control character as a ``\\u`` escape.

Rows come as a DataFrame or as :data:`Columns` (name -> numpy array, what the
measures give), which are written without importing pandas, each format as
pandas writes the same columns.
"""

from __future__ import annotations

import csv
import json
import math
import os
import sys
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

from pooltool.errors import InvalidArgument
from pooltool.text import CONTROL, visible

#: Rows as columns: name -> values (numpy arrays of one length), in column order.
Columns = Mapping[str, "np.ndarray"]
#: What the writers take: a DataFrame (its index is not written) or :data:`Columns`.
Rows = Union["pd.DataFrame", Columns]

FORMATS = ("table", "csv", "tsv", "json", "jsonl")
#: Columns that identify a row; leading ones are repeated in every part of a split table.
KEY_COLUMNS = ("run_id", "run_tag", "topic", "k", "group", "assessor", "assessor_a",
               "assessor_b", "name", "docno")
#: Characters a table takes besides its cells: one space either side of each
#: cell and one rule between neighbouring columns (rich, ``show_edge=False``).
CELL_PADDING, RULE = 2, 1


@dataclass(frozen=True)
class ColumnChoice:
    """Which table columns to show: ``names`` (besides the key columns) when given,
    every column when ``everything``, else the automatic choice."""

    names: tuple[str, ...] = ()
    everything: bool = False


#: The column choice of the command being run (set by the CLI's ``--columns`` /
#: ``--all-columns``); tables only, csv/tsv/json always carry every column.
COLUMN_CHOICE: ContextVar[ColumnChoice] = ContextVar(
    "COLUMN_CHOICE", default=ColumnChoice())  # noqa: B039  frozen, so never changed


def emit(frame: Rows, fmt: str = "table", stream: IO[str] | None = None,
         title: str | None = None, shown: Sequence[str] | None = None,
         compact: Sequence[str] | None = None, decimals: dict[str, int] | None = None) -> None:
    """Write ``frame`` to ``stream`` (stdout by default) in format ``fmt``.

    :param frame: the rows to write: a DataFrame (the index is not written) or
        :data:`Columns`.
    :param fmt: one of :data:`FORMATS`.
    :param title: a caption for ``table`` output (ignored by other formats).
    :param shown: the columns a table shows by default (default: all); the
        others appear with ``--all-columns`` or ``--columns``.
    :param compact: the columns a table shows when ``shown`` does not fit the
        width (default: ``shown``, split into parts).
    :param decimals: decimal places of a table's float columns (default 4).
    :raises ValueError: unknown ``fmt``.
    """
    out = stream if stream is not None else sys.stdout
    if fmt == "table":
        width, places = table_width(out), decimals or {}
        columns = _choose_columns(frame, shown, compact, width, places)
        write_table(_select(frame, columns), out, title, width, places)
    elif fmt in ("csv", "tsv"):
        separator = "," if fmt == "csv" else "\t"
        if isinstance(frame, Mapping):
            _write_csv(_visible_columns(frame), out, separator)
        else:
            _visible_frame(frame).to_csv(out, index=False, sep=separator, lineterminator="\n")
    elif fmt == "json":
        emit_json(records(frame), out)
    elif fmt == "jsonl":
        for row in records(frame):
            out.write(json_text(row) + "\n")
    else:
        raise InvalidArgument(f"unknown output format {fmt!r}; choose one of {', '.join(FORMATS)}")


def json_text(obj: Any, indent: int | None = None, allow_nan: bool = True) -> str:
    """``obj`` as JSON text with no raw control character: ``json.dumps`` escapes C0, C1
    and the bidi controls (``ensure_ascii``) but not DEL, written ``\\u007f`` here."""
    return json.dumps(obj, indent=indent, allow_nan=allow_nan).replace("\x7f", "\\u007f")


def _holds_control(values: Any) -> bool:
    """Whether any text value of a column holds a control character (one search)."""
    return CONTROL.search("".join(v for v in values if isinstance(v, str))) is not None


def _shown(value: Any) -> Any:
    return visible(value, lines=True) if isinstance(value, str) else value


def _visible_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its text shown visibly (:func:`pooltool.text.visible`): header and
    values; the frame itself when there is nothing to change (the usual case)."""
    from pandas.api.types import is_object_dtype, is_string_dtype

    texts = [c for c in frame.columns if (is_object_dtype(frame[c]) or is_string_dtype(frame[c]))
             and _holds_control(frame[c])]
    names = [str(c) for c in frame.columns]
    if not texts and not _holds_control(names):
        return frame
    shown = frame.assign(**{str(c): frame[c].map(_shown) for c in texts}) if texts else frame
    return shown.set_axis([visible(n) for n in names], axis=1)


def _visible_columns(columns: Columns) -> Columns:
    """:func:`_visible_frame` for :data:`Columns`."""
    import numpy as np

    return {visible(str(name)): (np.array([_shown(v) for v in values], dtype=object)
                                 if values.dtype == object and _holds_control(values) else values)
            for name, values in columns.items()}


def records(frame: Rows) -> list[dict[str, Any]]:
    """The rows of ``frame`` as JSON-ready dicts (numpy scalars made plain, NaN made null)."""
    if isinstance(frame, Mapping):
        values = {name: column.tolist() for name, column in frame.items()}
        return [{name: plain(column[row]) for name, column in values.items()}
                for row in range(_length(frame))]
    return [{k: plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


def _length(columns: Columns) -> int:
    return len(next(iter(columns.values()))) if columns else 0


def _select(frame: Rows, names: list[str]) -> Rows:
    """The named columns of ``frame``, in that order."""
    if isinstance(frame, Mapping):
        return {name: frame[name] for name in names}
    return frame[names]


def _labels(frame: Rows) -> list[Any]:
    return list(frame) if isinstance(frame, Mapping) else list(frame.columns)


def _write_csv(columns: Columns, out: IO[str], separator: str) -> None:
    """Columns as ``DataFrame.to_csv(index=False)`` writes them: floats as numpy's ``str``
    (shortest round trip), NaN as an empty field, text quoted only where needed."""
    import numpy as np

    cells = []
    for values in columns.values():
        if values.dtype.kind == "f":
            text = values.astype(str).astype(object)
            text[np.isnan(values)] = ""
            cells.append(text.tolist())
        else:
            cells.append(values.tolist())
    writer = csv.writer(out, delimiter=separator, lineterminator="\n", quoting=csv.QUOTE_MINIMAL,
                        quotechar='"', doublequote=True)
    writer.writerow(list(columns))
    writer.writerows(zip(*cells, strict=True))


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
    out.write(json_text(_json_ready(obj), indent=2, allow_nan=False) + "\n")


def _json_ready(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _json_ready(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_ready(v) for v in obj]
    return plain(obj)


def table_width(out: IO[str]) -> int | None:
    """The width a table may take: ``COLUMNS`` when set to a positive integer, else
    the terminal's width when ``out`` is a terminal, else ``None`` (no limit)."""
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        if out.isatty():
            return os.get_terminal_size(out.fileno()).columns
    except (OSError, ValueError, AttributeError):
        pass
    return None


def _choose_columns(frame: Rows, shown: Sequence[str] | None,
                    compact: Sequence[str] | None, width: int | None,
                    decimals: dict[str, int]) -> list[str]:
    """The columns to show, by :data:`COLUMN_CHOICE`, else ``shown`` when it fits,
    else ``compact`` (naming the hidden columns on stderr)."""
    choice, every = COLUMN_CHOICE.get(), [str(c) for c in _labels(frame)]
    if choice.everything:
        return every
    if choice.names:
        return _picked(every, choice.names)
    default = [c for c in (shown or every) if c in every]
    if width is None or compact is None or _needed(default, _widths(_cells(
            _select(frame, default), decimals))) <= width:
        return default
    narrow = [c for c in default if c in compact]
    hidden = [c for c in default if c not in narrow]
    sys.stderr.write(f"note: {len(hidden)} column(s) hidden to fit {width} characters: "
                     f"{', '.join(hidden)} (show them with --columns NAME,... or --all-columns)\n")
    return narrow


def _picked(every: list[str], names: tuple[str, ...]) -> list[str]:
    """The key columns of the table, then ``names`` in the order given; a name the
    table lacks is named on stderr with the columns it has."""
    missing = [n for n in names if n not in every]
    if missing:
        sys.stderr.write(f"note: no column {', '.join(missing)} in this table; its columns: "
                         f"{', '.join(every)}\n")
    keys = _keys(every)
    picked = keys + [n for n in names if n in every and n not in keys]
    return picked if len(picked) > len(keys) else every


def _keys(columns: list[str]) -> list[str]:
    """The leading columns that identify a row (at least the first column)."""
    keys = []
    for column in columns:
        if column not in KEY_COLUMNS:
            break
        keys.append(column)
    return keys or columns[:1]


def write_table(frame: Rows, out: IO[str], title: str | None = None,
                width: int | None = None, decimals: dict[str, int] | None = None) -> None:
    """Write ``frame`` as one or more text tables that never cut a value.

    Values are written whole (floats to 4 decimal places unless ``decimals``
    names the column, with thousands separated when 0; missing values as ``-``);
    user text is never read as markup. Columns that do not fit ``width`` go
    to further tables below, each repeating the key columns.

    :param frame: the rows and columns to write.
    :param out: the stream written to.
    :param title: the caption of the first table.
    :param width: the most characters a line may take (``None``: no limit).
    :param decimals: decimal places per float column.
    """
    cells = _cells(frame, decimals or {})
    columns = list(cells)
    parts = _split(columns, _widths(cells), width)
    for number, part in enumerate(parts):
        caption = title if number == 0 else f"{title or 'table'} (continued)"
        if number:
            out.write("\n")
        _print_part(frame, cells, part, out, caption, width)


def _widths(cells: dict[str, list[str]]) -> dict[str, int]:
    from rich.cells import cell_len

    return {c: max([cell_len(c), *(cell_len(v) for v in values)]) for c, values in cells.items()}


def _needed(columns: list[str], widths: dict[str, int]) -> int:
    return sum(widths[c] + CELL_PADDING for c in columns) + RULE * max(0, len(columns) - 1)


def _cells(frame: Rows, decimals: dict[str, int]) -> dict[str, list[str]]:
    """Each column's values as the table shows them."""
    return {str(c): [_cell(v, decimals.get(str(c), 4)) for v in frame[c]] for c in _labels(frame)}


def _split(columns: list[str], widths: dict[str, int], width: int | None) -> list[list[str]]:
    """Columns in parts that each fit ``width``, every part led by the key columns."""
    if width is None or _needed(columns, widths) <= width:
        return [columns]
    keys = _keys(columns)
    parts: list[list[str]] = []
    for column in (c for c in columns if c not in keys):
        if parts and _needed([*parts[-1], column], widths) <= width:
            parts[-1].append(column)
        else:
            parts.append([*keys, column])
    return parts or [keys]


def _print_part(frame: Rows, cells: dict[str, list[str]], columns: list[str],
                out: IO[str], title: str | None, width: int | None) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(visible(title)) if title else None, show_edge=False,
                  header_style="bold")
    for column in columns:
        numeric = _is_numeric(frame[column])
        table.add_column(Text(visible(column)), justify="right" if numeric else "left",
                         overflow="fold")
    for row in zip(*(cells[c] for c in columns), strict=True):
        table.add_row(*(Text(v) for v in row))
    needed = _needed(columns, _widths({c: cells[c] for c in columns}))
    Console(file=out, width=max(needed, 20) if width is None else width, soft_wrap=False,
            highlight=False).print(table)


def _is_numeric(values: Any) -> bool:
    """Whether a column holds numbers (bool included; not dates or durations), as
    ``pandas.api.types.is_numeric_dtype`` says."""
    import numpy as np

    if isinstance(values.dtype, np.dtype):
        return values.dtype.kind in "biufc"
    from pandas.api.types import is_numeric_dtype  # a pandas dtype: pandas is loaded

    return bool(is_numeric_dtype(values))


def _cell(value: Any, places: int = 4) -> str:
    value = plain(value)
    if value is None or _is_pandas_na(value):
        return "-"
    if isinstance(value, float):
        return f"{value:,.0f}" if places == 0 else f"{value:.{places}f}"
    return visible(str(value), lines=True)


def _is_pandas_na(value: Any) -> bool:
    """Whether ``value`` is ``pandas.NA`` (never, when pandas is not loaded)."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and value is pandas.NA
