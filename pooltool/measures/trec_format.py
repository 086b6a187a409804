"""A :class:`~pooltool.measures.recall.RecallResult` in trec_eval's ``-q`` layout.

Each line is ``measure`` left-justified to 22 characters, a TAB, the topic
(or ``all``), a TAB and the value: counts as integers, everything else with
``%6.4f`` (``meas_print_single.c``, ``meas_print_final.c``)::

    recall_10             \t1\t0.0693

Measures come in trec_eval's table order: ``num_ret``, ``num_rel``,
``num_rel_ret``, ``P_k``..., ``recall_k``..., ``unj_k``... . With per-topic
output, every topic's lines come first (topics in ``strcmp`` order), then the
``all`` lines. ``all`` is the sum over topics for the three counts and the
mean for the rest, with one trec_eval quirk reproduced on purpose: under
``-c`` the ``num_rel all`` line counts the qrels lines with grade > 0 in all
topics, whatever ``-l`` says (``te_calc_avg_num_rel`` in ``m_num_rel.c``), so
with ``-c -l 2`` it does not equal the sum of the per-topic ``num_rel`` lines
above it. Several runs are written one after the other, each ``all`` block
opening with trec_eval's ``runid`` line (what ``-m runid`` prints).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from pooltool.measures.per_topic import Columns
from pooltool.measures.recall import RecallResult
from pooltool.measures.summary import trec_mean

#: The per-topic columns behind each trec_eval measure family.
TREC_FAMILIES = (("P", "P"), ("recall", "recall"), ("unj", "unjudged"))


def format_trec(result: RecallResult, per_topic: bool = False) -> str:
    """The text trec_eval 10.0 would print for these measures.

    :param result: what :func:`~pooltool.measures.recall.evaluate_recall` returned.
    :param per_topic: trec_eval ``-q``: print every topic's lines before ``all``.
    :returns: the lines, each ending with a newline.
    """
    several = len(result.run_tags) > 1
    lines: list[str] = []
    rows = result.per_topic_columns
    for tag in result.run_tags:
        mine = rows["run_tag"] == tag
        topics = {name: values[mine] for name, values in rows.items()}
        if per_topic:
            for row in range(int(mine.sum())):
                lines.extend(_topic_lines(topics, row, result))
        if several:
            lines.append(_line("runid", "all", tag))
        lines.extend(_all_lines(topics, result))
    return "".join(line + "\n" for line in lines)


def _line(measure: str, topic: str, value: int | float | str) -> str:
    if isinstance(value, float):
        text = f"{value:6.4f}"
    else:
        text = str(value)
    return f"{measure:<22}\t{topic}\t{text}"


def _measures(result: RecallResult) -> Iterator[tuple[str, str]]:
    """(trec_eval name, per-topic column) of each measure, in trec_eval's order."""
    yield "num_ret", "num_ret"
    yield "num_rel", "num_rel"
    yield "num_rel_ret", "num_rel_ret"
    for family, column in TREC_FAMILIES:
        for k in result.options.ks:
            yield f"{family}_{k}", f"{column}@{k}"


def _topic_lines(topics: Columns, row: int, result: RecallResult) -> Iterator[str]:
    for name, column in _measures(result):
        yield _line(name, str(topics["topic"][row]), _typed(name, topics[column][row]))


def _all_lines(topics: Columns, result: RecallResult) -> Iterator[str]:
    count = len(topics["topic"])
    for name, column in _measures(result):
        if name == "num_rel" and result.options.complete:
            yield _line(name, "all", result.positive_lines)
        elif name.startswith("num_"):
            yield _line(name, "all", int(topics[column].sum()))
        else:
            yield _line(name, "all", trec_mean(topics[column], count))


def _typed(name: str, value: np.generic) -> int | float:
    return int(value) if name.startswith("num_") else float(value)
