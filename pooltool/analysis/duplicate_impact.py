"""What copies do to the scores of runs (``pooltool duplicates impact``).

* Each run's Recall@k, P@k and unjudged@k (trec_eval 10.0's ``recall_k``, ``P_k``,
  ``unj_k``; :func:`pooltool.analysis.impact.qrels_impact`) against the qrels without
  propagation (A) and with it (B): a copy of a judged document is unjudged under A,
  and has its source's grade under B.
* ``copies_at_k``: how many of each run's top k documents (trec_eval's order,
  :mod:`pooltool.ranking`) are copies of a document the run ranked above them on the
  same topic, summed over topics: a run returning the same text twice (Bernstein and
  Zobel 2005 measured what such redundancy does to evaluation).
"""

from __future__ import annotations

import pandas as pd

from pooltool.analysis.impact import qrels_impact
from pooltool.errors import NothingToScore
from pooltool.store import JudgmentStore
from pooltool.store.duplicates import check_propagate, copy_units

IMPACT_COLUMNS = ["run_tag", "recall_none", "recall_propagated", "recall_change",
                  "P_none", "P_propagated", "unjudged_none", "unjudged_propagated",
                  "rank_none", "rank_propagated", "copies_at_k"]


def copies_at_k(runs: pd.DataFrame, units: pd.DataFrame, k: int) -> pd.DataFrame:
    """Per run, the documents of its top ``k`` per topic that are copies of one ranked
    above them.

    :param runs: ``run_tag, topic, docno, trec_rank`` (1 = first in trec_eval's order).
    :param units: ``docno, unit`` (:func:`~pooltool.store.duplicates.copy_units`).
    :returns: ``run_tag, copies_at_k`` (int), one row per run tag, in tag order.
    """
    top = runs[runs["trec_rank"] <= k].merge(units, on="docno")
    repeated = top.duplicated(["run_tag", "topic", "unit"])  # each unit's first is no copy
    counts = top[repeated.to_numpy()].groupby("run_tag").size()
    tags = pd.Series(sorted(set(runs["run_tag"])), dtype=object)
    return pd.DataFrame({"run_tag": tags,
                         "copies_at_k": tags.map(counts).fillna(0).astype("int64")})


def duplicate_impact(store: JudgmentStore, k: int = 10, propagate: str = "exact",
                     level: int = 1) -> pd.DataFrame:
    """Every live run's scores without and with propagation, and its copies in the top k.

    :param k: the cutoff (>= 1).
    :param propagate: ``exact`` or ``near`` (:mod:`pooltool.store.duplicates`).
    :param level: the lowest relevant grade (trec_eval ``-l``).
    :returns: :data:`IMPACT_COLUMNS`, one row per run (best by recall without first);
        recall, P and unjudged are fractions 0..1 (means over topics), ranks 1-based.
    :raises NothingToScore: no runs, or no judgments.
    :raises InvalidArgument: ``propagate`` unknown.
    """
    check_propagate(propagate)
    tags = list(store.runs()["run_tag"])
    if not tags:
        raise NothingToScore("the store has no runs to score")
    runs = pd.concat([store.run_frame(tag) for tag in tags], ignore_index=True)
    result = qrels_impact(runs, store.qrels(propagate="none"),
                          store.qrels(propagate=propagate), k, level)
    names = {"recall_a": "recall_none", "recall_b": "recall_propagated",
             "P_a": "P_none", "P_b": "P_propagated", "unjudged_a": "unjudged_none",
             "unjudged_b": "unjudged_propagated", "rank_a": "rank_none",
             "rank_b": "rank_propagated"}
    per_run = result.per_run.rename(columns=names)
    copies = copies_at_k(runs, copy_units(store.duplicate_groups(), propagate), k)
    return per_run.merge(copies, on="run_tag", how="left")[IMPACT_COLUMNS]


__all__ = ["IMPACT_COLUMNS", "copies_at_k", "duplicate_impact"]
