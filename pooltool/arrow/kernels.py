"""The few Arrow compute kernels the readers and ``pooltool recall`` use, called by name.

Importing :mod:`pyarrow.compute` builds a Python function, signature and
docstring for each of Arrow's 286 kernels: about 30 ms of CPU, 8% of
``pooltool recall`` on the 15 TREC-COVID runs. These functions call the same
kernels through :func:`pyarrow._compute.call_function` (which those
functions call too), with the same options. Array and table methods such as
``take`` and ``cast`` import :mod:`pyarrow.compute` when first called, so
modules that import this one call :func:`take` and :func:`cast` instead.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from pyarrow._compute import (
    CastOptions,
    MatchSubstringOptions,
    RankOptions,
    SetLookupOptions,
    SortOptions,
    call_function,
)


def cast(values: Any, target: pa.DataType) -> Any:
    """``pc.cast(values, target)``: a safe cast (overflow and truncation raise)."""
    return call_function("cast", [values], CastOptions.safe(target))


def cast_table(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table.cast(schema)`` for a table whose column names are the schema's, in order."""
    return pa.Table.from_arrays([cast(table[field.name], field.type) for field in schema],
                                schema=schema)


def take(values: Any, indices: Any) -> Any:
    """``pc.take(values, indices)``: rows of an array or table, bounds checked."""
    return call_function("take", [values, indices])


def dictionary_encode(values: Any) -> Any:
    """``pc.dictionary_encode(values)``: dictionary in order of first appearance, nulls masked."""
    return call_function("dictionary_encode", [values])


def unique(values: Any) -> Any:
    """``pc.unique(values)``, in order of first appearance."""
    return call_function("unique", [values])


def index_in(values: Any, value_set: pa.Array) -> Any:
    """``pc.index_in(values, value_set=value_set)``: each value's position in the set, or null."""
    return call_function("index_in", [values], SetLookupOptions(value_set))


def match_substring_regex(values: Any, pattern: str) -> Any:
    """``pc.match_substring_regex(values, pattern)``: whether RE2 finds ``pattern`` in each."""
    return call_function("match_substring_regex", [values], MatchSubstringOptions(pattern))


def rank(values: Any, tiebreaker: str) -> Any:
    """``pc.rank(values, sort_keys="ascending", tiebreaker=tiebreaker)``: uint64 ranks from 1."""
    return call_function("rank", [values], RankOptions("ascending", tiebreaker=tiebreaker))


def sort_indices(table: pa.Table, sort_keys: list[tuple[str, str]]) -> Any:
    """``pc.sort_indices(table, sort_keys=sort_keys)``: a stable sort's row order."""
    return call_function("sort_indices", [table], SortOptions(sort_keys))


def call(name: str, *values: Any) -> Any:
    """A kernel without options, with its defaults (aggregates skip nulls): ``call("all",
    column)`` is ``pc.all(column)``, ``call("not_equal", a, b)`` ``pc.not_equal(a, b)``."""
    return call_function(name, list(values))
