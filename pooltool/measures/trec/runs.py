"""Runs from files, DataFrames or Arrow tables, encoded against the qrels and scored with
:func:`pooltool.measures.trec.evaluate.evaluate_runs`.

The readers and encoders are recall's (:func:`pooltool.formats.run.read_run_table`,
:func:`~pooltool.formats.run.read_run`, :func:`pooltool.measures.arrow_run.encode_table`,
:func:`pooltool.measures.per_topic.encode_run`), so a run is read, checked and
ordered here exactly as ``pooltool recall`` reads it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from pooltool.errors import DuplicateDocno, DuplicateRunTag
from pooltool.formats.run import read_run, read_run_table, run_frame
from pooltool.measures.arrow_run import encode_table
from pooltool.measures.per_topic import EncodedRun, encode_run
from pooltool.measures.qrels_index import QrelsIndex, index_qrels
from pooltool.measures.recall import worker_count
from pooltool.measures.trec.evaluate import EvalResult, evaluate_run, evaluate_runs
from pooltool.measures.trec.ranked import Options
from pooltool.measures.trec.select import select

if TYPE_CHECKING:
    import pandas as pd


def evaluate(runs: pd.DataFrame, qrels: pd.DataFrame | pa.Table, measures: Sequence[str] = (),
             options: Options | None = None, ranked: bool = False) -> EvalResult:
    """Every measure of ``measures`` for every run of a frame.

    :param runs: run lines, columns ``run_tag, topic, docno`` (str), ``score``
        (float), as :func:`~pooltool.formats.run.read_run` returns; the rank is ignored.
    :param qrels: columns ``topic, docno`` (str), ``grade`` (int), a DataFrame or Arrow table.
    :param measures: ``-m`` values, trec_eval's or ir_measures' spelling (empty:
        trec_eval's ``official``).
    :param options: trec_eval's flags (default: none).
    :param ranked: the runs also carry ``trec_rank``, each line's 1-based rank within its
        run and topic in trec_eval's order (:func:`pooltool.ranking.trec_ranks`'s, or the
        first lines of each topic so numbered): trusted, so the runs are not ordered
        again (the analyses score the same runs many times and order them once).
    :returns: an :class:`~pooltool.measures.trec.evaluate.EvalResult`, runs in order of
        first appearance.
    :raises InvalidArgument: an unknown measure or bad parameters.
    :raises ValueError: bad columns, NaN scores, a docno repeated within a topic.
    :raises NothingToScore: a run has no topic in the qrels (and not ``-c``).
    """
    from pooltool.formats.frames import check_run_frame

    options = options or Options()
    requests = select(measures)
    index = index_qrels(qrels, options.level)
    return evaluate_runs(_frame_runs(check_run_frame(runs), index, ranked), index, requests,
                         options)


def evaluate_files(paths: Sequence[str | Path], qrels: pd.DataFrame | pa.Table,
                   measures: Sequence[str] = (), options: Options | None = None,
                   workers: int | None = None) -> tuple[EvalResult, dict[str, str]]:
    """:func:`evaluate` on run files (one file may hold several runs), read and scored in
    ``workers`` threads (default one per CPU; Arrow and numpy work without the GIL).

    :returns: the result and, per run tag, the file it came from.
    :raises FormatError: a malformed run line, a repeated docno included (file and line
        named; the first such file in ``paths`` order).
    :raises DuplicateRunTag: two files hold runs with the same tag.
    """
    options = options or Options()
    requests = select(measures)
    index = index_qrels(qrels, options.level)
    files = [Path(p) for p in paths]
    count = worker_count(files, workers)
    source: dict[str, str] = {}
    encoded: list[tuple[str, EncodedRun]] = []
    with ThreadPoolExecutor(count) as pool:
        for path, runs in zip(files, pool.map(partial(_file_runs, index=index, threads=count <= 1),
                                              files), strict=True):
            for tag, run in runs:
                if tag in source:
                    raise DuplicateRunTag(f"run tag {tag!r} is in both {source[tag]} and {path}")
                source[tag] = str(path)
                encoded.append((tag, run))
        scored = list(pool.map(lambda pair: evaluate_run(pair[0], pair[1], index, requests,
                                                         options), encoded))
    return EvalResult(scored, requests, options), source


def evaluate_tables(tables: Iterable[pa.Table], qrels: pd.DataFrame | pa.Table,
                    measures: Sequence[str] = (), options: Options | None = None) -> EvalResult:
    """:func:`evaluate` on runs held as Arrow columns (stored runs,
    :meth:`pooltool.store.JudgmentStore.iter_run_tables`).

    :raises DuplicateRunTag: a run tag is given twice.
    """
    options = options or Options()
    requests = select(measures)
    index = index_qrels(qrels, options.level)
    encoded = [pair for table in tables for pair in _table_runs(table, index)]
    tags = [tag for tag, _ in encoded]
    repeated = sorted({tag for tag in tags if tags.count(tag) > 1})
    if repeated:
        raise DuplicateRunTag(f"run tag {repeated[0]!r} is given twice")
    return evaluate_runs(encoded, index, requests, options)


def _file_runs(path: Path, index: QrelsIndex, threads: bool = True
               ) -> list[tuple[str, EncodedRun]]:
    """One file's runs; a repeated docno is named with its line by reading it strictly.
    ``threads``: let Arrow read the file in its threads (when files are not read several
    at once)."""
    try:
        table = read_run_table(path, threads)
        if table is None:
            return list(_frame_runs(read_run(path, check_duplicates=False), index))
        return list(_table_runs(table, index))
    except DuplicateDocno:
        read_run(path)  # raises the FormatError naming the line
        raise


def _table_runs(table: pa.Table, index: QrelsIndex) -> Iterator[tuple[str, EncodedRun]]:
    encoded = encode_table(table, index)
    if encoded is None:  # several run tags
        yield from _frame_runs(run_frame(table), index)
    else:
        yield encoded


def _frame_runs(frame: pd.DataFrame, index: QrelsIndex, ranked: bool = False
                ) -> Iterator[tuple[str, EncodedRun]]:
    """Each run tag's lines encoded; ``ranked``: with their ``trec_rank`` (trusted)."""
    for tag, part in frame.groupby("run_tag", sort=False):
        rank = part["trec_rank"].to_numpy(dtype=np.int64) if ranked else None
        yield str(tag), encode_run(str(tag), part["topic"].to_numpy(dtype=object),
                                   part["docno"].to_numpy(dtype=object),
                                   part["score"].to_numpy(dtype=np.float64), index, rank)
