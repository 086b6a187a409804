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

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pooltool.analysis.bias import (
    arrow_qrels,
    contributors,
    kept_rows,
    leave_one_out,
    pair_owners,
    top_ranks,
    unique_pairs,
)
from pooltool.analysis.leave_out_drops import PooledCodes, Summary, means_of, run_means
from pooltool.analysis.lipani import CodedLines, lipani_adjustment
from pooltool.analysis.stability import RankingComparison, compare_rankings
from pooltool.errors import NothingToScore, PooltoolError
from pooltool.formats.frames import check_qrels_frame
from pooltool.measures.per_topic import Columns
from pooltool.measures.recall import RecallResult, evaluate_recall
from pooltool.ranking import order_run

if TYPE_CHECKING:
    import pyarrow as pa

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
    :ivar coded: for ``lipani``, the lines of the validation coded once (the pooled
        runs, the new ones) with the full qrels (:class:`CodedLines`), or None:
        :func:`correct` codes ``runs``, ``qrels`` and the run itself.
    :ivar pooled: with ``coded``, which of its runs are ``runs`` (bool per tag code).
    :ivar judged: with ``coded``, which of its qrels rows are ``qrels`` (bool).
    """

    drop: pd.Series
    top_k: pd.DataFrame
    runs: pd.DataFrame
    qrels: pd.DataFrame
    k: int
    level: int
    coded: CodedLines | None = None
    pooled: np.ndarray | None = None
    judged: np.ndarray | None = None


def estimate_pool(top: pd.DataFrame, qrels: pd.DataFrame, depth: int, k: int, level: int,
                  measure: str, groups: dict[str, str] | None = None,
                  complete: bool = False, drops: bool = True,
                  checked: bool = False, scored: RecallResult | None = None) -> PoolEstimate:
    """Fit the estimators on the pooled runs ``top`` (lines with ``trec_rank``, at least
    their first ``max(k, depth)``; whole runs for ``lipani``) and ``qrels``.

    :param drops: False when the method reads no drop (``lipani``): the input is
        checked as leave-one-out checks it, but not left out (``drop`` is empty).
    :param checked: ``top`` and ``qrels`` are rows of frames already checked
        (:func:`~pooltool.formats.frames.check_run_frame`,
        :func:`~pooltool.formats.frames.check_qrels_frame`): not checked again (the
        validation's pooled runs and reduced qrels, once per group left out).
    :param scored: ``top``'s evaluation on ``qrels``, as
        :func:`~pooltool.analysis.bias.leave_one_out` takes it, or None.
    :raises PooltoolError: as :func:`~pooltool.analysis.bias.leave_one_out`.
    """
    top_k = top.loc[top["trec_rank"] <= k, ["run_tag", "topic", "docno"]]
    if not drops:
        _check_as_leave_one_out(top, qrels, depth, k, level, groups, checked)
        return PoolEstimate(pd.Series(dtype=np.float64), top_k, top, qrels, k, level)
    result = leave_one_out(top, qrels, depth, k, level, groups, complete, checked, scored)
    per_run = result.per_run.set_index("run_tag")
    return PoolEstimate(per_run[measure] - per_run[f"{measure}_loo"], top_k, top, qrels, k,
                        level)


def _check_as_leave_one_out(top: pd.DataFrame, qrels: pd.DataFrame, depth: int, k: int,
                            level: int, groups: dict[str, str] | None,
                            checked: bool = False) -> None:
    """Raise what :func:`~pooltool.analysis.bias.leave_one_out` raises on bad input,
    without its evaluations (lipani's estimate needs none of them); ``checked``: the
    lines are rows of a checked frame, and only the rest is checked."""
    if depth < 1 or k < 1:
        raise PooltoolError(f"pool depth and k must be at least 1 (got depth {depth}, k {k})")
    cut = max(k, depth)
    contributors(top[top["trec_rank"] <= cut] if checked else top_ranks(top, cut), qrels,
                 level, groups, check_qrels=not checked)


def correct(method: str, measure: str, plain: float, run: pd.DataFrame,
            estimate: PoolEstimate, similar: int = 3, code: int | None = None) -> float:
    """One run's corrected score (see the module docstring for each formula).

    :param plain: the run's score as judged (a fraction 0..1, mean over topics).
    :param run: its lines with ``trec_rank`` (``topic, docno, trec_rank``; the
        top k for ``webber-park-similar``, the whole run for ``lipani``).
    :param similar: how many most similar pooled runs ``webber-park-similar`` uses.
    :param code: for ``lipani`` with ``estimate.coded``: the run's tag code there.
    :raises PooltoolError: the method is not defined for ``measure``.
    """
    check_method(method, measure)
    if method == "lipani":
        return plain + _lipani(run, estimate, code)
    drop = estimate.drop
    if method == "webber-park-similar":
        run_top_k = run[run["trec_rank"] <= estimate.k]
        drop = drop.loc[most_similar(run_top_k, estimate.top_k, similar)]
    return plain + float(drop.mean())


def _lipani(run: pd.DataFrame, estimate: PoolEstimate, code: int | None) -> float:
    """:func:`~pooltool.analysis.lipani.lipani_adjustment` of ``run`` (tag ``code`` of
    ``estimate.coded``; without codes, the pooled runs, qrels and run coded here)."""
    if estimate.coded is not None and estimate.pooled is not None \
            and estimate.judged is not None and code is not None:
        return lipani_adjustment(estimate.coded, code, estimate.pooled, estimate.judged,
                                 estimate.k, estimate.level)
    coded = CodedLines.of(estimate.runs, estimate.qrels, run.assign(run_tag=0))
    pooled = np.arange(len(coded.tags)) < coded.pooled_tags
    return lipani_adjustment(coded, coded.pooled_tags, pooled,
                             np.ones(len(estimate.qrels), dtype=bool), estimate.k,
                             estimate.level)


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
                     complete: bool = False,
                     whole: Mapping[str, pa.Table] | None = None) -> Corrected:
    """Corrected scores of every pooled run under leave-one-out (the validation) and of
    every new run.

    :param top: the pooled runs' lines with ``trec_rank`` (at least their first
        ``max(k, depth)`` documents per topic; ``lipani`` reads whole runs, here or from
        ``whole``).
    :param qrels: ``topic, docno, grade`` (the full qrels).
    :param new_runs: lines of runs outside the pool (``run_tag, topic, docno,
        score``), or None.
    :param depth: the pool depth D.
    :param k: the cutoff of the measure.
    :param method: one of :data:`METHODS`.
    :param measure: ``P`` or ``recall``.
    :param groups: run tag -> group (left out together); default: each run alone.
    :param similar: pooled runs used by ``webber-park-similar``.
    :param whole: for ``lipani``, the pooled runs' whole lines as the store holds them (run
        tag -> its :meth:`~pooltool.store.JudgmentStore.run_entries` table, ``topic,
        docno, trec_rank``, in ``top``'s run order), coded without a frame
        (:meth:`CodedLines.of_tables`); None: ``top`` holds them.
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
    # the pairs one group alone pooled and their qrels rows, found once: each group's
    # reduced qrels drop its own
    owners = pair_owners(qrels, unique_pairs(top_ranks(top, depth), depth, group_of, qrels))
    new = new_runs if new_runs is not None and len(new_runs) else None
    ordered = None if new is None else new if "trec_rank" in new.columns else order_run(new)
    coded = None if method != "lipani" else CodedLines.of(top, qrels, ordered) \
        if whole is None else CodedLines.of_tables(list(whole.values()), list(whole), qrels,
                                                   ordered)
    validation = _Validation(top, qrels, owners, depth, k, level, complete, coded, group_of)
    rows = [row for group in dict.fromkeys(group_of.values())
            for row in _left_out(validation, method, measure, group_of, group, similar)]
    if new is not None and ordered is not None:
        estimate = estimate_pool(top, qrels, depth, k, level, measure, groups, complete,
                                 drops=method != "lipani", checked=True)
        estimate = validation.coded_estimate(estimate, None)
        rows += _scored(new, ordered, qrels, method, measure, estimate, similar, complete,
                        "new", None, validation)
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


class _Validation:
    """What every group left out shares: the pooled runs' lines to ``max(k, depth)``
    (``shallow``; lipani reads them whole from ``coded``), the full ``qrels`` (checked
    once: each group's reduced qrels are rows of them, not checked again), each qrels
    row's ``owners`` (:func:`~pooltool.analysis.bias.pair_owners`), those lines coded
    (``pooled``, :class:`PooledCodes`, groups by ``group_of``), and every pooled run's
    full-qrels scores, made once (a run's scores do not depend on the others')."""

    def __init__(self, top: pd.DataFrame, qrels: pd.DataFrame, owners: np.ndarray, depth: int,
                 k: int, level: int, complete: bool, coded: CodedLines | None,
                 group_of: dict[str, str]) -> None:
        self.shallow = top[top["trec_rank"] <= max(k, depth)]
        self.tag_codes, self.tags = pd.factorize(self.shallow["run_tag"])
        self.qrels, self.owners, self.coded = qrels, owners, coded
        self.pooled = PooledCodes.of(self.shallow, qrels, group_of, depth, k, level)
        self.depth, self.k, self.level, self.complete = depth, k, level, complete
        self._checked = False
        self._full: Summary | None = None
        self._full_failed = False
        self._whole: RecallResult | None = None
        self._whole_failed = False

    @cached_property
    def qrels_table(self) -> pa.Table:
        """The full qrels as Arrow columns (``arrow_qrels``), made once."""
        return arrow_qrels(self.qrels)

    def check_qrels(self) -> None:
        """Check the full qrels (once), as the first group's inner check did."""
        if not self._checked:
            check_qrels_frame(self.qrels)
            self._checked = True

    def split(self, mine: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
        """``shallow``'s lines of the runs ``mine`` and of the others."""
        chosen = np.isin(self.tag_codes, [self.tags.get_loc(tag) for tag in mine])
        return self.shallow[chosen], self.shallow[~chosen]

    def full(self, runs: pd.DataFrame) -> Summary:
        """:func:`~pooltool.analysis.leave_out_drops.run_means` of ``runs`` (rows of
        ``shallow``) on the full qrels: entries of every pooled run's, or, if one of them
        has no qrels topic, the group's own (which raises where the validation met it)."""
        if self._full is None and not self._full_failed:
            try:
                self._full = run_means(self.shallow, self.qrels_table, self.k,
                                      self.level, self.complete)
            except NothingToScore:
                self._full_failed = True
        if self._full is None:
            return run_means(runs, self.qrels_table, self.k, self.level, self.complete)
        return {tag: self._full[tag] for tag in dict.fromkeys(runs["run_tag"])}

    def group_scores(self, kept: np.ndarray, table: pa.Table,
                     mine: list[str]) -> tuple[Columns, Summary] | None:
        """Every pooled run's per-topic scores (to ``max(k, depth)``) on a group's reduced
        qrels (rows ``kept``, as Arrow columns ``table``), for webber-park's inner
        leave-one-out (the others'), and the plain scores of the group's runs ``mine`` (a
        run's scores do not depend on the others'). Derived from every run's evaluation
        on the full qrels, made once (:meth:`PooledCodes.reduced`), or where that would
        not be exact evaluated on
        ``table``; None if that raises (e.g. a run with no topic there): the steps then
        score apart, and raise where they always did."""
        if not self._whole_failed and self._whole is None:
            self._whole = self._every_run(self.qrels_table)
            self._whole_failed = self._whole is None
        derived = None if self._whole is None else self.pooled.reduced(kept, self._whole)
        if derived is not None:
            return derived, self.pooled.plain(derived, mine)
        scored = self._every_run(table)
        return None if scored is None else (scored.per_topic_columns, means_of(scored, mine))

    def _every_run(self, table: pa.Table) -> RecallResult | None:
        """Every pooled run's evaluation (to ``max(k, depth)``) on ``table``; None if it
        raises."""
        try:
            return evaluate_recall(self.shallow, table, ks=[self.k], level=self.level,
                                   complete=self.complete, ranked=True)
        except (PooltoolError, ValueError):
            return None

    def coded_estimate(self, estimate: PoolEstimate, mine: list[str] | None,
                       judged: np.ndarray | None = None) -> PoolEstimate:
        """``estimate`` with the coded lines (lipani): the pooled runs but ``mine`` (a group
        left out; None: all), and the qrels rows ``judged`` (None: all)."""
        if self.coded is None:
            return estimate
        pooled = np.arange(len(self.coded.tags)) < self.coded.pooled_tags
        pooled[[self.coded.code(tag) for tag in mine or ()]] = False
        judged = np.ones(len(self.qrels), dtype=bool) if judged is None else judged
        return replace(estimate, coded=self.coded, pooled=pooled, judged=judged)


def _left_out(validation: _Validation, method: str, measure: str, group_of: dict[str, str],
              group: str, similar: int) -> list[dict[str, object]]:
    """The runs of ``group`` scored with the group's unique judgments removed, corrected
    by the estimator fitted on the other runs under those reduced qrels (rows of the
    full ones)."""
    mine = [t for t, g in group_of.items() if g == group]
    judged = kept_rows(validation.owners, group)
    reduced = validation.qrels[judged]
    runs, others = validation.split(mine)
    others_groups = {t: g for t, g in group_of.items() if g != group}
    # others are rows of top, which unique_pairs' top_ranks checked in corrected_scores,
    # and reduced rows of the full qrels, checked here
    validation.check_qrels()
    table = arrow_qrels(reduced)
    scores = validation.group_scores(judged, table, mine)
    if scores is not None and method != "lipani":
        # the drops from codes (leave_out_drops); the same as estimate_pool's below
        estimate = PoolEstimate(validation.pooled.drops(group, judged, scores[0], measure),
                                others.loc[others["trec_rank"] <= validation.k,
                                           ["run_tag", "topic", "docno"]],
                                others, reduced, validation.k, validation.level)
    else:
        estimate = estimate_pool(others, reduced, validation.depth, validation.k,
                                 validation.level, measure, others_groups, validation.complete,
                                 drops=method != "lipani", checked=True)
    estimate = validation.coded_estimate(estimate, mine, judged)
    full = validation.full(runs)
    plain = None if scores is None else scores[1]
    return _scored(runs, runs, table, method, measure, estimate, similar,
                   validation.complete, "left out", full, validation, plain)


def _scored(runs: pd.DataFrame, ordered: pd.DataFrame, qrels: pd.DataFrame | pa.Table,
            method: str, measure: str, estimate: PoolEstimate, similar: int, complete: bool,
            scored_as: str, full: Summary | None, validation: _Validation,
            summary: Summary | None = None) -> list[dict[str, object]]:
    """Rows of :func:`corrected_scores` for ``runs`` (``ordered``: the same with
    ``trec_rank``) scored on ``qrels`` (``summary``: their
    :func:`~pooltool.analysis.leave_out_drops.run_means` there, if made;
    ``full``: their full-qrels one, for runs left out)."""
    k, level = estimate.k, estimate.level
    if summary is None:
        summary = run_means(runs, qrels, k, level, complete)
    rows = []
    for tag, row in summary.items():
        plain, unjudged = row[measure], row["unjudged"]
        mine = ordered[ordered["run_tag"] == tag]
        code = (validation.coded.code(tag, new=scored_as == "new")
                if validation.coded is not None else None)
        rows.append({
            "run_tag": tag, "scored_as": scored_as, "unjudged": unjudged,
            f"{measure}_plain": plain,
            f"{measure}_corrected": correct(method, measure, plain, mine, estimate, similar,
                                            code),
            f"{measure}_full": full[tag][measure] if full is not None else np.nan,
        })
    return rows
