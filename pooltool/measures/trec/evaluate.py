"""Every requested measure of every run, per topic and summarised, as trec_eval 10.0 does.

:func:`evaluate_runs` takes runs already encoded against the qrels
(:class:`~pooltool.measures.per_topic.EncodedRun`, from
:func:`~pooltool.measures.arrow_run.encode_table` or
:func:`~pooltool.measures.per_topic.encode_run`) and returns an :class:`EvalResult`.

The ``all`` line of each measure (``meas_avg.c``): the mean of the per-topic values
(added left to right in topic order, divided by the topics scored: every qrels topic
under ``-c``); the sum for the counts; ``exp`` of the mean of the logs for
``gm_map`` and ``gm_bpref``; ``num_rel`` under ``-c`` counts the qrels lines with
grade > 0 of every topic, whatever ``-l`` says (``te_calc_avg_num_rel``).

A qrels topic the run lacks is scored under ``-c`` on trec_eval's one-document
stand-in ranking, after which ``num_ret``, ``utility``, ``unj``, ``rbp_resid`` and
``relstring`` are set back to 0 (``trec_eval.c``; only under those exact printed names,
so ``utility_2,-1,0,0`` or ``relstring_20`` keep the stand-in's value, as in trec_eval);
without ``-c`` it is left out and reported (trec_eval 10.0 stops there with exit code
4; 9.x and pytrec_eval skip it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pooltool.errors import NothingToScore
from pooltool.measures.per_topic import EncodedRun
from pooltool.measures.qrels_index import QrelsIndex
from pooltool.measures.trec.ranked import Options, Ranked, level_counts, ranked_batches
from pooltool.measures.trec.select import Request

#: Printed names set back to 0 (relstring: '') for a topic the run lacks (``trec_eval.c``,
#: "clean up leftovers": exact names, so ``utility_2,-1,0,0`` keeps its value; any ``unj*``).
_RESET = ("num_ret", "utility", "relstring", "rbp_resid")


@dataclass(frozen=True)
class RunEval:
    """One run's values.

    :ivar run_tag: the run.
    :ivar topics: the topics scored, in qrels (``strcmp``) order.
    :ivar values: per request, per printed name, the per-topic values (float64
        arrays aligned with ``topics``; ``relstring``: a list of str).
    :ivar unjudged: per request, per printed name, the per-topic unjudged rate of the
        ranks the value looks at (float64; see :func:`unjudged_rate`).
    :ivar summary: per request, per printed name, the ``all`` value (float, int or
        str for runid; absent for relstring).
    :ivar holes: per request, per printed name, the per-topic ``[low, high]`` of the value
        over the grades its unjudged documents could get (float64, shape ``(topics, 2)``;
        :func:`~pooltool.measures.trec.hole_columns.topic_holes`); empty for a measure
        without a hole.
    :ivar hole_summary: per request, per printed name, the ``all`` line's ``(low, high)``:
        the means of the per-topic ends, with the value's divisor.
    :ivar missing: qrels topics the run lacks.
    :ivar ignored: run topics without qrels.
    """

    run_tag: str
    topics: list[str]
    values: list[dict[str, np.ndarray | list[str]]]
    unjudged: list[dict[str, np.ndarray]]
    summary: list[dict[str, float | int | str]]
    missing: list[str]
    ignored: list[str]
    holes: list[dict[str, np.ndarray]] = field(default_factory=list)
    hole_summary: list[dict[str, tuple[float, float]]] = field(default_factory=list)


@dataclass(frozen=True)
class EvalResult:
    """What :func:`evaluate_runs` returns.

    :ivar runs: one :class:`RunEval` per run, in input order.
    :ivar requests: the measures, in printing order.
    :ivar options: the flags.
    """

    runs: list[RunEval]
    requests: list[Request]
    options: Options


def unjudged_rates(ranked: Ranked, request: Request) -> np.ndarray:
    """Per topic and value of ``request``, the share of the ranks it looks at whose
    document is unjudged (no qrels line, or a negative grade): ``U(k) / k`` for a cutoff
    k (trec_eval's ``unj_k``; ranks past the end count as judged), ``U(n) / n`` over the
    n retrieved documents otherwise (0 when n = 0); float64, ``(T, names)``."""
    if request.measure.kind == "cut_long":
        depths = np.array(request.params.values, dtype=np.int64)
        return ranked.within(ranked.unjudged_count, depths) / depths
    n = ranked.num_ret
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(n > 0, ranked.num_unjudged / n, 0.0)
    return np.repeat(rate[:, None], len(request.names), axis=1)


def evaluate_runs(runs: Iterable[tuple[str, EncodedRun]], qrels: QrelsIndex,
                  requests: Sequence[Request], options: Options) -> EvalResult:
    """Score every run.

    :param runs: ``(run_tag, encoded lines)`` per run.
    :param qrels: the judgments, indexed at ``options.level``.
    :param requests: the measures (:func:`pooltool.measures.trec.select.select`).
    :param options: trec_eval's flags.
    :returns: an :class:`EvalResult`; fractions are in 0..1, counts integers.
    :raises NothingToScore: a run has no topic in the qrels (and not ``-c``).
    """
    results = [evaluate_run(tag, run, qrels, list(requests), options) for tag, run in runs]
    return EvalResult(results, list(requests), options)


#: One batch's columns of one request: values, unjudged rates, holes (by printed name).
_Columns = tuple[dict[str, "np.ndarray | list[str]"], dict[str, np.ndarray], dict[str, np.ndarray]]


def evaluate_run(tag: str, encoded: EncodedRun, qrels: QrelsIndex, requests: list[Request],
                 options: Options) -> RunEval:
    """One run's :class:`RunEval` (see :func:`evaluate_runs`)."""
    batches = list(ranked_batches(encoded, qrels, options))
    if not batches:
        raise NothingToScore(f"run {tag!r} has no topic in the qrels (qrels topics: "
                             f"{', '.join(qrels.topics[:5].tolist())} ...)")
    max_grade = 0
    if options.holes:  # (the holes' modules loaded only then: trec_eval's layout prints none)
        from pooltool.measures.trec.hole_columns import qrels_max_grade

        max_grade = qrels_max_grade(level_counts(qrels))
    parts = [[_request(ranked, request, options, max_grade) for request in requests]
             for ranked in batches]
    values, unjudged, holes = ([_joined([batch[r][kind] for batch in parts])
                                for r in range(len(requests))] for kind in range(3))
    topics = [topic for ranked in batches for topic in ranked.topics]
    present = {t for ranked in batches for t, p in zip(ranked.topics, ranked.present.tolist(),
                                                       strict=True) if p}
    summary = [_summary(r, v, tag, len(topics), qrels, options) for r, v in zip(requests, values,
                                                                               strict=True)]
    hole_summary = [{name: (float(np.cumsum(pair[:, 0])[-1]) / len(topics),
                            float(np.cumsum(pair[:, 1])[-1]) / len(topics))
                     for name, pair in per_request.items()} for per_request in holes]
    return RunEval(tag, topics, values, unjudged, summary,
                   [t for t in qrels.topics.tolist() if t not in present], list(encoded.ignored),
                   holes, hole_summary)


def _joined(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Per printed name, the batches' columns one after the other (a name missing from
    any batch is dropped: a hole that some topic lacks)."""
    names = [name for name in parts[0] if all(name in part for part in parts)]
    return {name: (parts[0][name] if len(parts) == 1
                   else [v for part in parts for v in part[name]] if isinstance(parts[0][name], list)
                   else np.concatenate([part[name] for part in parts]))
            for name in names}


def _request(ranked: Ranked, request: Request, options: Options, max_grade: int) -> _Columns:
    """One request's columns on one batch, with the stand-in ranking's resets."""
    if request.level is not None:
        key = ("level", request.level)
        if key not in ranked.cache:
            ranked.cache[key] = ranked.at_level(request.level)
        ranked = ranked.cache[key]
    got = request.measure.compute(ranked, request.params.values, options)
    absent = ~ranked.present
    rates = unjudged_rates(ranked, request)
    values: dict[str, np.ndarray | list[str]] = {}
    for position, name in enumerate(request.names):
        reset = absent.any() and (name in _RESET or name.startswith("unj"))
        if isinstance(got, list):
            values[name] = [("" if reset and a else v) for v, a in zip(got, absent.tolist(),
                                                                       strict=True)]
        else:
            values[name] = np.where(absent, 0.0, got[:, position]) if reset else got[:, position]
    unjudged = {name: rates[:, position] for position, name in enumerate(request.names)}
    return values, unjudged, _holes(ranked, request, values, max_grade) if options.holes else {}


def _holes(ranked: Ranked, request: Request, values: dict[str, np.ndarray | list[str]],
           max_grade: int) -> dict[str, np.ndarray]:
    """Per printed name with a hole on every topic, ``(T, 2)`` of its ends."""
    from pooltool.measures.trec.hole_columns import covered, topic_holes

    if not covered(request):
        return {}
    ends: dict[str, list[tuple[float, float]]] = {name: [] for name in request.names}
    for row in range(len(ranked.topics)):
        got = [values[name][row] for name in request.names]
        for name, hole in zip(request.names, topic_holes(ranked.topic(row), request, got,
                                                         max_grade), strict=True):
            if hole is not None:
                ends[name].append(hole)
    return {name: np.array(column, dtype=np.float64).reshape(-1, 2)
            for name, column in ends.items() if len(column) == len(ranked.topics)}


def _summary(request: Request, values: dict[str, np.ndarray | list[str]], tag: str, count: int,
             qrels: QrelsIndex, options: Options) -> dict[str, float | int | str]:
    how = request.measure.summary
    if how == "runid":
        return {"runid": tag}
    if how == "none":
        return {}
    out: dict[str, float | int | str] = {}
    for name, column in values.items():
        array = np.asarray(column, dtype=np.float64)
        if how == "num_q":
            out[name] = count
        elif how == "num_rel" and options.complete:
            out[name] = qrels.positive_lines
        elif how in ("sum", "num_rel"):
            out[name] = int(array.sum())
        elif how == "geometric":
            out[name] = math.exp(float(np.cumsum(array)[-1]) / count)
        else:
            out[name] = float(np.cumsum(array)[-1]) / count
    return out
