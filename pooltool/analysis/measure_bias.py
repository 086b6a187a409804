"""Pool bias of any measure: leave-one-run-out (or leave-one-group-out) by re-scoring.

The test of :mod:`pooltool.analysis.bias` (Zobel 1998; Buckley et al. 2007) for
any measure of the registry that is a mean over topics (``map``, ``ndcg_cut.10``,
``nDCG@10``, ``bpref``, ``P.10``; :func:`pooltool.measures.topic_scores.one_measure`):
for each group of runs that built the depth-D pool, the qrels lose the judgments
of the (topic, docno) pairs only that group pooled
(:func:`~pooltool.analysis.bias.qrels_without_owner`), and the group's runs are
scored again on those reduced qrels, whole, with trec_eval 10.0's definition
(:func:`pooltool.measures.topic_scores.topic_scores`). Judged documents outside
the pool stay in the qrels. A topic whose every judgment was unique to the group
leaves the reduced qrels, and so the leave-out mean, as it would for trec_eval.

Measures like AP and nDCG are not counts of relevant documents, so unlike
Recall@k nothing is derived from the full-qrels score: each group is one more
evaluation of its runs.

The summary figures are those of :meth:`pooltool.analysis.bias.BiasResult.overall`
with the measure in place of Recall@k: MAE (mean |drop|), SRE on Lipani et al.'s
ranking, Kendall's tau-b and tau_ap of the full against the leave-out ranking.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pooltool.analysis.bias import (
    contributors,
    pair_owners,
    qrels_without_owner,
    reuse_verdict,
    top_ranks,
    unique_pairs,
    with_rank_changes,
)
from pooltool.analysis.stability import RankingComparison, compare_rankings
from pooltool.errors import PooltoolError
from pooltool.measures.topic_scores import MeasureScores, one_measure, ranked_lines, topic_scores
from pooltool.records import is_relevant

PER_RUN_COLUMNS = ["run_tag", "group", "measure", "score", "score_loo", "drop", "drop_rel",
                   "unique_pooled", "unique_relevant", "unjudged", "unjudged_loo", "rank",
                   "rank_loo", "rank_change"]


@dataclass(frozen=True)
class MeasureBias:
    """Leave-one-out results of one measure.

    :ivar per_run: one row per contributing run, by full-qrels score (ties by run
        tag): ``run_tag, group, measure`` (as asked for), ``score`` (full qrels,
        trec_eval's ``all``), ``score_loo`` (its group's unique judgments removed),
        ``drop`` (score - score_loo), ``drop_rel`` (drop / score, NaN when score is
        0), ``unique_pooled``, ``unique_relevant`` (pairs only its group pooled, and
        those judged relevant), ``unjudged``, ``unjudged_loo`` (the mean share of
        unjudged documents in the ranks the measure looks at, before and after),
        ``rank, rank_loo, rank_change`` (as in
        :class:`~pooltool.analysis.bias.BiasResult`).
    :ivar per_topic: one row per run x topic: ``run_tag, topic, score, score_loo,
        unjudged, unjudged_loo`` (NaN on the leave-out side for a topic the reduced
        qrels lost).
    :ivar ranking: full-qrels ranking against the ranking by every run's leave-out score.
    :ivar measure: the measure as asked for (``-m``); ``name`` its trec_eval printed name.
    :ivar depth, level: the pool depth and relevance threshold.
    """

    per_run: pd.DataFrame
    per_topic: pd.DataFrame
    ranking: RankingComparison
    measure: str
    name: str
    depth: int
    level: int

    def overall(self) -> dict[str, object]:
        """Summary over runs: ``measure``, ``runs``, ``depth``, ``mae`` (mean |drop|),
        ``max_drop``, ``max_drop_run``, ``sre``, ``max_rank_change``, ``kendall_tau``,
        ``tau_ap``, ``mean_unjudged_loo``, ``max_unjudged_loo``."""
        runs = self.per_run
        worst = runs.loc[runs["drop"].idxmax()]
        return {
            "measure": self.measure,
            "runs": len(runs),
            "depth": self.depth,
            "mae": float(runs["drop"].abs().mean()),
            "max_drop": float(worst["drop"]),
            "max_drop_run": str(worst["run_tag"]),
            "sre": int(runs["rank_change"].abs().sum()),
            "max_rank_change": int(runs["rank_change"].abs().max()),
            "kendall_tau": self.ranking.kendall_tau,
            "tau_ap": self.ranking.tau_ap,
            "mean_unjudged_loo": float(runs["unjudged_loo"].mean()),
            "max_unjudged_loo": float(runs["unjudged_loo"].max()),
        }


def leave_one_out_measure(runs: pd.DataFrame, qrels: pd.DataFrame, depth: int, measure: str,
                          level: int = 1, groups: dict[str, str] | None = None,
                          complete: bool = False, pool: pd.DataFrame | None = None
                          ) -> MeasureBias:
    """Leave-one-run-out (or leave-one-group-out) of ``measure`` over the runs that built
    a depth-``depth`` pool.

    :param runs: the contributing runs' lines, whole (``run_tag, topic, docno,
        score``; the rank is ignored; the measure may look at every rank), and perhaps
        ``trec_rank`` (trusted as the trec_eval order, :func:`ranked_lines`).
    :param qrels: ``topic, docno, grade``.
    :param depth: the pool depth D.
    :param measure: trec_eval's or ir_measures' spelling of one mean measure.
    :param groups: run tag -> group (e.g. team); runs not in it are their own group.
    :param complete: trec_eval ``-c``.
    :param pool: :func:`~pooltool.analysis.bias.top_ranks` of ``runs`` at ``depth``, if
        the caller has it (the rows of these runs of a larger pool's, index reset; not
        checked again), else None.
    :returns: a :class:`MeasureBias`.
    :raises InvalidArgument: the measure is unknown, gives several values or is not a mean.
    :raises PooltoolError: a depth below 1, fewer than two runs, a group mapping naming
        runs not given, or qrels with no relevant judgment at ``level``.
    """
    one_measure(measure)
    if depth < 1:
        raise PooltoolError(f"pool depth must be at least 1 (got {depth})")
    # ordered once for the 1 + groups evaluations; the pool as before, in order_run's order
    lines = ranked_lines(runs)
    if pool is None:
        pool = top_ranks(lines[["run_tag", "topic", "docno", "score"]], depth)
    group_of = contributors(pool, qrels, level, groups)
    unique = unique_pairs(pool, depth, group_of, qrels)
    full = topic_scores(lines, qrels, measure, level, complete, ranked=True)
    owners = pair_owners(qrels, unique)
    left_out = [_scored_without(lines, qrels, owners, group_of, group, measure, level, complete)
                for group in dict.fromkeys(group_of.values())]
    loo = pd.concat([scores.per_topic for scores in left_out], ignore_index=True)
    loo_means = pd.concat([scores.summary for scores in left_out]).set_index("run_tag")
    per_topic = full.per_topic.merge(loo, on=["run_tag", "topic"], how="left",
                                     suffixes=("", "_loo"))
    per_topic = per_topic.rename(columns={"value": "score", "value_loo": "score_loo"})
    per_run = _per_run(full.summary.set_index("run_tag"), loo_means, unique, group_of, level,
                       measure)
    ranking = compare_rankings(per_run.set_index("run_tag")["score"],
                               per_run.set_index("run_tag")["score_loo"])
    return MeasureBias(per_run, per_topic[["run_tag", "topic", "score", "score_loo", "unjudged",
                                           "unjudged_loo"]],
                       ranking, measure, full.name, depth, level)


def _scored_without(lines: pd.DataFrame, qrels: pd.DataFrame, owners: np.ndarray,
                    group_of: dict[str, str], group: str, measure: str, level: int,
                    complete: bool) -> MeasureScores:
    """The group's runs scored on the qrels less the pairs only the group pooled
    (``owners``: :func:`~pooltool.analysis.bias.pair_owners`)."""
    reduced = qrels_without_owner(qrels, owners, group)
    # isin on the group's tags: Series.map with a dict is a slow index lookup per line
    mine = lines[lines["run_tag"].isin([tag for tag, owner in group_of.items() if owner == group])]
    return topic_scores(mine, reduced, measure, level, complete, ranked=True)


def _per_run(full: pd.DataFrame, loo: pd.DataFrame, unique: pd.DataFrame,
             group_of: dict[str, str], level: int, measure: str) -> pd.DataFrame:
    tags = list(group_of)
    frame = pd.DataFrame({"run_tag": tags, "group": [group_of[t] for t in tags],
                          "measure": measure,
                          "score": full.loc[tags, "value"].to_numpy(dtype=np.float64),
                          "score_loo": loo.loc[tags, "value"].to_numpy(dtype=np.float64),
                          "unjudged": full.loc[tags, "unjudged"].to_numpy(dtype=np.float64),
                          "unjudged_loo": loo.loc[tags, "unjudged"].to_numpy(dtype=np.float64)})
    owners = unique.groupby("owner").size()
    relevant = unique[is_relevant(unique["grade"], level)].groupby("owner").size()
    frame["unique_pooled"] = frame["group"].map(owners).fillna(0).astype("int64")
    frame["unique_relevant"] = frame["group"].map(relevant).fillna(0).astype("int64")
    frame["drop"] = frame["score"] - frame["score_loo"]
    frame["drop_rel"] = frame["drop"] / frame["score"].where(frame["score"] > 0)
    frame = with_rank_changes(frame, "score", "score_loo")
    # the competition rank by full-qrels score orders the systems, ties by run tag
    order = np.lexsort((frame["run_tag"].to_numpy(dtype=str), frame["rank"].to_numpy()))
    return frame.iloc[order][PER_RUN_COLUMNS].reset_index(drop=True)


NEW_RUN_COLUMNS = ["run_tag", "measure", "score", "low", "high", "unjudged", "verdict",
                   "sentence"]


def new_run_scores(new_runs: pd.DataFrame, qrels: pd.DataFrame, bias: MeasureBias,
                   complete: bool = False) -> pd.DataFrame:
    """Runs that did not build the pool, scored with the bias's measure, its hole and a
    verdict on whether the qrels are reusable for them.

    The verdict is :class:`~pooltool.analysis.bias.NewRunReport`'s, on the measure's own
    unjudged share (of the ranks it looks at): up to the mean the leave-out runs had,
    ``reusable``; up to their largest, ``use with care``; beyond, ``not reusable``.

    :param new_runs: their lines, ``run_tag, topic, docno, score``.
    :returns: one row per run, input order: ``run_tag, measure, score`` (as judged),
        ``low, high`` (the mean hole ends: what judging its unjudged documents could
        make the score; NaN for a measure without a hole), ``unjudged``, ``verdict``,
        ``sentence``.
    """
    scores = topic_scores(new_runs, qrels, bias.measure, bias.level, complete, holes=True)
    frame = scores.summary.rename(columns={"value": "score"}).assign(measure=bias.measure)
    overall = bias.overall()
    verdicts = [_verdict(row, overall) for row in frame.to_dict("records")]
    frame["verdict"] = [v for v, _ in verdicts]
    frame["sentence"] = [s for _, s in verdicts]
    return frame[NEW_RUN_COLUMNS]


def _verdict(row: dict[str, object], overall: dict[str, object]) -> tuple[str, str]:
    measure, tag = overall["measure"], row["run_tag"]
    unjudged = float(row["unjudged"])  # type: ignore[arg-type]
    mean = float(overall["mean_unjudged_loo"])  # type: ignore[arg-type]
    limit = float(overall["max_unjudged_loo"])  # type: ignore[arg-type]
    span = (f"{measure} {row['score']:.4f} as judged could be anything from {row['low']:.4f} "
            f"to {row['high']:.4f} once its unjudged documents are judged"
            if row["low"] == row["low"] else f"{measure} has no hole bound")
    seen = (f"{unjudged:.1%} of the ranks {measure} looks at are unjudged; contributing runs "
            f"left out of the pool saw {mean:.1%} on average (at most {limit:.1%}) and lost "
            f"{overall['mae']:.4f} {measure} on average")
    verdict = reuse_verdict(unjudged, overall)
    if verdict == "reusable":
        return verdict, f"The qrels look reusable for {tag}: {seen}; {span}."
    if verdict == "use with care":
        return verdict, f"Use the qrels with care for {tag}: {seen}; {span}."
    return verdict, (f"The qrels do not look reusable for {tag}: {seen}; {span}. "
                     "Judge its unjudged documents first.")
