"""How a change of qrels moves Recall@k, unjudged@k and the ranking of runs.

The Python side of ``pooltool impact``. :func:`qrels_impact` scores the same
runs against qrels A (the reference, e.g. an official round) and qrels B (a
new round, a second assessor, a correction) with
:func:`pooltool.measures.evaluate_recall`, once per qrels on the one parsed
runs frame, and compares:

* per run, Recall@k, unjudged@k and P@k under A and under B (trec_eval 10.0
  semantics, see :mod:`pooltool.measures.recall`), and the rank of the run
  by Recall@k on each side;
* per run and topic, the topics whose recall@k moved most;
* the two rankings, with Kendall's tau-b (Kendall 1938, with the tie
  correction of Kendall 1945) and tau_ap (Yilmaz, Aslam and Robertson 2008,
  "A new rank correlation coefficient for information retrieval", SIGIR),
  from :func:`pooltool.analysis.stability.compare_rankings`.

Topic sets follow :func:`~pooltool.measures.evaluate_recall` on each side:
only topics of that qrels are scored; a qrels topic absent from a run is left
out of the run's mean, or scores 0 and counts with ``complete`` (trec_eval
``-c``). A topic in only one of the two qrels is therefore scored on one side
only: it counts in that side's mean (``num_q_a`` / ``num_q_b`` say how many
topics each mean has) but has no per-topic change. Such topics are named
(:attr:`ImpactResult.topics_only_a`, ``topics_only_b``), and each run's mean
change is split in two parts that sum to it exactly::

    recall_change            = mean_B(T_B) - mean_A(T_A)
    recall_change_judgments  = mean over T_A & T_B of (recall_B(t) - recall_A(t))
    recall_change_topics     = recall_change - recall_change_judgments
                             = [mean_B(T_B) - mean_B(T_A & T_B)]
                               - [mean_A(T_A) - mean_A(T_A & T_B)]

with T_A, T_B the topics in the run's mean under A and B (the qrels topics
the run has, every qrels topic with ``complete``) and mean_X(T) the mean
Recall@k under X over T: the judgments part is what changed judgments did on
the topics both sides score, the topic-set part what adding and dropping
topics did to the mean. With no topic scored on both sides the judgments part
is 0 and the whole change is the topic set's.

In Python::

    from pooltool.analysis.impact import qrels_impact
    result = qrels_impact(runs, qrels_a, qrels_b, k=100)
    result.per_run        # one row per run
    result.topics_moved   # the topics that moved most, per run
    result.kendall_tau, result.tau_ap, result.largest_rank_change

CLI reference: ``pooltool impact --help``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pooltool.analysis.stability import RankingComparison, compare_rankings
from pooltool.errors import InvalidArgument, NothingToScore
from pooltool.measures.recall import RecallResult, evaluate_recall
from pooltool.records import is_judged, topic_key

#: Topics listed per run (and over all runs) by default.
DEFAULT_TOP = 5
PER_RUN_COLUMNS = [
    "run_tag", "recall_a", "recall_b", "recall_change", "recall_change_judgments",
    "recall_change_topics", "unjudged_a", "unjudged_b", "unjudged_change", "P_a", "P_b",
    "rank_a", "rank_b", "rank_change", "num_q_a", "num_q_b",
]
MOVED_COLUMNS = ["run_tag", "topic", "recall_a", "recall_b", "change"]
OVERALL_COLUMNS = ["topic", "recall_a", "recall_b", "change", "abs_change", "runs_moved",
                   "num_rel_a", "num_rel_b"]


@dataclass(frozen=True)
class ImpactResult:
    """What :func:`qrels_impact` returns. Every recall, P and unjudged value is a
    fraction 0..1 (a change is a difference of two: -1..1); ranks are 1-based.

    :ivar per_run: one row per run, in order of ``rank_a`` (best under A
        first): ``run_tag``; ``recall_a``, ``recall_b`` (mean Recall@k under
        A and B: trec_eval's ``recall_k all``) and ``recall_change = recall_b
        - recall_a``, split into ``recall_change_judgments`` (the mean change
        over the topics scored on both sides) and ``recall_change_topics``
        (the rest: what the changed topic set did; module docstring);
        ``unjudged_a``, ``unjudged_b``, ``unjudged_change``
        (mean unjudged@k, trec_eval's ``unj_k``); ``P_a``, ``P_b`` (mean
        P@k); ``rank_a``, ``rank_b`` (rank by Recall@k, ties broken by run
        tag) and ``rank_change = rank_b - rank_a`` (negative: moved up);
        ``num_q_a``, ``num_q_b`` (topics in each mean).
    :ivar topics_moved: the ``top`` topics of each run whose recall@k moved
        most, over topics scored under both A and B with a non-zero change:
        ``run_tag, topic, recall_a, recall_b, change`` (``recall_b -
        recall_a``), sorted by ``|change|`` descending, then run (as in
        ``per_run``), then topic. Empty when no topic moved.
    :ivar topics_overall: the ``top`` topics that moved most over all runs:
        ``topic``; the means of ``recall_a``, ``recall_b``, ``change`` and
        ``abs_change`` (``|change|``) over the runs scored on that topic under
        both A and B (moves up and down cancel in ``change``, not in
        ``abs_change``); ``runs_moved`` (runs whose recall@k changed on it);
        ``num_rel_a``, ``num_rel_b`` (relevant documents, grade >= level).
        Sorted by ``abs_change`` descending, then ``runs_moved`` descending,
        then topic; only topics where some run moved.
    :ivar topics_only_a: the topics of qrels A that qrels B lacks, in
        :func:`~pooltool.records.topic_key` order.
    :ivar topics_only_b: the topics of qrels B that qrels A lacks.
    :ivar ranking: the comparison of the rankings by Recall@k under A and B.
    :ivar recall_a: the full :class:`~pooltool.measures.RecallResult` under A
        (per-topic rows, missing and ignored topics).
    :ivar recall_b: the same under B.
    :ivar k: the cutoff.
    :ivar level: relevant means grade >= level.
    :ivar complete: trec_eval ``-c`` was on.
    :ivar top: topics listed per run and overall.
    """

    per_run: pd.DataFrame
    topics_moved: pd.DataFrame
    topics_overall: pd.DataFrame
    ranking: RankingComparison
    recall_a: RecallResult
    recall_b: RecallResult
    k: int
    level: int
    complete: bool
    top: int
    topics_only_a: list[str]
    topics_only_b: list[str]

    @property
    def kendall_tau(self) -> float:
        """Kendall's tau-b of Recall@k under A and B; NaN with < 2 runs or a constant side."""
        return self.ranking.kendall_tau

    @property
    def tau_ap(self) -> float:
        """tau_ap of the ranking under B against the ranking under A; NaN with < 2 runs."""
        return self.ranking.tau_ap

    @property
    def largest_rank_change(self) -> int:
        """The largest ``|rank_change|`` over runs (0 when no run moved)."""
        return self.ranking.largest_rank_change

    @property
    def largest_rank_change_runs(self) -> list[str]:
        """The runs whose ``|rank_change|`` is the largest, in order of ``rank_a``;
        empty when no run changed rank."""
        if self.largest_rank_change == 0:
            return []
        moved = self.per_run["rank_change"].abs() == self.largest_rank_change
        return [str(tag) for tag in self.per_run.loc[moved, "run_tag"]]


def qrels_impact(
    runs: pd.DataFrame,
    qrels_a: pd.DataFrame,
    qrels_b: pd.DataFrame,
    k: int = 100,
    level: int = 1,
    complete: bool = False,
    top: int = DEFAULT_TOP,
    ranked: bool = False,
) -> ImpactResult:
    """Score ``runs`` under qrels A and qrels B and say how much each run and topic moved.

    The runs frame is scored twice, once per qrels, never read again.

    :param runs: run lines, columns ``run_tag, topic, docno`` (str) and
        ``score`` (float), as :func:`~pooltool.formats.run.read_run` returns;
        several run tags are several runs.
    :param qrels_a: the reference qrels, columns ``topic, docno, grade``
        (as :func:`~pooltool.formats.qrels.read_qrels` or
        ``JudgmentStore.qrels`` give).
    :param qrels_b: the other qrels, same columns.
    :param k: the cutoff of Recall@k, unjudged@k and P@k (>= 1).
    :param level: relevant means grade >= ``level`` (trec_eval ``-l``, >= 0).
    :param complete: trec_eval ``-c``: a qrels topic absent from a run scores
        0 and counts in that run's mean.
    :param top: topics to list per run and over all runs (>= 1).
    :param ranked: ``runs`` carry ``trec_rank``, their trec_eval order
        (:func:`pooltool.ranking.trec_ranks`), trusted: a caller scoring the same runs
        under several qrels orders them once.
    :returns: an :class:`ImpactResult`.
    :raises InvalidArgument: a bad ``k``, ``level`` or ``top``; and its
        :class:`~pooltool.errors.FrameError`: missing columns, ids that are not
        strings, NaN scores, an empty runs frame.
    :raises DuplicateDocno: a docno repeated within a topic of a run.
    :raises NothingToScore: a run shares no topic with qrels A or with qrels
        B (and not ``complete``); the message says which.
    """
    top = _check_top(top)
    result_a = _evaluate("A", runs, qrels_a, k, level, complete, ranked)
    result_b = _evaluate("B", runs, qrels_b, k, level, complete, ranked)
    k = result_a.options.ks[0]
    ranking = compare_rankings(_summary(result_a, k)["recall"], _summary(result_b, k)["recall"])
    pairs = _topic_pairs(result_a, result_b, k)
    topics_a = {str(t) for t in qrels_a["topic"].unique()}
    topics_b = {str(t) for t in qrels_b["topic"].unique()}
    return ImpactResult(
        per_run=_per_run(result_a, result_b, ranking, k, pairs),
        topics_moved=topics_moved(pairs, ranking, top),
        topics_overall=topics_overall(pairs, top),
        ranking=ranking, recall_a=result_a, recall_b=result_b,
        k=k, level=result_a.options.level, complete=bool(complete), top=top,
        topics_only_a=sorted(topics_a - topics_b, key=topic_key),
        topics_only_b=sorted(topics_b - topics_a, key=topic_key),
    )


def _check_top(top: object) -> int:
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise InvalidArgument(f"top must be an integer >= 1, got {top!r}")
    return int(top)


def _evaluate(side: str, runs: pd.DataFrame, qrels: pd.DataFrame, k: int, level: int,
              complete: bool, ranked: bool) -> RecallResult:
    try:
        return evaluate_recall(runs, qrels, ks=[k], level=level, complete=complete,
                               ranked=ranked)
    except NothingToScore as exc:
        raise NothingToScore(f"qrels {side}: {exc}") from exc


def _summary(result: RecallResult, k: int) -> pd.DataFrame:
    """The summary row of each run at cutoff ``k``, indexed by run tag, in input order."""
    return result.summary[result.summary["k"] == k].set_index("run_tag")


def _per_run(result_a: RecallResult, result_b: RecallResult, ranking: RankingComparison,
             k: int, pairs: pd.DataFrame) -> pd.DataFrame:
    a, b = _summary(result_a, k), _summary(result_b, k)
    columns = {"recall": "recall", "unjudged": "unjudged", "P": "P", "num_q": "num_q"}
    return per_run_changes(a, b, ranking, pairs, columns, "recall")[PER_RUN_COLUMNS]


def per_run_changes(a: pd.DataFrame, b: pd.DataFrame, ranking: RankingComparison,
                    pairs: pd.DataFrame, columns: dict[str, str], score: str) -> pd.DataFrame:
    """Each run's summary under qrels A and B side by side, and its score change split in
    two: the part of the topics both qrels score (the mean of ``pairs``' per-topic
    changes) and the rest (topics only one of them scores).

    :param a, b: one summary row per run tag (index), under A and under B.
    :param ranking: the two rankings compared; its ``ranks`` give the row order.
    :param pairs: ``run_tag``, ``change``: per-topic changes on the topics both score.
    :param columns: output name -> summary column; each gives ``NAME_a`` and ``NAME_b``
        (``num_q`` and the ranks as integers).
    :param score: the output name whose change is split: ``SCORE_change``,
        ``SCORE_change_judgments``, ``SCORE_change_topics``; ``unjudged_change`` too.
    :returns: one row per run, best under A first, the rank columns and those above.
    """
    frame = ranking.ranks[["run_tag", "rank_a", "rank_b", "rank_change"]].copy()
    tags = frame["run_tag"]
    for name, column in columns.items():
        frame[f"{name}_a"] = a.loc[tags, column].to_numpy()
        frame[f"{name}_b"] = b.loc[tags, column].to_numpy()
    frame[f"{score}_change"] = frame[f"{score}_b"] - frame[f"{score}_a"]
    shared = pairs.groupby("run_tag")["change"].mean()
    frame[f"{score}_change_judgments"] = tags.map(shared).fillna(0.0).to_numpy(dtype=np.float64)
    frame[f"{score}_change_topics"] = (frame[f"{score}_change"]
                                       - frame[f"{score}_change_judgments"])
    frame["unjudged_change"] = frame["unjudged_b"] - frame["unjudged_a"]
    for column in ("rank_a", "rank_b", "rank_change", "num_q_a", "num_q_b"):
        frame[column] = frame[column].astype("int64")
    return frame.reset_index(drop=True)


def _topic_pairs(result_a: RecallResult, result_b: RecallResult, k: int) -> pd.DataFrame:
    """Per run x topic scored on both sides: recall@k and num_rel under A and B, and the change."""
    column = f"recall@{k}"
    sides = [
        result.per_topic[["run_tag", "topic", column, "num_rel"]].rename(
            columns={column: f"recall_{side}", "num_rel": f"num_rel_{side}"})
        for side, result in (("a", result_a), ("b", result_b))
    ]
    pairs = sides[0].merge(sides[1], on=["run_tag", "topic"], how="inner")
    pairs["change"] = pairs["recall_b"] - pairs["recall_a"]
    return pairs


def topics_moved(pairs: pd.DataFrame, ranking: RankingComparison, top: int,
                 value: str = "recall") -> pd.DataFrame:
    """The ``top`` topics of each run that moved most (:attr:`ImpactResult.topics_moved`).

    :param pairs: per run x topic scored on both sides: ``run_tag, topic, <value>_a,
        <value>_b, change``.
    :param value: the columns' prefix (``recall``; ``score`` for any measure).
    """
    moved = pairs[pairs["change"] != 0].copy()
    order = {tag: i for i, tag in enumerate(ranking.ranks["run_tag"])}
    moved["_run"] = moved["run_tag"].map(order)
    moved["_size"] = moved["change"].abs()
    moved = moved.sort_values(["_run", "_size", "topic"], ascending=[True, False, True],
                              kind="mergesort")
    moved = moved.groupby("_run", sort=False).head(top)
    moved = moved.sort_values(["_size", "_run", "topic"], ascending=[False, True, True],
                              kind="mergesort")
    return moved[[_named(c, value) for c in MOVED_COLUMNS]].reset_index(drop=True)


def topics_overall(pairs: pd.DataFrame, top: int, value: str = "recall") -> pd.DataFrame:
    """The ``top`` topics that moved most over all runs (:attr:`ImpactResult.topics_overall`).

    :param pairs: as :func:`topics_moved` takes them, with ``num_rel_a, num_rel_b``.
    :param value: the columns' prefix.
    """
    pairs = pairs.assign(runs_moved=(pairs["change"] != 0).astype("int64"),
                         abs_change=pairs["change"].abs())
    grouped = pairs.groupby("topic", sort=True).agg(
        **{f"{value}_a": (f"{value}_a", "mean"), f"{value}_b": (f"{value}_b", "mean")},
        change=("change", "mean"), abs_change=("abs_change", "mean"),
        runs_moved=("runs_moved", "sum"),
        num_rel_a=("num_rel_a", "first"), num_rel_b=("num_rel_b", "first"),
    ).reset_index()
    grouped = grouped[grouped["runs_moved"] > 0]
    grouped = grouped.sort_values(["abs_change", "runs_moved", "topic"],
                                  ascending=[False, False, True], kind="mergesort")
    return grouped[[_named(c, value) for c in OVERALL_COLUMNS]].head(top).reset_index(drop=True)


def _named(column: str, value: str) -> str:
    """``recall_a`` -> ``<value>_a`` (the other columns as they are)."""
    return value + column[len("recall"):] if column.startswith("recall_") else column


def first_k_lines(runs: pd.DataFrame, k: int) -> pd.DataFrame:
    """The lines of ``runs`` that Recall@k, P@k and unjudged@k read: each run's first
    ``k`` lines of each topic by ``trec_rank``. Rank 1 of every topic is kept, so each
    run keeps its topics (and the missing and ignored topics stay the same); the runs
    come in the order they first appear in ``runs``, as :func:`qrels_impact` lists
    them. ``num_ret`` of a result scored on them counts only these lines.

    :param runs: run lines with ``run_tag`` and ``trec_rank``
        (:func:`pooltool.ranking.trec_ranks`), any row order.
    :param k: the cutoff (>= 1).
    :returns: the kept rows, grouped by run in order of first appearance, each run's
        rows in their order in ``runs``; the index is reset.
    """
    tags = runs["run_tag"].to_numpy(dtype=object)
    # the runs in order of first appearance, from the rows where the tag changes (a run
    # file's lines come together: hashing every line's tag took 50 ms on 360,000 lines)
    changes = np.flatnonzero(np.r_[True, tags[1:] != tags[:-1]])
    first_seen = {tag: at for at, tag in enumerate(pd.unique(tags[changes]))}
    kept = np.flatnonzero(runs["trec_rank"].to_numpy() <= k)
    codes, kept_tags = pd.factorize(tags[kept])
    seen = np.array([first_seen[tag] for tag in kept_tags], dtype=np.int64)[codes]
    return runs.take(kept[np.argsort(seen, kind="stable")]).reset_index(drop=True)


def both_judged(qrels_a: pd.DataFrame, qrels_b: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Qrels A and B cut to the (topic, docno) pairs judged (grade >= 0) in both, so that
    an impact on them measures disagreement alone, not coverage (e.g. a machine that
    judged more documents than the people).

    :param qrels_a: columns ``topic, docno, grade`` (others are kept).
    :param qrels_b: the same.
    :returns: ``(A', B')``, each the rows of its side whose pair is judged in both, in
        the side's order.
    """
    keys = ["topic", "docno"]
    judged_a = qrels_a.loc[is_judged(qrels_a["grade"]).to_numpy(), keys]
    judged_b = qrels_b.loc[is_judged(qrels_b["grade"]).to_numpy(), keys]
    shared = judged_a.merge(judged_b, on=keys).drop_duplicates()
    return (qrels_a.merge(shared, on=keys)[qrels_a.columns],
            qrels_b.merge(shared, on=keys)[qrels_b.columns])
