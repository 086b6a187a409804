"""Bias-corrected scores for runs that did not build the pool, and their validation.

A run that did not contribute to a depth-D pool meets unjudged documents the
pooled runs never met, which count as not relevant, so its P@k and Recall@k
are biased low. Each estimator below corrects a run's score from what
leave-one-out (:func:`pooltool.analysis.bias.leave_one_out`) says about the
pooled runs:

* ``webber-park``: Webber and Park 2009, "Score adjustment for correction of
  pooling bias" (SIGIR). Each pooled run p is left out of the pool and scored
  again; its drop :math:`\\delta_p = M(p, Q) - M(p, Q_{\\setminus p})` is the
  bias a run outside the pool suffers. The corrected score of a new run s is
  :math:`\\hat M(s) = M(s, Q) + \\frac{1}{|R_p|} \\sum_{p \\in R_p} \\delta_p`.
  Defined for any measure; here for P@k and Recall@k.
* ``webber-park-similar``: the same shift, averaged over the ``similar``
  pooled runs most like s only (Webber and Park's variant fitted on similar
  runs). Likeness here is the share of s's top-k (topic, document) pairs
  that the pooled run also has in its top k; ties go to the run tag.
  P@k and Recall@k.
* ``lipani``: after Lipani, Lupu and Hanbury 2015, "Splitting water:
  precision and anti-precision to reduce pool bias" (SIGIR). The documents
  a pooled run loses to leave-one-out move from precision (relevant) and
  anti-precision (judged not relevant) into the unjudged: the "water". The
  share of it that was precision, over every pooled run and topic,
  :math:`\\rho = \\sum_{p,t} \\Delta P_{p,t} / \\sum_{p,t} (\\Delta P_{p,t} +
  \\Delta \\bar P_{p,t})`, splits the new run's unjudged top-k documents:
  :math:`\\hat P@k(s) = P@k(s) + \\rho \\cdot U@k(s)`, with U@k its
  unjudged@k. Defined for P@k only (anti-precision is a precision-side
  quantity; the paper gives no Recall@k estimator). This is pooltool's
  reading of the paper's idea, written without the paper's text or its
  reference code (PoolBiasEstimators) at hand: its values were not compared
  with those.

Validation (:func:`validate`) follows the papers: each pooled run (or group)
is left out in turn, its unique judgments removed, the estimator fitted on
the remaining runs alone (their own leave-one-out under the reduced qrels)
and the run's corrected score compared with its full-qrels score: mean
absolute error and the Kendall tau of the corrected ranking, beside the same
for the uncorrected leave-out scores.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pooltool.analysis.bias import leave_one_out, qrels_without_group
from pooltool.analysis.stability import RankingComparison, compare_rankings
from pooltool.errors import PooltoolError
from pooltool.measures.recall import evaluate_recall
from pooltool.ranking import order_run

#: Each method and the measures it is defined for.
METHODS: dict[str, tuple[str, ...]] = {
    "webber-park": ("P", "recall"),
    "webber-park-similar": ("P", "recall"),
    "lipani": ("P",),
}
_SOURCES = {
    "webber-park": "Webber and Park 2009",
    "webber-park-similar": "Webber and Park 2009",
    "lipani": "Lipani, Lupu and Hanbury 2015",
}


def check_method(method: str, measure: str) -> None:
    """Refuse a method that does not exist or is not defined for ``measure``.

    :raises PooltoolError: with the methods, or the measures the method defines.
    """
    if method not in METHODS:
        raise PooltoolError(f"unknown correction {method!r}; choose one of "
                            f"{', '.join(METHODS)}")
    if measure not in METHODS[method]:
        defined = " and ".join(f"{m}@k" for m in METHODS[method])
        others = [m for m, measures in METHODS.items() if measure in measures]
        raise PooltoolError(f"{method} ({_SOURCES[method]}) is defined for {defined} only, "
                            f"not {measure}@k; for {measure}@k use {' or '.join(others)}")


@dataclass(frozen=True)
class PoolEstimate:
    """What the pooled runs' leave-one-out says about a run outside the pool.

    :ivar drop: per pooled run tag, its score minus its leave-out score (the
        measure's drop, a fraction -1..1).
    :ivar split: rho, the share of the judged documents the pooled runs lost
        in their top k that were relevant (0..1; 0 when they lost none).
    :ivar top_k: the pooled runs' top-k ``run_tag, topic, docno`` rows.
    """

    drop: pd.Series
    split: float
    top_k: pd.DataFrame


def estimate_pool(top: pd.DataFrame, qrels: pd.DataFrame, depth: int, k: int, level: int,
                  measure: str, groups: dict[str, str] | None = None,
                  complete: bool = False) -> PoolEstimate:
    """Fit the estimators on the pooled runs ``top`` (lines with ``trec_rank``, at least
    their first ``max(k, depth)``) and ``qrels``.

    :raises PooltoolError: as :func:`~pooltool.analysis.bias.leave_one_out`.
    """
    result = leave_one_out(top, qrels, depth, k, level, groups, complete)
    per_run = result.per_run.set_index("run_tag")
    topics = result.per_topic
    lost = float((topics["unjudged_loo"] - topics["unjudged"]).sum())
    split = float((topics["P"] - topics["P_loo"]).sum()) / lost if lost > 0 else 0.0
    top_k = top.loc[top["trec_rank"] <= k, ["run_tag", "topic", "docno"]]
    return PoolEstimate(per_run[measure] - per_run[f"{measure}_loo"], split, top_k)


def correct(method: str, measure: str, plain: float, unjudged: float, run_top_k: pd.DataFrame,
            estimate: PoolEstimate, similar: int = 3) -> float:
    """One run's corrected score (see the module docstring for each formula).

    :param plain: the run's score as judged (a fraction 0..1, mean over topics).
    :param unjudged: its unjudged@k (0..1).
    :param run_top_k: its top-k ``topic, docno`` rows (for ``webber-park-similar``).
    :param similar: how many most similar pooled runs ``webber-park-similar`` uses.
    :raises PooltoolError: the method is not defined for ``measure``.
    """
    check_method(method, measure)
    if method == "lipani":
        return plain + estimate.split * unjudged
    drop = estimate.drop
    if method == "webber-park-similar":
        drop = drop.loc[most_similar(run_top_k, estimate.top_k, similar)]
    return plain + float(drop.mean())


def most_similar(run_top_k: pd.DataFrame, pooled_top_k: pd.DataFrame, count: int) -> list[str]:
    """The ``count`` pooled runs sharing the largest share of the run's top-k
    (topic, docno) pairs; ties go to the run tag (ascending)."""
    mine = run_top_k[["topic", "docno"]].drop_duplicates()
    shared = pooled_top_k.merge(mine, on=["topic", "docno"]).groupby("run_tag").size()
    tags = sorted(pooled_top_k["run_tag"].unique())
    share = shared.reindex(tags, fill_value=0)
    ranked = sorted(tags, key=lambda tag: (-share[tag], tag))
    return ranked[:max(1, count)]


@dataclass(frozen=True)
class Corrected:
    """Corrected scores.

    :ivar per_run: one row per run: ``run_tag``, ``scored_as`` (``left out``:
        a pooled run scored with its own unique judgments removed and the
        estimator fitted on the other runs; ``new``: a run outside the pool,
        full qrels), ``unjudged`` (unjudged@k as scored), ``<m>_plain`` (the
        score as judged), ``<m>_corrected``, ``<m>_full`` (the full-qrels
        score of a left-out run; NaN for a new run), m the measure.
    :ivar plain: left-out runs, full-qrels ranking against the ranking by
        plain (leave-out) scores.
    :ivar corrected: the same against the ranking by corrected scores.
    """

    per_run: pd.DataFrame
    plain: RankingComparison | None
    corrected: RankingComparison | None
    method: str
    measure: str
    k: int

    def overall(self) -> dict[str, object]:
        """``runs`` (left out), ``mae_plain``, ``mae_corrected`` (mean |score - full|
        over left-out runs), ``tau_plain``, ``tau_corrected`` (Kendall's tau-b
        against the full-qrels ranking), ``tau_ap_plain``, ``tau_ap_corrected``."""
        m = self.measure
        out = self.per_run[self.per_run["scored_as"] == "left out"]
        figures: dict[str, object] = {"method": self.method, "measure": f"{m}@{self.k}",
                                      "runs": len(out)}
        for side, ranking in (("plain", self.plain), ("corrected", self.corrected)):
            error = (out[f"{m}_{side}"] - out[f"{m}_full"]).abs()
            figures[f"mae_{side}"] = float(error.mean()) if len(out) else float("nan")
            figures[f"tau_{side}"] = ranking.kendall_tau if ranking else float("nan")
            figures[f"tau_ap_{side}"] = ranking.tau_ap if ranking else float("nan")
        return figures


def corrected_scores(top: pd.DataFrame, qrels: pd.DataFrame, new_runs: pd.DataFrame | None,
                     depth: int, k: int, method: str, measure: str = "P", level: int = 1,
                     groups: dict[str, str] | None = None, similar: int = 3,
                     complete: bool = False) -> Corrected:
    """Corrected scores of every pooled run under leave-one-out (the validation) and of
    every new run.

    :param top: the pooled runs' lines with ``trec_rank`` (at least their first
        ``max(k, depth)`` documents per topic).
    :param qrels: ``topic, docno, grade`` (the full qrels).
    :param new_runs: lines of runs outside the pool (``run_tag, topic, docno,
        score``), or None.
    :param depth: the pool depth D.
    :param k: the cutoff of the measure.
    :param method: one of :data:`METHODS`.
    :param measure: ``P`` or ``recall``.
    :param groups: run tag -> group (left out together); default: each run alone.
    :param similar: pooled runs used by ``webber-park-similar``.
    :returns: a :class:`Corrected`.
    :raises PooltoolError: the method is unknown or undefined for ``measure``,
        fewer than three pooled groups (a left-out group leaves fewer than two
        to fit on), or bad input as :func:`~pooltool.analysis.bias.leave_one_out`.
    """
    check_method(method, measure)
    group_of = {t: (groups or {}).get(t, t) for t in top["run_tag"].unique()}
    if len(set(group_of.values())) < 3:
        raise PooltoolError("corrected scores under leave-one-out need at least three pooled "
                            "runs (or groups): each is left out and fitted on the others")
    rows = [row for group in dict.fromkeys(group_of.values())
            for row in _left_out(top, qrels, depth, k, method, measure, level, group_of, group,
                                 similar, complete)]
    if new_runs is not None and len(new_runs):
        estimate = estimate_pool(top, qrels, depth, k, level, measure, groups, complete)
        rows += _scored(new_runs, qrels, k, method, measure, level, estimate, similar, complete,
                        "new", None)
    frame = pd.DataFrame(rows)
    out = frame[frame["scored_as"] == "left out"].set_index("run_tag")
    full = out[f"{measure}_full"]
    rankings = [compare_rankings(full, out[f"{measure}_{side}"]) if len(out) >= 2 else None
                for side in ("plain", "corrected")]
    return Corrected(frame, rankings[0], rankings[1], method, measure, k)


def _left_out(top: pd.DataFrame, qrels: pd.DataFrame, depth: int, k: int, method: str,
              measure: str, level: int, group_of: dict[str, str], group: str, similar: int,
              complete: bool) -> list[dict[str, object]]:
    """The runs of ``group`` scored with the group's unique judgments removed, corrected
    by the estimator fitted on the other runs under those reduced qrels."""
    mine = [t for t, g in group_of.items() if g == group]
    reduced = qrels_without_group(top, qrels, depth, group_of, group)
    others = top[~top["run_tag"].isin(mine)]
    others_groups = {t: g for t, g in group_of.items() if g != group}
    estimate = estimate_pool(others, reduced, depth, k, level, measure, others_groups, complete)
    runs = top[top["run_tag"].isin(mine)]
    full = _summary(runs, qrels, k, level, complete)
    return _scored(runs, reduced, k, method, measure, level, estimate, similar, complete,
                   "left out", full[measure])


def _scored(runs: pd.DataFrame, qrels: pd.DataFrame, k: int, method: str, measure: str,
            level: int, estimate: PoolEstimate, similar: int, complete: bool, scored_as: str,
            full: pd.Series | None) -> list[dict[str, object]]:
    summary = _summary(runs, qrels, k, level, complete)
    ordered = runs if "trec_rank" in runs.columns else order_run(runs)
    top_k = ordered[ordered["trec_rank"] <= k]
    rows = []
    for tag, row in summary.iterrows():
        plain, unjudged = float(row[measure]), float(row["unjudged"])
        mine = top_k[top_k["run_tag"] == tag]
        rows.append({
            "run_tag": tag, "scored_as": scored_as, "unjudged": unjudged,
            f"{measure}_plain": plain,
            f"{measure}_corrected": correct(method, measure, plain, unjudged, mine, estimate,
                                            similar),
            f"{measure}_full": float(full[tag]) if full is not None else np.nan,
        })
    return rows


def _summary(runs: pd.DataFrame, qrels: pd.DataFrame, k: int, level: int,
             complete: bool) -> pd.DataFrame:
    """Each run's mean P@k, Recall@k and unjudged@k, indexed by run tag, input order."""
    result = evaluate_recall(runs, qrels, ks=[k], level=level, complete=complete)
    return result.summary.set_index("run_tag").loc[result.run_tags, ["P", "recall", "unjudged"]]
