"""Pool bias: the leave-one-run-out test of pool reusability, and new runs' exposure.

Zobel (1998) and Buckley et al. (2007): for each run (or group of runs, e.g.
one team's) that contributed to a depth-D pool, remove from the qrels the
judgments of the documents that only this run (group) brought into the pool,
score the run again, and see how much its score and rank drop. Runs of one
team share documents, so leave-one-run-out alone understates bias; with a
group mapping, each run loses what its whole group alone contributed
(leave-one-group-out).

The computation shares everything it can: the runs are ordered once, scored
once with the full qrels (:func:`pooltool.measures.recall.evaluate_recall`),
and each run's leave-out score is derived from that by subtracting, per
topic, its group's unique relevant documents from ``num_rel`` and those in
its top k from ``num_rel_ret@k``. Judged documents outside the pool (from
runs not given here) stay in the qrels.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
import pyarrow as pa

from pooltool.analysis.stability import RankingComparison, compare_rankings
from pooltool.errors import PooltoolError
from pooltool.formats.frames import check_qrels_frame, check_run_frame
from pooltool.measures.recall import RecallResult, evaluate_recall
from pooltool.measures.summary import trec_mean
from pooltool.ranking import order_run
from pooltool.records import is_judged, is_relevant


@dataclass(frozen=True)
class BiasResult:
    """Leave-one-out results.

    :ivar per_run: one row per contributing run, in order of full-qrels
        recall: ``run_tag, group, recall, recall_loo, recall_drop,
        recall_drop_rel`` (drop / recall, NaN when recall is 0), ``P, P_loo,
        P_drop, unique_pooled`` (pairs only its group pooled),
        ``unique_relevant`` (those judged relevant), ``unjudged, unjudged_loo``
        (unjudged@k before and after removal), ``rank, rank_loo,
        rank_change`` (its competition rank among the other runs' full-qrels
        scores, by its own full score and by its leave-out score: Lipani et
        al.'s ranking for SRE; positive is a fall; a tie takes the better
        rank, so no run tag decides one). Ties in the row order go by run tag.
        Scores are macro means over topics (trec_eval's ``all``), fractions 0..1.
    :ivar per_topic: one row per run x topic: ``run_tag, topic, num_rel,
        num_rel_loo, recall, recall_loo, P, P_loo, unjudged, unjudged_loo``.
    :ivar k, depth, level: the cutoff, pool depth and relevance threshold.
    """

    per_run: pd.DataFrame
    per_topic: pd.DataFrame
    k: int
    depth: int
    level: int

    @cached_property
    def ranking(self) -> RankingComparison:
        """Full-qrels ranking against the ranking by every run's leave-out score (the
        plain ranking, all runs' leave-out scores at once: Kendall's tau-b, tau_ap; see
        :mod:`pooltool.analysis.stability`); made when first asked for (the corrections'
        inner leave-one-outs read only the drops)."""
        runs = self.per_run.set_index("run_tag")
        return compare_rankings(runs["recall"], runs["recall_loo"])

    def overall(self) -> dict[str, object]:
        """Summary over runs: ``runs``, ``mae`` (mean |recall drop|), ``max_drop`` and
        ``max_drop_run``, ``sre`` (sum of |rank change|), ``max_rank_change``,
        ``kendall_tau``, ``tau_ap`` (full ranking vs leave-out ranking),
        ``mean_unjudged_loo`` and ``max_unjudged_loo``."""
        runs = self.per_run
        worst = runs.loc[runs["recall_drop"].idxmax()] if len(runs) else None
        return {
            "runs": len(runs),
            "k": self.k,
            "depth": self.depth,
            "mae": float(runs["recall_drop"].abs().mean()),
            "max_drop": float(worst["recall_drop"]) if worst is not None else float("nan"),
            "max_drop_run": str(worst["run_tag"]) if worst is not None else "",
            "sre": int(runs["rank_change"].abs().sum()),
            "max_rank_change": int(runs["rank_change"].abs().max()) if len(runs) else 0,
            "kendall_tau": self.ranking.kendall_tau,
            "tau_ap": self.ranking.tau_ap,
            "mean_unjudged_loo": float(runs["unjudged_loo"].mean()),
            "max_unjudged_loo": float(runs["unjudged_loo"].max()),
        }


def leave_one_out(runs: pd.DataFrame, qrels: pd.DataFrame, depth: int, k: int = 100,
                  level: int = 1, groups: dict[str, str] | None = None,
                  complete: bool = False, checked: bool = False,
                  scored: RecallResult | None = None) -> BiasResult:
    """Leave-one-run-out (or leave-one-group-out) over the runs that built a depth-``depth`` pool.

    :param runs: the contributing runs' lines (``run_tag, topic, docno,
        score``; a ``trec_rank`` column, if present, is trusted as the
        trec_eval order). Only the first ``max(k, depth)`` documents per topic
        matter, so a truncated run gives the same result.
    :param qrels: ``topic, docno, grade``.
    :param depth: the pool depth D.
    :param k: the cutoff of Recall@k, P@k and unjudged@k.
    :param groups: run tag -> group (e.g. team); runs not in it are their own group.
    :param complete: trec_eval ``-c`` for the means.
    :param checked: ``runs`` (with ``trec_rank``) and ``qrels`` are rows of frames
        already checked (:func:`~pooltool.formats.frames.check_run_frame`,
        :func:`~pooltool.formats.frames.check_qrels_frame`): not checked again (each
        group's inner leave-one-out in :mod:`pooltool.analysis.bias_correction`).
    :param scored: these runs' :func:`~pooltool.measures.recall.evaluate_recall` on
        ``qrels`` (cut at ``max(k, depth)``, ``ks=[k]``, ``level``, ``complete``), made by
        the caller with other runs' (only these runs' rows are read), or None.
    :raises PooltoolError: fewer than two runs, a depth / k below 1, a group
        mapping naming runs that are not given, or qrels with no relevant
        judgment at ``level``.
    """
    if depth < 1 or k < 1:
        raise PooltoolError(f"pool depth and k must be at least 1 (got depth {depth}, k {k})")
    cut = max(k, depth)
    top = runs[runs["trec_rank"] <= cut].reset_index(drop=True) if checked \
        else top_ranks(runs, cut)
    group_of = contributors(top, qrels, level, groups, check_qrels=not checked)
    if scored is None:
        scored = evaluate_recall(top, arrow_qrels(qrels) if checked else qrels, ks=[k],
                                 level=level, complete=complete, ranked=True)
    full = scored.per_topic
    if len(scored.run_tags) != len(group_of):
        full = full[full["run_tag"].isin(list(group_of))].reset_index(drop=True)
    unique = unique_pairs(top, depth, group_of, qrels)
    per_topic = _leave_out_topics(full, top, unique, group_of, k, level)
    per_run = _per_run(per_topic, unique, group_of, level, list(group_of))
    return BiasResult(per_run, per_topic, k, depth, level)


def arrow_qrels(qrels: pd.DataFrame) -> pa.Table:
    """Rows of a checked qrels frame (``topic, docno, grade``) as Arrow columns, which
    :func:`~pooltool.measures.recall.evaluate_recall` indexes without checking the
    frame's strings again (a tenth of the time)."""
    # pa.array of the column: no Python strings made for a column Arrow holds already
    return pa.table({"topic": pa.array(qrels["topic"], pa.string()),
                     "docno": pa.array(qrels["docno"], pa.string()),
                     "grade": qrels["grade"].to_numpy(dtype=np.int64)})


