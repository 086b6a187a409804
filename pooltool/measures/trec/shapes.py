"""An :class:`~pooltool.measures.trec.evaluate.EvalResult` as rows: the long shape of the
machine formats and the wide table for people.

Long shape (``schemas/eval-v1.json``): one row per run x topic x measure value, with
``topic = "all"`` for the summary row (trec_eval's convention), columns

* ``run``: the run tag;
* ``topic``: the topic id, or ``all``;
* ``measure``: the name as asked for (``nDCG@10``) or as trec_eval prints it (``P_10``);
* ``value``: the value: a fraction, a count, or a string (``relstring``);
* ``unjudged``: the share of the ranks the value looks at whose document is unjudged
  (:func:`~pooltool.measures.trec.evaluate.unjudged_rates`; the mean over topics on an
  ``all`` row);
* ``low``, ``high``: the lowest and highest value judging the unjudged documents could
  give, the measure's hole (:mod:`pooltool.measures.trec.hole_columns` says which
  measures have one and on which ranking; the means over topics on an ``all`` row);
  ``None`` (null) for a measure without a hole.

The wide table has one row per run (per run and topic with ``-q``) and one column per
measure value.
"""

from __future__ import annotations

import numpy as np

from pooltool.measures.per_topic import Columns
from pooltool.measures.trec.evaluate import EvalResult

LONG_COLUMNS = ("run", "topic", "measure", "value", "unjudged", "low", "high")


def long_rows(result: EvalResult, per_topic: bool = False) -> Columns:
    """The long shape: per-topic rows (with ``per_topic``) then each run's ``all`` rows.

    :returns: :data:`LONG_COLUMNS` as object arrays of one length.
    """
    rows: list[tuple[object, ...]] = []
    for run in result.runs:
        for request, values, rates, summary, holes, hole_all in zip(
                result.requests, run.values, run.unjudged, run.summary, run.holes,
                run.hole_summary, strict=True):
            if request.measure.name == "runid":
                continue
            labels = dict(zip(request.names, request.labels, strict=True))
            for name in request.names:
                if per_topic and request.measure.per_topic:
                    for row, topic in enumerate(run.topics):
                        rows.append((run.run_tag, topic, labels[name],
                                     _plain(values[name][row], request.measure.integer),
                                     float(rates[name][row]),
                                     *_ends(holes[name][row] if name in holes else None)))
                if name in summary:
                    rows.append((run.run_tag, "all", labels[name],
                                 _plain(summary[name], request.measure.integer),
                                 float(np.cumsum(rates[name])[-1] / len(rates[name])),
                                 *_ends(hole_all.get(name))))
    return {column: np.array([row[i] for row in rows], dtype=object)
            for i, column in enumerate(LONG_COLUMNS)}


def wide_rows(result: EvalResult, per_topic: bool = False) -> Columns:
    """One row per run (``run_tag``, then each measure's ``all`` value), or with
    ``per_topic`` one per run and topic (``run_tag``, ``topic``, per-topic values)."""
    table: dict[str, list[object]] = {"run_tag": []}
    if per_topic:
        table["topic"] = []
    for run in result.runs:
        count = len(run.topics) if per_topic else 1
        table["run_tag"].extend([run.run_tag] * count)
        if per_topic:
            table["topic"].extend(run.topics)
        for request, values, summary in zip(result.requests, run.values, run.summary,
                                            strict=True):
            shown = request.measure.per_topic if per_topic else request.measure.name != "runid"
            for name, label in zip(request.names, request.labels, strict=True):
                if not shown or (not per_topic and name not in summary):
                    continue
                cells = ([_plain(v, request.measure.integer) for v in values[name]] if per_topic
                         else [_plain(summary[name], request.measure.integer)])
                table.setdefault(label, []).extend(cells)
    return {name: np.array(cells, dtype=object) for name, cells in table.items()}


def _ends(hole: np.ndarray | tuple[float, float] | None) -> tuple[float | None, float | None]:
    """``(low, high)`` as plain floats, ``(None, None)`` without a hole."""
    if hole is None:
        return None, None
    return float(hole[0]), float(hole[1])


def _plain(value: object, integer: bool) -> object:
    if isinstance(value, str):
        return value
    number = float(value)  # type: ignore[arg-type]
    return int(number) if integer else number
