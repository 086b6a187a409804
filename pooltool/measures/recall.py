"""Recall@k exactly as trec_eval 10.0 computes it, with judgment rates beside every score.

The Python side of ``pooltool recall``. :func:`evaluate_recall` measures runs
given as a DataFrame; :func:`evaluate_recall_files` reads run files, in
several threads (Arrow and numpy work without the GIL), and measures them. Both
return a :class:`RecallResult`, whose values are numpy columns; its
DataFrames are built from them when asked (so that files measured against
qrels read with :func:`pooltool.formats.qrels.read_qrels_table` never load
pandas).

Semantics follow usnistgov/trec_eval 10.0 (``form_res_rels.c``,
``m_recall.c``, ``m_P.c``, ``m_num_rel.c``, ``m_num_rel_ret.c``,
``m_unjudged.c``, ``meas_avg.c``); the formulas are in
:mod:`pooltool.measures.per_topic` and :mod:`pooltool.measures.summary`:

* each topic's documents are ordered by :func:`pooltool.ranking.order_run`
  (score descending, then docno descending; the rank column is ignored), and
  ``max_docs`` (``-M``) keeps the first documents in that order;
* relevant means ``grade >= level`` (``-l``); negative grades are neither
  relevant nor judged;
* only qrels topics are scored; run topics absent from the qrels are ignored
  (:attr:`RecallResult.ignored_topics`); a qrels topic absent from a run is
  left out of that run's mean (:attr:`RecallResult.missing_topics`) unless
  ``complete`` (``-c``), where it scores 0 and counts. trec_eval 10.0 stops
  with exit code 4 on such a topic without ``-c``; pooltool skips it, as
  trec_eval 9.x and pytrec_eval do, and reports it.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from pooltool.errors import (
    DuplicateDocno,
    DuplicateRunTag,
    InvalidArgument,
    NothingToScore,
)
from pooltool.formats.run import read_run, read_run_table, run_frame
from pooltool.measures.arrow_run import encode_table
from pooltool.measures.per_topic import Columns, RunScores, finish_run, score_run
from pooltool.measures.qrels_index import QrelsIndex, check_level, index_qrels
from pooltool.measures.summary import summarize

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_KS = (10, 100, 1000)


@dataclass(frozen=True)
class RecallOptions:
    """The trec_eval options a result was computed with.

    :ivar ks: cutoffs, increasing, each >= 1.
    :ivar level: minimum relevant grade (``-l``), >= 0.
    :ivar complete: ``-c``, missing topics score 0 and count.
    :ivar max_docs: ``-M``, documents kept per topic, or ``None`` for all.
    """

    ks: tuple[int, ...] = DEFAULT_KS
    level: int = 1
    complete: bool = False
    max_docs: int | None = None


@dataclass(frozen=True)
class RecallResult:
    """What :func:`evaluate_recall` returns.

    :ivar per_topic_columns: one row per run x scored topic, runs in input
        order, topics in ``strcmp`` order, as columns (name -> numpy array):
        ``run_tag, topic, num_ret, num_rel, num_rel_ret`` then, for each
        measure of :data:`pooltool.measures.per_topic.AT_K` and each k,
        ``<measure>@<k>`` (``num_rel_ret@10``, ``recall@10``, ``P@10``,
        ``ceiling@10``, ``unjudged@10``, ``judged@10``, ``recall_upper@10``,
        ...). Counts are int64, the rest float64 fractions 0..1.
        :attr:`per_topic` is the same as a DataFrame.
    :ivar summary_columns: one row per run x k, as columns, see
        :func:`pooltool.measures.summary.summarize`; ``recall`` is trec_eval's
        ``recall_<k> all`` value. :attr:`summary` is the same as a DataFrame.
    :ivar missing_topics: per run tag, the qrels topics the run lacks (left
        out of its means, or scored 0 when ``options.complete``).
    :ivar ignored_topics: per run tag, the run's topics that have no qrels.
    :ivar options: the options used.
    :ivar qrels_topics: the number of topics in the qrels.
    :ivar positive_lines: qrels lines with grade > 0, over all topics; the
        ``num_rel all`` trec_eval prints under ``-c`` whatever ``-l`` says.
    :ivar sources: per run tag, the file it was read from
        (:func:`evaluate_recall_files`; empty for :func:`evaluate_recall`).
    """

    per_topic_columns: Columns
    summary_columns: Columns
    missing_topics: dict[str, list[str]]
    ignored_topics: dict[str, list[str]]
    options: RecallOptions
    qrels_topics: int
    positive_lines: int
    sources: dict[str, str] = field(default_factory=dict)

    @property
    def run_tags(self) -> list[str]:
        """The runs, in input order."""
        return list(self.missing_topics)

    @cached_property
    def per_topic(self) -> pd.DataFrame:
        """:attr:`per_topic_columns` as a DataFrame (built on first use)."""
        import pandas as pd

        return pd.DataFrame(self.per_topic_columns)

    @cached_property
    def summary(self) -> pd.DataFrame:
        """:attr:`summary_columns` as a DataFrame (built on first use)."""
        import pandas as pd

        return pd.DataFrame(self.summary_columns)


def evaluate_recall(
    runs: pd.DataFrame,
    qrels: pd.DataFrame | pa.Table,
    ks: Iterable[int] = DEFAULT_KS,
    level: int = 1,
    complete: bool = False,
    max_docs: int | None = None,
    ranked: bool = False,
) -> RecallResult:
    """Recall@k, P@k, num_rel_ret and judgment rates of every run, per topic and summarised.

    :param runs: run lines with columns ``run_tag, topic, docno`` (str) and
        ``score`` (float, no NaN), as :func:`~pooltool.formats.run.read_run`
        returns; several run tags are several runs. The ``rank`` column, if
        any, is ignored.
    :param qrels: judgments with columns ``topic, docno`` (str) and ``grade``
        (int), as :func:`~pooltool.formats.qrels.read_qrels` (a DataFrame) or
        :func:`~pooltool.formats.qrels.read_qrels_table` (Arrow columns) returns.
    :param ks: cutoffs k (any order, duplicates dropped), each >= 1.
    :param level: a document is relevant when its grade is >= ``level`` (>= 0).
    :param complete: trec_eval ``-c``: a qrels topic absent from a run scores
        0 and counts in the run's means.
    :param max_docs: trec_eval ``-M``: use only the first ``max_docs``
        documents of each topic (trec_eval order); ``None`` for all.
    :param ranked: the runs carry a ``trec_rank`` column, each line's 1-based rank
        within its run and topic in trec_eval's order (as
        :func:`pooltool.ranking.order_run` numbers them, or the first lines of each
        topic so numbered): trusted, so the runs are not ordered again (callers that
        score the same runs several times order them once).
    :returns: a :class:`RecallResult`; every fraction is in 0..1.
    :raises ValueError: bad options, missing columns, ids that are not
        strings, NaN scores, or a docno repeated within a topic of a run.
    :raises NothingToScore: a run has no topic in the qrels (and not ``complete``).
    """
    from pooltool.formats.frames import check_run_frame  # pandas: the runs are a DataFrame

    options = make_options(ks, level, complete, max_docs)
    index = index_qrels(qrels, options.level)
    scored = _score_frame(check_run_frame(runs), index, options, ranked)
    return _result(scored, index, options)


def evaluate_recall_files(
    paths: Sequence[str | Path],
    qrels: pd.DataFrame | pa.Table,
    ks: Iterable[int] = DEFAULT_KS,
    level: int = 1,
    complete: bool = False,
    max_docs: int | None = None,
    workers: int | None = None,
) -> RecallResult:
    """:func:`evaluate_recall` on run files, read and scored one file per task.

    Files are read with :func:`pooltool.formats.run.read_run_table` (Apache
    Arrow's reader) when it can, else with :func:`~pooltool.formats.run.read_run`,
    and scored as soon as read, so that only one file's lines per thread
    are held at a time.

    :param paths: run files; one file may hold several runs.
    :param qrels: as for :func:`evaluate_recall`, or an Arrow table as
        :func:`~pooltool.formats.qrels.read_qrels_table` returns (then
        nothing on the way loads pandas, unless a file needs the line reader
        or holds several runs).
    :param workers: threads to use; ``None`` picks one per CPU (at most one
        per file).
    :returns: a :class:`RecallResult`, runs in file order.
    :raises FormatError: a malformed run line (file and line named), a
        repeated docno included.
    :raises DuplicateRunTag: two files hold runs with the same tag.
    :raises NothingToScore: see :func:`evaluate_recall`.
    :raises ValueError: bad options or qrels.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    options = make_options(ks, level, complete, max_docs)
    index = index_qrels(qrels, options.level)
    files = [Path(p) for p in paths]
    per_file = _map_files(files, index, options, worker_count(files, workers))
    scored: list[tuple[str, RunScores]] = []
    source: dict[str, Path] = {}
    for path, runs in zip(files, per_file, strict=True):
        for tag, scores in runs:
            if tag in source:
                raise DuplicateRunTag(f"run tag {tag!r} is in both {source[tag]} and {path}")
            source[tag] = path
            scored.append((tag, scores))
    return replace(_result(scored, index, options),
                   sources={tag: str(path) for tag, path in source.items()})


def make_options(
    ks: Iterable[int] = DEFAULT_KS,
    level: int = 1,
    complete: bool = False,
    max_docs: int | None = None,
) -> RecallOptions:
    """Check and normalise the options (cutoffs sorted, duplicates dropped).

    :raises ValueError: no cutoff, a cutoff or ``max_docs`` below 1 or not an
        integer, a negative ``level``.
    """
    cutoffs = sorted({_positive_int(k, "cutoff k") for k in ks})
    if not cutoffs:
        raise InvalidArgument("at least one cutoff k is needed")
    check_level(level)
    limit = None if max_docs is None else _positive_int(max_docs, "max_docs (-M)")
    return RecallOptions(tuple(cutoffs), int(level), bool(complete), limit)


def _positive_int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidArgument(f"{what} must be an integer >= 1, got {value!r}")
    return int(value)


def _score_frame(
    runs: pd.DataFrame, index: QrelsIndex, options: RecallOptions, ranked: bool = False
) -> list[tuple[str, RunScores]]:
    """Score each run tag of ``runs``, in order of first appearance (pandas is loaded:
    the runs are a DataFrame); ``ranked``: their ``trec_rank`` is trusted."""
    codes, tags = _run_codes(runs["run_tag"].to_numpy(dtype=object))
    topic = runs["topic"].to_numpy(dtype=object)
    docno = runs["docno"].to_numpy(dtype=object)
    score = runs["score"].to_numpy(dtype=np.float64)
    rank = runs["trec_rank"].to_numpy(dtype=np.int64) if ranked else None
    if len(tags) == 1:
        parts = [(tags[0], topic, docno, score, rank)]
    else:
        order = np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes[order], np.arange(len(tags) + 1))
        rows = [order[bounds[i]:bounds[i + 1]] for i in range(len(tags))]
        parts = [(tag, topic[r], docno[r], score[r], None if rank is None else rank[r])
                 for tag, r in zip(tags, rows, strict=True)]
    return [
        (str(tag), score_run(str(tag), t, d, s, index, options.ks, options.complete,
                             options.max_docs, r))
        for tag, t, d, s, r in parts
    ]


