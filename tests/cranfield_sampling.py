"""Cranfield runs and a sampling experiment whose truth is known (used by
tests/test_estimate_cranfield.py and bench/bench_estimate_cranfield.py).

Runs: three retrievers written here in numpy over the 1400 documents (title and
abstract): BM25 (k1 = 1.2, b = 0.75; Robertson & Zaragoza 2009), BM25 on the
abstract only (k1 = 0.9, b = 0.4), and TF-IDF cosine (log tf, idf = log N/df).
Each returns its best 1000 documents per query (ties by docno, descending, as
trec_eval orders them).

The experiment: pool the runs at ``pool_depth``, draw a stratified sample
beyond the pool with :mod:`pooltool.analysis.sampling` (seeded), take the
judgments of pool and sample from the full cranqrel (grade >= 1 relevant; a
pair not in cranqrel is not relevant), estimate with
:mod:`pooltool.analysis.sample_estimates`, and compare with the truth: R and
Recall@k under the full cranqrel.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path

import numpy as np
import pandas as pd

from pooltool.analysis.beta_draws import RECALL_DRAWS
from pooltool.analysis.estimate import (
    StratumCounts,
    ht_total,
    ht_variance,
    normal_interval,
    ratio_recall,
    ratio_variance,
)
from pooltool.analysis.sample_design import Design
from pooltool.analysis.sample_estimates import Estimates, estimate_recall
from pooltool.analysis.sampling import build_frame, draw_sample, parse_strata
from pooltool.formats.documents import iter_documents
from pooltool.formats.qrels import read_qrels
from pooltool.formats.topics import read_topics
from pooltool.measures import evaluate_recall

TOKEN = re.compile(r"[a-z0-9]+")
STOP = set("a an and are as at be by for from has have how in is it its of on or that the "
           "this to was were what which with can do does there any be been".split())


def tokens(text: str) -> list[str]:
    return [t for t in TOKEN.findall(text.lower()) if t not in STOP]


@dataclass(frozen=True)
class Collection:
    docnos: list[str]
    topics: list[str]
    runs: pd.DataFrame      # run_tag, topic, docno, score
    qrels: pd.DataFrame     # topic, docno, grade (the full cranqrel)


def load(cranfield: Path, depth: int = 1000) -> Collection:
    docs = list(iter_documents(cranfield / "cran.all.1400"))
    topics = read_topics(cranfield / "cran.qry", "cranfield")
    qrels = read_qrels(cranfield / "derived" / "cranqrel.trec")[["topic", "docno", "grade"]]
    docnos = [d.docno for d in docs]
    full = [tokens(f"{d.title} {d.text}") for d in docs]
    abstract = [tokens(d.text) for d in docs]
    queries = [(t.topic, tokens(t.title or t.description)) for t in topics]
    frames = [
        _bm25("bm25", full, docnos, queries, 1.2, 0.75, depth),
        _bm25("bm25_abstract", abstract, docnos, queries, 0.9, 0.4, depth),
        _tfidf("tfidf", full, docnos, queries, depth),
    ]
    return Collection(docnos, [t for t, _ in queries], pd.concat(frames, ignore_index=True),
                      qrels)


def _matrix(docs: list[list[str]]) -> tuple[dict[str, int], np.ndarray]:
    vocab: dict[str, int] = {}
    for doc in docs:
        for term in doc:
            vocab.setdefault(term, len(vocab))
    tf = np.zeros((len(docs), len(vocab)))
    for i, doc in enumerate(docs):
        for term, count in Counter(doc).items():
            tf[i, vocab[term]] = count
    return vocab, tf


def _top(tag: str, scores: np.ndarray, docnos: list[str], topic: str,
         depth: int) -> pd.DataFrame:
    # numpy's sort instead of sorted() with a key per document: this helper ran 675
    # times (3 retrievers x 225 queries) in every worker that loads the collection
    # (6 CPU-s of sorting); the order is the same total one
    order = np.lexsort((_descending_docnos(tuple(docnos)), -scores))
    kept = order[scores[order] > 0][:depth]
    return pd.DataFrame({"run_tag": tag, "topic": topic, "docno": [docnos[i] for i in kept],
                         "score": [round(float(scores[i]), 6) for i in kept]})


@cache
def _descending_docnos(docnos: tuple[str, ...]) -> np.ndarray:
    """Each docno's place in descending string order (code points, as Python compares)."""
    ascending = np.argsort(np.array(docnos), kind="stable")
    places = np.empty(len(docnos), dtype=np.int64)
    places[ascending] = np.arange(len(docnos))
    return -places