def top_ranks(runs: pd.DataFrame, depth: int) -> pd.DataFrame:
    """The runs' first ``depth`` documents per topic with their ``trec_rank`` (a given
    ``trec_rank`` column is trusted as the trec_eval order).

    :raises FrameError: the lines break the run frame contract.
    """
    check_run_frame(runs)
    ordered = runs if "trec_rank" in runs.columns else order_run(runs)
    return ordered[ordered["trec_rank"] <= depth].reset_index(drop=True)


def contributors(top: pd.DataFrame, qrels: pd.DataFrame, level: int,
                 groups: dict[str, str] | None, check_qrels: bool = True) -> dict[str, str]:
    """Run tag -> group of every contributing run of ``top`` (a run not in ``groups`` is
    its own group), in order of first appearance; ``check_qrels`` False: ``qrels`` are
    rows of a frame already checked (:func:`~pooltool.formats.frames.check_qrels_frame`).

    :raises PooltoolError: fewer than two runs, a group mapping naming runs that are
        not given, or qrels with no relevant judgment at ``level``.
    """
    if check_qrels:
        check_qrels_frame(qrels)
    group_of = {t: (groups or {}).get(t, t) for t in top["run_tag"].unique()}
    if len(group_of) < 2:
        raise PooltoolError("leave-one-out needs at least two contributing runs")
    strangers = sorted(set(groups or {}) - set(group_of))
    if strangers:
        raise PooltoolError(f"the group mapping names runs that did not contribute: "
                            f"{', '.join(strangers)}")
    require_relevant(qrels["grade"], level)
    return group_of


