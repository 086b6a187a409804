"""A run file read for the store: its runs (one per run tag), each in trec_eval order
(:func:`pooltool.ranking.order_table`), and the file's sha256, as
:meth:`~pooltool.store.runs.RunTables.add_runs` stores them.

A module of its own so that the store opens without Arrow and numpy (``init`` loads
neither); the run methods import it when they import runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from pooltool.arrow import kernels
from pooltool.formats.run import plain_run_bytes, read_run, run_table
from pooltool.formats.run_pass import trec_order
from pooltool.ranking import order_table
from pooltool.store import run_columns
from pooltool.store.provenance import bytes_sha256, file_sha256

if TYPE_CHECKING:
    import pandas as pd

#: A run file ready to store: its runs (tag, packed entries), in file order; the file's
#: sha256; its docnos (empty unless asked for).
LoadedFile = tuple[list[tuple[str, run_columns.RunBlob]], str, set[str]]


def load_file(path: Path, threads: bool, with_docnos: bool) -> LoadedFile:
    """A file's runs (:func:`file_runs`), each packed (:func:`~pooltool.store.run_columns.pack`),
    the file's sha256, and, with ``with_docnos``, the docnos it retrieves (to check them
    against the store's documents).

    :raises FormatError: as :func:`file_runs`.
    """
    runs, sha = file_runs(path, threads)
    docnos = set().union(*(kernels.unique(run["docno"]).to_pylist() for _, run in runs)) \
        if with_docnos else set()
    return [(tag, run_columns.pack(run)) for tag, run in runs], sha, docnos


def file_runs(path: Path, threads: bool) -> tuple[list[tuple[str, pa.Table]], str]:
    """A run file's runs (one per run tag, in file order), each in trec_eval order
    (:func:`~pooltool.ranking.order_table`), and the file's sha256 (of the bytes read).

    Arrow's reader (:func:`~pooltool.formats.run.run_table`; ``threads``: its own
    threads) reads the file when it can vouch for it and no docno repeats within a
    topic (of a one-run file, the compiled join,
    :func:`~pooltool.formats.run_pass.trec_order`, checks that, and orders the lines
    when each topic's are written best score first); otherwise
    :func:`~pooltool.formats.run.read_run` does, and names the file and line of any
    error.

    :raises FormatError: a malformed line, a repeated docno included.
    """
    data = plain_run_bytes(path)
    table = None if data is None else run_table(data, threads)
    # the compiled join: no docno twice within a topic (then not checked again below),
    # and the lines in trec_eval's order where each topic's are written best score first
    checked = None if table is None else trec_order(table)
    if checked is not None and checked.ordered is not None:
        assert data is not None
        ordered = checked.ordered
        return [(str(ordered["run_tag"].chunk(0).dictionary[0].as_py()), ordered)], bytes_sha256(data)
    if data is None or table is None or (checked is None and run_columns.repeats_docno(table)):
        frame = read_run(path)  # first: it refuses a pipe, which file_sha256 would wait on
        sha = file_sha256(path) if data is None else bytes_sha256(data)
        return [(str(tag), ordered_table(entries))
                for tag, entries in frame.groupby("run_tag", sort=False)], sha
    sha = bytes_sha256(data)
    del data
    table = table.unify_dictionaries()
    tags = table["run_tag"].chunk(0).dictionary.to_pylist() if table.num_rows else []
    if len(tags) == 1:  # the usual case
        return [(str(tags[0]), order_table(table))], sha
    tag_of_row = kernels.cast(table["run_tag"], pa.string())
    seen = kernels.unique(tag_of_row)  # in order of first appearance
    # compared with Arrow scalars: a Python string would go through pa.scalar(), which
    # loads pandas
    return [(str(tag.as_py()), order_table(
        kernels.call("filter", table, kernels.call("equal", tag_of_row, tag))))
            for tag in seen], sha


def ordered_table(entries: pd.DataFrame) -> pa.Table:
    """A one-run frame (columns as :func:`~pooltool.formats.run.read_run` returns) as
    Arrow columns in trec_eval order."""
    table = pa.table({"topic": pa.array(entries["topic"].to_numpy(dtype=object), pa.string()),
                      "docno": pa.array(entries["docno"].to_numpy(dtype=object), pa.string()),
                      "rank": pa.array(entries["rank"].to_numpy(), pa.int64()),
                      "score": pa.array(entries["score"].to_numpy(), pa.float64())})
    return order_table(table)
