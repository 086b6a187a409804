"""Runs from files, DataFrames or Arrow tables, encoded against the qrels and scored with
:func:`pooltool.measures.trec.evaluate.evaluate_runs`.

The readers and encoders are recall's (:func:`pooltool.formats.run.read_run_table`,
:func:`~pooltool.formats.run.read_run`, :func:`pooltool.measures.arrow_run.encode_table`,
:func:`pooltool.measures.per_topic.encode_run`), so a run is read, checked and
ordered here exactly as ``pooltool recall`` reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np
import pyarrow as pa

from pooltool.errors import DuplicateDocno, DuplicateRunTag, NothingToScore
from pooltool.formats.run import read_run, read_run_table, run_frame
from pooltool.measures.arrow_run import encode_table
from pooltool.measures.per_topic import EncodedRun, encode_run
from pooltool.measures.qrels_index import QrelsIndex, index_qrels
from pooltool.measures.recall import worker_count
from pooltool.measures.trec.evaluate import EvalResult, RunEval, evaluate_run, evaluate_runs
from pooltool.measures.trec.ranked import Options
from pooltool.measures.trec.select import Request, select

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


def evaluate_files(paths: Sequence[str | Path],
                   qrels: pd.DataFrame | pa.Table | Callable[[], pd.DataFrame | pa.Table],
                   measures: Sequence[str] = (), options: Options | None = None,
                   workers: int | None = None, then: Callable[[RunEval], object] | None = None
                   ) -> tuple[EvalResult, dict[str, str]]:
    """:func:`evaluate` on run files (one file may hold several runs), read and scored in
    ``workers`` threads (default one per CPU; Arrow and numpy work without the GIL).

    :param qrels: as :func:`evaluate`'s, or a function giving them, called while the first
        files are parsed (which needs no qrels); what it raises is raised first.
    :param then: called on each run as soon as it is scored, in the thread that scored it
        (runs in no set order; to format a run while the next file is read).

    :returns: the result and, per run tag, the file it came from.
    :raises FormatError: a malformed run line, a repeated docno included (file and line
        named; the first such file in ``paths`` order).
    :raises DuplicateRunTag: two files hold runs with the same tag.
    :raises NothingToScore: a run has no topic in the qrels (and not ``-c``; the first such
        run, once every file has been read).
    """
    options = options or Options()
    requests = select(measures)
    files = [Path(p) for p in paths]
    count = worker_count(files, workers)
    index: Future[QrelsIndex] = Future()
    source: dict[str, str] = {}
    scored: list[RunEval | NothingToScore] = []
    with ThreadPoolExecutor(count) as pool:
        tasks = [pool.submit(_scored_file, path, index, requests, options, count <= 1, then)
                 for path in files]
        try:
            index.set_result(index_qrels(qrels() if callable(qrels) else qrels, options.level))
        except BaseException as error:
            for task in tasks:
                task.cancel()
            index.set_exception(error)  # the tasks already started stop at index.result()
            raise
        for path, task in zip(files, tasks, strict=True):
            for tag, run in task.result():
                if tag in source:
                    raise DuplicateRunTag(f"run tag {tag!r} is in both {source[tag]} and {path}")
                source[tag] = str(path)
                scored.append(run)
    for run in scored:  # as when every file was read before any run was scored
        if isinstance(run, NothingToScore):
            raise run
    return EvalResult(cast(list[RunEval], scored), requests, options), source


def _scored_file(path: Path, index: Future[QrelsIndex], requests: list[Request],
                 options: Options, threads: bool, then: Callable[[RunEval], object] | None
                 ) -> list[tuple[str, RunEval | NothingToScore]]:
    """One file's runs read and scored in one task (so that a thread goes on to the next
    file at once), a run with nothing to score kept as its error, raised by the caller
    only once every file has been read. The file is parsed before waiting for ``index``;
    ``threads``: let Arrow parse it in its own threads (when files are not read several at
    once)."""
    table = read_run_table(path, threads)
    qrels = index.result()
    out: list[tuple[str, RunEval | NothingToScore]] = []
    for tag, run in _file_runs(path, qrels, table):
        try:
            scored = evaluate_run(tag, run, qrels, requests, options)
        except NothingToScore as error:
            out.append((tag, error))
            continue
        if then is not None:
            then(scored)
        out.append((tag, scored))
    return out


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


def _file_runs(path: Path, index: QrelsIndex, table: pa.Table | None
               ) -> list[tuple[str, EncodedRun]]:
    """One file's runs from its :func:`~pooltool.formats.run.read_run_table` columns (``None``:
    read by the strict reader); a repeated docno is named with its line by reading the
    file strictly."""
    try:
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
