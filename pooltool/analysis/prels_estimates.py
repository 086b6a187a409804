"""Estimated R and Recall@k from sampled judgments drawn outside pooltool
(``pooltool recall --prels FILE``), read by :func:`pooltool.formats.prels.read_prels`.

Two designs, one per layout:

* ``strata`` (sample_eval.pl's): a stratified simple random sample whose frame the file
  lists whole, the same design as pooltool's own samples (:mod:`pooltool.analysis.
  sampling`), so :func:`strata_design` turns it into a
  :class:`~pooltool.analysis.sample_estimates.Design` and
  :func:`~pooltool.analysis.sample_estimates.estimate_recall` estimates from it with
  the same estimators and intervals (the Horvitz-Thompson R, the hierarchical
  Beta-binomial posterior; or MOVER-Wilson). A stratum every listed document of which
  is judged, in every topic, is taken as the pool (known exactly, as pooltool's pool);
  every other stratum keeps its label and its order of first appearance in the file.
  Documents the file does not list are outside the frame: R is R of the listed
  documents.

* ``prels`` (the Million Query track's): each judged document with its own inclusion
  probability pi_i, the frame not listed. :func:`estimate_poisson` gives the
  Horvitz-Thompson estimates (Horvitz & Thompson 1952) ``R_hat = sum_i y_i / pi_i``
  (y_i: relevant) and Recall@k as the ratio ``Y_hat / R_hat`` (Y: relevant in the
  run's first k), with normal 95% intervals from the variance estimates of Poisson
  sampling (each document included independently; Sarndal, Swensson & Wretman 1992,
  'Model Assisted Survey Sampling', sec. 3.5 and, for the ratio, the linearised
  variance of sec. 5.6 / Result 5.6.1): ``sum_i (1 - pi_i) / pi_i^2 y_i^2`` and
  ``sum_i (1 - pi_i) / pi_i^2 (y_i - r_hat x_i)^2 / R_hat^2``. The file does not say
  the joint inclusion probabilities; for a design without replacement of fixed size
  these variances are conservative or close (Sarndal et al. sec. 3.6). The lower end
  of R's interval is never below the relevant documents judged; recall's is clipped
  to [0, 1]. Means over topics have the variance ``sum_t var_t / n^2`` (topics sampled
  independently).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from pooltool.analysis.estimate import Z95
from pooltool.analysis.sample_estimates import ESTIMATE_COLUMNS, Design, Estimates
from pooltool.analysis.sampling import Stratum
from pooltool.ranking import trec_ranks
from pooltool.records import is_judged, is_relevant, topic_key

#: The frame of a design read from a file: the documents it lists.
LISTED_FRAME = "listed"

POISSON_METHOD = ("normal: the Horvitz-Thompson estimate +- 1.96 standard errors, the "
                  "variance of Poisson sampling from each document's inclusion probability "
                  "(Sarndal, Swensson & Wretman 1992, sec. 3.5; Recall@k the ratio "
                  "estimate, linearised variance, sec. 5.6)")


def strata_design(prels: pd.DataFrame, name: str) -> tuple[Design, pd.DataFrame]:
    """The design of a ``strata`` file, and the judgments it holds.

    :param prels: ``topic, docno, grade, inclusion, stratum`` (``read_prels(...,
        "strata")``).
    :param name: what to call the design (the file's name).
    :returns: the :class:`~pooltool.analysis.sample_estimates.Design` (frame
        ``listed``; its strata placed by a key, stratum ``j`` holding the key ``j + 1``,
        each listed document of it given that key as its best rank) and the qrels
        ``topic, docno, grade`` of its judged documents.
    """
    judged = is_judged(prels["grade"])
    whole = judged.groupby(prels["stratum"], sort=False).all()
    certain = prels["stratum"].map(whole).to_numpy(dtype=bool)
    labels = [label for label in pd.unique(prels["stratum"]) if not whole[label]]
    strata = [Stratum(str(label), j + 1, j + 1) for j, label in enumerate(labels)]
    key = {label: float(j + 1) for j, label in enumerate(labels)}
    framed = prels[~certain]
    framed_judged = is_judged(framed["grade"]).to_numpy(dtype=bool)
    sampled = framed[framed_judged]
    sizes = framed.assign(judged=framed_judged).groupby(
        ["topic", "stratum"], as_index=False, sort=False).agg(
        population=("grade", "size"), size=("judged", "sum"))
    design = Design(
        name=name, strata=strata, frame=LISTED_FRAME,
        pooled=prels.loc[certain, ["topic", "docno"]].reset_index(drop=True),
        docs=sampled[["topic", "docno", "stratum", "inclusion"]].reset_index(drop=True),
        sizes=sizes.astype({"population": "int64", "size": "int64"}),
        best_ranks=framed[["topic", "docno"]].assign(
            best_rank=framed["stratum"].map(key).to_numpy(dtype=float)).reset_index(drop=True),
        base_pool=", ".join(str(s) for s in pd.unique(prels.loc[certain, "stratum"])))
    qrels = prels.loc[judged.to_numpy(dtype=bool), ["topic", "docno", "grade"]]
    return design, qrels.reset_index(drop=True)


def estimate_poisson(runs: pd.DataFrame, prels: pd.DataFrame, ks: Sequence[int],
                     level: int = 1, complete: bool = False,
                     max_docs: int | None = None) -> Estimates:
    """Estimate R and each run's Recall@k per topic from a ``prels`` file (module
    docstring), with 95% intervals.

    :param runs: ``run_tag, topic, docno, score`` (a ``trec_rank`` column, if there, is
        used as each line's trec_eval rank).
    :param prels: ``topic, docno, grade, inclusion`` (``read_prels(..., "prels")``);
        a line with a negative grade is a sampled document not judged.
    :param ks: cutoffs (>= 1).
    :param level: the lowest relevant grade.
    :param complete: trec_eval's ``-c``: a run is averaged over every topic of the file,
        one it did not retrieve for scoring 0 (``num_q`` counts it).
    :param max_docs: trec_eval's ``-M``: only each run's first ``max_docs`` documents
        per topic count.
    :returns: :class:`~pooltool.analysis.sample_estimates.Estimates` with interval
        ``normal``; ``est_R`` is ``est_R_ht``.
    :raises CannotEstimate: a sampled document with a negative grade (not judged).
    """
    from pooltool.analysis.sample_estimates import CannotEstimate

    unjudged = prels[~is_judged(prels["grade"]).to_numpy(dtype=bool)]
    if len(unjudged):
        first = unjudged.iloc[0]
        raise CannotEstimate(
            f"{len(unjudged)} sampled document(s) have a negative grade, which is no "
            f"judgment (first: topic {first['topic']!r}, docno {first['docno']!r}); the "
            "estimate needs every sampled document judged")
    topics = sorted(set(prels["topic"]), key=topic_key)
    weights = prels.assign(
        relevant=is_relevant(prels["grade"], level).to_numpy(dtype=bool),
        weight=1.0 / prels["inclusion"].to_numpy(dtype=float))
    weights = weights.assign(spread=(1.0 - weights["inclusion"]) * weights["weight"] ** 2)
    relevant = weights[weights["relevant"]]
    per_r = _totals(relevant, topics, weights)
    depth = max(ks) if max_docs is None else min(max(ks), max_docs)
    lines = _top_lines(runs, topics, depth).merge(
        relevant[["topic", "docno", "weight", "spread"]], on=["topic", "docno"])
    rows, summary = [], []
    for tag in pd.unique(runs["run_tag"]):
        retrieved = set(runs.loc[runs["run_tag"] == tag, "topic"]) & set(topics)
        counted = topics if complete else [t for t in topics if t in retrieved]
        for k in ks:
            cut = lines[(lines["run_tag"] == tag) & (lines["trec_rank"] <= k)]
            recall = _ratio(relevant, cut, per_r.loc[counted])
            for topic in counted:
                if topic in retrieved:
                    rows.append((tag, topic, k, *per_r.loc[topic, ["sampled", "est_R",
                                                                   "est_R_low",
                                                                   "est_R_high",
                                                                   "est_R_ht"]],
                                 *recall.loc[topic, ["est", "low", "high"]]))
            if counted:
                summary.append((tag, k, len(counted), int(per_r.loc[counted, "sampled"].sum()),
                                *_mean(per_r.loc[counted, "est_R"],
                                       per_r.loc[counted, "variance"],
                                       floor=float(per_r.loc[counted,
                                                             "judged_relevant"].mean())),
                                float(per_r.loc[counted, "est_R"].mean()),
                                *_mean(recall["est"], recall["variance"], 0.0, 1.0)))
    per_topic = pd.DataFrame(rows, columns=["run_tag", "topic", "k", "sampled",
                                            *ESTIMATE_COLUMNS])
    summary_frame = pd.DataFrame(summary, columns=["run_tag", "k", "num_q", "sampled",
                                                   "est_R", "est_R_low", "est_R_high",
                                                   "est_R_ht", "est_recall",
                                                   "est_recall_low", "est_recall_high"])
    for frame in (per_topic, summary_frame):
        frame["sampled"] = frame["sampled"].astype("int64")
        for column in ESTIMATE_COLUMNS:
            frame[column] = frame[column].astype(float)
    topics_frame = per_r.reset_index()[["topic", "pooled_relevant", "sampled", "est_R",
                                        "est_R_low", "est_R_high", "est_R_ht"]]
    return Estimates(per_topic, summary_frame, POISSON_METHOD, topics_frame, "", "normal")


def _totals(relevant: pd.DataFrame, topics: list[str], weights: pd.DataFrame) -> pd.DataFrame:
    """Per topic (index): ``pooled_relevant`` (relevant with inclusion 1), ``sampled``
    (judged documents with inclusion below 1), ``judged_relevant``, ``est_R`` (=
    ``est_R_ht``), ``variance`` and the interval."""
    by_topic = relevant.groupby("topic")
    out = pd.DataFrame(index=pd.Index(topics, name="topic"))
    out["pooled_relevant"] = by_topic["inclusion"].apply(lambda p: int((p == 1.0).sum()))
    out["sampled"] = weights[weights["inclusion"] < 1.0].groupby("topic").size()
    out["judged_relevant"] = by_topic.size()
    out["est_R"] = by_topic["weight"].sum()
    out["variance"] = by_topic["spread"].sum()
    out = out.fillna(0.0).astype({"pooled_relevant": "int64", "sampled": "int64"})
    half = Z95 * np.sqrt(out["variance"])
    out["est_R_low"] = np.maximum(out["est_R"] - half, out["judged_relevant"])
    out["est_R_high"] = out["est_R"] + half
    out["est_R_ht"] = out["est_R"]
    return out


def _top_lines(runs: pd.DataFrame, topics: list[str], depth: int) -> pd.DataFrame:
    """``run_tag, topic, docno, trec_rank`` of each run's first ``depth`` documents in
    ``topics`` (trec_eval order: :func:`~pooltool.ranking.trec_ranks`)."""
    rank = (runs["trec_rank"].to_numpy(dtype=np.int64) if "trec_rank" in runs.columns
            else trec_ranks(runs[["run_tag", "topic", "docno", "score"]]))
    lines = runs[["run_tag", "topic", "docno"]].assign(trec_rank=rank)
    return lines[(lines["trec_rank"] <= depth) & lines["topic"].isin(topics)]


def _ratio(relevant: pd.DataFrame, cut: pd.DataFrame, totals: pd.DataFrame) -> pd.DataFrame:
    """Per topic of ``totals``: the ratio estimate of Recall@k (``est``), its linearised
    variance and interval (module docstring); a topic with no relevant document judged
    has recall 0 with the interval [0, 1] (the sample says nothing of it)."""
    retrieved = cut.groupby("topic")["weight"].sum().reindex(totals.index, fill_value=0.0)
    r_hat = totals["est_R"]
    est = (retrieved / r_hat.where(r_hat > 0)).fillna(0.0)
    top = relevant.merge(cut[["topic", "docno"]].assign(top=1.0), on=["topic", "docno"],
                         how="left").fillna({"top": 0.0})
    residual = top["top"] - top["topic"].map(est).fillna(0.0)
    spread = (top["spread"] * residual ** 2).groupby(top["topic"]).sum()
    variance = (spread.reindex(totals.index, fill_value=0.0)
                / (r_hat.where(r_hat > 0) ** 2)).fillna(0.0)
    half = Z95 * np.sqrt(variance)
    nothing = r_hat <= 0
    low = np.where(nothing, 0.0, np.clip(est - half, 0.0, 1.0))
    high = np.where(nothing, 1.0, np.clip(est + half, 0.0, 1.0))
    return pd.DataFrame({"est": est, "variance": variance, "low": low, "high": high},
                        index=totals.index)


def _mean(estimates: pd.Series, variances: pd.Series, floor: float,
          ceiling: float = np.inf) -> tuple[float, float, float]:
    """The mean of per-topic estimates and its normal 95% interval (topics independent:
    variance ``sum / n^2``), clipped to [floor, ceiling] (the mean of the relevant
    documents judged, for R; [0, 1] for a recall)."""
    mean = float(estimates.mean())
    half = Z95 * float(np.sqrt(variances.sum())) / len(estimates)
    return mean, max(mean - half, floor), min(mean + half, ceiling)
