"""Lipani, Lupu and Hanbury's correction of P@k (SIGIR 2015), as their reference code
computes it (PoolBiasEstimators ``LipaniEstimator.scala``): the formula is in
:mod:`pooltool.analysis.bias_correction`'s docstring, which offers it as ``lipani``.
Here on integer codes of the run tags, topics and docnos (pandas merges and sorts
strings about ten times slower), coded once for a whole leave-one-out
(:class:`CodedLines`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pooltool.ranking import positions_in_groups
from pooltool.records import is_judged, is_relevant


@dataclass(frozen=True)
class CodedLines:
    """Run lines and qrels whose ``run_tag``, ``topic`` and ``docno`` are int64 codes that
    sort as the strings do, coded once over both (:func:`_coded`): rows taken from them
    by index compare, group and sort as the same rows' strings would, so the leave-one-out
    loop codes the pooled runs once, not once a group left out."""

    lines: pd.DataFrame
    qrels: pd.DataFrame

    @classmethod
    def of(cls, lines: pd.DataFrame, qrels: pd.DataFrame) -> CodedLines | None:
        """The coded frames, or None when an index repeats (rows not found by index)."""
        if not (lines.index.is_unique and qrels.index.is_unique):
            return None
        _, coded_lines, coded_qrels = _coded(lines.iloc[:0], lines, qrels)
        return cls(coded_lines, coded_qrels)

    def rows(self, run: pd.DataFrame, pooled: pd.DataFrame,
             qrels: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
        """The coded rows of ``run`` and ``pooled`` (rows of :attr:`lines`) and ``qrels``
        (rows of :attr:`qrels`), as :func:`_coded` returns them."""
        return (self.lines.loc[run.index, ["topic", "docno", "trec_rank"]],
                self.lines.loc[pooled.index, ["run_tag", "topic", "docno", "trec_rank"]],
                self.qrels.loc[qrels.index, ["topic", "docno", "grade"]])


def lipani_adjustment(run: pd.DataFrame, pooled: pd.DataFrame, qrels: pd.DataFrame, k: int,
                      level: int = 1, coded: CodedLines | None = None) -> float:
    """What Lipani, Lupu and Hanbury's estimator adds to a run's P@k (SIGIR 2015; the
    formula is in the module docstring; PoolBiasEstimators ``LipaniEstimator.scala``,
    ``getAdjP`` lines 18-47).

    :param run: the run's lines ``topic, docno, trec_rank`` (whole, trec_eval order).
    :param pooled: the pooled runs' lines ``run_tag, topic, docno, trec_rank`` (whole).
    :param qrels: ``topic, docno, grade``; relevant is ``grade >= level``, judged not
        relevant ``0 <= grade < level`` (their ``QRels.inverse``: grade 0 at level 1).
    :param coded: ``run`` and ``pooled`` are rows of ``coded.lines``, ``qrels`` rows of
        ``coded.qrels``: their codes are taken, not made again.
    :returns: the adjustment, a fraction 0..1 (0 when lambda <= 0).

    Their code rounds each P@k and AP@k to 4 decimals (``TRECEval.computeMetric``,
    line 152) before subtracting; this does not, so the two agree to about 1e-4.
    """
    run, pooled, qrels = (coded.rows(run, pooled, qrels) if coded
                          else _coded(run, pooled, qrels))
    mine = _precision_pair(run.assign(run_tag=-1), qrels, k, level).iloc[0]
    unjudged = 1.0 - mine["P"] - mine["AP"]
    if unjudged == 0 or pooled.empty:
        return 0.0
    before = _precision_pair(pooled, qrels, k, level)
    after = _precision_pair(rerank_top_k(pooled, run, k), qrels, k, level).reindex(before.index)
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


def rerank_top_k(pooled: pd.DataFrame, run: pd.DataFrame, k: int) -> pd.DataFrame:
    """The top ``k`` of each pooled run p re-ranked by ``run`` s (their ``p ◦ s``,
    ``LipaniEstimator.scala`` ``getNewRunBySelectedRuns`` and ``getNewScore``, lines
    66-101), on the topics both have.

    A document of p at rank r_p that s has at rank r_s moves to r_s plus a
    tie-break: 1e-4 if r_s = r_p, (r_p + 1) / 1e4 if it moves down, r_p / 1e8 if
    it moves up; the others stay at r_p + 1e-4. Ties left go to docno descending
    (their ``Run.normalizeRank``). Their scores are 32-bit floats, which can tie
    two of these positions that float64 keeps apart; not reproduced here.

    Only the lines that can rank ``k`` or better are sorted (:func:`_may_reach_top_k`):
    P@k and AP@k read no others.

    :returns: ``run_tag, topic, docno, trec_rank`` (the new ranks, up to ``k``).
    """
    mixed, position = _mixed_positions(pooled, run)
    keep = _may_reach_top_k(mixed, position, k)
    ranked = _ranked(mixed[keep], position[keep])
    return ranked[ranked["trec_rank"] <= k]


def _mixed_positions(pooled: pd.DataFrame, run: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """The pooled lines on the run's topics with ``r_s`` (the run's rank of the
    document, NaN if it has none), and each line's new position (:func:`rerank_top_k`)."""
    theirs = run[["topic", "docno", "trec_rank"]].rename(columns={"trec_rank": "r_s"})
    mixed = pooled.loc[pooled["topic"].isin(theirs["topic"].unique()),
                       ["run_tag", "topic", "docno", "trec_rank"]].merge(
        theirs, on=["topic", "docno"], how="left")
    r_p, r_s = mixed["trec_rank"].to_numpy(float), mixed["r_s"].to_numpy(float)
    step = r_s - r_p
    tie_break = np.select([step == 0, step > 0], [1e-4, (r_p + 1) / 1e4], r_p / 1e8)
    return mixed, np.where(np.isnan(r_s), r_p + 1e-4, r_s + tie_break)


