"""How a change of qrels moves any measure and the ranking of runs: ``pooltool impact -m``.

:func:`pooltool.analysis.impact.qrels_impact` for any mean measure of the registry
(``map``, ``ndcg_cut.10``, ``nDCG@10``, ``bpref``; scored by
:func:`pooltool.measures.topic_scores.topic_scores`, trec_eval 10.0's values) in
place of Recall@k. Topic sets, the split of each run's change into the part of
changed judgments and the part of the changed topic set, the topics that moved
most and the two rankings' Kendall's tau-b and tau_ap follow that module's
docstring, with ``score`` for ``recall`` in every column name.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from pooltool.analysis.impact import DEFAULT_TOP, per_run_changes, topics_moved, topics_overall
from pooltool.analysis.stability import RankingComparison, compare_rankings
from pooltool.errors import NothingToScore
from pooltool.measures.topic_scores import MeasureScores, ranked_lines, topic_scores
from pooltool.records import is_relevant, topic_key

PER_RUN_COLUMNS = ["run_tag", "measure", "score_a", "score_b", "score_change",
                   "score_change_judgments", "score_change_topics", "unjudged_a", "unjudged_b",
                   "unjudged_change", "rank_a", "rank_b", "rank_change", "num_q_a", "num_q_b"]


@dataclass(frozen=True)
class MeasureImpact:
    """What :func:`measure_impact` returns (the fields of
    :class:`~pooltool.analysis.impact.ImpactResult`, ``score`` for ``recall``).

    :ivar per_run: one row per run, best under A first: :data:`PER_RUN_COLUMNS`
        (``unjudged``: the mean share of unjudged documents in the ranks the measure
        looks at).
    :ivar topics_moved: ``run_tag, topic, score_a, score_b, change``.
    :ivar topics_overall: ``topic, score_a, score_b, change, abs_change, runs_moved,
        num_rel_a, num_rel_b``.
    :ivar ranking: the rankings by the measure under A and B compared.
    :ivar scores_a, scores_b: the per-topic scores under A and B.
    :ivar topics_only_a, topics_only_b: the topics of one qrels only.
    """

    per_run: pd.DataFrame
    topics_moved: pd.DataFrame
    topics_overall: pd.DataFrame
    ranking: RankingComparison
    scores_a: MeasureScores
    scores_b: MeasureScores
    measure: str
    level: int
    complete: bool
    top: int
    topics_only_a: list[str]
    topics_only_b: list[str]


def measure_impact(runs: pd.DataFrame, qrels_a: pd.DataFrame, qrels_b: pd.DataFrame,
                   measure: str, level: int = 1, complete: bool = False,
                   top: int = DEFAULT_TOP) -> MeasureImpact:
    """Score ``runs`` with ``measure`` under qrels A and B and say how much each run and
    topic moved.

    :param runs: run lines ``run_tag, topic, docno, score`` and perhaps ``trec_rank``
        (trusted as the trec_eval order).
    :param qrels_a: the reference qrels ``topic, docno, grade``; ``qrels_b`` the other.
    :param measure: one mean measure, trec_eval's or ir_measures' spelling.
    :returns: a :class:`MeasureImpact`.
    :raises InvalidArgument: the measure is unknown, gives several values or is not a mean.
    :raises NothingToScore: a run shares no topic with qrels A or B (and not ``complete``).
    """
    lines = ranked_lines(runs)  # ordered once for both evaluations
    scores_a = _scored("A", lines, qrels_a, measure, level, complete)
    scores_b = _scored("B", lines, qrels_b, measure, level, complete)
    a, b = (s.summary.set_index("run_tag") for s in (scores_a, scores_b))
    ranking = compare_rankings(a["value"], b["value"])
    pairs = scores_a.per_topic.merge(scores_b.per_topic, on=["run_tag", "topic"],
                                     suffixes=("_a", "_b"))
    pairs = pairs.rename(columns={"value_a": "score_a", "value_b": "score_b"})
    pairs["change"] = pairs["score_b"] - pairs["score_a"]
    pairs["num_rel_a"] = pairs["topic"].map(_num_rel(qrels_a, level)).fillna(0).astype("int64")
    pairs["num_rel_b"] = pairs["topic"].map(_num_rel(qrels_b, level)).fillna(0).astype("int64")
    topics_a, topics_b = ({str(t) for t in q["topic"].unique()} for q in (qrels_a, qrels_b))
    return MeasureImpact(
        _per_run(a, b, ranking, pairs, measure), topics_moved(pairs, ranking, top, "score"),
        topics_overall(pairs, top, "score"), ranking, scores_a, scores_b, measure, level,
        complete, top, sorted(topics_a - topics_b, key=topic_key),
        sorted(topics_b - topics_a, key=topic_key))


def _scored(side: str, runs: pd.DataFrame, qrels: pd.DataFrame, measure: str, level: int,
            complete: bool) -> MeasureScores:
    try:
        return topic_scores(runs, qrels, measure, level, complete, ranked=True)
    except NothingToScore as exc:
        raise NothingToScore(f"qrels {side}: {exc}") from exc


def _num_rel(qrels: pd.DataFrame, level: int) -> pd.Series:
    return qrels[is_relevant(qrels["grade"], level)].groupby("topic").size()


def _per_run(a: pd.DataFrame, b: pd.DataFrame, ranking: RankingComparison, pairs: pd.DataFrame,
             measure: str) -> pd.DataFrame:
    columns = {"score": "value", "unjudged": "unjudged", "num_q": "num_q"}
    frame = per_run_changes(a, b, ranking, pairs, columns, "score")
    frame["measure"] = measure
    return frame[PER_RUN_COLUMNS]