def _bm25(tag: str, docs: list[list[str]], docnos: list[str],
          queries: list[tuple[str, list[str]]], k1: float, b: float,
          depth: int) -> pd.DataFrame:
    vocab, tf = _matrix(docs)
    lengths = tf.sum(axis=1)
    df = (tf > 0).sum(axis=0)
    idf = np.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
    norm = k1 * (1 - b + b * lengths / lengths.mean())
    weights = tf * (k1 + 1) / (tf + norm[:, None]) * idf
    out = []
    for topic, terms in queries:
        columns = [vocab[t] for t in terms if t in vocab]
        out.append(_top(tag, weights[:, columns].sum(axis=1), docnos, topic, depth))
    return pd.concat(out, ignore_index=True)


def _tfidf(tag: str, docs: list[list[str]], docnos: list[str],
           queries: list[tuple[str, list[str]]], depth: int) -> pd.DataFrame:
    vocab, tf = _matrix(docs)
    idf = np.log(len(docs) / np.maximum((tf > 0).sum(axis=0), 1))
    weights = np.where(tf > 0, 1 + np.log(np.maximum(tf, 1)), 0) * idf
    weights /= np.maximum(np.linalg.norm(weights, axis=1), 1e-12)[:, None]
    out = []
    for topic, terms in queries:
        query = np.zeros(len(vocab))
        for term in terms:
            if term in vocab:
                query[vocab[term]] += idf[vocab[term]]
        out.append(_top(tag, weights @ query, docnos, topic, depth))
    return pd.concat(out, ignore_index=True)


@dataclass
class Trial:
    """One seeded repetition: per topic truth, the Beta, MOVER-Wilson and normal estimates."""

    true_r: np.ndarray
    est_r: np.ndarray           # Horvitz-Thompson (est_R_ht)
    posterior_r: np.ndarray     # the posterior mean (est_R)
    se_r: np.ndarray
    beta_r: tuple[np.ndarray, np.ndarray]
    normal_r: tuple[np.ndarray, np.ndarray]
    true_recall: np.ndarray
    est_recall: np.ndarray
    beta_recall: tuple[np.ndarray, np.ndarray]
    normal_recall: tuple[np.ndarray, np.ndarray]
    ratio_recall: np.ndarray
    true_mean_recall: float
    est_mean_recall: float
    est_mean_r: float
    beta_mean_recall: tuple[float, float]
    true_mean_r: float
    beta_mean_r: tuple[float, float]
    sampled: int
    mover_r: tuple[np.ndarray, np.ndarray]
    mover_recall: tuple[np.ndarray, np.ndarray]
    mover_est_recall: np.ndarray
    mover_mean_r: tuple[float, float]
    mover_mean_recall: tuple[float, float]
    mover_est_mean_recall: float

    def est_mean_r_ht(self) -> float:
        """The mean over topics of the Horvitz-Thompson R (the MOVER-Wilson est_R)."""
        return float(np.mean(self.est_r))