def require_relevant(grades: pd.Series | np.ndarray, level: int) -> None:
    """:raises PooltoolError: no grade of the qrels ``grades`` is relevant at ``level``."""
    if not is_relevant(grades, level).any():
        raise PooltoolError(f"the qrels hold no relevant judgment (grade >= {level}): "
                            "leave-one-out has nothing to measure")


def unique_pairs(top: pd.DataFrame, depth: int, group_of: dict[str, str],
                 qrels: pd.DataFrame) -> pd.DataFrame:
    """Pool pairs that one group alone pooled: ``topic, docno, owner, grade`` (NaN: unjudged),
    sorted by topic and docno.

    :param top: the runs' lines with ``trec_rank`` (:func:`top_ranks`).
    :param group_of: run tag -> group, every run of ``top``.
    """
    pooled = top.loc[top["trec_rank"] <= depth, ["topic", "docno", "run_tag"]]
    topic, docno = (pooled[c].to_numpy(dtype=object) for c in ("topic", "docno"))
    group = np.array([group_of[tag] for tag in pooled["run_tag"]], dtype=object)
    # each pair's code sorts as (topic, docno) do, so the pairs come out in that order
    topic_codes = pd.factorize(topic, sort=True)[0].astype(np.int64)
    docno_codes = pd.factorize(docno, sort=True)[0].astype(np.int64)
    pair = topic_codes * (int(docno_codes.max(initial=0)) + 1) + docno_codes
    group_codes, group_names = pd.factorize(group)
    pairs, first = np.unique(pair, return_index=True)
    combos = np.unique(pair * max(len(group_names), 1) + group_codes)
    groups = np.bincount(np.searchsorted(pairs, combos // max(len(group_names), 1)),
                         minlength=len(pairs))
    alone = first[groups == 1]
    unique = pd.DataFrame({"topic": topic[alone], "docno": docno[alone],
                           "owner": group[alone]})
    return unique.merge(qrels[["topic", "docno", "grade"]], on=["topic", "docno"], how="left")


def _leave_out_topics(full: pd.DataFrame, top: pd.DataFrame, unique: pd.DataFrame,
                      group_of: dict[str, str], k: int, level: int) -> pd.DataFrame:
    frame = full[["run_tag", "topic", "num_rel", f"num_rel_ret@{k}", f"recall@{k}", f"P@{k}",
                  f"unjudged@{k}"]].copy()
    frame.columns = ["run_tag", "topic", "num_rel", "rel_ret", "recall", "P", "unjudged"]
    lost_rel, lost_judged, removed_rel = _unique_counts(frame, top, unique, group_of, k, level)
    frame["num_rel_loo"], frame["recall_loo"], frame["P_loo"] = leave_out_scores(
        frame["num_rel"].to_numpy(), frame["rel_ret"].to_numpy(), removed_rel, lost_rel, k)
    frame["unjudged_loo"] = frame["unjudged"] + lost_judged / k
    return frame[["run_tag", "topic", "num_rel", "num_rel_loo", "recall", "recall_loo",
                  "P", "P_loo", "unjudged", "unjudged_loo"]]


def leave_out_scores(num_rel: np.ndarray, rel_ret: np.ndarray, removed_rel: np.ndarray,
                     lost_rel: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per (run, topic) row, its leave-out ``num_rel_loo`` (int64), Recall@k (0 when no
    relevant document is left) and P@k (float64): from ``num_rel`` and
    ``num_rel_ret@k`` on the qrels, less its group's unique relevant judgments
    ``removed_rel`` and those of them in the run's top k, ``lost_rel`` (int arrays, one
    entry per row)."""
    num_rel_loo = num_rel - removed_rel
    rel_ret_loo = (rel_ret - lost_rel).astype(np.float64)
    as_float = num_rel_loo.astype(np.float64)
    recall_loo = np.divide(rel_ret_loo, as_float, out=np.zeros_like(rel_ret_loo),
                           where=as_float > 0)
    return num_rel_loo, recall_loo, rel_ret_loo / k


def _unique_counts(frame: pd.DataFrame, top: pd.DataFrame, unique: pd.DataFrame,
                   group_of: dict[str, str], k: int,
                   level: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row of ``frame`` (``run_tag, topic``, one row each): the relevant and the judged
    unique pairs the run holds in its own top k (pairs its group alone pooled; a pair
    listed twice in ``unique`` counts twice), and its group's unique relevant pairs on
    the topic (int64 arrays), counted on integer codes of the ids."""
    top_k = top.loc[top["trec_rank"] <= k, ["run_tag", "topic", "docno"]]
    rows, runs = len(frame), len(top_k)
    topic = _codes([frame["topic"], top_k["topic"], unique["topic"]])
    docno = _codes([top_k["docno"], unique["docno"]])
    group = _codes([frame["run_tag"].map(group_of), top_k["run_tag"].map(group_of),
                    unique["owner"]])
    tag = _codes([frame["run_tag"], top_k["run_tag"]])
    topics, groups = int(topic.max(initial=0)) + 1, int(group.max(initial=0)) + 1
    relevant = is_relevant(unique["grade"], level).to_numpy()
    judged = is_judged(unique["grade"]).to_numpy()
    # the group's unique relevant pairs per (group, topic)
    owned = group[rows + runs:] * topics + topic[rows + runs:]
    removed = np.bincount(owned[relevant], minlength=groups * topics)
    removed_rel = removed[group[:rows] * topics + topic[:rows]]
    # each top-k line's unique rows of its own group: by binary search on (pair, owner)
    width = int(docno.max(initial=0)) + 1
    key = (topic[rows + runs:] * width + docno[runs:]) * groups + group[rows + runs:]
    order = np.argsort(key, kind="stable")
    keys = key[order]
    rel_before = np.concatenate([[0], np.cumsum(relevant[order])])
    judged_before = np.concatenate([[0], np.cumsum(judged[order])])
    line = (topic[rows:rows + runs] * width + docno[:runs]) * groups + group[rows:rows + runs]
    low, high = np.searchsorted(keys, line, side="left"), np.searchsorted(keys, line, "right")
    # summed per (run, topic) row of frame; lines of a (run, topic) it lacks count nowhere
    tags = int(tag.max(initial=0)) + 1
    row_of = np.full(tags * topics, -1, dtype=np.int64)
    row_of[tag[:rows] * topics + topic[:rows]] = np.arange(rows)
    at = row_of[tag[rows:] * topics + topic[rows:rows + runs]]
    held = at >= 0
    lost_rel = np.bincount(at[held], weights=(rel_before[high] - rel_before[low])[held],
                           minlength=rows)
    lost_judged = np.bincount(at[held], weights=(judged_before[high] - judged_before[low])[held],
                              minlength=rows)
    return lost_rel.astype(np.int64), lost_judged.astype(np.int64), removed_rel


def _codes(columns: list[pd.Series]) -> np.ndarray:
    """int64 codes of the columns' values joined (equal values, equal codes)."""
    values = np.concatenate([c.to_numpy(dtype=object) for c in columns])
    return pd.factorize(values)[0].astype(np.int64)


def _per_run(per_topic: pd.DataFrame, unique: pd.DataFrame, group_of: dict[str, str],
             level: int, tags: list[str]) -> pd.DataFrame:
    # each run's topics as numpy slices, in per_topic order (a pandas filter per run
    # was most of the time of a leave-one-out)
    index_of = {tag: i for i, tag in enumerate(tags)}
    codes = np.array([index_of[tag] for tag in per_topic["run_tag"]], dtype=np.int64)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(tags) + 1))
    names = ("recall", "recall_loo", "P", "P_loo", "unjudged", "unjudged_loo")
    values = {name: per_topic[name].to_numpy(dtype=np.float64)[order] for name in names}
    owner = unique["owner"].to_numpy(dtype=object)
    pooled = Counter(owner.tolist())
    relevant = Counter(owner[is_relevant(unique["grade"], level).to_numpy()].tolist())
    rows = []
    for i, tag in enumerate(tags):
        start, stop = int(bounds[i]), int(bounds[i + 1])
        row: dict[str, object] = {"run_tag": tag, "group": group_of[tag]}
        for name in names:
            row[name] = trec_mean(values[name][start:stop], stop - start)
        row["unique_pooled"] = pooled.get(group_of[tag], 0)
        row["unique_relevant"] = relevant.get(group_of[tag], 0)
        rows.append(row)
    frame = pd.DataFrame(rows)
    frame["recall_drop"] = frame["recall"] - frame["recall_loo"]
    frame["recall_drop_rel"] = frame["recall_drop"] / frame["recall"].where(frame["recall"] > 0)
    frame["P_drop"] = frame["P"] - frame["P_loo"]
    frame = with_rank_changes(frame, "recall", "recall_loo")
    columns = ["run_tag", "group", "recall", "recall_loo", "recall_drop", "recall_drop_rel",
               "P", "P_loo", "P_drop", "unique_pooled", "unique_relevant", "unjudged",
               "unjudged_loo", "rank", "rank_loo", "rank_change"]
    order = np.lexsort((frame["run_tag"].to_numpy(dtype=str), -frame["recall"].to_numpy()))
    return frame.iloc[order][columns].reset_index(drop=True)


