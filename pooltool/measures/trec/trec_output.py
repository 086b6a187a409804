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

from pooltool.measures.trec.c_arith import value_text
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
    return "".join(line + "\n" for line in lines)


def _line(name: str, topic: str, text: str) -> str:
    return f"{name:<22}\t{topic}\t{text}"


def _topic_lines(result: EvalResult, run: RunEval) -> Iterator[str]:
    shown = [(r, v) for r, v in zip(result.requests, run.values, strict=True)
             if r.measure.per_topic]
    for row, topic in enumerate(run.topics):
        for request, values in shown:
            for name in request.names:
                value = values[name][row]
                if isinstance(value, str):
                    yield _line(name, topic, f"'{value}'")
                elif request.measure.integer:
                    yield _line(name, topic, str(int(value)))
                else:
                    yield _line(name, topic, value_text(float(value)))


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