def _run_codes(run_tag: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize`` of the run tags, with a shortcut for the usual single tag."""
    if len(run_tag) and (run_tag == run_tag[0]).all():
        return np.zeros(len(run_tag), dtype=np.intp), run_tag[:1]
    import pandas as pd

    return pd.factorize(run_tag)


def _result(
    scored: list[tuple[str, RunScores]], index: QrelsIndex, options: RecallOptions
) -> RecallResult:
    for tag, scores in scored:
        if not len(scores.columns["topic"]):
            raise NothingToScore(
                f"run {tag!r} has no topic in the qrels (run topics: "
                f"{_some(scores.ignored)}; qrels topics: {_some(index.topics.tolist())})"
            )
    tags = [tag for tag, _ in scored]
    per_topic = {name: np.concatenate([s.columns[name] for _, s in scored])
                 for name in scored[0][1].columns}
    return RecallResult(
        per_topic_columns=per_topic,
        summary_columns=summarize(per_topic, options.ks, tags),
        missing_topics={tag: s.missing for tag, s in scored},
        ignored_topics={tag: s.ignored for tag, s in scored},
        options=options,
        qrels_topics=len(index.topics),
        positive_lines=index.positive_lines,
    )


def _some(items: list[str], limit: int = 5) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f", ... ({len(items)} in all)" if len(items) > limit else "")


# --- reading files, possibly in several threads -------------------------------------


def worker_count(paths: Sequence[Path], workers: int | None) -> int:
    """Threads for reading ``paths``: ``workers`` (at least 1, at most one per file), or
    one per CPU when ``None``."""
    if workers is not None:
        return max(1, min(int(workers), len(paths)))
    return max(1, min(len(paths), os.cpu_count() or 1))


def _map_files(
    paths: list[Path], index: QrelsIndex, options: RecallOptions, workers: int
) -> list[list[tuple[str, RunScores]]]:
    """Each file's runs scored, in file order; the first file's error in that order is raised."""
    score = partial(_score_file, index=index, options=options, threads=workers <= 1)
    if workers <= 1:
        return [score(path) for path in paths]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(score, paths))


def _score_file(path: Path, index: QrelsIndex, options: RecallOptions,
                threads: bool = True) -> list[tuple[str, RunScores]]:
    """Read and score one file.

    Plain files take :func:`~pooltool.formats.run.read_run_table` and
    :func:`~pooltool.measures.arrow_run.encode_table`; the rest, and anything
    they decline, :func:`~pooltool.formats.run.read_run` (without its
    duplicate check: :func:`~pooltool.measures.per_topic.score_run` finds
    repeats on the codes it builds anyway). A repeated docno is named with
    its line by reading the file again, strictly. ``threads``: let Arrow read the
    file in its threads (when files are not read several at once).

    :raises FormatError: a malformed line, named with its file and line.
    """
    try:
        return _score_table(path, index, options, threads)
    except DuplicateDocno:
        read_run(path)  # raises the FormatError naming the line
        raise


def _score_table(path: Path, index: QrelsIndex, options: RecallOptions,
                 threads: bool) -> list[tuple[str, RunScores]]:
    table = read_run_table(path, threads)
    if table is None:
        return _score_frame(read_run(path, check_duplicates=False), index, options)
    return _score_arrow(table, index, options)


def _score_arrow(table: pa.Table, index: QrelsIndex, options: RecallOptions,
                 ) -> list[tuple[str, RunScores]]:
    """Score runs held as Arrow columns: encoded on codes when the table holds one
    run, else through a frame (several tags)."""
    encoded = encode_table(table, index)
    if encoded is None:
        return _score_frame(run_frame(table), index, options)
    tag, run = encoded
    return [(tag, finish_run(tag, run, index, options.ks, options.complete, options.max_docs))]


def evaluate_recall_tables(
    tables: Iterable[pa.Table],
    qrels: pd.DataFrame | pa.Table,
    ks: Iterable[int] = DEFAULT_KS,
    level: int = 1,
    complete: bool = False,
    max_docs: int | None = None,
    workers: int | None = None,
) -> RecallResult:
    """:func:`evaluate_recall` on runs already held as Arrow columns (stored runs:
    :meth:`pooltool.store.JudgmentStore.iter_run_tables`), scored one table per
    thread, taken from ``tables`` only as threads come free (so that few are held
    at a time).

    :param tables: one or more runs each, in
        :func:`~pooltool.formats.run.run_table`'s columns, no docno repeated
        within a topic of a run (the store refuses such runs).
    :param workers: threads to use; ``None`` picks one per CPU.
    :returns: a :class:`RecallResult`, runs in table order.
    :raises DuplicateRunTag: two tables hold runs with the same tag.
    :raises NothingToScore: see :func:`evaluate_recall`.
    :raises ValueError: bad options or qrels.
    """
    options = make_options(ks, level, complete, max_docs)
    index = index_qrels(qrels, options.level)

    count = max(1, workers or os.cpu_count() or 1)
    scored: list[tuple[str, RunScores]] = []
    with ThreadPoolExecutor(count) as pool:
        waiting: deque[Future[list[tuple[str, RunScores]]]] = deque()
        for table in tables:
            waiting.append(pool.submit(_score_arrow, table, index, options))
            if len(waiting) >= count:
                scored += waiting.popleft().result()
        while waiting:
            scored += waiting.popleft().result()
    tags = [tag for tag, _ in scored]
    repeated = sorted({tag for tag in tags if tags.count(tag) > 1})
    if repeated:
        raise DuplicateRunTag(f"run tag {repeated[0]!r} is given twice")
    return _result(scored, index, options)