def with_rank_changes(frame: pd.DataFrame, score: str, score_loo: str) -> pd.DataFrame:
    """Each run's rank with its own leave-out score among the others' full scores
    (Lipani et al.'s ranking for SRE, the sum of |rank change|).

    Ranks are competition ranks, 1 + the number of other runs with a higher
    full-qrels score, so that no run tag decides a tie: ``rank`` by its own
    full score, ``rank_loo`` by its leave-out score (a leave-out score equal
    to another run's full score ties with it and takes the better rank, so
    a tie counts no fall). Several runs can share a ``rank_loo``: each is
    ranked alone among the others.
    """
    full = frame[score].to_numpy(dtype=np.float64)
    loo = frame[score_loo].to_numpy(dtype=np.float64)
    others = ~np.eye(len(frame), dtype=bool)
    frame["rank"] = 1 + ((full[None, :] > full[:, None]) & others).sum(axis=1)
    frame["rank_loo"] = 1 + ((full[None, :] > loo[:, None]) & others).sum(axis=1)
    frame["rank_change"] = frame["rank_loo"] - frame["rank"]
    return frame


def group_runs(tags: list[str], pattern: str) -> dict[str, str]:
    """Group run tags by a regular expression: the group is the first capture group
    (or the whole match); tags that do not match are their own group.

    :raises PooltoolError: the pattern is not a valid regular expression.
    """
    import re

    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise PooltoolError(f"--group {pattern!r} is not a valid regular expression: {exc}") from exc
    groups = {}
    for tag in tags:
        match = regex.search(tag)
        groups[tag] = (match.group(1) if match and regex.groups else
                       match.group(0) if match else tag)
    return groups


