"""Benchmark: leave-one-run-out pool bias over many runs (issue 5).

    python bench/bench_bias.py --runs 30 --topics 250 --depth 1000 --pool-depth 20 -k 100

Generates runs with bench_pool.generate_runs (deterministic for a seed), imports
them into a store and pools them (not timed), writes qrels for the pool (each
pooled document relevant with a probability that falls with its best rank),
then times what ``pooltool bias`` does: reading the runs' top entries from the
store once and :func:`pooltool.analysis.bias.leave_one_out`. For scale it also
times the naive way: for each run, rebuild the qrels without its unique
documents and score it again with ``evaluate_recall``. Target: under 10 s.

With ``--correct METHOD`` (repeatable: webber-park, webber-park-similar, lipani) it
also times :func:`pooltool.analysis.bias_correction.corrected_scores` at -k, the
validation that ``pooltool bias --correct METHOD`` runs (lipani reads the runs whole,
from the store's tables as the command does);
the TREC-COVID figures of issue 26 are whole ``pooltool`` processes (bench/README.md).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pool import generate_runs  # noqa: E402

from pooltool import pooling  # noqa: E402
from pooltool.analysis.bias import leave_one_out  # noqa: E402
from pooltool.analysis.bias_correction import METHODS, corrected_scores  # noqa: E402
from pooltool.measures.recall import evaluate_recall  # noqa: E402
from pooltool.store import JudgmentStore  # noqa: E402


def build_store(workdir: Path, files: list[Path], pool_depth: int, seed: int) -> Path:
    """Import and pool the runs, and write synthetic qrels for the pool (cached in workdir)."""
    path = workdir / f"bias-{pool_depth}.db"
    if path.exists():
        return path
    with JudgmentStore.open(path, create=True) as store:
        store.add_runs(files)
        pooling.pool_runs(store, pool_depth)
        docs = store.pool_docs()
        rng = np.random.default_rng(seed)
        relevant = rng.random(len(docs)) < 0.6 / np.sqrt(docs["best_rank"].to_numpy())
        grades = np.where(relevant, rng.integers(1, 3, len(docs)), 0)
        qrels_path = workdir / f"qrels-{pool_depth}.txt"
        qrels_path.write_text("".join(
            f"{t} 0 {d} {g}\n" for t, d, g in zip(docs["topic"], docs["docno"], grades,
                                                  strict=True)))
        store.import_qrels(qrels_path, "bench")
    return path


def naive_leave_one_out(top: pd.DataFrame, qrels: pd.DataFrame, depth: int, k: int) -> float:
    """Per run: drop its unique pairs from the qrels and score it again. Returns seconds."""
    start = time.perf_counter()
    pooled = top[top["trec_rank"] <= depth]
    runs_per_pair = pooled.groupby(["topic", "docno"])["run_tag"].transform("nunique")
    unique = pooled[runs_per_pair == 1]
    for tag, own in unique.groupby("run_tag"):
        keys = pd.MultiIndex.from_frame(own[["topic", "docno"]])
        kept = qrels[~pd.MultiIndex.from_frame(qrels[["topic", "docno"]]).isin(keys)]
        evaluate_recall(top[top["run_tag"] == tag], kept, ks=[k])
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--topics", type=int, default=250)
    parser.add_argument("--depth", type=int, default=1000, help="lines per topic per run")
    parser.add_argument("--pool-depth", type=int, default=20)
    parser.add_argument("-k", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--correct", action="append", default=[], choices=list(METHODS),
                        help="also time corrected_scores by this method (repeatable)")
    parser.add_argument("--workdir", type=Path,
                        default=Path(tempfile.gettempdir()) / "pooltool-bench")
    args = parser.parse_args()
    files = generate_runs(args.workdir, args.runs, args.topics, args.depth, args.seed)
    db = build_store(args.workdir, files, args.pool_depth, args.seed)
    with JudgmentStore.open(db) as store:
        start = time.perf_counter()
        tags, depth = pooling.pool_contributors(store)
        top = store.top_entries(tags, max(args.k, depth))
        qrels = store.qrels("bench")
        read = time.perf_counter() - start
    start = time.perf_counter()
    result = leave_one_out(top, qrels, depth, args.k)
    shared = time.perf_counter() - start
    naive = naive_leave_one_out(top, qrels, depth, args.k)
    overall = result.overall()
    print(f"{args.runs} runs x {args.topics} topics, pool depth {depth}, k {args.k}, "
          f"{len(qrels)} judgments")
    print(f"  read top entries + qrels from the store  {read:7.2f} s")
    print(f"  leave_one_out (shared computation)       {shared:7.2f} s")
    print(f"  total (what 'pooltool bias' does)        {read + shared:7.2f} s   target < 10 s")
    print(f"  naive per-run re-scoring, for scale      {naive:7.2f} s   "
          f"({naive / shared:.1f}x the shared computation)")
    print(f"  MAE {overall['mae']:.4f}  SRE {overall['sre']}  tau_ap {overall['tau_ap']:.3f}")
    for method in args.correct:
        print(f"  corrected_scores, {method:<20}  {time_correction(db, method, args.k):7.2f} s "
              "(store read not included)")
    return 0


def time_correction(db: Path, method: str, k: int) -> float:
    """Seconds of one :func:`corrected_scores` validation by ``method`` at ``k``."""
    with JudgmentStore.open(db) as store:
        tags, depth = pooling.pool_contributors(store)
        top = store.top_entries(tags, max(k, depth))
        # lipani codes the runs whole from the store's tables, as the command reads them
        whole = dict(zip(tags, store.run_entries([store.run_id(tag) for tag in tags], None,
                                                 columns=["docno"]), strict=True)) \
            if method == "lipani" else None
        qrels = store.qrels("bench")
    start = time.perf_counter()
    corrected_scores(top, qrels, None, depth, k, method, whole=whole)
    return time.perf_counter() - start


if __name__ == "__main__":
    raise SystemExit(main())