class Experiment:
    """Pool, frame and truth built once; :meth:`trial` draws one sample and estimates."""

    def __init__(self, collection: Collection, pool_depth: int, strata: str,
                 topics: list[str] | None = None, run: str = "bm25", k: int = 100) -> None:
        self.topics = topics or collection.topics
        runs = collection.runs[collection.runs["topic"].isin(self.topics)]
        self.runs, self.run, self.k = runs, run, k
        self.strata = parse_strata(strata)
        ranked = runs.sort_values(["run_tag", "topic", "score", "docno"],
                                  ascending=[True, True, False, False])
        ranked = ranked.assign(rank=ranked.groupby(["run_tag", "topic"]).cumcount() + 1)
        self.pooled = ranked[ranked["rank"] <= pool_depth][["topic", "docno"]].drop_duplicates()
        self.best = ranked.groupby(["topic", "docno"], as_index=False)["rank"].min().rename(
            columns={"rank": "best_rank"})
        self.frame = build_frame(self.topics, self.pooled, self.best, self.strata,
                                 collection.docnos)
        qrels = collection.qrels[collection.qrels["topic"].isin(self.topics)]
        self.qrels = qrels
        # every pair the design may judge gets its cranqrel grade (0 when absent)
        known = pd.concat([self.pooled, self.frame[["topic", "docno"]]]).merge(
            qrels, on=["topic", "docno"], how="left").fillna({"grade": 0})
        # cranqrel's -1 (one per query, undocumented) is not relevant, as trec_eval reads it
        self.judged = known.assign(grade=known["grade"].clip(lower=0).astype("int64"))
        truth = evaluate_recall(runs[runs["run_tag"] == run], qrels, ks=(k,), complete=True)
        truth = truth.per_topic.set_index("topic").reindex(self.topics)
        self.true_r = truth["num_rel"].to_numpy(dtype=float)
        self.true_recall = truth[f"recall@{k}"].to_numpy(dtype=float)

    def design(self, seed: int, budget: int, allocation: str = "equal") -> Design:
        """One seeded stratified sample of ``budget`` documents per topic beyond the pool."""
        docs, sizes = draw_sample(self.frame, budget, seed, allocation)
        return Design("trial", self.strata, "collection", self.pooled, docs, sizes, self.best)

    def reported(self, seed: int, budget: int) -> Estimates:
        """What ``recall --estimate`` reports for the run on one seeded sample."""
        return estimate_recall(self.runs[self.runs["run_tag"] == self.run], self.judged,
                               self.design(seed, budget), [self.k], seed=seed)

    def trial(self, seed: int, budget: int, allocation: str = "equal",
              draws: int = 2000, recall_draws: int = RECALL_DRAWS) -> Trial:
        design = self.design(seed, budget, allocation)
        docs, sizes = design.docs, design.sizes
        run = self.runs[self.runs["run_tag"] == self.run]
        estimates = estimate_recall(run, self.judged, design, [self.k], seed=seed, draws=draws,
                                    interval="beta", recall_draws=recall_draws)
        mover = estimate_recall(run, self.judged, design, [self.k], interval="mover-wilson")
        mover_rows = mover.per_topic.set_index("topic").reindex(self.topics)
        mover_mean = mover.summary.iloc[0]
        rows = estimates.per_topic.set_index("topic").reindex(self.topics)
        counts = self._normal_inputs(docs, sizes)
        se: list[float] = []
        normal_r: tuple[list[float], list[float]] = ([], [])
        normal_recall: tuple[list[float], list[float]] = ([], [])
        ratio: list[float] = []
        for pooled_rel, rel_ret, strata in counts:
            variance = _variance(ht_variance, strata)
            se.append(float(np.sqrt(variance)))
            low, high = normal_interval(ht_total(pooled_rel, strata), variance)
            normal_r[0].append(low)
            normal_r[1].append(high)
            ratio.append(ratio_recall(pooled_rel, rel_ret, strata))
            r_variance = _variance(partial(ratio_variance, pooled_rel, rel_ret), strata)
            low, high = normal_interval(ratio[-1], r_variance)
            normal_recall[0].append(low)
            normal_recall[1].append(high)
        summary = estimates.summary.iloc[0]
        return Trial(
            true_r=self.true_r, est_r=rows["est_R_ht"].to_numpy(),
            posterior_r=rows["est_R"].to_numpy(), se_r=np.array(se),
            beta_r=(rows["est_R_low"].to_numpy(), rows["est_R_high"].to_numpy()),
            normal_r=(np.array(normal_r[0]), np.array(normal_r[1])),
            true_recall=self.true_recall, est_recall=rows["est_recall"].to_numpy(),
            beta_recall=(rows["est_recall_low"].to_numpy(), rows["est_recall_high"].to_numpy()),
            normal_recall=(np.array(normal_recall[0]), np.array(normal_recall[1])),
            ratio_recall=np.array(ratio), true_mean_recall=float(self.true_recall.mean()),
            est_mean_recall=float(summary["est_recall"]),
            est_mean_r=float(summary["est_R"]),
            beta_mean_recall=(float(summary["est_recall_low"]),
                              float(summary["est_recall_high"])),
            true_mean_r=float(self.true_r.mean()),
            beta_mean_r=(float(summary["est_R_low"]), float(summary["est_R_high"])),
            sampled=int(len(docs)),
            mover_r=(mover_rows["est_R_low"].to_numpy(), mover_rows["est_R_high"].to_numpy()),
            mover_recall=(mover_rows["est_recall_low"].to_numpy(),
                          mover_rows["est_recall_high"].to_numpy()),
            mover_est_recall=mover_rows["est_recall"].to_numpy(),
            mover_mean_r=(float(mover_mean["est_R_low"]), float(mover_mean["est_R_high"])),
            mover_mean_recall=(float(mover_mean["est_recall_low"]),
                               float(mover_mean["est_recall_high"])),
            mover_est_mean_recall=float(mover_mean["est_recall"]))

    def _normal_inputs(self, docs: pd.DataFrame,
                       sizes: pd.DataFrame) -> list[tuple[int, int, list[StratumCounts]]]:
        """Per topic: pooled relevant, pooled relevant in the run's top k, and the strata
        counts, worked out here directly (not by sample_estimates) for the normal interval."""
        run = self.runs[self.runs["run_tag"] == self.run].sort_values(
            ["topic", "score", "docno"], ascending=[True, False, False])
        top = run.groupby("topic").head(self.k)[["topic", "docno"]].assign(top=True)
        rel = self.judged[self.judged["grade"] >= 1][["topic", "docno"]].assign(rel=True)

        def flags(frame: pd.DataFrame) -> pd.DataFrame:
            out = frame.merge(top, how="left").merge(rel, how="left")
            return out.assign(top=out["top"].eq(True), rel=out["rel"].eq(True))

        pool = flags(self.pooled)
        pool_rel = pool.groupby("topic")["rel"].sum()
        pool_rel_ret = (pool["rel"] & pool["top"]).groupby(pool["topic"]).sum()
        frame = flags(self.frame[["topic", "docno", "stratum"]])
        frame = frame.merge(docs[["topic", "docno"]].assign(sampled=True), how="left")
        frame["sampled"] = frame["sampled"].eq(True)
        frame["s_rel"] = frame["sampled"] & frame["rel"]
        frame["s_top"] = frame["sampled"] & frame["top"]
        frame["s_rel_top"] = frame["s_rel"] & frame["top"]
        sums = frame.groupby(["topic", "stratum"])[
            ["sampled", "s_rel", "top", "s_top", "s_rel_top"]].sum()
        out = []
        for topic in self.topics:
            strata = []
            for row in sizes[sizes["topic"] == topic].itertuples():
                c = sums.loc[(topic, row.stratum)]
                strata.append(StratumCounts(int(row.population), int(c["sampled"]),
                                            int(c["s_rel"]), int(c["top"]), int(c["s_top"]),
                                            int(c["s_rel_top"])))
            out.append((int(pool_rel.get(topic, 0)), int(pool_rel_ret.get(topic, 0)), strata))
        return out


