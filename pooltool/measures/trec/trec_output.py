"""An :class:`~pooltool.measures.trec.evaluate.EvalResult` in trec_eval 10.0's own layout.

Each line is the printed name left-justified to 22 characters, a TAB, the topic (or
``all``), a TAB and the value (``meas_print_single.c``, ``meas_print_final.c``):
counts as integers (``%ld``), ``relstring`` quoted, ``runid`` as the tag, the rest
``%6.4f`` (NaN as glibc prints it, ``-nan``). With ``-q`` every topic's lines come
first, in qrels topic order, each topic's measures in registry order; then the
``all`` lines, unless ``-n``. Several runs are printed one after the other.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from pooltool.measures.trec.c_arith import value_text, value_texts
from pooltool.measures.trec.evaluate import EvalResult, RunEval


def format_trec(result: EvalResult, per_topic: bool = False, summary: bool = True) -> str:
    """The text trec_eval would print.

    :param result: what :func:`~pooltool.measures.trec.evaluate.evaluate_runs` returned.
    :param per_topic: ``-q``.
    :param summary: ``False`` for ``-n`` (no ``all`` lines).
    :returns: the lines, each ending with a newline.
    """
    lines: list[str] = []
    for run in result.runs:
        if per_topic:
            lines.extend(_topic_lines(result, run))
        if summary:
            lines.extend(_all_lines(result, run))
    return "\n".join(lines) + "\n" if lines else ""


def _line(name: str, topic: str, text: str) -> str:
    return f"{name:<22}\t{topic}\t{text}"


def _topic_lines(result: EvalResult, run: RunEval) -> list[str]:
    """Every topic's lines, topic by topic, built a column (printed name) at a time."""
    tabs = [f"\t{topic}\t" for topic in run.topics]
    columns: list[list[str]] = []
    for request, values in zip(result.requests, run.values, strict=True):
        if not request.measure.per_topic:
            continue
        for name in request.names:
            head = f"{name:<22}"
            columns.append([head + tab + text for tab, text in
                            zip(tabs, _texts(values[name], request.measure.integer), strict=True)])
    return [line for row in zip(*columns, strict=True) for line in row]


def _texts(column: np.ndarray | list[str], integer: bool) -> list[str]:
    if isinstance(column, list):
        return [f"'{value}'" for value in column]
    if integer:
        return [str(value) for value in column.astype(np.int64).tolist()]
    return value_texts(column)


def _all_lines(result: EvalResult, run: RunEval) -> Iterator[str]:
    for request, summary in zip(result.requests, run.summary, strict=True):
        for name in request.names if request.measure.name != "runid" else ["runid"]:
            if name not in summary:
                continue
            value = summary[name]
            if isinstance(value, str):
                yield _line(name, "all", value)
            elif request.measure.integer:
                yield _line(name, "all", str(int(value)))
            else:
                yield _line(name, "all", value_text(float(value)))
