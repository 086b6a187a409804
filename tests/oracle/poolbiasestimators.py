"""A plain-Python transcription of the parts of Lipani's PoolBiasEstimators that pooltool's
``bias --correct`` is checked against (github.com/aldolipani/PoolBiasEstimators, commit
ce84a2d, Apache-2.0; paths below are under
src/main/scala/at/ac/tuwien/ifs/ir/). Written from their source line by line, without
pooltool's code, as an independent oracle: runs are read and ordered as their
``model/Run.scala`` does (32-bit float scores), pools rebuilt as their
``evaluation/pool/DepthNPool.scala`` and ``PoolConverter.repoolTo`` do, and measures
rounded to 4 decimals where their ``evaluation/TRECEval.computeMetric`` rounds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

import numpy as np

Run = dict[str, list[tuple[str, int]]]           # topic -> [(docno, rank)] in rank order
Qrels = dict[str, dict[str, int]]                # topic -> docno -> rel (-1: pooled, unjudged)


def read_run(path: Path) -> Run:
    """``Runs.fromLines`` / ``Run.fromListOfItems`` (model/Run.scala lines 49-75): sort by
    32-bit score descending then docno descending, keep a docno's first line, rank 1..n."""
    by_topic: dict[str, list[tuple[np.float32, str]]] = {}
    for line in path.read_text().splitlines():
        fields = line.split()
        if fields:
            by_topic.setdefault(fields[0], []).append((np.float32(fields[4]), fields[2]))
    run: Run = {}
    for topic, lines in by_topic.items():
        ordered = sorted(lines, key=lambda e: e[1], reverse=True)
        ordered.sort(key=lambda e: -e[0])
        docs = list(dict.fromkeys(d for _, d in ordered))   # a docno's first line
        run[topic] = [(d, i) for i, d in enumerate(docs, start=1)]
    return run


def read_qrels(path: Path) -> Qrels:
    qrels: Qrels = {}
    for line in path.read_text().splitlines():
        topic, _, docno, rel = line.split()
        qrels.setdefault(topic, {})[docno] = int(rel)
    return qrels


def depth_pool(depth: int, runs: Iterable[Run], qrels: Qrels) -> Qrels:
    """``DepthNPool.qRels`` (pool/DepthNPool.scala line 12, PoolConverter.scala lines
    204-226): per qrels topic, the judgments of the documents in some run's top
    ``depth``, and -1 for pooled documents the qrels lack."""
    runs = list(runs)
    pooled: Qrels = {}
    for topic, judged in qrels.items():
        docs = {d for run in runs for d, _ in run.get(topic, [])[:depth]}
        pooled[topic] = {d: judged.get(d, -1) for d in docs}
    return pooled


def _round(value: float) -> float:
    """``TRECEval.round`` (line 29): Java's Math.round to 4 decimals."""
    return math.floor(value * 10000 + 0.5) / 10000


def precision(n: int, run: Run, qrels: Qrels, anti: bool = False, rounded: bool = False) -> float:
    """``TRECEval.p_n`` (lines 110-113) over the run's topics in the qrels; ``anti``:
    with ``QRels.inverse`` (QRels.scala lines 25-33: rel 0 counts, nothing else)."""
    hits = [sum((qrels[t].get(d, -1) == 0) if anti else (qrels[t].get(d, -1) > 0)
                for d, _ in docs[:n]) for t, docs in run.items() if t in qrels]
    value = sum(hits) / len(hits) / n
    return _round(value) if rounded else value


def recall(n: int, run: Run, qrels: Qrels) -> float:
    """``TRECEval.recall_n`` (lines 115-118): mean over the run's topics in the qrels of
    relevant retrieved in the top n over relevant (0 when none)."""
    values = []
    for t, docs in run.items():
        if t in qrels:
            relevant = sum(r > 0 for r in qrels[t].values())
            found = sum(qrels[t].get(d, -1) > 0 for d, _ in docs[:n])
            values.append(found / relevant if relevant else 0.0)
    return sum(values) / len(values)


def measure(name: str, n: int, run: Run, qrels: Qrels) -> float:
    return precision(n, run, qrels) if name == "P" else recall(n, run, qrels)


def webber_on_runs(name: str, n: int, run: Run, pooled: dict[str, Run], qrels: Qrels,
                   depth: int) -> float:
    """``WebberOnRunsEstimator`` (lines 21-45): M(s) + mean over the pooled runs p of
    M(p) - M(p, pool without p), unrounded (``computeRawMetric``)."""
    pool = depth_pool(depth, pooled.values(), qrels)
    drops = [measure(name, n, p, pool) - measure(name, n, p, depth_pool(
        depth, [o for t, o in pooled.items() if t != tag], qrels)) for tag, p in pooled.items()]
    return measure(name, n, run, pool) + sum(drops) / len(drops)


def rerank(pooled_run: Run, run: Run) -> Run:
    """``LipaniEstimator.getNewRunBySelectedRuns`` and ``getNewScore`` (lines 66-101),
    with ``N`` = 0 and 32-bit scores, then ``Run.normalizeRank`` (Run.scala lines 77-82)."""
    mixed: Run = {}
    for topic, theirs in run.items():
        if topic not in pooled_run:
            continue
        rank_in_run = dict(theirs)
        top = np.float32(len(theirs) + 1)
        scored = []
        for docno, rank in pooled_run[topic]:
            other = rank_in_run.get(docno)
            if other is not None:
                step = other - rank
                fix = 1 / 10000 if step == 0 else (
                    (rank + 1) / 10000 if step > 0 else rank / (10000 * 10000))
                value = other + fix
            else:
                value = rank + 1 / 10000
            scored.append((np.float32(top - np.float32(value)), docno))
        scored.sort(key=lambda e: e[1], reverse=True)
        scored.sort(key=lambda e: -e[0])
        mixed[topic] = [(d, i) for i, (_, d) in enumerate(scored, start=1)]
    return mixed


def lipani(n: int, run: Run, pooled: dict[str, Run], qrels: Qrels, depth: int,
           rounded: bool = True) -> float:
    """``LipaniEstimator.getScoreP`` and ``getAdjP`` (lines 18-57), P@n."""
    pool = depth_pool(depth, pooled.values(), qrels)

    def p(r: Run, anti: bool = False) -> float:
        return precision(n, r, pool, anti, rounded)

    s, a = p(run), p(run, anti=True)
    k = 1 - (s + a)
    if k == 0:
        return s
    deltas = []
    for other in pooled.values():
        mixed = rerank(other, run)
        ds, da = p(mixed) - p(other), p(mixed, True) - p(other, True)
        deltas.append((ds, da, -ds - da))
    mean = [sum(d[i] for d in deltas) / len(deltas) for i in range(3)]
    lam = mean[0] * a - mean[1] * s
    return s + (k * max(mean[2], 0.0) if lam > 0 else 0.0)


def leave_one_run_out(estimate, pooled: dict[str, Run], **options) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """``ScoreEstimator.getAllScoresL1RO`` (ScoreEstimator.scala lines 58-64): each pooled
    run scored by the estimator on the pool of the others."""
    return {tag: estimate(run=run, pooled={t: r for t, r in pooled.items() if t != tag},
                          **options) for tag, run in pooled.items()}
