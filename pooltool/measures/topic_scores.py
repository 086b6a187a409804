"""One measure's per-topic scores of runs: the one path by which the analyses (pool bias,
its correction, significance) score any measure of the registry.

The measure is named as ``pooltool eval -m`` takes it, trec_eval's spelling
(``map``, ``ndcg_cut.10``, ``P.10``) or ir_measures' (``AP``, ``nDCG@10``, ``P@10``),
and must give one value per topic whose ``all`` line is the mean over topics
(trec_eval's ``meas_avg.c``), so that the analyses' means, drops and paired
differences are trec_eval's. The values are those of
:func:`pooltool.measures.trec.evaluate`: every number equals trec_eval 10.0's.

In Python::

    from pooltool.measures.topic_scores import topic_scores
    scores = topic_scores(runs, qrels, "nDCG@10", holes=True)
    scores.per_topic   # run_tag, topic, value, unjudged, low, high
    scores.summary     # run_tag, value, unjudged, num_q (and low, high)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pooltool.errors import InvalidArgument
from pooltool.measures.trec import Options, evaluate
from pooltool.measures.trec.select import Request, select
from pooltool.ranking import trec_ranks


@dataclass(frozen=True)
class MeasureScores:
    """What :func:`topic_scores` returns.

    :ivar measure: the measure as asked for (``nDCG@10``).
    :ivar name: trec_eval's printed name of it (``ndcg_cut_10``).
    :ivar per_topic: one row per run x scored topic, runs in input order, topics in
        trec_eval's (``strcmp``) order: ``run_tag, topic, value, unjudged`` (the share
        of the ranks the value looks at whose document is unjudged) and, with holes,
        ``low, high`` (the value's hole; NaN for a measure without one).
    :ivar summary: one row per run: ``run_tag, value`` (trec_eval's ``all``),
        ``unjudged`` (its mean), ``num_q`` (topics in the mean) and, with holes,
        ``low, high`` (the means of the per-topic ends).
    :ivar missing: run tag -> qrels topics the run lacks (scored 0 under ``complete``).
    """

    measure: str
    name: str
    per_topic: pd.DataFrame
    summary: pd.DataFrame
    missing: dict[str, list[str]]


def one_measure(spec: str) -> Request:
    """The request of a measure that gives one mean-summarised value per topic.

    :raises InvalidArgument: an unknown measure; one giving several values
        (``P.5,10``, ``all_trec``); one whose ``all`` line is not a mean over topics
        (``num_ret``, ``gm_map``, ``relstring``, ``runid``).
    """
    requests = select([spec])
    names = [name for request in requests for name in request.names]
    if len(names) != 1:
        raise InvalidArgument(f"measure {spec!r} gives {len(names)} values "
                              f"({', '.join(names[:5])}{', ...' if len(names) > 5 else ''}); "
                              "name one (e.g. P.10, ndcg_cut.10)")
    request = requests[0]
    if request.measure.summary != "mean" or not request.measure.per_topic:
        raise InvalidArgument(f"measure {spec!r}: its 'all' line is not a mean over topics "
                              f"({request.measure.summary}), so a per-topic comparison does not "
                              "add up to it; use a measure averaged over topics")
    return request


def ranked_lines(runs: pd.DataFrame) -> pd.DataFrame:
    """``runs``' lines with their trec_eval rank, for :func:`topic_scores` ``ranked``.

    :param runs: ``run_tag, topic, docno, score`` and perhaps ``trec_rank`` (trusted).
    :returns: ``run_tag, topic, docno, score, trec_rank``, ``runs``' row order kept (the
        rank of :func:`pooltool.ranking.trec_ranks` when not given).
    """
    if "trec_rank" in runs.columns:
        return runs[["run_tag", "topic", "docno", "score", "trec_rank"]]
    lines = runs[["run_tag", "topic", "docno", "score"]]
    return lines.assign(trec_rank=trec_ranks(lines))


def topic_scores(runs: pd.DataFrame, qrels: pd.DataFrame, spec: str, level: int = 1,
                 complete: bool = False, holes: bool = False,
                 ranked: bool = False) -> MeasureScores:
    """Every run's per-topic values of one measure, as trec_eval 10.0 computes them.

    :param runs: run lines ``run_tag, topic, docno, score`` (the rank is ignored).
    :param qrels: ``topic, docno, grade``.
    :param spec: the measure (see :func:`one_measure`).
    :param level: trec_eval ``-l``.
    :param complete: trec_eval ``-c``.
    :param holes: also give each value's hole.
    :param ranked: ``runs`` carry ``trec_rank`` (:func:`ranked_lines`), trusted: callers
        scoring the same runs several times order them once.
    :returns: a :class:`MeasureScores`; values in the measure's unit.
    :raises InvalidArgument: see :func:`one_measure`.
    :raises NothingToScore: a run has no topic in the qrels (and not ``complete``).
    """
    request = one_measure(spec)
    name = request.names[0]
    columns = ["run_tag", "topic", "docno", "score"] + (["trec_rank"] if ranked else [])
    result = evaluate(runs[columns], qrels, [spec],
                      Options(level=level, complete=complete, holes=holes), ranked)
    frames, rows = [], []
    for run in result.runs:
        frame = pd.DataFrame({"run_tag": run.run_tag, "topic": run.topics,
                              "value": np.asarray(run.values[0][name], dtype=np.float64),
                              "unjudged": run.unjudged[0][name]})
        row: dict[str, object] = {"run_tag": run.run_tag, "value": float(run.summary[0][name]),
                                  "unjudged": float(frame["unjudged"].mean()),
                                  "num_q": len(run.topics)}
        if holes:
            ends = run.holes[0].get(name)
            frame["low"] = ends[:, 0] if ends is not None else np.nan
            frame["high"] = ends[:, 1] if ends is not None else np.nan
            mean_ends = run.hole_summary[0].get(name, (np.nan, np.nan))
            row["low"], row["high"] = mean_ends
        frames.append(frame)
        rows.append(row)
    return MeasureScores(request.labels[0], name, pd.concat(frames, ignore_index=True),
                         pd.DataFrame(rows), {run.run_tag: run.missing for run in result.runs})
