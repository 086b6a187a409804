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
  Defined for any measure; here for P@k and Recall@k. The same as
  PoolBiasEstimators' ``WebberOnRunsEstimator.scala`` lines 21-45 (the mean
  of ``M(p) - M(p, Q without p)`` over the pooled runs, added to ``M(s)``),
  with which its values were compared.
* ``webber-park-similar``: the same shift, averaged over the ``similar``
  pooled runs most like s only (Webber and Park's variant fitted on similar
  runs). Likeness here is the share of s's top-k (topic, document) pairs
  that the pooled run also has in its top k; ties go to the run tag.
  P@k and Recall@k. PoolBiasEstimators has no such variant: not compared.
* ``lipani``: Lipani, Lupu and Hanbury 2015, "Splitting water: precision
  and anti-precision to reduce pool bias" (SIGIR), as their reference code
  computes it: PoolBiasEstimators, ``LipaniEstimator.scala`` (commit
  ce84a2d), ``getAdjP`` lines 18-47 and the run mixing of
  ``getNewRunBySelectedRuns`` and ``getNewScore`` lines 66-101. See
  :func:`lipani_adjustment`. Anti-precision AP@k is the share of the top k
  judged not relevant; :math:`k_s = 1 - P@k(s) - AP@k(s)` the share not
  judged. For each pooled run p, :math:`p \\circ s` is p re-ranked by s:
  a document of p that s also retrieved takes s's rank, the others keep
  p's; :math:`\\delta P_p`, :math:`\\delta AP_p` are P@k and AP@k of
  :math:`p \\circ s` minus those of p, and :math:`\\delta k_p = -\\delta P_p
  - \\delta AP_p`. With their means over the pooled runs
  :math:`\\Delta P, \\Delta AP, \\Delta k`, the correction is
  :math:`\\hat P@k(s) = P@k(s) + k_s \\max(\\Delta k, 0)` when
  :math:`\\lambda = \\Delta P \\cdot AP@k(s) - \\Delta AP \\cdot P@k(s) > 0`,
  else none. Defined for P@k only (their ``isMetricSupported``, line 9:
  ``P_`` measures). It reads whole runs, not only their top k. Compared
  with PoolBiasEstimators run on TREC-COVID round 1 (tests/analysis/
  test_bias_correction.py says where and how). The repository's
  ``LipaniEstimatorV2`` (the same without the lambda test) is named in no
  paper and not offered; the ECIR 2016 paper by the same authors ("The
  curious incidence of bias corrections in the pool") tests these
  estimators on other pooling strategies and adds none.

A corrected score outside 0..1 (a shift added to a score near 1, e.g. a
P@k of 1.25) is clipped to the nearest bound, and the run is listed in
:attr:`Corrected.clipped` with the value before clipping. The measures are
fractions 0..1 and the corrections estimate the measure, so the bound is the
nearest value the estimate can be; clipping never moves it away from the
full-qrels score (which lies in 0..1), so it never increases an error; and
refusing would throw away the other runs' corrections.

Validation (:func:`corrected_scores`) follows the papers: each pooled run (or group)
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

from pooltool.analysis.bias import (
    contributors,
    leave_one_out,
    qrels_without_group,
    top_ranks,
)
from pooltool.analysis.stability import RankingComparison, compare_rankings
from pooltool.errors import PooltoolError
from pooltool.measures.recall import evaluate_recall
from pooltool.ranking import order_run, positions_in_groups
from pooltool.records import is_judged, is_relevant

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
        shown = f"{measure}@k" if measure in ("P", "recall") else repr(measure)
        others = [m for m, measures in METHODS.items() if measure in measures]
        advice = f"; for {shown} use {' or '.join(others)}" if others else ""
        raise PooltoolError(f"{method} ({_SOURCES[method]}) is defined for {defined} only, "
                            f"not {shown}{advice}")


@dataclass(frozen=True)
class PoolEstimate:
    """What the pooled runs' leave-one-out says about a run outside the pool.

    :ivar drop: per pooled run tag, its score minus its leave-out score (the
        measure's drop, a fraction -1..1).
    :ivar top_k: the pooled runs' top-k ``run_tag, topic, docno`` rows.
    :ivar runs: the pooled runs' lines as given (``lipani`` re-ranks them whole).
    :ivar qrels: the qrels they were scored with.
    """

    drop: pd.Series
    top_k: pd.DataFrame
    runs: pd.DataFrame
    qrels: pd.DataFrame
    k: int
    level: int


def estimate_pool(top: pd.DataFrame, qrels: pd.DataFrame, depth: int, k: int, level: int,
                  measure: str, groups: dict[str, str] | None = None,
                  complete: bool = False, drops: bool = True) -> PoolEstimate:
    """Fit the estimators on the pooled runs ``top`` (lines with ``trec_rank``, at least
    their first ``max(k, depth)``; whole runs for ``lipani``) and ``qrels``.

    :param drops: False when the method reads no drop (``lipani``): the input is
        checked as leave-one-out checks it, but not left out (``drop`` is empty).
    :raises PooltoolError: as :func:`~pooltool.analysis.bias.leave_one_out`.
    """
    top_k = top.loc[top["trec_rank"] <= k, ["run_tag", "topic", "docno"]]
    if not drops:
        _check_as_leave_one_out(top, qrels, depth, k, level, groups)
        return PoolEstimate(pd.Series(dtype=np.float64), top_k, top, qrels, k, level)
    result = leave_one_out(top, qrels, depth, k, level, groups, complete)
    per_run = result.per_run.set_index("run_tag")
    return PoolEstimate(per_run[measure] - per_run[f"{measure}_loo"], top_k, top, qrels, k,
                        level)


def _check_as_leave_one_out(top: pd.DataFrame, qrels: pd.DataFrame, depth: int, k: int,
                            level: int, groups: dict[str, str] | None) -> None:
    """Raise what :func:`~pooltool.analysis.bias.leave_one_out` raises on bad input,
    without its evaluations (lipani's estimate needs none of them)."""
    if depth < 1 or k < 1:
        raise PooltoolError(f"pool depth and k must be at least 1 (got depth {depth}, k {k})")
    contributors(top_ranks(top, max(k, depth)), qrels, level, groups)


def correct(method: str, measure: str, plain: float, run: pd.DataFrame,
            estimate: PoolEstimate, similar: int = 3) -> float:
    """One run's corrected score (see the module docstring for each formula).

    :param plain: the run's score as judged (a fraction 0..1, mean over topics).
    :param run: its lines with ``trec_rank`` (``topic, docno, trec_rank``; the
        top k for ``webber-park-similar``, the whole run for ``lipani``).
    :param similar: how many most similar pooled runs ``webber-park-similar`` uses.
    :raises PooltoolError: the method is not defined for ``measure``.
    """
    check_method(method, measure)
    if method == "lipani":
        return plain + lipani_adjustment(run, estimate.runs, estimate.qrels, estimate.k,
                                         estimate.level)
    drop = estimate.drop
    if method == "webber-park-similar":
        run_top_k = run[run["trec_rank"] <= estimate.k]
        drop = drop.loc[most_similar(run_top_k, estimate.top_k, similar)]
    return plain + float(drop.mean())


def lipani_adjustment(run: pd.DataFrame, pooled: pd.DataFrame, qrels: pd.DataFrame, k: int,
                      level: int = 1) -> float:
    """What Lipani, Lupu and Hanbury's estimator adds to a run's P@k (SIGIR 2015; the
    formula is in the module docstring; PoolBiasEstimators ``LipaniEstimator.scala``,
    ``getAdjP`` lines 18-47).

    :param run: the run's lines ``topic, docno, trec_rank`` (whole, trec_eval order).
    :param pooled: the pooled runs' lines ``run_tag, topic, docno, trec_rank`` (whole).
    :param qrels: ``topic, docno, grade``; relevant is ``grade >= level``, judged not
        relevant ``0 <= grade < level`` (their ``QRels.inverse``: grade 0 at level 1).
    :returns: the adjustment, a fraction 0..1 (0 when lambda <= 0).

    Their code rounds each P@k and AP@k to 4 decimals (``TRECEval.computeMetric``,
    line 152) before subtracting; this does not, so the two agree to about 1e-4.
    """
    run, pooled, qrels = _coded(run, pooled, qrels)
    mine = _precision_pair(run.assign(run_tag=-1), qrels, k, level).iloc[0]
    unjudged = 1.0 - mine["P"] - mine["AP"]
    if unjudged == 0 or pooled.empty:
        return 0.0
    before = _precision_pair(pooled, qrels, k, level)
    after = _precision_pair(rerank_by(pooled, run), qrels, k, level).reindex(before.index)
    delta_p, delta_ap = after["P"] - before["P"], after["AP"] - before["AP"]
    lam = float(delta_p.mean()) * mine["AP"] - float(delta_ap.mean()) * mine["P"]
    if lam <= 0:
        return 0.0
    return float(unjudged * max(float((-delta_p - delta_ap).mean()), 0.0))


def _coded(run: pd.DataFrame, pooled: pd.DataFrame,
           qrels: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The frames :func:`lipani_adjustment` reads, their ``run_tag``, ``topic`` and
    ``docno`` strings replaced by int64 codes that sort as the strings do (equal
    strings, equal codes): the same merges, groups and docno-descending ties, on
    numbers (pandas merges and sorts strings about ten times slower)."""
    frames = [run[["topic", "docno", "trec_rank"]],
              pooled[["run_tag", "topic", "docno", "trec_rank"]],
              qrels[["topic", "docno", "grade"]]]
    coded = [frame.copy() for frame in frames]
    for name in ("run_tag", "topic", "docno"):
        having = [i for i, frame in enumerate(frames) if name in frame.columns]
        values = pd.concat([frames[i][name] for i in having], ignore_index=True)
        codes = pd.factorize(values, sort=True)[0].astype(np.int64)
        bounds = np.cumsum([0] + [len(frames[i]) for i in having])
        for i, start, stop in zip(having, bounds[:-1], bounds[1:], strict=True):
            coded[i][name] = codes[start:stop]
    return coded[0], coded[1], coded[2]


def rerank_by(pooled: pd.DataFrame, run: pd.DataFrame) -> pd.DataFrame:
    """Each pooled run p re-ranked by ``run`` s (their ``p ◦ s``, ``LipaniEstimator.scala``
    ``getNewRunBySelectedRuns`` and ``getNewScore``, lines 66-101), on the topics both have.

    A document of p at rank r_p that s has at rank r_s moves to r_s plus a
    tie-break: 1e-4 if r_s = r_p, (r_p + 1) / 1e4 if it moves down, r_p / 1e8 if
    it moves up; the others stay at r_p + 1e-4. Ties left go to docno descending
    (their ``Run.normalizeRank``). Their scores are 32-bit floats, which can tie
    two of these positions that float64 keeps apart; not reproduced here.

    :returns: ``run_tag, topic, docno, trec_rank`` (the new ranks).
    """
    theirs = run[["topic", "docno", "trec_rank"]].rename(columns={"trec_rank": "r_s"})
    mixed = pooled.loc[pooled["topic"].isin(theirs["topic"].unique()),
                       ["run_tag", "topic", "docno", "trec_rank"]].merge(
        theirs, on=["topic", "docno"], how="left")
    r_p, r_s = mixed["trec_rank"].to_numpy(float), mixed["r_s"].to_numpy(float)
    step = r_s - r_p
    tie_break = np.select([step == 0, step > 0], [1e-4, (r_p + 1) / 1e4], r_p / 1e8)
    position = np.where(np.isnan(r_s), r_p + 1e-4, r_s + tie_break)
    # by run tag, topic, position, then docno descending (a stable sort on codes)
    tag, topic = _sorting_codes(mixed["run_tag"]), _sorting_codes(mixed["topic"])
    order = np.lexsort((-_sorting_codes(mixed["docno"]), position, topic, tag))
    ordered = mixed.iloc[order][["run_tag", "topic", "docno"]]
    group = tag[order] * (int(topic.max(initial=0)) + 1) + topic[order]
    return ordered.assign(trec_rank=positions_in_groups(group))


def _sorting_codes(column: pd.Series) -> np.ndarray:
    """int64 codes that sort as the column's values do (the column itself when integer)."""
    if pd.api.types.is_integer_dtype(column.dtype):
        return column.to_numpy(dtype=np.int64)
    return pd.factorize(column, sort=True)[0].astype(np.int64)


def _precision_pair(lines: pd.DataFrame, qrels: pd.DataFrame, k: int,
                    level: int) -> pd.DataFrame:
    """P@k and anti-precision AP@k (share of the top k judged not relevant) per run
    tag: means over the run's topics that the qrels have (their ``TRECEval.p_n``,
    lines 110-113)."""
    topics = set(qrels["topic"].unique())
    scored = lines[lines["topic"].isin(topics)]
    top = scored.loc[scored["trec_rank"] <= k, ["run_tag", "topic", "docno"]].merge(
        qrels[["topic", "docno", "grade"]], on=["topic", "docno"], how="left")
    grade = top["grade"].fillna(-1)
    relevant = is_relevant(grade, level)
    counts = top.assign(rel=relevant, anti=is_judged(grade) & ~relevant).groupby(
        ["run_tag", "topic"])[["rel", "anti"]].sum()
    every = scored[["run_tag", "topic"]].drop_duplicates().set_index(["run_tag", "topic"])
    counts = counts.reindex(every.index, fill_value=0) / k
    return counts.groupby(level="run_tag").mean().rename(columns={"rel": "P", "anti": "AP"})


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
        score of a left-out run; NaN for a new run), m the measure;
        ``clipped`` (the correction fell outside 0..1 and was clipped).
    :ivar plain: left-out runs, full-qrels ranking against the ranking by
        plain (leave-out) scores.
    :ivar corrected: the same against the ranking by corrected scores.
    :ivar clipped: per ``(run_tag, scored_as)`` whose correction fell outside 0..1,
        the value before clipping (module docstring), in ``per_run`` order.
    :ivar label: for any other measure than P@k and Recall@k
        (:mod:`pooltool.analysis.measure_correction`), the measure as asked for;
        then ``measure`` is ``score`` (the columns' prefix) and ``k`` unused.
    """

    per_run: pd.DataFrame
    plain: RankingComparison | None
    corrected: RankingComparison | None
    method: str
    measure: str
    k: int
    clipped: dict[tuple[str, str], float]
    label: str | None = None

    def overall(self) -> dict[str, object]:
        """``runs`` (left out), ``mae_plain``, ``mae_corrected`` (mean |score - full|
        over left-out runs), ``tau_plain``, ``tau_corrected`` (Kendall's tau-b
        against the full-qrels ranking), ``tau_ap_plain``, ``tau_ap_corrected``."""
        m = self.measure
        out = self.per_run[self.per_run["scored_as"] == "left out"]
        figures: dict[str, object] = {"method": self.method,
                                      "measure": self.label or f"{m}@{self.k}",
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
        ``max(k, depth)`` documents per topic; ``lipani`` reads whole runs).
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
        estimate = estimate_pool(top, qrels, depth, k, level, measure, groups, complete,
                                 drops=method != "lipani")
        rows += _scored(new_runs, qrels, k, method, measure, level, estimate, similar, complete,
                        "new", None)
    return clipped_and_ranked(pd.DataFrame(rows), method, measure, k)


def clipped_and_ranked(frame: pd.DataFrame, method: str, prefix: str, k: int,
                       label: str | None = None) -> Corrected:
    """The :class:`Corrected` of rows ``run_tag, scored_as, unjudged, <prefix>_plain,
    <prefix>_corrected, <prefix>_full``: corrections clipped to 0..1 (module docstring),
    and the left-out runs' rankings compared with the full-qrels one."""
    raw = frame[f"{prefix}_corrected"]
    frame[f"{prefix}_corrected"] = raw.clip(0.0, 1.0)
    frame["clipped"] = raw.ne(frame[f"{prefix}_corrected"])
    clipped = {(str(row.run_tag), str(row.scored_as)): float(value) for row, value
               in zip(frame.itertuples(index=False), raw, strict=True) if row.clipped}
    out = frame[frame["scored_as"] == "left out"].set_index("run_tag")
    full = out[f"{prefix}_full"]
    rankings = [compare_rankings(full, out[f"{prefix}_{side}"]) if len(out) >= 2 else None
                for side in ("plain", "corrected")]
    return Corrected(frame, rankings[0], rankings[1], method, prefix, k, clipped, label)


def _left_out(top: pd.DataFrame, qrels: pd.DataFrame, depth: int, k: int, method: str,
              measure: str, level: int, group_of: dict[str, str], group: str, similar: int,
              complete: bool) -> list[dict[str, object]]:
    """The runs of ``group`` scored with the group's unique judgments removed, corrected
    by the estimator fitted on the other runs under those reduced qrels."""
    mine = [t for t, g in group_of.items() if g == group]
    reduced = qrels_without_group(top, qrels, depth, group_of, group)
    others = top[~top["run_tag"].isin(mine)]
    others_groups = {t: g for t, g in group_of.items() if g != group}
    estimate = estimate_pool(others, reduced, depth, k, level, measure, others_groups, complete,
                             drops=method != "lipani")
    runs = top[top["run_tag"].isin(mine)]
    full = _summary(runs, qrels, k, level, complete)
    return _scored(runs, reduced, k, method, measure, level, estimate, similar, complete,
                   "left out", full[measure])


def _scored(runs: pd.DataFrame, qrels: pd.DataFrame, k: int, method: str, measure: str,
            level: int, estimate: PoolEstimate, similar: int, complete: bool, scored_as: str,
            full: pd.Series | None) -> list[dict[str, object]]:
    summary = _summary(runs, qrels, k, level, complete)
    ordered = runs if "trec_rank" in runs.columns else order_run(runs)
    rows = []
    for tag, row in summary.iterrows():
        plain, unjudged = float(row[measure]), float(row["unjudged"])
        mine = ordered[ordered["run_tag"] == tag]
        rows.append({
            "run_tag": tag, "scored_as": scored_as, "unjudged": unjudged,
            f"{measure}_plain": plain,
            f"{measure}_corrected": correct(method, measure, plain, mine, estimate, similar),
            f"{measure}_full": float(full[tag]) if full is not None else np.nan,
        })
    return rows


def _summary(runs: pd.DataFrame, qrels: pd.DataFrame, k: int, level: int,
             complete: bool) -> pd.DataFrame:
    """Each run's mean P@k, Recall@k and unjudged@k, indexed by run tag, input order."""
    result = evaluate_recall(runs, qrels, ks=[k], level=level, complete=complete)
    return result.summary.set_index("run_tag").loc[result.run_tags, ["P", "recall", "unjudged"]]
