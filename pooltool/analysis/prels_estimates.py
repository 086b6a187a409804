"""Estimated R and Recall@k from sampled judgments drawn outside pooltool
(``pooltool recall --prels FILE``), read by :func:`pooltool.formats.prels.read_prels`.

Two designs, one per layout:

* ``strata`` (sample_eval.pl's): a stratified simple random sample whose frame the file
  lists whole, the same design as pooltool's own samples (:mod:`pooltool.analysis.
  sampling`), so :func:`strata_design` turns it into a
  :class:`~pooltool.analysis.sample_design.Design` and
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
  (y_i: relevant) and Recall@k as the ratio ``Y_hat / (Y_hat + X_hat)`` (Y: relevant
  in the run's first k, X: the others), taking the sample as a Poisson sample (each
  document in or out independently). Documents with pi = 1 are counted exactly. The
  sampled relevant documents of a class sharing one pi are then binomial, close to
  Poisson, so each total is a weighted sum of Poisson counts (weights 1 / pi) and gets
  Fay & Feuer's gamma interval (:func:`fay_feuer`), whose upper end counts with the
  largest weight of the file even where the sample found nothing: the normal interval
  of the Horvitz-Thompson variance (Sarndal, Swensson & Wretman 1992, sec. 3.5)
  collapses there, and on Cranfield (pool depth 10, rates 0.5 to 0.02 beyond it) held
  the true R on 46% of topics. The lower end is never below what was found; Y's upper
  end never above what was found plus the run's first-k documents the file does not
  list (none: Y is known). Recall@k's interval combines Y's and X's by MOVER-R
  (:func:`~pooltool.analysis.mover.mover_ratio`), mean R over topics by MOVER
  (:func:`~pooltool.analysis.mover.mover_mean`), as the ``mover-wilson`` interval
  of pooltool's own samples does. Mean Recall@k's interval is the means of the topics'
  lows and highs, which holds whenever every topic's does: the ratio estimate is biased
  upward where a deep stratum's sample found nothing (on Cranfield by 0.16 in mean
  Recall@100), and a MOVER interval around that mean held the true mean in none of 20
  repetitions; this one held it in all, and is wide. The file does not say the joint inclusion
  probabilities; for a design without replacement of fixed size the Poisson view is
  conservative or close (Sarndal et al. sec. 3.6).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from pooltool.analysis.mover import mover_mean, mover_ratio
from pooltool.analysis.sample_design import Design
from pooltool.analysis.sample_estimates import ESTIMATE_COLUMNS, Estimates
from pooltool.analysis.sampling import Stratum
from pooltool.ranking import trec_ranks
from pooltool.records import is_judged, is_relevant, topic_key

#: The frame of a design read from a file: the documents it lists.
LISTED_FRAME = "listed"

GAMMA_METHOD = ("gamma: the Horvitz-Thompson estimate with Fay & Feuer's (1997) gamma "
                "interval for a weighted sum of Poisson counts (weights 1 / inclusion, the "
                "largest weight bounding what no sample found); Recall@k the ratio of the "
                "estimates inside and outside the run's first k, its interval by MOVER-R "
                "(Newcombe 2016); mean R by MOVER (Zou & Donner 2008), mean Recall@k from "
                "the means of the topics' ends (it holds whenever theirs all do)")


def strata_design(prels: pd.DataFrame, name: str) -> tuple[Design, pd.DataFrame]:
    """The design of a ``strata`` file, and the judgments it holds.

    :param prels: ``topic, docno, grade, inclusion, stratum`` (``read_prels(...,
        "strata")``).
    :param name: what to call the design (the file's name).
    :returns: the :class:`~pooltool.analysis.sample_design.Design` (frame
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
        ``gamma``; ``est_R`` is ``est_R_ht``.
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
    sample = _Sample(prels, topics, level)
    r_est, r_low, r_high = sample.total(sample.relevant, sample.largest_weight)
    per_r = pd.DataFrame({"topic": topics, "pooled_relevant": sample.certain_relevant(),
                          "sampled": sample.sampled(), "est_R": r_est, "est_R_low": r_low,
                          "est_R_high": r_high, "est_R_ht": r_est})
    depth = max(ks) if max_docs is None else min(max(ks), max_docs)
    lines = _top_lines(runs, topics, depth)
    rows, summary = [], []
    for tag in pd.unique(runs["run_tag"]):
        mine = lines[lines["run_tag"] == tag]
        retrieved = np.isin(topics, runs.loc[runs["run_tag"] == tag, "topic"].unique())
        counted = np.ones(len(topics), dtype=bool) if complete else retrieved
        for k in ks:
            recall, low, high = sample.recall(mine[mine["trec_rank"] <= k])
            for i in np.flatnonzero(retrieved):
                rows.append((tag, topics[i], k, per_r["sampled"].iloc[i], r_est[i], r_low[i],
                             r_high[i], r_est[i], recall[i], low[i], high[i]))
            if counted.any():
                zeros = ~retrieved[counted]  # -c: scored 0, known exactly
                recall_mean = tuple(float(np.where(zeros, 0.0, v[counted]).mean())
                                    for v in (recall, low, high))
                r_mean = mover_mean(r_est[counted], r_low[counted], r_high[counted])
                summary.append((tag, k, int(counted.sum()),
                                int(per_r["sampled"][counted].sum()), *r_mean,
                                r_mean[0], *recall_mean))
    per_topic = pd.DataFrame(rows, columns=["run_tag", "topic", "k", "sampled",
                                            *ESTIMATE_COLUMNS])
    summary_frame = pd.DataFrame(summary, columns=["run_tag", "k", "num_q", "sampled",
                                                   *ESTIMATE_COLUMNS])
    for frame in (per_topic, summary_frame):
        frame["sampled"] = frame["sampled"].astype("int64")
        for column in ESTIMATE_COLUMNS:
            frame[column] = frame[column].astype(float)
    return Estimates(per_topic, summary_frame, GAMMA_METHOD, per_r, "", "gamma")


class _Sample:
    """A prels file's judged documents per topic, as arrays over the file's rows."""

    def __init__(self, prels: pd.DataFrame, topics: list[str], level: int) -> None:
        self.topics = topics
        self.topic = pd.Index(topics).get_indexer(prels["topic"])
        self.inclusion = prels["inclusion"].to_numpy(dtype=float)
        self.weight = 1.0 / self.inclusion
        self.certain = self.inclusion == 1.0
        self.relevant = is_relevant(prels["grade"], level).to_numpy(dtype=bool)
        uncertain = self.weight[~self.certain]
        #: the largest 1 / pi in the file: the design's least sampled documents
        self.largest_weight = float(uncertain.max()) if len(uncertain) else 0.0
        self.keys = pd.MultiIndex.from_arrays([prels["topic"], prels["docno"]])

    def _per_topic(self, rows: np.ndarray, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.topic[rows], weights=values[rows], minlength=len(self.topics))

    def certain_relevant(self) -> np.ndarray:
        """Per topic, the relevant documents judged with certainty (inclusion 1)."""
        return self._per_topic(self.relevant & self.certain,
                               np.ones(len(self.topic))).astype(np.int64)

    def sampled(self) -> np.ndarray:
        """Per topic, the judged documents with inclusion below 1."""
        return self._per_topic(~self.certain, np.ones(len(self.topic))).astype(np.int64)

    def total(self, rows: np.ndarray, largest_weight: float | np.ndarray,
              unlisted: np.ndarray | None = None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per topic, the estimate of the relevant documents among ``rows`` (and the
        unsampled documents they stand for) with its Fay-Feuer interval (module
        docstring); ``unlisted``: documents not in the file that the total can hold at
        most (its upper end is at most what was found plus them)."""
        ones = np.ones(len(self.topic))
        known = self._per_topic(rows & self.certain, ones)
        uncertain = rows & ~self.certain
        found = self._per_topic(uncertain, ones)
        estimate, low, high = fay_feuer(self._per_topic(uncertain, self.weight),
                                        self._per_topic(uncertain, self.weight ** 2),
                                        largest_weight)
        low = np.maximum(low, found)  # the relevant documents found are there
        if unlisted is not None:
            high = np.minimum(high, found + unlisted)
        return known + estimate, known + low, known + high

    def recall(self, top: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per topic, the ratio estimate of Recall@k for the run's first k ``top``
        (``topic, docno``) and its MOVER interval (module docstring)."""
        keys = pd.MultiIndex.from_arrays([top["topic"], top["docno"]])
        inside = self.keys.isin(keys)
        unlisted = np.bincount(pd.Index(self.topics).get_indexer(top["topic"][~keys.isin(
            self.keys)]), minlength=len(self.topics)).astype(float)
        largest_inside = np.where(unlisted > 0, self.largest_weight, 0.0)
        return mover_ratio(self.total(self.relevant & inside, largest_inside, unlisted),
                           self.total(self.relevant & ~inside, self.largest_weight))


def fay_feuer(y: np.ndarray, v: np.ndarray, largest_weight: float | np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The estimate ``y = sum_i w_i x_i`` of a weighted sum of independent Poisson counts
    and its 95% gamma interval (Fay & Feuer 1997, 'Confidence intervals for directly
    standardized rates: a method based on the gamma distribution', Statistics in
    Medicine 16, eq. 4 and 5): ``low`` the 2.5% quantile of a gamma of shape ``y^2 / v``
    and scale ``v / y`` (0 when y is 0), ``high`` the 97.5% quantile of shape
    ``(y + wM)^2 / (v + wM^2)``, scale ``(v + wM^2) / (y + wM)``, ``wM`` the largest
    weight, so that a sum whose sample found nothing still has an upper end (about
    3.7 wM).

    :param y: ``(topics,)`` the weighted counts.
    :param v: ``(topics,)`` ``sum_i w_i^2 x_i``, the estimate of y's variance.
    :param largest_weight: ``wM``, a number or one per topic (0: nothing unseen).
    :returns: ``(y, low, high)``, each ``(topics,)``.
    """
    from scipy.stats import gamma

    y, v = np.asarray(y, dtype=float), np.asarray(v, dtype=float)
    w = np.broadcast_to(np.asarray(largest_weight, dtype=float), y.shape)
    seen = y > 0
    low = np.zeros(y.shape)
    low[seen] = gamma.ppf(0.025, y[seen] ** 2 / v[seen], scale=v[seen] / y[seen])
    high = y.copy()
    room = (y + w) > 0
    high[room] = gamma.ppf(0.975, (y[room] + w[room]) ** 2 / (v[room] + w[room] ** 2),
                           scale=(v[room] + w[room] ** 2) / (y[room] + w[room]))
    return y, low, high


def _top_lines(runs: pd.DataFrame, topics: list[str], depth: int) -> pd.DataFrame:
    """``run_tag, topic, docno, trec_rank`` of each run's first ``depth`` documents in
    ``topics`` (trec_eval order: :func:`~pooltool.ranking.trec_ranks`)."""
    rank = (runs["trec_rank"].to_numpy(dtype=np.int64) if "trec_rank" in runs.columns
            else trec_ranks(runs[["run_tag", "topic", "docno", "score"]]))
    lines = runs[["run_tag", "topic", "docno"]].assign(trec_rank=rank)
    return lines[(lines["trec_rank"] <= depth) & lines["topic"].isin(topics)]