@dataclass(frozen=True)
class NewRunReport:
    """How exposed runs that did not contribute to the pool are to its gaps.

    :ivar per_run: one row per new run: ``run_tag``; for each cutoff c,
        ``unjudged@c``; at the bias cutoff k, ``recall`` (as judged),
        ``recall_upper`` (as if its unjudged top-k documents were relevant),
        ``P``; ``verdict`` (``reusable``, ``use with care`` or ``not
        reusable``) and ``sentence``, the verdict in words.
    """

    per_run: pd.DataFrame


def new_run_exposure(new_runs: pd.DataFrame, qrels: pd.DataFrame, bias: BiasResult,
                     cutoffs: tuple[int, ...] = (10, 20, 50, 100),
                     complete: bool = False) -> NewRunReport:
    """Score runs that did not build the pool and compare them with the leave-out runs.

    The verdict compares the new run's unjudged@k with the unjudged@k the
    contributing runs had once their own documents were removed, for which
    the leave-out drops were measured: up to their mean, those drops (MAE)
    are a fair guide and the qrels look reusable; up to their largest, use
    the qrels with care; beyond, the run is more exposed than any leave-out
    run was and its recall@k is only known to lie between the judged value
    and ``recall_upper``.
    """
    k = bias.k
    ks = tuple(sorted(set(cutoffs) | {k}))
    result = evaluate_recall(new_runs, qrels, ks=ks, level=bias.level, complete=complete)
    summary = result.summary.pivot(index="run_tag", columns="k")
    frame = pd.DataFrame({"run_tag": result.run_tags})
    for c in ks:
        frame[f"unjudged@{c}"] = frame["run_tag"].map(summary[("unjudged", c)])
    for column in ("recall", "recall_upper", "P"):
        frame[column] = frame["run_tag"].map(summary[(column, k)])
    overall = bias.overall()
    verdicts = [_verdict(row, k, overall) for row in frame.to_dict("records")]
    if k > bias.depth:
        caveat = (f" (k = {k} is beyond the pool depth {bias.depth}: much of any run's top {k} "
                  "was never pooled, so compare at k <= depth for a sharper answer)")
        verdicts = [(v, sentence[:-1] + caveat + ".") for v, sentence in verdicts]
    frame["verdict"] = [v for v, _ in verdicts]
    frame["sentence"] = [s for _, s in verdicts]
    return NewRunReport(frame)