def _variance(function: object, strata: list[StratumCounts]) -> float:
    try:
        return float(function(strata))  # type: ignore[operator]
    except ValueError:  # a stratum of one sampled document: no variance estimate
        return float("nan")


def summarize(trials: list[Trial]) -> dict[str, float]:
    """Bias of R (mean error and its standard error), coverage and mean width of both
    intervals for R and Recall@k (per topic x repetition) and of the mean Recall@k."""
    err = np.concatenate([t.est_r - t.true_r for t in trials])
    per_rep = np.array([np.mean(t.est_r - t.true_r) for t in trials])

    def cover(name: str, truth: str) -> tuple[float, float]:
        hits, widths = [], []
        for t in trials:
            low, high = getattr(t, name)
            value = getattr(t, truth)
            hits.append((low - 1e-9 <= value) & (value <= high + 1e-9))
            widths.append(high - low)
        h, w = np.concatenate(hits), np.concatenate(widths)
        return float(np.mean(h)), float(np.nanmean(w))

    out = {
        "repetitions": len(trials),
        "topics": len(trials[0].true_r),
        "sampled_per_rep": float(np.mean([t.sampled for t in trials])),
        "true_R_mean": float(trials[0].true_r.mean()),
        "R_mean_error": float(err.mean()),
        "R_mean_error_se": float(per_rep.std(ddof=1) / np.sqrt(len(trials))),
        "R_posterior_mean_error": float(np.concatenate([t.posterior_r - t.true_r
                                                        for t in trials]).mean()),
        "estimates_outside_interval": float(sum(_outside(t) for t in trials)),
        "mean_recall_true": trials[0].true_mean_recall,
        "mean_recall_est_mean": float(np.mean([t.est_mean_recall for t in trials])),
        "mean_recall_ratio_estimate_mean": float(np.mean([np.mean(t.ratio_recall)
                                                          for t in trials])),
        "mean_recall_mover_estimate_mean": float(np.mean([t.mover_est_mean_recall
                                                          for t in trials])),
        "mover_estimates_outside_interval": float(sum(_outside_mover(t) for t in trials)),
    }
    for label, name, truth in (("R_beta", "beta_r", "true_r"), ("R_normal", "normal_r", "true_r"),
                               ("recall_beta", "beta_recall", "true_recall"),
                               ("recall_normal", "normal_recall", "true_recall"),
                               ("R_mover", "mover_r", "true_r"),
                               ("recall_mover", "mover_recall", "true_recall")):
        out[f"{label}_coverage"], out[f"{label}_width"] = cover(name, truth)
    for label, name, truth in (("mean_R_beta", "beta_mean_r", "true_mean_r"),
                               ("mean_recall_beta", "beta_mean_recall", "true_mean_recall"),
                               ("mean_R_mover", "mover_mean_r", "true_mean_r"),
                               ("mean_recall_mover", "mover_mean_recall", "true_mean_recall")):
        intervals = [(getattr(t, name), getattr(t, truth)) for t in trials]
        out[f"{label}_coverage"] = float(np.mean([low - 1e-9 <= value <= high + 1e-9
                                                  for (low, high), value in intervals]))
        out[f"{label}_width"] = float(np.mean([high - low for (low, high), _ in intervals]))
    return out


def _outside(trial: Trial) -> int:
    """How many of a trial's estimates (est_R and est_recall per topic and their means over
    topics) lie outside their own 95% intervals."""
    pairs = [(trial.posterior_r, trial.beta_r), (trial.est_recall, trial.beta_recall),
             (np.array([trial.est_mean_r]), trial.beta_mean_r),
             (np.array([trial.est_mean_recall]), trial.beta_mean_recall)]
    return int(sum(np.sum((value < np.asarray(low) - 1e-9) | (value > np.asarray(high) + 1e-9))
                   for value, (low, high) in pairs))


def _outside_mover(trial: Trial) -> int:
    """How many MOVER-Wilson estimates (the Horvitz-Thompson R, the post-stratified
    Recall@k, per topic and their means) lie outside their own intervals (none should)."""
    pairs = [(trial.est_r, trial.mover_r), (trial.mover_est_recall, trial.mover_recall),
             (np.array([trial.est_mean_r_ht()]), trial.mover_mean_r),
             (np.array([trial.mover_est_mean_recall]), trial.mover_mean_recall)]
    return int(sum(np.sum((value < np.asarray(low) - 1e-9) | (value > np.asarray(high) + 1e-9))
                   for value, (low, high) in pairs))