def _ranked(mixed: pd.DataFrame, position: np.ndarray) -> pd.DataFrame:
    """``run_tag, topic, docno, trec_rank``: each (run, topic)'s lines ranked by position,
    ties to docno descending."""
    # by run tag, topic, position, then docno descending (a stable sort on codes)
    tag, topic = _sorting_codes(mixed["run_tag"]), _sorting_codes(mixed["topic"])
    order = np.lexsort((-_sorting_codes(mixed["docno"]), position, topic, tag))
    ordered = mixed.iloc[order][["run_tag", "topic", "docno"]]
    group = tag[order] * (int(topic.max(initial=0)) + 1) + topic[order]
    return ordered.assign(trec_rank=positions_in_groups(group))


def _may_reach_top_k(mixed: pd.DataFrame, position: np.ndarray, k: int) -> np.ndarray:
    """Which lines can rank ``k`` or better in their (run, topic): all but those with at
    least k lines of a lower floor of min(position, cap) before them, cap >= k.

    Exact: with c = clip(floor(position), 0, cap), c' < c implies position' < position,
    so a line dropped has k lines ranked before it; a line of the true top k has
    fewer than k lines of lower position, so fewer of lower c, and is kept. The kept
    lines hold the true top k, in the same order, so their ranks up to k are the
    same. The cap is as deep as the (run, topic) x (cap + 1) counts allow within
    about four per line (a cap of k alone keeps every line of a (run, topic) whose
    top k the run moved down: all of them share the floor k); when even cap = k
    would outgrow that, all are kept.
    """
    tag, topic = _sorting_codes(mixed["run_tag"]), _sorting_codes(mixed["topic"])
    group = pd.factorize(tag * (int(topic.max(initial=0)) + 1) + topic)[0]
    groups = int(group.max(initial=-1)) + 1
    budget = 4 * len(mixed) + 1024
    deepest = int(np.floor(position.max(initial=0.0)))
    cap = max(k, min(deepest, budget // max(groups, 1) - 1))
    if groups * (cap + 1) > budget:
        return np.ones(len(mixed), dtype=bool)
    capped = np.clip(np.floor(position), 0, cap).astype(np.int64)
    key = group * (cap + 1) + capped
    counts = np.bincount(key, minlength=groups * (cap + 1)).reshape(groups, cap + 1)
    lower = (np.cumsum(counts, axis=1) - counts).ravel()
    return lower[key] < k


def _sorting_codes(column: pd.Series) -> np.ndarray:
    """int64 codes that sort as the column's values do (the column itself when integer)."""
    if pd.api.types.is_integer_dtype(column.dtype):
        return column.to_numpy(dtype=np.int64)
    return pd.factorize(column, sort=True)[0].astype(np.int64)


def _precision_pair(lines: pd.DataFrame, qrels: pd.DataFrame, k: int,
                    level: int) -> pd.DataFrame:
    """P@k and anti-precision AP@k (share of the top k judged not relevant) per run
    tag: means over the run's topics that the qrels have (their ``TRECEval.p_n``,
    lines 110-113).

    :param lines: ``run_tag, topic, docno, trec_rank``, the ids int64 codes
        (:func:`_coded`).
    :param qrels: ``topic, docno, grade``, coded alike; a (topic, docno) listed twice
        counts twice, as a join on the pair counts it.
    :returns: ``P, AP`` (fractions 0..1) indexed by ``run_tag`` (ascending).
    """
    tag, topic, docno, rank = (lines[c].to_numpy(dtype=np.int64)
                               for c in ("run_tag", "topic", "docno", "trec_rank"))
    q_topic, q_docno = (qrels[c].to_numpy(dtype=np.int64) for c in ("topic", "docno"))
    grade = qrels["grade"].to_numpy()
    scored = np.isin(topic, q_topic)
    tag, topic, docno, rank = tag[scored], topic[scored], docno[scored], rank[scored]
    # each top-k line's judgments: the qrels rows of its (topic, docno), by binary search
    width = int(max(docno.max(initial=0), q_docno.max(initial=0))) + 1
    order = np.argsort(q_topic * width + q_docno, kind="stable")
    judged_keys = (q_topic * width + q_docno)[order]
    relevant = is_relevant(grade, level)[order]
    rel_before = np.concatenate([[0], np.cumsum(relevant)])
    anti_before = np.concatenate([[0], np.cumsum(is_judged(grade)[order] & ~relevant)])
    top = rank <= k
    keys = topic[top] * width + docno[top]
    low = np.searchsorted(judged_keys, keys, side="left")
    high = np.searchsorted(judged_keys, keys, side="right")
    # per (run, topic) of the scored lines, in order of first appearance
    pair = tag * (int(topic.max(initial=0)) + 1) + topic
    uniques, first = np.unique(pair, return_index=True)
    at = np.searchsorted(uniques, pair[top])
    rel = np.bincount(at, weights=rel_before[high] - rel_before[low], minlength=len(uniques))
    anti = np.bincount(at, weights=anti_before[high] - anti_before[low],
                       minlength=len(uniques))
    appearance = np.argsort(first, kind="stable")
    index = pd.MultiIndex.from_arrays([tag[first[appearance]], topic[first[appearance]]],
                                      names=["run_tag", "topic"])
    counts = pd.DataFrame({"rel": rel[appearance].astype(np.int64) / k,
                           "anti": anti[appearance].astype(np.int64) / k}, index=index)
    return counts.groupby(level="run_tag").mean().rename(columns={"rel": "P", "anti": "AP"})
