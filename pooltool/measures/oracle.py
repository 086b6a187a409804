"""Adapters to other implementations, used to check ours (tests, bench).

The only module that renames pooltool's TREC columns to the names other
tools use (pytrec_eval's ``{qid: {docid: value}}`` dicts, ir_measures'
``query_id/doc_id/relevance/score``). pytrec_eval-terrier and ir_measures are
test dependencies; they are imported when called.

Known differences, which the checks allow for:

* pytrec_eval embeds trec_eval 9.x and stores scores as C ``float``: scores
  that differ only beyond float precision tie there, not here; it has no
  ``unj``; and it skips a qrels topic the run lacks (pooltool's default, not
  its ``complete`` mode, where such a topic scores 0 and counts);
* ir_measures' ``Judged@k`` orders by score descending and docno
  *ascending* (``providers/judged_provider.py``), so it can differ from
  pooltool's ``judged@k`` when scores tie across the cutoff.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd


def pytrec_eval_scores(
    run: pd.DataFrame, qrels: pd.DataFrame, ks: Sequence[int], level: int = 1
) -> pd.DataFrame:
    """pytrec_eval-terrier's per-topic values for one run, in pooltool's column names.

    :param run: one run (read_run columns; a single run tag).
    :param qrels: read_qrels columns.
    :param ks: cutoffs for recall and P.
    :param level: trec_eval ``-l``.
    :returns: one row per topic pytrec_eval scored, columns ``topic, num_ret,
        num_rel, num_rel_ret`` and ``recall@k``, ``P@k`` per k.
    """
    import pytrec_eval

    cut = ",".join(str(k) for k in ks)
    evaluator = pytrec_eval.RelevanceEvaluator(
        _nested(qrels, "grade", int),
        {f"recall.{cut}", f"P.{cut}", "num_rel_ret", "num_ret", "num_rel"},
        relevance_level=level,
    )
    scores = evaluator.evaluate(_nested(run, "score", float))
    rows = []
    for topic, values in scores.items():
        row: dict[str, object] = {"topic": topic}
        for name in ("num_ret", "num_rel", "num_rel_ret"):
            row[name] = int(values[name])
        for k in ks:
            row[f"recall@{k}"] = values[f"recall_{k}"]
            row[f"P@{k}"] = values[f"P_{k}"]
        rows.append(row)
    columns = ["topic", "num_ret", "num_rel", "num_rel_ret"]
    columns += [f"{m}@{k}" for k in ks for m in ("recall", "P")]
    return pd.DataFrame(rows, columns=columns).sort_values("topic", kind="stable").reset_index(
        drop=True)


def ir_measures_judged(run: pd.DataFrame, qrels: pd.DataFrame, ks: Sequence[int]) -> pd.DataFrame:
    """ir_measures' ``Judged@k`` per topic for one run.

    :returns: columns ``topic`` and ``judged@k`` per k, one row per topic
        that is in both the run and the qrels.
    """
    import ir_measures
    from ir_measures import Judged

    measures = [Judged @ k for k in ks]
    frame_qrels = qrels.rename(
        columns={"topic": "query_id", "docno": "doc_id", "grade": "relevance"}
    )[["query_id", "doc_id", "relevance"]]
    frame_run = run.rename(columns={"topic": "query_id", "docno": "doc_id"})[
        ["query_id", "doc_id", "score"]
    ]
    table: dict[str, dict[str, float]] = {}
    for metric in ir_measures.iter_calc(measures, frame_qrels, frame_run):
        table.setdefault(metric.query_id, {})[f"judged@{metric.measure.params['cutoff']}"] = (
            metric.value
        )
    rows = [{"topic": topic, **values} for topic, values in table.items()]
    columns = ["topic", *[f"judged@{k}" for k in ks]]
    return pd.DataFrame(rows, columns=columns).sort_values("topic", kind="stable").reset_index(
        drop=True)


def _nested(frame: pd.DataFrame, column: str, cast: type) -> dict[str, dict[str, Any]]:
    nested: dict[str, dict[str, Any]] = {}
    for topic, docno, value in zip(frame["topic"], frame["docno"], frame[column], strict=True):
        nested.setdefault(str(topic), {})[str(docno)] = cast(value)
    return nested