def reuse_verdict(unjudged: float, overall: dict[str, object]) -> str:
    """Whether qrels look reusable for a run outside the pool, by its unjudged share
    against what the contributing runs saw when left out (:meth:`overall`'s
    ``mean_unjudged_loo`` and ``max_unjudged_loo``, shares 0..1): ``reusable`` up to the
    mean, ``use with care`` up to the largest, ``not reusable`` beyond. The thresholds are
    pooltool's; the left-out runs they compare with are Zobel's (1998) leave-one-out."""
    if unjudged <= float(overall["mean_unjudged_loo"]):  # type: ignore[arg-type]
        return "reusable"
    if unjudged <= float(overall["max_unjudged_loo"]):  # type: ignore[arg-type]
        return "use with care"
    return "not reusable"


def _verdict(row: dict[str, object], k: int, overall: dict[str, object]) -> tuple[str, str]:
    unjudged = float(row[f"unjudged@{k}"])  # type: ignore[arg-type]
    mean = float(overall["mean_unjudged_loo"])  # type: ignore[arg-type]
    limit = float(overall["max_unjudged_loo"])  # type: ignore[arg-type]
    mae = float(overall["mae"])  # type: ignore[arg-type]
    span = f"recall@{k} is between {row['recall']:.4f} (as judged) and {row['recall_upper']:.4f}"
    seen = (f"{unjudged:.1%} of its top {k} is unjudged; contributing runs left out of the "
            f"pool saw {mean:.1%} on average (at most {limit:.1%}) and lost {mae:.4f} "
            f"recall@{k} on average")
    verdict = reuse_verdict(unjudged, overall)
    if verdict == "reusable":
        return verdict, f"The qrels look reusable for {row['run_tag']}: {seen}."
    if verdict == "use with care":
        return verdict, f"Use the qrels with care for {row['run_tag']}: {seen}; {span}."
    return verdict, (f"The qrels do not look reusable for {row['run_tag']}: {seen}; "
                     f"{span}. Judge its unjudged top-{k} documents first.")


def pair_owners(qrels: pd.DataFrame, unique: pd.DataFrame) -> np.ndarray:
    """Per row of ``qrels``, the group that alone pooled its pair (``unique``'s
    ``owner``, as :func:`unique_pairs` returns them; a pair is there once), else NaN:
    found once for every group's :func:`qrels_without_owner`.

    :returns: object array, one entry per ``qrels`` row, in its order.
    """
    marked = qrels[["topic", "docno"]].merge(unique[["topic", "docno", "owner"]],
                                             on=["topic", "docno"], how="left")
    return marked["owner"].to_numpy(dtype=object)


def qrels_without_owner(qrels: pd.DataFrame, owners: np.ndarray, group: str) -> pd.DataFrame:
    """The rows of ``qrels`` (in its order) but those of the pairs only ``group`` pooled
    (``owners``: :func:`pair_owners` of these qrels)."""
    return qrels[kept_rows(owners, group)]


def kept_rows(owners: np.ndarray, group: str) -> np.ndarray:
    """Which qrels rows ``group``'s leave-out keeps: all but those of the pairs only it
    pooled (``owners``: :func:`pair_owners`); bool, one per row."""
    return owners != group
