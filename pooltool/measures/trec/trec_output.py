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

from pooltool.measures.trec.c_arith import value_pieces, value_text
from pooltool.measures.trec.evaluate import EvalResult, RunEval
from pooltool.measures.trec.select import Request


def format_trec(result: EvalResult, per_topic: bool = False, summary: bool = True) -> str:
    """The text trec_eval would print.

    :param result: what :func:`~pooltool.measures.trec.evaluate.evaluate_runs` returned.
    :param per_topic: ``-q``.
    :param summary: ``False`` for ``-n`` (no ``all`` lines).
    :returns: the lines, each ending with a newline.
    """
    return "".join(run_text(result.requests, run, per_topic, summary) for run in result.runs)


def run_text(requests: list[Request], run: RunEval, per_topic: bool = False,
             summary: bool = True) -> str:
    """One run's part of :func:`format_trec` (its topics' lines, then its ``all`` lines);
    ``requests``: the result's (:attr:`EvalResult.requests`)."""
    text = _topic_lines(requests, run) if per_topic else ""
    if summary:
        text += "".join(line + "\n" for line in _all_lines(requests, run))
    return text


def _line(name: str, topic: str, text: str) -> str:
    return f"{name:<22}\t{topic}\t{text}"


def _topic_lines(requests: list[Request], run: RunEval) -> str:
    """Every topic's lines, topic by topic: a ``(topics, names, 4)`` grid of the pieces
    of each line (name, topic between tabs, value text in two pieces ending with the
    newline), the ``%6.4f`` columns formatted in one call, and joined once."""
    columns = [(name, values[name], request.measure.integer)
               for request, values in zip(requests, run.values, strict=True)
               if request.measure.per_topic for name in request.names]
    pieces = np.empty((len(run.topics), len(columns), 4), dtype=object)
    pieces[:, :, 0] = np.array([f"{name:<22}" for name, _, _ in columns], dtype=object)
    pieces[:, :, 1] = np.array([f"\t{topic}\t" for topic in run.topics], dtype=object)[:, None]
    pieces[:, :, 3] = "\n"
    floats: list[int] = []
    for position, (_name, column, integer) in enumerate(columns):
        if isinstance(column, list):
            pieces[:, position, 2] = [f"'{v}'" for v in column]
        elif integer:
            pieces[:, position, 2] = [str(v) for v in column.astype(np.int64).tolist()]
        else:
            floats.append(position)
    if floats:
        grid = np.stack([columns[position][1] for position in floats], axis=1)
        heads, tails = value_pieces(grid.ravel(), "\n")
        pieces[:, floats, 2], pieces[:, floats, 3] = (heads.reshape(grid.shape),
                                                      tails.reshape(grid.shape))
    return "".join(pieces.ravel().tolist())


def _all_lines(requests: list[Request], run: RunEval) -> Iterator[str]:
    for request, summary in zip(requests, run.summary, strict=True):
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
